"""Logistic regression fitted "from scratch" with full-batch gradient descent in torch (the course-exercise
style: append a column of ones for the intercept), the ``torch.cat`` that appends the ones column sitting
inside the iteration loop, so the whole design matrix is copied into a fresh tensor on every one of the
iterations although it never changes; modelled on a code-review thread on a homework-turned-production
churn model."""
PLANTED = ("memory", "redundant")
TOL = 1e-4
import torch

torch.manual_seed(0)
N, D = 40_000, 64
X = torch.randn(N, D)
true_w = torch.randn(D) / 4
y = (torch.sigmoid(X @ true_w + 0.3) > torch.rand(N)).float()


def add_intercept(features: torch.Tensor) -> torch.Tensor:
    return torch.cat([features, torch.ones(features.shape[0], 1)], dim=1)


def fit(n_iter=90, lr=0.5):
    w = torch.zeros(D + 1)
    history = []
    for it in range(n_iter):
        Xb = add_intercept(X)
        p = torch.sigmoid(Xb @ w)
        grad = Xb.T @ (p - y) / N
        w -= lr * grad
        if it % 20 == 0:
            eps = 1e-7
            history.append(float(-(y * torch.log(p + eps) + (1 - y) * torch.log(1 - p + eps)).mean()))
    return w, history


def main():
    w, history = fit()
    return torch.cat([w, torch.tensor(history)])


if __name__ == "__main__":
    result = main()
