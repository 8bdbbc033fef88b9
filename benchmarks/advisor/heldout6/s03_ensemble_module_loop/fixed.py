import torch

torch.manual_seed(0)
E, D, H, B, BATCHES = 48, 16, 32, 128, 400

members = torch.nn.ModuleList(
    torch.nn.Sequential(torch.nn.Linear(D, H), torch.nn.Tanh(), torch.nn.Linear(H, 1)) for _ in range(E))
members.eval()
stream = torch.randn(BATCHES, B, D)


def main():
    with torch.no_grad():
        w1 = torch.stack([m[0].weight.t() for m in members])  # (E, D, H)
        b1 = torch.stack([m[0].bias for m in members])[:, None, :]  # (E, 1, H)
        w2 = torch.stack([m[2].weight.t() for m in members])  # (E, H, 1)
        b2 = torch.stack([m[2].bias for m in members])[:, None, :]  # (E, 1, 1)
        out = []
        for xb in stream:
            h = torch.tanh(torch.baddbmm(b1, xb.expand(E, -1, -1), w1))  # (E, B, H)
            preds = torch.baddbmm(b2, h, w2)  # (E, B, 1)
            out.append(preds.mean(0).squeeze(1))
    return torch.cat(out)


if __name__ == "__main__":
    result = main()
