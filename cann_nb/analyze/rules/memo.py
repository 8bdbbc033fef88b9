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

``repeated_library_calls`` reports the library's own expensive calls (``call_repeats.LIBRARY_MIN_NS`` or more)
redone on inputs they had, inside user calls that differ: a LIL matrix converted to CSR for every product, a
grouping or triangulation rebuilt for every column or field. Not the user's to cache, but theirs to build
once and pass in.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import formatting as F
from ..python_spans import call_kinds, places, user_frames
from ..timeline import ancestor_flag, nearest_ancestor
from .arrays import where
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


def _found(ctx, th, from_user: bool) -> list[tuple]:
    """(record, rows, time) per function whose repeated calls number ``min_repeats`` or more, counting only
    calls the user's code made (``from_user``) or only calls a library made inside its own work; where one
    function's repeated calls lie inside another's, the outer one only (its repeats hold the inner's).
    Once per analysis and threshold (both rules read the user's)."""
    return ctx.memo(("repeated_calls_found", from_user, th["min_repeats"]), lambda: _find(ctx, th, from_user))


def _find(ctx, th, from_user: bool) -> list[tuple]:
    recs = _records(ctx)
    if not recs or not ctx.n or "file_line" not in ctx.events or "call_kind" not in ctx.events:
        return []
    codes, index = places(ctx)
    user = user_frames(ctx)
    found = []
    for rec in recs:
        rows = _rows(ctx, rec, call_kinds(ctx)["py"], codes, index)
        if rows is None:
            continue
        parent = ctx.rows_of_parent[rows]
        by_user = (parent >= 0) & user[np.maximum(parent, 0)]
        rows = rows[by_user if from_user else (parent >= 0) & ~by_user]
        if len(rows) >= th["min_repeats"]:
            found.append((rec, rows, float(ctx.dur[rows].sum())))
    found.sort(key=lambda x: -x[2])
    kept, covered = [], np.zeros(ctx.n, dtype=bool)
    for rec, rows, t in found:
        if covered[rows].all():
            continue
        mask = np.zeros(ctx.n, dtype=bool)
        mask[rows] = True
        covered |= ancestor_flag(ctx, mask)
        kept.append((rec, rows, t))
    return kept


def _gain(ctx, rows) -> tuple[float, float]:
    mask = np.zeros(ctx.n, dtype=bool)
    mask[rows] = True
    return replay_gain(ctx, seg_factor=ctx.replay.seg_factor_for(mask, 0.0))


def repeated_calls(ctx, th):
    """Functions whose calls of ``call_repeats.MIN_NS`` or more, made from the user's code, repeated an earlier
    call's arguments and result, ``min_repeats`` times or more. Gain: those calls removed, replayed."""
    for rec, rows, t in _found(ctx, th, from_user=True):
        gain, conf = _gain(ctx, rows)
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


def _user_lines(ctx, rows: np.ndarray) -> pd.Series:
    """Time of ``rows`` per the user's line (or function) they ran under, the nearest user frame above each."""
    at = nearest_ancestor(ctx, rows, user_frames(ctx))
    ok = at >= 0
    codes, index = places(ctx)
    lines = np.asarray(index, dtype=object)[codes[at[ok]]]
    return pd.Series(ctx.dur[rows[ok]], index=lines).groupby(level=0).sum().sort_values(ascending=False)


def repeated_library_calls(ctx, th):
    """A library's own calls of ``call_repeats.LIBRARY_MIN_NS`` or more, inside the calls the user's code made,
    repeated with the arguments and result of an earlier one ``min_repeats`` times or more, on arguments that
    carry ``min_data_bytes`` of data or more (a LIL matrix converted to CSR again for every product, a
    triangulation or a factorisation rebuilt for every call on the same points or keys), outside the user's
    own repeated calls (repeated_calls reports those). Gain: those calls removed, replayed (the intermediate
    built once and passed in)."""
    user_rows = [rows for _, rows, _ in _found(ctx, th, from_user=True)]
    mine = np.zeros(ctx.n, dtype=bool)
    for rows in user_rows:
        mine[rows] = True
    mine |= ancestor_flag(ctx, mine)
    for rec, rows, t in _found(ctx, th, from_user=False):
        if rec.get("data_bytes", 0) < th["min_data_bytes"]:
            continue   # a step on small inputs (a dtype string, an option) is the library's to cache, not the user's
        rows = rows[~mine[rows]]
        if len(rows) < th["min_repeats"]:
            continue
        gain, conf = _gain(ctx, rows)
        gpct = pct(gain, ctx.wall_without_recording)
        if gpct < th["min_pct"]:
            continue
        t = float(ctx.dur[rows].sum())
        name = str(ctx.names(rows[:1])[0])
        lines = _user_lines(ctx, rows)
        at = ", ".join(where(str(k)) for k in lines.index[:3])
        title = (f"{name}() redid work on inputs it already had: {len(rows):,} of its {rec['looked']:,} long calls, "
                 f"made by the library inside calls from {at}, repeated one of {rec['distinct']:,} argument sets, "
                 f"{F.ns(t)}; building it once saves {gpct:.0f}% of end-to-end")
        sugg = ("The library rebuilds an intermediate on every call from the same inputs: build it once and reuse "
                "it. Convert a sparse matrix once to the format its products need (A = A.tocsr() after editing in "
                "LIL/DOK; LIL, DOK and COO convert on every product), keep one GroupBy object, triangulation "
                "(scipy.spatial.Delaunay with LinearNDInterpolator) or factorisation and pass it in, or hoist the "
                "call whose inputs do not change out of the loop.")
        ev = {"function": name, "file_line": rec["file_line"], "calls": rec["spans"],
              "long_calls_fingerprinted": rec["looked"], "distinct_argument_sets": rec["distinct"],
              "repeated_calls": int(len(rows)), "repeated_time_ns": t,
              "user_lines": [{"line": str(k), "time_ns": float(v)} for k, v in lines.head(5).items()],
              "note": ("a library's calls of collect/call_repeats.LIBRARY_MIN_NS or more are fingerprinted "
                       "(arguments by identity, the result by content); a call is repeated when its arguments "
                       "were seen before with the same result")}
        yield make_finding(ctx, "repeated_library_calls", "redundant", title, evidence=ev, ops=[name],
                           suggestion=sugg, gain_ns=gain, method=METHOD_CP + " (the repeated calls removed)",
                           confidence=conf * 0.7, rows=rows, affected_ns=t)
