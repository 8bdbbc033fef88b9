"""Reading tensor elements with .item() in a Python loop (forums: ".item() is slow"; on a GPU every call
is a sync): counting and summing the positive values element by element."""
PLANTED = ("sync", "launch_overhead", "host_bound")
TOL = 1e-3
import torch

torch.manual_seed(0)
x = torch.randn(6000)


def main():
    n, total = 0, 0.0
    for i in range(x.shape[0]):
        v = x[i].item()
        if v > 0:
            n += 1
            total += v
    return torch.tensor([n, total], dtype=torch.float64)


if __name__ == "__main__":
    result = main()
