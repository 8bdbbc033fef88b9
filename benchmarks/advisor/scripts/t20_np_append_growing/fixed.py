import numpy as np


def main():
    vals = []
    for i in range(30_000):
        vals.append(i * 0.5)
    return np.array(vals)


if __name__ == "__main__":
    result = main()
