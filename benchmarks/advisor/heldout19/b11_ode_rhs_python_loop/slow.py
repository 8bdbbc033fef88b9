"""Simulates a chain of 60 seasonally forced logistic cells with weak diffusion by a hand-written fixed-step RK4 loop.
Planted: the derivative function loops over the cells in Python, element by element, on each of the 10000 evaluations.
Modelled on StackOverflow questions like "my ODE simulation is slow, the derivative function has a for loop"."""
PLANTED = ("host_bound", "hotspot")
TOL = 1e-9
import numpy as np

rng = np.random.default_rng(0)
M, DT, STEPS = 60, 0.02, 2500
growth = 0.5 + rng.random(M)
D = 0.05
y0 = 0.05 + 0.1 * rng.random(M)


def rhs(t, y):
    season = 1.0 + 0.8 * np.sin(t)
    dy = np.empty(M)
    for i in range(M):
        left = y[i - 1] if i > 0 else y[i]
        right = y[i + 1] if i < M - 1 else y[i]
        dy[i] = growth[i] * season * y[i] * (1.0 - y[i]) + D * (left - 2.0 * y[i] + right)
    return dy


def rk4(f, y, t, dt, steps):
    out = [y]
    for _ in range(steps):
        k1 = f(t, y)
        k2 = f(t + dt / 2, y + dt / 2 * k1)
        k3 = f(t + dt / 2, y + dt / 2 * k2)
        k4 = f(t + dt, y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += dt
        out.append(y)
    return np.array(out)


def main():
    return rk4(rhs, y0, 0.0, DT, STEPS)[::100]


if __name__ == "__main__":
    result = main()
