"""``broadcast_contraction``: a matrix product written as a broadcast product summed over an axis,
``(q[..., :, None, :] * k[..., None, :, :]).sum(-1)``: the product materialises every term of the contraction
(B x T x T x D for attention scores), written to memory and read back by the sum, where a matmul (``q @
k.transpose(-2, -1)``, ``torch.einsum``) accumulates the terms in registers and never stores them.

Reasoned from the trace: an ``aten::mul`` whose recorded input shapes broadcast to an output at least
``min_expansion`` times larger than either input (each input value is used that many times), which an
``aten::sum``/``aten::mean`` at its level, among the next ops, reduces over an axis both inputs have (a shared
index: a contraction, not a scaling); or one op that does both, ``aten::cosine_similarity`` of inputs that
broadcast, over an axis both have (``F.cosine_similarity(q[:, None], g[None], dim=-1)``). Gain: the product
and the sum replaced by a matmul doing their
FLOPs (two per term) at the CPU's measured peak (``roof_frac`` of it, as BLAS reaches) or the bytes it
reads and writes at the measured bandwidth, whichever takes longer, replayed. Without measured peaks (an
imported profile) the rule does not estimate.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ... import formatting as F
from ..efficiency.roofline import peaks_for
from ..efficiency.tensors import parse_inputs
from ..line_arrays import line_arrays, line_function
from ..timeline import next_at_level, outermost
from .arrays import finding_from_lines, where
from .base import METHOD_CP, covered_ns, make_finding, pct
from .contractions import _shapes
from .redundant import list_arg

MUL_RE = re.compile(r"^aten::mul$")
# one op that multiplies its two inputs and reduces the product over ``dim`` (its third argument): on inputs
# that broadcast (q[:, None, :], g[None, :, :]) it is a matmul written out term by term, inside the op
PAIRWISE_RE = re.compile(r"^aten::cosine_similarity$")
REDUCE_RE = re.compile(r"^aten::(sum|mean)$")
LOOKAHEAD = 2   # ops after the product, at its level, where the reduction may start


def _broadcast(a: tuple, b: tuple) -> tuple | None:
    """numpy/torch broadcasting of two shapes; None where they do not broadcast."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            return None
        out.append(max(x, y))
    return tuple(out)


def _expanded(ins: list, th):
    """(a dims, b dims, product dims, a and b padded to its rank) of an op's first two inputs when they
    broadcast to a product ``min_expansion`` times larger than either; None otherwise."""
    if len(ins) < 2 or ins[0] is None or ins[1] is None:
        return None
    a, b = ins[0].dims, ins[1].dims
    prod = _broadcast(a, b)
    if prod is None or math.prod(prod) < th["min_expansion"] * max(math.prod(a), math.prod(b), 1):
        return None
    n = len(prod)
    return tuple(a), tuple(b), prod, (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)


def _contractions(ctx, th) -> list[tuple[int, int, tuple, tuple, tuple, list, int, str]]:
    """(mul row, reduction row, a dims, b dims, product dims, summed axes, element size, dtype class) per
    product summed over a shared axis."""
    rows = np.flatnonzero(ctx.flag(MUL_RE) & ctx.is_host)
    if not len(rows) or "concrete" not in ctx.events:
        return []
    rows = outermost(ctx, rows)
    shapes, dtypes = ctx.events["shapes"].astype(str).to_numpy(), ctx.events["dtypes"].astype(str).to_numpy()
    reduce = ctx.flag(REDUCE_RE)
    out = []
    for r in rows:
        ins = parse_inputs(shapes[r], dtypes[r])
        got = _expanded(ins, th)
        if got is None:
            continue
        a, b, prod, pa, pb = got
        n = len(prod)
        for j in next_at_level(ctx, r, LOOKAHEAD):
            if not reduce[j]:
                continue
            red = parse_inputs(shapes[j], dtypes[j])
            axes = list_arg(ctx, j, 1)
            if not red or red[0] is None or tuple(red[0].dims) != prod or not axes:
                continue
            axes = sorted({int(x) % n for x in axes})
            if all(pa[x] == pb[x] > 1 for x in axes):   # an index both operands carry: a contraction
                out.append((int(r), int(j), tuple(a), tuple(b), prod, axes, ins[0].size, ins[0].dtype))
            break
    return out + _pairwise(ctx, th, shapes, dtypes)


def _pairwise(ctx, th, shapes, dtypes) -> list:
    """The same, done by one op (PAIRWISE_RE): its row stands for both the product and the reduction."""
    from .redundant import _concrete, _int_arg

    rows = np.flatnonzero(ctx.flag(PAIRWISE_RE) & ctx.is_host)
    out = []
    for r in outermost(ctx, rows) if len(rows) else rows:
        ins = parse_inputs(shapes[r], dtypes[r])
        got = _expanded(ins, th)
        if got is None:
            continue
        a, b, prod, pa, pb = got
        axis = _int_arg(_concrete(ctx, r), 2, -1) % len(prod)
        if pa[axis] == pb[axis] > 1:
            out.append((int(r), int(r), tuple(a), tuple(b), prod, [axis], ins[0].size, ins[0].dtype))
    return out


def broadcast_contraction(ctx, th):
    """Broadcast products summed over an axis both operands have: a matmul written out term by term. Gain:
    the product and the sum replaced by a matmul of the same FLOPs at the measured peak, replayed."""
    yield from _line_contractions(ctx, th)
    found = _contractions(ctx, th)
    if not found:
        return
    rows = np.unique(np.array([x for f in found for x in f[:2]], dtype=np.int64))
    t = covered_ns(ctx, rows)
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    peaks = peaks_for(ctx.profile, "cpu")
    bw = peaks.bytes_per_s
    gain, conf, kept = math.nan, 0.0, math.nan
    priced = [f for f in found if math.isfinite(peaks.flops_for(f[7])) and peaks.flops_for(f[7]) > 0]
    if priced and math.isfinite(bw) and bw > 0:
        factor = np.ones(ctx.n)
        kept = 0.0
        for m, s, a, b, prod, axes, size, dtype in priced:
            fps = peaks.flops_for(dtype)
            terms = math.prod(prod)
            moved = size * (math.prod(a) + math.prod(b) + terms // math.prod(prod[x] for x in axes))
            ns = 1e9 * max(2.0 * terms / fps, moved / bw) / th["roof_frac"]
            pair = float(ctx.dur[m] + (ctx.dur[s] if s != m else 0))
            factor[m] = factor[s] = min(1.0, ns / max(pair, 1.0))
            kept += min(ns, pair)
        from .compute import _factor_gain
        gain, conf = _factor_gain(ctx, rows, factor)
    m, s, a, b, prod, axes = max(found, key=lambda f: ctx.dur[f[0]])[:6]
    example = (f"{ctx.names([m])[0]} of {list(a)} by {list(b)} into {list(prod)}, "
               + (f"then {ctx.names([s])[0]} over axis {axes}" if s != m else f"reduced over axis {axes}"))
    title = (f"A matrix product written as a broadcast product and a sum, {len(found):,} time(s) ({example}): "
             f"{F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end) writing and reading every term")
    sugg = ("Let a matmul accumulate the terms: (q[..., :, None, :] * k[..., None, :, :]).sum(-1) is q @ "
            "k.transpose(-2, -1), (w[..., None] * v[..., None, :, :]).sum(-2) is w @ v; torch.einsum writes any "
            "such contraction in one call (einsum('bhid,bhjd->bhij', q, k)); pairwise cosine similarity is "
            "F.normalize(q, dim=-1) @ F.normalize(g, dim=-1).T. The terms are then never stored.")
    evidence = {"contractions": len(found), "time_ns": t, "example": example,
                "matmul_ns": kept, "peaks_source": getattr(peaks, "source", None)}
    yield make_finding(ctx, "broadcast_contraction", "memory", title, evidence=evidence,
                       ops=sorted({str(n) for n in ctx.names(rows)}), suggestion=sugg, gain_ns=gain,
                       method=METHOD_CP + " (product and sum replaced by a matmul at the measured peak)",
                       confidence=conf * 0.7, rows=rows, affected_ns=t)


# -- numpy: the same contraction on the user's lines (the Python tracer's sampled arrays) --------------------

def _indexed_shape(shape: tuple, index, array_names: set) -> tuple | None:
    """The shape of ``a[index]`` for a basic index of whole slices (":"), new axes (None) and scalars ("#",
    "#name" where ``name`` is not an array: fancy indexing is not shaped here); None for anything else or
    too many indices."""
    if index is None:
        return tuple(shape)
    out, k = [], 0
    for it in index:
        if it is None:
            out.append(1)
            continue
        if k >= len(shape) or (it.startswith("#") and it[1:] in array_names):
            return None
        if it == ":":
            out.append(shape[k])
        k += 1
    return tuple(out) + tuple(shape[k:])


def _operand_shapes(rec: dict, ops: list, array_names: set) -> tuple[list, int] | None:
    """The broadcastable shapes of a product's operands (their sampled shapes, indexed) and the largest
    itemsize; None when one is not a sampled numpy array."""
    got = _shapes(rec, [op["name"] for op in ops])
    if got is None:
        return None
    shapes = [_indexed_shape(base, op["index"], array_names) for base, op in zip(got[0], ops)]
    return None if any(x is None for x in shapes) else (shapes, got[1])


def _line_contractions(ctx, th):
    """Lines summing a broadcast product over an axis its operands share (``(a[:, :, None] * b[:, None,
    :]).sum(0)``), the product possibly written out by an earlier line of the same function (``outer =
    d[:, :, None] * d[:, None, :]`` then ``(w[:, None, None] * outer).sum(0)``): every term stored and read
    back where a matmul or einsum accumulates them. Gain: those lines' time less a matmul of the product's
    FLOPs (two per term) at ``roof_frac`` of the measured peak, or of its operands' and result's bytes at
    the measured bandwidth, whichever is longer, replayed. Without measured peaks, no estimate."""
    la = line_arrays(ctx)
    if la.empty or "contractions" not in la:
        return
    recs = [r for r in la.to_dict("records") if isinstance(r.get("contractions"), list) and len(r["rows"])]
    made = {}   # (function, name) -> (line record, product operands' shapes, itemsize): outer products assigned
    for rec in recs:
        for c in rec["contractions"]:
            if c.get("kind") == "broadcast_product":
                got = _operand_shapes(rec, c["operands"], _arrays(rec))
                if got is not None and _broadcast_all(got[0]) is not None:
                    made[(line_function(ctx, rec), c["target"])] = (rec, got)
    peaks = peaks_for(ctx.profile, "cpu")
    flagged, used = [], set()
    for rec in recs:
        for c in rec["contractions"]:
            if c.get("kind") != "broadcast_sum":
                continue
            got = _operand_shapes(rec, c["operands"], _arrays(rec))
            if got is None:
                continue
            shapes, item = got
            lines = [rec]
            fn = line_function(ctx, rec)
            inputs = []
            for op, shape in zip(c["operands"], shapes):
                src = made.get((fn, op["name"])) if op["index"] is None else None
                if src is not None and src[0]["file_line"] != rec["file_line"]:
                    lines.append(src[0])   # its terms were stored by that line: the fix removes it too
                    inputs += list(src[1][0])
                else:
                    inputs.append(shape)
            prod = _broadcast_all(inputs)
            if prod is None:
                continue
            n = len(prod)
            padded = [(1,) * (n - len(x)) + tuple(x) for x in inputs]
            axes = sorted({a % n for a in (c["axis"] if c["axis"] is not None else range(n))}) if n else []
            terms = math.prod(prod)
            if terms < th["min_expansion"] * max(math.prod(x) for x in inputs) or not any(
                    sum(p[a] > 1 for p in padded) >= 2 for a in axes):
                continue   # not expanded (a weighted sum of stored arrays), or no shared summed index
            fps = peaks.flops_for({2: "fp16", 4: "fp32"}.get(item, "fp64"))
            bw = peaks.bytes_per_s
            kept = terms // max(math.prod(prod[a] for a in axes), 1)
            moved = item * (sum(math.prod(x) for x in inputs) + kept)
            matmul_ns = (1e9 * max(2.0 * terms / fps, moved / bw) / th["roof_frac"]
                         if math.isfinite(fps) and fps > 0 and math.isfinite(bw) and bw > 0 else math.nan)
            run_ns = sum(float(ctx.dur[r["rows"]].sum()) / len(r["rows"]) for r in lines)
            frac = max(0.0, 1.0 - matmul_ns / max(run_ns, 1.0)) if math.isfinite(matmul_ns) else 0.0
            shown = " * ".join(f"{op['name']}{_index_text(op['index'])} {tuple(x)}" for op, x in zip(c["operands"], shapes))
            what = (f"{shown} -> {list(prod)} terms summed over axis {axes}"
                    + (f", the product stored by line {', '.join(where(r['file_line']) for r in lines[1:])}"
                       if len(lines) > 1 else ""))
            for r in lines:
                if r["file_line"] not in used:
                    used.add(r["file_line"])
                    flagged.append((r, frac, what))
    if not flagged:
        return

    def title(first, t):
        return (f"Line {where(first[0]['file_line'])} writes a matrix product out as a broadcast product and a sum: "
                f"{first[2]} ({F.ns(t)}, {pct(t, ctx.wall):.0f}% of end-to-end)")

    sugg = ("Let a matmul accumulate the terms instead of storing every one: (w[:, None, None] * (d[:, :, None] * "
            "d[:, None, :])).sum(0) is (w[:, None] * d).T @ d; (x[:, None, :] * y[None]).sum(-1) is x @ y.T; "
            "np.einsum('n,ni,nj->ij', w, d, d, optimize=True) writes any such contraction in one call.")
    yield from finding_from_lines(ctx, th, "broadcast_contraction", "memory", flagged, title, sugg,
                                  " (the lines replaced by a matmul of the product's FLOPs at roof_frac of the "
                                  "measured CPU peak, or of its bytes at the measured bandwidth)",
                                  {"roof_frac": th["roof_frac"], "min_expansion": th["min_expansion"]})


def _arrays(rec: dict) -> set:
    """The names a line reads that the sampler saw as arrays or frames (an index ``a[:, k]`` by any other
    name is a scalar: an int the sampler does not describe)."""
    return {o["name"] for o in rec["operands"] if o.get("kind") in ("ndarray", "Series", "DataFrame", "sparse")}


def _broadcast_all(shapes: list) -> tuple | None:
    out: tuple = ()
    for s in shapes:
        out = _broadcast(out, s)
        if out is None:
            return None
    return out


def _index_text(index) -> str:
    if index is None:
        return ""
    return "[" + ", ".join("None" if i is None else ":" if i == ":" else (i[1:] or "0") for i in index) + "]"
