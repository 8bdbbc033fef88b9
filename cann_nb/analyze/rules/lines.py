"""The hot-line rule: one line of the user's code where most of the run goes, spent in what it calls.

Under the Python tracer a library call's time is spread over the library's own functions (pandas'
groupby machinery, a parser's inner loops), none of which dominates by self time, so the op-level
``hotspot`` rule sees nothing while one of the user's lines holds most of the run. The line is where the
user can act (its arguments, options, data sizes). A line is reported when its spans cover ``min_pct`` of
the run, a typical run of it is long (a call doing work, not a loop's short statement) and at least
``min_library_share`` of that time is not the user's own code under it (lines, functions): it is library or
native work. No gain estimate: what to change depends on the call.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ... import formatting as F
from ..python_spans import user_frames
from ..timeline import ancestor_flag, nearest_ancestor
from .arrays import where
from .base import covered_ns, make_finding, pct
from .host import LINE_RE


def _user_time_below(ctx, lines: np.ndarray) -> np.ndarray:
    """Per line span: the time of the user's code directly under it (its user line spans, and calls of the
    user's functions, whose nearest enclosing span of the user's code is that line)."""
    user = user_frames(ctx).copy()
    user[lines] = True
    rows = np.flatnonzero(user)
    owner = nearest_ancestor(ctx, rows, user)
    is_line = np.zeros(ctx.n, dtype=bool)
    is_line[lines] = True
    out = np.zeros(ctx.n)
    ok = (owner >= 0) & is_line[np.maximum(owner, 0)]
    np.add.at(out, owner[ok], ctx.dur[rows[ok]].astype(float))
    return out


IMPORT_RE = re.compile(r"^\s*(import\s|from\s+\S+\s+import\s)")


def _source(label: str) -> str:
    """The code of a line span's label (``file.py:7 line 7: code``)."""
    return label.split(": ", 1)[1] if ": " in label else label


def hot_line(ctx, th):
    """The user's lines (Python tracer line spans) covering ``min_pct`` of the run or more, whose typical run
    takes ``min_run_ns`` or more, and of whose time ``min_library_share`` or more lies outside the user's own
    code under them; the ``top`` largest. No estimate."""
    if "file_line" not in ctx.events or not ctx.n:
        return
    lines = np.flatnonzero(ctx.flag(LINE_RE) & ctx.is_host)
    if not len(lines):
        return
    below = _user_time_below(ctx, lines)
    g = pd.DataFrame({"code": ctx.name_code[lines], "dur": ctx.dur[lines].astype(float), "below": below[lines]})
    per = g.groupby("code").agg(total=("dur", "sum"), below=("below", "sum"), typical=("dur", "median"))
    # a line of many short runs is interpreter work (python_loop's), not a call doing work
    per = per[per["typical"] >= th["min_run_ns"]]
    per["library"] = per["total"] - per["below"]
    per = per[per["library"] >= th["min_library_share"] * per["total"]]
    per = per[per["library"] >= th["min_pct"] / 100.0 * ctx.wall].sort_values("library", ascending=False)
    # an import runs the library's module code once per process: no call to make cheaper
    per = per[[not IMPORT_RE.match(_source(str(ctx.name_cats[c]))) for c in per.index]]
    for code, r in per.head(th["top"]).iterrows():
        rows = lines[ctx.name_code[lines] == code]
        t = covered_ns(ctx, rows)
        share = pct(t, ctx.wall)
        if share < th["min_pct"]:
            continue
        mask = np.zeros(ctx.n, dtype=bool)
        mask[rows] = True
        inside = np.flatnonzero(ancestor_flag(ctx, mask) & ~mask)
        callees = (pd.Series(ctx.self_ns[inside].astype(float)).groupby(ctx.name_code[inside]).sum()
                   .sort_values(ascending=False).head(3)) if len(inside) else pd.Series(dtype=float)
        names = [str(ctx.name_cats[c]) for c in callees.index]
        label = str(ctx.names(rows[:1])[0])
        source = _source(label)
        file_line = str(ctx.events["file_line"].iloc[rows[0]])
        lib = 100.0 * float(r["library"]) / max(float(r["total"]), 1.0)
        title = (f"Line {where(file_line)} ({source}) takes {F.ns(t)}, {share:.0f}% of end-to-end, "
                 f"{lib:.0f}% of it in the library code and native work it calls"
                 + (f" (most self time: {', '.join(names)})" if names else ""))
        yield make_finding(
            ctx, "hot_line", "hotspot", title,
            evidence={"line": file_line, "runs": int(len(rows)), "time_ns": t, "library_share": round(lib / 100.0, 3),
                      "top_callees": [{"name": n, "self_ns": float(v)} for n, v in zip(names, callees.to_numpy())]},
            ops=[label], suggestion=("Most of the run is this one call: check what it is asked to do (the options "
                                     "it is given, the sizes of its inputs, whether its result is needed in full or "
                                     "every time) and whether the library has a faster path for it."),
            rows=rows, affected_ns=t)
