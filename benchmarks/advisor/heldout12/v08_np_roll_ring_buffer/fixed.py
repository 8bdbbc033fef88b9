import numpy as np

CHANNELS, WINDOW, HOP, SAMPLES, FS = 64, 2048, 50, 13_000, 1000.0

rng = np.random.default_rng(0)
t = np.arange(SAMPLES) / FS
freqs = rng.uniform(5.0, 40.0, size=(CHANNELS, 1))
stream = np.sin(2 * np.pi * freqs * t) + 0.5 * rng.standard_normal((CHANNELS, SAMPLES))

taper = np.hanning(WINDOW)
bins = np.fft.rfftfreq(WINDOW, d=1.0 / FS)
bands = [(1, 4), (4, 8), (8, 13), (13, 30), (30, 45)]
band_masks = np.stack([(bins >= lo) & (bins < hi) for lo, hi in bands])


def band_powers(window):
    spectrum = np.abs(np.fft.rfft(window * taper, axis=1)) ** 2
    return spectrum @ band_masks.T


def main():
    buf = np.zeros((CHANNELS, WINDOW))
    head = 0  # the slot the next sample goes to; the oldest sample sits there too
    features = []
    for i in range(SAMPLES):
        buf[:, head] = stream[:, i]
        head = (head + 1) % WINDOW
        if i >= WINDOW and i % HOP == 0:
            features.append(band_powers(np.concatenate((buf[:, head:], buf[:, :head]), axis=1)))
    return np.log(np.stack(features))


if __name__ == "__main__":
    result = main()
