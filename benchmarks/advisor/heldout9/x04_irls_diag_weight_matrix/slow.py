"""Logistic regression fitted by iteratively reweighted least squares, with the per-sample weights turned
into an n x n diagonal matrix (torch.diag) and multiplied in, X.T @ W @ X, instead of scaling the rows of
X (StackOverflow: "multiply by a diagonal matrix efficiently"); an O(n^2 d) product and an n x n buffer
where O(n d^2) suffices."""
PLANTED = ("redundant", "utilization", "hotspot")
TOL = 1e-3
import torch

torch.manual_seed(0)

N_SAMPLES = 3000
N_FEATURES = 24
N_REGIONS = 5


def make_region(n=N_SAMPLES, d=N_FEATURES):
    x = torch.randn(n, d)
    x[:, 0] = 1.0
    true_beta = torch.randn(d) * 0.5
    p = torch.sigmoid(x @ true_beta)
    y = (torch.rand(n) < p).float()
    return x, y


def fit_logistic_irls(X, y, n_iter=25, ridge=1e-2, tol=1e-7):
    n, d = X.shape
    beta = torch.zeros(d)
    eye = torch.eye(d)
    for _ in range(n_iter):
        p = torch.sigmoid(X @ beta)
        w = p * (1 - p)
        W = torch.diag(w)
        H = X.T @ W @ X + ridge * eye
        g = X.T @ (y - p) - ridge * beta
        step = torch.linalg.solve(H, g)
        beta = beta + step
        if step.abs().max() < tol:
            break
    return beta


def main():
    coefs = []
    for _ in range(N_REGIONS):
        X, y = make_region()
        coefs.append(fit_logistic_irls(X, y))
    return torch.stack(coefs)


if __name__ == "__main__":
    result = main()
