"""A piecewise scalar function applied with np.vectorize, believed to be vectorised (StackOverflow:
"np.vectorize is no faster than a for loop"; the numpy docs: "provided primarily for convenience, not
for performance"): a Huber-style loss called as a Python function once per element of 3,000,000."""
PLANTED = ("host_bound", "hotspot")
TOL = 1e-9
import math

import numpy as np

rng = np.random.default_rng(0)
residuals = rng.standard_normal(3_000_000) * 2.0


def robust_loss(r, delta=1.0):
    a = abs(r)
    if a <= delta:
        return 0.5 * r * r
    if a <= 3 * delta:
        return delta * (a - 0.5 * delta)
    return delta * (2.5 * delta) + math.log1p(a - 3 * delta)


def main():
    loss = np.vectorize(robust_loss)(residuals)
    return np.array([loss.sum(), loss.max(), np.median(loss)])


if __name__ == "__main__":
    result = main()
