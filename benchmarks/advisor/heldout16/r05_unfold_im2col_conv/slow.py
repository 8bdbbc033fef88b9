"""Toy benchmark of a small conv block on one fixed image batch, with each 3x3 convolution written by hand as
im2col (`F.unfold`, a 9x-larger column tensor) followed by a matmul instead of calling `F.conv2d`.
Modelled on forum threads like "my unfold + matmul convolution is much slower than nn.Conv2d"."""
PLANTED = ["memory", "hotspot"]
TOL = 1e-3
import torch
import torch.nn.functional as F

torch.manual_seed(0)
B, C, H, W, ITERS = 8, 16, 96, 96, 8

w1 = torch.randn(C, C, 3, 3) / (9 * C) ** 0.5
w2 = torch.randn(C, C, 3, 3) / (9 * C) ** 0.5
bias1, bias2 = 0.1 * torch.randn(C), 0.1 * torch.randn(C)
x = torch.randn(B, C, H, W)


def conv3x3(inp, weight, bias):
    b, c, h, w = inp.shape
    cols = F.unfold(inp, kernel_size=3, padding=1)
    out = weight.view(weight.shape[0], -1) @ cols + bias.view(1, -1, 1)
    return out.view(b, weight.shape[0], h, w)


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
