"""Least-squares fits of the Debye heat-capacity model whose model function calls ``scipy.integrate.quad``
once per temperature with a Python integrand (SciPy / StackOverflow questions: "curve_fit with an integral in
the model is very slow"), so every evaluation of the model runs one adaptive integration per data point;
a fixed Gauss-Legendre rule evaluated for all temperatures at once gives the same integrals to far below
the fits' tolerance."""
PLANTED = ("host_bound", "hotspot", "launch_overhead")
TOL = 1e-6
import math

import numpy as np
from scipy.integrate import quad
from scipy.optimize import curve_fit

R = 8.314462618  # J / (mol K)
SAMPLES, N_POINTS = 56, 120

rng = np.random.default_rng(0)
temps = np.linspace(4.0, 400.0, N_POINTS)
true_theta = rng.uniform(150.0, 450.0, SAMPLES)
true_atoms = rng.choice([1.0, 2.0, 3.0], SAMPLES)


def integrand(x):
    return x ** 4 * math.exp(x) / math.expm1(x) ** 2


def debye_cv(T, theta, n_atoms):
    out = np.empty(len(T))
    for i, t in enumerate(T):
        integral, _ = quad(integrand, 0.0, theta / t)
        out[i] = 9.0 * n_atoms * R * (t / theta) ** 3 * integral
    return out


def main():
    noise = np.random.default_rng(1)
    fits = []
    for theta, atoms in zip(true_theta, true_atoms):
        measured = debye_cv(temps, theta, atoms) * (1.0 + 0.01 * noise.standard_normal(N_POINTS))
        sigma = 0.01 * np.abs(measured) + 1e-3
        popt, pcov = curve_fit(debye_cv, temps, measured, p0=(250.0, 1.5), sigma=sigma)
        fits.append(np.concatenate([popt, np.sqrt(np.diag(pcov))]))
    return np.stack(fits)


if __name__ == "__main__":
    result = main()
