"""Growing a tensor with torch.cat inside a loop (a frequent PyTorch forums question: "torch.cat in a loop
gets slower and slower"): every iteration copies everything gathered so far."""
PLANTED = ("memory", "redundant")
import torch

torch.manual_seed(0)
x = torch.randn(3000, 256)


def main():
    out = torch.empty(0, 256)
    for i in range(x.shape[0]):
        out = torch.cat([out, x[i:i + 1] * 2.0])
    return out


if __name__ == "__main__":
    result = main()
