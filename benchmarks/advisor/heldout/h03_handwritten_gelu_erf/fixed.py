import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(4_000_000)


def main():
    for _ in range(15):
        y = F.gelu(x)
    return y


if __name__ == "__main__":
    result = main()
