"""``threshold_sweep``: one tensor compared with a scalar again and again in a loop (a sweep of thresholds
for an ROC curve, a histogram by one comparison per bin edge, counting values per cut-off), each comparison a
pass over the whole tensor with the passes that follow it (``&``, ``sum``).

Reasoned from the work: T thresholds over n values cost T x (passes) x n element operations; one sort of the
values and a binary search per threshold (``torch.searchsorted``, ``torch.bucketize``, ``torch.histc``) cost
about n log2 n + T log2 n. Evidence (recorded shapes, the default): comparison ops (ge/gt/le/lt/eq/ne) whose
first input has the same shape S of ``min_elements`` or more and whose second is a scalar or a 0-d tensor,
``min_compares`` or more of them in a stretch of ops that take S or only scalars (the loop). Gain: the ops of
the stretch that take S, at the share log2(n) / (their count) of their time (the sort that replaces them).
"""

from __future__ import annotations

import math
import re

import numpy as np

from ... import formatting as F
from .base import METHOD_CP, covered_ns, make_finding, pct
from .compute import _factor_gain
from .redundant import _outer_ops, _shape_of, _table

COMPARE_RE = re.compile(r"^aten::(ge|gt|le|lt|eq|ne)$")


def threshold_sweep(ctx, th):
    codes, table = _table(ctx, "shapes")
    outer = _outer_ops(ctx)
    if not len(table) or not len(outer):
        return
    # per distinct shapes string: the first input's shape, and whether every other input is a scalar / 0-d
    first = [(_shape_of(t[0]) if t else None) for t in table] + [None]
    rest_scalar = np.array([all(not _shape_of(x) for x in t[1:]) for t in table] + [True])
    scalar_only = np.array([all(not _shape_of(x) for x in t) for t in table] + [True])
    code = np.where(codes[outer] >= 0, codes[outer], len(table))
    is_cmp = ctx.flag(COMPARE_RE)[outer] & rest_scalar[code]
    big = np.array([f is not None and math.prod(f) >= th["min_elements"] for f in first])
    cand = np.flatnonzero(is_cmp & big[code])
    if len(cand) < th["min_compares"]:
        return
    # the most compared shape first; stretches of ops over it (or scalars only) on one track
    shapes = [first[c] for c in code[cand]]
    best = max(set(shapes), key=shapes.count)
    over = np.array([first[c] == best for c in range(len(first))])[code]
    inside = over | scalar_only[code]
    track = ctx.track_code[outer]
    brk = np.ones(len(outer), dtype=bool)
    brk[1:] = ~inside[1:] | ~inside[:-1] | (track[1:] != track[:-1])
    run_id = np.cumsum(brk)
    cmp_best = is_cmp & over
    per_run = np.bincount(run_id[cmp_best], minlength=run_id.max() + 1)
    hot = np.flatnonzero(per_run >= th["min_compares"])
    if not len(hot):
        return
    rows = outer[np.isin(run_id, hot) & over]
    t = covered_ns(ctx, rows)
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    n = math.prod(best)
    per_sweep = float(np.mean([np.count_nonzero((run_id == h) & over) for h in hot]))
    keep = min(1.0, math.log2(max(n, 2)) / max(per_sweep, 1.0))
    factor = np.ones(ctx.n)
    factor[rows] = keep
    gain, conf = _factor_gain(ctx, rows, factor)
    compares = int(per_run[hot].sum())
    title = (f"A {' x '.join(map(str, best))} tensor compared with {compares:,} scalars in {len(hot)} sweep(s), each "
             f"comparison a pass over all of it: {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end) in the "
             f"{len(rows):,} ops over it")
    yield make_finding(
        ctx, "threshold_sweep", "redundant", title,
        evidence={"shape": list(best), "compares": compares, "sweeps": int(len(hot)), "ops_over_tensor": int(len(rows)),
                  "time_ns": int(t), "kept_share": keep},
        ops=[str(x) for x in ctx.names(rows[:1])],
        suggestion=("Sort the values once and find every threshold by binary search: counts of values >= t are "
                    "n - torch.searchsorted(sorted_values, thresholds) (torch.bucketize / torch.histc for bins; "
                    "sklearn.metrics.roc_curve sorts once too), instead of one comparison and reduction per threshold."),
        gain_ns=gain, method=METHOD_CP + " (the ops over the tensor at log2(n) / their count of their time: one sort)",
        confidence=conf * 0.5, rows=rows, affected_ns=t)
