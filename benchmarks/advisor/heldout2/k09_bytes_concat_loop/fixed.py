import struct

import numpy as np

rng = np.random.default_rng(0)
ids = rng.integers(0, 1_000_000, 50_000).tolist()
xs = rng.standard_normal(50_000).tolist()
ys = rng.standard_normal(50_000).tolist()


def main():
    parts = []
    for i, x, y in zip(ids, xs, ys):
        parts.append(struct.pack("<iff", i, x, y))
    buf = b"".join(parts)  # one copy at the end
    rec = np.frombuffer(buf, dtype=np.dtype([("id", "<i4"), ("x", "<f4"), ("y", "<f4")]))
    return np.array([len(buf), rec["id"].sum(), rec["x"].sum(dtype=np.float64), rec["y"].sum(dtype=np.float64)])


if __name__ == "__main__":
    result = main()
