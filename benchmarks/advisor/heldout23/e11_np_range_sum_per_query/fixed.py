import numpy as np

rng = np.random.default_rng(0)
N, N_QUERIES, MAX_LEN = 1_000_000, 400_000, 400
signal = rng.random(N)
starts = rng.integers(0, N - MAX_LEN, N_QUERIES)
ends = starts + rng.integers(1, MAX_LEN, N_QUERIES)


def main():
    prefix = np.concatenate(([0.0], np.cumsum(signal)))
    return prefix[ends] - prefix[starts]


if __name__ == "__main__":
    result = main()
