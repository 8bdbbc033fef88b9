"""Row-wise normalisation with a list comprehension and torch.stack (forums: "normalise each row
without a loop")."""
PLANTED = ("launch_overhead", "host_bound", "utilization")
TOL = 1e-5
import torch

torch.manual_seed(0)
x = torch.randn(4000, 128)


def main():
    return torch.stack([r / r.norm() for r in x])


if __name__ == "__main__":
    result = main()
