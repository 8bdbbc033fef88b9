import numpy as np

rng = np.random.default_rng(0)
N_POINTS, VOXEL = 240_000, 0.08
ground = np.column_stack([rng.uniform(-20, 20, N_POINTS // 2), rng.uniform(-20, 20, N_POINTS // 2),
                          rng.normal(0.0, 0.03, N_POINTS // 2)])
centres = rng.uniform(-18, 18, size=(40, 3)) * np.array([1.0, 1.0, 0.0]) + np.array([0.0, 0.0, 1.5])
objects = centres[rng.integers(0, 40, N_POINTS - N_POINTS // 2)] + rng.normal(0, 0.6, (N_POINTS - N_POINTS // 2, 3))
points = np.vstack([ground, objects])
intensity = rng.uniform(0, 1, len(points))


def voxel_downsample(pts: np.ndarray, values: np.ndarray, size: float):
    ijk = np.floor((pts - pts.min(axis=0)) / size).astype(np.int64)
    dims = ijk.max(axis=0) + 1
    keys = np.ravel_multi_index(ijk.T, dims)  # one int64 per voxel, same (i, j, k) order
    ukeys, inverse = np.unique(keys, return_inverse=True)
    voxels = np.column_stack(np.unravel_index(ukeys, dims))
    counts = np.bincount(inverse)
    centroid = np.stack([np.bincount(inverse, weights=pts[:, d]) for d in range(3)], axis=1) / counts[:, None]
    mean_val = np.bincount(inverse, weights=values) / counts
    return voxels, centroid, mean_val, counts


def main():
    voxels, centroid, mean_val, counts = voxel_downsample(points, intensity, VOXEL)
    return np.concatenate([[len(voxels), counts.max()], centroid[:200].ravel(), mean_val[-200:],
                           centroid.mean(axis=0), voxels[::5000].ravel()])


if __name__ == "__main__":
    result = main()
