"""Converting a tensor to a Python list with .item() per element (forums: "use .tolist()")."""
PLANTED = ("sync", "launch_overhead", "host_bound")
TOL = 1e-6
import torch

torch.manual_seed(0)
x = torch.randn(15000)


def main():
    return [t.item() for t in x]


if __name__ == "__main__":
    result = main()
