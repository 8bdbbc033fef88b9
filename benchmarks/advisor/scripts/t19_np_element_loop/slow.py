"""Element-wise arithmetic on numpy arrays in a Python loop (StackOverflow: "why is my numpy loop slow")."""
PLANTED = ("host_bound", "launch_overhead")
TOL = 1e-6
import numpy as np

rng = np.random.default_rng(0)
a = rng.random(150_000)
b = rng.random(150_000)


def main():
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * a[i] + 3.0 * b[i]
    return out


if __name__ == "__main__":
    result = main()
