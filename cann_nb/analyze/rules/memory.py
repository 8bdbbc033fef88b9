"""Memory rules: allocation churn in the loop, near-OOM peaks, growth across steps, fragmentation."""

from __future__ import annotations

import numpy as np

from .. import classify as C
from ..memory import fragmentation, memory_churn, memory_growth, peak_memory
from ... import formatting as F
from .base import METHOD_CP, make_finding, pct, replay_gain, top_names
from .compute import ALLOC_OP_RE, _outer, _tasks_of, _time_of

I64 = np.int64


def alloc_churn(ctx, th):
    """Tensors allocated (and initialised) afresh every iteration by the user's code: torch.zeros /
    empty / ones / full / *_like in the loop. Large fresh buffers also pay page faults on first
    touch. Gain: replay without those calls (preallocate once, write with out= / in place)."""
    flag = ctx.flag(ALLOC_OP_RE) & ctx.is_host
    rows = np.flatnonzero(flag)
    if not len(rows):
        return
    # only the user's own calls: not allocations an op makes for its output
    is_op = ctx.role == C.R["op"]
    prow = ctx.rows_of_parent[rows]
    inside_op = np.zeros(len(rows), dtype=bool)
    ok = prow >= 0
    inside_op[ok] = is_op[prow[ok]]
    rows = rows[~inside_op]
    if len(rows) < th["min_count"]:
        return
    rows = _outer(ctx, rows)
    t = _time_of(ctx, rows)
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    mask = np.zeros(ctx.n, dtype=bool)
    mask[rows] = True
    tf = np.where(_tasks_of(ctx, mask), 0.0, 1.0)
    gain, conf = replay_gain(ctx, seg_factor=ctx.replay.seg_factor_for(mask, 0.0), task_factor=tf)
    churn = memory_churn(ctx.profile)
    ev = {"calls": int(len(rows)), "time_ns": t}
    mem = ctx.profile.memory
    if len(mem) and "event_id" in mem.columns:
        # bytes these calls (or their children) allocated, from the memory table
        from ..timeline import ancestor_flag
        inside = ancestor_flag(ctx, mask)
        eid = mem["event_id"].to_numpy()
        r = ctx.pos.get_indexer(eid)
        hit = (r >= 0) & inside[np.maximum(r, 0)] & (mem["delta_bytes"].to_numpy() > 0)
        if hit.any():
            ev["bytes_allocated"] = float(mem["delta_bytes"].to_numpy()[hit].sum())
            ev["mean_alloc_bytes"] = float(mem["delta_bytes"].to_numpy()[hit].mean())
    if len(churn):
        ev["churn"] = churn.to_dict("records")
    size = f", {F.nbytes(ev['mean_alloc_bytes'])} each" if "mean_alloc_bytes" in ev else ""
    title = (f"{len(rows):,} fresh tensors allocated and filled in the loop{size}: {F.ns(t)} "
             f"({pct(t, ctx.wall):.0f}% of end-to-end)")
    yield make_finding(
        ctx, "alloc_churn", "memory", title, evidence=ev, ops=top_names(ctx, rows, 4),
        suggestion=("Allocate once before the loop and reuse the buffer: write results with out= "
                    "(torch.mul(x, 0.5, out=buf)) or in place (buf.copy_(x)), and use torch.empty instead of "
                    "torch.zeros when every element is overwritten."),
        gain_ns=gain, method=METHOD_CP + " (allocations removed)", confidence=conf * 0.6, rows=rows, affected_ns=t)


def _capacity(ctx, dev: str):
    for d in ctx.meta.get("devices") or []:
        if isinstance(d, dict) and d.get("device") == dev:
            for k in ("totalGlobalMem", "total_memory", "memory_total", "hbm_bytes", "memory_bytes"):
                if d.get(k):
                    try:
                        return float(d[k])
                    except (TypeError, ValueError):
                        pass
    return None


def memory_peak(ctx, th):
    """Peak allocated memory close to the device's capacity (tb: > 90 %)."""
    peaks = peak_memory(ctx.profile.memory)
    for dev, peak in peaks.items():
        cap = _capacity(ctx, dev)
        if not cap:
            continue
        share = 100.0 * peak / cap
        if share < th["pct_of_capacity"]:
            continue
        yield make_finding(
            ctx, "memory_peak", "memory", f"{dev} peaks at {F.nbytes(peak)}, {share:.0f}% of its {F.nbytes(cap)}",
            evidence={"device": dev, "peak_bytes": peak, "capacity_bytes": cap, "pct": share},
            suggestion=("Lower the peak: activation checkpointing, mixed precision (bf16), a smaller micro-batch "
                        "with gradient accumulation, freeing references to large intermediates early."))


def memory_growth_rule(ctx, th):
    """Allocated memory at step ends keeps rising (XProf memory leaks; smdebug: > 5 % growth)."""
    g = memory_growth(ctx.profile)
    for dev, s in g.attrs.get("summary", {}).items():
        if (s["steps"] < th["min_steps"] or not s["monotonic"] or s["growth_pct"] < th["growth_pct"]
                or s["growth_bytes"] < th.get("min_growth_bytes", 0)):
            continue
        yield make_finding(
            ctx, "memory_growth", "memory",
            f"{dev}: allocated memory grows {s['growth_pct']:.0f}% over {s['steps']} steps "
            f"(+{F.nbytes(s['slope_bytes_per_step'])} per step)",
            evidence={"device": dev, **s},
            suggestion=("Look for references kept across steps: losses appended without .item()/.detach(), "
                        "growing lists or caches, tensors stored on self; check with the memory timeline."))


def fragmentation_rule(ctx, th):
    """Reserved but unallocated memory at the reserved peak (allocator cache / fragmentation)."""
    for dev, f in fragmentation(ctx.profile).items():
        if f["fragmentation_pct"] < th["pct"] or f["reserved_bytes"] < th["min_reserved_bytes"]:
            continue
        yield make_finding(
            ctx, "fragmentation", "memory",
            f"{dev}: {f['fragmentation_pct']:.0f}% of the {F.nbytes(f['reserved_bytes'])} reserved is not allocated "
            "at the peak",
            evidence={"device": dev, **f},
            suggestion=("Reduce fragmentation: PYTORCH_CUDA_ALLOC_CONF / PYTORCH_NPU_ALLOC_CONF="
                        "expandable_segments:True (or max_split_size_mb), keep tensor sizes stable."))
