"""structured_operand on real CPU profiles (torch collector, default shapes): a diagonal matrix built from a
vector and multiplied in, and one-hot rows converted and multiplied by a table, are found with their shape
and non-zero share; broadcasting and indexing twins, a diagonal read out of a matrix and an identity added
(not multiplied) are not."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from cann_nb.analyze.rules import findings  # noqa: E402

from .test_torch_cpu import profile  # noqa: E402  (the same in-process torch profile)

X = torch.randn(1500, 16)
W = torch.rand(1500)
TABLE = torch.randn(4000, 32)
LABELS = torch.randint(0, 4000, (8, 64))


def rule(prof):
    errors = []
    fs = findings(prof, errors=errors)
    assert not [e for e in errors if e["rule"] == "structured_operand"], errors
    return [f for f in fs if f.rule == "structured_operand"]


def test_a_dense_diagonal_matrix_in_a_product_is_found():
    def slow():
        return [X.T @ torch.diag(W) @ X for _ in range(6)]

    [f] = rule(profile(slow))
    assert f.category == "redundant" and f.evidence["kind"] == "diag"
    assert f.evidence["shape"] == [1500, 1500] and f.evidence["nonzero_share"] == pytest.approx(1 / 1500)
    assert f.evidence["products"] == 6 and "aten::diag" in f.ops
    assert math.isfinite(f.est_gain_pct) and 0 < f.est_gain_ns <= f.evidence["time_ns"]
    assert "w[:, None] * X" in f.suggestion


def test_one_hot_rows_multiplied_by_a_table_are_found():
    def slow():
        return [torch.nn.functional.one_hot(LABELS, 4000).float() @ TABLE for _ in range(6)]

    [f] = rule(profile(slow))
    assert f.evidence["kind"] == "one_hot" and f.evidence["shape"] == [8, 64, 4000]
    assert "aten::to" in f.evidence["construction_ops"]       # the conversion goes with the construction
    assert "W[labels]" in f.suggestion


def test_broadcasting_indexing_and_other_uses_are_not():
    def fixed():
        out = [X.T @ (W[:, None] * X) for _ in range(6)]
        out += [TABLE[LABELS] for _ in range(6)]
        square = torch.randn(1500, 1500)
        out += [torch.diag(square) @ X[:, 0] for _ in range(6)]           # diag of a matrix reads a vector
        out += [(square + torch.eye(1500)).sum() for _ in range(6)]       # an identity added, not multiplied
        return out

    assert rule(profile(fixed)) == []
