"""Growing a numpy array with np.append in a loop (StackOverflow: "np.append is slow"): each call copies
the whole array."""
PLANTED = ("memory", "host_bound", "launch_overhead")
TOL = 1e-9
import numpy as np


def main():
    arr = np.empty(0)
    for i in range(30_000):
        arr = np.append(arr, i * 0.5)
    return arr


if __name__ == "__main__":
    result = main()
