"""Defensive .clone() of large tensors before read-only use (common in user code "to be safe"): each call
copies 64 MiB that nothing modifies."""
PLANTED = ("memory", "redundant")
TOL = 1e-3
import torch

torch.manual_seed(0)
x = torch.randn(4096, 4096)


def stats(t):
    return torch.stack([t[::64].mean(), t[:, ::64].amax()])


def main():
    acc = torch.zeros(2)
    for _ in range(25):
        acc += stats(x.clone())
    return acc


if __name__ == "__main__":
    result = main()
