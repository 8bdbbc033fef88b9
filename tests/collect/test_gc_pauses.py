"""The garbage-collector collector (gc.callbacks): one event per pass, nested where it stopped the
thread, chosen by default, and read by the advisor's gc rule."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap

import numpy as np

import cann_nb
from cann_nb.analyze import findings
from cann_nb.collect import auto
from cann_nb.collect.base import CollectOptions
from cann_nb.collect.session import CollectionSession


def collect(fn, collectors):
    sess = CollectionSession("t", collectors, CollectOptions())
    sess.start()
    try:
        fn()
    finally:
        sess.stop()
    return sess.finish()


def gc_events(prof):
    ev = prof.events
    return ev[ev["name"].astype(str).str.startswith("python gc")]


def test_each_collection_is_an_event_and_the_callback_is_removed():
    before = list(gc.callbacks)

    def work():
        junk = [[i] for i in range(50_000)]
        gc.collect()
        gc.collect(0)
        return len(junk)

    prof = collect(work, ("gc",))
    assert gc.callbacks == before
    ev = gc_events(prof)
    names = ev["name"].astype(str).tolist()
    assert names.count("python gc (generation 2)") >= 1 and "python gc (generation 0)" in names
    assert (ev["dur_ns"] > 0).all()
    lo, hi = prof.meta["window_ns"]
    assert ((ev["start_ns"] >= lo) & (ev["start_ns"] + ev["dur_ns"] <= hi)).all()
    meta = prof.meta["collectors"]["gc"]
    assert meta["status"] == "ok" and meta["passes"] == len(ev)
    assert meta["time_ns"] == int(ev["dur_ns"].sum())
    assert ev["track"].astype(str).iloc[0].startswith("host/thread ")


def test_a_pass_nests_inside_the_call_that_triggered_it():
    def work():
        gc.collect()

    prof = collect(work, ("python", "gc"))
    ev = prof.events.set_index("id")
    g = gc_events(prof)
    full = g[g["name"].astype(str) == "python gc (generation 2)"].iloc[0]
    assert full["parent"] >= 0
    parent = ev.loc[full["parent"]]
    assert "collect" in str(parent["name"])
    assert parent["start_ns"] <= full["start_ns"] and full["start_ns"] + full["dur_ns"] <= parent["start_ns"] + parent["dur_ns"]
    assert full["depth"] == parent["depth"] + 1


def test_gc_is_collected_by_default():
    assert "gc" in auto.TORCH and "gc" in auto.PYTHON


def test_building_a_large_object_graph_gets_a_gc_finding_through_the_cli(tmp_path):
    script = tmp_path / "graph.py"
    script.write_text(textwrap.dedent("""
        class Node:
            def __init__(self, parent, key):
                self.parent = parent
                self.children = []
                self.meta = {"key": key, "tags": [key, key + 1]}

        def main():
            nodes = [Node(None, 0)]
            for i in range(1, 150_000):
                p = nodes[(i * 7919) % len(nodes)]
                n = Node(p, i)
                p.children.append(n)
                nodes.append(n)
            return len(nodes)

        result = main()
    """))
    out = tmp_path / "store"
    subprocess.run([sys.executable, "-m", "cann_nb", "run", str(script), "--output", str(out), "--quiet"],
                   check=True, cwd=tmp_path, timeout=300)
    prof = cann_nb.load(str(out / "graph"))
    assert prof.meta["collectors"]["gc"]["passes"] > 0
    errors = []
    fs = [f for f in findings(prof, errors=errors) if f.rule == "gc"]
    assert not errors
    (f,) = fs
    assert f.category == "gc" and 0 < f.est_gain_pct <= 100
    assert np.isclose(f.evidence["time_ns"], gc_events(prof)["dur_ns"].sum(), rtol=0.05)


def _gc_profile(full_passes: int):
    """A synthetic run of 1 s: 40 young passes of 1 ms and ``full_passes`` full passes of 60 ms."""
    import pandas as pd

    from cann_nb.model import Profile

    rows, t = [], 0
    for i in range(40 + full_passes):
        gen, dur = (2, 60_000_000) if i < full_passes else (0, 1_000_000)
        rows.append(dict(id=i, name=f"python gc (generation {gen})", cat="python", track="host/thread 1",
                         device="cpu", start_ns=t, dur_ns=dur, parent=-1, depth=0, corr=-1))
        t += dur + 20_000_000
    return Profile(pd.DataFrame(rows), meta={"wall_ns": 1_000_000_000 + t, "window_ns": [0, 1_000_000_000 + t]})


def test_a_single_full_pass_is_not_counted_repeated_ones_are():
    def gc_time(prof):
        (f,) = [f for f in findings(prof) if f.rule == "gc"]
        return f.evidence["time_ns"]

    assert gc_time(_gc_profile(1)) == 40 * 1_000_000            # young passes only
    assert gc_time(_gc_profile(3)) == 40 * 1_000_000 + 3 * 60_000_000
