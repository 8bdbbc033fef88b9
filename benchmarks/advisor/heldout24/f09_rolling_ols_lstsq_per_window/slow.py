"""A rolling linear-trend fit done with np.linalg.lstsq on a freshly built design matrix for every window, where the slope of a fixed time axis is one correlation with a constant kernel."""
PLANTED = ("host_bound", "redundant", "hotspot")
TOL = 1e-7
import numpy as np

rng = np.random.default_rng(0)
n, w = 45_000, 120
price = np.cumsum(rng.standard_normal(n)) + 100.0


def main():
    out = np.empty((n - w + 1, 2))
    for s in range(n - w + 1):
        t = np.arange(w, dtype=float)
        A = np.column_stack([t, np.ones(w)])
        coef, *_ = np.linalg.lstsq(A, price[s:s + w], rcond=None)
        out[s] = coef                                   # (slope, intercept)
    return out


if __name__ == "__main__":
    result = main()
