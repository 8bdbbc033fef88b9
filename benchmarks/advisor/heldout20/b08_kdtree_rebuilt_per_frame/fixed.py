import numpy as np
from scipy.spatial import cKDTree

rng = np.random.default_rng(0)
map_pts = rng.uniform(-50, 50, (60_000, 3))
frames = [rng.uniform(-50, 50, (1500, 3)) for _ in range(20)]
TREE = cKDTree(map_pts)


def frame_residual(scan):
    d, _ = TREE.query(scan, k=1)
    return np.sqrt(np.mean(d ** 2))


def main():
    return np.array([frame_residual(f) for f in frames])


if __name__ == "__main__":
    result = main()
