"""Cleaning sensor readings: z-score, clip, mean-impute gaps and smooth 600k readings received as a list with None gaps.
Planted: np.array(list with None) gives an object array, so every "vectorised" op runs Python float arithmetic per element.
Modelled on StackOverflow questions like "numpy operations on my array are as slow as a Python loop (dtype=object)"."""
PLANTED = ("precision", "host_bound", "hotspot")
TOL = 1e-9
import numpy as np

rng = np.random.default_rng(0)
N = 600_000
values = (20.0 + 3.0 * rng.standard_normal(N)).tolist()
gaps = rng.random(N) < 0.02
readings = [None if g else v for v, g in zip(values, gaps)]


def main():
    arr = np.array(readings)
    present = arr != None  # noqa: E711  (elementwise comparison on the array)
    vals = arr[present]
    mean = vals.sum() / len(vals)
    std = (((vals - mean) ** 2).sum() / len(vals)) ** 0.5
    arr[~present] = mean
    z = (arr - mean) / std
    z = np.minimum(np.maximum(z, -3.0), 3.0)
    smooth = (z[:-2] + z[1:-1] + z[2:]) / 3.0
    return np.asarray(smooth * std + mean, dtype=float)


if __name__ == "__main__":
    result = main()
