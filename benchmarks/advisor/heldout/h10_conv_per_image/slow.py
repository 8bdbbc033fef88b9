"""A conv net applied image by image in a loop instead of on the batch (forums: "process a batch at once")."""
PLANTED = ("launch_overhead", "utilization", "host_bound")
TOL = 1e-4
import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
                    nn.AdaptiveAvgPool2d(1), nn.Flatten()).eval()
images = torch.randn(192, 3, 32, 32)


def main():
    with torch.no_grad():
        return torch.cat([net(images[i:i + 1]) for i in range(images.shape[0])])


if __name__ == "__main__":
    result = main()
