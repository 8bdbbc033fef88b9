"""The growing-accumulation rule: an accumulator rebuilt bigger on every iteration (quadratic copying).

``out = torch.cat([out, row])``, ``np.vstack([out, r])``, ``np.append(arr, x)``, a KV cache grown with
``torch.cat`` in a decode loop, ``s += piece`` on a string, ``lst.insert(0, x)``: each call copies all that
was gathered so far, so N calls copy ~N^2/2 pieces. Reasoned from the work, not the names:

* with recorded shapes (torch): the elements of an op's inputs grow steadily with its call index (calls
  of one name, thread and appended-piece shape, in time order), and its cost grows with them;
* without shapes (the Python tracer: numpy, pure Python): the per-call time of one function (or source
  line) grows steadily with its call order (its floor rises through the run, not in one step).

Gain: with the fix (gather the pieces in a list and join once, or preallocate and fill) the N calls keep
their fixed per-call cost and one pass over the final size. The calls' cost is fitted as
``a + b * size`` (``a`` the early calls' median, ``b`` the rest spread over the elements; the call index
stands for the size when no shapes are recorded), so the fixed cost is ``N * a + b * size_final``; the
host pieces and the device tasks of those calls are replayed scaled to it (critical-path what-if).
"""

from __future__ import annotations

import math
import re

import numpy as np
import orjson
import pandas as pd

from .. import classify as C
from ... import formatting as F
from .base import METHOD_CP, make_finding, pct, replay_gain
from .host import LINE_RE

I64 = np.int64
JOIN_RE = re.compile(r"(^|[.:_])(cat|concat|concatenate|stack|vstack|hstack|dstack|column_stack|row_stack|append|"
                     r"insert|pad|extend|add|iadd|join)$", re.I)
_NUMPY_PREFIX = re.compile(r"^numpy\.(\w+\.)*")
# a loop's header line: its own work is one next() on an iterator; under the line tracer its span also holds
# the free of what the body dropped (the old accumulator), so it grows with the body's accumulator: the same
# cause as the body's finding, never a second one
LOOP_HEADER_RE = re.compile(r" line \d+: (async\s+)?for\b")


def _ranks(x: np.ndarray) -> np.ndarray:
    return pd.Series(x).rank(method="average").to_numpy()


def _corr(a: np.ndarray, b: np.ndarray) -> float:
    if len(a) < 3:
        return 0.0
    sa, sb = a.std(), b.std()
    if sa == 0 or sb == 0:
        return 0.0
    return float(np.mean((a - a.mean()) * (b - b.mean())) / (sa * sb))


def spearman(a, b) -> float:
    """Rank correlation (Spearman's rho, ties averaged)."""
    return _corr(_ranks(np.asarray(a, dtype=float)), _ranks(np.asarray(b, dtype=float)))


def _edge(n: int) -> int:
    """Calls that make up the 'early' and the 'late' calls: a tenth, at least 3."""
    return max(3, n // 10)


def _slices(cost: np.ndarray, q: float = 50.0) -> np.ndarray:
    """The q-th percentile of each of ten consecutive slices of the calls."""
    return np.array([np.percentile(p, q) for p in np.array_split(cost.astype(float), 10) if len(p)])


def decile_r2(cost: np.ndarray) -> float:
    """R^2 of a straight line through the medians of ten consecutive slices of the calls (evidence: near 1
    for a linear growth; copying that leaves a cache level bends the line without making it a step)."""
    med = _slices(cost)
    return _corr(np.arange(len(med), dtype=float), med) ** 2 if len(med) >= 3 else 0.0


def largest_step_share(floor: np.ndarray) -> float:
    """The largest rise between consecutive tenths' floors as a share of the whole rise: near 1 for a slow
    phase (one step), small for a steady growth, whatever its curvature."""
    rise = float(floor[-1] - floor[0])
    if len(floor) < 3 or rise <= 0:
        return 1.0
    return float(np.diff(floor).max()) / rise


def fixed_cost(cost: np.ndarray, size: np.ndarray) -> float:
    """Cost of the same calls once fixed: ``N * a + b * size[-1]`` for ``cost ~ a + b * size``: ``a`` the
    early calls' cost brought back to size zero (less their size times the median slope between the
    tenths' medians, robust to a slow stretch), ``b`` the remaining cost over the elements handled."""
    n = len(cost)
    total = float(cost.sum())
    k = _edge(n)
    cm, sm = _slices(cost), _slices(size)
    i, j = np.triu_indices(len(cm), 1)
    ok = sm[j] > sm[i]
    b0 = max(float(np.median((cm[j] - cm[i])[ok] / (sm[j] - sm[i])[ok])), 0.0) if ok.any() else 0.0
    early = float(np.median(cost[:k]))
    a = float(np.median(cost[:k] - b0 * size[:k].astype(float)))
    a = min(max(a, float(cost.min())), early, total / max(n, 1))
    extra = total - n * a
    s = size.astype(float)
    b = extra / s.sum() if s.sum() > 0 else 0.0
    return min(total, n * a + b * float(s.max()))


# -- shapes -> input elements -------------------------------------------------------------------------
def _tensors(v) -> list:
    """Dims lists of the tensors in one recorded input list (a TensorList is a list of dims lists)."""
    out = []
    for item in v if isinstance(v, list) else []:
        if isinstance(item, list) and item and all(isinstance(x, (int, float)) for x in item):
            out.append(item)
        elif isinstance(item, list) and item and all(isinstance(x, list) for x in item):
            out.extend(t for t in item if all(isinstance(x, (int, float)) for x in t))
    return out


def _parse_shape(text) -> tuple[float, str]:
    """(input elements, the last input tensor's shape) of a recorded shapes string; (nan, "") when none."""
    if not isinstance(text, str) or not text.startswith("["):
        return math.nan, ""
    try:
        v = orjson.loads(text)
    except orjson.JSONDecodeError:
        return math.nan, ""
    ts = _tensors(v)
    if not ts:
        return math.nan, ""
    return float(sum(math.prod(int(x) for x in t) for t in ts)), str(ts[-1])


# -- candidates ------------------------------------------------------------------------------------------
def _groups(ctx, min_calls: int):
    """Host calls of one name on one thread (and, with shapes, one appended-piece shape), in time
    order: yields (rows, elements or None)."""
    is_call = ctx.is_host & ((ctx.role == C.R["op"]) | (ctx.role == C.R["python"])) & ~ctx.flag(LOOP_HEADER_RE)
    rows = np.flatnonzero(is_call & (ctx.dur > 0))
    if not len(rows):
        return
    key = ctx.name_code[rows] * (len(ctx.track_cats) + 1) + ctx.track_code[rows]
    counts = pd.Series(key).value_counts()
    keep = np.isin(key, counts.index[counts.to_numpy() >= min_calls].to_numpy())
    rows, key = rows[keep], key[keep]
    if not len(rows):
        return
    shapes = ctx.events["shapes"]
    scode = np.full(len(rows), -1, dtype=I64)
    elems = sig = None
    if isinstance(shapes.dtype, pd.CategoricalDtype) and len(shapes.cat.categories):
        scode = shapes.cat.codes.to_numpy()[rows].astype(I64)
        used = np.unique(scode[scode >= 0])
        cats = shapes.cat.categories
        parsed = [_parse_shape(cats[c]) for c in used]
        e = np.full(len(cats), math.nan)
        s = np.zeros(len(cats), dtype=I64)
        if len(used):
            e[used] = [p[0] for p in parsed]
            sig_codes = pd.factorize(pd.Series([p[1] for p in parsed]))[0]
            s[used] = sig_codes
        elems = np.where(scode >= 0, e[np.maximum(scode, 0)], math.nan)
        sig = np.where(scode >= 0, s[np.maximum(scode, 0)], -1)
    order = np.lexsort((ctx.start[rows], key))
    rows, key = rows[order], key[order]
    if elems is not None:
        elems, sig = elems[order], sig[order]
    bounds = np.flatnonzero(np.diff(key)) + 1
    for part in np.split(np.arange(len(rows)), bounds):
        r = rows[part]
        if elems is None or np.isnan(elems[part]).mean() > 0.5:
            yield r, None
            continue
        # with shapes: one group per appended-piece shape (a growing cat and a fixed one are separate)
        ep, sp = elems[part], sig[part]
        ok = ~np.isnan(ep)
        for s_ in np.unique(sp[ok]):
            m = ok & (sp == s_)
            if m.sum() >= min_calls:
                yield r[m], ep[m]


def _device_cost(ctx, rows) -> np.ndarray | None:
    """Per call: the time of the device tasks launched from inside it (None when there are none)."""
    if not ctx.is_device_task.any():
        return None
    lrow = ctx.task_launch
    tasks = np.flatnonzero(ctx.is_device_task & (lrow >= 0))
    if not len(tasks):
        return None
    # the flagged call each task's launch sits in: climb from the launch to a row of ``rows``
    idx = np.full(ctx.n, -1, dtype=I64)
    idx[rows] = np.arange(len(rows))
    cur = lrow[tasks]
    owner = np.full(len(tasks), -1, dtype=I64)
    for _ in range(64):
        live = (cur >= 0) & (owner < 0)
        if not live.any():
            break
        hit = live & (idx[np.maximum(cur, 0)] >= 0)
        owner[hit] = idx[cur[hit]]
        cur = np.where(live & ~hit, ctx.rows_of_parent[np.maximum(cur, 0)], -1)
    ok = owner >= 0
    if not ok.any():
        return None
    return np.bincount(owner[ok], weights=ctx.dur[tasks[ok]].astype(float), minlength=len(rows))


def _assess(ctx, rows, elems, th) -> dict | None:
    """The growth test and the fixed cost of one group of calls (time order)."""
    n = len(rows)
    host = ctx.dur[rows].astype(float)
    dev = _device_cost(ctx, rows)
    cost = host + (dev if dev is not None else 0.0)
    k = _edge(n)
    early, late = float(np.median(cost[:k])), float(np.median(cost[-k:]))
    idx = np.arange(n, dtype=float)
    rho_t = spearman(idx, cost)
    # the cost's floor per tenth of the calls (the lower envelope, where the work shows through bursts of
    # page faults that make a stretch of calls slow)
    low = _slices(cost, 0.0)
    rho_low = spearman(np.arange(len(low)), low)
    if early <= 0 or late < th["min_ratio"] * early:
        return None
    if elems is not None:
        # the work: input elements grow with the call index, many-fold. The time only has to follow it
        # from the early to the late calls: in between, the allocator's regime (fresh mmap'd pages or
        # reused heap) can make a stretch of calls many times slower or faster than their size says
        rho_s = spearman(idx, elems)
        e0, e1 = float(np.median(elems[:k])), float(np.median(elems[-k:]))
        if rho_s < th["min_rank_corr"] or e1 < th["min_size_growth"] * max(e0, 1.0):
            return None
        size, basis = elems, "input elements (recorded shapes)"
    else:
        # no shapes: the per-call time itself must grow steadily: the floor rises through the run, not in
        # one step (a straight line is too strict: the copy slows as it outgrows each cache level)
        # rank correlations of the tenths (medians, floor), not of single calls: on a loaded machine
        # bursts of preempted calls pulled the per-call one to 0.74-0.84 on a steady np.append loop whose
        # tenths rose monotonically (1.0)
        rho_med = spearman(np.arange(10, dtype=float)[:len(low)], _slices(cost))
        if (rho_med < th["min_rank_corr"] or rho_low < th["min_slice_corr"]
                or largest_step_share(low) > th["max_step_share"]
                or low[-1] < th["min_ratio"] * max(low[0], 1.0)):
            return None
        size, basis, e0, e1, rho_s = idx + 1.0, "call order (no shapes recorded): per-call time", math.nan, \
            math.nan, math.nan
    total = float(cost.sum())
    fixed = fixed_cost(cost, size)
    host_excess = float(host.sum()) - fixed_cost(host, size)
    df = fixed_cost(dev, size) / max(dev.sum(), 1.0) if dev is not None and dev.sum() > 0 else 1.0
    return {"rows": rows, "calls": n, "total": total, "fixed": fixed, "host_excess": host_excess, "dev_factor": df,
            "early": early, "late": late, "rho_time": rho_t, "rho_size": rho_s, "e0": e0, "e1": e1,
            "basis": basis, "shapes": elems is not None, "rho_floor": rho_low,
            "first_el": float(elems[0]) if elems is not None else math.nan,
            "last_el": float(elems[-1]) if elems is not None else math.nan,
            "r2": decile_r2(cost) if elems is None else math.nan,
            "step_share": largest_step_share(low) if elems is None else math.nan}


def _nested_pairs(ctx, groups: list[dict]) -> set:
    """(inner, outer) group indices where calls of ``inner`` lie inside calls of ``outer``."""
    gid = np.full(ctx.n, -1, dtype=I64)
    for i, g in enumerate(groups):
        gid[g["rows"]] = i
    rows = np.concatenate([g["rows"] for g in groups])
    own = gid[rows]
    cur = ctx.rows_of_parent[rows]
    pairs = set()
    for _ in range(64):
        live = cur >= 0
        if not live.any():
            break
        hit = live & (gid[np.maximum(cur, 0)] >= 0)
        if hit.any():
            pairs |= set(zip(own[hit].tolist(), gid[cur[hit]].tolist()))
        cur = np.where(live, ctx.rows_of_parent[np.maximum(cur, 0)], -1)
    return {p for p in pairs if p[0] != p[1]}


def _keep(ctx, groups: list[dict]) -> list[dict]:
    """One group per nest: for framework ops the outermost (the user's call, e.g. torch.stack over
    its inner cat); for Python spans the innermost that carries at least half the growth (np.append,
    not the source line around it)."""
    if len(groups) < 2:
        return groups
    drop = set()
    for inner, outer in _nested_pairs(ctx, groups):
        gi, go = groups[inner], groups[outer]
        if ctx.role[gi["rows"][0]] == C.R["op"] and ctx.role[go["rows"][0]] == C.R["op"]:
            drop.add(inner)
        elif gi["total"] - gi["fixed"] >= 0.5 * (go["total"] - go["fixed"]):
            drop.add(outer)
        else:
            drop.add(inner)
    return [g for i, g in enumerate(groups) if i not in drop]


def _display(name: str) -> str:
    if name.startswith("aten::"):
        return "torch." + name[6:]
    if name.startswith("numpy."):
        return "np." + _NUMPY_PREFIX.sub("", name)
    return name


def _line_of(ctx, row) -> str | None:
    """The source-line span around a Python call (the Python tracer's line spans), if any."""
    cur = int(row)
    for _ in range(64):
        if cur < 0:
            return None
        nm = str(ctx.names(np.array([cur]))[0])
        if LINE_RE.search(nm):
            return nm
        cur = int(ctx.rows_of_parent[cur])
    return None


def growing_accumulation(ctx, th):
    """An accumulator rebuilt bigger on every iteration: ``out = torch.cat([out, row])``, ``np.append``,
    ``np.vstack``, a KV cache grown by cat in a decode loop, ``s += piece``, ``list.insert(0, x)``. Each
    call copies everything gathered so far (quadratic copying). Seen from the work: the inputs' recorded
    elements grow steadily with the call index (shapes), or, without shapes, the per-call time grows
    steadily with the call order. Gain: replay with those calls at their fixed per-call cost plus one
    pass over the final size (gather in a list and join once, or preallocate)."""
    groups = []
    for rows, elems in _groups(ctx, th["min_calls"]):
        g = _assess(ctx, rows, elems, th)
        if g is not None and pct(g["total"] - g["fixed"], ctx.wall) >= 0.5 * th["min_pct"]:
            groups.append(g)
    if not groups:
        return
    rep = ctx.replay
    from ..timeline import ancestor_flag
    for g in _keep(ctx, groups):
        rows = g["rows"]
        mask = np.zeros(ctx.n, dtype=bool)
        mask[rows] = True
        # the host pieces of the calls lose the fitted excess (an absolute time: what the profiler's own
        # cost per call adds is in the fixed part, so the excess holds for the run without it too)
        pieces = rep.seg_factor_for(mask, 0.0) < 1.0
        net = np.asarray(getattr(rep, "seg_net", rep.seg_dur), dtype=float)
        base = float(net[pieces].sum())
        seg = np.where(pieces, max(0.0, 1.0 - g["host_excess"] / base) if base > 0 else 1.0, 1.0)
        tf = None
        if g["dev_factor"] < 1.0:
            inside = ancestor_flag(ctx, mask)
            lrow = ctx.task_launch
            tf = np.ones(ctx.n)
            has = (lrow >= 0) & ctx.is_device_task
            hit = np.zeros(ctx.n, dtype=bool)
            hit[has] = inside[lrow[has]]
            tf[hit] = g["dev_factor"]
        gain, conf = replay_gain(ctx, seg_factor=seg, task_factor=tf)
        # the share make_finding reports: of the run without the profiler's own time when it is known
        gpct = pct(gain, ctx.wall_without_recording)
        if gpct < th["min_pct"]:
            continue
        name = str(ctx.names(rows[:1])[0])
        shown = _display(name)
        line = _line_of(ctx, rows[0]) if ctx.role[rows[0]] == C.R["python"] else None
        n = g["calls"]
        if g["shapes"]:
            what = f"on a growing input ({g['first_el']:,.0f} -> {g['last_el']:,.0f} elements)"
        else:
            what = f"with a per-call time growing {g['late'] / g['early']:.1f}x over the run"
        joins = bool(JOIN_RE.search(name)) or (line is not None and re.search(r"\+=|\.insert\(|append|cat|stack",
                                                                            line) is not None)
        # a join rebuilds (copies) what was gathered; anything else re-reads it (a scan, a lookup)
        kind = "quadratic copying" if joins or g["shapes"] else "each call re-reads all gathered so far (quadratic)"
        title = (f"{shown} called {n:,} times {what}: {F.ns(g['early'])} per call early, {F.ns(g['late'])} late "
                 f"(medians): {kind}, {gpct:.0f}% of end-to-end")
        if joins or g["shapes"]:
            sugg = ("Do not grow the result inside the loop: append the pieces to a Python list and join once "
                    "after it (torch.cat(pieces) / np.concatenate(pieces) / np.array(values) / ''.join(parts)), "
                    "or preallocate the full result (torch.empty / np.empty) and fill it in place (out[i] = row); "
                    "for a KV cache in a decode loop use a preallocated static cache written at each step's "
                    "position. Use collections.deque.appendleft instead of list.insert(0, x).")
        else:
            sugg = ("Each call works on everything gathered so far, so the loop is quadratic: keep the pieces "
                    "in a list and combine them once after the loop, preallocate the result, or keep a running "
                    "result instead of recomputing over the whole history.")
        ev = {"calls": n, "time_ns": g["total"], "fixed_cost_ns": g["fixed"], "early_call_ns": g["early"],
              "late_call_ns": g["late"], "growth_ratio": g["late"] / g["early"], "rank_corr_time": g["rho_time"],
              "rank_corr_floor": g["rho_floor"], "size_basis": g["basis"], "op": name,
              "note": "early/late: median cost of the first/last tenth of the calls; floor: each tenth's cheapest"}
        if g["shapes"]:
            ev.update({"first_elements": g["first_el"], "last_elements": g["last_el"], "rank_corr_size": g["rho_size"],
                       "size_growth": g["e1"] / max(g["e0"], 1.0)})
        else:
            ev.update({"decile_r2": g["r2"], "largest_step_share": g["step_share"]})
        if line:
            ev["line"] = line
        yield make_finding(
            ctx, "growing_accumulation", "memory", title, evidence=ev, ops=[name], suggestion=sugg,
            gain_ns=gain, method=METHOD_CP + " (calls at N x the early cost + one pass over the final size)",
            confidence=conf * (0.8 if g["shapes"] else 0.6), rows=rows, affected_ns=g["total"])
