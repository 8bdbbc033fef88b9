"""Window totals for 400k (start, end) event queries over a 1M-sample signal taken one `signal[s:e].sum()` at
a time in a Python loop, re-summing overlapping ranges, instead of one cumulative sum and two gathers
(StackOverflow: "fast sum over many index ranges in numpy")."""
PLANTED = ("host_bound", "launch_overhead", "redundant")
TOL = 1e-6
import numpy as np

rng = np.random.default_rng(0)
N, N_QUERIES, MAX_LEN = 1_000_000, 400_000, 400
signal = rng.random(N)
starts = rng.integers(0, N - MAX_LEN, N_QUERIES)
ends = starts + rng.integers(1, MAX_LEN, N_QUERIES)


def main():
    out = np.empty(N_QUERIES)
    for q in range(N_QUERIES):
        out[q] = signal[starts[q]:ends[q]].sum()
    return out


if __name__ == "__main__":
    result = main()
