"""The repeated-values rule: a Python function or string method run once per element of a column that
holds few distinct values (``df["city"].str.strip().str.title()``, ``s.apply(parse)`` over a million rows
of a few hundred categories): the same result computed again for every repeat.

Reasoned from the work: the Python tracer's line samples (collect/line_arrays.py) give the Series a line
reads, its length and the share of distinct values in an evenly strided sample; the line's source says it
runs work per element (``.str.*``, ``.apply``, ``.map`` of a function, a comprehension). Per-element work
takes time in proportion to the elements it runs on, so computing on the distinct values once and mapping
back keeps the distinct share of it. Gain: the line's time scaled by its column's distinct share, replayed.
"""

from __future__ import annotations

from ... import formatting as F
from ..line_arrays import line_arrays
from .arrays import finding_from_lines, where
from .base import pct


def repeated_values(ctx, th):
    """Lines with per-element work over a Series of ``min_rows`` values or more whose distinct share is
    ``max_distinct`` or less. Gain: each line's time scaled by that share."""
    la = line_arrays(ctx)
    if la.empty or "work" not in la:
        return
    flagged = []
    for rec in la.to_dict("records"):
        work = rec.get("work")
        if not isinstance(work, list) or "per_element" not in work or not len(rec["rows"]):
            continue
        cols = [o for o in rec["operands"] if o.get("role") == "in" and o.get("kind") == "Series"
                and o["shape"][0] >= th["min_rows"] and o.get("distinct", 1.0) <= th["max_distinct"]]
        if not cols:
            continue
        o = max(cols, key=lambda o: o["shape"][0])
        flagged.append((rec, 1.0 - o["distinct"],
                        f"{o['name']} ({o['shape'][0]:,} values, {o['dtype']}, {100 * o['distinct']:.2g}% distinct "
                        "in a strided sample)"))
    if not flagged:
        return

    def title(first, t):
        return (f"Line {where(first[0]['file_line'])} runs per-element work on repeated values: {first[2]}; "
                f"{F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end)")

    sugg = ("Compute once per distinct value and map the results back: u = s.unique(); s.map(dict(zip(u, f(u)))) "
            "(or codes, u = pd.factorize(s); f(u)[codes]); a 'category' column runs .str methods on its categories "
            "only (s.astype('category').str.lower()); functools.lru_cache on the per-element function.")
    yield from finding_from_lines(ctx, th, "repeated_values", "redundant", flagged, title, sugg,
                                  " (each line's time scaled by its column's distinct share)",
                                  {"max_distinct": th["max_distinct"], "min_rows": th["min_rows"]})
