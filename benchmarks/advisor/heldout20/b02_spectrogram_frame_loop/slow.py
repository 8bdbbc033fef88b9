"""Log-mel features of a batch of audio clips: each STFT frame is sliced, windowed and rfft'd in a Python loop
(thousands of tiny FFT calls) before one batched mel projection.
Modelled on GitHub/forum reports like "my hand-rolled spectrogram loop is much slower than torch.stft"."""
PLANTED = ("host_bound", "launch_overhead")
TOL = 1e-4
import torch

torch.manual_seed(0)
SR, N_FFT, HOP, N_MELS = 16_000, 512, 160, 80
clips = torch.randn(30, SR * 4)
window = torch.hann_window(N_FFT)
mel_fb = torch.rand(N_FFT // 2 + 1, N_MELS) / N_FFT


def power_spectrogram(x):
    n_frames = 1 + (x.shape[-1] - N_FFT) // HOP
    out = []
    for b in range(x.shape[0]):
        frames = []
        for f in range(n_frames):
            seg = x[b, f * HOP: f * HOP + N_FFT] * window
            frames.append(torch.fft.rfft(seg).abs() ** 2)
        out.append(torch.stack(frames))
    return torch.stack(out)


def main():
    spec = power_spectrogram(clips)
    logmel = torch.log(spec @ mel_fb + 1e-6)
    logmel = (logmel - logmel.mean(dim=1, keepdim=True)) / (logmel.std(dim=1, keepdim=True) + 1e-5)
    return logmel.mean(dim=1)


if __name__ == "__main__":
    result = main()
