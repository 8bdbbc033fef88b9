"""Streaming anomaly scorer for multichannel sensor sequences: each channel is normalised causally by its
expanding (running) mean and standard deviation, so that no future sample leaks into a time step, and a
small temporal conv net scores every step."""
import torch

torch.manual_seed(0)
B, T, C = 32, 1_536, 16

signals = torch.cumsum(torch.randn(B, T, C) * 0.1, dim=1) + torch.randn(B, T, C)

scorer = torch.nn.Sequential(
    torch.nn.Conv1d(C, 64, 5, padding=4, dilation=2), torch.nn.GELU(),
    torch.nn.Conv1d(64, 64, 5, padding=8, dilation=4), torch.nn.GELU(),
    torch.nn.Conv1d(64, 64, 5, padding=16, dilation=8), torch.nn.GELU(),
    torch.nn.Conv1d(64, 1, 1),
).eval()


def causal_normalise(x, eps=1e-3):
    steps = x.shape[1]
    counts = torch.arange(1, steps + 1, dtype=x.dtype).view(1, steps, 1)
    mean = torch.cumsum(x, dim=1) / counts
    mean_sq = torch.cumsum(x * x, dim=1) / counts
    std = torch.sqrt(torch.clamp(mean_sq - mean * mean, min=0.0) + eps)
    return (x - mean) / std


@torch.no_grad()
def score():
    z = causal_normalise(signals)
    out = scorer(z.transpose(1, 2))[..., :T]
    return out.squeeze(1)


if __name__ == "__main__":
    result = score()
