import torch

torch.manual_seed(0)
x = torch.randn(4096, 4096)


def stats(t):
    return torch.stack([t[::64].mean(), t[:, ::64].amax()])


def main():
    acc = torch.zeros(2)
    for _ in range(25):
        acc += stats(x)
    return acc


if __name__ == "__main__":
    result = main()
