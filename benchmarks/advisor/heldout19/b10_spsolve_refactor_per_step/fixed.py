import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

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
    lu = splu(A)
    u = u0.copy()
    probes = []
    for k in range(steps):
        rhs = u + dt * source * np.sin(0.1 * k)
        u = lu.solve(rhs)
        probes.append(u[::97].copy())
    return np.concatenate(probes + [u])


if __name__ == "__main__":
    result = main()
