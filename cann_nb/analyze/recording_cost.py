"""The profiler's own time inside a profile, per event row, so that gains are estimated for the run
*without* the profiler: what the user will get from a fix.

Recording a tiny op costs about as much as the op (collect/overhead.py measures it per machine and the
collector writes it into meta ``collectors.NAME.overhead``), so a loop of tiny ops fills a larger share of
a profiled run than of the same run unprofiled, and a fix that removes the loop would seem to save more
than it does. Each recorded event is charged the measured cost: torch.profiler's per framework-op event and per
recorded allocation or free (charged to the op that made it);
the Python tracer's per record (calls, returns and lines, also those of spans it hides, spread over the
spans it keeps, and the calls and returns it still hooks but drops once its buffer is full; the one run of
each sampled line that measured its temporaries, beyond the line's other runs; the fingerprints of long
calls (collect/call_repeats.py); and the bytecode it slowed
between records, see ``bytecode_excess``). A profile without the figure (imported, another machine, an
older cann_nb) is charged nothing: its times are taken as they are.
"""

from __future__ import annotations

import math

import numpy as np

from . import classify as C
from ..collect.line_arrays import TRACE_MIN_BYTES
from .line_arrays import line_arrays, traced_run_excess
from .python_spans import call_kinds, places, user_frames


def _figure(meta: dict, collector: str, key: str) -> float:
    got = ((meta.get("collectors") or {}).get(collector) or {}).get("overhead") or {}
    v = got.get(key) if isinstance(got, dict) else None
    return float(v) if isinstance(v, (int, float)) and math.isfinite(v) and v > 0 else 0.0


def per_row(ctx) -> np.ndarray:
    """ns of recording cost charged to each event row (0 where none is known)."""
    cost = record_charges(ctx)
    slowdown = _figure(ctx.meta, "python", "bytecode_slowdown")
    if slowdown > 1.0:
        cost += bytecode_excess(ctx, cost, slowdown)
    return cost


def record_charges(ctx) -> np.ndarray:
    """ns charged to each row for the events recorded (and the Python tracer's dropped calls and
    tracemalloc'd line runs): the collectors' measured cost per event."""
    cost = np.zeros(ctx.n)
    if not ctx.n:
        return cost
    host = ctx.is_host
    # each recorded allocation or free is charged to the op that made it
    cost += _figure(ctx.meta, "torch", "ns_per_memory_event") * _memory_events(ctx)
    k_op = torch_event_ns(ctx)
    if k_op:
        cost[host & (ctx.role == C.R["op"])] = k_op
    k_rec = python_record_ns(ctx)
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
    cost += fingerprint_charges(ctx)
    return cost


# a library frame under a line on large arrays whose own time (between its records) exceeds this did C work
# on data there, unslowed by the tracer: TRACE_MIN_BYTES read at ~10 GB/s take ~6.5 us; bytecode between
# two records of a library frame takes a few
HEAVY_FRAME_NS = 10_000
MIN_DENSE_OPS = 1_000   # top-level torch ops back to back needed to check the figure against the run
DENSE_PERIOD_NS = 20_000   # consecutive top-level ops this close are a dense run (a loop of tiny ops)


def _memory_events(ctx) -> np.ndarray:
    """Per row: the allocations and frees torch recorded inside it."""
    return ctx.memo("torch_memory_events", lambda: _count_memory_events(ctx))


def _count_memory_events(ctx) -> np.ndarray:
    mem = getattr(ctx.profile, "memory", None)
    if mem is None or not len(mem) or "event_id" not in mem:
        return np.zeros(ctx.n)
    rows = ctx.rows(mem["event_id"].dropna().to_numpy().astype(np.int64))
    return np.bincount(rows, minlength=ctx.n)[: ctx.n].astype(float)


def torch_event_ns(ctx) -> float:
    """ns per torch op event for this profile: the figure measured in the run's process (torch_collector's
    probe), else the machine's, held to what the run itself shows. From one top-level op's start to the next
    lies the recording of every op event under it and of its allocations, with its bare work: in a dense run
    (a loop of tiny ops) that period over its op events bounds the cost per event from above (the median over
    the run's dense periods), so that a figure probed in a noisier moment cannot charge the loop more than
    it took and leave it nothing unprofiled."""
    return ctx.memo("torch_event_ns", lambda: _torch_event_ns(ctx))


def _torch_figure(meta: dict) -> float:
    """ns per torch op event measured in the run's process (torch_collector's probe), else the machine's."""
    return _figure(meta, "torch", "in_run_ns_per_event") or _figure(meta, "torch", "ns_per_event")


def _torch_event_ns(ctx) -> float:
    k = _torch_figure(ctx.meta)
    if not k:
        return k
    op = ctx.is_host & (ctx.role == C.R["op"]) & (ctx.track_code == ctx.main_track)
    rows = np.flatnonzero(op)
    if len(rows) < MIN_DENSE_OPS:
        return k
    parent = ctx.rows_of_parent
    top_of = rows.copy()   # each op's outermost op ancestor
    for _ in range(256):
        p = parent[top_of]
        up = (p >= 0) & op[np.maximum(p, 0)]
        if not up.any():
            break
        top_of = np.where(up, p, top_of)
    events = np.bincount(top_of, minlength=ctx.n).astype(float)
    recorded_mem = _figure(ctx.meta, "torch", "ns_per_memory_event") * np.bincount(
        top_of, weights=_memory_events(ctx)[rows], minlength=ctx.n)
    tops = np.unique(top_of)
    tops = tops[np.argsort(ctx.start[tops], kind="stable")]
    period = np.diff(ctx.start[tops]).astype(float)
    dense = (period > 0) & (period < DENSE_PERIOD_NS)
    if np.count_nonzero(dense) < MIN_DENSE_OPS:
        return k
    first = tops[:-1][dense]
    left = period[dense] - recorded_mem[first]
    return min(k, max(float(np.median(left / events[first])), 0.0))


MIN_BARE_LINES = 1_000   # line spans without calls needed to check the machine's figure against the run


def python_record_ns(ctx) -> float:
    """ns per Python-tracer record for this profile: the machine's measured figure (collect/overhead.py),
    held to what the run itself shows. A line span that calls nothing holds its two records and its own
    bytecode, nothing else, so half the median such span bounds the records' cost from above: a figure
    measured on another workload's mix of calls and lines, or in a noisier moment, must not charge the run
    more than its own lines took (which would leave their bytecode negative and the loop's unprofiled time
    near nothing)."""
    return ctx.memo("python_record_ns", lambda: _python_record_ns(ctx))


def _python_record_ns(ctx) -> float:
    k = _figure(ctx.meta, "python", "ns_per_record")
    if not k or "call_kind" not in ctx.events:
        return k
    bare = call_kinds(ctx)["line"] & ctx.is_host & (ctx.self_ns >= ctx.dur)
    if np.count_nonzero(bare) < MIN_BARE_LINES:
        return k
    return min(k, 0.5 * float(np.median(ctx.self_ns[bare])))


def fingerprint_charges(ctx) -> np.ndarray:
    """ns the Python tracer spent fingerprinting long calls (collect/call_repeats.py), per function, spread
    over the callers of that function's calls of ``min_ns`` or more: it ran after each such call's return
    record, in its caller's span."""
    out = np.zeros(ctx.n)
    got = ((ctx.meta.get("collectors") or {}).get("python") or {}).get("call_repeats") or {}
    funcs = [f for f in got.get("functions") or [] if f.get("spent_ns")]
    if not funcs or "file_line" not in ctx.events or "call_kind" not in ctx.events:
        return out
    codes, index = places(ctx)
    spent = np.zeros(len(index) + 1)
    for f in funcs:
        k = index.get_indexer([f["file_line"]])[0]
        if k >= 0:
            spent[k] += float(f["spent_ns"])
    long = call_kinds(ctx)["py"] & (codes >= 0) & (ctx.dur >= float(got.get("min_ns") or 0))
    long &= spent[np.where(codes >= 0, codes, len(index))] > 0
    rows = np.flatnonzero(long)
    parent = ctx.rows_of_parent[rows]
    rows, parent = rows[parent >= 0], parent[parent >= 0]
    if not len(rows):
        return out
    per_fn = np.bincount(codes[rows], minlength=len(index))
    np.add.at(out, parent, spent[codes[rows]] / per_fn[codes[rows]])
    return out


def bytecode_excess(ctx, charged: np.ndarray, slowdown: float) -> np.ndarray:
    """ns by which the tracer slowed the bytecode of the Python spans: CPython runs every frame on its
    tracing path while the tracer is installed, ``slowdown`` times slower (measured per machine), also
    past the line budget where nothing is recorded. Bytecode time is the Python frames' and lines' self
    time (not in the C calls and Python calls recorded inside them) less the records' cost that lies
    there, summed over the run and spread over the spans by their self time: a hook's time falls in the
    self time of the frame around the records it writes, but for the part inside a C call's own span
    (``ns_in_c_span``, measured with the record cost). The C work of numpy and pandas operators also lies
    in self time, unslowed: a line that reads large arrays (sampled: ``TRACE_MIN_BYTES`` or more) and the
    library frames under it are left out."""
    out = np.zeros(ctx.n)
    if "call_kind" not in ctx.events:
        return out
    kind = call_kinds(ctx)
    python = ctx.is_host & (ctx.cat == "python")
    heavy = np.zeros(ctx.n, dtype=bool)
    la = line_arrays(ctx)
    for rows, nbytes in zip(la["rows"], la["in_bytes"]) if len(la) else ():
        if nbytes >= TRACE_MIN_BYTES:
            heavy[rows] = True
    if heavy.any():
        # the line's own operators, and library frames under it that did C work in their own time (pandas'
        # numpy work on the line's arrays); library frames whose own time is short ran bytecode (groupby's
        # per-group machinery), and the user's functions called from it run their own
        from .timeline import ancestor_flag
        worked = ctx.self_ns >= HEAVY_FRAME_NS
        python &= ~(heavy | (ancestor_flag(ctx, heavy) & ~user_frames(ctx) & worked))
    frames = python & (kind["py"] | kind["line"])
    own = ctx.self_ns.astype(float) * frames
    total = float(own.sum())
    # the records' cost lies in the frames' self time, but for the part inside the C calls' own spans
    in_c = min(_figure(ctx.meta, "python", "ns_in_c_span"), 2.0 * python_record_ns(ctx))
    bytecode = total - float(charged[python].sum()) + in_c * float(np.count_nonzero(python & kind["c"]))
    if total <= 0 or bytecode <= 0:
        return out
    return own * (bytecode / total) * (1.0 - 1.0 / slowdown)


def describe(ctx, removed_ns: float) -> dict:
    """Evidence: what was taken out of the profiled time, and why."""
    out = {"recording_cost_ns": float(removed_ns), "wall_without_recording_ns": float(ctx.wall - removed_ns)}
    k, used = _figure(ctx.meta, "python", "ns_per_record"), python_record_ns(ctx)
    if k and used < k:
        out["python_ns_per_record_used"] = used   # held to the run's own call-free lines
    if torch_event_ns(ctx) < _torch_figure(ctx.meta):
        out["torch_ns_per_event_used"] = torch_event_ns(ctx)   # held to the run's own dense ops
    for collector, key in (("torch", "ns_per_event"), ("torch", "in_run_ns_per_event"), ("torch", "ns_per_memory_event"),
                           ("python", "ns_per_record"), ("python", "bytecode_slowdown")):
        k = _figure(ctx.meta, collector, key)
        if k:
            out[f"{collector}_{key}"] = k
    return out
