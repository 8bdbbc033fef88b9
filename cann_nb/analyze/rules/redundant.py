"""Redundant work recognised from what the ops do (their names, recorded shapes and arguments), not only
from how long they took:

- ``rebuilt_per_call``: a layer or model constructed inside the repeated step. Its parameters are born
  (``nn.Parameter(torch.empty(shape))`` records ``aten::empty`` then ``aten::detach`` of that shape) and
  initialised (``aten::uniform_``/``normal_``/``fill_``/``zero_``... into the same shapes, maybe a
  ``load_state_dict`` copy) again and again, with the new weights used in between. Per-step randomness
  (dropout's ``bernoulli_``, ``torch.randn`` noise) has no parameter birth and is not counted.
- ``sort_for_topk``: a full ``sort``/``argsort``/``msort`` whose result is then sliced to k elements
  (``aten::slice``/``narrow``/``select`` along the sorted dim): ``torch.topk(k)`` selects them without
  ordering the other n - k.

Both need recorded shapes (the default).
"""

from __future__ import annotations

import json
import math
import re

import numpy as np

from .. import classify as C
from ..timeline import outermost
from ... import formatting as F
from .base import METHOD_CP, covered_spans_ns, make_finding, pct, replay_gain, top_names
from .compute import _factor_gain

I64 = np.int64
# -- parsing the recorded arguments (once per distinct string) ---------------------------------------------


def _parse(s):
    if not isinstance(s, str) or not s or s == "nan":
        return []
    try:
        v = json.loads(s)
    except ValueError:
        return []
    return v if isinstance(v, list) else []


def _table(ctx, col):
    """(codes per event, parsed list per code) of a recorded-argument column; -1 codes for NaN."""
    def build():
        if col not in ctx.events.columns:
            return np.full(ctx.n, -1, dtype=I64), []
        s = ctx.events[col]
        cat = s if hasattr(s, "cat") else s.astype("category")
        return cat.cat.codes.to_numpy().astype(I64), [_parse(x) for x in cat.cat.categories.astype(str)]
    return ctx.memo(("redundant.table", col), build)


def _shape_of(v):
    """A tensor shape as a tuple, None for scalars/absent inputs."""
    if isinstance(v, list) and v and all(isinstance(d, int) for d in v):
        return tuple(v)
    return None


def _first_shapes(ctx) -> list:
    """Per event: the shape of its first tensor input (None if none)."""
    codes, table = _table(ctx, "shapes")
    firsts = [((() if t[0] == [] else _shape_of(t[0])) if t else None) for t in table]
    return [firsts[c] if c >= 0 else None for c in codes]


def _concrete(ctx, row) -> list:
    codes, table = _table(ctx, "concrete")
    c = codes[row]
    return table[c] if c >= 0 else []


def _size_arg(ctx, row):
    """The size a factory op (aten::empty, zeros, randn...) was called with: its first concrete argument."""
    args = _concrete(ctx, row)
    if not args or not isinstance(args[0], str):
        return None
    try:
        v = json.loads(args[0])
    except ValueError:
        return None
    return _shape_of(v)


def list_arg(ctx, row, i: int):
    """The ``i``-th concrete argument of an op when it is an int list (a repeat count, a kernel size), else None."""
    args = _concrete(ctx, row)
    if i >= len(args) or not isinstance(args[i], str) or not args[i].startswith("["):
        return None
    try:
        v = json.loads(args[i])
    except ValueError:
        return None
    return v if isinstance(v, list) and all(isinstance(x, int) for x in v) else None


def _int_arg(args, i, default=None):
    try:
        return int(str(args[i]).strip())
    except (IndexError, ValueError, TypeError):
        return default


def _outer_ops(ctx) -> np.ndarray:
    """Host framework ops with no framework op around them (the calls the user's code made), in time
    order per track."""
    is_op = (ctx.role == C.R["op"]) & ctx.is_host
    rows = np.flatnonzero(is_op)
    if not len(rows):
        return rows
    p = ctx.rows_of_parent
    has_op_anc = np.zeros(len(rows), dtype=bool)
    cur = p[rows]
    for _ in range(256):
        live = cur >= 0
        if not live.any():
            break
        has_op_anc[live] |= is_op[cur[live]]
        cur = np.where(live & ~has_op_anc, p[np.maximum(cur, 0)], -1)
    rows = rows[~has_op_anc]
    return rows[np.lexsort((ctx.start[rows], ctx.track_code[rows]))]


# -- rebuilt_per_call ------------------------------------------------------------------------------------
FACTORY_RE = re.compile(r"^aten::(empty|empty_strided|zeros|ones|full|rand|randn|randint|normal|tensor|"
                        r"new_empty|new_zeros|new_ones|new_full|eye|arange)$")
# what constructing a module does to its fresh parameters: nn.init (uniform_, normal_, fill_, zero_; trunc_normal_
# and orthogonal_ add erfinv_/clamp_/mul_/copy_), load_state_dict (copy_), module.to(device) (to/_to_copy)
CONSTRUCT_RE = re.compile(r"^aten::(\w+_|to|_to_copy|detach|lift_fresh)$")
BIRTH_LOOKBACK = 3   # nn.Parameter(torch.randn(shape) * 0.02): the tensor is made at most this many ops before


def _construction_spans(ctx):
    """Runs of consecutive outer ops that construct parameters, with the parameter shapes born in each.

    A parameter birth is an ``aten::detach`` of shape S (nn.Parameter wraps its tensor with detach) whose
    tensor was made just before: a factory called with size S, or an out-of-place op on S, among the last
    BIRTH_LOOKBACK ops. A construction run is a maximal run of outer ops that are births, factories (the
    next parameter's tensor, buffers) and in-place/copy/to ops into shapes born in the run, trimmed to start
    and end at ops on those shapes, holding at least one birth. Returns a list of (rows, births: shapes in
    order)."""
    outer = _outer_ops(ctx)
    if not len(outer) or not (ctx.names(outer) == "aten::detach").any():
        return []
    first = _first_shapes(ctx)
    names = ctx.names(outer)
    tracks = ctx.track_code[outer]
    spans = []
    cur_rows, cur_births, cur_shapes, inited = [], [], set(), False

    def close():
        if not cur_births:
            return
        bs = set(cur_births)
        related = [first[r] in bs or _size_arg(ctx, r) in bs for r in cur_rows]
        lo = related.index(True)
        hi = len(related) - related[::-1].index(True)
        spans.append((np.array(cur_rows[lo:hi], dtype=I64), tuple(cur_births)))

    # only births, factories and in-place/copy ops can be part of a run: the others just end it
    relevant = np.flatnonzero(ctx.flag(FACTORY_RE)[outer] | ctx.flag(CONSTRUCT_RE)[outer])
    prev = -2
    for j in relevant:
        r, name, tr = int(outer[j]), names[j], tracks[j]
        if j != prev + 1 or tr != tracks[j - 1]:
            close()
            cur_rows, cur_births, cur_shapes, inited = [], [], set(), False
        prev = j
        s = first[r]
        if name == "aten::detach" and s:
            made = None
            for b in range(1, BIRTH_LOOKBACK + 1):
                if j - b < 0 or tracks[j - b] != tr:
                    break
                pr, pn = int(outer[j - b]), names[j - b]
                if FACTORY_RE.match(pn) and _size_arg(ctx, pr) == s:
                    made = b
                elif first[pr] == s and not CONSTRUCT_RE.match(pn):
                    made = b
                if made:
                    break
            if made:
                makers = [int(outer[j - b]) for b in range(made, 0, -1)]
                if inited:
                    # a birth after the run's parameters were initialised: the next module's construction
                    cur_rows = [x for x in cur_rows if x not in makers]
                    close()
                    cur_rows, cur_births, cur_shapes, inited = [], [], set(), False
                for pr in makers:              # the ops that made it (randn(...) * 0.02) join the run
                    if pr not in cur_rows:
                        cur_rows.append(pr)
                cur_rows.append(r)
                cur_births.append(s)
                cur_shapes.add(s)
                continue
        if FACTORY_RE.match(name) and _size_arg(ctx, r) is not None:
            cur_rows.append(r)                 # may make the next parameter, or a buffer
            continue
        if CONSTRUCT_RE.match(name) and s is not None and (s in cur_shapes or s == ()):
            cur_rows.append(r)                 # initialised, loaded, moved
            inited = inited or bool(cur_births)
            continue
        close()
        cur_rows, cur_births, cur_shapes, inited = [], [], set(), False
    close()
    return spans


def _input_shape_mask(ctx, shapes: set) -> np.ndarray:
    """Per event: True when one of its tensor inputs has one of the shapes."""
    codes, table = _table(ctx, "shapes")
    hit = np.array([any(_shape_of(v) in shapes for v in t) for t in table] + [False], dtype=bool)
    return hit[codes]


def rebuilt_per_call(ctx, th):
    """The same parameters (same shapes, same order) constructed again and again, the weights used in
    between: a layer/model built inside the step. Gain: replay with every construction but the first removed
    (its ops, the Python between them, and their device tasks)."""
    spans = _construction_spans(ctx)
    if not spans:
        return
    groups: dict = {}
    for rows, births in spans:
        groups.setdefault(births, []).append(rows)
    found = []   # (births, runs in time order, starts, ends, used)
    for births, runs in groups.items():
        if len(runs) < th["min_count"]:
            continue
        # used in between: some op other than the construction takes one of the born shapes as input
        # (a model built once whose identical blocks' runs are split by other init work is not rebuilt)
        in_runs = np.zeros(ctx.n, dtype=bool)
        in_runs[np.concatenate(runs)] = True
        use_rows = np.flatnonzero(_input_shape_mask(ctx, set(births)) & ~in_runs & ctx.is_host)
        use_t = np.sort(ctx.start[use_rows])
        starts = np.array([ctx.start[r].min() for r in runs])
        ends = np.array([ctx.end[r].max() for r in runs])
        order = np.argsort(starts, kind="stable")
        starts, ends, runs = starts[order], ends[order], [runs[k] for k in order]
        between = np.searchsorted(use_t, starts[1:]) - np.searchsorted(use_t, ends[:-1])
        used = int((between > 0).sum()) + int(np.searchsorted(use_t, ends[-1]) < len(use_t))
        if used >= th["min_count"]:
            found.append((births, runs, starts, ends, used))
    if not found:
        return
    starts = np.concatenate([f[2] for f in found])
    ends = np.concatenate([f[3] for f in found])
    t = covered_spans_ns(ctx, starts, ends)
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    # the fix builds once: keep each group's first build (a model of m identical blocks has m runs per build:
    # the runs between two uses), remove the others (the Python between their ops too)
    keep = [max(1, int(round(len(f[1]) / f[4]))) for f in found]
    rs = np.concatenate([f[2][m:] for f, m in zip(found, keep)])
    re_ = np.concatenate([f[3][m:] for f, m in zip(found, keep)])
    o = np.argsort(rs)
    rs, re_ = rs[o], re_[o]
    rep = ctx.replay
    seg = rep.seg_factor_in(rs, re_, 0.0)
    tf = np.ones(ctx.n)
    lrow = ctx.task_launch
    t_rows = np.flatnonzero((lrow >= 0) & ctx.is_device_task)
    if len(t_rows) and len(rs):
        ls = ctx.start[lrow[t_rows]]
        k = np.searchsorted(rs, ls, side="right") - 1
        tf[t_rows[(k >= 0) & (ls < re_[np.maximum(k, 0)])]] = 0.0
    gain, conf = replay_gain(ctx, seg_factor=seg, task_factor=tf)
    births, top_runs, _, _, used = max(found, key=lambda f: len(f[1]) * len(f[0]))
    runs = [r for f in found for r in f[1]]
    all_rows = np.concatenate(runs)
    n_params = len(births)
    numel = sum(math.prod(s) for s in births)
    shapes_txt = ", ".join("x".join(map(str, s)) for s in list(dict.fromkeys(births))[:4])
    title = (f"The same {n_params} parameter{'s' if n_params > 1 else ''} ({shapes_txt}{', ...' if len(set(births)) > 4 else ''}) "
             f"are constructed and initialised {used} times: {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end)")
    yield make_finding(
        ctx, "rebuilt_per_call", "redundant", title,
        evidence={"constructions": used, "runs": len(runs), "groups": len(found), "parameters": n_params,
                  "parameter_shapes": [list(s) for s in births[:20]], "elements_per_construction": int(numel),
                  "construction_ns": int(t), "ops_per_construction": int(len(top_runs[0]))},
        ops=top_names(ctx, all_rows, 4),
        suggestion=("A layer or model is built inside the repeated step (nn.Linear(...) in forward or in the "
                    "inference loop): every call allocates and randomly initialises fresh weights (and loads "
                    "them again). Build it once, outside the loop or in __init__, and reuse it; if you need fresh "
                    "weights on purpose, re-initialise in place (reset_parameters()) only when needed."),
        gain_ns=gain, method=METHOD_CP + " (every construction but one removed, Python between its ops included)",
        confidence=conf * 0.8, rows=all_rows, affected_ns=t)


# -- sort_for_topk ---------------------------------------------------------------------------------------
SORT_RE = re.compile(r"^aten::(sort|argsort|msort)$")
TAKE_RE = re.compile(r"^aten::(slice|narrow|select)$")
FOLLOW = 6   # outer ops after the sort searched for the slice of its result


def _sort_dim(name, args, ndim):
    if name == "aten::msort":
        d = 0
    elif len(args) >= 4:                     # sort/argsort(self, stable, dim, descending)
        d = _int_arg(args, 2, -1)
    else:                                    # sort/argsort(self, dim, descending)
        d = _int_arg(args, 1, -1)
    return d % ndim if ndim else 0


def _taken(name, args, shape):
    """(dim, k, length) of a slice/narrow/select of a tensor of ``shape``: k is the most a topk must return
    to cover what it keeps (its leading or trailing elements), length what it keeps (0 for select: the
    dim goes)."""
    dim = _int_arg(args, 1, 0) % len(shape)
    n = shape[dim]
    if name == "aten::select":
        i = _int_arg(args, 2, 0)
        i = i + n if i < 0 else i
        return dim, min(i + 1, n - i), 0
    if name == "aten::narrow":
        s = _int_arg(args, 2, 0)
        s = s + n if s < 0 else s
        e = s + _int_arg(args, 3, n)
    else:
        s, e, step = _int_arg(args, 2, 0), _int_arg(args, 3, n), _int_arg(args, 4, 1)
        if step != 1:
            return dim, n, n
        s = max(0, s + n if s < 0 else s)
        e = min(n, e + n if e < 0 else e)
    if e <= s:
        return dim, n, n
    return dim, min(e, n - s), e - s


def topk_cost_ratio(n: int, k: int) -> float:
    """Comparisons of a heap-based top-k (std::partial_sort, torch's CPU topk when k is small) over a
    comparison sort's, on inputs in no particular order: every element is compared with the heap's top
    once, element i enters the heap with probability k/i (k ln(n/k) entries of log2 k each), then the k
    are sorted: n + k log2 k (ln(n/k) + 1) against n log2 n. Worst case (ordered inputs): log2 k / log2 n."""
    n, k = max(int(n), 2), max(int(k), 2)
    topk = n + k * math.log2(k) * (math.log(n / k) + 1.0)
    return min(1.0, topk / (n * math.log2(n)))


def sort_for_topk(ctx, th):
    """Full sorts whose result is sliced to k << n elements along the sorted dim. Gain: replay with each
    such sort at topk's cost (topk_cost_ratio)."""
    sort_rows = np.flatnonzero(ctx.flag(SORT_RE) & ctx.is_host & (ctx.role == C.R["op"]))
    if not len(sort_rows):
        return
    sort_rows = outermost(ctx, sort_rows)
    outer = _outer_ops(ctx)
    pos = {int(r): i for i, r in enumerate(outer)}
    first = _first_shapes(ctx)
    names_outer = ctx.names(outer)
    hits = []   # (row, n, k, ratio)
    for r in sort_rows:
        r = int(r)
        i = pos.get(r)
        shape = first[r]
        if i is None or not shape:
            continue
        name = str(ctx.names(np.array([r]))[0])
        dim = _sort_dim(name, _concrete(ctx, r), len(shape))
        n = shape[dim]
        if n < th["min_n"]:
            continue
        cur = tuple(shape)
        k_best = None
        for j in range(i + 1, min(i + 1 + FOLLOW, len(outer))):
            q = int(outer[j])
            if ctx.track_code[q] != ctx.track_code[r] or SORT_RE.match(names_outer[j]):
                break
            if first[q] != cur:
                continue    # not the sorted tensor (the user's code may do other things in between)
            if not TAKE_RE.match(names_outer[j]):
                k_best = None   # the whole sorted result is used (cumsum for top-p, a gather, ...)
                break
            d, k, length = _taken(names_outer[j], _concrete(ctx, q), cur)
            if d == dim:
                k_best = k
                break
            elif length:        # rows taken first (x.sort(1).values[:8, :10]): follow the slice
                cur = cur[:d] + (length,) + cur[d + 1:]
            else:               # a row selected first (x.sort(1).values[0, :10]): the dim goes
                cur = cur[:d] + cur[d + 1:]
                dim -= int(d < dim)
        if k_best is None or k_best > th["max_k_frac"] * n:
            continue
        hits.append((r, n, k_best, topk_cost_ratio(n, k_best)))
    if not hits:
        return
    rows = np.array([h[0] for h in hits], dtype=I64)
    t = covered_spans_ns(ctx, ctx.start[rows], ctx.end[rows])
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    factor = np.ones(ctx.n)
    for r, n, k, ratio in hits:
        factor[r] = ratio
    gain, conf = _factor_gain(ctx, rows, factor)
    r0, n0, k0, ratio0 = max(hits, key=lambda h: ctx.dur[h[0]])
    name = str(ctx.names(np.array([r0]))[0])
    title = (f"{name} sorts all {n0:,} elements to keep {k0:,} ({len(hits)} call{'s' if len(hits) > 1 else ''}, "
             f"{F.ns(t)}, {pct(t, ctx.wall):.0f}% of end-to-end): torch.topk({k0}) does it without the full sort")
    yield make_finding(
        ctx, "sort_for_topk", "redundant", title,
        evidence={"calls": len(hits), "n": int(n0), "k": int(k0), "sort_ns": int(t),
                  "topk_cost_ratio": float(ratio0),
                  "sorts": [{"n": int(n), "k": int(k), "dur_ns": int(ctx.dur[r])} for r, n, k, _ in hits[:10]]},
        ops=top_names(ctx, rows, 3),
        suggestion=(f"Use torch.topk(x, k={k0}, dim=..., largest=...) (values and indices, already in order) "
                    "instead of sorting everything and slicing; for one order statistic torch.kthvalue; for a "
                    "median torch.median."),
        gain_ns=gain, method=METHOD_CP + " (each sort at topk's cost: n + k log2 k (ln(n/k) + 1) comparisons "
        "against n log2 n)", confidence=conf * 0.6, rows=rows, affected_ns=t)
