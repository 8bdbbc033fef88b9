"""Log-mel features for a keyword classifier computed from the full two-sided ``torch.fft.fft`` of real-valued
audio frames, squared magnitude taken over all ``n_fft`` bins, then only the first ``n_fft // 2 + 1`` kept: the
conjugate-symmetric half is filled in, squared and thrown away on every batch (code-review comments and
forum answers: "your input is real, use ``torch.fft.rfft``")."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-4
import math

import torch

torch.manual_seed(0)
SR, N_FFT, HOP, N_MELS = 16_000, 512, 64, 40
N_CLIPS, CLIP_S, N_WORDS = 512, 1.0, 10
t = torch.arange(int(SR * CLIP_S)) / SR
pitch = 200 + 600 * torch.rand(N_CLIPS, 1)
audio = torch.sin(2 * math.pi * pitch * t) * torch.rand(N_CLIPS, 1) + 0.3 * torch.randn(N_CLIPS, t.numel())
window = torch.hann_window(N_FFT)


def mel_filterbank(n_freq, n_mels):
    def hz_to_mel(f):
        return 2595.0 * math.log10(1.0 + f / 700.0)
    mels = torch.linspace(hz_to_mel(0.0), hz_to_mel(SR / 2), n_mels + 2)
    hz = 700.0 * (10 ** (mels / 2595.0) - 1.0)
    freqs = torch.linspace(0, SR / 2, n_freq)
    lo, mid, hi = hz[:-2, None], hz[1:-1, None], hz[2:, None]
    up = (freqs - lo) / (mid - lo)
    down = (hi - freqs) / (hi - mid)
    return torch.clamp(torch.minimum(up, down), min=0.0).T  # (n_freq, n_mels)


MEL = mel_filterbank(N_FFT // 2 + 1, N_MELS)
classifier = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(N_MELS * 243, 256), torch.nn.ReLU(),
                                 torch.nn.Linear(256, N_WORDS))


def log_mel(clips):
    frames = clips.unfold(-1, N_FFT, HOP) * window  # (B, n_frames, N_FFT), real
    power = torch.fft.fft(frames).abs() ** 2  # (B, n_frames, N_FFT)
    power = power[..., : N_FFT // 2 + 1]
    return torch.log(power @ MEL + 1e-6)


def main():
    outs = []
    with torch.no_grad():
        for i in range(0, N_CLIPS, 16):
            feats = log_mel(audio[i:i + 16])
            feats = (feats - feats.mean(dim=(1, 2), keepdim=True)) / feats.std(dim=(1, 2), keepdim=True)
            outs.append(classifier(feats))
    return torch.cat(outs)


if __name__ == "__main__":
    result = main()
