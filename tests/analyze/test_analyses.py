"""The analyses on synthetic traces whose answer is known: patterns, steps, cold start, memory, idle,
transfers, syncs, contention, hotspots."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cann_nb.analyze import devices, memory, patterns, steps
from cann_nb.analyze.hotspots import hotspots
from cann_nb.model import Profile

from .synth import Trace


def loop_trace(n_iter=10, first_extra=0):
    tr = Trace()
    t = 0
    for i in range(n_iter):
        tr.op("aten::linear", t, 100 + (first_extra if i == 0 else 0))
        t += 110 + (first_extra if i == 0 else 0)
        for name in ("aten::mul", "aten::add", "aten::tanh"):
            tr.op(name, t, 20)
            t += 25
        tr.op("aten::sum", t, 30)
        t += 40
    return tr, t


def test_frequent_sequences_find_the_loop_body():
    tr, t = loop_trace(12)
    fs = patterns.frequent_sequences(tr.profile(wall_ns=t), min_count=5)
    top = fs.iloc[0]
    assert top["pattern"] == "linear > mul > add > tanh > sum" or set(top["pattern"].split(" > ")) == \
        {"linear", "mul", "add", "tanh", "sum"}
    assert top["count"] >= 11
    ch = patterns.elementwise_chains(tr.profile(wall_ns=t))
    assert ch.iloc[0]["pattern"] == "mul > add > tanh" and ch.iloc[0]["count"] == 12
    assert ch.iloc[0]["exec_ns"] == 12 * 60


def test_idioms_found():
    tr = Trace()
    t = 0
    for i in range(4):
        for name in ("aten::pow", "aten::mean", "aten::add", "aten::rsqrt", "aten::mul", "aten::mul"):
            tr.op(name, t, 10)
            t += 12
        tr.op("aten::mm", t, 50)
        t += 60
    idm = patterns.idioms(tr.profile(wall_ns=t))
    assert "rms_norm" in set(idm["idiom"])
    assert int(idm.set_index("idiom").loc["rms_norm", "count"]) == 4


def test_steps_inferred_and_cold_start():
    tr, t = loop_trace(10, first_extra=5_000)
    p = tr.profile(wall_ns=t)
    st = steps.steps(p)
    assert len(st) == 10 and st["source"].iloc[0] == "inferred"
    cs = steps.cold_start(p)
    assert cs["extra_ns"] == pytest.approx(5_000, abs=1)
    assert cs["ops"].iloc[0]["name"] == "aten::linear"


def test_one_op_repeating_in_a_script_without_a_loop_is_not_steps():
    # a script calling .to() four times around one long matmul: no loop body repeats, so no steps
    # (and no "first step 100x the rest" cold start)
    tr, t = Trace(), 0
    for name, dur in [("aten::to", 10), ("aten::matmul", 300_000), ("aten::to", 10), ("aten::diagonal", 5),
                      ("aten::to", 10), ("aten::topk", 50), ("aten::to", 10), ("aten::stack", 20)]:
        tr.op(name, t, dur)
        t += dur + 5
    assert len(steps.steps(tr.profile(wall_ns=t))) == 0


def test_recorded_steps_win():
    tr, t = loop_trace(4)
    for i in range(3):
        tr.add(f"step {i}", "step", i * 100, 100, track="host/steps")
    st = steps.steps(tr.profile(wall_ns=t))
    assert st["source"].iloc[0] == "recorded" and len(st) == 3


def test_memory_churn_growth_and_timeline():
    tr, t = loop_trace(8)
    n = 64
    ts = np.linspace(0, t, n).astype(np.int64)
    delta = np.where(np.arange(n) % 2 == 0, 1e6, -0.5e6)  # leaks 0.5 MB per alloc/free pair
    mem = pd.DataFrame({"ts_ns": ts, "device": "cpu", "delta_bytes": delta, "allocated_bytes": np.cumsum(delta),
                        "reserved_bytes": 8e6})
    p = Profile(tr.profile(wall_ns=t).events, mem, meta={"wall_ns": t, "window_ns": [0, t]})
    ch = memory.memory_churn(p).iloc[0]
    assert ch["allocs"] == 32 and ch["frees"] == 32 and ch["allocs_per_step"] == 4
    g = memory.memory_growth(p)
    s = g.attrs["summary"]["cpu"]
    assert s["monotonic"] and s["growth_bytes"] > 0
    tl = memory.memory_timeline(p, points=16)
    assert len(tl) <= 16 and tl["allocated_bytes"].max() == mem["allocated_bytes"].max()
    fr = memory.fragmentation(p)["cpu"]
    assert fr["reserved_bytes"] == 8e6


def test_idle_classification_and_launch_stats():
    tr = Trace()
    # kernel 0 then kernel 1 launched late (host_wait); kernel 2 queued right behind (kernel_wait)
    tr.launch(0, 5, corr=1)
    tr.kernel("k0", 10, 100, corr=1)
    tr.launch(500, 5, corr=2)
    tr.kernel("k1", 510, 100, corr=2)
    tr.launch(505, 5, corr=3)
    tr.kernel("k2", 620, 3, corr=3)
    tr.kernel("k3", 100_000, 10)  # no launch: 'other'
    p = tr.profile(wall_ns=100_010)
    ig = devices.idle_gaps(p)
    assert list(ig["category"].astype(str)) == ["host_wait", "kernel_wait", "other"]
    ls = devices.launch_stats(p)
    assert list(ls["delay_ns"]) == [5, 5, 110] and ls["short"].tolist() == [False, False, True]
    q = devices.queue_length(p)
    assert q["queue_length"].max() == 2


def test_transfers_and_contention():
    tr = Trace()
    tr.kernel("gemm", 0, 100)
    for i in range(4):
        tr.add("Memcpy HtoD (Pageable -> Device)", "memcpy", 50 + 100 * i, 40, track="cuda:0/stream 9",
               device="cuda:0", bytes=4096.0)
    tr.add("Memcpy DtoH (Device -> Pinned)", "memcpy", 500, 100, track="cuda:0/stream 9", device="cuda:0",
           bytes=10e6)
    p = tr.profile(wall_ns=700)
    t = devices.transfers(p).set_index("kind")
    assert t.loc["H2D", "count"] == 4 and t.loc["H2D", "small_count"] == 4 and t.loc["H2D", "pageable_count"] == 4
    assert t.loc["H2D", "exposed_ns"] == 160 - 40 + 0  # the first copy overlaps the gemm for 50 ns... of 40
    assert t.loc["D2H", "bandwidth_gbps"] == pytest.approx(10e6 / 100)
    c = devices.contention(p).iloc[0]
    assert c["copy_compute_overlap_ns"] == 40 and c["concurrent_streams_ns"] == 40


def test_syncs_table_sites():
    tr = Trace()
    tr.kernel("k", 0, 1000)
    tr.op("aten::item", 100, 1000)
    tr.op("aten::_local_scalar_dense", 110, 980)
    tr.add("cudaStreamSynchronize", "runtime", 120, 960)
    p = tr.profile(wall_ns=1200)
    s = devices.syncs(p)
    assert len(s) == 1
    r = s.iloc[0]
    assert r["site"] == "aten::_local_scalar_dense" and r["wait_ns"] == 1000 - 120


def test_hotspots_by_name_shapes_module():
    tr = Trace()
    for i in range(3):
        tr.op("aten::mm", i * 100, 50, shapes="[[2,2]]", module="net.fc1")
    tr.op("aten::mm", 400, 90, shapes="[[4,4]]", module="net.fc2")
    p = tr.profile()
    hs = hotspots(p.events)
    assert hs.iloc[0]["count"] == 4 and hs.iloc[0]["total_ns"] == 240
    assert hs.iloc[0]["p50_ns"] == pytest.approx(50.0) and hs.iloc[0]["share_pct"] == pytest.approx(100.0)
    hs2 = hotspots(p.events, by="name+shapes")
    assert len(hs2) == 2 and hs2.iloc[0]["shapes"] == "[[2,2]]" and hs2.iloc[0]["self_ns"] == 150
    hs3 = hotspots(p.events, by="module")
    assert set(hs3["module"]) == {"net.fc1", "net.fc2"}


def test_device_time_by_op():
    tr = Trace()
    tr.op("aten::linear", 0, 100)
    tr.op("aten::addmm", 10, 80)
    tr.launch(20, 5, corr=1)
    tr.kernel("gemm", 30, 500, corr=1)
    tr.op("aten::relu", 200, 20)
    tr.launch(205, 5, corr=2)
    tr.kernel("relu_k", 530, 50, corr=2)
    p = tr.profile()
    outer = devices.device_time_by_op(p).set_index("name")["device_ns"].to_dict()
    assert outer == {"aten::linear": 500, "aten::relu": 50}
    inner = devices.device_time_by_op(p, level="inner").set_index("name")["device_ns"].to_dict()
    assert inner == {"aten::addmm": 500, "aten::relu": 50}
