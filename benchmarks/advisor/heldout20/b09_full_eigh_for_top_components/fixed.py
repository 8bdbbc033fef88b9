import numpy as np
from scipy.sparse.linalg import eigsh

rng = np.random.default_rng(0)
n, d, k = 1600, 1500, 8
latent = rng.normal(size=(n, k)) * np.linspace(10, 3, k)
X = latent @ rng.normal(size=(k, d)) + rng.normal(size=(n, d))


def top_components(X, k):
    C = np.cov(X, rowvar=False)
    w, V = eigsh(C, k=k, which="LA", v0=np.ones(C.shape[0]))
    order = np.argsort(w)[::-1]
    return w[order], V[:, order]


def main():
    w, V = top_components(X, k)
    Z = (X - X.mean(0)) @ V / np.sqrt(w)
    return np.concatenate([w, np.abs(Z[:5]).ravel()])


if __name__ == "__main__":
    result = main()
