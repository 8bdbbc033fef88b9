"""PCA denoising of a batch of samples written as ``X @ (U @ U.T)``: the explicit n_features x n_features
projection matrix is built and multiplied in, O(n * d^2) work where ``(X @ U) @ U.T`` needs O(n * d * k)
(StackOverflow: "matrix multiplication order makes a huge difference", "np.linalg.multi_dot").
The fix: multiply in the cheap order."""
PLANTED = ("hotspot", "redundant")
TOL = 1e-6
import numpy as np

rng = np.random.default_rng(0)
N, D, K = 2_000, 1_200, 12
basis = np.linalg.qr(rng.standard_normal((D, K)))[0]
X = rng.standard_normal((N, K)) * np.linspace(5.0, 1.0, K) @ basis.T + 0.2 * rng.standard_normal((N, D))


def main():
    mu = X.mean(0)
    Xc = X - mu
    sample = Xc[::4]
    _, _, vt = np.linalg.svd(sample, full_matrices=False)
    U = vt[:K].T
    denoised = Xc @ (U @ U.T) + mu
    resid = np.sqrt(((X - denoised) ** 2).sum(1))
    return np.concatenate([resid[::50], denoised[::100, ::100].ravel()])


if __name__ == "__main__":
    result = main()
