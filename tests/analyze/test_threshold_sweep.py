"""threshold_sweep on real CPU profiles (torch collector, default shapes): an ROC curve computed by one
comparison of every score per threshold is found with a gain; the same counts from one sort and a binary
search per threshold are not."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from .test_torch_cpu import profile  # noqa: E402  (the same in-process torch profile)
from .test_work_order_rules import found  # noqa: E402

SCORES = torch.rand(40_000)
LABELS = torch.rand(40_000) < SCORES
THRESHOLDS = torch.linspace(0, 1, 150)


def sweep():
    pos = LABELS
    tpr = [((SCORES >= t) & pos).sum() / pos.sum() for t in THRESHOLDS]
    return torch.stack(tpr)


def sorted_search():
    s = SCORES[LABELS].sort().values
    return (s.numel() - torch.searchsorted(s, THRESHOLDS)) / s.numel()


def test_a_threshold_sweep_is_found_and_a_sorted_search_is_not():
    torch.testing.assert_close(sweep(), sorted_search().to(sweep().dtype))
    (f,) = found(profile(sweep), "threshold_sweep")
    assert f.category == "redundant" and f.evidence["shape"] == [40_000]
    assert f.evidence["compares"] == 150 and 0 < f.evidence["kept_share"] < 0.1
    assert 0 < f.est_gain_pct <= 100
    assert found(profile(sorted_search), "threshold_sweep") == []
