import numpy as np

rng = np.random.default_rng(0)
a = rng.random((220, 3))
b = rng.random((220, 3))


def main():
    return np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1))


if __name__ == "__main__":
    result = main()
