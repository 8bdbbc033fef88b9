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
