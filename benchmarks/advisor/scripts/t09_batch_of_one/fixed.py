import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 16)).eval()
x = torch.randn(600, 256)


def main():
    with torch.no_grad():
        return model(x)


if __name__ == "__main__":
    result = main()
