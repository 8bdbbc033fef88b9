"""Calling .contiguous() on a permuted tensor every iteration before a reduction that reads strided data
fine (forums: "is .contiguous() expensive?"): each call copies the whole tensor."""
PLANTED = ("layout",)
TOL = 1e-2
import torch

torch.manual_seed(0)
x = torch.randn(32, 512, 512)


def main():
    acc = torch.zeros(32, 512)
    for _ in range(15):
        y = x.permute(0, 2, 1).contiguous()
        acc += y.sum(-1)
    return acc


if __name__ == "__main__":
    result = main()
