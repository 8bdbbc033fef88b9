"""Meshless (least-squares) gradient reconstruction for moving particles: the neighbour search and the 3x3
moment matrices are vectorised, but each particle's 3x3 system is solved with its own `scipy.linalg.solve` call.
Modelled on StackOverflow questions like "solve many small 3x3 linear systems fast in numpy/scipy"."""
PLANTED = ["launch_overhead", "host_bound"]
TOL = 1e-8
import numpy as np
import scipy.linalg
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
    grad = np.empty((p.shape[0], 3))
    for i in range(p.shape[0]):
        grad[i] = scipy.linalg.solve(A[i], b[i], assume_a="sym")
    return grad


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
