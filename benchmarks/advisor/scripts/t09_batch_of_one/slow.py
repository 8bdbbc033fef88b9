"""A model applied to one sample at a time (forums: "inference in a for loop is slow"): every Linear is a
matrix-vector product and the per-call overhead dominates."""
PLANTED = ("launch_overhead", "utilization", "host_bound")
TOL = 1e-4
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 16)).eval()
x = torch.randn(600, 256)


def main():
    with torch.no_grad():
        return torch.cat([model(x[i:i + 1]) for i in range(x.shape[0])])


if __name__ == "__main__":
    result = main()
