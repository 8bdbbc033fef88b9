"""The repeated-calls rule: a function called again with arguments it already had, returning what it
returned then: the work redone (a missing or too small cache, an archive re-read per lookup, a
loop-invariant call left inside the loop, a recursion without memoisation).

Reasoned from the work: the Python tracer fingerprints the arguments and the result of every call of
``call_repeats.MIN_NS`` or more (collect/call_repeats.py) and lists the calls whose arguments had been seen
with the same result before; a function whose same arguments ever gave another result is never listed.
Gain: the repeated calls removed (a cache returns their result), replayed on the timeline; the first call
of each distinct argument set keeps its time. Where repeated calls of one function lie inside repeated
calls of another, the outer is the one reported (its repeats hold the inner's). Only calls made from the
user's own code count (a library repeating calls inside its own work is not the user's to cache).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import formatting as F
from ..python_spans import call_kinds, places, user_frames
from ..timeline import ancestor_flag
from .base import METHOD_CP, make_finding, pct, replay_gain


def _records(ctx) -> list[dict]:
    got = ((ctx.meta.get("collectors") or {}).get("python") or {}).get("call_repeats") or {}
    return [f for f in got.get("functions") or [] if f.get("repeats") and f.get("pure", True)]


def _rows(ctx, rec: dict, is_call: np.ndarray, codes: np.ndarray, index: pd.Index) -> np.ndarray | None:
    """The event rows of a function's repeated calls (None when its spans are not all in the profile)."""
    k = index.get_indexer([rec["file_line"]])[0]
    rows = np.flatnonzero(is_call & (codes == k)) if k >= 0 else np.empty(0, dtype=np.int64)
    if len(rows) != rec["spans"]:
        return None
    rows = rows[np.argsort(ctx.start[rows], kind="stable")]
    ords = np.asarray(rec["ordinals"], dtype=np.int64)
    return rows[ords[ords < len(rows)]]


def repeated_calls(ctx, th):
    """Functions whose calls of ``call_repeats.MIN_NS`` or more repeated an earlier call's arguments and
    result, ``min_repeats`` times or more. Gain: those calls removed, replayed."""
    recs = _records(ctx)
    if not recs or not ctx.n or "file_line" not in ctx.events or "call_kind" not in ctx.events:
        return
    codes, index = places(ctx)
    # only calls the user's code makes: a library's repeated calls inside its own work are not the user's to cache
    user = user_frames(ctx)
    found = []
    for rec in recs:
        rows = _rows(ctx, rec, call_kinds(ctx)["py"], codes, index)
        if rows is None:
            continue
        parent = ctx.rows_of_parent[rows]
        rows = rows[(parent >= 0) & user[np.maximum(parent, 0)]]
        if len(rows) < th["min_repeats"]:
            continue
        found.append((rec, rows, float(ctx.dur[rows].sum())))
    if not found:
        return
    # the outer function where one's repeated calls hold another's
    found.sort(key=lambda x: -x[2])
    kept, covered = [], np.zeros(ctx.n, dtype=bool)
    for rec, rows, t in found:
        if covered[rows].all():
            continue
        mask = np.zeros(ctx.n, dtype=bool)
        mask[rows] = True
        covered |= ancestor_flag(ctx, mask)
        kept.append((rec, rows, t))
    for rec, rows, t in kept:
        mask = np.zeros(ctx.n, dtype=bool)
        mask[rows] = True
        gain, conf = replay_gain(ctx, seg_factor=ctx.replay.seg_factor_for(mask, 0.0))
        gpct = pct(gain, ctx.wall_without_recording)
        if gpct < th["min_pct"]:
            continue
        name = str(ctx.names(rows[:1])[0])   # module-qualified, as the profile names the function
        looked, distinct = rec["looked"], rec["distinct"]
        title = (f"{name}() recomputed results it had already returned: {len(rows):,} of {looked:,} long calls "
                 f"repeated one of {distinct:,} distinct argument sets, {F.ns(t)}; a cache saves {gpct:.0f}% of "
                 "end-to-end")
        sugg = ("Compute each distinct result once: memoise the function (functools.cache, or an lru_cache whose "
                "maxsize holds the working set: the default 128 evicts entries that are needed again), hoist a "
                "call whose arguments do not change out of the loop, or load/parse a file once and keep the "
                "object (e.g. read an .npz member into an array once, not once per lookup).")
        ev = {"function": name, "file_line": rec["file_line"], "calls": rec["spans"], "long_calls_fingerprinted": looked,
              "distinct_argument_sets": distinct, "repeated_calls": int(len(rows)), "repeated_time_ns": t,
              "note": ("calls of collect/call_repeats.MIN_NS or more are fingerprinted (arguments and result); a "
                       "call is repeated when its arguments were seen before with the same result")}
        yield make_finding(ctx, "repeated_calls", "redundant", title, evidence=ev, ops=[name], suggestion=sugg,
                           gain_ns=gain, method=METHOD_CP + " (the repeated calls removed)", confidence=conf * 0.8,
                           rows=rows, affected_ns=t)
