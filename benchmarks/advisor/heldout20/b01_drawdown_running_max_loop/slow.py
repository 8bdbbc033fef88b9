"""Maximum drawdown of many price series, with the running maximum carried through a Python loop over time
steps (one torch.maximum and a few tiny ops per step) instead of torch.cummax.
Modelled on forum threads like "computing drawdown in PyTorch is slow, how do I vectorise a running max?"."""
PLANTED = ("host_bound", "launch_overhead")
TOL = 1e-5
import torch

torch.manual_seed(0)
B, T = 32, 45_000
returns = 0.01 * torch.randn(B, T)
prices = 100.0 * torch.exp(torch.cumsum(returns, dim=1))


def max_drawdown(p):
    dd = torch.empty_like(p)
    running = p[:, 0].clone()
    for t in range(p.shape[1]):
        running = torch.maximum(running, p[:, t])
        dd[:, t] = (p[:, t] - running) / running
    return dd.min(dim=1).values


def main():
    return max_drawdown(prices)


if __name__ == "__main__":
    result = main()
