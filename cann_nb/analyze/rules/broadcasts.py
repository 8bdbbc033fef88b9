"""``repeated_rows`` on both sources: an array or tensor built by repeating another along new or size-1
dimensions, a broadcast written out to memory and read back.

* numpy (``np.tile``, ``np.repeat`` of a vector): from the Python tracer's line samples (arrays.repeated_rows);
* a framework's trace: ``aten::repeat`` (``x.unsqueeze(0).repeat(b, 1, 1)`` so that ``bmm`` takes a shared
  matrix, ``torch.tile``), its repeat counts from the trace's concrete inputs: each call copies its input
  ``prod(repeats)`` times where ``expand`` (a view) or a broadcasting matmul (``q @ keys.T``) reads it once.

Gain (trace): the repeat calls removed, replayed; what the ops reading the copies lose to them (a batched
matmul re-reading identical copies through the cache) is not counted, so it is a lower bound.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ... import formatting as F
from ..efficiency.tensors import parse_inputs
from ..timeline import outermost
from . import arrays
from .base import METHOD_CP, covered_ns, make_finding, pct
from .redundant import list_arg

REPEAT_OP_RE = re.compile(r"^aten::(repeat|tile)$")


def repeated_copies(ctx, th):
    """Tensors repeated to ``min_bytes`` or more by ``aten::repeat``/``tile`` in a framework's trace; else
    numpy's tiled arrays on traced lines (arrays.repeated_rows)."""
    found = _repeat_ops(ctx, th)
    if not found:
        yield from arrays.repeated_rows(ctx, th)
        return
    rows = np.array([r for r, _, _ in found], dtype=np.int64)
    t = covered_ns(ctx, rows)
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    from .compute import _factor_gain
    gain, conf = _factor_gain(ctx, rows, np.zeros(ctx.n))
    copies = sum(c for _, c, _ in found)
    first = max(found, key=lambda x: ctx.dur[x[0]])
    title = (f"{len(found):,} tensor(s) repeated into copies ({first[2]}): broadcasts written to memory, "
             f"{copies:,} copies in all, {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end)")
    sugg = ("Let broadcasting stretch the tensor instead of copying it: x.expand(b, -1, -1) is a view (no copy) "
            "where a full-shape tensor is needed, and a matmul broadcasts a shared matrix itself (q @ keys.T, "
            "torch.matmul(q, keys.transpose(0, 1)) instead of bmm against keys.repeat(b, 1, 1)); repeat() only "
            "where each copy is then written separately.")
    yield make_finding(ctx, "repeated_rows", "memory", title,
                       evidence={"repeats": len(found), "copies": copies, "time_ns": t, "example": first[2]},
                       ops=sorted({str(n) for n in ctx.names(rows)}), suggestion=sugg, gain_ns=gain,
                       method=METHOD_CP + " (the repeat calls removed; the readers of the copies not counted)",
                       confidence=conf * 0.6, rows=rows, affected_ns=t)


def _repeat_ops(ctx, th) -> list[tuple[int, int, str]]:
    """(row, copies made, description) of each outermost repeat op making ``min_bytes`` or more."""
    rows = np.flatnonzero(ctx.flag(REPEAT_OP_RE) & ctx.is_host)
    if not len(rows) or "concrete" not in ctx.events:
        return []
    rows = outermost(ctx, rows)   # tile's own repeat: counted once
    shapes, dtypes = ctx.events["shapes"].to_numpy(), ctx.events["dtypes"].to_numpy()
    out = []
    for r in rows:
        inputs, reps = parse_inputs(shapes[r], dtypes[r]), list_arg(ctx, r, 1)
        if not inputs or inputs[0] is None or not reps:
            continue   # no tensor or no concrete repeat counts recorded
        copies = math.prod(reps)
        made = copies * inputs[0].nbytes
        if copies < 2 or made < th["min_bytes"]:
            continue
        out.append((int(r), copies, f"{ctx.names([r])[0]} of {list(inputs[0].dims)} by {reps}, {F.nbytes(made)}"))
    return out
