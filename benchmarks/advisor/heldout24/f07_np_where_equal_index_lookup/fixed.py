import numpy as np

rng = np.random.default_rng(0)
ids = np.cumsum(rng.integers(1, 20, size=1_000_000))       # sorted, unique ids
values = rng.random(ids.size)
keys = ids[rng.integers(0, ids.size, 2800)]                              # ids seen in a log


def main():
    pos = np.searchsorted(ids, keys)                 # ids is sorted: binary search, all keys at once
    return values[pos] * 1000 + pos


if __name__ == "__main__":
    result = main()
