"""``builtin_on_array``: a Python built-in walking a numpy array or pandas Series element by element
(``sum(a)``, ``max(a)``, ``sorted(a)``, ``any(a > 0)`` on a name holding the array).

The built-in asks the array for one element at a time: each becomes a numpy scalar object, and the
arithmetic or comparison on it runs in the interpreter's object protocol, ~30-400 ns per element (measured
here, 10^6 float64: sum 40 ms against a.sum() 0.34 ms, sorted 422 ms against np.sort 6 ms). The array's
own method does the same work in one pass of compiled code. Reasoned from the work: what remains is one
pass over the array's bytes at the machine's memory bandwidth (log2 n passes for a sort), the rest of the
built-in's time goes.

Evidence: the Python tracer's C-call spans of the built-in under the line, and the line sampler's
description of the name the source hands it (collect/source_facts.py ``iterated``).
"""

from __future__ import annotations

import math

import numpy as np

from ... import formatting as F
from ..efficiency.roofline import peaks_for
from ..line_arrays import line_arrays
from ..python_spans import call_kinds
from .arrays import finding_from_lines, where

# built-ins with an array method doing the same work in compiled code (list/tuple/set of an array still
# make one Python object per element either way: a.tolist() is barely faster)
REPLACEMENT = {"sum": "{x}.sum()", "min": "{x}.min()", "max": "{x}.max()", "sorted": "np.sort({x})",
               "any": "{x}.any()", "all": "{x}.all()"}
ARRAY_KINDS = ("ndarray", "Series")


def builtin_on_array(ctx, th):
    """A line handing an array or Series of ``min_elements`` or more to a built-in that iterates it
    (``REPLACEMENT``). Gain: the built-in's time under the line less one pass over the array's bytes at the
    measured memory bandwidth (log2 n passes for ``sorted``)."""
    la = line_arrays(ctx)
    if la.empty or "call_kind" not in ctx.events:
        return
    kinds = call_kinds(ctx)
    bw = None   # the machine's measured bandwidth, looked up at the first candidate (measuring it takes seconds)
    c_rows = np.flatnonzero(kinds["c"])
    parent = ctx.rows_of_parent[c_rows]
    flagged = []
    for rec in la.to_dict("records"):
        ops = [o for o in rec["operands"] if o.get("role") == "in" and o.get("iterated_by") in REPLACEMENT
               and o.get("kind") in ARRAY_KINDS]
        if not ops or not len(rec["rows"]):
            continue
        o = max(ops, key=lambda o: o["nbytes"])
        n = int(np.prod(o["shape"])) if o.get("shape") else 0
        if n < th["min_elements"]:
            continue
        fn = o["iterated_by"]
        mine = c_rows[np.isin(parent, rec["rows"])]
        mine = mine[ctx.names(mine).astype(str) == f"builtins.{fn}"] if len(mine) else mine
        if not len(mine):
            continue
        if bw is None:
            bw = peaks_for(ctx.profile, "cpu").bytes_per_s
            bw = bw if math.isfinite(bw) and bw > 0 else float("inf")
        t = float(ctx.dur[mine].sum())
        runs = max(len(mine), 1)
        passes = math.log2(max(n, 2)) if fn == "sorted" else 1.0
        keep = runs * o["nbytes"] * passes / bw * 1e9
        frac_of_calls = max(0.0, 1.0 - keep / max(t, 1.0))
        # the line's removable share: the built-in's calls' share of the line, less what a pass keeps
        line_t = float(ctx.dur[rec["rows"]].sum())
        frac = min(1.0, t / max(line_t, 1.0)) * frac_of_calls
        flagged.append((rec, frac, f"{fn}({o['name']}) over {n:,} elements of {o['kind']} {o['dtype']}: "
                                   f"{F.ns(t)} in {runs:,} call(s); {REPLACEMENT[fn].format(x=o['name'])} does it "
                                   "in compiled code"))
    if not flagged:
        return

    def title(first, t):
        return (f"Line {where(first[0]['file_line'])} iterates an array with a Python built-in, element by element "
                f"({first[2].split(':')[0]}): {F.ns(t)} ({100.0 * t / ctx.wall:.0f}% of end-to-end) in "
                f"{len(flagged)} line(s)")

    sugg = ("Use the array's own methods, which run in compiled code: a.sum(), a.min(), a.max(), np.sort(a), a.any(), "
            "a.all() (for a Series s.sum() and the like) instead of sum(a), min(a), max(a), sorted(a), any(a), all(a): "
            "the built-ins make a Python object of every element.")
    yield from finding_from_lines(ctx, th, "builtin_on_array", "host_bound", flagged, title, sugg,
                                   " (the built-in's time less one pass over the array's bytes at the measured memory "
                                   "bandwidth; log2 n passes for a sort)",
                                   {"min_elements": th["min_elements"], "bytes_per_s": bw if bw != float("inf") else None})
