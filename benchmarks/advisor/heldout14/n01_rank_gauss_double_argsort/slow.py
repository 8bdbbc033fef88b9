"""Rank-Gauss normalisation of tabular features before a small MLP (the Kaggle preprocessing trick), ranks
computed per column with ``argsort().argsort()`` (the StackOverflow "rank of each element" answer), i.e. a
second full sort of an index permutation where one scatter of ``arange`` into the first sort's order gives the
same ranks; modelled on a code-review comment on a tabular-competition training script."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-4
import math

import torch

torch.manual_seed(0)
N_ROWS, N_FEAT = 60_000, 24
raw = torch.randn(N_ROWS, N_FEAT) * torch.linspace(0.5, 4.0, N_FEAT) + torch.rand(N_ROWS, N_FEAT).pow(3) * 10.0

mlp = torch.nn.Sequential(torch.nn.Linear(N_FEAT, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))


def rank_gauss(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]
    ranks = x.argsort(dim=0).argsort(dim=0).to(x.dtype)
    u = (ranks + 0.5) / n * 2.0 - 1.0
    return torch.erfinv(u.clamp(-1 + 1e-6, 1 - 1e-6)) * math.sqrt(2.0)


def main():
    feats = rank_gauss(raw)
    with torch.no_grad():
        scores = []
        for start in range(0, N_ROWS, 5_000):
            scores.append(mlp(feats[start:start + 5_000]))
        out = torch.cat(scores)
    return torch.stack([feats.mean(0), feats.std(0), feats[:1000].sum(0)]).flatten().tolist() + [out.mean().item()]


if __name__ == "__main__":
    result = main()
