"""Scan-to-map residuals: for each incoming lidar frame, nearest map point distances are found with a
scipy cKDTree that is rebuilt from the same static map on every frame, instead of built once.
Modelled on robotics/StackOverflow reports like "ICP with scipy KDTree is slow per frame"."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-9
import numpy as np
from scipy.spatial import cKDTree

rng = np.random.default_rng(0)
map_pts = rng.uniform(-50, 50, (60_000, 3))
frames = [rng.uniform(-50, 50, (1500, 3)) for _ in range(20)]


def frame_residual(scan):
    tree = cKDTree(map_pts)
    d, _ = tree.query(scan, k=1)
    return np.sqrt(np.mean(d ** 2))


def main():
    return np.array([frame_residual(f) for f in frames])


if __name__ == "__main__":
    result = main()
