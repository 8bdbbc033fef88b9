"""A hand-written LayerNorm (mean, var, sub, div, scale, shift) instead of F.layer_norm (seen in
re-implementations of transformer blocks)."""
PLANTED = ("fusion",)
TOL = 1e-4
import torch

torch.manual_seed(0)
x = torch.randn(256, 2048)
w = torch.randn(2048)
b = torch.randn(2048)


def main():
    for _ in range(40):
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        y = (x - mean) / torch.sqrt(var + 1e-5) * w + b
    return y


if __name__ == "__main__":
    result = main()
