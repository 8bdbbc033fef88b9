"""A separable function f(x, y) = g(x) * h(y) evaluated on np.meshgrid arrays: the transcendental functions run on every grid point (and two full grids are materialised) instead of on the 1-D axes followed by one outer product."""
PLANTED = ("redundant", "memory")
import numpy as np

nx, ny = 2500, 2000
x = np.linspace(-4.0, 4.0, nx)
y = np.linspace(0.0, 10.0, ny)
modes = [(0.7, 1.3), (1.1, 2.9), (1.9, 4.2), (0.4, 7.5)]          # (width, frequency) of each separable mode


def main():
    X, Y = np.meshgrid(x, y)                           # (ny, nx) each
    field = np.zeros((ny, nx))
    for width, freq in modes:
        field += np.exp(-X ** 2 / (2.0 * width ** 2)) * np.cos(freq * Y)
    return field


if __name__ == "__main__":
    result = main()
