"""K-fold cross-validation of a closed-form ridge regression over a grid of penalties, each system solved with
`torch.linalg.pinv(X^T X + lam I) @ X^T y` (an SVD per fold and penalty) instead of a solve/Cholesky.
Modelled on StackOverflow/forum questions like "closed-form ridge in PyTorch is slow, pinv vs solve"."""
PLANTED = ["hotspot"]
TOL = 1e-6
import torch

torch.manual_seed(0)
N, D, FOLDS = 3000, 400, 5
LAMBDAS = [0.1, 0.5, 2.0, 8.0, 32.0]

X = torch.randn(N, D, dtype=torch.float64)
w_true = torch.randn(D, dtype=torch.float64) * (torch.rand(D, dtype=torch.float64) < 0.2)
y = X @ w_true + 0.5 * torch.randn(N, dtype=torch.float64)


def fit_ridge(xtx, xty, lam):
    eye = torch.eye(xtx.shape[0], dtype=xtx.dtype)
    return torch.linalg.pinv(xtx + lam * eye) @ xty


def main():
    folds = torch.arange(N) % FOLDS
    scores = torch.zeros(FOLDS, len(LAMBDAS), dtype=torch.float64)
    for f in range(FOLDS):
        tr, te = folds != f, folds == f
        xtx = X[tr].T @ X[tr]
        xty = X[tr].T @ y[tr]
        for j, lam in enumerate(LAMBDAS):
            w = fit_ridge(xtx, xty, lam)
            scores[f, j] = ((X[te] @ w - y[te]) ** 2).mean()
    return scores


if __name__ == "__main__":
    result = main()
