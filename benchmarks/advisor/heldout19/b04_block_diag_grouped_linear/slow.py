"""Batched inference of a grouped-MLP encoder: 16 independent 64->64 group projections, GELU, then a dense head.
Planted: the group projections are packed with torch.block_diag into one 1024x1024 matmul (94 % multiplications by zero).
Modelled on forum questions like "fastest way to implement a grouped linear layer, block_diag vs bmm?"."""
PLANTED = ("hotspot", "memory")
TOL = 1e-4
import torch

torch.manual_seed(0)
G, DG, OUT = 16, 64, 256
group_w = torch.randn(G, DG, DG) / DG ** 0.5
group_b = torch.randn(G, DG) * 0.1
head_w = torch.randn(OUT, G * DG) / (G * DG) ** 0.5
batches = [torch.randn(64, G * DG) for _ in range(10)]


class GroupedEncoder:
    def __init__(self):
        self.w = torch.block_diag(*group_w)
        self.b = group_b.reshape(-1)

    def __call__(self, x):
        h = torch.nn.functional.gelu(x @ self.w.t() + self.b)
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
