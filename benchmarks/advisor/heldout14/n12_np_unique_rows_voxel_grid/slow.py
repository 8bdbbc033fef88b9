"""Voxel-grid downsampling of a lidar point cloud in numpy (one averaged point per occupied voxel): occupied
voxels are found with ``np.unique(voxel_ijk, axis=0, return_inverse=True)``, which sorts the integer triples as
structured records, where packing each triple into one int64 key and taking ``np.unique`` of the keys gives the
same voxels, in the same order, far faster; modelled on a StackOverflow question ("np.unique with axis=0 is very
slow for a large array of rows")."""
PLANTED = ("hotspot", "redundant")
TOL = 1e-9
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
    voxels, inverse = np.unique(ijk, axis=0, return_inverse=True)
    inverse = inverse.ravel()
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
