import torch
import torch.nn.functional as F

torch.manual_seed(0)
B, C, H, W, ITERS = 8, 16, 96, 96, 8

w1 = torch.randn(C, C, 3, 3) / (9 * C) ** 0.5
w2 = torch.randn(C, C, 3, 3) / (9 * C) ** 0.5
bias1, bias2 = 0.1 * torch.randn(C), 0.1 * torch.randn(C)
x = torch.randn(B, C, H, W)


def conv3x3(inp, weight, bias):
    return F.conv2d(inp, weight, bias, padding=1)


def block(inp):
    h = F.relu(conv3x3(inp, w1, bias1))
    return F.relu(inp + conv3x3(h, w2, bias2))


def main():
    acc = torch.zeros(C)
    with torch.no_grad():
        for _ in range(ITERS):
            acc += block(x).mean(dim=(0, 2, 3))
    return acc


if __name__ == "__main__":
    result = main()
