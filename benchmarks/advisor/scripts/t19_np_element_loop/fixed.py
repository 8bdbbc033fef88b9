import numpy as np

rng = np.random.default_rng(0)
a = rng.random(150_000)
b = rng.random(150_000)


def main():
    return a * a + 3.0 * b


if __name__ == "__main__":
    result = main()
