"""A reaction-diffusion front (Fisher-KPP) solved by the method of lines: the PDE is discretised on a 1-D grid
and the resulting ODE system handed to ``scipy.integrate.solve_ivp`` with its default explicit Runge-Kutta
method, whose step size is then held down by the stiff diffusion terms rather than by accuracy, so it takes
thousands of tiny steps where an implicit method with the (banded) Jacobian takes a few hundred; modelled on
a StackOverflow question ("solve_ivp extremely slow for my PDE, how to speed up")."""
PLANTED = ("redundant", "hotspot", "host_bound", "launch_overhead")
TOL = 1e-3
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
    sol = solve_ivp(rhs, (0.0, 4.0), u0, t_eval=t_eval, rtol=1e-6, atol=1e-9)
    front = [np.interp(0.5, -sol.y[:, k], x) for k in range(len(t_eval))]
    return np.concatenate([sol.y[::40].ravel(), front])


if __name__ == "__main__":
    result = main()
