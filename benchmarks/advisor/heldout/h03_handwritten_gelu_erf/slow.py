"""The exact GELU written out with erf (copied from a paper's formula) instead of F.gelu."""
PLANTED = ("fusion",)
TOL = 1e-5
import math

import torch

torch.manual_seed(0)
x = torch.randn(4_000_000)


def main():
    for _ in range(15):
        y = x * 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))
    return y


if __name__ == "__main__":
    result = main()
