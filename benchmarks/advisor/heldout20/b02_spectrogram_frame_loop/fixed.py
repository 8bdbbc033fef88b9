import torch

torch.manual_seed(0)
SR, N_FFT, HOP, N_MELS = 16_000, 512, 160, 80
clips = torch.randn(30, SR * 4)
window = torch.hann_window(N_FFT)
mel_fb = torch.rand(N_FFT // 2 + 1, N_MELS) / N_FFT


def power_spectrogram(x):
    frames = x.unfold(-1, N_FFT, HOP) * window
    return torch.fft.rfft(frames).abs() ** 2


def main():
    spec = power_spectrogram(clips)
    logmel = torch.log(spec @ mel_fb + 1e-6)
    logmel = (logmel - logmel.mean(dim=1, keepdim=True)) / (logmel.std(dim=1, keepdim=True) + 1e-5)
    return logmel.mean(dim=1)


if __name__ == "__main__":
    result = main()
