"""Mini-batches gathered with X[idx] where idx is a sampler-style Python list of ints (randperm(...).tolist() sliced per batch): torch parses the list element by element on every indexing call, for every tensor it indexes."""
PLANTED = ("host_bound", "input_pipeline")
TOL = 1e-6
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
        order = torch.randperm(N, generator=gen).tolist()        # like a sampler yielding lists of ints
        for s in range(0, N, B):
            idx = order[s:s + B]
            xb, yb, wb = X[idx], y[idx], sample_w[idx]
            err = (xb @ w - yb) * wb
            w = w - 0.01 * (xb.T @ err) / B
            total += float(err.pow(2).mean())
    return torch.cat([w, torch.tensor([total])])


if __name__ == "__main__":
    result = main()
