"""PCA whitening that keeps only the top 8 components but computes the full eigendecomposition of the
covariance with np.linalg.eigh (all eigenvalues and vectors), instead of an iterative solver for a few extreme eigenpairs (eigsh).
Modelled on StackOverflow "only need the largest eigenvectors of a big covariance matrix, eigh is slow"."""
PLANTED = ("hotspot",)
TOL = 1e-6
import numpy as np

rng = np.random.default_rng(0)
n, d, k = 1600, 1500, 8
latent = rng.normal(size=(n, k)) * np.linspace(10, 3, k)
X = latent @ rng.normal(size=(k, d)) + rng.normal(size=(n, d))


def top_components(X, k):
    C = np.cov(X, rowvar=False)
    w, V = np.linalg.eigh(C)
    return w[-k:][::-1], V[:, -k:][:, ::-1]


def main():
    w, V = top_components(X, k)
    Z = (X - X.mean(0)) @ V / np.sqrt(w)
    return np.concatenate([w, np.abs(Z[:5]).ravel()])


if __name__ == "__main__":
    result = main()
