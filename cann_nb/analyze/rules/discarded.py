"""The discarded-output rule: a matrix product or an FFT computed in full, of which the next op keeps a part
(logits for every position of a sequence when only the last one is read, a projection of a whole batch
of which one row is kept, the full FFT of a real signal of which the first n // 2 + 1 bins are kept).

Reasoned from the work: the output elements of a product are independent (one row of A times one column
of B each), so computing only the part that is kept costs the kept fraction of its FLOPs. The product's
output shape follows from its recorded input shapes; the ops after it on its thread that take a tensor of
exactly that shape and slice, narrow or select it (their recorded arguments) give the fraction kept;
elementwise ops between (``(x.abs() ** 2)[..., :k]``) carry the shape to the slice, their work discarded
with it. If any other op takes a tensor of that shape before the product runs again (a loss over every
position, a view of it), the whole result may be used and nothing is reported. Needs recorded shapes (the
default). Gain: replay with each such product (and the elementwise ops carrying it) at the kept fraction of
its time.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ... import formatting as F
from .base import METHOD_CP, covered_spans_ns, make_finding, pct, top_names
from .compute import _factor_gain
from .redundant import FOLLOW, TAKE_RE, _concrete, _first_shapes, _outer_ops, _shape_of, _table, _taken

PRODUCT_RE = re.compile(r"^aten::(linear|mm|addmm|bmm|baddbmm|matmul)$")
# FFTs over the whole signal: the output has the input's shape (without n/s); torch.fft.fft of real input
# computes both conjugate-symmetric halves
FFT_RE = re.compile(r"^aten::fft_(i?fft|i?fft2|i?fftn)$")
# elementwise ops that carry a result's shape to the slice after them (their work is discarded with it)
CARRY_RE = re.compile(r"^aten::(abs|pow|square|sqrt|rsqrt|exp|log|log1p|expm1|neg|real|imag|angle|conj|sigmoid|"
                      r"tanh|relu|gelu|silu|mul|div|add|sub|clamp|clamp_min|clamp_max)$")
SCAN = 10_000   # outer ops searched for another use of the full output (until the product runs again)


def product_output(name: str, shapes: list) -> tuple | None:
    """The output shape of a matrix product from its input shapes (None when they do not say)."""
    d = [_shape_of(s) for s in shapes]
    try:
        if name == "aten::linear":
            return d[0][:-1] + (d[1][0],)
        if name == "aten::mm":
            return (d[0][0], d[1][1])
        if name == "aten::addmm":
            return (d[1][0], d[2][1])
        if name == "aten::bmm":
            return (d[0][0], d[0][1], d[1][2])
        if name == "aten::baddbmm":
            return (d[1][0], d[1][1], d[2][2])
        a, b = d[0], d[1]
        if len(a) < 2 or len(b) < 2:
            return None
        return tuple(np.broadcast_shapes(a[:-2], b[:-2])) + (a[-2], b[-1])
    except (TypeError, IndexError, ValueError):
        return None


def computed_output(name: str, shapes: list, args: list) -> tuple | None:
    """The output shape of a product (``product_output``) or of an FFT over the whole signal."""
    if FFT_RE.match(name):
        whole = len(args) < 2 or args[1] in ("", None)   # no n / s: the output has the input's shape
        return _shape_of(shapes[0]) if shapes and whole else None
    return product_output(name, shapes)


def _kept(ctx, outer, names, first, i: int, out: tuple) -> tuple[float, int, list] | None:
    """(fraction kept, position of the last taking op, rows of the elementwise ops carrying the output to the
    slice) when the outer ops after position ``i`` slice the output ``out`` down; None when its whole result
    is used (another op takes that shape)."""
    track = ctx.track_code[outer[i]]
    cur, frac, last, carried = out, 1.0, None, []
    for j in range(i + 1, min(i + 1 + FOLLOW, len(outer))):
        q = int(outer[j])
        if ctx.track_code[q] != track:
            break
        if first[q] != cur:
            continue          # the user's code doing other things in between
        if last is None and CARRY_RE.match(names[j]):
            carried.append(q)   # (x.abs() ** 2)[..., :k]: the elementwise ops before the slice
            continue
        if not TAKE_RE.match(names[j]) or not cur:
            break             # the (remaining) result used whole
        d, _, length = _taken(names[j], _concrete(ctx, q), cur)
        n = cur[d]
        frac *= (length or 1) / max(n, 1)
        cur = cur[:d] + ((length,) if length else ()) + cur[d + 1:]
        last = j
    if last is None or frac >= 1.0:
        return None
    # any other op taking the full output before the product runs again (or the op that made its input
    # does: the next iteration's input is being prepared, in the output's shape when it is an FFT's): the
    # whole result may be used
    prev = int(outer[i - 1]) if i > 0 and ctx.track_code[outer[i - 1]] == track else -1
    for j in range(last + 1, min(last + 1 + SCAN, len(outer))):
        q = int(outer[j])
        if (names[j] == names[i] and first[q] == first[outer[i]]) or \
                (prev >= 0 and names[j] == names[i - 1] and first[q] == first[prev]):
            break
        if first[q] == out:
            return None
    return frac, last, carried


def discarded_output(ctx, th):
    """Matrix products whose output the following ops slice to ``max_kept`` of it or less, nothing else
    using it. Gain: replay with each at the kept fraction of its time."""
    outer = _outer_ops(ctx)
    products = np.flatnonzero(ctx.flag(PRODUCT_RE)[outer] | ctx.flag(FFT_RE)[outer]) if len(outer) else outer
    if not len(products) or not ctx.flag(TAKE_RE).any():
        return
    names = [str(n) for n in ctx.names(outer)]
    first = _first_shapes(ctx)
    codes, table = _table(ctx, "shapes")
    hits = []   # (row, output shape, kept fraction, rows of the elementwise ops carrying it)
    for i in products:
        r = outer[i]
        if codes[r] < 0:
            continue
        out = computed_output(names[i], table[codes[r]], _concrete(ctx, r))
        if not out or math.prod(out) < th["min_elements"]:
            continue
        got = _kept(ctx, outer, names, first, i, out)
        if got and got[0] <= th["max_kept"]:
            hits.append((int(r), out, got[0], got[2]))
    if not hits:
        return
    rows = np.array([h[0] for h in hits] + [q for h in hits for q in h[3]], dtype=np.int64)
    t = covered_spans_ns(ctx, ctx.start[rows], ctx.end[rows])
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    factor = np.ones(ctx.n)
    for r, _, frac, carried in hits:
        factor[[r, *carried]] = frac
    gain, conf = _factor_gain(ctx, rows, factor)
    r0, out0, frac0, carried0 = max(hits, key=lambda h: ctx.dur[h[0]])
    name = str(ctx.names(np.array([r0]))[0])
    shape = "x".join(map(str, out0))
    also = f" (and {len(carried0)} elementwise op(s) on it)" if carried0 else ""
    title = (f"{name} computes a {shape} result{also} of which only {100 * frac0:.2g}% is kept by the slice after it "
             f"({len(hits)} call{'s' if len(hits) > 1 else ''}, {F.ns(t)}, {pct(t, ctx.wall):.0f}% of end-to-end)")
    yield make_finding(
        ctx, "discarded_output", "redundant", title,
        evidence={"calls": len(hits), "output_shape": list(out0), "kept_fraction": float(frac0), "time_ns": int(t),
                  "products": [{"dur_ns": int(ctx.dur[r]), "output_shape": list(o), "kept_fraction": float(f),
                                "carried_by": [str(n) for n in ctx.names(np.asarray(c, dtype=np.int64))]}
                               for r, o, f, c in hits[:10]]},
        ops=top_names(ctx, rows, 3),
        suggestion=("Slice the input instead of the output: compute the product only for the rows you keep "
                    "(e.g. lm_head(hidden[:, -1, :]) instead of lm_head(hidden)[:, -1, :]; W @ x[idx] instead of "
                    "(W @ x)[idx]); for the FFT of a real signal use torch.fft.rfft, which computes only the n // 2 + 1 "
                    "bins that are not mirror images: each output element costs the same, so the work drops to the "
                    "kept share."),
        gain_ns=gain, method=METHOD_CP + " (each product at the kept fraction of its time)", confidence=conf * 0.6,
        rows=rows, affected_ns=t)
