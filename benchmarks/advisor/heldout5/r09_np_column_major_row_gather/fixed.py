import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
N_ITEMS, DIM, N_USERS, N_CANDIDATES, TOP_K = 300_000, 64, 800, 2_000, 20

item_table = pd.DataFrame(rng.standard_normal((N_ITEMS, DIM)).astype(np.float32),
                          columns=[f"f{j}" for j in range(DIM)])
user_vecs = rng.standard_normal((N_USERS, DIM)).astype(np.float32)
candidates = rng.integers(0, N_ITEMS, (N_USERS, N_CANDIDATES))


def recommend():
    item_vecs = np.ascontiguousarray(item_table.to_numpy())
    top = np.empty((N_USERS, TOP_K))
    for u in range(N_USERS):
        cand = candidates[u]
        scores = item_vecs[cand] @ user_vecs[u]
        best = np.argpartition(-scores, TOP_K)[:TOP_K]
        top[u] = np.sort(scores[best])[::-1]
    return top


if __name__ == "__main__":
    result = recommend()
