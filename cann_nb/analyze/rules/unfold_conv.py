"""``unfold_conv``: a convolution written by hand as im2col and a matmul (``F.unfold(x, k)`` then
``weight.view(c_out, -1) @ cols``): the column tensor holds every input value k_h x k_w times, written to
memory and read back, where ``F.conv2d`` (oneDNN, cuDNN) computes from the input directly.

Reasoned from the trace: an ``aten::im2col`` whose output, ``(B, C k_h k_w, L)`` from its recorded input
shape and kernel size, a matrix product at its level takes within the next few ops. Gain: the im2col calls
removed, replayed (the product stays: a convolution does its FLOPs), so the column tensor's traffic in the
product is not counted either way.
"""

from __future__ import annotations

import re

import numpy as np

from ... import formatting as F
from ..timeline import next_at_level, outermost
from .base import METHOD_CP, covered_ns, make_finding, pct
from .redundant import list_arg

IM2COL_RE = re.compile(r"^aten::(im2col|unfold_im2col)$")
LOOKAHEAD = 4   # ops after the im2col, at its level, where the product that takes its columns may start


def unfold_conv(ctx, th):
    """im2col calls (F.unfold) whose columns a matrix product takes: a hand-written convolution. Gain: the
    im2col calls removed, replayed."""
    found = _unfolds(ctx, th)
    if not found:
        return
    rows = np.array([r for r, _ in found], dtype=np.int64)
    t = covered_ns(ctx, rows)
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    from .compute import _factor_gain
    gain, conf = _factor_gain(ctx, rows, np.zeros(ctx.n))
    first = max(found, key=lambda x: ctx.dur[x[0]])
    title = (f"A convolution written as im2col and a matmul, {len(found):,} time(s) ({first[1]}): the unfolded columns "
             f"take {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end) to write")
    sugg = ("Call the convolution directly: F.conv2d(x, weight, bias, padding=...) (nn.Conv2d; conv1d/conv3d likewise) "
            "computes from the input without the k_h x k_w times larger column tensor; keep unfold for what "
            "is not a convolution (patch extraction), and fold the matmul weight back with weight.view(c_out, c_in, "
            "k_h, k_w).")
    yield make_finding(ctx, "unfold_conv", "memory", title, evidence={"unfolds": len(found), "time_ns": t,
                                                                      "example": first[1]},
                       ops=sorted({str(n) for n in ctx.names(rows)}), suggestion=sugg, gain_ns=gain,
                       method=METHOD_CP + " (the im2col calls removed; the product stays)", confidence=conf * 0.6,
                       rows=rows, affected_ns=t)


def _unfolds(ctx, th) -> list[tuple[int, str]]:
    from .compute import MATMUL_RE, _parse_list
    rows = np.flatnonzero(ctx.flag(IM2COL_RE) & ctx.is_host)
    if not len(rows) or "concrete" not in ctx.events:
        return []
    rows = outermost(ctx, rows)
    shapes = ctx.events["shapes"].astype(str).to_numpy()
    mm = ctx.flag(MATMUL_RE)
    out = []
    for r in rows:
        shp, kernel = _parse_list(shapes[r]), list_arg(ctx, r, 1)
        x = shp[0] if shp and isinstance(shp[0], list) else None
        if not x or len(x) not in (3, 4) or kernel is None or len(kernel) != 2:
            continue
        b, c = (x[0], x[1]) if len(x) == 4 else (None, x[0])
        rows_of_cols = c * int(kernel[0]) * int(kernel[1])
        if rows_of_cols <= c:
            continue   # a 1 x 1 kernel copies nothing
        for j in next_at_level(ctx, r, LOOKAHEAD):
            ops = _parse_list(shapes[j]) if mm[j] else []
            if any(isinstance(o, list) and len(o) >= 2 and o[-2] == rows_of_cols and (b is None or o[0] == b)
                   for o in ops):
                out.append((int(r), f"{ctx.names([r])[0]} of {x} with a {kernel[0]} x {kernel[1]} kernel into "
                                    f"{rows_of_cols}-row columns, then {ctx.names([j])[0]}"))
                break
    return out
