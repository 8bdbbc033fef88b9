"""numeric_gradient on real Python-tracer profiles: scipy.optimize.minimize given only the loss estimates
the gradient by finite differences (one evaluation per parameter per gradient) and is found; the same fit
given the analytic gradient is not, and neither is found as a library loop."""

from __future__ import annotations

import pytest

from .test_python_loops import profile_script
from .test_work_order_rules import found

pytest.importorskip("scipy.optimize")

SRC = """
    import numpy as np
    from scipy.optimize import minimize

    rng = np.random.default_rng(0)
    X = rng.standard_normal((20_000, 30))   # evaluations outweigh the optimiser's own calls
    y = (X @ rng.standard_normal(30) > 0).astype(float)

    def loss(w):
        z = X @ w
        return float(np.mean(np.logaddexp(0.0, z) - y * z)) + 1e-3 * float(w @ w)

    def grad(w):
        p = 1.0 / (1.0 + np.exp(-(X @ w)))
        return X.T @ (p - y) / len(y) + 2e-3 * w

    def fit():
        return minimize(loss, np.zeros(30), method="L-BFGS-B"{jac}, options={{"maxiter": 15}}).x

    result = fit()
"""


def test_finite_difference_gradients_are_found(tmp_path):
    prof = profile_script(tmp_path, SRC.format(jac=""), "fd")
    (f,) = found(prof, "numeric_gradient")
    ev = f.evidence
    assert f.category == "redundant" and ev["function"] == "fd.loss"
    assert ev["evaluations_per_pass"] == 30 and ev["passes"] >= 3     # n evaluations (2-point, f(x) reused)
    assert "jac=" in f.suggestion and 0 < f.est_gain_ns < ev["time_ns"]
    assert found(prof, "library_loop") == []      # the optimiser drives the user's function: not the library's loop


def test_an_analytic_gradient_is_not(tmp_path):
    prof = profile_script(tmp_path, SRC.format(jac=", jac=grad"), "jac")
    assert found(prof, "numeric_gradient") == []
