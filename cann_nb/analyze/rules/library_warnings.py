"""``library_warning``: a library said, with a warning, that the user's line takes a slow path.

pandas' ``PerformanceWarning``, scipy's ``SparseEfficiencyWarning`` and warnings whose text says the call is
slow or inefficient name the cause and usually the fix; shown once per place while the loop runs on, they
are easy to scroll past. The run's warnings (collect/warnings_log.py, meta ``warnings``) are joined to the
time of the line they point at (the Python tracer's line spans): the line's executions are the slow path
taken again and again. Gain: an upper bound, the line's time (its executions without the warned call's
cost), said so in the evidence; without line spans (another collector) the finding has no estimate.
"""

from __future__ import annotations

import os
import re

import numpy as np

from ... import formatting as F
from ..python_spans import call_kinds, places
from .base import METHOD_CP, covered_ns, make_finding, pct
from .compute import _factor_gain

PERF_CATEGORY_RE = re.compile(r"Performance|Efficiency")
PERF_MESSAGE_RE = re.compile(r"\b(performance|slow|inefficien\w*|fragmented)\b", re.I)


def library_warning(ctx, th):
    """Performance warnings (category or text) pointing at a line of the user's code whose executions take
    ``min_pct`` of the run or more."""
    recs = [w for w in ctx.meta.get("warnings") or []
            if PERF_CATEGORY_RE.search(str(w.get("category", ""))) or PERF_MESSAGE_RE.search(str(w.get("message", "")))]
    if not recs or "file_line" not in ctx.events or "call_kind" not in ctx.events:
        return
    lines = call_kinds(ctx)["line"]
    codes, index = places(ctx)   # file_line as category codes: one integer compare per warning, no string per row

    def line_rows(place) -> np.ndarray:
        k = index.get_indexer([place])[0] if place else -1
        return np.flatnonzero(lines & (codes == k)) if k >= 0 else np.empty(0, dtype=np.int64)

    hits = []
    for w in recs:
        place = w["file_line"]
        rows = line_rows(place)
        if not len(rows) and w.get("caller"):   # a library's warning naming its own line: the user's line under it
            place = w["caller"]
            rows = line_rows(place)
        if len(rows):
            rows = rows[~np.isin(ctx.rows_of_parent[rows], rows)]   # a recursive line: its outer executions
            hits.append((dict(w, line=place), rows))
    if not hits:
        return
    rows = np.unique(np.concatenate([r for _, r in hits]))
    t = covered_ns(ctx, rows)
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    factor = np.ones(ctx.n)
    factor[rows] = 0.0
    gain, conf = _factor_gain(ctx, rows, factor)
    w0, r0 = max(hits, key=lambda h: float(ctx.dur[h[1]].sum()))
    path, _, line = w0["line"].rpartition(":")
    title = (f"{w0['category']} at {os.path.basename(path)}:{line}, whose {len(r0):,} execution(s) take "
             f"{F.ns(float(ctx.dur[r0].sum()))} ({pct(float(ctx.dur[r0].sum()), ctx.wall):.0f}% of end-to-end): "
             f"\"{w0['message'][:160]}\"")
    yield make_finding(
        ctx, "library_warning", "hotspot", title,
        evidence={"warnings": [dict(w, executions=int(len(r)), time_ns=float(ctx.dur[r].sum())) for w, r in hits],
                  "time_ns": int(t)},
        ops=[str(ctx.names(r[:1])[0]) for _, r in hits[:3]],
        suggestion=("Do what the warning says: the library is telling you it takes a slow path on every call from this "
                    "line (pandas: sort a MultiIndex once with sort_index() before .loc lookups; build a DataFrame's "
                    "columns in a dict and pd.concat(axis=1) once instead of inserting them one by one; scipy: build "
                    "sparse matrices in LIL/COO and convert once). Run with warnings shown ('python -W always') to see "
                    "every occurrence."),
        gain_ns=gain, method=METHOD_CP + " (upper bound: the warned lines' executions removed; the fixed call's own "
        "cost is not known)", confidence=conf * 0.4, rows=rows, affected_ns=t)
