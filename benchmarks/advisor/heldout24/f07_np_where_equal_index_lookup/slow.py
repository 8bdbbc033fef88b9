"""Looking up positions in a sorted id array with np.where(ids == key)[0][0] per key: a full O(N) scan and temporary mask per lookup, where np.searchsorted does all lookups by binary search."""
PLANTED = ("hotspot", "redundant", "memory")
import numpy as np

rng = np.random.default_rng(0)
ids = np.cumsum(rng.integers(1, 20, size=1_000_000))       # sorted, unique ids
values = rng.random(ids.size)
keys = ids[rng.integers(0, ids.size, 2800)]                              # ids seen in a log


def main():
    pos = np.empty(keys.size, dtype=np.int64)
    for i, key in enumerate(keys):
        pos[i] = np.where(ids == key)[0][0]
    return values[pos] * 1000 + pos


if __name__ == "__main__":
    result = main()
