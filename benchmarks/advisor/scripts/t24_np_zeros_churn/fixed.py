import numpy as np

rng = np.random.default_rng(0)
x = rng.random(4_000_000)


def main():
    total = 0.0
    buf = np.empty(4_000_000)
    for i in range(25):
        np.multiply(x, 1.0 + i, out=buf)
        total += float(buf[i * 1000])
    return np.array(total)


if __name__ == "__main__":
    result = main()
