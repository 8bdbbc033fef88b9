"""Loop-invariant tensors rebuilt every step (seen in hand-written transformer code): the causal mask and
the sinusoidal position table are recomputed in every forward call although they never change."""
PLANTED = ("redundant",)
TOL = 1e-4
import math

import torch

torch.manual_seed(0)
L, D = 1024, 256
tokens = torch.randn(L, D)


def forward(x):
    pos = torch.arange(L, dtype=torch.float32)[:, None]
    div = torch.exp(torch.arange(0, D, 2, dtype=torch.float32) * (-math.log(10000.0) / D))
    pe = torch.zeros(L, D)
    pe[:, 0::2] = torch.sin(pos * div)
    pe[:, 1::2] = torch.cos(pos * div)
    mask = torch.triu(torch.ones(L, L), diagonal=1).bool()
    h = x + pe
    scores = (h[:, :32] @ h[:, :32].T).masked_fill(mask, float("-inf"))
    return scores.softmax(-1)[:, :8]


def main():
    acc = torch.zeros(L, 8)
    for _ in range(20):
        acc += forward(tokens)
    return acc


if __name__ == "__main__":
    result = main()
