"""broadcast_contraction (analyze/rules/broadcast_products.py) on real torch CPU profiles: attention scores
written as a broadcast product summed over the head dimension are a matmul written out term by term; the
same scores by matmul, and a broadcast product summed over an axis only one operand has, are not."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from .test_torch_cpu import profile  # noqa: E402
from .test_work_order_rules import found  # noqa: E402

torch.manual_seed(0)
Q, K = torch.randn(2, 4, 64, 32), torch.randn(2, 4, 64, 32)
X, W = torch.randn(256, 1, 64), torch.randn(1, 128, 64)


def broadcast_scores():
    for _ in range(20):
        (Q[:, :, :, None, :] * K[:, :, None, :, :]).sum(-1)


def matmul_scores():
    for _ in range(20):
        Q @ K.transpose(-2, -1)


def summed_over_one_operands_axis():
    for _ in range(20):
        (X * W).sum(0)   # axis 0 is X's alone: a weighted sum, no shared index


def test_a_broadcast_product_summed_over_a_shared_axis_is_a_matmul():
    (f,) = found(profile(broadcast_scores), "broadcast_contraction")
    assert f.category == "memory" and f.evidence["contractions"] == 20
    assert "[2, 4, 64, 64, 32]" in f.title and "over axis [4]" in f.title
    assert 0 < f.est_gain_pct < 100 and f.evidence["matmul_ns"] < f.evidence["time_ns"]
    assert "einsum" in f.suggestion


def test_a_matmul_and_a_sum_over_one_operands_axis_are_not():
    assert found(profile(matmul_scores), "broadcast_contraction") == []
    assert found(profile(summed_over_one_operands_axis), "broadcast_contraction") == []


G = torch.randn(500, 64)


def pairwise_cosine():
    for _ in range(5):
        torch.nn.functional.cosine_similarity(X[:, 0, None, :], G[None, :, :], dim=-1)


def normalised_matmul():
    for _ in range(5):
        torch.nn.functional.normalize(X[:, 0], dim=-1) @ torch.nn.functional.normalize(G, dim=-1).T
        torch.nn.functional.cosine_similarity(X[:, 0], X[:, 0].flip(0), dim=-1)   # row by row: no expansion


def test_pairwise_cosine_similarity_by_broadcasting_is_a_matmul_and_normalised_rows_are_not():
    (f,) = found(profile(pairwise_cosine), "broadcast_contraction")
    assert f.evidence["contractions"] == 5 and "aten::cosine_similarity of [256, 1, 64] by [1, 500, 64]" in f.title
    assert 0 < f.est_gain_pct < 100 and "F.normalize" in f.suggestion
    assert found(profile(normalised_matmul), "broadcast_contraction") == []


WEIGHTED_COVARIANCE = """
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 16))
    R = rng.random(size=(20000, 3))

    def main():
        covs = []
        for k in range(3):
            {body}
        return covs

    result = main()
"""
TWO_LINES = """outer = X[:, :, None] * X[:, None, :]
            covs.append((R[:, k, None, None] * outer).sum(axis=0))"""
MATMUL = """covs.append((R[:, k, None] * X).T @ X)"""
SCALED = """covs.append((R[:, k, None] * X).sum(axis=0))"""   # a weighted sum: nothing expanded


def test_a_numpy_outer_product_summed_on_the_next_line_is_a_matmul(tmp_path):
    from .test_python_loops import profile_script

    (f,) = found(profile_script(tmp_path, WEIGHTED_COVARIANCE.format(body=TWO_LINES), "cov"), "broadcast_contraction")
    assert f.category == "memory" and f.title.startswith("Line cov.py:1")
    assert "(20000, 1, 1)" in f.title and "[20000, 16, 16]" in f.title and "axis [0]" in f.title
    assert {ln["line"].rsplit(":", 1)[1] for ln in f.evidence["lines"]} == {"11", "12"}   # the product's line too
    assert all(ln["removable_share"] > 0.5 for ln in f.evidence["lines"])
    assert 20 < f.est_gain_pct < 100
    for body in (MATMUL, SCALED):
        assert found(profile_script(tmp_path, WEIGHTED_COVARIANCE.format(body=body), "good"),
                     "broadcast_contraction") == []
