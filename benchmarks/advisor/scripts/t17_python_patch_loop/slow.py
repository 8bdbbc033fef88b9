"""Patches extracted with nested Python loops (forums: "sliding window over an image is slow") instead
of F.unfold."""
PLANTED = ("launch_overhead", "host_bound")
TOL = 1e-5
import torch
import torch.nn.functional as F

torch.manual_seed(0)
img = torch.randn(1, 8, 40, 40)


def main():
    cols = []
    for i in range(38):
        for j in range(38):
            cols.append(img[0, :, i:i + 3, j:j + 3].reshape(-1))
    return torch.stack(cols, dim=1)


if __name__ == "__main__":
    result = main()
