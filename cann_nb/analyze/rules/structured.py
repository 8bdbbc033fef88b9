"""The structured-operand rule: a matrix product with a diagonal, identity or one-hot matrix built dense
(``X.T @ torch.diag(w) @ X``, ``F.one_hot(labels, C).float() @ W``, ``A @ torch.eye(n)``).

Reasoned from the work: of such an operand's elements only one per row is not zero (n of n x n; one of C
per one-hot row), so the product does that share of its FLOPs usefully, and building the matrix writes
every zero. Broadcasting (``w[:, None] * X``) or indexing (``W[labels]``, an embedding) does the useful
part directly. The structured matrix is followed from the op that builds it (its recorded input shape and
arguments give its shape) through conversions and reshapes of the same number of elements to the product
that takes it (an input of that many elements whose last dim is the structured one). Needs recorded shapes
(the default). Gain: replay with the construction and the conversions removed and the product at the
operand's density.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ... import formatting as F
from .base import METHOD_CP, covered_spans_ns, make_finding, pct, top_names
from .compute import _factor_gain
from .discarded import PRODUCT_RE
from .redundant import _concrete, _int_arg, _outer_ops, _shape_of, _table

BUILD_RE = re.compile(r"^aten::(diag|diag_embed|eye|one_hot)$")
CARRY_RE = re.compile(r"^aten::(to|_to_copy|type_as|float|double|half|bfloat16|reshape|view|contiguous|clone|"
                      r"flatten|unsqueeze|squeeze|t|transpose|permute|numpy_T|mT)$")
FOLLOW = 8   # outer ops after the construction searched for the product that takes it

SUGGESTIONS = {
    "diag": ("Scale by broadcasting instead of multiplying by a diagonal matrix: X.T @ (w[:, None] * X) instead of "
             "X.T @ torch.diag(w) @ X, A * w (columns) or w[:, None] * A (rows) instead of A @ diag(w) / diag(w) @ A."),
    "eye": ("Drop the identity product (A @ I is A); to add to a diagonal, A + c * I becomes "
            "A.diagonal().add_(c) on a copy, or torch.diagonal_scatter."),
    "one_hot": ("Index instead of multiplying by one-hot rows: W[labels] (or nn.Embedding / F.embedding, "
                "index_select) instead of F.one_hot(labels, C).float() @ W; a sum of one-hot rows is a bincount / "
                "index_add_."),
}


def _built(name: str, shapes: list, args: list) -> tuple[tuple, int] | None:
    """(shape of the matrix built, the structured dim's size: one non-zero per row of it), or None."""
    first = _shape_of(shapes[0]) if shapes else None
    if name == "aten::one_hot":
        c = _int_arg(args, 1, -1)
        return (first + (c,), c) if first is not None and c > 1 else None
    if name == "aten::eye":
        n = _int_arg(args, 0, -1)
        m = _int_arg(args, 1, n)
        m = n if m is None or m < 1 else m
        return ((n, m), max(n, m)) if n > 1 else None
    if first and len(first) == 1 and name == "aten::diag":      # diag of a vector builds a matrix
        return (first[0], first[0]), first[0]
    if first and name == "aten::diag_embed":
        return first + (first[-1],), first[-1]
    return None


def structured_operand(ctx, th):
    """Diagonal / identity / one-hot matrices built dense and multiplied in a matrix product, of
    ``min_size`` rows or more. Gain: replay without the construction (and its conversions) and with the
    product at the operand's density."""
    outer = _outer_ops(ctx)
    builds = np.flatnonzero(ctx.flag(BUILD_RE)[outer]) if len(outer) else outer
    if not len(builds):
        return
    names = [str(n) for n in ctx.names(outer)]
    codes, table = _table(ctx, "shapes")
    hits = []   # (kind, built shape, size, build+carry rows, product row)
    for i in builds:
        r = outer[i]
        got = _built(names[i], table[codes[r]] if codes[r] >= 0 else [], _concrete(ctx, r))
        if not got or got[1] < th["min_size"]:
            continue
        shape, size = got
        numel = math.prod(shape)
        carried = [int(r)]
        for j in range(i + 1, min(i + 1 + FOLLOW, len(outer))):
            q = int(outer[j])
            if ctx.track_code[q] != ctx.track_code[r]:
                break
            ins = [_shape_of(s) for s in (table[codes[q]] if codes[q] >= 0 else [])]
            sized = [s for s in ins if s is not None and math.prod(s) == numel]
            if not sized:
                continue
            if PRODUCT_RE.match(names[j]) and any(s[-1] == size for s in sized):
                hits.append((names[i].split("::")[1], shape, size, carried, q))
                break
            if CARRY_RE.match(names[j]) and ins and ins[0] is not None and math.prod(ins[0]) == numel:
                carried.append(q)
    if not hits:
        return
    factor = np.ones(ctx.n)
    rows = []
    for _, _, size, carried, q in hits:
        factor[carried] = 0.0
        factor[q] = 1.0 / size
        rows += [*carried, q]
    rows = np.array(sorted(set(rows)), dtype=np.int64)
    t = covered_spans_ns(ctx, ctx.start[rows], ctx.end[rows])
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    gain, conf = _factor_gain(ctx, rows, factor)
    kind, shape, size, carried, q = max(hits, key=lambda h: ctx.dur[h[4]] + ctx.dur[h[3]].sum())
    what = {"diag": "diagonal", "diag_embed": "diagonal", "eye": "identity", "one_hot": "one-hot"}[kind]
    product = str(ctx.names(np.array([q]))[0])
    title = (f"A {what} matrix of {'x'.join(map(str, shape))} is built dense (aten::{kind}, {100.0 / size:.2g}% of it "
             f"non-zero) and multiplied in {product}: {len(hits)} time{'s' if len(hits) > 1 else ''}, {F.ns(t)} "
             f"({pct(t, ctx.wall):.0f}% of end-to-end)")
    yield make_finding(
        ctx, "structured_operand", "redundant", title,
        evidence={"kind": kind, "shape": list(shape), "nonzero_share": 1.0 / size, "products": len(hits),
                  "time_ns": int(t), "construction_ops": top_names(ctx, np.array(carried), 4)},
        ops=top_names(ctx, rows, 4), suggestion=SUGGESTIONS["diag" if kind == "diag_embed" else kind],
        gain_ns=gain, method=METHOD_CP + " (construction and conversions removed, the product at the operand's "
        "non-zero share)", confidence=conf * 0.7, rows=rows, affected_ns=t)
