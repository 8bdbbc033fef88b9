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
    all_rows, all_cols = [], []
    for _ in range(CHUNKS):
        r, c = cooccurrence_pairs(chunk_tokens())
        all_rows.append(r)
        all_cols.append(c)
    r, c = np.concatenate(all_rows), np.concatenate(all_cols)
    total = sp.coo_matrix((np.ones(r.shape[0]), (r, c)), shape=(VOCAB, VOCAB)).tocsr()
    degree = np.asarray(total.sum(axis=1)).ravel()
    return np.concatenate([degree, [total.nnz, total.max()]])


if __name__ == "__main__":
    result = build()
