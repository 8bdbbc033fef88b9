import numpy as np

nx, ny = 2500, 2000
x = np.linspace(-4.0, 4.0, nx)
y = np.linspace(0.0, 10.0, ny)
modes = [(0.7, 1.3), (1.1, 2.9), (1.9, 4.2), (0.4, 7.5)]          # (width, frequency) of each separable mode


def main():
    field = np.zeros((ny, nx))
    for width, freq in modes:
        gx = np.exp(-x ** 2 / (2.0 * width ** 2))       # nx values
        hy = np.cos(freq * y)                            # ny values
        field += hy[:, None] * gx[None, :]               # one broadcast product per mode
    return field


if __name__ == "__main__":
    result = main()
