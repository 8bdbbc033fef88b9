"""Validation computes a ROC AUC per label head by comparing every positive score with every negative score.
Planted: O(P*N) broadcast comparisons (two ~45 MB boolean matrices, cast to float, per AUC) instead of sort + searchsorted.
Modelled on forum answers "compute AUC in pytorch without sklearn" that become slow on real validation sets."""
PLANTED = ("hotspot", "memory")
TOL = 1e-4
import torch

torch.manual_seed(0)
N_HEADS = 3
heads = []
for h in range(N_HEADS):
    n_pos = 6000 + 200 * h
    n_neg = 7000 - 150 * h
    pos = (torch.randn(n_pos) + 0.5 + 0.05 * h).mul(64).round().div(64)
    neg = torch.randn(n_neg).mul(64).round().div(64)
    heads.append((pos, neg))


def auc(pos, neg):
    greater = (pos[:, None] > neg[None, :]).float().mean()
    ties = (pos[:, None] == neg[None, :]).float().mean()
    return greater + 0.5 * ties


def main():
    return torch.stack([auc(pos, neg) for pos, neg in heads])


if __name__ == "__main__":
    result = main()
