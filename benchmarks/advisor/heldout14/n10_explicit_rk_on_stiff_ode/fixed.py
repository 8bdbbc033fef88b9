import numpy as np
from scipy.integrate import solve_ivp

N_GRID, LENGTH, DIFF, RATE = 480, 24.0, 1.0, 1.0
x = np.linspace(0.0, LENGTH, N_GRID)
dx = x[1] - x[0]
u0 = 1.0 / (1.0 + np.exp(4.0 * (x - 1.5)))


def rhs(t, u):
    lap = np.empty_like(u)
    lap[1:-1] = u[:-2] - 2.0 * u[1:-1] + u[2:]
    lap[0] = 2.0 * (u[1] - u[0])  # no-flux ends
    lap[-1] = 2.0 * (u[-2] - u[-1])
    return DIFF * lap / dx ** 2 + RATE * u * (1.0 - u)


def main():
    t_eval = np.linspace(0.0, 4.0, 9)
    # the system is stiff: LSODA switches to an implicit method, told that the Jacobian is tridiagonal
    sol = solve_ivp(rhs, (0.0, 4.0), u0, t_eval=t_eval, rtol=1e-6, atol=1e-9, method="LSODA", lband=1, uband=1)
    front = [np.interp(0.5, -sol.y[:, k], x) for k in range(len(t_eval))]
    return np.concatenate([sol.y[::40].ravel(), front])


if __name__ == "__main__":
    result = main()
