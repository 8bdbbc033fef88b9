"""Robust feature scaling takes per-feature quantiles with `torch.quantile(X, q, dim=0)` on a row-major
(samples x features) matrix, so the sort runs down strided 16 KB-apart columns instead of along contiguous rows
(forums: "torch.quantile along dim 0 is 3x slower than along dim 1")."""
PLANTED = ("layout", "hotspot")
TOL = 1e-6
import torch

torch.manual_seed(0)
N, F = 1024, 4096
X = torch.randn(N, F) * (torch.rand(F) * 3 + 0.5) + torch.randn(F)
Q = torch.tensor([0.01, 0.25, 0.5, 0.75, 0.99])


def main():
    q01, q25, q50, q75, q99 = torch.quantile(X, Q, dim=0)
    Z = (torch.minimum(torch.maximum(X, q01), q99) - q50) / (q75 - q25)
    return torch.cat([torch.stack([q01, q25, q50, q75, q99]).flatten(), Z.mean(0), Z.abs().amax(0)])


if __name__ == "__main__":
    result = main()
