import torch

torch.manual_seed(0)
N = 16 * 1024 * 1024
xs = [torch.rand(N) for _ in range(3)]
weights = [0.1 * (i + 1) for i in range(12)]


def main():
    acc = torch.zeros(N)
    for i, w in enumerate(weights):
        acc.add_(xs[i % 3], alpha=w)
    return acc[::1024]


if __name__ == "__main__":
    result = main()
