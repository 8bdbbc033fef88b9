"""The monitor's pure parts on planted numbers: histograms, baseline, anomaly rules, retention."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from cann_nb.monitor import histogram, retention, rules
from cann_nb.monitor.baseline import Baseline
from cann_nb.monitor.recorder import Recorder

MiB = 1 << 20


def _window(seq, p50=1e6, p99=2e6, n=200, rss=500 * MiB, ops=None, calls=None, errors=0):
    return {"seq": seq, "latency_ns": {"n": n, "p50": p50, "p99": p99}, "calls": calls or n, "errors": errors,
            "peak_memory_bytes": {"host:rss": rss},
            "top_ops": [{"name": k, "share_pct": v} for k, v in (ops or {"aten::addmm": 70.0, "aten::relu": 20.0}).items()]}


def _baseline(k=5, **kw):
    b = Baseline(size=20, min_windows=3, warmup=0)
    for i in range(k):
        b.observe(_window(i, **kw), anomalous=False)
    return b


def _rules(found):
    return sorted(a["rule"] for a in found)


def test_histogram_percentiles_within_the_bucket_error_and_merge():
    rng = np.random.default_rng(0)
    a = rng.lognormal(np.log(2e6), 0.5, 20_000)
    b = rng.lognormal(np.log(4e6), 0.3, 20_000)
    h = histogram.merge([histogram.build(a), histogram.build(b)])
    both = np.concatenate([a, b])
    assert histogram.count(h) == len(both)
    for q in (50, 90, 99):
        exact = np.percentile(both, q)
        assert abs(histogram.percentile(h, q) / exact - 1) < 0.05
    assert np.isnan(histogram.percentile(histogram.build([]), 50))
    assert len(json.dumps(histogram.build(a))) < 4000   # compact enough for every window's meta


def test_no_anomaly_before_the_baseline_is_ready_and_none_on_a_normal_window():
    th = rules.thresholds_for(None)
    b = _baseline(2)
    assert rules.evaluate(_window(9, p99=50e6), b.stats(), [], th) == []
    b = _baseline(5)
    assert rules.evaluate(_window(9, p50=1.05e6, p99=2.2e6), b.stats(), [], th) == []


def test_latency_regression_margins():
    th = rules.thresholds_for(None)
    base = _baseline(5).stats()
    found = rules.evaluate(_window(9, p99=2.6e6), base, [], th)         # +30 % > 25 % margin
    assert _rules(found) == ["p99_latency"]
    assert found[0]["baseline"] == 2e6 and found[0]["limit"] == pytest.approx(2.5e6)
    assert rules.evaluate(_window(9, p99=2.4e6), base, [], th) == []    # +20 %: within the margin
    assert _rules(rules.evaluate(_window(9, p50=1.3e6, p99=2e6), base, [], th)) == ["p50_latency"]
    # too few calls: P99 is not judged
    assert rules.evaluate(_window(9, p99=9e6, n=10), base, [], th) == []
    # a tiny absolute change is not a regression even when large in %
    tiny = _baseline(5, p50=10e3, p99=20e3).stats()
    assert rules.evaluate(_window(9, p50=10e3, p99=60e3), tiny, [], th) == []
    # overrides
    loose = rules.thresholds_for({"p99_latency": {"margin_pct": 50}, "p50_latency": None})
    assert rules.evaluate(_window(9, p50=5e6, p99=2.8e6), base, [], loose) == []
    with pytest.raises(ValueError):
        rules.thresholds_for({"p99": {}})
    with pytest.raises(ValueError):
        rules.thresholds_for({"p99_latency": {"margin": 3}})


def test_new_top_op_and_share_shift():
    th = rules.thresholds_for(None)
    base = _baseline(5).stats()
    found = rules.evaluate(_window(9, ops={"aten::mm": 60.0, "aten::addmm": 30.0}), base, [], th)
    assert _rules(found) == ["new_top_op"] and found[0]["ops"] == ["aten::mm"]
    found = rules.evaluate(_window(9, ops={"aten::relu": 60.0, "aten::addmm": 35.0}), base, [], th)
    assert _rules(found) == ["op_share_shift"] and found[0]["ops"] == ["aten::relu"]


def test_memory_growth_and_trend():
    th = rules.thresholds_for(None)
    base = _baseline(5).stats()
    found = rules.evaluate(_window(9, rss=700 * MiB), base, [], th)
    assert _rules(found) == ["memory_growth"]
    assert rules.evaluate(_window(9, rss=540 * MiB), base, [], th) == []          # +8 %, +40 MiB
    peaks = [{"host:rss": (500 + 12 * i) * MiB} for i in range(8)]               # +84 MiB over 8 windows
    found = rules.evaluate(_window(9, rss=peaks[-1]["host:rss"]), _baseline(5, rss=590 * MiB).stats(), peaks, th)
    assert _rules(found) == ["memory_trend"]
    flat = peaks[:4] + [peaks[3]] + peaks[5:]
    assert rules.evaluate(_window(9, rss=peaks[-1]["host:rss"]), _baseline(5, rss=590 * MiB).stats(), flat, th) == []


def test_error_rate():
    th = rules.thresholds_for(None)
    base = _baseline(5).stats()
    assert _rules(rules.evaluate(_window(9, calls=100, errors=10), base, [], th)) == ["error_rate"]
    assert rules.evaluate(_window(9, calls=100, errors=2), base, [], th) == []


def test_baseline_skips_warmup_partial_and_anomalous_windows():
    b = Baseline(size=4, min_windows=2, warmup=1)
    assert not b.observe(_window(1, p50=9e6), anomalous=False)        # warm-up
    assert b.observe(_window(2), anomalous=False)
    assert not b.observe(_window(3, p50=5e6), anomalous=True)
    assert not b.observe({**_window(4), "partial": True}, anomalous=False)
    assert b.observe(_window(5), anomalous=False)
    s = b.stats()
    assert s["windows"] == 2 and s["p50"] == 1e6
    for i in range(6, 12):
        b.observe(_window(i, p50=2e6), anomalous=False)
    assert b.stats()["p50"] == 2e6 and b.stats()["windows"] == 4        # rolling
    b.reset()
    assert not b.ready()


def test_retention_by_count_and_age(tmp_path):
    now = time.time_ns()
    for seq in range(1, 8):
        d = tmp_path / f"w{seq:06d}"
        d.mkdir()
        end = now - (8 - seq) * 3600 * 10**9                          # window k ended (8-k) hours ago
        (d / "meta.json").write_text(json.dumps({"monitor": {"window_end_ns": end}}))
    (tmp_path / "notes").mkdir()
    removed = retention.prune(tmp_path, max_windows=5, max_age_s=None)
    assert removed == ["w000001", "w000002"]
    removed = retention.prune(tmp_path, max_windows=None, max_age_s=3.5 * 3600, now_ns=now)
    assert removed == ["w000003", "w000004"]                          # 5 h and 4 h old; w000005 is 3 h old
    assert [d.name for _, d in retention.window_dirs(tmp_path)] == ["w000005", "w000006", "w000007"]
    assert (tmp_path / "notes").is_dir()


def _double(v):
    if v < 0:
        raise KeyError(v)
    return v * 2


@pytest.mark.parametrize("entry", ["wrap", "monitor call"])
def test_calls_are_timed_and_exceptions_pass_through(entry, tmp_path):
    # the two served paths (monitor.wrap(f) and monitor(x), which inlines the same body) behave alike
    from cann_nb.monitor import Monitor

    mon = Monitor(fn=_double, directory=tmp_path / "m", store=False)   # not started: nothing runs behind
    rec = mon._rec
    call = mon.wrap(_double) if entry == "wrap" else mon
    assert [call(i) for i in range(5)] == [0, 2, 4, 6, 8]
    with pytest.raises(KeyError):
        call(-1)
    rec.bursting = True                   # a burst records: calls are kept apart, with their start
    assert call(v=3) == 6
    with pytest.raises(KeyError):
        call(-2)
    rec.bursting = False
    lat, err, prof = rec.take()
    assert len(lat) == 5 and len(err) == 1 and [p[2] for p in prof] == [False, True]
    assert all(d > 0 for d in lat) and rec.take() == ([], [], [])
    rec.off = True
    assert call(1) == 2 and rec.take() == ([], [], [])
    if entry == "wrap":
        assert call.__name__ == "_double" and call.monitor is mon


def test_recorder_step_mode():
    rec = Recorder()
    for burst in (False, False, True, True, False):
        rec.bursting = burst
        rec.step()
        time.sleep(0.001)
    lat, err, prof = rec.take()
    assert len(lat) + len(prof) == 4 and len(prof) == 2 and all(d >= 1_000_000 for d in lat)


def test_idle_windows_make_no_baseline():
    b = Baseline(size=20, min_windows=3, warmup=1)
    for i in range(5):       # before traffic: small RSS, no calls; they must not become "normal"
        assert not b.observe({**_window(i, rss=100 * MiB), "latency_ns": {"n": 0}, "calls": 0}, anomalous=False)
    assert not b.observe(_window(5), anomalous=False)                 # the warm-up is the first served window
    b.observe(_window(6), anomalous=False)
    th = rules.thresholds_for(None)
    assert b.stats()["latency_windows"] == 1 and b.stats()["windows"] == 1 and not b.ready()
    assert b.stats()["peak_memory_bytes"] == {"host:rss": 500 * MiB}
    assert rules.evaluate(_window(9, p50=50e6, p99=90e6), b.stats(), [], th) == []
    b.observe(_window(7), anomalous=False)
    b.observe(_window(8), anomalous=False)
    assert _rules(rules.evaluate(_window(9, p50=50e6, p99=90e6), b.stats(), [], th)) == ["p50_latency", "p99_latency"]
