"""In-place writes into tensors that cost far more than the values they write:

* ``copy_slices_backward``: slices written one by one into a tensor autograd tracks (``traj[:, t] = state``
  in a loop), whose backward copies the whole tensor's gradient once per write;
* ``masked_updates``: values updated through a boolean mask (``h[h < 0] *= slope``): the mask is turned into
  indices twice (``nonzero``), the values gathered, changed and scattered back, where one
  ``torch.where(mask, f(x), x)`` (or the activation itself) reads and writes once.

copy_slices_backward:
Each in-place write into a view of a tensor that requires grad records a ``CopySlices`` node; in
backward every such node allocates a buffer of the whole base tensor and copies the incoming gradient
into it, to pass on the part outside the slice: T writes into a base of T slices move T x T slices of
gradient, quadratic in the loop's length where the writes themselves are linear. Reasoned from the work:
the recorded ``CopySlices`` nodes, the base's shape they copy and the slice's shape they pass (recorded
shapes, the default). Collecting the slices in a list and stacking them once makes the backward a split:
each node's work drops to its slice's share. Gain: the nodes' time scaled by that share, replayed.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ... import formatting as F
from ..timeline import level_order, nearest_ancestor
from .base import METHOD_CP, covered_ns, make_finding, pct
from .compute import _factor_gain
from .redundant import _shape_of, _table

COPY_SLICES_RE = re.compile(r"^autograd::engine::evaluate_function: torch::autograd::CopySlices$")


def copy_slices_backward(ctx, th):
    """``min_nodes`` or more CopySlices nodes in backward whose largest copy is ``min_ratio`` times or more
    the slice they pass on."""
    nodes = np.flatnonzero(ctx.flag(COPY_SLICES_RE))
    if len(nodes) < th["min_nodes"]:
        return
    codes, table = _table(ctx, "shapes")
    par = ctx.rows_of_parent
    # every op under a node: climb each row's ancestors to the nearest node (the nodes do not nest)
    is_node = np.zeros(ctx.n, dtype=bool)
    is_node[nodes] = True
    owner = np.full(ctx.n, -1, dtype=np.int64)
    cur = par.copy()
    todo = cur >= 0
    for _ in range(16):
        hit = todo & is_node[np.maximum(cur, 0)]
        owner[hit] = cur[hit]
        todo &= ~hit
        cur = np.where(todo, par[np.maximum(cur, 0)], -1)
        todo &= cur >= 0
        if not todo.any():
            break
    # per distinct recorded-shapes string (few): its largest and smallest tensor; then per node, over its ops
    sizes = [[math.prod(s) for s in (_shape_of(x) for x in t) if s] for t in table]
    big_of = np.array([max(z) if z else 0 for z in sizes] + [0], dtype=float)
    small_of = np.array([min(z) if z else np.inf for z in sizes] + [np.inf], dtype=float)
    inside = np.flatnonzero(owner >= 0)
    code = np.where(codes[inside] >= 0, codes[inside], len(table))
    base = np.zeros(ctx.n)
    piece = np.full(ctx.n, np.inf)
    np.maximum.at(base, owner[inside], big_of[code])
    np.minimum.at(piece, owner[inside], small_of[code])
    ok = nodes[(base[nodes] > 0) & np.isfinite(piece[nodes]) & (base[nodes] >= th["min_ratio"] * piece[nodes])]
    if len(ok) < th["min_nodes"]:
        return
    t = covered_ns(ctx, ok)
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    factor = np.ones(ctx.n)
    factor[ok] = piece[ok] / base[ok]
    gain, conf = _factor_gain(ctx, ok, factor)
    ratio = float(np.median(base[ok] / piece[ok]))
    title = (f"{len(ok):,} in-place slice writes into a tensor autograd tracks each copy the whole tensor's gradient "
             f"in backward (CopySlices, ~{ratio:,.0f}x the slice written): {F.ns(t)} "
             f"({pct(t, ctx.wall):.0f}% of end-to-end), quadratic in the number of writes")
    yield make_finding(
        ctx, "copy_slices_backward", "memory", title,
        evidence={"nodes": int(len(ok)), "time_ns": int(t), "median_base_over_slice": ratio,
                  "base_elements": float(np.median(base[ok])), "slice_elements": float(np.median(piece[ok]))},
        ops=["torch::autograd::CopySlices"],
        suggestion=("Collect the per-step results in a Python list and torch.stack (or torch.cat) them once after the "
                    "loop instead of writing each into a preallocated tensor (traj[:, t] = state): the backward of a "
                    "stack splits the gradient once, where each in-place write's CopySlices node copies the whole "
                    "buffer's gradient."),
        gain_ns=gain, method=METHOD_CP + " (each CopySlices node at its slice's share of the tensor it copies)",
        confidence=conf * 0.6, rows=ok, affected_ns=t)


MASK_WRITE_RE = re.compile(r"^aten::index_put_?$")
MASK_READ_RE = re.compile(r"^aten::index$")
NONZERO_RE = re.compile(r"^aten::nonzero$")


def masked_updates(ctx, th):
    """``min_updates`` or more read-modify-writes through a boolean mask: ``aten::index_put_`` with a
    ``nonzero`` under it (the mask made indices) whose values came from a masked read (``aten::index``, its
    own ``nonzero``) of a tensor of the same shape among the ``look_back`` calls before it. Gain: the read,
    the calls between it and the write (the ``op=`` on the gathered values) and the write's own ``nonzero``,
    replayed; the rest of the write is kept, as the cost of the one ``torch.where`` that replaces them (a
    select as slow as the scatter, measured, on a random half-and-half mask)."""
    has_nz = ctx._has_descendant(ctx.flag(NONZERO_RE))
    puts = np.flatnonzero(ctx.flag(MASK_WRITE_RE) & has_nz & ctx.is_host)
    if len(puts) < th["min_updates"]:
        return
    level, at = level_order(ctx)
    codes, table = _table(ctx, "shapes")
    first = [(_shape_of(t[0]) if t else None) for t in table] + [None]

    def shape(rows):
        return [first[c] for c in np.where(codes[rows] >= 0, codes[rows], len(table))]

    is_read = ctx.flag(MASK_READ_RE) & has_nz
    put_shape = shape(puts)
    removed = np.zeros(ctx.n, dtype=bool)   # the reads and what their values went through
    done = np.zeros(len(puts), dtype=bool)
    i = at[puts]
    for back in range(1, th["look_back"] + 1):   # the nearest masked read of the same shape, same parent
        j = i - back
        cand = level[np.maximum(j, 0)]
        ok = ~done & (j >= 0) & (ctx.rows_of_parent[cand] == ctx.rows_of_parent[puts]) \
            & (ctx.track_code[cand] == ctx.track_code[puts]) & is_read[cand] & ~removed[cand]
        ok &= np.array([a is not None and a == b for a, b in zip(shape(cand), put_shape)], dtype=bool)
        for k in range(back):
            removed[level[(j + k)[ok]]] = True
        done |= ok
    updates = puts[done]
    if len(updates) < th["min_updates"]:
        return
    is_update = np.zeros(ctx.n, dtype=bool)
    is_update[updates] = True
    nz = np.flatnonzero(ctx.flag(NONZERO_RE))
    # the write's own nonzero (under _index_put_impl_): torch.where needs no indices
    removed[nz[nearest_ancestor(ctx, nz, is_update, max_levels=4) >= 0]] = True
    rows = np.flatnonzero(removed)
    t = covered_ns(ctx, np.concatenate([rows, updates]))
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    factor = np.ones(ctx.n)
    factor[rows] = 0.0
    gain, conf = _factor_gain(ctx, rows, factor)
    big = max((s for s, d in zip(put_shape, done) if d and s), key=math.prod, default=None)
    title = (f"{len(updates):,} updates through a boolean mask (x[mask] op= v) each index by the mask twice (nonzero, "
             f"gather, then nonzero, scatter) over tensors of up to {big}: {F.ns(t)} ({pct(t, ctx.wall):.0f}% of "
             "end-to-end) where one torch.where reads and writes once")
    yield make_finding(
        ctx, "masked_updates", "memory", title,
        evidence={"updates": int(len(updates)), "time_ns": int(t), "largest_shape": list(big) if big else None,
                  "removed_ns": int(ctx.dur[rows].sum())},
        ops=["aten::index", "aten::index_put_", "aten::nonzero"],
        suggestion=("Update through the mask with one elementwise op instead of indexing by it: h = torch.where(h < 0, "
                    "h * slope, h), or the op itself (F.leaky_relu(h, slope), torch.clamp, F.relu), which needs no mask "
                    "at all. Indexing by a boolean mask turns it into indices (nonzero: on a GPU a host sync), gathers, "
                    "and x[mask] op= v does it twice."),
        gain_ns=gain, method=METHOD_CP + " (each update's masked read and the ops on its values removed, its write "
                                         "kept as the cost of torch.where)",
        confidence=conf * 0.6, rows=rows, affected_ns=t)
