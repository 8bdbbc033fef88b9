"""Causal self-attention written out by hand (the "GPT from scratch" pattern: q @ k^T / sqrt(d),
masked_fill with -inf, softmax, @ v; forums and GitHub issues: "replace with
F.scaled_dot_product_attention"): the full (T x T) score matrix is materialised and passed over several
times per head."""
PLANTED = ("fusion", "memory")
TOL = 1e-4
import math

import torch

torch.manual_seed(0)
B, NH, T, D = 4, 8, 512, 64
q, k, v = (torch.randn(B, NH, T, D) for _ in range(3))
causal = torch.tril(torch.ones(T, T, dtype=torch.bool))


def attention(q, k, v):
    att = (q @ k.transpose(-2, -1)) / math.sqrt(D)
    att = att.masked_fill(~causal, float("-inf"))
    att = torch.softmax(att, dim=-1)
    return att @ v


def main():
    out = torch.zeros(B, NH, T, D)
    with torch.no_grad():
        for _ in range(4):
            out += attention(q, k, v)
    return out


if __name__ == "__main__":
    result = main()
