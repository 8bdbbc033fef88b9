import numpy as np

rng = np.random.default_rng(0)
N, D, Q = 36_000, 128, 16
store = (rng.standard_normal((N, D)) * rng.uniform(0.5, 2.0, D) + rng.uniform(-1, 1, D)).astype(np.float16)
queries = rng.standard_normal((Q, D)).astype(np.float16)


def main():
    e = store.astype(np.float32)
    z = (e - e.mean(axis=1, keepdims=True)) / e.std(axis=1, keepdims=True)
    z = z / np.sqrt((z * z).sum(axis=1, keepdims=True))
    qf = queries.astype(np.float32)
    q = qf / np.sqrt((qf * qf).sum(axis=1, keepdims=True))
    scores = z @ q.T
    return np.sort(scores, axis=0)[-10:].astype(np.float64)


if __name__ == "__main__":
    result = main()
