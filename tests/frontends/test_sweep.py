"""Configuration sweeps (%%cann_profile --sweep) and %cann_compare, through a real IPython shell."""

from __future__ import annotations

import math

import pytest
from IPython.core.error import UsageError

import cann_nb
from cann_nb.analyze.comparison import Comparison
from cann_nb.store import check_name
from cann_nb.frontends.sweep import SweepError, SweepResult, combinations, from_store, guess_items, parse_sweeps, run_name, scaling_table

from ..synth_steps import stepped


def test_parse_sweeps_values_and_errors():
    s = parse_sweeps(["batch_size=1,8,32", "dtype=float32,bfloat16", "lr=1e-3, 0.1", "flag=True,False",
                      "name='a b',c"])
    assert s == {"batch_size": [1, 8, 32], "dtype": ["float32", "bfloat16"], "lr": [1e-3, 0.1],
                 "flag": [True, False], "name": ["a b", "c"]}
    for bad, msg in [("batch_size", "expected VAR=V1"), ("1x=1,2", "not a Python variable"),
                     ("class=1", "not a Python variable"), ("a=1,,2", "empty value"), ("a=", "empty value")]:
        with pytest.raises(SweepError, match=msg):
            parse_sweeps([bad])
    with pytest.raises(SweepError, match="swept twice"):
        parse_sweeps(["a=1", "a=2"])


def test_combinations_names_and_items():
    combos = combinations({"bs": [1, 8], "dtype": ["f32", "bf16"]})
    assert combos == [{"bs": 1, "dtype": "f32"}, {"bs": 1, "dtype": "bf16"}, {"bs": 8, "dtype": "f32"},
                      {"bs": 8, "dtype": "bf16"}]
    for c in combos:
        check_name(run_name("cnn", c))
    assert run_name("cnn", {"bs": 8, "shape": (1, 2)}) == "cnn-bs=8-shape=_1__2_"
    assert len(run_name("x" * 120, {"v": "y" * 50})) <= 128
    assert guess_items({"batch_size": [1, 8], "dtype": ["a"]}) == "batch_size"
    assert guess_items({"bs": [1, 0.5]}) is None and guess_items({"dtype": ["a"]}) is None


def _swept(bs, ms_per_item, name, index):
    p = stepped({"work": ms_per_item * bs * 1_000_000}, steps=3, seed=index, noise=0.0, name=name)
    p.meta["source"] = {"kind": "cell", "sweep": {"group": "g", "variables": {"bs": bs}, "index": index, "of": 3}}
    return p


def test_scaling_table_marks_the_best_time_per_item():
    profiles = [_swept(1, 4.0, "g-bs=1", 0), _swept(8, 1.0, "g-bs=8", 1), _swept(32, 1.5, "g-bs=32", 2)]
    t = scaling_table(profiles, items="bs")
    assert list(t["bs"]) == [1, 8, 32] and list(t["best"]) == [False, True, False]
    assert t["time_per_item_ns"].iloc[1] == pytest.approx(1e6, rel=0.01)
    assert t["throughput_per_s"].iloc[1] == pytest.approx(1000, rel=0.01)
    assert t["time_from"].iloc[0] == "median of 3 steps" and "share:work" in t.columns
    r = SweepResult("g", ["bs"], profiles, items="bs")
    assert r.best["profile"] == "g-bs=8"
    assert "* bs=8" in r.summary_text() and "<svg" in r._repr_html_() and "best" in r.chart_svg()
    no_items = scaling_table(profiles)
    assert no_items["time_per_item_ns"].isna().all() and no_items["best"].iloc[0]   # least time per run


def test_sweep_cell_runs_every_combination_and_stores_each(ip, tmp_path):
    ip.user_ns["calls"] = []
    r = ip.run_cell("%%cann_profile -n sw --sweep bs=1,4 --sweep mode='fast','slow' --collectors python,host "
                    "--repeat 2\n"
                    "import time\ncalls.append((bs, mode))\n"
                    "time.sleep(0.004 * bs * (1 if mode == 'fast' else 4))\nbs * 10", store_history=True)
    assert r.error_in_exec is None and isinstance(r.result, SweepResult)
    # each combination ran --repeat 2 times, with its variables set
    assert ip.user_ns["calls"] == [(1, "fast")] * 2 + [(1, "slow")] * 2 + [(4, "fast")] * 2 + [(4, "slow")] * 2
    res = r.result
    t = res.table
    assert list(t["profile"]) == ["sw-bs=1-mode=fast", "sw-bs=1-mode=slow", "sw-bs=4-mode=fast",
                                  "sw-bs=4-mode=slow"]
    assert res.items == "bs" and t["best"].sum() == 1
    best = res.best
    assert best["mode"] == "fast"                      # 4 ms per item beats 16 ms per item by far
    slow4 = t[t["profile"] == "sw-bs=4-mode=slow"].iloc[0]
    assert slow4["time_ns"] > 40e6 and slow4["time_from"] == "median of 2 steps"
    session = cann_nb.load_session(tmp_path / "store")
    assert all(n in session for n in t["profile"])
    sw = session["sw-bs=4-mode=slow"].meta["source"]["sweep"]
    assert sw["variables"] == {"bs": 4, "mode": "slow"} and sw["group"] == "sw" and sw["of"] == 4
    assert ip.user_ns["bs"] == 4 and ip.user_ns["mode"] == "slow"   # the last combination stays
    again = from_store("sw", tmp_path / "store")
    assert list(again.table["profile"]) == list(t["profile"])
    # the normal path is untouched
    r = ip.run_cell("%%cann_profile -n plain --collectors host --no-display\n41 + 1", store_history=True)
    assert r.result == 42 and "plain" in cann_nb.load_session(tmp_path / "store")


def test_sweep_stops_at_a_failing_run_and_keeps_the_rest(ip, tmp_path):
    r = ip.run_cell("%%cann_profile -n bad --sweep x=1,0,2 --collectors host\n1 / x", store_history=True)
    res = r.result
    assert isinstance(res, SweepResult) and len(res) == 2     # x=1 ok, x=0 failed (stored), x=2 not run
    assert list(res.table["status"]) == ["ok", "failed"] and "ZeroDivisionError" in res.notes[0]


def test_bad_sweep_is_a_usage_error(ip):
    r = ip.run_cell("%%cann_profile --sweep bs\n1")
    assert isinstance(r.error_in_exec, UsageError) and "VAR=V1" in str(r.error_in_exec)
    r = ip.run_cell("%%cann_profile --sweep bs=1,2 --items n\n1")
    assert isinstance(r.error_in_exec, UsageError) and "--items 'n'" in str(r.error_in_exec)


def test_cann_compare_line_magic(ip, tmp_path):
    store = cann_nb.load_session(tmp_path / "store")
    store.add(stepped({"op": 5_000_000}, name="before"))
    store.add(stepped({"op": 15_000_000}, name="after", seed=1))
    c = ip.run_line_magic("cann_compare", "before after --no-record")
    assert isinstance(c, Comparison) and c.ops.iloc[0]["bucket"] == "slower"
    assert c.ops.iloc[0]["delta_pct"] == pytest.approx(200, abs=8)
    bundle = c._repr_mimebundle_()
    assert "cann_nb compare 'before' -> 'after'" in bundle["text/plain"]
    with pytest.raises(UsageError, match="no profile 'nope'"):
        ip.run_line_magic("cann_compare", "nope after")
    assert not math.isnan(c.e2e["delta_pct"])


def test_an_unnamed_sweep_is_named_and_numbered_after_its_cell(ip, tmp_path):
    r = ip.run_cell("%%cann_profile --sweep x=1,2 --collectors host\nx", store_history=True)
    n = r.execution_count
    assert r.result.name == f"sweep_{n}"                        # not n + 1 (IPython 9 counts ahead)
    p = cann_nb.load_session(tmp_path / "store")[r.result.table["profile"].iloc[0]]
    assert p.meta["source"]["execution_count"] == n
