"""Full-batch gradient descent for logistic regression on the training fold of a feature matrix.
Planted: the fold is re-selected with a boolean mask (X[train], a ~35 MB copy) inside every iteration
although the mask never changes. Modelled on code-review comments "hoist the fancy indexing out of the loop"."""
PLANTED = ("redundant", "memory")
TOL = 1e-8
import numpy as np

rng = np.random.default_rng(0)
N, D, ITERS = 150_000, 40, 25
X = rng.standard_normal((N, D))
w_true = rng.standard_normal(D) / 4
y = (X @ w_true + 0.5 * rng.standard_normal(N) > 0).astype(np.float64)
fold = rng.integers(0, 10, N)
train = fold < 7


def main():
    w = np.zeros(D)
    for it in range(ITERS):
        Xt = X[train]
        yt = y[train]
        p = 1.0 / (1.0 + np.exp(-(Xt @ w)))
        grad = Xt.T @ (p - yt) / yt.shape[0]
        w -= 0.5 * grad
    return w


if __name__ == "__main__":
    result = main()
