"""Rows appended with np.vstack in a loop (StackOverflow: "vstack in a loop is slow"): quadratic copying."""
PLANTED = ("memory", "host_bound", "launch_overhead")
TOL = 1e-9
import numpy as np

rng = np.random.default_rng(0)
rows = rng.random((4000, 64))


def main():
    out = np.empty((0, 64))
    for r in rows:
        out = np.vstack([out, r * 2.0])
    return out


if __name__ == "__main__":
    result = main()
