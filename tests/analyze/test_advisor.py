"""The advisor: rules fire on planted problems with gains close to the truth, stay quiet on a healthy
run, the JSON contract holds, users can add rules and metrics."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest

from cann_nb import add_custom_metric, remove_custom_metric
from cann_nb.analyze import analyze, findings, rule, unregister
from cann_nb.analyze.rules import RULES, make_finding, rules_table
from cann_nb.analyze.finding import CATEGORIES

from .synth import Trace

ROOT = Path(__file__).resolve().parents[2]


def _synth():
    spec = importlib.util.spec_from_file_location("gpu_synth", ROOT / "benchmarks" / "advisor" / "gpu_synth.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


SYN = _synth()


def top(fs, k=3):
    return [f.category for f in fs[:k]]


@pytest.mark.parametrize("name", ["sync_item", "pageable_small_copies", "idle_gaps", "launch_bound", "exposed_h2d"])
def test_planted_gpu_problem_is_found_with_a_close_gain(name):
    (slow, truth), (fixed, _), cats = SYN.SCENARIOS[name]()
    measured = 100.0 * (1 - fixed.wall_ns / slow.wall_ns)
    fs = findings(slow)
    hit = next(f for f in fs[:3] if f.category in cats)
    assert abs(hit.est_gain_pct - measured) <= 15.0, (hit.rule, hit.est_gain_pct, measured)
    assert hit.evidence["event_ids"], "evidence must point at events for drill-down"
    assert set(hit.evidence["event_ids"]) <= set(slow.events["id"].tolist())


def test_healthy_run_claims_no_large_gain():
    (slow, _), _, _ = SYN.SCENARIOS["healthy"]()
    fs = findings(slow)
    assert all(not (f.est_gain_pct > 5.0) for f in fs), [(f.rule, f.est_gain_pct) for f in fs]


def test_breakdown_matches_simulator_truth():
    from cann_nb.analyze.breakdown import device_breakdown
    for name in ("sync_item", "exposed_h2d", "pageable_small_copies"):
        (slow, truth), _, _ = SYN.SCENARIOS[name]()
        row = device_breakdown(slow).set_index("device").loc["cuda:0"]
        for k in ("compute", "memcpy", "idle"):
            # the simulator's bitmap has 1 us resolution; allow one us per task boundary
            assert abs(row[f"{k}_ns"] - truth[f"{k}_ns"]) <= 0.01 * truth["wall_ns"], (name, k)


def test_analyze_json_contract():
    (slow, _), _, _ = SYN.SCENARIOS["sync_item"]()
    out = analyze(slow)
    assert list(out) == ["profile", "summary", "hotspots", "findings"]
    s = json.dumps(out, allow_nan=False)  # no NaN anywhere
    assert json.loads(s) == out
    summ = out["summary"]
    assert summ["wall_ns"] == slow.wall_ns
    for dev, d in summ["devices"].items():
        assert set(d) == {"busy_ns", "idle_ns", "compute_ns", "communication_ns", "memcpy_ns"}
        assert d["busy_ns"] + d["idle_ns"] == summ["wall_ns"]
        assert d["compute_ns"] + d["communication_ns"] + d["memcpy_ns"] == d["busy_ns"]
    assert set(summ["devices"]) == {"cpu", "cuda:0"}
    h = out["hotspots"][0]
    assert set(h) == {"name", "cat", "count", "total_ns", "self_ns", "share_pct", "flops", "bytes", "flops_per_s",
                      "bytes_per_s", "intensity", "bound", "efficiency_time_ns"}   # DESIGN.md: Efficiency
    assert isinstance(summ["efficiency"], dict)
    f = out["findings"][0]
    assert set(f) == {"rule", "category", "severity", "title", "evidence", "ops", "suggestion", "est_gain_ns",
                      "est_gain_pct", "confidence"}
    gains = [x["est_gain_ns"] for x in out["findings"] if x["est_gain_ns"] is not None]
    assert gains == sorted(gains, reverse=True)
    assert all("method" in x["evidence"] for x in out["findings"])


def test_rules_table_is_declarative_and_valid():
    tab = rules_table()
    assert tab["id"].is_unique
    assert set(tab["category"]) <= set(CATEGORIES)
    assert (tab["source"].str.len() > 0).all()
    assert len(RULES) >= 25


def test_user_rule_and_custom_metric():
    tr = Trace()
    for i in range(5):
        tr.op("my::op", i * 100, 50)
    p = tr.profile()

    @rule("test_user_rule", "hotspot", thresholds={"name": "my::op"})
    def _r(ctx, th):
        rows = np.flatnonzero(ctx.names(np.arange(ctx.n)) == th["name"])
        yield make_finding(ctx, "test_user_rule", "hotspot", f"{len(rows)} calls", rows=rows,
                           gain_ns=float(ctx.dur[rows].sum()), method="union of flagged time")

    add_custom_metric("n_events", lambda prof: len(prof.events), per="profile")
    try:
        fs = findings(p)
        mine = [f for f in fs if f.rule == "test_user_rule"]
        assert mine and mine[0].title == "5 calls" and len(mine[0].evidence["event_ids"]) == 5
        out = analyze(p)
        assert out["metrics"] == {"n_events": 5}
        # overrides reach the rule's thresholds
        assert not [f for f in findings(p, overrides={"test_user_rule": {"name": "nope"}})
                    if f.rule == "test_user_rule" and f.title != "0 calls"]
    finally:
        unregister("test_user_rule")
        remove_custom_metric("n_events")
    assert "metrics" not in analyze(p)


def test_broken_rule_is_reported_not_raised():
    tr = Trace()
    tr.op("x", 0, 10)
    p = tr.profile()

    @rule("test_broken", "hotspot")
    def _b(ctx, th):
        raise RuntimeError("boom")

    try:
        out = analyze(p)
        assert {"rule": "test_broken", "error": "RuntimeError: boom"} in out["profile"]["analysis_errors"]
    finally:
        unregister("test_broken")


def test_empty_and_tiny_profiles():
    from cann_nb.model import Profile
    out = analyze(Profile())
    assert out["summary"]["wall_ns"] == 0 and out["findings"] == []
    json.dumps(out, allow_nan=False)
    tr = Trace()
    tr.op("aten::add", 0, 10)
    out = analyze(tr.profile())
    json.dumps(out, allow_nan=False)


def test_finding_gain_never_exceeds_wall():
    (slow, _), _, _ = SYN.SCENARIOS["idle_gaps"]()
    for f in findings(slow):
        if f.est_gain_ns == f.est_gain_ns:
            assert 0 <= f.est_gain_ns <= slow.wall_ns
            assert math.isclose(f.est_gain_pct, 100 * f.est_gain_ns / slow.wall_ns, rel_tol=1e-9)


def test_cpu_rules_on_synthetic_host_traces():
    # float64 ops: half the time saved (2x expected speedup), 3x for tanh
    tr = Trace()
    t = 0
    for i in range(10):
        tr.op("aten::mm", t, 1_000_000, shapes="[[384,384],[384,384]]", dtypes='["double","double"]')
        tr.op("aten::tanh", t + 1_000_000, 300_000, shapes="[[384,384]]", dtypes='["double"]')
        t += 1_400_000
    p = tr.profile()
    f = next(f for f in findings(p) if f.rule == "float64")
    expect = 10 * (1_000_000 * 0.5 + 300_000 * (2 / 3))
    assert f.est_gain_ns == pytest.approx(expect, rel=0.01)
    # scalars recorded as 'double' do not make an op float64
    tr = Trace()
    for i in range(10):
        tr.op("aten::mul", i * 100_000, 90_000, shapes="[[1000000],[]]", dtypes='["float","double"]')
    assert not [f for f in findings(tr.profile()) if f.rule == "float64"]


def test_small_ops_and_python_gaps_on_host_trace():
    tr = Trace()
    t = 0
    for i in range(500):  # a per-element loop: 3 us ops with 2 us of Python between them
        tr.op("aten::select", t, 3_000)
        tr.op("aten::mul", t + 5_000, 3_000)
        t += 10_000
    for i in range(5):  # then Python building inputs: 2 ms gaps before torch.tensor
        t += 2_000_000
        tr.op("aten::lift_fresh", t, 5_000)
        t += 10_000
    p = tr.profile(wall_ns=t)
    fs = {f.rule: f for f in findings(p)}
    assert fs["small_ops"].category == "launch_overhead"
    assert fs["small_ops"].est_gain_ns == pytest.approx(5_000_000, rel=0.05)
    assert fs["python_inputs"].category == "input_pipeline"
    assert fs["python_inputs"].est_gain_ns == pytest.approx(10_000_000, rel=0.01)
