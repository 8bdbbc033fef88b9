"""Connected-component labelling of a thresholded 2-D field (blobs in a smoothed random field, as in a
percolation/segmentation exercise), written with a hand-rolled disjoint-set structure while scanning the
pixels, then the area of every component."""
import numpy as np

rng = np.random.default_rng(0)
H = W = 120
K = 7

noise = rng.normal(size=(H, W))
padded = np.cumsum(np.cumsum(np.pad(noise, ((K, K), (K, K)), mode="wrap"), axis=0), axis=1)
smooth = padded[2 * K:, 2 * K:] - padded[:-2 * K, 2 * K:] - padded[2 * K:, :-2 * K] + padded[:-2 * K, :-2 * K]
mask = smooth[:H, :W] > 0.0


class DisjointSet:
    """Union by size and path halving keep every tree shallow."""

    def __init__(self):
        self.parent = {}
        self.size = {}

    def add(self, x):
        self.parent[x] = x
        self.size[x] = 1

    def find(self, x):
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        if self.size[ra] < self.size[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.size[ra] += self.size[rb]


def label(m):
    ds = DisjointSet()
    rows = m.tolist()
    for i in range(H):
        row = rows[i]
        for j in range(W):
            if not row[j]:
                continue
            p = i * W + j
            ds.add(p)
            if j > 0 and row[j - 1]:
                ds.union(p, p - 1)
            if i > 0 and rows[i - 1][j]:
                ds.union(p, p - W)
    return {p: ds.find(p) for p in ds.parent}


def component_areas(labels):
    roots = np.fromiter(labels.values(), dtype=np.int64, count=len(labels))
    _, areas = np.unique(roots, return_counts=True)
    return np.sort(areas)[::-1].astype(float)


if __name__ == "__main__":
    result = component_areas(label(mask))
