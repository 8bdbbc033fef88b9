"""Gaussian-process hyperparameter grid search whose negative log marginal likelihood uses
``torch.linalg.inv(K)`` for the data-fit term and a separate ``torch.logdet(K)``, two LU factorisations and an
explicit inverse per candidate, then predicts with the inverse (code-review threads and forum answers: "never
invert the kernel matrix; one Cholesky factorisation gives the solve and the log-determinant")."""
PLANTED = ("hotspot", "redundant")
TOL = 1e-6
import math

import torch

torch.manual_seed(0)
N_TRAIN, N_TEST, DIM = 700, 400, 3
X = torch.rand(N_TRAIN, DIM, dtype=torch.float64) * 4
y = torch.sin(X).sum(1) + 0.1 * torch.randn(N_TRAIN, dtype=torch.float64)
X_test = torch.rand(N_TEST, DIM, dtype=torch.float64) * 4
LENGTHSCALES = torch.linspace(0.3, 2.0, 8).tolist()
NOISES = (0.01, 0.03, 0.1)


def rbf(a, b, ell):
    return torch.exp(-0.5 * torch.cdist(a, b).pow(2) / ell ** 2)


def neg_log_marginal(ell, noise):
    K = rbf(X, X, ell) + noise * torch.eye(N_TRAIN, dtype=torch.float64)
    K_inv = torch.linalg.inv(K)
    fit = 0.5 * y @ K_inv @ y
    return fit + 0.5 * torch.logdet(K) + 0.5 * N_TRAIN * math.log(2 * math.pi)


def predict(ell, noise):
    K = rbf(X, X, ell) + noise * torch.eye(N_TRAIN, dtype=torch.float64)
    K_inv = torch.linalg.inv(K)
    K_s = rbf(X_test, X, ell)
    mean = K_s @ (K_inv @ y)
    var = 1.0 - ((K_s @ K_inv) * K_s).sum(1)
    return mean, var


def main():
    grid = [(ell, noise) for ell in LENGTHSCALES for noise in NOISES]
    nll = torch.stack([neg_log_marginal(ell, noise) for ell, noise in grid])
    best = grid[int(nll.argmin())]
    mean, var = predict(*best)
    return torch.cat([nll, mean, var])


if __name__ == "__main__":
    result = main()
