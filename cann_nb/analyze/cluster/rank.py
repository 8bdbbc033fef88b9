"""The per-rank half of the cluster analysis: one rank's figures and its collectives, from one Profile.

This is the map step. It runs on one rank at a time (here, or on a Dask worker) and returns only small
frames, so the memory of a cluster analysis does not grow with the events of the other ranks. The
device figures are ``analyze``'s own (``breakdown.device_breakdown``, ``steps.steps``) for the rank's
busiest device; nothing here re-implements them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import classify as C
from ..breakdown import device_breakdown
from ..context import context
from ..intervals import length
from ..steps import steps as step_table

FIGURES = ("wall_ns", "busy_ns", "idle_ns", "compute_ns", "communication_ns", "memcpy_ns")
# "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, ...)" -> "ncclKernel_AllReduce_RING_LL_Sum_float":
# the argument list is noise; HCCL names ("hcom_allReduce__586_0_1") already name the op instance
_ARGS_RE = re.compile(r"\(.*$")


@dataclass
class RankSummary:
    """What one rank contributes: its figures (``row``), its collectives and its steps, with times
    relative to its own ``t0_ns`` (the cross-rank step aligns the clocks)."""

    rank: int
    t0_ns: int
    row: dict
    collectives: pd.DataFrame   # key, occurrence, start_ns, end_ns (on the busiest device, in time order)
    steps: pd.DataFrame         # step, start_ns, end_ns
    worker: str | None = None   # the Dask worker that computed it (None: this process)
    notes: list = field(default_factory=list)


def collective_keys(ctx, rows: np.ndarray) -> np.ndarray:
    """The name each collective is matched by across ranks (NCCL kernels without their argument
    list), worked out once per distinct name."""
    per_name = np.asarray([_ARGS_RE.sub("", str(n)) for n in ctx.name_cats] + [""], dtype=object)
    return per_name[ctx.name_code[rows]]   # code -1 (no name) picks the trailing ""


def summarise_rank(profile, rank: int) -> RankSummary:
    """One rank's row (``analyze``'s device figures for its busiest device, step p50, the extra figures
    the straggler test explains itself with) and its collectives."""
    ctx = context(profile)
    bd = device_breakdown(profile)
    accel = bd[bd["device"] != "cpu"]
    best = (accel if len(accel) else bd).sort_values("busy_ns", ascending=False, kind="stable")
    row = {"rank": int(rank), "device": None, **{k: 0 for k in FIGURES}}
    if len(best):
        top = best.iloc[0]
        row.update(device=str(top["device"]), **{k: int(top[k]) for k in FIGURES})
    st = step_table(profile)
    row["step_p50_ns"] = float(np.median(st["dur_ns"])) if len(st) else None
    row["steps"] = int(len(st))
    dev_rows = ctx.device_rows(row["device"]) if row["device"] and row["device"] != "cpu" else np.empty(0, np.int64)
    row["kernels"] = int((ctx.role[dev_rows] == C.R["compute"]).sum())
    dl = np.flatnonzero(ctx.host_flags["data_loading"] & ctx.is_host) if ctx.n else np.empty(0, np.int64)
    row["data_loading_ns"] = length(ctx.start[dl], ctx.end[dl]) if len(dl) else 0
    row["events"] = int(ctx.n)

    if row["device"] == "cpu":   # a CPU-only rank (gloo): its host collectives
        comm = np.flatnonzero(ctx.role == C.R["host_comm"])
    else:
        comm = dev_rows[ctx.role[dev_rows] == C.R["comm"]]
    comm = comm[np.argsort(ctx.start[comm], kind="stable")]
    key = collective_keys(ctx, comm)
    coll = pd.DataFrame({"key": key, "start_ns": ctx.start[comm], "end_ns": ctx.end[comm]})
    # the k-th call of a collective on one rank meets the k-th call of it on every other rank
    coll.insert(1, "occurrence", coll.groupby("key", sort=False).cumcount().astype(np.int64))
    steps = pd.DataFrame({"step": st["step"].to_numpy(np.int64), "start_ns": st["start_ns"].to_numpy(np.int64),
                          "end_ns": st["end_ns"].to_numpy(np.int64)})
    return RankSummary(rank=int(rank), t0_ns=int((profile.meta or {}).get("t0_ns") or 0), row=row,
                       collectives=coll, steps=steps)


def summarise_stored_rank(directory: str, rank: int) -> RankSummary:
    """Read one stored rank (``GROUP/rank=K``), summarise it and let it go: the task a worker runs."""
    from ...store import read_profile_dir

    summary = summarise_rank(read_profile_dir(directory), rank)
    summary.worker = _worker_address()
    return summary


def summarise_held_rank(profile, rank: int) -> RankSummary:
    """The same for a rank already in memory (a group imported but not stored)."""
    summary = summarise_rank(profile, rank)
    summary.worker = _worker_address()
    return summary


def _worker_address() -> str | None:
    try:
        from distributed import get_worker
    except ImportError:
        return None
    try:
        return get_worker().address
    except ValueError:  # not inside a Dask task
        return None
