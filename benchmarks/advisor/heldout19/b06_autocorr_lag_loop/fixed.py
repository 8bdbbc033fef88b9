import torch

torch.manual_seed(0)
N, MAXLAG, P = 4096, 768, 8
signals = [torch.cumsum(torch.randn(8, N, dtype=torch.float64), dim=1) * 0.05
           + torch.randn(8, N, dtype=torch.float64) for _ in range(30)]


def autocorr(x):
    x = x - x.mean(dim=1, keepdim=True)
    n = x.shape[1]
    spec = torch.fft.rfft(x, n=2 * n, dim=1)
    return torch.fft.irfft(spec * spec.conj(), n=2 * n, dim=1)[:, :MAXLAG] / n


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
