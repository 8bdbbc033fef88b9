"""The analysis engine on the real imported traces: contracts and invariants hold on every one, and
the device breakdown matches an independent brute-force computation."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cann_nb.analyze import analyses, analyze
from cann_nb.analyze.breakdown import device_breakdown
from cann_nb.analyze.critical_path import bound_by, critical_path

KINETO = [
    "hta/tests/data/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
    "hta/tests/data/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz",
    "hta/tests/data/nccl_parser_config/nccl_data.json.gz",
    "hta/tests/data/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
    "tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz",
    "tracelens/tests/traces/mi210/gpu_only_trace/gpu_only_trace.json.gz",
    "kineto/docs/traces/before_fix_trace.json",
]
ASCEND = [
    "msinsight/test/data/pytorch/text/level2/rank0_ascend_pt",
    "msinsight/test/data/pytorch/text/level0/rank1_ascend_pt",
]


def _load(real_data: Path, rel: str):
    path = real_data / rel
    if not path.exists():
        pytest.skip(f"{rel} not in the real data set")
    if path.is_dir():
        from cann_nb.ingest.ascend import read_ascend
        return read_ascend(path)
    from cann_nb.ingest.kineto import read_kineto
    return read_kineto(path)


@pytest.mark.parametrize("rel", KINETO + ASCEND)
def test_contract_and_invariants_on_real_traces(real_data, rel):
    prof = _load(real_data, rel)
    out = analyze(prof)
    json.dumps(out, allow_nan=False)
    assert "analysis_errors" not in out["profile"], out["profile"].get("analysis_errors")
    wall = out["summary"]["wall_ns"]
    for dev, d in out["summary"]["devices"].items():
        assert d["busy_ns"] + d["idle_ns"] == wall
        assert d["compute_ns"] + d["communication_ns"] + d["memcpy_ns"] == d["busy_ns"]
        assert 0 <= d["busy_ns"] <= wall
    bb = bound_by(prof)
    assert bb["dur_ns"].sum() == wall
    path = critical_path(prof)
    if len(path):
        assert (path["end"] > path["start"]).all()
        assert (path["start"].to_numpy()[1:] >= path["end"].to_numpy()[:-1]).all()
    ids = set(prof.events["id"].tolist())
    for f in out["findings"]:
        assert set(f["evidence"].get("event_ids", [])) <= ids
        if f["est_gain_ns"] is not None:
            assert 0 <= f["est_gain_ns"] <= wall
        assert f["suggestion"] and f["title"]


@pytest.mark.parametrize("rel", [KINETO[0], KINETO[2], KINETO[4], ASCEND[0]])
def test_device_breakdown_matches_bitmap(real_data, rel):
    """Independent check: a per-microsecond bitmap of kernel / comm / copy activity per device."""
    prof = _load(real_data, rel)
    from cann_nb.analyze.context import context
    ctx = context(prof)
    lo, hi = ctx.window
    bd = device_breakdown(prof, include_host=False).set_index("device")
    res = 1_000  # 1 us
    n = (hi - lo) // res + 1
    for dev in ctx.accel_devices:
        rows = ctx.device_rows(dev)
        masks = {k: np.zeros(n, dtype=bool) for k in ("compute", "communication", "memcpy")}
        from cann_nb.analyze.breakdown import _device_label
        for s, e, lab in zip(ctx.start[rows], ctx.end[rows], _device_label(ctx, rows)):
            masks[lab][(max(s, lo) - lo) // res:(min(e, hi) - lo) // res] = True
        comp = masks["compute"].sum() * res
        comm = (masks["communication"] & ~masks["compute"]).sum() * res
        copy = (masks["memcpy"] & ~masks["compute"] & ~masks["communication"]).sum() * res
        tol = 2 * res * len(rows) + 1  # each interval edge can round by up to 1 us
        assert abs(bd.loc[dev, "compute_ns"] - comp) <= tol
        assert abs(bd.loc[dev, "communication_ns"] - comm) <= tol
        assert abs(bd.loc[dev, "memcpy_ns"] - copy) <= tol
        assert abs(bd.loc[dev, "compute_ns"] - comp) <= 0.01 * (hi - lo)


def test_every_analysis_runs_on_a_real_trace(real_data):
    prof = _load(real_data, KINETO[2])
    out = analyses(prof)
    assert len(out["hotspots"]) and len(out["device_breakdown"]) == 2
    assert out["run_breakdown"]["dur_ns"].sum() == prof.wall_ns
    assert len(out["launches"]) > 0 and len(out["idle"]) > 0
