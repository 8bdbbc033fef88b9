import numpy as np

rng = np.random.default_rng(0)
readings = rng.normal(20.0, 3.0, 600_000)


def round4(values):
    return np.round(values, 4)


def main():
    r = round4(readings)
    hist, _ = np.histogram(r, bins=50, range=(5.0, 35.0))
    return np.concatenate([hist / hist.sum(), [r.mean(), r.std()]])


if __name__ == "__main__":
    result = main()
