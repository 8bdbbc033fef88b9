"""Evaluation without torch.no_grad() (forums: "inference is slow / uses too much memory"): autograd
records the graph and keeps activations for a backward pass that never comes."""
PLANTED = ("redundant", "memory")
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(512, 1024), nn.GELU(), nn.Linear(1024, 1024), nn.GELU(), nn.Linear(1024, 10))
model.eval()
data = torch.randn(120, 64, 512)


def main():
    preds = []
    for batch in data:
        preds.append(model(batch).argmax(1))
    return torch.cat(preds)


if __name__ == "__main__":
    result = main()
