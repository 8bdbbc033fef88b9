"""Newton iterations for a batch of steady-state nonlinear reaction-diffusion systems; a defensive helper calls
`np.linalg.cond` (a full SVD) on every Jacobian before `np.linalg.solve`, costing several times the solve it
guards (code review: "safe_solve helper made the solver 5x slower")."""
PLANTED = ("hotspot", "redundant")
TOL = 1e-8
import numpy as np

rng = np.random.default_rng(0)
N = 320
LAP = (np.diag(np.full(N, -2.0)) + np.diag(np.ones(N - 1), 1) + np.diag(np.ones(N - 1), -1)) * (N + 1) ** 2
COUPLING = 0.5 * rng.standard_normal((N, N)) / np.sqrt(N)
SOURCES = rng.uniform(0.5, 2.0, size=(24, N))


def safe_solve(A, b):
    if np.linalg.cond(A) > 1e12:
        raise np.linalg.LinAlgError("Jacobian is ill-conditioned")
    return np.linalg.solve(A, b)


def steady_state(src, lam=3.0):
    u = np.zeros(N)
    for _ in range(50):
        F = LAP @ u + COUPLING @ np.tanh(u) + lam * np.exp(-u) - src
        J = LAP + COUPLING * (1.0 - np.tanh(u) ** 2)[None, :] - np.diag(lam * np.exp(-u))
        du = safe_solve(J, -F)
        u = u + du
        if np.max(np.abs(du)) < 1e-12:
            break
    return u


def main():
    return np.stack([steady_state(src) for src in SOURCES])


if __name__ == "__main__":
    result = main()
