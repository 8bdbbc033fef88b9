"""cann_nb.frontends.check: strict units, metrics, budgets, significance against a baseline, JSON and JUnit."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from cann_nb.frontends.check import CheckInputError, check, metric_value, parse_quantity, parse_size, parse_time
from cann_nb.store import Session

from ..synth_steps import empty, stepped, with_cold_first_step

OPS = {"aten::mm": 10_000_000, "aten::add": 2_000_000}     # ~12 ms per step


@pytest.mark.parametrize("text, ns", [("200ms", 200e6), ("200 ms", 200e6), ("1.5s", 1.5e9), ("250us", 250e3),
                                      ("250µs", 250e3), ("7ns", 7), ("2e3us", 2e6), (".5s", 5e8), ("0ms", 0)])
def test_time_units(text, ns):
    assert parse_time(text, "--threshold") == ns


@pytest.mark.parametrize("text, nbytes", [("2GB", 2e9), ("2 GB", 2e9), ("512MB", 512e6), ("1kB", 1e3),
                                          ("1KB", 1e3), ("1KiB", 1024), ("2GiB", 2 * 1024 ** 3), ("10B", 10)])
def test_size_units_decimal_and_binary(text, nbytes):
    assert parse_size(text) == nbytes


@pytest.mark.parametrize("text, kinds, token", [
    ("200", ("time",), "missing unit"),
    ("200mss", ("time",), "'mss'"),
    ("200 MS", ("time",), "'MS'"),
    ("2gb", ("size",), "'gb'"),
    ("-5ms", ("time",), "'-'"),
    ("fast", ("time",), "'fast'"),
    ("1.5.3ms", ("time",), "'.3ms'"),
    ("10%", ("time",), "'%' is a percent unit"),
    ("5ms", ("size",), "'ms' is a time unit"),
    ("", ("time",), "empty"),
    ("nan ms", ("time",), "'nan'"),
    ("10 %%", ("percent",), "'%%'"),
])
def test_bad_units_name_the_token(text, kinds, token):
    with pytest.raises(CheckInputError) as e:
        parse_quantity(text, kinds, "--threshold")
    assert token in str(e.value) and "--threshold" in str(e.value)


def test_metrics_values():
    p = stepped(OPS, steps=5, counters={"loss": [3.0, 2.0, 1.0], "tokens_per_s": [10.0, 30.0]})
    assert metric_value(p, "e2e").value == p.wall_ns
    d = sorted(p.events[p.events["cat"] == "step"]["dur_ns"])
    assert metric_value(p, "step_p50").value == d[2]
    assert d[3] <= metric_value(p, "step_p99").value <= d[4]
    mm = metric_value(p, "op:aten::mm")
    assert mm.value == p.events[p.events["name"] == "aten::mm"]["dur_ns"].sum() and len(mm.samples) == 5
    assert metric_value(p, "loss").value == 2.0 and metric_value(p, "max(tokens_per_s)").value == 30.0
    assert metric_value(p, "last(loss)").value == 1.0 and metric_value(p, "min(loss)").value == 1.0


def test_metric_errors_are_clear():
    p = stepped(OPS, step_events=False, steps=1, name="nosteps")
    with pytest.raises(CheckInputError, match="no step events.*--repeat"):
        metric_value(p, "step_p50")
    with pytest.raises(CheckInputError, match="no op named 'aten::mn'.*close: aten::mm"):
        metric_value(p, "op:aten::mn")
    with pytest.raises(CheckInputError, match="unknown metric 'latency'.*no counter metrics"):
        metric_value(p, "latency")
    with pytest.raises(CheckInputError, match="is empty"):
        metric_value(empty(), "e2e")


def test_registered_custom_metric():
    from cann_nb import add_custom_metric, remove_custom_metric

    add_custom_metric("n_events_test", lambda prof: len(prof.events), per="profile")
    try:
        p = stepped(OPS)
        assert metric_value(p, "n_events_test").value == len(p.events)
    finally:
        remove_custom_metric("n_events_test")


@pytest.fixture
def store(tmp_path):
    s = Session(tmp_path / "store")
    s.add(stepped(OPS, name="base", steps=6, memory_peak=100e6))
    s.add(stepped({**OPS, "aten::mm": 30_000_000}, name="slow", steps=6, seed=1, memory_peak=300e6))
    s.add(stepped(OPS, name="same", steps=6, seed=2, noise=0.03, memory_peak=100e6))
    return tmp_path / "store"


def test_threshold_breach_and_pass(store):
    r = check(store / "slow", thresholds=["100ms"])
    assert r.exit_code == 1 and r.rows[0].breach and r.rows[0].value > 100e6
    r = check(store / "base", thresholds=["1s"], metrics=["e2e", "step_p50"])
    assert r.exit_code == 0 and [x.metric for x in r.rows] == ["e2e", "step_p50"]
    r = check(store / "base", thresholds=["step_p50=5ms", "op:aten::mm=1s"])
    assert [(x.metric, x.breach) for x in r.rows] == [("step_p50", True), ("op:aten::mm", False)]


def test_regression_against_a_baseline(store):
    r = check(store / "slow", baseline=store / "base", max_regression="10%", metrics=["e2e", "op:aten::mm"])
    e2e, mm = r.rows
    assert r.exit_code == 1 and e2e.breach and mm.breach
    # 12 -> 32 ms per step: +167 %; the op 10 -> 30 ms: +200 %
    assert e2e.change_pct == pytest.approx(166.7, abs=8) and mm.change_pct == pytest.approx(200, abs=8)
    assert e2e.significant and e2e.p_value < 1e-4 and "significant" in e2e.message
    # noise only (3 %): passes
    r = check(store / "same", baseline=store / "base", max_regression="10%", metrics=["e2e", "step_p50"])
    assert r.exit_code == 0, r.text()
    # a time budget: at most 5 ms more per... the whole e2e
    r = check(store / "slow", baseline=store / "base", max_regression="5ms")
    assert r.exit_code == 1 and r.rows[0].limit == 5e6


def test_over_budget_but_within_the_noise_passes(tmp_path):
    s = Session(tmp_path / "st")
    s.add(stepped(OPS, name="a", steps=5, noise=0.3, seed=10))
    s.add(stepped(OPS, name="b", steps=5, noise=0.3, seed=31))
    a, b = (metric_value(s[n], "step_p50").value for n in ("a", "b"))
    assert b > 1.1 * a                                   # these seeds: more than 10 % apart by chance
    r = check(tmp_path / "st" / "b", baseline=tmp_path / "st" / "a", max_regression="10%", metrics=["step_p50"])
    assert r.exit_code == 0 and r.rows[0].significant is False and "noise" in r.rows[0].message


def test_without_steps_the_values_decide(tmp_path):
    s = Session(tmp_path / "st")
    s.add(stepped(OPS, name="a", steps=1, step_events=False))
    s.add(stepped(OPS, name="b", steps=1, step_events=False, seed=3, noise=0.0))
    s.add(stepped({"aten::mm": 20_000_000}, name="c", steps=1, step_events=False))
    r = check(tmp_path / "st" / "c", baseline=tmp_path / "st" / "a", max_regression="10%")
    assert r.exit_code == 1 and r.rows[0].significant is None and "unknown" in r.rows[0].message
    assert check(tmp_path / "st" / "b", baseline=tmp_path / "st" / "a", max_regression="10%").exit_code == 0


def test_memory_budget(store):
    r = check(store / "slow", max_memory=["200MB"])
    assert r.exit_code == 1 and r.rows[0].metric == "peak_memory[cpu]" and r.rows[0].value == 300e6
    assert check(store / "base", max_memory=["200MB"]).exit_code == 0
    assert check(store / "base", max_memory=["cpu=0.2GB"]).exit_code == 0
    with pytest.raises(CheckInputError, match="no memory data for 'npu:0'"):
        check(store / "base", max_memory=["npu:0=1GB"])


def test_memory_without_allocator_data_names_the_devices(tmp_path):
    import pandas as pd

    from cann_nb.model import Profile

    p = stepped(OPS, name="rss")
    p = Profile(p.events, None, pd.DataFrame({"ts_ns": [1, 2], "source": "host", "metric": "rss",
                                              "value": [1e8, 2e8]}), p.meta)
    Session(tmp_path / "st").add(p)
    with pytest.raises(CheckInputError, match="no allocator memory data.*host:rss"):
        check(tmp_path / "st" / "rss", max_memory=["1GB"])
    assert check(tmp_path / "st" / "rss", max_memory=["host:rss=1GB"]).exit_code == 0


def test_a_store_checks_every_profile_and_skips_the_baseline(store):
    r = check(store, thresholds=["100ms"])
    assert [x.profile for x in r.rows] == ["base", "slow", "same"] and r.breaches == 1
    r = check(store, baseline=store / "base", max_regression="10%")
    assert [x.profile for x in r.rows] == ["slow", "same"] and "skipped" in r.notes[0]
    r = check(store, baseline="base", max_regression="10%", store=store)         # a baseline named in the store
    assert [x.profile for x in r.rows] == ["slow", "same"] and "skipped" in r.notes[0]


def test_file_and_baseline_by_name_in_the_store(store, monkeypatch):
    Session(store).add(stepped({**OPS, "aten::mm": 30_000_000}, name="base", steps=6, seed=5))  # base@1, base
    r = check("base", baseline="base@1", max_regression="10%", store=store)
    assert [(x.profile, x.breach) for x in r.rows] == [("base", True)] and r.settings["baseline"] == "base"
    monkeypatch.setenv("CANN_NB_DIR", str(store))                                    # the default store
    assert check("base@1", thresholds=["1s"]).rows[0].profile == "base@1"
    with pytest.raises(CheckInputError, match=r"--baseline: no profile 'nightly@1'.*\(stored: base@1, slow, same, base\)"):
        check("base", baseline="nightly@1", max_regression="10%")
    with pytest.raises(CheckInputError, match=r"--file: no profile 'nightly'.*\(stored: slow, same, base\)"):
        check("nightly", thresholds=["1s"])


def test_a_group_by_name_checks_every_rank_and_a_rank_is_one_baseline(tmp_path):
    s = Session(tmp_path / "st")
    s.add_group("g", {0: stepped(OPS, name="r0"), 1: stepped(OPS, name="r1", seed=1)})
    r = check("g", thresholds=["1s"], store=s.root)
    assert [x.profile for x in r.rows] == ["g/rank=0", "g/rank=1"]
    r = check("g/rank=1", baseline="g/rank=0", max_regression="50%", store=s.root)
    assert [x.profile for x in r.rows] == ["g/rank=1"]
    with pytest.raises(CheckInputError, match=r"--baseline: 'g' is a group of 2 ranks; give one rank, e.g. g/rank=0"):
        check("g/rank=1", baseline="g", max_regression="50%", store=s.root)


def test_failed_profile_is_a_breach(tmp_path):
    Session(tmp_path / "st").add(stepped(OPS, name="f", status="failed", error="RuntimeError: boom"))
    r = check(tmp_path / "st" / "f", thresholds=["10s"])
    assert r.exit_code == 1 and r.rows[0].metric == "status" and "boom" in r.rows[0].message


def test_usage_errors(store, tmp_path):
    with pytest.raises(CheckInputError, match="nothing to check"):
        check(store / "base")
    with pytest.raises(CheckInputError, match="needs --max-regression"):
        check(store / "base", baseline=store / "base")
    with pytest.raises(CheckInputError, match="needs --baseline"):
        check(store / "base", max_regression="10%", thresholds=["1s"])
    with pytest.raises(CheckInputError, match="missing': not a file or folder, and not a name in the store"):
        check(tmp_path / "missing", thresholds=["1s"])
    with pytest.raises(CheckInputError, match="'200' : missing unit|'200': missing unit"):
        check(store / "base", thresholds=["200"])
    with pytest.raises(CheckInputError, match="is a store with 3 profiles"):
        check(store / "base", baseline=store, max_regression="10%")
    with pytest.raises(CheckInputError, match="nothing before '='"):
        check(store / "base", thresholds=["=5ms"])
    with pytest.raises(CheckInputError, match="a time limit does not apply"):
        Session(store).add(stepped(OPS, name="ctr", counters={"loss": [1.0]}))
        Session(store).add(stepped(OPS, name="ctr2", counters={"loss": [2.0]}))
        check(store / "ctr2", baseline=store / "ctr", max_regression="5ms", metrics=["loss"])


def test_json_and_junit(store, tmp_path):
    r = check(store, thresholds=["100ms"], max_memory=["250MB"])
    d = json.loads(r.to_json())
    assert d["ok"] is False and d["exit_code"] == 1 and d["breaches"] == 2 and d["checks"] == 6
    assert {x["metric"] for x in d["results"]} == {"e2e", "peak_memory[cpu]"}
    path = r.write_junit(tmp_path / "reports" / "perf.xml")
    root = ET.parse(path).getroot()
    suite = root.find("testsuite")
    assert suite.get("tests") == "6" and suite.get("failures") == "2"
    failed = [c.get("classname") for c in suite.findall("testcase") if c.find("failure") is not None]
    assert failed == ["cann_nb.check.slow", "cann_nb.check.slow"]
    text = r.text()
    assert "BREACH" in text and text.rstrip().endswith("2 breaches in 6 checks -> exit 1")


def test_junit_unwritable_is_an_input_error(store, tmp_path):
    (tmp_path / "file").write_text("x")
    r = check(store / "base", thresholds=["1s"])
    with pytest.raises(CheckInputError, match="cannot write"):
        r.write_junit(tmp_path / "file" / "sub" / "j.xml")


def test_every_metric_is_printed_even_without_a_limit_of_its_own(store):
    r = check(store / "base", thresholds=["step_p50=1s"], metrics=["e2e", "op:aten::add"])
    assert [(x.metric, x.check) for x in r.rows] == [("step_p50", "threshold"), ("e2e", "value"),
                                                      ("op:aten::add", "value")]
    assert r.exit_code == 0 and "value" in r.text()


def test_cold_first_steps_left_out_or_undecidable(tmp_path):
    s = Session(tmp_path / "st")
    s.add(with_cold_first_step(stepped(OPS, name="a", steps=6), 200_000_000))
    s.add(with_cold_first_step(stepped({**OPS, "aten::mm": 11_500_000}, name="b", steps=6, seed=1), 205_000_000))
    s.add(with_cold_first_step(stepped(OPS, name="c", steps=6, seed=2), 300_000_000))
    r = check(tmp_path / "st" / "b", baseline=tmp_path / "st" / "a", max_regression="5%", metrics=["step_p50"])
    assert r.rows[0].significant is True and r.exit_code == 1          # +1.5 ms per 12 ms step: caught
    r = check(tmp_path / "st" / "c", baseline=tmp_path / "st" / "a", max_regression="10%", metrics=["e2e"])
    row = r.rows[0]
    assert row.significant is None and "first (cold) steps differ" in row.message and row.breach


def test_counters_with_a_known_unit_take_limits_in_it(tmp_path):
    s = Session(tmp_path / "svc")
    s.add(stepped(OPS, name="w1", steps=3, counters={"latency_p99": [12e6, 25e6], "rss": [1.5e9, 2.5e9],
                                                     "cpu_util:process": [50.0, 97.0], "calls": [100.0, 120.0]}))
    r = check(tmp_path / "svc", thresholds=["max(latency_p99)=20ms", "max(rss)=2GiB",
                                             "max(cpu_util:process)=90%", "max(calls)=500"],
              metrics=["max(latency_p99)", "max(rss)", "max(cpu_util:process)", "max(calls)"])
    got = {x.metric: (x.unit, x.breach) for x in r.rows}
    assert got == {"max(latency_p99)": ("ns", True), "max(rss)": ("bytes", True),
                   "max(cpu_util:process)": ("%", True), "max(calls)": ("number", False)}
    assert "25.000 ms" in r.text() or "25 ms" in r.text()
    with pytest.raises(CheckInputError, match="missing unit"):        # a latency without its unit is ambiguous
        check(tmp_path / "svc", thresholds=["max(latency_p99)=20000000"], metrics=["max(latency_p99)"])
    with pytest.raises(CheckInputError, match="time unit"):           # and not a size
        check(tmp_path / "svc", thresholds=["max(rss)=20ms"], metrics=["max(rss)"])
