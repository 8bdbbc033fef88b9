"""The time of the user's loops that carries state from pass to pass (collect/loop_facts.py): what no
vectorisation of the loop can remove.

Work belongs to the innermost loop of the user's code it runs in: the loop around its own line, else the
loop around the line that called its function, and so on up the stack. When that loop carries state and
the line is one of its dependent lines, the work stays a loop (a step of a recurrence, a Markov chain, a
training step); when the loop's passes are independent (a per-parameter update inside a training step),
it can be vectorised within its pass, whatever loops enclose it.

Under the Python tracer (meta ``collectors.python.loops``) this is decided per line span: kept spans are
the outermost spans so decided, less the calls on them that read no carried state (``hoistable``: random
draws, conversions of constants), which can leave the loop. Under torch.profiler (meta ``call_sites``: the
user stacks sampled through the run, and the loops of their files) the share of the samples so decided is
the share of the time that stays.
"""

from __future__ import annotations

import numpy as np

from .python_spans import call_kinds, places
from .timeline import nearest_ancestor

KEPT, FREE, NONE = 1, 0, -1   # a place's decision: in a dependent line, in a free loop, in no loop


def _decide(loops: list[dict], place_list) -> np.ndarray:
    """Per place ("file:line"): KEPT, FREE or NONE, from the innermost loop whose lines hold it."""
    by_file: dict[str, list] = {}
    for lp in loops:
        if "line" in lp and "end" in lp:
            by_file.setdefault(lp["file"], []).append(lp)
    out = np.full(len(place_list), NONE, dtype=np.int8)
    for i, place in enumerate(place_list):
        file, _, line = str(place).rpartition(":")
        cands = by_file.get(file)
        if not cands or not line.isdigit():
            continue
        n = int(line)
        inside = [lp for lp in cands if lp["line"] <= n <= lp["end"]]
        if not inside:
            continue
        lp = min(inside, key=lambda lp: lp["end"] - lp["line"])   # the innermost
        out[i] = KEPT if lp["carried"] and n in set(lp.get("dependent") or ()) else FREE
    return out


def _evidence(loops: list[dict], kept_places) -> list[dict]:
    hit = []
    for place in kept_places:
        file, _, line = str(place).rpartition(":")
        for lp in loops:
            if lp.get("carried") and lp["file"] == file and lp["line"] <= int(line) <= lp["end"] and lp not in hit:
                hit.append(lp)
    return [{"line": f"{lp['file']}:{lp['line']}", "carried": lp["carried"],
             "hoistable": sorted({n for v in lp["hoistable"].values() for n in v})} for lp in hit[:3]]


def sequential_lines(ctx) -> dict:
    """``{"kept": bool per row (the outermost line spans whose innermost loop carries state and who are its
    dependent lines), "hoistable": bool per row (calls directly under them that read no carried state),
    "free": bool per row (the outermost line spans under a kept one that are in a loop of independent passes
    of their own: a per-element loop in a function the dependent line calls, vectorisable within each pass),
    "loops": the meta's loop records}``; all False without them."""
    return ctx.memo("sequential_lines", lambda: _sequential_lines(ctx))


def _sequential_lines(ctx) -> dict:
    loops = ((ctx.meta.get("collectors") or {}).get("python") or {}).get("loops") or []
    kept = np.zeros(ctx.n, dtype=bool)
    hoist = np.zeros(ctx.n, dtype=bool)
    free = np.zeros(ctx.n, dtype=bool)
    if not any(lp.get("carried") for lp in loops) or not ctx.n:
        return {"kept": kept, "hoistable": hoist, "free": free, "loops": loops}
    codes, index = places(ctx)
    kind = call_kinds(ctx)
    decision = _decide(loops, index)
    line = kind["line"] & (codes >= 0)
    rows = np.flatnonzero(line)
    own = decision[codes[rows]]
    decided = np.zeros(ctx.n, dtype=bool)
    decided[rows[own != NONE]] = True
    # a line in no loop takes the decision of the nearest line above it that is in one (its caller's)
    up = nearest_ancestor(ctx, rows, decided)
    final = np.where(own != NONE, own, np.where(up >= 0, decision[codes[np.maximum(up, 0)]], NONE))
    flag = np.zeros(ctx.n, dtype=bool)
    flag[rows[final == KEPT]] = True
    # the outermost such spans (the lines of a function a kept line calls are inside it)
    par = ctx.rows_of_parent
    cand = np.flatnonzero(flag)
    inner = nearest_ancestor(ctx, cand, flag) >= 0
    kept[cand[~inner]] = True
    # lines of a loop with independent passes, in a function a kept line calls: within each pass of the
    # sequential loop they run whole-array (as a nested loop of independent passes does, loop_facts)
    own_free = rows[own == FREE]
    own_free = own_free[nearest_ancestor(ctx, own_free, kept) >= 0]
    mark = np.zeros(ctx.n, dtype=bool)
    mark[own_free] = True
    free[own_free[nearest_ancestor(ctx, own_free, mark) < 0]] = True
    hoist_names: dict[int, set] = {}
    pos = {p: i for i, p in enumerate(index)}
    for lp in loops:
        for ln, names in (lp.get("hoistable") or {}).items():
            c = pos.get(f"{lp['file']}:{ln}")
            if c is not None:
                hoist_names.setdefault(c, set()).update(names)
    if hoist_names:
        # calls (C or Python) directly under a kept line whose name ends with a hoistable call's name
        calls = np.flatnonzero((kind["c"] | kind["py"]) & (par >= 0))
        calls = calls[kept[par[calls]]]
        if len(calls):
            last = [n.rsplit(".", 1)[-1] for n in ctx.names(calls)]
            owner = codes[par[calls]]
            ok = np.array([name in hoist_names.get(int(o), ()) for name, o in zip(last, owner)], dtype=bool)
            hoist[calls[ok]] = True
    return {"kept": kept, "hoistable": hoist, "free": free, "loops": loops}


def kept_ns(ctx, starts: np.ndarray, ends: np.ndarray) -> tuple[float, dict]:
    """ns of the windows' time spent in kept line spans, less the hoistable calls under them, and the
    evidence: which loop, what it carries, what could be hoisted. (0, {}) when no such time is there."""
    sl = sequential_lines(ctx)
    if not sl["kept"].any() or not len(starts):
        return 0.0, {}
    rows = np.flatnonzero(sl["kept"])
    order = np.argsort(starts)
    s, e = starts[order], ends[order]
    k = np.searchsorted(s, ctx.start[rows], side="right") - 1
    rows = rows[(k >= 0) & (ctx.start[rows] < e[np.maximum(k, 0)])]
    if not len(rows):
        return 0.0, {}
    hoisted = np.flatnonzero(sl["hoistable"])
    hoist_ns = float(ctx.dur[hoisted[np.isin(ctx.rows_of_parent[hoisted], rows)]].sum())
    inside = np.zeros(ctx.n, dtype=bool)
    inside[rows] = True
    free = np.flatnonzero(sl["free"])
    free_ns = float(ctx.dur[free[nearest_ancestor(ctx, free, inside) >= 0]].sum())
    kept = max(float(ctx.dur[rows].sum()) - hoist_ns - free_ns, 0.0)
    codes, index = places(ctx)
    lines = sorted({str(index[c]) for c in np.unique(codes[rows]) if c >= 0})
    return kept, {"dependent_lines": lines[:10], "kept_ns": kept, "hoistable_ns": hoist_ns, "free_loop_ns": free_ns,
                  "loops": _evidence(sl["loops"], lines)}


def sampled_share(ctx, innermost: tuple | None = None) -> tuple[float, dict]:
    """(share of the call-site samples, those taken while ops were recorded when there are such, whose work
    stays a loop: the innermost loop on their user stack carries state and they are in its dependent
    lines; the evidence) over all samples, or over those whose innermost frame is ``innermost`` (file,
    line). (0, {}) without stacks or such loops."""
    cs = ctx.meta.get("call_sites")
    if not isinstance(cs, dict):
        return 0.0, {}
    loops = [lp for lp in cs.get("loops") or [] if "line" in lp]
    stacks = cs.get("stacks") or []
    if not any(lp.get("carried") for lp in loops) or not stacks:
        return 0.0, {}
    frames = sorted({f for st in stacks for f in st.get("frames") or []})
    decision = dict(zip(frames, _decide(loops, frames)))
    use = "recorded_samples" if sum(int(st.get("recorded_samples") or 0) for st in stacks) else "samples"
    inner = f"{innermost[0]}:{innermost[1]}" if innermost else None
    total = seq = 0
    hit: set = set()
    for st in stacks:
        fr = st.get("frames") or []
        if inner is not None and (not fr or fr[0] != inner):
            continue
        n = int(st.get(use) or 0)
        total += n
        first = next((f for f in fr if decision[f] != NONE), None)   # the innermost loop decides
        if first is not None and decision[first] == KEPT:
            seq += n
            hit.add(first)
    if not total or not seq:
        return 0.0, {}
    share = seq / total
    return share, {"sampled_share": share, "samples": total, "dependent_lines": sorted(hit)[:10],
                   "loops": _evidence(loops, sorted(hit))}
