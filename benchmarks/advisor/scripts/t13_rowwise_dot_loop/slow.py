"""Row-by-row products in a Python loop (forums: "how to vectorise this for loop"): one torch.dot per row
writes out[i]."""
PLANTED = ("launch_overhead", "host_bound", "utilization")
TOL = 1e-3
import torch

torch.manual_seed(0)
a = torch.randn(5000, 64)
b = torch.randn(5000, 64)


def main():
    out = torch.empty(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = torch.dot(a[i], b[i])
    return out


if __name__ == "__main__":
    result = main()
