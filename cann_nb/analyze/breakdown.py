"""Temporal breakdowns: per device (compute, communication, memcpy, idle) and the whole run by a fixed
priority (torch-tb-profiler's step breakdown), each summing exactly to the wall time."""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import classify as C
from .context import context
from .intervals import clip, exclusive, union

DEVICE_PRIORITY = ("compute", "communication", "memcpy")
# torch-tb-profiler's order (overall_parser.py): Kernel > Memcpy > Memset > Communication > Runtime >
# DataLoader > CPU Exec > Other
RUN_PRIORITY = ("kernel", "memcpy", "memset", "communication", "runtime", "dataloader", "cpu_exec")


def _device_label(ctx, rows) -> np.ndarray:
    r = ctx.role[rows]
    lab = np.full(len(rows), "compute", dtype=object)
    lab[r == C.R["comm"]] = "communication"
    lab[np.isin(r, (C.R["memcpy"], C.R["memset"]))] = "memcpy"
    return lab


def _host_label(ctx, rows) -> np.ndarray:
    """Host work on the cpu 'device': compute (ops, runtime, Python), communication (host
    collectives). Syncs are waiting, annotations and steps are markers: neither is busy."""
    r = ctx.role[rows]
    lab = np.full(len(rows), "", dtype=object)
    lab[np.isin(r, (C.R["op"], C.R["launch"], C.R["alloc"], C.R["runtime"], C.R["python"], C.R["other"]))] = "compute"
    lab[r == C.R["host_comm"]] = "communication"
    return lab


def device_breakdown(profile, include_host: bool = True, window: tuple | None = None) -> pd.DataFrame:
    ctx = context(profile)
    key = ("device_breakdown", include_host, tuple(window) if window else None)
    return ctx.memo(key, lambda: _device_breakdown(profile, include_host, window)).copy()


def _device_breakdown(profile, include_host: bool, window=None) -> pd.DataFrame:
    """One row per device: ``wall_ns, busy_ns, compute_ns, communication_ns, memcpy_ns, idle_ns`` plus
    ``span_ns`` (first to last task) and ``idle_in_span_ns`` (HTA's idle: gaps between the first and
    the last task) and percentages of the wall time.

    Exclusive attribution: compute > communication > memcpy (memset counts as memcpy), so busy =
    compute + communication + memcpy and busy + idle = wall, exactly. For the host ('cpu'), busy is
    time inside any host op, runtime call or Python function except sync waits. ``window=(lo, hi)``
    restricts everything to that time range (e.g. some steps).
    """
    ctx = context(profile)
    lo, hi = (int(window[0]), int(window[1])) if window else ctx.window
    wall = hi - lo
    rows_out = []
    for dev in ctx.accel_devices:
        rows = ctx.device_rows(dev)
        rows_out.append(_one(dev, ctx.start[rows], ctx.end[rows], _device_label(ctx, rows), lo, hi))
    if include_host:
        rows = np.flatnonzero(ctx.is_host)
        lab = _host_label(ctx, rows)
        keep = lab != ""
        if keep.any() or not rows_out:
            rows = rows[keep]
            rows_out.append(_one("cpu", ctx.start[rows], ctx.end[rows], lab[keep], lo, hi))
    cols = ["device", "wall_ns", "busy_ns", "compute_ns", "communication_ns", "memcpy_ns", "idle_ns", "span_ns",
            "idle_in_span_ns"]
    out = pd.DataFrame(rows_out, columns=cols)
    for c in ("busy", "compute", "communication", "memcpy", "idle"):
        out[f"{c}_pct"] = np.where(wall > 0, 100.0 * out[f"{c}_ns"] / max(wall, 1), 0.0)
    return out


def _one(dev, s, e, lab, lo, hi) -> dict:
    ex = exclusive(s, e, lab, DEVICE_PRIORITY, lo, hi)
    busy = ex["compute"] + ex["communication"] + ex["memcpy"]
    cs, ce = clip(s, e, lo, hi)
    live = ce > cs
    span = int(ce[live].max() - cs[live].min()) if live.any() else 0
    return {"device": dev, "wall_ns": hi - lo, "busy_ns": busy, "compute_ns": ex["compute"],
            "communication_ns": ex["communication"], "memcpy_ns": ex["memcpy"], "idle_ns": ex["idle"],
            "span_ns": span, "idle_in_span_ns": max(span - busy, 0)}


def run_breakdown(profile) -> pd.DataFrame:
    """The whole run by torch-tb-profiler's priority: each instant of the window goes to the first
    active category of kernel > memcpy > memset > communication > runtime > dataloader > cpu_exec,
    else "other". Sums to the wall time. Columns ``category, dur_ns, pct``."""
    ctx = context(profile)
    lo, hi = ctx.window
    r = ctx.role
    P = {c: i for i, c in enumerate(RUN_PRIORITY)}
    lab = np.full(ctx.n, -1, dtype=np.int8)
    lab[r == C.R["compute"]] = P["kernel"]
    lab[r == C.R["memcpy"]] = P["memcpy"]
    lab[r == C.R["memset"]] = P["memset"]
    lab[np.isin(r, (C.R["comm"], C.R["host_comm"]))] = P["communication"]
    lab[np.isin(r, (C.R["launch"], C.R["sync"], C.R["alloc"], C.R["runtime"]))] = P["runtime"]
    lab[np.isin(r, (C.R["op"], C.R["python"]))] = P["cpu_exec"]
    dl = ctx.host_flags["data_loading"] & ctx.is_host
    lab[dl & (lab != P["runtime"])] = P["dataloader"]
    ex = exclusive(ctx.start, ctx.end, lab, list(range(len(RUN_PRIORITY))), lo, hi)
    out = pd.DataFrame({"category": list(RUN_PRIORITY) + ["other"],
                        "dur_ns": [ex[i] for i in range(len(RUN_PRIORITY))] + [ex["idle"]]})
    out["pct"] = 100.0 * out["dur_ns"] / (hi - lo) if hi > lo else 0.0
    return out


def summary_devices(profile) -> dict:
    """DESIGN.md's ``summary.devices``: {DEV: {busy_ns, idle_ns, compute_ns, communication_ns, memcpy_ns}}."""
    df = device_breakdown(profile)
    keys = ("busy_ns", "idle_ns", "compute_ns", "communication_ns", "memcpy_ns")
    return {str(r["device"]): {k: int(r[k]) for k in keys} for _, r in df.iterrows()}


def overlap(profile, device: str | None = None) -> pd.DataFrame:
    """Time each combination of compute / communication / memcpy is active on a device (sweep line):
    columns ``device, compute, communication, memcpy, dur_ns``. Comm-compute overlap % (HTA) is
    ``dur(compute & communication) / dur(communication)``."""
    from .intervals import sweep
    ctx = context(profile)
    out = []
    for dev in ([device] if device else ctx.accel_devices):
        rows = ctx.device_rows(dev)
        lab = _device_label(ctx, rows)
        code = np.select([lab == "compute", lab == "communication"], [0, 1], 2)
        sw = sweep(ctx.start[rows], ctx.end[rows], code, 3)
        for m, d in zip(sw["mask"], sw["dur"]):
            out.append({"device": dev, "compute": bool(m & 1), "communication": bool(m & 2), "memcpy": bool(m & 4),
                        "dur_ns": int(d)})
    return pd.DataFrame(out, columns=["device", "compute", "communication", "memcpy", "dur_ns"])


def busy_union(ctx, device: str, roles=C.DEVICE_ROLES):
    rows = ctx.device_rows(device, roles)
    return union(ctx.start[rows], ctx.end[rows])


def busy_over_time(profile, device: str, buckets: int = 400) -> pd.DataFrame | None:
    """Share (%) of each of ``buckets`` equal slices of the analysed window in which ``device`` runs any
    task: the same union of tasks as the breakdown's ``busy_ns``, so the slices' busy time sums to it.
    Columns ``t_ns`` (slice middle, profile clock), ``busy_pct``; None when the device has no task."""
    ctx = context(profile)
    s, e = busy_union(ctx, device)
    if not len(s):
        return None
    lo, hi = ctx.window
    s, e = clip(s, e, lo, hi)
    edges = np.linspace(lo, hi, buckets + 1)
    # covered length up to each edge: a cumulative sum over the disjoint, sorted intervals
    covered_before = np.concatenate(([0.0], np.cumsum((e - s).astype(np.float64))))

    def covered_until(t):
        k = np.searchsorted(e, t, side="left")    # intervals [0, k) end at or before t ... k may contain t
        part = np.clip(t - s[np.minimum(k, len(s) - 1)], 0, None) * (k < len(s))
        return covered_before[k] + np.minimum(part, (e - s)[np.minimum(k, len(s) - 1)])

    cover = np.diff(covered_until(edges))
    width = max((hi - lo) / buckets, 1e-9)
    return pd.DataFrame({"t_ns": (edges[:-1] + edges[1:]) / 2, "busy_pct": 100.0 * cover / width})
