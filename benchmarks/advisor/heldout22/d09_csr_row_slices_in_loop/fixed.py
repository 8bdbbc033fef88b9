import numpy as np
import scipy.sparse as sp

rng = np.random.default_rng(0)
N_USERS, N_ITEMS, NNZ = 15_000, 8_000, 300_000
rows = rng.integers(0, N_USERS, NNZ)
cols = rng.integers(0, N_ITEMS, NNZ)
vals = rng.random(NNZ) + 0.01
R = sp.csr_matrix((vals, (rows, cols)), shape=(N_USERS, N_ITEMS))


def main():
    best_item = np.asarray(R.argmax(axis=1)).ravel().astype(float)
    best_score = R.max(axis=1).toarray().ravel()
    total = np.asarray(R.sum(axis=1)).ravel()
    return np.stack([best_item, best_score, total])


if __name__ == "__main__":
    result = main()
