"""Scores a float16 embedding store (kept in half precision to save memory) against a few query vectors.
Planted: row standardisation, normalisation and the matmul all run in float16, which numpy has no SIMD/BLAS
path for, instead of upcasting once to float32. Modelled on StackOverflow "why is numpy float16 so slow"."""
PLANTED = ("precision", "hotspot")
TOL = 5e-3
import numpy as np

rng = np.random.default_rng(0)
N, D, Q = 36_000, 128, 16
store = (rng.standard_normal((N, D)) * rng.uniform(0.5, 2.0, D) + rng.uniform(-1, 1, D)).astype(np.float16)
queries = rng.standard_normal((Q, D)).astype(np.float16)


def main():
    e = store
    z = (e - e.mean(axis=1, keepdims=True)) / e.std(axis=1, keepdims=True)
    z = z / np.sqrt((z * z).sum(axis=1, keepdims=True))
    q = queries / np.sqrt((queries * queries).sum(axis=1, keepdims=True))
    scores = z @ q.T
    return np.sort(scores, axis=0)[-10:].astype(np.float64)


if __name__ == "__main__":
    result = main()
