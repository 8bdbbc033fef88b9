"""Autocorrelation features (lags 0-767) of batches of float64 sensor signals, then Yule-Walker AR(8) coefficients.
Planted: the autocorrelation is a Python loop of one shifted product-and-sum per lag (O(N*L)) instead of one FFT.
Modelled on StackOverflow/forum questions like "compute autocorrelation for all lags efficiently in PyTorch"."""
PLANTED = ("hotspot", "launch_overhead", "host_bound")
TOL = 1e-6
import torch

torch.manual_seed(0)
N, MAXLAG, P = 4096, 768, 8
signals = [torch.cumsum(torch.randn(8, N, dtype=torch.float64), dim=1) * 0.05
           + torch.randn(8, N, dtype=torch.float64) for _ in range(30)]


def autocorr(x):
    x = x - x.mean(dim=1, keepdim=True)
    n = x.shape[1]
    return torch.stack([(x[:, :n - k] * x[:, k:]).sum(dim=1) for k in range(MAXLAG)], dim=1) / n


def yule_walker(r):
    idx = torch.arange(P)
    toeplitz = r[:, (idx[:, None] - idx[None, :]).abs()]
    return torch.linalg.solve(toeplitz, r[:, 1:P + 1])


def main():
    feats = []
    for x in signals:
        r = autocorr(x)
        r = r / r[:, :1]
        feats.append(torch.cat([r, yule_walker(r)], dim=1))
    return torch.cat(feats)


if __name__ == "__main__":
    result = main()
