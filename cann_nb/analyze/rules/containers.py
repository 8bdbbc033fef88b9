"""List operations that cost linear time where a cheaper structure exists: ``queue.pop(0)``,
``lst.insert(0, x)``, ``lst.remove(x)``, ``lst.index(x)`` in a loop (a BFS queue in a list, a sliding
window, a "seen" list), and a list re-sorted after each change (``events.append(e); events.sort()``: a
priority queue kept in a list). Each call moves, scans or compares all the list's elements, so a loop over
n items does ~n^2/2 element moves where a deque, a set or a heap does one or log n.

Seen from the work, not from arguments (the Python tracer does not record them): such a call should cost
what any trivial C call of the same profile costs (``len``, ``list.append``: the profile's floor, the
recorder's own cost included; without such calls, the recorder's measured cost of one call); calls whose
typical time is several times that floor are moving or scanning elements. Gain: those calls brought down to the floor (``collections.deque`` popleft /
appendleft, a set or dict for membership and removal), replayed.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ... import formatting as F
from .arrays import where
from .base import METHOD_CP, make_finding, pct, replay_gain
from .host import LINE_RE

LINEAR_LIST_RE = re.compile(r"^builtins\.(list\.(pop|insert|remove|index|count|sort)|sorted)$")
FLOOR_RE = re.compile(r"^builtins\.(len|list\.append|isinstance|id)$")


def linear_list_ops(ctx, th):
    """``list.pop(0)`` / ``insert(0, x)`` / ``remove`` / ``index`` / ``sort`` (and ``sorted``) called
    ``min_calls`` times or more at a typical cost of several times the profile's trivial C call:
    linear-time list operations in a loop. Gain: those calls at the floor."""
    if not ctx.n:
        return
    host = ctx.is_host & (ctx.dur > 0)
    rows = np.flatnonzero(ctx.flag(LINEAR_LIST_RE) & host)
    if len(rows) < th["min_calls"]:
        return
    ref = np.flatnonzero(ctx.flag(FLOOR_RE) & host)
    if len(ref) >= th["min_calls"]:
        floor, floor_how = float(np.median(ctx.dur[ref])), "median of len/list.append/isinstance/id calls here"
    else:   # no trivial calls to compare with: what recording one call costs (collect/overhead.py)
        floor, floor_how = float(np.median(ctx.recording_cost[rows])), "the recorder's measured cost of one call"
    if floor <= 0:
        return
    # a call's own time: sorted(generator) or sort(key=f) also runs Python code inside the call
    own = ctx.self_ns.astype(float)
    codes = ctx.name_code[rows]
    by_name = pd.Series(own[rows]).groupby(codes)
    typical, calls = by_name.median(), by_name.size()
    slow_codes = typical.index[(typical.to_numpy() >= th["min_ratio"] * floor)
                               & (calls.to_numpy() >= th["min_calls"])].to_numpy()
    rows = rows[np.isin(codes, slow_codes)]
    if not len(rows):
        return
    d = own[rows]
    # in the run without the profiler: each call's time less its recording, against a trivial call's
    net = np.clip(d - ctx.recording_cost[rows], 0, None)
    floor_net = float(np.median(np.clip(ctx.dur[ref] - ctx.recording_cost[ref], 0, None))) \
        if len(ref) >= th["min_calls"] else 0.0
    excess = float(np.clip(net - floor_net, 0, None).sum())
    if pct(excess, ctx.wall_without_recording) < th["min_pct"]:
        return
    mask = np.zeros(ctx.n, dtype=bool)
    mask[rows] = True
    total = float(d.sum())
    factor = max(0.0, 1.0 - excess / max(float(net.sum()), 1.0))
    gain, conf = replay_gain(ctx, seg_factor=ctx.replay.seg_factor_for(mask, factor))
    names = pd.Series(ctx.names(rows).astype(str)).value_counts()
    top = str(names.index[0])
    short = top.replace("builtins.", "")
    med = float(np.median(d))
    title = (f"{short} called {len(rows):,} times at {F.ns(med)} each (median), {med / floor:.0f}x a trivial call "
             f"here ({F.ns(floor)}): list operations that pass over the whole list, {F.ns(total)} ({pct(total, ctx.wall):.0f}% of "
             "end-to-end)")
    sugg = ("Each call shifts, scans or sorts the whole list. Use collections.deque for a queue (popleft/"
            "appendleft instead of pop(0)/insert(0, x)), a set or dict for membership, removal and lookup "
            "instead of remove/index/count on a list, and a heap (heapq.heappush/heappop) or bisect.insort "
            "instead of re-sorting a list after each insertion.")
    evidence = {"calls": int(len(rows)), "time_ns": total, "median_call_ns": med, "floor_call_ns": floor,
                "floor_from": floor_how,
                "excess_ns": excess, "by_name": {str(k): int(v) for k, v in names.items()}}
    yield make_finding(ctx, "linear_list_ops", "hotspot", title, evidence=evidence, ops=list(names.index[:3]),
                       suggestion=sugg, gain_ns=gain, method=METHOD_CP + " (the calls at a trivial call's cost)",
                       confidence=conf * 0.6, rows=rows, affected_ns=total)


# sum(list_of_lists, []) / sum(tuples, ()): the start value makes sum() concatenate
SUM_CONCAT_RE = re.compile(r"\bsum\((?:[^()]|\([^()]*\))*,\s*(?:start\s*=\s*)?(\[\s*\]|\(\s*\)|list\(\)|tuple\(\))\s*\)")


def sum_concatenation(ctx, th):
    """``sum(list_of_lists, [])`` (or tuples with ``()``): ``sum`` adds the sequences one by one, each
    addition copying all gathered so far: n sequences cost ~n^2/2 sequence copies where one pass
    (``itertools.chain.from_iterable``, a comprehension) copies each element once. Seen from the line's
    source (the Python tracer's line spans) and the ``sum`` call's time inside it. Gain: that call removed,
    replayed (one pass over the result is left; it is n/2 times cheaper than what sum does, negligible
    for the dozens of sequences that make the cost show)."""
    if not ctx.n or "call_kind" not in ctx.events:
        return
    rows = np.flatnonzero(ctx.flag(re.compile(r"^builtins\.sum$")) & ctx.is_host)
    if not len(rows):
        return
    parent = ctx.rows_of_parent[rows]
    ok = parent >= 0
    rows, parent = rows[ok], parent[ok]
    # per distinct line, not per call (sum(row) in a loop makes a call per row)
    line_codes = np.unique(ctx.name_code[parent])
    good = [c for c in line_codes.tolist() if LINE_RE.search(str(ctx.name_cats[c]))
            and SUM_CONCAT_RE.search(str(ctx.name_cats[c]).split(": ", 1)[-1])]
    hit = np.isin(ctx.name_code[parent], good)
    rows, parent = rows[hit], parent[hit]
    if not len(rows):
        return
    t = float(ctx.dur[rows].sum())
    mask = np.zeros(ctx.n, dtype=bool)
    mask[rows] = True
    gain, conf = replay_gain(ctx, seg_factor=ctx.replay.seg_factor_for(mask, 0.0))
    gpct = pct(gain, ctx.wall_without_recording)
    if gpct < th["min_pct"]:
        return
    src = str(ctx.names(parent[:1])[0])
    place = str(ctx.events["file_line"].iloc[parent[0]]) if "file_line" in ctx.events else ""
    title = (f"Line {where(place) if ':' in place else src} ({src.split(': ', 1)[-1]}) concatenates sequences with sum(): each addition copies all "
             f"gathered so far (quadratic), {F.ns(t)} in {len(rows):,} call(s), {gpct:.0f}% of end-to-end")
    sugg = ("Flatten in one pass: list(itertools.chain.from_iterable(seqs)) or [x for s in seqs for x in s]; "
            "for strings ''.join(parts); for arrays np.concatenate(arrays).")
    yield make_finding(ctx, "sum_concatenation", "redundant", title,
                       evidence={"calls": int(len(rows)), "time_ns": t, "line": src},
                       ops=["builtins.sum"], suggestion=sugg, gain_ns=gain,
                       method=METHOD_CP + " (the sum call removed; the one pass left is negligible)",
                       confidence=conf * 0.7, rows=rows, affected_ns=t)
