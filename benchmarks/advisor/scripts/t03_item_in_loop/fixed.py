import torch

torch.manual_seed(0)
x = torch.randn(6000)


def main():
    pos = x > 0
    return torch.tensor([int(pos.sum()), float(x[pos].double().sum())], dtype=torch.float64)


if __name__ == "__main__":
    result = main()
