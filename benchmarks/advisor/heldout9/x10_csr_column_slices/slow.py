"""Per-term statistics for feature selection gathered by slicing a column at a time, X[:, j], out of a
document-term matrix stored row-wise (CSR): every column slice walks the whole matrix (StackOverflow:
"column slicing of scipy sparse csr_matrix is slow"); the same loop over a CSC copy reads each column
directly."""
PLANTED = ("layout", "redundant")
TOL = 1e-9
import numpy as np
from scipy import sparse

rng = np.random.default_rng(0)

N_DOCS = 10000
N_TERMS = 1000


def build_doc_term_matrix(n_docs=N_DOCS, n_terms=N_TERMS, mean_len=120):
    lengths = rng.poisson(mean_len, n_docs)
    rows = np.repeat(np.arange(n_docs), lengths)
    ranks = rng.zipf(1.3, rows.shape[0])
    cols = (ranks - 1) % n_terms
    counts = sparse.coo_matrix((np.ones_like(rows, dtype=float), (rows, cols)), shape=(n_docs, n_terms)).tocsr()
    counts.sum_duplicates()
    return counts


def tfidf(counts):
    df = np.diff(counts.tocsc().indptr)
    idf = np.log((1 + counts.shape[0]) / (1 + df)) + 1.0
    weighted = counts.multiply(idf[None, :]).tocsr()
    norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1))).ravel()
    return sparse.diags(1.0 / np.maximum(norms, 1e-12)) @ weighted


def term_statistics(X):
    n_terms = X.shape[1]
    doc_freq = np.zeros(n_terms)
    mean_weight = np.zeros(n_terms)
    max_weight = np.zeros(n_terms)
    for j in range(n_terms):
        col = X[:, j]
        doc_freq[j] = col.nnz
        if col.nnz:
            mean_weight[j] = col.data.mean()
            max_weight[j] = col.data.max()
    return doc_freq, mean_weight, max_weight


def select_terms(X, k=300):
    doc_freq, mean_weight, max_weight = term_statistics(X)
    score = mean_weight * np.log1p(doc_freq)
    keep = np.argsort(-score, kind="stable")[:k]
    return keep, np.stack([doc_freq, mean_weight, max_weight])


def main():
    X = tfidf(build_doc_term_matrix()).tocsr()
    keep, stats = select_terms(X)
    return np.concatenate([keep.astype(float), stats.ravel()])


if __name__ == "__main__":
    result = main()
