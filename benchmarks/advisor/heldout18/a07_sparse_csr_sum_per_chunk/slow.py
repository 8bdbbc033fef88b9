"""Builds a word co-occurrence matrix by turning each chunk of documents into a scipy.sparse CSR matrix and adding
it to a running total (StackOverflow: "building a big sparse matrix in a loop gets slower and slower").
Every addition re-merges the whole accumulated matrix, so the work grows with chunks x nnz; collecting the
(row, col) pairs and building the matrix once sums the duplicates in one pass."""
PLANTED = ("hotspot", "memory")
TOL = 1e-9
import numpy as np
import scipy.sparse as sp

rng = np.random.default_rng(0)
VOCAB, CHUNKS, TOKENS_PER_CHUNK, WINDOW = 20_000, 320, 900, 3


def chunk_tokens():
    ranks = rng.zipf(1.1, size=TOKENS_PER_CHUNK)
    return (ranks - 1) % VOCAB


def cooccurrence_pairs(tokens):
    rows, cols = [], []
    for k in range(1, WINDOW + 1):
        rows.append(tokens[:-k])
        cols.append(tokens[k:])
    r, c = np.concatenate(rows), np.concatenate(cols)
    return np.concatenate([r, c]), np.concatenate([c, r])


def build():
    total = sp.csr_matrix((VOCAB, VOCAB), dtype=np.float64)
    for _ in range(CHUNKS):
        r, c = cooccurrence_pairs(chunk_tokens())
        chunk = sp.coo_matrix((np.ones(r.shape[0]), (r, c)), shape=(VOCAB, VOCAB)).tocsr()
        total = total + chunk
    degree = np.asarray(total.sum(axis=1)).ravel()
    return np.concatenate([degree, [total.nnz, total.max()]])


if __name__ == "__main__":
    result = build()
