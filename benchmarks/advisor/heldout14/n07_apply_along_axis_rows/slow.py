"""Feature extraction for vibration windows (one row per window): each window is robust-scaled (median / MAD),
clipped, and summarised by a few statistics, written as a per-row function handed to ``np.apply_along_axis``
(the StackOverflow answer to "apply a function to every row of a numpy array"), which calls the Python function
once per row although every step of it has an ``axis=`` form; modelled on a StackOverflow question on a slow
predictive-maintenance feature pipeline."""
PLANTED = ("host_bound", "launch_overhead", "hotspot")
TOL = 1e-6
import numpy as np

rng = np.random.default_rng(0)
N_WINDOWS, WIDTH = 3_500, 128
t = np.arange(WIDTH) / WIDTH
freq = rng.uniform(2.0, 20.0, size=(N_WINDOWS, 1))
windows = np.sin(2 * np.pi * freq * t) + 0.3 * rng.standard_t(3, size=(N_WINDOWS, WIDTH))


def window_features(w: np.ndarray) -> np.ndarray:
    med = np.median(w)
    mad = np.median(np.abs(w - med)) * 1.4826 + 1e-9
    z = np.clip((w - med) / mad, -5.0, 5.0)
    return np.array([z.mean(), z.std(), np.abs(np.diff(z)).mean(), (z > 3.0).mean(), z.max() - z.min()])


def main():
    feats = np.apply_along_axis(window_features, 1, windows)
    centred = feats - feats.mean(axis=0)
    cov = centred.T @ centred / (len(feats) - 1)
    return np.concatenate([feats[:50].ravel(), cov.ravel()])


if __name__ == "__main__":
    result = main()
