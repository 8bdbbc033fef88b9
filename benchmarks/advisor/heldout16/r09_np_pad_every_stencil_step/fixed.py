import numpy as np

rng = np.random.default_rng(0)
N, STEPS, ALPHA = 64, 16000, 0.2

u0 = np.zeros((N, N))
u0[N // 4: N // 2, N // 4: N // 2] = 100.0
u0 += rng.uniform(0.0, 1.0, (N, N))


def step(p):
    """p is the padded grid; updates its interior, then refreshes the edge ghost cells in place."""
    u = p[1:-1, 1:-1]
    lap = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4.0 * u
    u += ALPHA * lap
    p[0, 1:-1], p[-1, 1:-1] = u[0], u[-1]
    p[:, 0], p[:, -1] = p[:, 1], p[:, -2]
    return u


def main():
    p = np.pad(u0, 1, mode="edge")
    probes = []
    for s in range(STEPS):
        u = step(p)
        if s % 500 == 0:
            probes.append(u[N // 3, :: N // 16].copy())
    return np.concatenate([u.ravel(), np.concatenate(probes)])


if __name__ == "__main__":
    result = main()
