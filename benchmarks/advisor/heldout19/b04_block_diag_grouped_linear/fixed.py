import torch

torch.manual_seed(0)
G, DG, OUT = 16, 64, 256
group_w = torch.randn(G, DG, DG) / DG ** 0.5
group_b = torch.randn(G, DG) * 0.1
head_w = torch.randn(OUT, G * DG) / (G * DG) ** 0.5
batches = [torch.randn(64, G * DG) for _ in range(10)]


class GroupedEncoder:
    def __init__(self):
        self.w_t = group_w.transpose(1, 2).contiguous()
        self.b = group_b.unsqueeze(1)

    def __call__(self, x):
        xg = x.reshape(x.shape[0], G, DG).transpose(0, 1)
        h = torch.baddbmm(self.b, xg, self.w_t)
        h = torch.nn.functional.gelu(h).transpose(0, 1).reshape(x.shape[0], G * DG)
        return h @ head_w.t()


def main():
    enc = GroupedEncoder()
    total = torch.zeros(64, OUT)
    with torch.no_grad():
        for _ in range(40):
            for x in batches:
                total += enc(x)
    return total


if __name__ == "__main__":
    result = main()
