import numpy as np
import scipy.linalg as sla

rng = np.random.default_rng(0)
N_TRAIN, N_BATCH, BATCH, DIM = 1_100, 40, 40, 3
X = rng.random((N_TRAIN, DIM))
y = np.sin(6 * X[:, 0]) + X[:, 1] ** 2 + 0.05 * rng.normal(size=N_TRAIN)
test_batches = [rng.random((BATCH, DIM)) for _ in range(N_BATCH)]


def rbf(a, b, ls=0.3):
    d2 = ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)
    return np.exp(-0.5 * d2 / ls**2)


def main():
    L = sla.cholesky(rbf(X, X) + 1e-2 * np.eye(N_TRAIN), lower=True)
    alpha = sla.cho_solve((L, True), y)
    means, variances = [], []
    for Xs in test_batches:
        Ks = rbf(X, Xs)
        v = sla.solve_triangular(L, Ks, lower=True)
        means.append(Ks.T @ alpha)
        variances.append(1.0 - (v * v).sum(0))
    return np.stack([np.concatenate(means), np.concatenate(variances)])


if __name__ == "__main__":
    result = main()
