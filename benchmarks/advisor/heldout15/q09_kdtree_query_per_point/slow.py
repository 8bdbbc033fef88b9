"""Map-matching GPS pings: each ping is snapped to its nearest road node with a scipy cKDTree, then per-node
counts, mean snapping distance and node density are reported. Planted: the pings are queried one at a time
in a Python loop, paying call and conversion overhead per ping, where one call with the whole array does the
same search. Modelled on a StackOverflow question ("KDTree query is slow inside a for loop")."""
PLANTED = ("host_bound", "launch_overhead")
TOL = 1e-4
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
    nearest = np.empty(N_PINGS, dtype=np.int64)
    dist = np.empty(N_PINGS)
    for i, p in enumerate(pings):
        dist[i], nearest[i] = tree.query(p)
    counts = np.bincount(nearest, minlength=N_NODES)
    mean_dist = np.bincount(nearest, weights=dist, minlength=N_NODES) / np.maximum(counts, 1)
    busy = np.argsort(-counts, kind="stable")[:200]
    return np.column_stack([counts[busy], mean_dist[busy], density[busy]])


if __name__ == "__main__":
    result = main()
