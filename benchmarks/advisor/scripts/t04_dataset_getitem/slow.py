"""A Dataset whose __getitem__ does the preprocessing in Python, per sample, with DataLoader(num_workers=0)
(forums: "GPU utilisation is low, training waits for data"): every epoch redoes the same per-sample work
on the main thread."""
PLANTED = ("input_pipeline", "host_bound")
TOL = 1e-3
import math
import random

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

random.seed(0)
torch.manual_seed(0)
RAW = [[random.gauss(0, 1) for _ in range(48)] for _ in range(1500)]
LABELS = [i % 4 for i in range(1500)]


class Samples(Dataset):
    def __len__(self):
        return len(RAW)

    def __getitem__(self, i):
        row = RAW[i]
        mean = sum(row) / len(row)
        std = math.sqrt(sum((v - mean) ** 2 for v in row) / len(row)) + 1e-6
        feats = [math.tanh((v - mean) / std) for v in row]
        return torch.tensor(feats), LABELS[i]


def main():
    torch.manual_seed(1)
    model = nn.Linear(48, 4)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(Samples(), batch_size=50, shuffle=False, num_workers=0)
    for _ in range(3):
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model.weight.detach()


if __name__ == "__main__":
    result = main()
