import numpy as np
from scipy.spatial import cKDTree

rng = np.random.default_rng(0)
N, K, STEPS, DT = 1500, 16, 12, 0.01

pos0 = rng.uniform(0.0, 1.0, (N, 3))


def field(p):
    return np.sin(2 * np.pi * p[:, 0]) * np.cos(np.pi * p[:, 1]) + p[:, 2] ** 2


def velocity(p):
    return np.stack([-(p[:, 1] - 0.5), p[:, 0] - 0.5, 0.1 * np.sin(2 * np.pi * p[:, 0])], axis=1)


def ls_gradients(p, phi):
    _, nbr = cKDTree(p).query(p, k=K + 1)
    d = p[nbr[:, 1:]] - p[:, None, :]
    w = np.exp(-np.sum(d * d, axis=2) / 0.01)
    A = np.einsum("nk,nki,nkj->nij", w, d, d) + 1e-9 * np.eye(3)
    b = np.einsum("nk,nki,nk->ni", w, d, phi[nbr[:, 1:]] - phi[:, None])
    return np.linalg.solve(A, b[:, :, None])[:, :, 0]


def main():
    p = pos0.copy()
    err = []
    for _ in range(STEPS):
        phi = field(p)
        g = ls_gradients(p, phi)
        err.append(np.mean(np.abs(g[:, 2] - 2 * p[:, 2])))
        p = np.clip(p + DT * velocity(p), 0.0, 1.0)
    return np.concatenate([g.ravel(), err])


if __name__ == "__main__":
    result = main()
