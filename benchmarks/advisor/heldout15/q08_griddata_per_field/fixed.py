import numpy as np
from scipy.spatial import Delaunay

rng = np.random.default_rng(0)
N_STATIONS, N_STEPS, GRID = 3000, 40, 120
stations = rng.random((N_STATIONS, 2))
stations[:4] = [[0, 0], [0, 1], [1, 0], [1, 1]]  # corners, so the grid lies inside the hull
gx, gy = np.meshgrid(np.linspace(0.0, 1.0, GRID), np.linspace(0.0, 1.0, GRID))
grid = np.column_stack([gx.ravel(), gy.ravel()])
phase = rng.random(N_STEPS) * 2 * np.pi
fields = np.sin(4 * stations[None, :, 0] + phase[:, None]) * np.cos(3 * stations[None, :, 1]) \
    + 0.05 * rng.standard_normal((N_STEPS, N_STATIONS))


def interpolation_weights(points, targets):
    tri = Delaunay(points)
    simplex = tri.find_simplex(targets)
    vertices = tri.simplices[simplex]
    T = tri.transform[simplex]
    bary = np.einsum("njk,nk->nj", T[:, :2, :], targets - T[:, 2, :])
    return vertices, np.column_stack([bary, 1.0 - bary.sum(axis=1)])


def main():
    vertices, weights = interpolation_weights(stations, grid)  # once: the stations do not move
    out = np.einsum("tnj,nj->tn", fields[:, vertices], weights)
    return out.reshape(N_STEPS, GRID, GRID).mean(axis=0)


if __name__ == "__main__":
    result = main()
