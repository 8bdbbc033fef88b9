"""Scoring helper called for each mini-batch that "validates" its input with np.array(X, dtype=float) and
.astype(np.float64), copying the whole (already float64) 40 MB feature matrix twice per call to score 8k of its rows.
Modelled on code-review / GitHub issues like "input validation copies the full array on every predict call"."""
PLANTED = ("memory", "redundant")
TOL = 1e-9
import numpy as np

rng = np.random.default_rng(0)
X = rng.normal(size=(160_000, 32))
W1 = rng.normal(size=(32, 32)) / 6.0
w = rng.normal(size=32) / 6.0
batches = [rng.integers(0, X.shape[0], 8192) for _ in range(24)]


def score_rows(X, W1, w, rows):
    X = np.array(X, dtype=float)
    X = X.astype(np.float64)
    z = np.tanh(X[rows] @ W1) @ w
    return 1.0 / (1.0 + np.exp(-z))


def main():
    return np.concatenate([score_rows(X, W1, w, r) for r in batches])


if __name__ == "__main__":
    result = main()
