"""A large np.zeros work buffer allocated in every iteration (numpy performance guides: reuse buffers,
use out=)."""
PLANTED = ("memory",)
TOL = 1e-9
import numpy as np

rng = np.random.default_rng(0)
x = rng.random(4_000_000)


def main():
    total = 0.0
    for i in range(25):
        buf = np.zeros(4_000_000)
        np.multiply(x, 1.0 + i, out=buf)
        total += float(buf[i * 1000])
    return np.array(total)


if __name__ == "__main__":
    result = main()
