import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

rng = np.random.default_rng(0)
N, DEG, N_DEPOTS = 1700, 4, 30
rows = np.repeat(np.arange(N), DEG)
cols = rng.integers(0, N, N * DEG)
lengths = rng.uniform(1.0, 10.0, N * DEG)
G = sp.csr_matrix((lengths, (rows, cols)), shape=(N, N))
depots = rng.choice(N, N_DEPOTS, replace=False)


def main():
    dist = shortest_path(G, method="D", directed=False, indices=depots)
    dist = np.where(np.isinf(dist), 1e6, dist)
    nearest = dist.argmin(axis=0)
    cost = dist.min(axis=0)
    load = np.bincount(nearest, weights=cost, minlength=N_DEPOTS)
    return np.concatenate([load, [cost.sum()]])


if __name__ == "__main__":
    result = main()
