"""``materialised_selection``: a line builds an array or table far larger than everything it reads (all
pairs of two tables, a distance matrix, a cross join, every combination of grouping keys) and the code
after it keeps a few of its elements (the nearest of each row, the pairs matching a condition, the
non-empty groups). The work is in proportion to the intermediate; an algorithm that never builds it
(a k-d tree query, an as-of or interval join, a grouping over observed keys only) works in proportion to
the inputs and the result.

Evidence, numpy/pandas (the Python tracer's line samples, collect/line_arrays.py): a line's new result
(named or returned) and the arrays it read; the later lines of the same function that read it by name, and
whether they select from it (collect/source_facts.py: ``d.argmin(1)``, ``a[mask]``, ``df.loc[idx]``).
Framework ops (recorded input shapes): a selection op (argmin, min over a dim, topk, nonzero...) on a large
tensor, the ops before it that take a tensor of that size, and the op that made it from inputs far smaller
(its output shape follows from its inputs': broadcasting, ``cdist``, a matrix product).
"""

from __future__ import annotations

import re

import numpy as np

from ... import formatting as F
from ..line_arrays import line_arrays, line_function
from .arrays import _innermost, finding_from_lines, where
from .base import METHOD_CP, covered_ns, make_finding, pct
from .compute import _factor_gain
from .discarded import PRODUCT_RE, product_output
from .redundant import _outer_ops, _shape_of, _table

NEW, RETURNED = " (new)", "(returned)"


def _outs(rec) -> list[dict]:
    return [o for o in rec["operands"] if o.get("role") == "out"]


def _name(o: dict) -> str:
    return o["name"].removesuffix(NEW)


def _width(o: dict) -> int:
    shape = o.get("shape") or [1]
    return int(shape[1]) if len(shape) > 1 else 1


def materialised_selection(ctx, th):
    """Either kind of evidence (see the module docstring): numpy/pandas lines, or framework ops."""
    yield from _line_selections(ctx, th)
    yield from _op_selections(ctx, th)


def _line_selections(ctx, th):
    """A line's new result of ``min_bytes`` or more, ``min_ratio`` times or more the arrays it reads, from
    inputs of at most ``max_width`` columns (in many dimensions space-partitioning trees lose to brute
    force), of which a later line of the same function selects a part keeping at most ``max_kept`` of it,
    and which no line multiplies (a kernel matrix for a solve is used whole). Gain: the producing line's
    time less what the inputs and the kept part need (time scaled by bytes), and the lines reading the
    intermediate (or arrays of its length made from it) by the share of their bytes it is."""
    la = line_arrays(ctx)
    if la.empty:
        return
    recs = [r for r in la.to_dict("records") if r["scope"] == "line" and len(r["rows"])]
    recs.sort(key=lambda r: int(ctx.start[r["rows"][0]]))
    fn = [line_function(ctx, r) for r in recs]
    flagged, seen = [], set()
    for i, rec in enumerate(recs):
        ins = [o for o in rec["operands"] if o.get("role") == "in"]
        for big in _outs(rec):
            name = _name(big)
            if big["nbytes"] < th["min_bytes"] or big["nbytes"] < th["min_ratio"] * max(rec["in_bytes"], 1.0) \
                    or name == RETURNED or (ins and min(_width(o) for o in ins) > th["max_width"]):
                continue
            shape, rows = list(big["shape"]), int(big["shape"][0])
            tracked = {name: shape}
            readers = []
            for j in range(i + 1, len(recs)):
                r = recs[j]
                if fn[j] != fn[i] or id(r) in seen:
                    continue
                hit = [o for o in r["operands"] if o.get("role") == "in"
                       and (tracked.get(o["name"]) == list(o["shape"]) or o["name"].split("[")[0] == name
                            and list(o["shape"])[:1] == [rows])]
                if not hit:
                    continue
                readers.append((r, hit))
                for o in _outs(r):   # a mask or score over the intermediate's rows is made from it
                    if list(o["shape"])[:1] == [rows] and _name(o) != RETURNED:
                        tracked[_name(o)] = list(o["shape"])
            selecting = [(r, hit) for r, hit in readers if any(o.get("selected") for o in hit)]
            if not selecting or any("matmul" in (r.get("work") or ()) for r, _ in readers):
                continue
            kept_known = [max((o["nbytes"] for o in _outs(r)), default=None) for r, _ in selecting]
            kept_known = [k for k in kept_known if k is not None]
            kept = min(kept_known) if kept_known else 0.0
            if kept > th["max_kept"] * big["nbytes"]:
                continue
            produce = max(0.0, 1.0 - (rec["in_bytes"] + kept) / big["nbytes"])
            what = (f"builds {name} {tuple(shape)} ({F.nbytes(big['nbytes'])}, "
                    f"{big['nbytes'] / max(rec['in_bytes'], 1.0):,.0f}x the {F.nbytes(rec['in_bytes'])} it reads)")
            group = [(rec, produce, what)]
            for r, hit in readers:
                mine = float(sum(o["nbytes"] for o in hit))
                moved = r["in_bytes"] + float(sum(o["nbytes"] for o in _outs(r)))
                sel = any(o.get("selected") for o in hit)
                group.append((r, min(mine / max(moved, 1.0), 1.0) * (1.0 - kept / max(mine, 1.0)),
                              ("selects from " if sel else "reads ") + ", ".join(sorted({o["name"] for o in hit}))))
                seen.add(id(r))
            seen.add(id(rec))
            flagged.append({"name": name, "shape": shape, "bytes": big["nbytes"], "in_bytes": rec["in_bytes"],
                            "kept_bytes": kept, "line": where(rec["file_line"]),
                            "selected_at": [where(r["file_line"]) for r, _ in selecting], "lines": group})
            break
    if not flagged:
        return
    first = max(flagged, key=lambda f: f["bytes"])
    kept_txt = f"keeps {F.nbytes(first['kept_bytes'])} of it" if first["kept_bytes"] else "keeps a part of it"

    def title(_, t):
        return (f"Line {first['line']} builds {first['name']} {tuple(first['shape'])} ({F.nbytes(first['bytes'])}, "
                f"{first['bytes'] / max(first['in_bytes'], 1.0):,.0f}x the data it reads) and line "
                f"{first['selected_at'][0]} {kept_txt}: {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end) in the lines "
                "that build and read it")

    sugg = ("Do not build the whole intermediate to keep a few of its elements: find the nearest points with a "
            "k-d tree (scipy.spatial.cKDTree(b).query(a)) instead of all pairwise distances and an argmin; match "
            "rows to ranges with pd.merge_asof or an IntervalIndex instead of a cross join and a filter; group "
            "categoricals with observed=True instead of materialising every combination of categories; otherwise "
            "filter before joining, or process in chunks.")
    lines = [x for f in flagged for x in f["lines"]]
    yield from finding_from_lines(
        ctx, th, "materialised_selection", "redundant", lines, title, sugg,
        " (the building line's time scaled by the share of its bytes the inputs and the kept part are not; "
        "the reading lines' by the share of their bytes the intermediate is)",
        {"intermediates": [{k: v for k, v in f.items() if k != "lines"} for f in flagged],
         "min_bytes": th["min_bytes"], "min_ratio": th["min_ratio"], "max_kept": th["max_kept"]})


# -- framework ops (recorded shapes) -----------------------------------------------------------------------
SELECT_OP_RE = re.compile(r"^aten::(argmin|argmax|min|max|amin|amax|topk|kthvalue|nonzero|argwhere|masked_select)$")
PAIRWISE_RE = re.compile(r"^aten::(cdist|_cdist_forward|_euclidean_dist)$")
LOOKBACK = 12   # outer ops before a selection searched for the op that built its input
ITEM_BYTES = 4  # float32, torch's default (the threshold is in bytes)


def _numel(shape) -> int:
    return int(np.prod(shape)) if shape else 1


def _made(name: str, shapes: list) -> tuple | None:
    """The output shape of an op that can build a large tensor from small ones: a pairwise distance
    (``cdist``: [..., n, d] x [..., m, d] -> [..., n, m]), a matrix product, an elementwise op whose inputs
    broadcast (``a[:, None, :] - b[None, :, :]``)."""
    tensors = [t for t in (_shape_of(x) for x in shapes) if t is not None]
    if len(tensors) < 2:
        return None
    a, b = tensors[0], tensors[1]
    try:
        if PAIRWISE_RE.match(name):
            return tuple(np.broadcast_shapes(a[:-2], b[:-2])) + (a[-2], b[-2])
        if PRODUCT_RE.match(name):
            out = product_output(name, shapes)
            return tuple(out) if out is not None else None
        return tuple(np.broadcast_shapes(*tensors))
    except (TypeError, IndexError, ValueError):
        return None


def _op_selections(ctx, th):
    """A selection op whose input has ``min_bytes`` / 4 elements or more, made by an op from inputs
    ``min_ratio`` times smaller (their feature dimension at most ``max_width``), the ops between them taking
    that tensor (or a reduction of a broadcast: [n, m, d] summed to [n, m]). Gain: those ops' time scaled
    by the share of their work the inputs are not."""
    codes, table = _table(ctx, "shapes")
    if not len(table):
        return
    outer = _outer_ops(ctx)
    if not len(outer):
        return
    # selections of a large first input only (per distinct shapes string, then vectorised over the ops)
    first_numel = np.array([_numel(_shape_of(t[0])) if t and _shape_of(t[0]) else 0 for t in table] + [0])
    big_first = first_numel[np.where(codes[outer] >= 0, codes[outer], len(table))] * ITEM_BYTES >= th["min_bytes"]
    sel = np.flatnonzero(ctx.flag(SELECT_OP_RE)[outer] & big_first)
    if not len(sel):
        return
    names = ctx.names(outer).astype(str)
    factor = np.ones(ctx.n)
    rows, found = [], {}
    for i in sel:
        r = int(outer[i])
        ins = table[codes[r]] if codes[r] >= 0 else []
        big = _shape_of(ins[0]) if ins else None
        if big is None or _numel(big) * ITEM_BYTES < th["min_bytes"]:
            continue
        n_big, chain, maker = _numel(big), [r], None
        for j in range(i - 1, max(i - 1 - LOOKBACK, -1), -1):
            q = int(outer[j])
            if ctx.track_code[q] != ctx.track_code[r]:
                break
            shapes = table[codes[q]] if codes[q] >= 0 else []
            tensors = [t for t in (_shape_of(x) for x in shapes) if t is not None]
            if any(_numel(t) >= n_big and t[:len(big)] == big for t in tensors):
                chain.append(q)   # takes the large tensor (or the broadcast it is reduced from)
                continue
            out = _made(names[j], shapes)
            if out is None or _numel(out) < n_big or tuple(out[:len(big)]) != tuple(big):
                continue
            small = sum(_numel(t) for t in tensors)
            if _numel(out) < th["min_ratio"] * small or min(t[-1] for t in tensors if t) > th["max_width"]:
                break
            maker = (q, names[j], out, small)
            break
        if maker is None:
            continue
        q, made_by, out, small = maker
        chain.append(q)
        keep = max(0.0, 1.0 - small / n_big)
        factor[chain] = np.minimum(factor[chain], 1.0 - keep)
        rows += chain
        key = (made_by, names[i], tuple(big))
        got = found.setdefault(key, {"made_by": made_by, "selected_by": names[i], "shape": list(big),
                                     "bytes": n_big * ITEM_BYTES, "input_elements": small, "times": 0})
        got["times"] += 1
    if not rows:
        return
    rows = np.unique(np.asarray(rows, dtype=np.int64))
    t = covered_ns(ctx, rows)
    if pct(t, ctx.wall_without_recording) < th["min_pct"]:
        return
    gain, conf = _factor_gain(ctx, rows, factor)
    first = max(found.values(), key=lambda f: f["times"] * f["bytes"])
    title = (f"{first['made_by']} builds a {' x '.join(map(str, first['shape']))} tensor "
             f"(~{F.nbytes(first['bytes'])}, {_numel(first['shape']) / max(first['input_elements'], 1):,.0f}x its "
             f"inputs) of which {first['selected_by']} keeps a few elements, {first['times']:,} time(s): {F.ns(t)} "
             f"({pct(t, ctx.wall):.0f}% of end-to-end) in the ops that build and read it")
    sugg = ("Do not build the whole pairwise tensor to keep a few of its elements: for nearest neighbours in few "
            "dimensions use a k-d tree (scipy.spatial.cKDTree, sklearn NearestNeighbors) or a grid; otherwise "
            "process the queries in chunks that fit in cache, or compute the distances with one matrix product "
            "(|a|^2 - 2 a.b + |b|^2) instead of a broadcast subtraction.")
    yield make_finding(ctx, "materialised_selection", "redundant", title,
                       evidence={"intermediates": list(found.values()), "time_ns": int(t),
                                 "min_bytes": th["min_bytes"], "min_ratio": th["min_ratio"]},
                       ops=[first["made_by"], first["selected_by"]], suggestion=sugg, gain_ns=gain,
                       method=METHOD_CP + " (the ops that build and read the tensor scaled by the share of its "
                       "elements the inputs are not)", confidence=conf * 0.5, rows=rows, affected_ns=t)


# -- a slice of a result computed whole (one line) ---------------------------------------------------------
def sliced_result(ctx, th):
    """A line whose result (named or returned) is a view of at most ``max_kept`` of an array of
    ``min_bytes`` or more that the line itself computed (``np.corrcoef(X)[0, 1:]``, ``np.fft.fft(x)[:n // 2]``,
    ``np.linalg.svd(A)[0][:, :k]``): the elements of a product, an FFT or an elementwise result are computed
    independently, so computing only the kept ones costs the kept share. The view also keeps the whole array
    alive. Gain: the line's time scaled to the kept share (replayed)."""
    la = line_arrays(ctx)
    if la.empty:
        return
    flagged, view_of = [], {}
    for rec in la.to_dict("records"):
        if rec["scope"] != "line" or not len(rec["rows"]):
            continue
        views = [o for o in _outs(rec) if o.get("base_nbytes", 0) >= th["min_bytes"]
                 and o["nbytes"] <= th["max_kept"] * o["base_nbytes"]]
        if not views:
            continue
        o = max(views, key=lambda o: o["base_nbytes"])
        view_of[id(rec)] = o
        flagged.append((rec, 1.0 - o["nbytes"] / o["base_nbytes"],
                        f"keeps {_name(o)} {tuple(o['shape'])} ({F.nbytes(o['nbytes'])}), a view of the "
                        f"{tuple(o['base_shape'])} array ({F.nbytes(o['base_nbytes'])}) it computed"))
    flagged = _innermost(ctx, flagged)   # a caller whose result is the callee's slice: the callee's line
    if not flagged:
        return

    def title(first, t):
        o = view_of[id(first[0])]
        return (f"Line {where(first[0]['file_line'])} computes a {' x '.join(map(str, o['base_shape']))} array "
                f"({F.nbytes(o['base_nbytes'])}) and keeps a slice of {F.nbytes(o['nbytes'])} of it: {F.ns(t)} "
                f"({pct(t, ctx.wall):.0f}% of end-to-end) in {len(flagged)} line(s)")

    sugg = ("Compute only the part you keep: one row of a correlation or covariance matrix is one matrix-vector product "
            "(standardise, then X.T @ y / n); the first half of the FFT of real input is np.fft.rfft (torch.fft.rfft); "
            "the leading singular vectors are np.linalg.svd(A, full_matrices=False) or scipy.sparse.linalg.svds; slice "
            "the inputs before an elementwise computation instead of its result. (The slice also keeps the whole array "
            "alive: .copy() it if it is stored.)")
    yield from finding_from_lines(ctx, th, "sliced_result", "redundant", flagged, title, sugg,
                                   " (each line's time scaled to the kept share of the array it computed)",
                                   {"min_bytes": th["min_bytes"], "max_kept": th["max_kept"]})
