"""k-means assignment step written with broadcasting, ((X[:, None, :] - C[None, :, :]) ** 2).sum(-1):
two (points x clusters x dims) float64 temporaries allocated, filled and freed every iteration, where
|x|^2 - 2 x.c + |c|^2 needs only a (points x clusters) matmul (StackOverflow: "numpy pairwise distance
MemoryError / slow broadcasting")."""
PLANTED = ("memory",)
TOL = 1e-6
import numpy as np

rng = np.random.default_rng(0)
N, DIM, K = 8000, 16, 40
CENTRES = rng.normal(0, 4.0, (K, DIM))
X = CENTRES[rng.integers(0, K, N)] + rng.normal(0, 1.0, (N, DIM))


def sq_dists(x, c):
    return ((x[:, None, :] - c[None, :, :]) ** 2).sum(-1)


def main():
    c = X[rng.choice(N, K, replace=False)].copy()
    for it in range(12):
        d2 = sq_dists(X, c)
        labels = d2.argmin(1)
        counts = np.bincount(labels, minlength=K)
        sums = np.zeros_like(c)
        np.add.at(sums, labels, X)
        nonempty = counts > 0
        c[nonempty] = sums[nonempty] / counts[nonempty, None]
    inertia = d2[np.arange(N), labels].sum()
    return np.concatenate([c.ravel(), [inertia]])


if __name__ == "__main__":
    result = main()
