"""``recomputed_lines``: a line of the user's code that, run again, read the inputs it had read and made
what it had made -- a KD-tree rebuilt from the same static map for every frame, a matrix validated and
copied again on every call, a lookup table recomputed per batch -- while the lines around it work on new
data. The numpy, scipy and pandas counterpart of ``recomputed_values`` (torch's value numbering): CPython
raises no event for the library work inside a line, so the Python tracer fingerprints the line's inputs
and results on its two sampled runs instead (collect/line_arrays.py, ``same_work``).

Reasoned from the work, not from names: a line whose inputs (``min_data_bytes`` of data or more: below it
the work is on metadata) and results were the same on both runs computes a pure function of unchanged
inputs, so one run serves all of them. It must share its function with a line that did other work on
data on its second run (the new frame, the batch's rows): in a loop whose every line repeats, the repetition is
the loop's own (a timing loop over one input), as recomputed_values treats it. Gain: the line's runs
brought down to one run's time (its median), replayed.
"""

from __future__ import annotations

import numpy as np

from ... import formatting as F
from ..line_arrays import line_arrays, line_function
from .arrays import finding_from_lines, where
from .base import pct


def _inputs(rec) -> str:
    ins = [o for o in rec["operands"] if o.get("role") == "in"]
    ins.sort(key=lambda o: -o.get("nbytes", 0))
    return ", ".join(f"{o['name']} ({'x'.join(f'{s:,}' for s in o['shape'])} {o['dtype']})" for o in ins[:3])


def recomputed_lines(ctx, th):
    """Lines run ``min_runs`` times or more whose two sampled runs read the same inputs (``min_data_bytes``
    of data or more) and made the same results, in a function where another line made new data. Gain: each
    line's runs at one run's time."""
    la = line_arrays(ctx)
    if la.empty or "same_work" not in la:
        return
    recs = la.to_dict("records")
    # functions with a line doing other work on data each run (reading another batch, drawing new values)
    fresh = {line_function(ctx, r) for r in recs if r.get("same_work") is False and len(r["rows"])
             and (r.get("work_makes_data") or r.get("work_input_bytes"))}
    flagged = []
    for rec in recs:
        rows = rec["rows"]
        if rec.get("same_work") is not True or len(rows) < th["min_runs"] \
                or (rec.get("work_input_bytes") or 0) < th["min_data_bytes"] or line_function(ctx, rec) not in fresh:
            continue
        dur = ctx.dur[rows].astype(float)
        total, one = float(dur.sum()), float(np.median(dur))
        flagged.append((rec, max(0.0, 1.0 - one / max(total, 1.0)),
                        f"{_inputs(rec) or 'the same inputs'} read again, the same result made {len(rows):,} times"))
    if not flagged:
        return

    def title(first, t):
        return (f"Line {where(first[0]['file_line'])} recomputes the same result from unchanged inputs: "
                f"{first[2]}; {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end)")

    sugg = ("Its inputs did not change between runs and it made the same result each time: compute it once, "
            "before the loop or at the caller, and pass the result in (or cache it keyed by the inputs). An "
            "index or factorisation built from fixed data (a KD-tree, scipy.sparse.linalg.splu / factorized, "
            "scipy.linalg.cho_factor, a fitted scaler) serves every later query; a conversion or copy of an "
            "array that is already in the right dtype and layout (np.array(x, dtype=float), x.astype(...)) can "
            "be np.asarray(x, dtype=...) or astype(..., copy=False), done once.")
    yield from finding_from_lines(ctx, th, "recomputed_lines", "redundant", flagged, title, sugg,
                                  " (each line's runs at one run's time: computed once)",
                                  {"min_runs": th["min_runs"], "min_data_bytes": th["min_data_bytes"]})
