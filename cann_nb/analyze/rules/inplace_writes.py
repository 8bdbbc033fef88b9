"""``copy_slices_backward``: slices written one by one into a tensor autograd tracks (``traj[:, t] = state``
in a loop), whose backward copies the whole tensor's gradient once per write.

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
