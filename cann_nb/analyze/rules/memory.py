"""Memory rules: allocation churn in the loop, near-OOM peaks, growth across steps, fragmentation."""

from __future__ import annotations

import math
import re

import numpy as np

from .. import classify as C
from ..memory import fragmentation, memory_churn, memory_growth, peak_memory
from ..timeline import outermost
from ... import formatting as F
from .base import METHOD_CP, covered_ns, make_finding, pct, replay_gain, top_names
from .compute import ALLOC_OP_RE, _factor_gain, _tasks_of, _time_of

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
    rows = outermost(ctx, rows)
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


GATHER_RE = re.compile(r"^aten::(cat|stack|concat|concatenate|vstack|hstack)$")


def memory_growth_rule(ctx, th):
    """Allocated memory at step ends keeps rising (XProf memory leaks; smdebug: > 5 % growth). Where
    the kept tensors are gathered after the loop (a cat or stack allocating at least half the growth: an
    evaluation keeping every batch's outputs to concatenate them at the end), that gathering is what the
    growth costs in time: reducing each batch to what is needed inside the loop removes it. Gain: those
    gathering ops removed, replayed; otherwise none (the cost of holding memory is not time)."""
    g = memory_growth(ctx.profile)
    for dev, s in g.attrs.get("summary", {}).items():
        if (s["steps"] < th["min_steps"] or not s["monotonic"] or s["growth_pct"] < th["growth_pct"]
                or s["growth_bytes"] < th.get("min_growth_bytes", 0)):
            continue
        gain, conf, method, gather = math.nan, math.nan, None, np.zeros(0, dtype=I64)
        if dev == "cpu":
            size, owner = host_allocations(ctx, min_bytes=0.5 * s["growth_bytes"])
            gather = np.unique(owner[ctx.flag(GATHER_RE)[owner]]) if len(owner) else gather
        if len(gather):
            mask = np.zeros(ctx.n, dtype=bool)
            mask[gather] = True
            gain, conf = replay_gain(ctx, seg_factor=ctx.replay.seg_factor_for(mask, 0.0))
            method = METHOD_CP + " (the gathering of the kept tensors removed)"
        title = (f"{dev}: allocated memory grows {s['growth_pct']:.0f}% over {s['steps']} steps "
                 f"(+{F.nbytes(s['slope_bytes_per_step'])} per step)")
        sugg = ("Look for references kept across steps: losses appended without .item()/.detach(), "
                "growing lists or caches, tensors stored on self; check with the memory timeline.")
        if len(gather):
            t = covered_ns(ctx, gather)
            title += f"; gathering the kept tensors afterwards takes {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end)"
            sugg = ("The loop keeps every step's full outputs to gather them at the end: reduce each step to what "
                    "is needed inside the loop (e.g. all_preds.append(logits.argmax(-1)) instead of the logits, "
                    "a running sum for a mean) so nothing grows and nothing large is concatenated. " + sugg)
        yield make_finding(
            ctx, "memory_growth", "memory", title,
            evidence={"device": dev, **s, "gathering_ops": int(len(gather))}, ops=top_names(ctx, gather, 3),
            suggestion=sugg, gain_ns=gain, method=method, confidence=conf * 0.5 if len(gather) else math.nan,
            rows=gather if len(gather) else None)


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


def host_allocations(ctx, min_bytes: float = 1.0):
    """(bytes, owner row) of each host allocation the memory table links to an event, of at least
    ``min_bytes``; the owner is the outermost op around it: the call the user wrote (a clone's output is
    allocated by the aten::empty_strided inside it)."""
    mem = ctx.profile.memory
    if not len(mem) or "event_id" not in mem.columns:
        return np.zeros(0), np.zeros(0, dtype=I64)
    delta = mem["delta_bytes"].to_numpy(dtype=float)
    row = ctx.pos.get_indexer(mem["event_id"].to_numpy())
    ok = (delta >= min_bytes) & (row >= 0)
    ok[ok] = ctx.is_host[row[ok]]
    return delta[ok], _owner_of(ctx, row[ok])


def large_temporaries(ctx, th):
    """Ops that allocate large fresh outputs over and over (``c = a * b; c = c + s; c = c * 0.5`` on big
    tensors): the bytes allocated are many times the live memory, and each fresh buffer pays the
    allocator and first-touch page faults before the op's own work. Reasoned from the memory table
    (bytes allocated per op against the live peak) and the machine's measured cost per fresh byte
    (analyze/first_touch.py). Outputs autograd keeps or makes (a training step's activations and
    gradients) are no temporaries: in place and ``out=`` do not apply to them. Gain: replay with each such
    op shortened by that cost (in place / out=)."""
    from ..first_touch import fresh_cost_ns, per_byte_cost
    mem = ctx.profile.memory
    nbytes, owner = host_allocations(ctx, th["min_bytes"])
    mine = ~ctx.flag(ALLOC_OP_RE)[owner]          # explicit zeros/empty calls are alloc_churn's
    mine &= ~np.isin(owner, _autograd_owners(ctx))   # outputs autograd keeps or makes: no in-place / out=
    nbytes, owner = nbytes[mine], owner[mine]
    if not len(owner):
        return
    live = float(mem["allocated_bytes"].max()) if mem["allocated_bytes"].notna().any() else math.nan
    total = float(nbytes.sum())
    calls = np.unique(owner)
    if len(calls) < th["min_count"] or not (total >= th["churn_ratio"] * live):
        return
    table = per_byte_cost(ctx.meta)
    cost = fresh_cost_ns(nbytes, table) if table else np.full(len(nbytes), math.nan)
    if not np.isfinite(cost).any():
        gain, conf, fault_ns = math.nan, math.nan, math.nan
    else:
        per_owner = np.bincount(np.searchsorted(calls, owner), weights=np.nan_to_num(cost), minlength=len(calls))
        per_owner = np.minimum(per_owner, 0.9 * ctx.dur[calls])   # the op's own work stays
        fault_ns = float(per_owner.sum())
        if pct(fault_ns, ctx.wall) < th["min_pct"]:
            return
        factor = np.ones(ctx.n)
        factor[calls] = 1.0 - per_owner / np.maximum(ctx.dur[calls], 1)
        gain, conf = _factor_gain(ctx, calls, factor)
    counts = np.bincount(ctx.name_code[calls])
    n_iter = max(int(counts[counts > 0].min()), 1)   # each op of the loop body runs once per iteration
    names = top_names(ctx, calls, 4)
    title = (f"{len(calls):,} out-of-place ops allocate {F.nbytes(total)} of fresh tensors ({F.nbytes(total / n_iter)} "
             f"per iteration, {total / live:.0f}x the live peak of {F.nbytes(live)})")
    yield make_finding(
        ctx, "large_temporaries", "memory", title,
        evidence={"calls": int(len(calls)), "bytes_allocated": total, "live_peak_bytes": live,
                  "bytes_per_iteration": total / n_iter, "fresh_cost_ns": fault_ns,
                  "ns_per_fresh_byte": table and {str(k): v for k, v in table.items()}},
        ops=names,
        suggestion=("Reuse the buffers: write in place (c.mul_(b), c.add_(s)) or into a preallocated output "
                    "(torch.mul(a, b, out=c)), so the loop allocates nothing; large fresh tensors pay the "
                    "allocator and a page fault per 4 KiB page on first write."),
        gain_ns=gain, method=METHOD_CP + " (each op less the measured cost of its fresh bytes)",
        confidence=conf * 0.6 if conf == conf else conf, rows=calls, affected_ns=fault_ns)


def _autograd_owners(ctx) -> np.ndarray:
    """Ops whose outputs autograd needs: the backward nodes (gradients) and the forward ops they
    differentiate (activations saved for backward, or inputs of an op that saves them). Neither can be
    written in place or into ``out=`` while autograd records, so they are no reusable temporaries."""
    from ..timeline import ancestor_flag
    from .autograd import NODE_RE, _forward_name
    node = ctx.flag(NODE_RE)
    if not node.any():
        return np.zeros(0, dtype=I64)
    nodes = np.flatnonzero(node)
    names = {_forward_name(str(n)) for n in np.unique(ctx.names(nodes).astype(str))}
    ops = np.flatnonzero((ctx.role == C.R["op"]) & ctx.is_host)
    fwd = ops[np.isin(ctx.names(ops).astype(str), list(names)) & ~ancestor_flag(ctx, node)[ops]]
    return np.unique(np.concatenate([_owner_of(ctx, nodes), _owner_of(ctx, fwd)]))


def _owner_of(ctx, rows) -> np.ndarray:
    """The outermost host op enclosing each row (itself when it has no op ancestor)."""
    is_op = ctx.role == C.R["op"]
    out = np.asarray(rows, dtype=I64).copy()
    cur = out.copy()
    for _ in range(64):
        par = ctx.rows_of_parent[cur]
        step = par >= 0
        if not step.any():
            break
        cur = np.where(step, par, cur)
        out = np.where(step & is_op[np.maximum(par, 0)], par, out)
        if not (ctx.rows_of_parent[cur[step]] >= 0).any():
            break
    return out
