import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
                    nn.AdaptiveAvgPool2d(1), nn.Flatten()).eval()
images = torch.randn(192, 3, 32, 32)


def main():
    with torch.no_grad():
        return net(images)


if __name__ == "__main__":
    result = main()
