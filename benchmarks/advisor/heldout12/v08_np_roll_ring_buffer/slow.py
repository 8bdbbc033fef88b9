"""A streaming feature extractor that keeps the last WINDOW samples of every channel by calling ``np.roll`` on
the whole buffer for each new sample (StackOverflow: "efficient circular buffer in numpy", "np.roll is
slow"), copying the buffer into a new array every sample although the window is read only every HOP
samples; writing at a moving head and unrolling the window when it is read gives the same features."""
PLANTED = ("memory", "redundant", "hotspot")
TOL = 1e-8
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
    features = []
    for i in range(SAMPLES):
        buf = np.roll(buf, -1, axis=1)
        buf[:, -1] = stream[:, i]
        if i >= WINDOW and i % HOP == 0:
            features.append(band_powers(buf))
    return np.log(np.stack(features))


if __name__ == "__main__":
    result = main()
