"""The sparse-format rules: a loop that works on a scipy sparse matrix against its storage format, reading
columns from a CSR matrix or rows from a CSC one (``sparse_order``), or assigning items into a CSR/CSC
matrix (``sparse_inserts``).

From scipy's documentation of the formats: CSR stores each row's values together (fast row slices, "slow
column slicing operations (consider CSC)"), CSC the transpose; "changing the sparsity structure of a CSR
or CSC matrix is expensive" (every insertion shifts the arrays behind it; LIL or DOK, or COO triplets
converted once, are built for that). Each such access costs a pass over the whole structure, so a loop
of them does that pass per run. The line sampler names the matrix, its format, and how the line indexes
it (collect/line_arrays.py, collect/source_facts.py); the trace gives the passes: the long native calls
under the line (self time of ``short_ns`` or more: the scan over the arrays), in most of a slicing line's
runs. Gain: the line's runs brought down to one run's time (one conversion to the right format is one
pass; an access in the matrix's own order, or triplets gathered in lists, costs little), replayed, as
scan_per_key does for a table masked per key.
"""

from __future__ import annotations

import numpy as np

from ... import formatting as F
from ..line_arrays import line_arrays
from ..python_spans import call_kinds
from ..timeline import ancestor_flag
from .arrays import finding_from_lines, where
from .base import pct

ROW_MAJOR = ("csr", "bsr")
COL_MAJOR = ("csc",)


def _against(o: dict, inserts: bool) -> str | None:
    """What the line does against the operand's format (item assignment when ``inserts``, slicing across
    the storage order otherwise), or None."""
    fmt = o.get("order")
    if inserts:
        return f"items assigned into a {fmt.upper()} matrix" if o.get("stored") and fmt in ROW_MAJOR + COL_MAJOR \
            else None
    if fmt in ROW_MAJOR and o.get("indexed") == "columns":
        return f"columns sliced from a {fmt.upper()} matrix"
    if fmt in COL_MAJOR and o.get("indexed") == "rows":
        return "rows sliced from a CSC matrix"
    return None


def _flagged(ctx, th, inserts: bool) -> list[tuple]:
    """(line record, removable share, description) of the lines run ``min_runs`` times or more doing
    ``_against`` to a sparse matrix (slices: most runs making a pass over it; an insertion costs its
    checks, sort and shift at any size): their runs at one run's time."""
    la = line_arrays(ctx)
    if la.empty:
        return []
    c_call = call_kinds(ctx)["c"]
    self_ns = ctx.self_ns.astype(float)
    flagged = []
    for rec in la.to_dict("records"):
        rows = rec["rows"]
        if len(rows) < th["min_runs"]:
            continue
        hits = [(o, _against(o, inserts)) for o in rec["operands"]
                if o.get("role") == "in" and o.get("kind") == "sparse"]
        hits = [(o, what) for o, what in hits if what]   # sizes when sampled (a matrix being filled is empty)
        if not hits:
            continue
        o, what = max(hits, key=lambda h: h[0]["nnz"])
        mark = np.zeros(ctx.n, dtype=bool)
        mark[rows] = True
        under = np.flatnonzero(ancestor_flag(ctx, mark) & c_call & (self_ns >= th["short_ns"]))
        if not inserts and len(under) < max(1, len(rows) // 2):
            continue          # most slices make no pass over the matrix: a small one, cheap either way
        total = float(ctx.dur[rows].sum())
        one = float(np.median(ctx.dur[rows]))
        flagged.append((rec, max(0.0, 1.0 - one / max(total, 1.0)),
                        f"{what} ({o['name']}: {o['shape'][0]:,} x {o['shape'][1]:,}) {len(rows):,} times, "
                        + (f"{len(under):,} passes over its arrays of {F.ns(float(np.median(self_ns[under])))}" if len(under)
                         else f"{F.ns(float(ctx.dur[rows].mean()))} each")))
    return flagged


def _title(ctx, what):
    return lambda first, t: (f"Line {where(first[0]['file_line'])} {what}: {first[2]} ({F.ns(t)}, "
                             f"{pct(t, ctx.wall):.0f}% of end-to-end)")


METHOD = " (each line's runs at one run's time: one pass)"


def sparse_order(ctx, th):
    """Lines run ``min_runs`` times or more that slice a sparse matrix across its storage order, most runs
    making a pass over it. Gain: the line's runs at one run's time."""
    flagged = _flagged(ctx, th, inserts=False)
    sugg = ("Convert once to the format the loop reads: X.tocsc() before taking columns of a CSR matrix, "
            "X.tocsr() before taking rows of a CSC one; or do the work on the whole matrix (X.sum(axis=0), "
            "X.multiply(Y), X.T @ v).")
    yield from finding_from_lines(ctx, th, "sparse_order", "layout", flagged,
                                  _title(ctx, "reads a sparse matrix across its storage order"), sugg, METHOD,
                                  {"min_runs": th["min_runs"]})


def sparse_inserts(ctx, th):
    """Lines run ``min_runs`` times or more that assign items into a CSR/CSC matrix, most runs shifting its
    arrays. Gain: the line's runs at one run's time."""
    flagged = _flagged(ctx, th, inserts=True)
    sugg = ("Build the matrix once: gather (row, col, value) triplets in lists or arrays and convert "
            "(scipy.sparse.coo_array((vals, (rows, cols)), shape=...).tocsr(), duplicates summed), or fill a "
            "LIL/DOK matrix and call .tocsr() at the end, instead of assigning items into CSR/CSC.")
    yield from finding_from_lines(ctx, th, "sparse_inserts", "redundant", flagged,
                                  _title(ctx, "rebuilds a sparse matrix's arrays per item"), sugg, METHOD,
                                  {"min_runs": th["min_runs"]})
