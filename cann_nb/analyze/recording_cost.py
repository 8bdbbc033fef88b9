"""The profiler's own time inside a profile, per event row, so that gains are estimated for the run
*without* the profiler: what the user will get from a fix.

Recording a tiny op costs about as much as the op (collect/overhead.py measures it per machine and the
collector writes it into meta ``collectors.NAME.overhead``), so a loop of tiny ops fills a larger share of
a profiled run than of the same run unprofiled, and a fix that removes the loop would seem to save more
than it does. Each recorded event is charged the measured cost: torch.profiler's per framework-op event and per
recorded allocation or free (charged to the op that made it);
the Python tracer's per record (calls, returns and lines, also those of spans it hides, spread over the
spans it keeps, and the calls and returns it still hooks but drops once its buffer is full; the one run of
each sampled line that measured its temporaries, beyond the line's other runs). A profile without the figure (imported, another machine, an older cann_nb) is charged
nothing: its times are taken as they are.
"""

from __future__ import annotations

import math

import numpy as np

from . import classify as C
from .line_arrays import traced_run_excess


def _figure(meta: dict, collector: str, key: str) -> float:
    got = ((meta.get("collectors") or {}).get(collector) or {}).get("overhead") or {}
    v = got.get(key) if isinstance(got, dict) else None
    return float(v) if isinstance(v, (int, float)) and math.isfinite(v) and v > 0 else 0.0


def per_row(ctx) -> np.ndarray:
    """ns of recording cost charged to each event row (0 where none is known)."""
    cost = np.zeros(ctx.n)
    if not ctx.n:
        return cost
    host = ctx.is_host
    # measured in the run itself when it could be (torch_collector's probe), else the machine's figure
    k_op = _figure(ctx.meta, "torch", "in_run_ns_per_event") or _figure(ctx.meta, "torch", "ns_per_event")
    if k_op:
        cost[host & (ctx.role == C.R["op"])] = k_op
    k_mem = _figure(ctx.meta, "torch", "ns_per_memory_event")
    mem = getattr(ctx.profile, "memory", None)
    if k_mem and mem is not None and len(mem) and "event_id" in mem:
        # each recorded allocation or free is charged to the op that made it
        rows = ctx.rows(mem["event_id"].dropna().to_numpy().astype(np.int64))
        cost += k_mem * np.bincount(rows, minlength=ctx.n)[: ctx.n]
    k_rec = _figure(ctx.meta, "python", "ns_per_record")
    if k_rec:
        py = host & (ctx.cat == "python")
        records = ((ctx.meta.get("collectors") or {}).get("python") or {}).get("records") or 0
        n = int(py.sum())
        if n:
            # a kept span is two records; hidden spans' records are spread over the kept ones
            cost[py] = k_rec * max(float(records), 2.0 * n) / n
            # once the buffer is full the hook still runs for every call and return, unrecorded: that time
            # lies after the last recorded span's start, where the replay's carry-over lets it be absorbed
            dropped = int(((ctx.meta.get("dropped") or {}).get("python")) or 0)
            if dropped:
                rows = np.flatnonzero(py)
                cost[rows[np.argmax(ctx.start[rows])]] += k_rec * 2.0 * dropped
    # the one run of each sampled line that measured its temporaries under tracemalloc
    cost += traced_run_excess(ctx)
    return cost


def describe(ctx, removed_ns: float) -> dict:
    """Evidence: what was taken out of the profiled time, and why."""
    out = {"recording_cost_ns": float(removed_ns), "wall_without_recording_ns": float(ctx.wall - removed_ns)}
    for collector, key in (("torch", "ns_per_event"), ("torch", "in_run_ns_per_event"), ("torch", "ns_per_memory_event"),
                           ("python", "ns_per_record")):
        k = _figure(ctx.meta, collector, key)
        if k:
            out[f"{collector}_{key}"] = k
    return out
