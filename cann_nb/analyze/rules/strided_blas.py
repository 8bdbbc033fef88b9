"""Matrix products numpy cannot give to BLAS, from the Python tracer's line samples (collect/line_arrays.py:
each strided float array's ``blas_ready``):

* ``strided_matmul``: ``X[:, ::2] @ w`` with the view made before the loop. numpy's matmul hands a matrix
  to BLAS only when one of its axes has unit stride (``is_blasable2d``); a view with a step on both axes
  goes through numpy's own strided loop, one element at a time, several times slower than BLAS.

Gain reasons from the work: the line's time less a BLAS product of the same FLOPs (two per multiply-add
of the strided matrix against the operand it multiplies) at ``roof_frac`` of the measured CPU peak, or of
its bytes at the measured bandwidth, whichever is longer, plus one contiguous copy of the matrix per run
where the line reads a new view each run (once, before the loop, where it reads the same view). Without
measured peaks, no estimate.
"""

from __future__ import annotations

import math

from ... import formatting as F
from ..efficiency.roofline import peaks_for
from ..line_arrays import line_arrays
from .arrays import finding_from_lines, where
from .base import pct


def _other_dim(strided: dict, others: list[dict]) -> int:
    """The columns of the product: the size of the other operand beyond the dimension it shares with the
    strided matrix (1 for a vector; 1 where no operand's shape matches: the product is at least a mat-vec)."""
    r, c = strided["shape"][-2:]
    best = 1
    for o in others:
        size = math.prod(o["shape"])
        for d in o["shape"]:
            if d in (r, c) and d > 1:
                best = max(best, size // d)
                break
    return best


def strided_matmul(ctx, th):
    """Lines doing a matrix product (``@``, np.dot, np.matmul) with a float matrix of ``min_bytes`` or more
    that has no unit-stride axis (``blas_ready`` False). Gain: see the module docstring."""
    la = line_arrays(ctx)
    if la.empty or "work" not in la:
        return
    peaks = peaks_for(ctx.profile, "cpu")
    bw = peaks.bytes_per_s
    flagged = []
    for rec in la.to_dict("records"):
        work = rec.get("work")
        if not isinstance(work, list) or "matmul" not in work or not len(rec["rows"]):
            continue
        ins = [o for o in rec["operands"] if o.get("role") in ("in", "inout") and o.get("kind") == "ndarray"]
        bad = [o for o in ins if o.get("blas_ready") is False and o["nbytes"] >= th["min_bytes"]]
        if not bad:
            continue
        s = max(bad, key=lambda o: o["nbytes"])
        others = [o for o in ins if o is not s]
        item = s["nbytes"] / max(math.prod(s["shape"]), 1)
        fps = peaks.flops_for({4: "fp32", 8: "fp64"}.get(int(item), "fp64"))
        if not (math.isfinite(fps) and fps > 0 and math.isfinite(bw) and bw > 0):
            continue
        flops = 2.0 * math.prod(s["shape"]) * _other_dim(s, others)
        moved = s["nbytes"] + sum(o["nbytes"] for o in others)
        blas_ns = 1e9 * max(flops / fps, moved / bw) / th["roof_frac"]
        copy_ns = 0.0 if s.get("same_object") else 1e9 * 2.0 * s["nbytes"] / bw   # read the view, write a copy
        run_ns = float(ctx.dur[rec["rows"]].sum()) / len(rec["rows"])
        frac = max(0.0, 1.0 - (blas_ns + copy_ns) / max(run_ns, 1.0))
        flagged.append((rec, frac, f"{s['name']} {tuple(s['shape'])} {s['dtype']}, a view with no unit-stride axis"))
    if not flagged:
        return

    def title(first, t):
        return (f"Line {where(first[0]['file_line'])} multiplies a matrix numpy cannot give to BLAS ({first[2]}): "
                f"numpy's own strided loop, {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end)")

    sugg = ("Copy the view once, before the loop, so one of its axes has unit stride: Xs = np.ascontiguousarray("
            "X[:, ::2]) (or X[:, ::2].copy()); then every product is a BLAS call. A view with a step on one axis only "
            "(X[:, :k], X[::2]) is fine as it is; X[:, ::2] and X[::2, ::3] are not.")
    yield from finding_from_lines(ctx, th, "strided_matmul", "layout", flagged, title, sugg,
                                  " (each line's time less a BLAS product of its FLOPs at roof_frac of the "
                                  "measured CPU peak, or of its bytes at the measured bandwidth, and a contiguous copy "
                                  "where the view is new each run)", {"roof_frac": th["roof_frac"]})
