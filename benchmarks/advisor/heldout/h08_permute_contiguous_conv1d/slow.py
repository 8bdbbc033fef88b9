"""Sequence data kept as (batch, length, channels) and permuted + made contiguous before every Conv1d call
(forums: "Conv1d expects (N, C, L)")."""
PLANTED = ("layout",)
TOL = 1e-3
import torch
from torch import nn

torch.manual_seed(0)
conv = nn.Conv1d(64, 64, kernel_size=1).eval()
seqs = torch.randn(16, 4096, 64)


def main():
    acc = torch.zeros(16, 64)
    with torch.no_grad():
        for _ in range(20):
            x = seqs.permute(0, 2, 1).contiguous()
            acc += conv(x).mean(-1)
    return acc


if __name__ == "__main__":
    result = main()
