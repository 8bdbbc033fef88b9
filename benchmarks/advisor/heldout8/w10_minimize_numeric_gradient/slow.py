"""A regularised logistic-regression fit hands ``scipy.optimize.minimize`` only the loss, so L-BFGS-B
estimates every gradient by finite differences, one extra pass over the data per coefficient
(StackOverflow: "scipy minimize is slow, how do I speed it up?" / "pass jac= the analytic gradient")."""
PLANTED = ("redundant", "hotspot")
TOL = 1e-3
import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

N_SAMPLES = 10000
N_FEATURES = 80
L2 = 1.0


def make_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N_SAMPLES, N_FEATURES))
    w_true = rng.normal(size=N_FEATURES) / np.sqrt(N_FEATURES)
    y = (rng.random(N_SAMPLES) < expit(X @ w_true + 0.3)).astype(float)
    return X, y


def loss(params, X, y):
    w, b = params[:-1], params[-1]
    z = X @ w + b
    nll = np.sum(np.logaddexp(0.0, z) - y * z)
    return nll / len(y) + 0.5 * L2 / len(y) * np.dot(w, w)


def fit(X, y):
    x0 = np.zeros(X.shape[1] + 1)
    res = minimize(loss, x0, args=(X, y), method="L-BFGS-B",
                   options={"maxiter": 500, "ftol": 1e-12, "gtol": 1e-7})
    return res.x


def main():
    X, y = make_data()
    params = fit(X, y)
    return params


if __name__ == "__main__":
    result = main()
