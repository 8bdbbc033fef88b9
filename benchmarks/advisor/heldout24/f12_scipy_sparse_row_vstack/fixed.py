import numpy as np
from scipy import sparse

rng = np.random.default_rng(0)
V, n_docs = 20_000, 6000
doc_lengths = rng.integers(20, 200, n_docs)
docs = [rng.zipf(1.3, size=L) % V for L in doc_lengths]        # token ids per document
idf = rng.random(V) + 0.5


def main():
    indices, data = [], []
    indptr = np.zeros(n_docs + 1, dtype=np.int64)
    for i, tokens in enumerate(docs):
        terms, counts = np.unique(tokens, return_counts=True)
        indices.append(terms)
        data.append(counts.astype(float))
        indptr[i + 1] = indptr[i] + terms.size
    M = sparse.csr_matrix((np.concatenate(data), np.concatenate(indices), indptr), shape=(n_docs, V))
    return np.asarray(M @ idf) + np.asarray(M.sum(axis=0)).ravel()[:n_docs]


if __name__ == "__main__":
    result = main()
