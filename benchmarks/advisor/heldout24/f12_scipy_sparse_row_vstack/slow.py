"""A document-term matrix built by creating one 1 x V scipy.sparse.csr_matrix per document and sparse.vstack-ing them: per-row sparse-object construction overhead, where one csr_matrix from concatenated (data, indices, indptr) arrays does it."""
PLANTED = ("host_bound", "memory")
TOL = 1e-9
import numpy as np
from scipy import sparse

rng = np.random.default_rng(0)
V, n_docs = 20_000, 6000
doc_lengths = rng.integers(20, 200, n_docs)
docs = [rng.zipf(1.3, size=L) % V for L in doc_lengths]        # token ids per document
idf = rng.random(V) + 0.5


def main():
    rows = []
    for tokens in docs:
        terms, counts = np.unique(tokens, return_counts=True)
        row = sparse.csr_matrix((counts.astype(float), (np.zeros(terms.size, dtype=np.int64), terms)),
                                shape=(1, V))
        rows.append(row)
    M = sparse.vstack(rows, format="csr")
    return np.asarray(M @ idf) + np.asarray(M.sum(axis=0)).ravel()[:n_docs]


if __name__ == "__main__":
    result = main()
