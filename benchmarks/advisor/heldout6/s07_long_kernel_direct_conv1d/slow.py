"""Detects a known chirp in multichannel sensor recordings: a matched filter (cross-correlation with a
2001-sample template) through F.conv1d, then a small convolutional detector on the filtered signal
(PyTorch forum and GitHub issues: "conv1d with a very long kernel is slow on CPU"; the answers suggest
FFT-based convolution for kernels this long).

Direct convolution costs the signal length times the kernel length; through the FFT it is
N log N."""
PLANTED = ("hotspot",)
TOL = 1e-3
import math

import torch
import torch.nn.functional as F

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
    return F.conv1d(x, template)


def main():
    with torch.no_grad():
        filtered = matched_filter(recordings)
        filtered = filtered / filtered.std(dim=-1, keepdim=True)
        scores = detector(filtered)
    return torch.cat([filtered.argmax(-1).float().flatten(), scores.mean(-1).flatten(),
                      filtered.abs().amax(-1).flatten()])


if __name__ == "__main__":
    result = main()
