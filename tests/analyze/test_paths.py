"""Host pieces, launch joins, critical path and what-if replay on traces whose truth is known."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cann_nb.analyze import classify as C
from cann_nb.analyze.breakdown import device_breakdown, run_breakdown
from cann_nb.analyze.context import context
from cann_nb.analyze.critical_path import bound_by, critical_path
from cann_nb.analyze.timeline import host_breakdown

from .synth import Trace, gpu_loop


def test_roles_from_names():
    tr = Trace()
    tr.op("aten::mm", 0, 10)
    tr.launch(1, 2, corr=1)
    tr.add("cudaStreamSynchronize", "runtime", 20, 5)
    tr.add("cudaMemcpy", "runtime", 30, 5)
    tr.add("cudaMemcpyAsync", "runtime", 40, 5)
    tr.add("cudaMalloc", "runtime", 50, 5)
    tr.kernel("ncclKernel_AllReduce", 60, 5)
    tr.kernel("sgemm", 70, 5)
    tr.add("Memcpy HtoD (Pageable -> Device)", "memcpy", 80, 5, track="cuda:0/stream 7", device="cuda:0")
    tr.add("Stream Sync", "kernel", 90, 1, track="cuda:0/stream 7", device="cuda:0")
    roles = [C.ROLES[r] for r in C.roles(tr.profile().events)]
    assert roles == ["op", "launch", "sync", "sync", "launch", "alloc", "comm", "compute", "memcpy", "sync_marker"]
    kinds = C.memcpy_kind(tr.profile().events["name"])
    assert kinds[8] == "H2D" and kinds[7] == ""


def test_host_pieces_sum_to_wall_and_follow_nesting():
    tr = Trace()
    tr.op("outer", 10, 80)
    tr.op("inner", 20, 30)
    tr.launch(25, 5, corr=1)
    tr.kernel("k", 40, 10, corr=1)
    p = tr.profile(wall_ns=100)
    hb = host_breakdown(p).set_index("label")["dur_ns"]
    assert hb.sum() == 100
    # outer self = 80 - 30; inner self = 30 - 5; launch 5; untracked 10 before + 10 after
    assert hb["op"] == 50 + 25 and hb["launch"] == 5 and hb["untracked"] == 20


def test_launch_join_and_delay():
    tr = Trace()
    tr.op("aten::add", 0, 20)
    tr.launch(5, 5, corr=9)
    tr.kernel("k", 30, 10, corr=9)
    prof = tr.profile()  # the context holds its profile weakly: the caller keeps it
    ctx = context(prof)
    j = ctx.launches
    assert len(j) == 1
    assert j["delay_ns"].iloc[0] == 20  # 30 - (5 + 5)
    assert ctx.events["name"].iloc[j["launch"].iloc[0]] == "cudaLaunchKernel"


def test_device_breakdown_exclusive_sums():
    tr = Trace()
    tr.kernel("gemm", 0, 50)
    tr.kernel("ncclKernel", 40, 30, stream="cuda:0/stream 9")
    tr.add("Memcpy HtoD (Pinned -> Device)", "memcpy", 60, 20, track="cuda:0/stream 8", device="cuda:0")
    p = tr.profile(wall_ns=100)
    row = device_breakdown(p, include_host=False).iloc[0]
    assert row["compute_ns"] == 50
    assert row["communication_ns"] == 20   # 50..70 (40..50 hidden under compute)
    assert row["memcpy_ns"] == 10          # 70..80
    assert row["idle_ns"] == 20
    assert row["busy_ns"] + row["idle_ns"] == 100
    rb = run_breakdown(p)
    assert rb["dur_ns"].sum() == 100


@pytest.mark.parametrize("kernel_dur", [5_000, 200_000])
@pytest.mark.parametrize("sync_every", [0, 1, 4])
def test_bound_by_tiles_the_wall(kernel_dur, sync_every):
    tr, truth = gpu_loop(n_iter=12, kernel_dur=kernel_dur, sync_every=sync_every)
    p = tr.profile()
    bb = bound_by(p).set_index("bucket")["dur_ns"]
    assert bb.sum() == truth["wall"]
    device = bb["gpu_compute_bound"]
    if kernel_dur == 200_000:
        # device-bound: nearly all device time is on the path
        assert device >= 0.9 * truth["device_busy"]
    else:
        # host-bound: the host (Python, ops, launches) is the path
        assert device <= 0.1 * truth["wall"]
        assert bb["python_or_untracked"] + bb["cpu_bound"] + bb["kernel_launch_overhead"] >= 0.8 * truth["wall"]
    path = critical_path(p)
    assert (path["start"].to_numpy()[1:] >= path["end"].to_numpy()[:-1]).all()  # no overlap


def test_replay_reproduces_and_predicts():
    tr, truth = gpu_loop(n_iter=20, kernel_dur=200_000, sync_every=1)
    prof = tr.profile()  # the context holds its profile weakly: the caller keeps it
    ctx = context(prof)
    rep = ctx.replay
    assert rep.fidelity == pytest.approx(1.0, abs=1e-6)
    # without the syncs the host runs ahead: the simulator's own no-sync run is the truth
    tr2, truth2 = gpu_loop(n_iter=20, kernel_dur=200_000, sync_every=0)
    gain = rep.gain(unblock=ctx.role == C.R["sync"])
    assert gain == pytest.approx(truth["wall"] - truth2["wall"], rel=0.02)
    # device twice as fast on a device-bound run saves about half the device time
    g2 = rep.gain(task_factor=np.where(ctx.is_device_task, 0.5, 1.0))
    assert g2 == pytest.approx(0.5 * truth["device_busy"], rel=0.05)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 12), st.integers(1_000, 300_000), st.integers(0, 3), st.integers(1_000, 100_000))
def test_replay_matches_simulator(n_iter, kernel_dur, sync_every, host_gap):
    """The replay of an unchanged trace reproduces the generator, and host-gap what-ifs match
    a regenerated trace."""
    tr, truth = gpu_loop(n_iter=n_iter, kernel_dur=kernel_dur, sync_every=sync_every, host_gap=host_gap)
    prof = tr.profile()  # the context holds its profile weakly: the caller keeps it
    ctx = context(prof)
    rep = ctx.replay
    assert rep.baseline == pytest.approx(truth["wall"], rel=1e-6)
    tr2, truth2 = gpu_loop(n_iter=n_iter, kernel_dur=kernel_dur, sync_every=sync_every, host_gap=host_gap // 2)
    f = np.where(rep.seg_owner < 0, 0.5, 1.0)
    f[-1] = 1.0  # the trailing piece is not a loop gap
    new = rep.run(seg_factor=f)
    assert new == pytest.approx(truth2["wall"], rel=0.01, abs=2_000)
