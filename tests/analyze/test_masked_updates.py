"""masked_updates on real CPU profiles (torch collector, default shapes): values updated through a boolean
mask (h[h < 0] *= slope) are found, the read and the write's nonzero counted; the same activation by
torch.where, and a plain masked write (x[mask] = 0, no read), are not."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from .test_torch_cpu import profile  # noqa: E402  (the same in-process torch profile)
from .test_work_order_rules import found  # noqa: E402

LAYERS = [torch.nn.Linear(192, 192) for _ in range(3)]


def mlp(activation: str):
    def fn():
        torch.manual_seed(0)
        with torch.no_grad():
            for _ in range(20):
                h = torch.randn(128, 192)
                for lin in LAYERS:
                    h = lin(h)
                    if activation == "masked":
                        h[h < 0] *= 0.01
                    elif activation == "where":
                        h = torch.where(h < 0, h * 0.01, h)
                    else:
                        h[h < 0] = 0.0
    return fn


def test_updates_through_a_mask_are_found_and_where_or_a_plain_write_is_not():
    (f,) = found(profile(mlp("masked")), "masked_updates")
    assert f.category == "memory" and f.evidence["updates"] == 60
    assert f.evidence["largest_shape"] == [128, 192]
    assert 0 < f.est_gain_pct <= 100 and f.est_gain_ns < f.evidence["time_ns"]
    assert found(profile(mlp("where")), "masked_updates") == []
    assert found(profile(mlp("zero")), "masked_updates") == []
