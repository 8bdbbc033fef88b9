"""``broadcast_contraction``: a matrix product written as a broadcast product summed over an axis,
``(q[..., :, None, :] * k[..., None, :, :]).sum(-1)``: the product materialises every term of the contraction
(B x T x T x D for attention scores), written to memory and read back by the sum, where a matmul (``q @
k.transpose(-2, -1)``, ``torch.einsum``) accumulates the terms in registers and never stores them.

Reasoned from the trace: an ``aten::mul`` whose recorded input shapes broadcast to an output at least
``min_expansion`` times larger than either input (each input value is used that many times), which an
``aten::sum``/``aten::mean`` at its level, among the next ops, reduces over an axis both inputs have (a shared
index: a contraction, not a scaling). Gain: the product and the sum replaced by a matmul doing their
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
from ..timeline import next_at_level, outermost
from .base import METHOD_CP, covered_ns, make_finding, pct
from .redundant import list_arg

MUL_RE = re.compile(r"^aten::mul$")
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
        if len(ins) < 2 or ins[0] is None or ins[1] is None:
            continue
        a, b = ins[0].dims, ins[1].dims
        prod = _broadcast(a, b)
        if prod is None or math.prod(prod) < th["min_expansion"] * max(math.prod(a), math.prod(b), 1):
            continue
        n = len(prod)
        pa, pb = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
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
    return out


def broadcast_contraction(ctx, th):
    """Broadcast products summed over an axis both operands have: a matmul written out term by term. Gain:
    the product and the sum replaced by a matmul of the same FLOPs at the measured peak, replayed."""
    found = _contractions(ctx, th)
    if not found:
        return
    rows = np.array([x for f in found for x in f[:2]], dtype=np.int64)
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
            pair = float(ctx.dur[m] + ctx.dur[s])
            factor[m] = factor[s] = min(1.0, ns / max(pair, 1.0))
            kept += min(ns, pair)
        from .compute import _factor_gain
        gain, conf = _factor_gain(ctx, rows, factor)
    m, s, a, b, prod, axes = max(found, key=lambda f: ctx.dur[f[0]])[:6]
    example = (f"{ctx.names([m])[0]} of {list(a)} by {list(b)} into {list(prod)}, then {ctx.names([s])[0]} over "
               f"axis {axes}")
    title = (f"A matrix product written as a broadcast product and a sum, {len(found):,} time(s) ({example}): "
             f"{F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end) writing and reading every term")
    sugg = ("Let a matmul accumulate the terms: (q[..., :, None, :] * k[..., None, :, :]).sum(-1) is q @ "
            "k.transpose(-2, -1), (w[..., None] * v[..., None, :, :]).sum(-2) is w @ v; torch.einsum writes any "
            "such contraction in one call (einsum('bhid,bhjd->bhij', q, k)). The terms are then never stored.")
    evidence = {"contractions": len(found), "time_ns": t, "example": example,
                "matmul_ns": kept, "peaks_source": getattr(peaks, "source", None)}
    yield make_finding(ctx, "broadcast_contraction", "memory", title, evidence=evidence,
                       ops=sorted({str(n) for n in ctx.names(rows)}), suggestion=sugg, gain_ns=gain,
                       method=METHOD_CP + " (product and sum replaced by a matmul at the measured peak)",
                       confidence=conf * 0.7, rows=rows, affected_ns=t)
