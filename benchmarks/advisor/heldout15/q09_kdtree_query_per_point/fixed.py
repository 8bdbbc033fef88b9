import numpy as np
from scipy.spatial import cKDTree

rng = np.random.default_rng(0)
N_NODES, N_PINGS = 100_000, 30_000
nodes = rng.random((N_NODES, 2)) * 10_000.0
pings = nodes[rng.integers(0, N_NODES, N_PINGS)] + rng.normal(0.0, 15.0, (N_PINGS, 2))


def main():
    tree = cKDTree(nodes)
    knn_dist, _ = tree.query(nodes, k=9)
    density = 1.0 / knn_dist[:, 1:].mean(axis=1)
    dist, nearest = tree.query(pings)  # one batched query for all pings
    counts = np.bincount(nearest, minlength=N_NODES)
    mean_dist = np.bincount(nearest, weights=dist, minlength=N_NODES) / np.maximum(counts, 1)
    busy = np.argsort(-counts, kind="stable")[:200]
    return np.column_stack([counts[busy], mean_dist[busy], density[busy]])


if __name__ == "__main__":
    result = main()
