import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(256, 2048)
w = torch.randn(2048)
b = torch.randn(2048)


def main():
    for _ in range(40):
        y = F.layer_norm(x, (2048,), w, b, eps=1e-5)
    return y


if __name__ == "__main__":
    result = main()
