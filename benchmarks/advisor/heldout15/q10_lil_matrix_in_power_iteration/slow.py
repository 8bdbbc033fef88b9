"""Topic-sensitive PageRank by power iteration on a link graph edited (self-links dropped) as a scipy.sparse
lil_matrix. Planted: the matrix stays in LIL format for the iterations, so every A @ x converts the whole
matrix to CSR again; converting once after the edits makes each iteration a plain CSR mat-vec. Modelled on a
GitHub issue ("sparse matrix-vector product is 50x slower with lil_matrix")."""
PLANTED = ("redundant", "memory")
TOL = 1e-4
import numpy as np
from scipy import sparse

rng = np.random.default_rng(0)
N_PAGES, N_LINKS, N_TOPICS, DAMPING = 25_000, 250_000, 3, 0.85
src = rng.integers(0, N_PAGES, N_LINKS)
dst = (N_PAGES * rng.random(N_LINKS) ** 3).astype(np.int64)  # a few pages attract most links
topic_seeds = [rng.choice(N_PAGES, 50, replace=False) for _ in range(N_TOPICS)]


def link_matrix():
    A = sparse.coo_matrix((np.ones(N_LINKS), (dst, src)), shape=(N_PAGES, N_PAGES)).tolil()
    A.setdiag(0.0)  # a page linking to itself gets no vote
    return A


def pagerank(A, teleport, tol=1e-10, max_iter=500):
    out_weight = np.asarray(A.sum(axis=0)).ravel()
    dangling = out_weight == 0
    inv_out = np.divide(1.0, out_weight, out=np.zeros(N_PAGES), where=~dangling)
    r = teleport.copy()
    for it in range(max_iter):
        r_new = DAMPING * (A @ (r * inv_out)) + (DAMPING * r[dangling].sum() + 1.0 - DAMPING) * teleport
        if np.abs(r_new - r).sum() < tol:
            return r_new, it + 1
        r = r_new
    return r, max_iter


def main():
    A = link_matrix()
    ranks, iters = [], []
    for seeds in topic_seeds:
        teleport = np.zeros(N_PAGES)
        teleport[seeds] = 1.0 / seeds.size
        r, n_iter = pagerank(A, teleport)
        ranks.append(r)
        iters.append(n_iter)
    return np.concatenate([N_PAGES * np.ravel(ranks), iters])  # ranks scaled to mean 1


if __name__ == "__main__":
    result = main()
