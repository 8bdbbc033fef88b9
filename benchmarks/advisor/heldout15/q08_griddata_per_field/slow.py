"""Regridding a time series of fields measured at fixed scattered stations onto a regular grid, one
scipy.interpolate.griddata(method="linear") call per time step. Planted: each call re-triangulates the same
stations and re-locates the same grid points; triangulation and barycentric weights can be computed once.
Modelled on a StackOverflow question ("speed up scipy griddata for multiple interpolations")."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-4
import numpy as np
from scipy.interpolate import griddata

rng = np.random.default_rng(0)
N_STATIONS, N_STEPS, GRID = 3000, 40, 120
stations = rng.random((N_STATIONS, 2))
stations[:4] = [[0, 0], [0, 1], [1, 0], [1, 1]]  # corners, so the grid lies inside the hull
gx, gy = np.meshgrid(np.linspace(0.0, 1.0, GRID), np.linspace(0.0, 1.0, GRID))
grid = np.column_stack([gx.ravel(), gy.ravel()])
phase = rng.random(N_STEPS) * 2 * np.pi
fields = np.sin(4 * stations[None, :, 0] + phase[:, None]) * np.cos(3 * stations[None, :, 1]) \
    + 0.05 * rng.standard_normal((N_STEPS, N_STATIONS))


def main():
    out = np.empty((N_STEPS, GRID * GRID))
    for t in range(N_STEPS):
        out[t] = griddata(stations, fields[t], grid, method="linear")
    return out.reshape(N_STEPS, GRID, GRID).mean(axis=0)


if __name__ == "__main__":
    result = main()
