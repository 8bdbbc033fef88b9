"""Implicit-Euler time stepping of 2-D heat diffusion on a 70x70 grid with a sparse (I - dt*L) system and a source term.
Planted: scipy.sparse.linalg.spsolve is called every step, re-running the sparse LU factorisation of the unchanged matrix.
Modelled on StackOverflow questions like "speed up repeated spsolve with the same matrix"."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-9
import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import spsolve

rng = np.random.default_rng(0)
n, dt, steps = 70, 0.2, 35
lap1 = sp.diags([np.ones(n - 1), -2.0 * np.ones(n), np.ones(n - 1)], [-1, 0, 1])
eye = sp.identity(n)
lap = sp.kron(eye, lap1) + sp.kron(lap1, eye)
A = (sp.identity(n * n) - dt * lap).tocsc()
u0 = rng.random(n * n)
source = np.zeros(n * n)
source[rng.integers(0, n * n, 20)] = 1.0


def main():
    u = u0.copy()
    probes = []
    for k in range(steps):
        rhs = u + dt * source * np.sin(0.1 * k)
        u = spsolve(A, rhs)
        probes.append(u[::97].copy())
    return np.concatenate(probes + [u])


if __name__ == "__main__":
    result = main()
