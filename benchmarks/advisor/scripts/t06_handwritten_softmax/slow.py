"""A hand-written softmax (exp / max / sum / div) instead of torch.softmax (common in tutorials and
attention code): four passes over the tensor and three temporaries."""
PLANTED = ("fusion",)
TOL = 1e-5
import torch

torch.manual_seed(0)
x = torch.randn(512, 4096)


def main():
    for _ in range(25):
        e = torch.exp(x - x.max(dim=-1, keepdim=True).values)
        p = e / e.sum(dim=-1, keepdim=True)
    return p


if __name__ == "__main__":
    result = main()
