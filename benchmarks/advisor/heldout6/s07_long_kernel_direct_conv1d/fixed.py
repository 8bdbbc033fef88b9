import math

import torch

torch.manual_seed(0)
CHANNELS, LENGTH, K = 8, 120_000, 2001

t = torch.arange(K) / K
template = torch.sin(2 * math.pi * (20 * t + 60 * t * t)) * torch.hann_window(K)
template = (template / template.norm()).reshape(1, 1, K)
recordings = torch.randn(CHANNELS, 1, LENGTH)
for c in range(CHANNELS):
    start = 5_000 + 13_000 * c
    recordings[c, 0, start:start + K] += 0.5 * template[0, 0] * K ** 0.5

detector = torch.nn.Sequential(
    torch.nn.Conv1d(1, 16, 9, padding=4), torch.nn.ReLU(),
    torch.nn.Conv1d(16, 16, 9, padding=4), torch.nn.ReLU(),
    torch.nn.Conv1d(16, 1, 1))


def matched_filter(x):
    """F.conv1d(x, template) ("valid" cross-correlation) through the FFT."""
    n = x.shape[-1] + K - 1
    spectrum = torch.fft.rfft(x, n=n) * torch.fft.rfft(template.flip(-1), n=n)
    return torch.fft.irfft(spectrum, n=n)[..., K - 1:x.shape[-1]]


def main():
    with torch.no_grad():
        filtered = matched_filter(recordings)
        filtered = filtered / filtered.std(dim=-1, keepdim=True)
        scores = detector(filtered)
    return torch.cat([filtered.argmax(-1).float().flatten(), scores.mean(-1).flatten(),
                      filtered.abs().amax(-1).flatten()])


if __name__ == "__main__":
    result = main()
