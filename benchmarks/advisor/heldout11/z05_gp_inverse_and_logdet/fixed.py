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


def cholesky(ell, noise):
    K = rbf(X, X, ell) + noise * torch.eye(N_TRAIN, dtype=torch.float64)
    return torch.linalg.cholesky(K)


def neg_log_marginal(ell, noise):
    L = cholesky(ell, noise)
    alpha = torch.cholesky_solve(y[:, None], L)[:, 0]
    logdet = 2.0 * torch.log(torch.diagonal(L)).sum()
    return 0.5 * y @ alpha + 0.5 * logdet + 0.5 * N_TRAIN * math.log(2 * math.pi)


def predict(ell, noise):
    L = cholesky(ell, noise)
    alpha = torch.cholesky_solve(y[:, None], L)[:, 0]
    K_s = rbf(X_test, X, ell)
    mean = K_s @ alpha
    v = torch.linalg.solve_triangular(L, K_s.T, upper=False)
    var = 1.0 - (v * v).sum(0)
    return mean, var


def main():
    grid = [(ell, noise) for ell in LENGTHSCALES for noise in NOISES]
    nll = torch.stack([neg_log_marginal(ell, noise) for ell, noise in grid])
    best = grid[int(nll.argmin())]
    mean, var = predict(*best)
    return torch.cat([nll, mean, var])


if __name__ == "__main__":
    result = main()
