"""Explicit finite-difference heat diffusion on a plate with insulated (zero-flux) edges: every time step
builds a new edge-padded copy of the whole grid with `np.pad(u, 1, mode="edge")` to form the 5-point stencil.
Modelled on StackOverflow/code-review threads like "numpy heat equation, np.pad every iteration is slow"."""
PLANTED = ["memory", "hotspot"]
TOL = 1e-9
import numpy as np

rng = np.random.default_rng(0)
N, STEPS, ALPHA = 64, 16000, 0.2

u0 = np.zeros((N, N))
u0[N // 4: N // 2, N // 4: N // 2] = 100.0
u0 += rng.uniform(0.0, 1.0, (N, N))


def step(u):
    p = np.pad(u, 1, mode="edge")
    lap = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4.0 * u
    return u + ALPHA * lap


def main():
    u = u0.copy()
    probes = []
    for s in range(STEPS):
        u = step(u)
        if s % 500 == 0:
            probes.append(u[N // 3, :: N // 16].copy())
    return np.concatenate([u.ravel(), np.concatenate(probes)])


if __name__ == "__main__":
    result = main()
