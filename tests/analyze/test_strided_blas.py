"""analyze/rules/strided_blas.py on real Python-tracer profiles: a matrix product on a view numpy cannot give
to BLAS is found, with a gain from the product's work; the contiguous copy and a column slice are not."""

from __future__ import annotations

import numpy as np

from cann_nb.analyze import findings
from cann_nb.collect.line_arrays import blas_ready

from .test_python_loops import profile_script

GD = """
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.standard_normal((3000, 2400)).astype(np.float32)
    y = rng.standard_normal(3000).astype(np.float32)

    def main():
        Xs = {view}
        w = np.zeros(Xs.shape[1], dtype=np.float32)
        for _ in range(12):
            resid = Xs @ w - y
            w -= 1e-4 * (Xs.T @ resid)
        return w

    result = main()
"""


def strided(prof):
    errors = []
    fs = [f for f in findings(prof, errors=errors) if f.rule == "strided_matmul"]
    assert not errors
    return fs


def test_numpy_gives_blas_a_matrix_with_one_unit_stride_axis():
    x = np.zeros((40, 30), dtype=np.float32)
    assert blas_ready(x[:, :10]) and blas_ready(x[::2]) and blas_ready(x.T) and blas_ready(x[::2].T)
    assert not blas_ready(x[:, ::2]) and not blas_ready(x[:, ::2].T) and not blas_ready(x[::2, ::3])
    assert blas_ready(x[:, ::2][:1]) and blas_ready(x[:, 3:4])   # a single row or column is a vector


def test_a_product_on_a_stepped_view_is_found_and_its_copy_is_not(tmp_path):
    (f,) = strided(profile_script(tmp_path, GD.format(view="X[:, ::2]"), "stepped"))
    assert f.category == "layout" and "Xs (3000, 1200) float32" in f.title
    assert {line["line"].rsplit(":", 1)[1] for line in f.evidence["lines"]} == {"12", "13"}
    assert all(line["removable_share"] > 0.3 for line in f.evidence["lines"])
    assert 0 < f.est_gain_pct <= 100
    assert not strided(profile_script(tmp_path, GD.format(view="np.ascontiguousarray(X[:, ::2])"), "copied"))
    assert not strided(profile_script(tmp_path, GD.format(view="X[:, :1200]"), "sliced"))
