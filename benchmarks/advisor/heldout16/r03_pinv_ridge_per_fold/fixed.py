import torch

torch.manual_seed(0)
N, D, FOLDS = 3000, 400, 5
LAMBDAS = [0.1, 0.5, 2.0, 8.0, 32.0]

X = torch.randn(N, D, dtype=torch.float64)
w_true = torch.randn(D, dtype=torch.float64) * (torch.rand(D, dtype=torch.float64) < 0.2)
y = X @ w_true + 0.5 * torch.randn(N, dtype=torch.float64)


def fit_ridge(xtx, xty, lam):
    eye = torch.eye(xtx.shape[0], dtype=xtx.dtype)
    chol = torch.linalg.cholesky(xtx + lam * eye)
    return torch.cholesky_solve(xty.unsqueeze(1), chol).squeeze(1)


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
