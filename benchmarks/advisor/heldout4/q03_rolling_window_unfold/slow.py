"""Rolling mean / standard deviation of a long (FFT low-passed) sensor signal for z-score anomaly
detection, computed with ``x.unfold(0, W, 1).mean(-1)`` and ``.std(-1)``: every window is summed from
scratch, W times the work of a running sum (StackOverflow / PyTorch forums: "fast rolling window
statistics in torch"). The fix: cumulative sums (in float64) and one subtraction per output."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-3
import torch

torch.manual_seed(0)
N, W = 600_000, 120
t = torch.arange(N, dtype=torch.float32)
signal = torch.sin(t / 5_000.0) * 3.0 + 0.5 * torch.randn(N)
signal[torch.randint(0, N, (50,))] += 6.0


def main():
    spec = torch.fft.rfft(signal)
    spec[N // 40:] = 0
    x = torch.fft.irfft(spec, n=N)
    x = x - x.mean()
    win = x.unfold(0, W, 1)
    mean = win.mean(-1)
    std = win.std(-1)
    z = (x[W - 1:] - mean) / std
    flagged = (z.abs() > 4.0).sum()
    return torch.cat([z[::5_000], flagged.reshape(1).float()])


if __name__ == "__main__":
    result = main()
