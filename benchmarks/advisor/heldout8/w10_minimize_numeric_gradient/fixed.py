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


def loss_and_grad(params, X, y):
    w, b = params[:-1], params[-1]
    z = X @ w + b
    nll = np.sum(np.logaddexp(0.0, z) - y * z)
    value = nll / len(y) + 0.5 * L2 / len(y) * np.dot(w, w)
    r = (expit(z) - y) / len(y)
    grad = np.empty_like(params)
    grad[:-1] = X.T @ r + L2 / len(y) * w
    grad[-1] = r.sum()
    return value, grad


def fit(X, y):
    x0 = np.zeros(X.shape[1] + 1)
    res = minimize(loss_and_grad, x0, args=(X, y), jac=True, method="L-BFGS-B",
                   options={"maxiter": 500, "ftol": 1e-12, "gtol": 1e-7})
    return res.x


def main():
    X, y = make_data()
    params = fit(X, y)
    return params


if __name__ == "__main__":
    result = main()
