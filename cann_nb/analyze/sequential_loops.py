"""The time of the user's loops that carries state from pass to pass (collect/loop_facts.py): what no
vectorisation of the loop can remove.

Under the Python tracer (meta ``collectors.python.loops``) a dependent line's spans (with everything they
call) stay; the calls on them that read no carried state (``hoistable``: random draws, conversions of
constants) can leave the loop and are not counted as kept. Under torch.profiler (meta ``call_sites``: the
user stacks sampled through the run, and the loops of their files) the share of the samples whose stack
passes through a dependent line is the share of the time that stays.
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


def sampled_share(ctx, innermost: tuple | None = None) -> tuple[float, dict]:
    """(share of the call-site samples, taken while ops were recorded when there are such, whose user stack
    passes through a dependent line of a loop carrying state; the evidence) over all samples, or over those
    whose innermost frame is ``innermost`` (file, line). (0, {}) without stacks or such loops."""
    cs = ctx.meta.get("call_sites")
    if not isinstance(cs, dict):
        return 0.0, {}
    loops = [lp for lp in cs.get("loops") or [] if lp.get("dependent")]
    stacks = cs.get("stacks") or []
    if not loops or not stacks:
        return 0.0, {}
    dependent = {f"{lp['file']}:{x}" for lp in loops for x in lp["dependent"]}
    use = "recorded_samples" if sum(int(st.get("recorded_samples") or 0) for st in stacks) else "samples"
    inner = f"{innermost[0]}:{innermost[1]}" if innermost else None
    total = seq = 0
    hit: set = set()
    for st in stacks:
        frames = st.get("frames") or []
        if inner is not None and (not frames or frames[0] != inner):
            continue
        n = int(st.get(use) or 0)
        total += n
        deps = [f for f in frames if f in dependent]
        if deps:
            seq += n
            hit.update(deps)
    if not total or not seq:
        return 0.0, {}
    share = seq / total
    found = [lp for lp in loops if any(h.rpartition(":")[0] == lp["file"] and lp["line"] <= int(h.rpartition(":")[2])
                                       <= lp["end"] for h in hit)]
    return share, {"sampled_share": share, "samples": total, "dependent_lines": sorted(hit)[:10],
                   "loops": [{"line": f"{lp['file']}:{lp['line']}", "carried": lp["carried"],
                              "hoistable": sorted({n for v in lp["hoistable"].values() for n in v})}
                             for lp in found[:3]]}
