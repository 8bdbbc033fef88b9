"""A link graph is built by item assignment into a ``scipy.sparse.csr_matrix``, one edge at a time; each
``A[i, j] += w`` on a CSR matrix rebuilds its index arrays (StackOverflow: "Changing the sparsity structure
of a csr_matrix is expensive"; build COO triplets and convert once)."""
PLANTED = ("host_bound", "memory", "redundant")
TOL = 1e-8
import warnings

import numpy as np
import scipy.sparse as sp

N_PAGES = 50_000
N_LINKS = 2_000
DAMPING = 0.85


def read_links():
    rng = np.random.default_rng(0)
    src = rng.integers(0, N_PAGES, N_LINKS)
    dst = (src + rng.zipf(1.6, N_LINKS)) % N_PAGES
    weight = rng.integers(1, 5, N_LINKS)
    return list(zip(src.tolist(), dst.tolist(), weight.tolist()))


def build_graph(links):
    A = sp.csr_matrix((N_PAGES, N_PAGES))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sp.SparseEfficiencyWarning)
        for i, j, w in links:
            A[i, j] += w
    return A


def pagerank(A, iters=100):
    out_weight = np.asarray(A.sum(axis=1)).ravel()
    inv = np.divide(1.0, out_weight, out=np.zeros_like(out_weight), where=out_weight > 0)
    P = sp.diags(inv) @ A
    r = np.full(N_PAGES, 1.0 / N_PAGES)
    for _ in range(iters):
        dangling = r[out_weight == 0].sum()
        r = DAMPING * (P.T @ r) + (DAMPING * dangling + 1.0 - DAMPING) / N_PAGES
    return r


def main():
    links = read_links()
    A = build_graph(links)
    r = pagerank(A)
    return np.sort(r)[-500:] * N_PAGES


if __name__ == "__main__":
    result = main()
