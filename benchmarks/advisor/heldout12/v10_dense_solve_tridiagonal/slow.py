"""An implicit (Crank-Nicolson) diffusion solver that stores its tridiagonal system as a dense matrix and calls
the general dense ``np.linalg.solve`` on it at every time step (StackOverflow / SciPy questions: "implicit
finite-difference scheme is slow"), an O(n^3) LU factorisation of a matrix with three non-zero diagonals;
``scipy.linalg.solve_banded`` on the three diagonals solves the same systems in O(n)."""
PLANTED = ("hotspot", "redundant")
TOL = 1e-8
import numpy as np

N, STEPS, LENGTH, DT = 900, 50, 1.0, 2e-4

x = np.linspace(0.0, LENGTH, N)
dx = x[1] - x[0]
kappa = 0.05 + 0.04 * np.sin(3 * np.pi * x) ** 2          # spatially varying conductivity
r = kappa * DT / (2 * dx * dx)

# (I - L/2) u_next = (I + L/2) u, with fixed-temperature (Dirichlet) ends
lower, main_diag, upper = -r[1:].copy(), 1 + 2 * r, -r[:-1].copy()
main_diag[[0, -1]] = 1.0
upper[0] = lower[-1] = 0.0
A = np.diag(main_diag) + np.diag(lower, -1) + np.diag(upper, 1)
B = 2 * np.eye(N) - A

rng = np.random.default_rng(0)
u0 = np.exp(-((x - 0.3) / 0.05) ** 2) + 0.5 * np.exp(-((x - 0.7) / 0.1) ** 2) + 0.01 * rng.standard_normal(N)
u0[[0, -1]] = 0.0


def step(u):
    return np.linalg.solve(A, B @ u)


def main():
    u = u0.copy()
    snapshots = []
    for n in range(STEPS):
        u = step(u)
        if n % 10 == 9:
            snapshots.append(u.copy())
    return np.stack(snapshots)


if __name__ == "__main__":
    result = main()
