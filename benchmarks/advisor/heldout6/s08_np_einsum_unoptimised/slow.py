"""Fits a full-covariance Gaussian mixture by EM in numpy, with the Mahalanobis distances of the E-step
written as a three-operand np.einsum (StackOverflow: "einsum is much slower than matmul"; answers point
at einsum's default optimize=False, which runs the whole contraction as one nested loop instead of
handing it to BLAS).

The rest of each EM iteration (responsibilities, weighted means and covariances, inverses) is written
with matmuls."""
PLANTED = ("hotspot", "utilization")
TOL = 1e-6
import numpy as np

rng = np.random.default_rng(0)
N, D, K, ITERS = 12_000, 48, 4, 4

centres = rng.normal(0.0, 3.0, (K, D))
X = centres[rng.integers(0, K, N)] + rng.normal(0.0, 1.0, (N, D)) @ rng.normal(0.0, 0.4, (D, D))


def mahalanobis_sq(diff, precision):
    return np.einsum("ni,ij,nj->n", diff, precision, diff)


def main():
    means = X[rng.choice(N, K, replace=False)]
    covs = np.stack([np.cov(X.T) for _ in range(K)])
    weights = np.full(K, 1.0 / K)
    for _ in range(ITERS):
        log_p = np.empty((N, K))
        for k in range(K):
            precision = np.linalg.inv(covs[k])
            _, logdet = np.linalg.slogdet(covs[k])
            diff = X - means[k]
            log_p[:, k] = np.log(weights[k]) - 0.5 * (logdet + mahalanobis_sq(diff, precision))
        log_p -= log_p.max(1, keepdims=True)
        resp = np.exp(log_p)
        resp /= resp.sum(1, keepdims=True)
        nk = resp.sum(0)
        weights = nk / N
        means = (resp.T @ X) / nk[:, None]
        for k in range(K):
            diff = X - means[k]
            covs[k] = (diff * resp[:, k:k + 1]).T @ diff / nk[k] + 1e-6 * np.eye(D)
    return np.concatenate([weights, means.ravel()])


if __name__ == "__main__":
    result = main()
