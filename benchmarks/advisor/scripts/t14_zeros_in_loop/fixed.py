import torch

torch.manual_seed(0)
x = torch.randn(4_000_000)


def main():
    total = 0.0
    buf = torch.empty(4_000_000)
    for i in range(30):
        torch.mul(x, 1.0 + i, out=buf)
        total += float(buf[i * 1000])
    return torch.tensor(total)


if __name__ == "__main__":
    result = main()
