import random

import torch

random.seed(0)
RECORDS = [{"f%d" % k: random.random() for k in range(32)} for _ in range(800)]
KEYS = ["f%d" % k for k in range(32)]
torch.manual_seed(0)
w = torch.randn(32, 8)


def main():
    x = torch.tensor([[r[k] for k in KEYS] for r in RECORDS])   # once
    acc = torch.zeros(8)
    for _ in range(12):
        acc += (x @ w).sum(0)
    return acc


if __name__ == "__main__":
    result = main()
