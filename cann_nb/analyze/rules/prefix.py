"""The growing-prefix rule: a step that recomputes everything so far instead of only what is new (a
decode loop without a KV cache runs the whole sequence through the model for every new token; a
running statistic recomputed over ``x[:i]`` at every ``i``).

Reasoned from the work, in the recorded shapes: the same op (name, thread, and every other dim fixed)
is called in a row with the rows of its *first* input growing by the same step each call (L, L + s,
L + 2s, ...): each call processes the whole prefix again, where an incremental computation (cached keys
and values, a running state) processes the s new rows. Attention over a cache grown by one token is not
flagged: its first input (the query) keeps its size; only its keys grow, and reading them is the work.
Gain: each call after the first of a run scaled to s / L, replayed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import formatting as F
from .. import classify as C
from ..timeline import outermost
from .base import METHOD_CP, covered_ns, make_finding, pct
from .compute import _factor_gain
from .growth import JOIN_RE
from .redundant import _shape_of, _table

I64 = np.int64


def _first_dims(ctx) -> tuple[np.ndarray, list]:
    """(shapes code per row, the first tensor input's dims per code; None where it has none)."""
    codes, parsed = _table(ctx, "shapes")
    firsts = []
    for v in parsed:
        first = next((s for s in (_shape_of(x) for x in v) if s is not None and len(s) >= 2), None)
        firsts.append(first)
    return codes, firsts


def _level_runs(size: np.ndarray, min_levels: int) -> list[tuple[int, int, int]]:
    """Runs of calls whose size, taken level by level (consecutive equal sizes are one level: the q, k and
    v projections of one step), grows by one constant step over ``min_levels`` levels or more:
    [(first call, last call + 1, step)]."""
    starts = np.flatnonzero(np.r_[True, size[1:] != size[:-1]])
    levels = size[starts]
    d = np.diff(levels)
    runs, i = [], 0
    while i < len(d):
        if d[i] <= 0:
            i += 1
            continue
        j = i
        while j + 1 < len(d) and d[j + 1] == d[i]:
            j += 1
        if j - i + 2 >= min_levels:
            end = starts[j + 2] if j + 2 < len(starts) else len(size)
            runs.append((int(starts[i]), int(end), int(d[i])))
        i = j + 1
    return runs


def growing_prefix(ctx, th):
    """Ops whose first input grows by a constant step along one axis over ``min_calls`` steps or more (all
    its other dims fixed): the prefix recomputed at every step. Gain: each call after a run's first step
    at step / size of its time (the new rows only), replayed."""
    if "shapes" not in ctx.events:
        return
    codes, firsts = _first_dims(ctx)
    usable = np.array([f is not None for f in firsts] + [False], dtype=bool)
    is_op = ctx.is_host & (ctx.role == C.R["op"]) & (ctx.dur > 0) & ~ctx.flag(JOIN_RE)
    rows = np.flatnonzero(is_op & usable[np.where(codes >= 0, codes, len(firsts))])
    if not len(rows):
        return
    factor = np.ones(ctx.n)
    flagged, shown = [], []
    for axis in range(max(len(firsts[c]) for c in np.unique(codes[rows]))):
        # per shapes category: the first input's dims without this axis (the group), and its size on it
        masked = pd.factorize(pd.Series([str(f[:axis] + f[axis + 1:]) if f is not None and axis < len(f) else ""
                                         for f in firsts]))[0]
        sizes = np.array([f[axis] if f is not None and axis < len(f) else -1 for f in firsts], dtype=I64)
        sel = rows[sizes[codes[rows]] >= 0]
        if not len(sel):
            continue
        key = (ctx.name_code[sel].astype(I64) * (int(masked.max()) + 1) + masked[codes[sel]]) \
            * (len(ctx.track_cats) + 1) + ctx.track_code[sel]
        order = np.lexsort((ctx.start[sel], key))
        sel, key = sel[order], key[order]
        for part in np.split(np.arange(len(sel)), np.flatnonzero(np.diff(key)) + 1):
            r = sel[part]
            size = sizes[codes[r]]
            for a, b, step in _level_runs(size, th["min_calls"]):
                run, rs = r[a:b], size[a:b].astype(float)
                later = rs > rs[0]
                factor[run[later]] = np.minimum(1.0, step / rs[later])
                flagged.append(run)
                shown.append({"op": str(ctx.names(run[:1])[0]), "calls": int(len(run)), "axis": axis,
                              "step": step, "first_rows": int(rs[0]), "last_rows": int(rs[-1]),
                              "time_ns": float(ctx.dur[run].sum()), "row": int(run[0])})
    if not flagged:
        return
    rows = outermost(ctx, np.concatenate(flagged))
    outer = set(rows.tolist())
    shown = [g for g in shown if g["row"] in outer]   # the ops the user's code called, not their insides
    t = covered_ns(ctx, rows)
    if not shown or pct(t, ctx.wall) < th["min_pct"]:
        return
    gain, conf = _factor_gain(ctx, rows, factor)
    if pct(gain, ctx.wall_without_recording) < th["min_pct"]:
        return
    top = sorted(shown, key=lambda g: -g["time_ns"])
    g = top[0]
    calls = sum(x["calls"] for x in shown)
    yield make_finding(
        ctx, "growing_prefix", "redundant",
        f"{g['op']} and {len(shown) - 1} other op group(s) recompute a growing prefix: {calls:,} calls on inputs "
        f"growing by {g['step']} row(s) per step ({g['first_rows']:,} -> {g['last_rows']:,}), each processing all "
        f"rows so far ({F.ns(t)}, {pct(t, ctx.wall):.0f}% of end-to-end)",
        evidence={"runs": [{k: v for k, v in x.items() if k != "row"} for x in top[:10]],
                  "time_ns": float(sum(x["time_ns"] for x in shown)),
                  "note": "rows: the first input's size along the growing axis"},
        ops=sorted({x["op"] for x in shown})[:10],
        suggestion=("Process only what is new at each step and keep the rest: for autoregressive decoding, a KV cache "
                    "(use_cache=True / past_key_values in transformers, a static cache written at each position) "
                    "so each step runs the model on the new token only; for a statistic over x[:i], a running "
                    "(cumulative) update."),
        gain_ns=gain, method=METHOD_CP + " (each call after a run's first step scaled to step / rows: the new rows only)",
        confidence=conf * 0.6, rows=rows, affected_ns=t)
