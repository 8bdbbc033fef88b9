"""A loop making large out-of-place temporaries is allocation churn (bytes allocated against live memory,
costed per fresh byte), ranked above the fusion finding when its gain is larger."""

import numpy as np
import pandas as pd
import pytest

from cann_nb.analyze.api import findings
from cann_nb.analyze import first_touch
from cann_nb.model import Profile

MIB = 1024 ** 2
ENV = {"cpu_model": "Test CPU", "cpu_count": 2}


def temporaries_loop(iters=12, size=64 * MIB, op_ns=30_000_000):
    """c = a * b; c = c + step; c = c * 0.5 on 64 MiB tensors: each op allocates a fresh output, the
    previous one is freed; the live peak stays at the inputs plus two outputs."""
    ev, mem = [], []
    t, live = 0, 2 * size
    for _ in range(iters):
        for name in ("aten::mul", "aten::add", "aten::mul"):
            eid = len(ev)
            ev.append(dict(id=eid, name=name, cat="op", track="host/thread 1", device="cpu", start_ns=t,
                           dur_ns=op_ns, parent=-1, depth=0, corr=-1, shapes=f"[[{size // 4}], []]",
                           dtypes="[float, Scalar]"))
            live += size
            mem.append(dict(ts_ns=t + 10, device="cpu", delta_bytes=float(size), allocated_bytes=float(live),
                            reserved_bytes=np.nan, event_id=eid))
            live -= size
            mem.append(dict(ts_ns=t + op_ns + 10, device="cpu", delta_bytes=-float(size),
                            allocated_bytes=float(live), reserved_bytes=np.nan, event_id=-1))
            t += op_ns + 20_000
    return Profile(pd.DataFrame(ev), pd.DataFrame(mem),
                   meta={"wall_ns": t, "window_ns": [0, t], "environment": ENV})


@pytest.fixture
def measured(monkeypatch):
    """The machine's cost per fresh byte, as analyze/first_touch.py would have measured it."""
    table = {MIB: 0.25, 64 * MIB: 0.25}
    monkeypatch.setattr(first_touch, "per_byte_cost", lambda meta: table)
    return table


def test_churn_is_reported_from_bytes_against_live_memory(measured):
    fs = findings(temporaries_loop())
    churn = next(f for f in fs if f.rule == "large_temporaries")
    assert churn.category == "memory"
    ev = churn.evidence
    assert ev["bytes_allocated"] == 36 * 64 * MIB
    assert ev["bytes_allocated"] / ev["live_peak_bytes"] >= 3
    assert ev["bytes_per_iteration"] == 3 * 64 * MIB
    # 64 MiB x 0.25 ns per byte = 16.8 ms of the 30 ms each op takes
    assert ev["fresh_cost_ns"] == pytest.approx(36 * 64 * MIB * 0.25)
    assert "out=" in churn.suggestion and "in place" in churn.suggestion
    assert 45 < churn.est_gain_pct < 60


def test_ranked_above_fusion_when_its_gain_is_larger(measured):
    fs = findings(temporaries_loop())
    rules = [f.rule for f in fs]
    churn = fs[rules.index("large_temporaries")]
    fusion = [f for f in fs if f.category == "fusion" and f.est_gain_pct < churn.est_gain_pct]
    assert all(rules.index(f.rule) > rules.index("large_temporaries") for f in fusion)


def test_small_or_reused_buffers_are_not_churn(measured):
    # a buffer allocated once and reused: allocated bytes do not exceed the live memory
    fs = findings(temporaries_loop(iters=1))
    assert not any(f.rule == "large_temporaries" for f in fs)


def test_no_cost_figure_for_another_machine(monkeypatch):
    monkeypatch.setattr(first_touch, "per_byte_cost", lambda meta: None)
    churn = [f for f in findings(temporaries_loop()) if f.rule == "large_temporaries"]
    assert churn and churn[0].est_gain_pct != churn[0].est_gain_pct   # NaN: reported, not invented


def test_fresh_cost_uses_the_size_class_at_or_below():
    table = {MIB: 0.3, 64 * MIB: 0.2}
    got = first_touch.fresh_cost_ns(np.array([512 * 1024, 2 * MIB, 128 * MIB]), table)
    assert got[0] == 0 and got[1] == pytest.approx(0.3 * 2 * MIB) and got[2] == pytest.approx(0.2 * 128 * MIB)


def test_an_allocation_inside_an_op_belongs_to_the_op(measured):
    """clone() allocates its output in the aten::empty_strided it calls: the clone is the user's call."""
    prof = temporaries_loop()
    ev = prof.events.copy()
    ev["name"] = ev["name"].astype(str).replace({"aten::mul": "aten::clone", "aten::add": "aten::clone"})
    kids = ev.assign(id=ev["id"] + 1000, name="aten::empty_strided", parent=ev["id"], depth=1,
                     start_ns=ev["start_ns"] + 5, dur_ns=1_000)
    mem = prof.memory.copy()
    mem.loc[mem["event_id"] >= 0, "event_id"] += 1000
    moved = Profile(pd.concat([ev, kids], ignore_index=True), mem, meta=prof.meta)
    churn = [f for f in findings(moved) if f.rule == "large_temporaries"]
    assert churn and churn[0].ops == ("aten::clone",)
