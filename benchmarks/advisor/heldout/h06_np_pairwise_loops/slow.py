"""Pairwise distances with two nested Python loops over numpy points (StackOverflow: "compute distance
matrix without loops")."""
PLANTED = ("host_bound", "launch_overhead")
TOL = 1e-9
import numpy as np

rng = np.random.default_rng(0)
a = rng.random((220, 3))
b = rng.random((220, 3))


def main():
    d = np.empty((len(a), len(b)))
    for i in range(len(a)):
        for j in range(len(b)):
            d[i, j] = np.sqrt(np.sum((a[i] - b[j]) ** 2))
    return d


if __name__ == "__main__":
    result = main()
