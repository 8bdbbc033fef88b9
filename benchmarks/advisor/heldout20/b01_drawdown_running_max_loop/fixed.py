import torch

torch.manual_seed(0)
B, T = 32, 45_000
returns = 0.01 * torch.randn(B, T)
prices = 100.0 * torch.exp(torch.cumsum(returns, dim=1))


def max_drawdown(p):
    running = torch.cummax(p, dim=1).values
    dd = (p - running) / running
    return dd.min(dim=1).values


def main():
    return max_drawdown(prices)


if __name__ == "__main__":
    result = main()
