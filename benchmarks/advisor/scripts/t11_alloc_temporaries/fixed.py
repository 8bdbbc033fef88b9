import torch

torch.manual_seed(0)
N = 16 * 1024 * 1024
a = torch.rand(N)
b = torch.rand(N)


def main():
    total = torch.zeros(())
    c = torch.empty(N)
    for step in range(12):
        torch.mul(a, b, out=c)
        c.add_(step)
        c.mul_(0.5)
        total += c[::4096].sum()
    return total


if __name__ == "__main__":
    result = main()
