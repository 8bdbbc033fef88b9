"""scans_per_key (analyze/rules/key_scans.py) on real torch.profiler runs: one large tensor compared against
key after key is found with its mask selections; grouping once, and a comparison on new data each time
(a mask per batch), are not."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from cann_nb.analyze import findings  # noqa: E402

from .test_recomputed_values import profile  # noqa: E402

torch.manual_seed(0)
IDS = torch.randint(0, 60, (200_000,))
ROWS = torch.randn(200_000, 4)


def scans(prof):
    errors = []
    fs = findings(prof, errors=errors)
    assert not errors
    return [f for f in fs if f.rule == "scans_per_key"]


def per_key():
    return [ROWS[IDS == k].mean(0) for k in range(60)]


def grouped():
    order = torch.argsort(IDS, stable=True)
    counts = torch.bincount(IDS, minlength=60)
    parts = ROWS[order].split(counts.tolist())
    return [p.mean(0) for p in parts]


def per_batch():
    return [(torch.randn(200_000) > 0).sum() for _ in range(30)]


def test_a_mask_per_key_over_one_tensor_is_found_and_grouping_once_is_not():
    (f,) = scans(profile(per_key))
    (g,) = f.evidence["groups"]
    assert f.category == "redundant" and g["op"] == "aten::eq" and g["keys"] == 60 and g["selections"] == 60
    assert g["elements"] == 200_000 and 0 < f.est_gain_pct <= 100
    assert "argsort" in f.suggestion
    assert scans(profile(grouped)) == []
    assert scans(profile(per_batch)) == []   # a new tensor each time: nothing to group
