"""Least-squares gradient descent on every other feature column uses the strided view `X[:, ::2]` in each
iteration's two mat-vecs; numpy cannot hand a view with no unit stride to BLAS and takes a slow generic loop
(StackOverflow: "matrix-vector product on a sliced array is 10x slower")."""
PLANTED = ("layout", "memory", "hotspot")
TOL = 1e-6
import numpy as np

rng = np.random.default_rng(0)
N, P, ITERS = 4000, 3000, 30
X = rng.standard_normal((N, P)).astype(np.float32)
y = rng.standard_normal(N).astype(np.float32)


def main():
    Xs = X[:, ::2]
    w = np.zeros(Xs.shape[1], dtype=np.float32)
    lr = np.float32(0.5 / N)
    for _ in range(ITERS):
        resid = Xs @ w - y
        w -= lr * (Xs.T @ resid)
    return w.astype(np.float64)


if __name__ == "__main__":
    result = main()
