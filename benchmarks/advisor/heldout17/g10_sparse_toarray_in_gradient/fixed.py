import numpy as np
from scipy import sparse

rng = np.random.default_rng(0)
N_DOCS, N_TERMS = 3000, 2500
X = sparse.random(N_DOCS, N_TERMS, density=0.004, format="csr", random_state=rng, dtype=np.float64)
X.data = np.log1p(10.0 * X.data)
W_TRUE = rng.standard_normal(N_TERMS)
Y = (X @ W_TRUE + 0.1 * rng.standard_normal(N_DOCS) > 0).astype(np.float64)


def loss_and_grad(w, X, y, l2=1e-3):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    loss = np.mean(np.logaddexp(0.0, z) - y * z) + 0.5 * l2 * w @ w
    grad = X.T @ (p - y) / X.shape[0] + l2 * w
    return loss, grad


def main():
    w = np.zeros(N_TERMS)
    losses = []
    for _ in range(40):
        loss, grad = loss_and_grad(w, X, Y)
        w -= 2.0 * grad
        losses.append(loss)
    return np.concatenate([w, losses])


if __name__ == "__main__":
    result = main()
