"""numpy's float64 default where float32 is enough (scientific code ported to ML): matmuls and tanh
in double precision."""
PLANTED = ("precision",)
TOL = 5e-2
import numpy as np

rng = np.random.default_rng(0)
a = rng.standard_normal((600, 600))
b = rng.standard_normal((600, 600)) * 0.05


def main():
    acc = np.zeros((600, 600))
    for _ in range(10):
        acc = acc + np.tanh(a @ b)
    return acc


if __name__ == "__main__":
    result = main()
