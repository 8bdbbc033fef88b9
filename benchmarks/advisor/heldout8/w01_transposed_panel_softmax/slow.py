"""A time-major panel of returns is turned asset-major with ``.t()`` and every row-wise softmax, cumsum and
norm of the sweep then runs over the strided view (PyTorch forums: "softmax along dim=1 is 5x slower
after transpose")."""
PLANTED = ("layout",)
TOL = 1e-4
import torch

N_DAYS = 1500
N_ASSETS = 2000
TEMPERATURES = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)


def load_returns():
    g = torch.Generator().manual_seed(0)
    return 0.01 * torch.randn(N_DAYS, N_ASSETS, generator=g)


def attention_weights(scores, temperature):
    return torch.softmax(scores / temperature, dim=1)


def sweep(per_asset):
    stats = []
    for temp in TEMPERATURES:
        w = attention_weights(per_asset, temp)
        wealth = torch.cumsum(w * per_asset, dim=1)
        concentration = w.norm(dim=1)
        spread = (per_asset - wealth / (1.0 + temp)).norm(dim=1)
        stats.append(torch.stack([wealth[:, -1].mean(), concentration.mean(), spread.mean()]))
    return torch.stack(stats)


def main():
    returns = load_returns()
    per_asset = returns.t()
    return sweep(per_asset)


if __name__ == "__main__":
    result = main()
