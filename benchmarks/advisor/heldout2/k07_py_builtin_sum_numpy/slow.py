"""Python's built-in sum() and max() on numpy arrays (StackOverflow: "why is sum(arr) so much slower
than arr.sum()"): per-window signal features computed by iterating numpy scalars one by one."""
PLANTED = ("host_bound", "launch_overhead", "hotspot")
TOL = 1e-9
import numpy as np

rng = np.random.default_rng(0)
signal = rng.standard_normal(4_000_000)
windows = signal.reshape(-1, 800)  # 5000 windows of 800 samples


def main():
    feats = []
    for w in windows:
        mean = sum(w) / len(w)
        peak = max(abs(w))
        feats.append((mean, peak))
    return np.array(feats)


if __name__ == "__main__":
    result = main()
