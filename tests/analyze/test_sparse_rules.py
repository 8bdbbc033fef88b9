"""sparse_order and sparse_inserts on real Python-tracer profiles: columns sliced from a CSR matrix in a loop
and items assigned into a CSR matrix are found (the sampler names the matrix and its format, the trace its
passes); the same loops on a CSC matrix, into a LIL matrix, and triplets converted once are not."""

from __future__ import annotations

import pytest

from .test_python_loops import profile_script
from .test_work_order_rules import found

pytest.importorskip("scipy.sparse")

COLUMNS = """
    import numpy as np
    import scipy.sparse as sp

    X = sp.random(20_000, 400, density=0.02, format="{fmt}", random_state=0)

    def column_stats(X):
        out = []
        for j in range(X.shape[1]):
            col = X[:, j]
            out.append(col.sum())
        return np.array(out)

    result = column_stats(X)
"""

INSERTS = """
    import numpy as np
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    edges = list(zip(rng.integers(0, 3000, 1500).tolist(), rng.integers(0, 3000, 1500).tolist()))

    def build(fmt):
        A = sp.csr_matrix((3000, 3000)) if fmt == "csr" else sp.lil_matrix((3000, 3000))
        for i, j in edges:
            A[i, j] += 1.0
        return A.tocsr()

    result = build("{fmt}").sum()
"""


def test_columns_sliced_from_csr_in_a_loop_are_found(tmp_path):
    prof = profile_script(tmp_path, COLUMNS.replace("{fmt}", "csr"), "cols")
    (f,) = found(prof, "sparse_order")
    assert f.category == "layout" and "columns sliced from a CSR matrix (X: 20,000 x 400)" in f.title
    assert f.title.startswith("Line cols.py:10 ") and "tocsc" in f.suggestion
    assert 0 < f.est_gain_pct < 100 and f.evidence["lines"][0]["runs"] == 400
    assert found(prof, "sparse_inserts") == []


def test_items_assigned_into_csr_are_found(tmp_path):
    prof = profile_script(tmp_path, INSERTS.replace("{fmt}", "csr"), "ins")
    (f,) = found(prof, "sparse_inserts")
    assert f.category == "redundant" and "items assigned into a CSR matrix" in f.title
    assert 0 < f.est_gain_pct < 100 and "coo_array" in f.suggestion


def test_loops_in_the_matrix_own_order_are_not(tmp_path):
    prof = profile_script(tmp_path, COLUMNS.replace("{fmt}", "csc"), "csc")
    assert found(prof, "sparse_order") == []
    prof = profile_script(tmp_path, INSERTS.replace("{fmt}", "lil"), "lil")
    assert found(prof, "sparse_inserts") == []
