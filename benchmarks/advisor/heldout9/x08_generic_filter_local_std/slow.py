"""A texture map (local standard deviation in a 7x7 window) computed with scipy.ndimage.generic_filter
and np.std, which calls back into Python for every pixel (StackOverflow: "fast local standard deviation
of an image"); two uniform_filter passes give the same map in compiled code."""
PLANTED = ("host_bound", "launch_overhead")
TOL = 1e-6
import numpy as np
from scipy import ndimage

rng = np.random.default_rng(0)

WINDOW = 7


def load_scan(h=256, w=256):
    yy, xx = np.mgrid[0:h, 0:w] / 40.0
    smooth = np.sin(xx) * np.cos(yy)
    rough = np.where((xx - 2.5) ** 2 + (yy - 2.5) ** 2 < 2.0, rng.normal(0, 0.5, (h, w)), 0.0)
    return smooth + rough + rng.normal(0, 0.05, (h, w))


def local_std(image, size=WINDOW):
    return ndimage.generic_filter(image, np.std, size=size)


def segment_rough_regions(image):
    texture = local_std(image)
    mask = texture > 0.2
    mask = ndimage.binary_opening(mask, iterations=2)
    labels, n = ndimage.label(mask)
    areas = ndimage.sum_labels(mask, labels, index=np.arange(1, n + 1))
    return texture, labels, areas


def main():
    scan = load_scan()
    texture, labels, areas = segment_rough_regions(scan)
    return np.concatenate([texture[::4, ::4].ravel(), [labels.max(), areas.sum()]])


if __name__ == "__main__":
    result = main()
