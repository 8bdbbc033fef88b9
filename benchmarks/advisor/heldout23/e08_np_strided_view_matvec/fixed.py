import numpy as np

rng = np.random.default_rng(0)
N, P, ITERS = 4000, 3000, 30
X = rng.standard_normal((N, P)).astype(np.float32)
y = rng.standard_normal(N).astype(np.float32)


def main():
    Xs = np.ascontiguousarray(X[:, ::2])
    w = np.zeros(Xs.shape[1], dtype=np.float32)
    lr = np.float32(0.5 / N)
    for _ in range(ITERS):
        resid = Xs @ w - y
        w -= lr * (Xs.T @ resid)
    return w.astype(np.float64)


if __name__ == "__main__":
    result = main()
