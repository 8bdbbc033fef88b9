import torch

torch.manual_seed(0)
N, D, B = 100_000, 32, 2000
X = torch.randn(N, D)
y = torch.randn(N)
sample_w = torch.rand(N)
gen = torch.Generator().manual_seed(1)


def main():
    w = torch.zeros(D)
    total = 0.0
    for epoch in range(8):
        order = torch.randperm(N, generator=gen)                  # keep the permutation a tensor
        for s in range(0, N, B):
            idx = order[s:s + B]                                   # a view, no list parsing
            xb, yb, wb = X[idx], y[idx], sample_w[idx]
            err = (xb @ w - yb) * wb
            w = w - 0.01 * (xb.T @ err) / B
            total += float(err.pow(2).mean())
    return torch.cat([w, torch.tensor([total])])


if __name__ == "__main__":
    result = main()
