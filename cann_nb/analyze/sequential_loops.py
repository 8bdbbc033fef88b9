"""The time of the user's loops that carries state from pass to pass (collect/loop_facts.py, meta
``loops``), joined to the Python tracer's line spans: what no vectorisation of the loop can remove.

A dependent line's spans (with everything they call) stay; the calls on them that read no carried state
(``hoistable``: random draws, conversions of constants) can leave the loop and are not counted as kept.
"""

from __future__ import annotations

import numpy as np

from .python_spans import call_kinds, places
from .timeline import ancestor_flag


def sequential_lines(ctx) -> dict:
    """``{"dependent": bool per row (line spans of dependent statements), "hoistable": bool per row (calls
    under them that read no carried state), "loops": the meta's loop records}``; all False without them."""
    return ctx.memo("sequential_lines", lambda: _sequential_lines(ctx))


def _sequential_lines(ctx) -> dict:
    loops = ((ctx.meta.get("collectors") or {}).get("python") or {}).get("loops") or []
    dep = np.zeros(ctx.n, dtype=bool)
    hoist = np.zeros(ctx.n, dtype=bool)
    if not loops or not ctx.n:
        return {"dependent": dep, "hoistable": hoist, "loops": []}
    codes, index = places(ctx)
    kind = call_kinds(ctx)
    pos = {p: i for i, p in enumerate(index)}
    dep_codes, hoist_names = [], {}
    for lp in loops:
        for line in lp.get("dependent") or []:
            c = pos.get(f"{lp['file']}:{line}")
            if c is not None:
                dep_codes.append(c)
                for name in (lp.get("hoistable") or {}).get(str(line), []):
                    hoist_names.setdefault(c, set()).add(name)
    if not dep_codes:
        return {"dependent": dep, "hoistable": hoist, "loops": loops}
    dep = kind["line"] & np.isin(codes, dep_codes)
    if hoist_names:
        # calls (C or Python) whose name ends with a hoistable call's name, directly under a dependent line
        par = ctx.rows_of_parent
        calls = np.flatnonzero((kind["c"] | kind["py"]) & (par >= 0))
        calls = calls[dep[par[calls]]]
        if len(calls):
            last = np.array([n.rsplit(".", 1)[-1] for n in ctx.names(calls)], dtype=object)
            owner = codes[par[calls]]
            ok = np.array([name in hoist_names.get(int(o), ()) for name, o in zip(last, owner)], dtype=bool)
            hoist[calls[ok]] = True
    return {"dependent": dep, "hoistable": hoist, "loops": loops}


def kept_ns(ctx, starts: np.ndarray, ends: np.ndarray) -> tuple[float, dict]:
    """ns of the windows' time spent on dependent lines, less the hoistable calls under them, and the
    evidence: which loop, what it carries, what could be hoisted. (0, {}) when no loop there carries state."""
    sl = sequential_lines(ctx)
    dep = sl["dependent"]
    if not dep.any() or not len(starts):
        return 0.0, {}
    rows = np.flatnonzero(dep)
    # the outermost dependent spans (a dependent line inside a function a dependent line calls is in it)
    par = ctx.rows_of_parent[rows]
    rows = rows[~((par >= 0) & ancestor_flag(ctx, dep)[np.maximum(par, 0)])]
    order = np.argsort(starts)
    s, e = starts[order], ends[order]
    k = np.searchsorted(s, ctx.start[rows], side="right") - 1
    inside = (k >= 0) & (ctx.start[rows] < e[np.maximum(k, 0)])
    rows = rows[inside]
    if not len(rows):
        return 0.0, {}
    hoisted = np.flatnonzero(sl["hoistable"])
    under = np.isin(ctx.rows_of_parent[hoisted], rows)
    hoist_ns = float(ctx.dur[hoisted[under]].sum())
    kept = max(float(ctx.dur[rows].sum()) - hoist_ns, 0.0)
    codes, index = places(ctx)
    lines = sorted({str(index[c]) for c in np.unique(codes[rows]) if c >= 0})
    hit = []
    for x in lines:
        file, _, line = x.rpartition(":")
        hit += [lp for lp in sl["loops"] if lp["file"] == file and lp["line"] <= int(line) <= lp["end"]
                and lp not in hit]
    return kept, {"dependent_lines": lines[:10], "kept_ns": kept, "hoistable_ns": hoist_ns,
                  "loops": [{"line": f"{lp['file']}:{lp['line']}", "carried": lp["carried"],
                             "hoistable": sorted({n for v in lp["hoistable"].values() for n in v})}
                            for lp in hit[:3]]}
