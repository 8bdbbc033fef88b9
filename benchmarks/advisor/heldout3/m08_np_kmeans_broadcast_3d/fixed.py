import numpy as np

rng = np.random.default_rng(0)
N, DIM, K = 8000, 16, 40
CENTRES = rng.normal(0, 4.0, (K, DIM))
X = CENTRES[rng.integers(0, K, N)] + rng.normal(0, 1.0, (N, DIM))
X_SQ = (X * X).sum(1)


def sq_dists(x, c):
    d2 = X_SQ[:, None] - 2.0 * (x @ c.T) + (c * c).sum(1)[None, :]
    return np.maximum(d2, 0.0)


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
