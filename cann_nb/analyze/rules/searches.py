"""``linear_search``: a list scanned item by item for a key, again for every key looked up.

``for c in customers: if c["id"] == order["customer_id"]: ... break`` inside a loop over orders (or in a
function called per order) compares up to the whole list for each lookup: orders x customers comparisons
where a dict built once, ``by_id = {c["id"]: c for c in customers}``, answers each lookup in one step.

Read from the source (collect/loop_facts.py: a ``for`` loop whose body holds ``if <item's key> == <key>:``
ending in ``break`` or ``return``) and from the Python tracer's lines: the search loop's share of its
function's traced line time, applied to the function's whole time (its lines stop being traced once
their budget is spent) and net of the profiler's records. Gain: that time less two searches' worth
(building the dict is one pass over the list; the lookups are nearly free), replayed.
"""

from __future__ import annotations

import numpy as np

from ... import formatting as F
from ..python_spans import call_kinds, place_parts, places, user_frames
from .base import METHOD_CP, covered_ns, make_finding, pct
from .compute import _factor_gain
from .host import recording_in_subtree


def _nested(loop: dict, loops: list[dict]) -> dict | None:
    """The loop of the same file that encloses ``loop`` most closely, if any."""
    outer = [lp for lp in loops if lp["file"] == loop["file"] and lp["line"] < loop["line"]
             and loop["end"] <= lp["end"] and not lp.get("comprehension")]
    return max(outer, key=lambda lp: lp["line"]) if outer else None


def linear_search(ctx, th):
    """A search loop (module docstring) run ``min_searches`` times or more (its enclosing loop's passes, or
    its function's calls) holding ``min_pct`` or more of the run. Gain: see the module docstring."""
    loops = ((ctx.meta.get("collectors") or {}).get("python") or {}).get("loops") or []
    todo = [lp for lp in loops if lp.get("search")]
    if not todo or "file_line" not in ctx.events or not ctx.n:
        return
    codes = places(ctx)[0]
    line_rows = np.flatnonzero(call_kinds(ctx)["line"] & user_frames(ctx) & (codes >= 0))
    files, numbers = (part[codes[line_rows]] for part in place_parts(ctx))
    parent = ctx.rows_of_parent
    rec = recording_in_subtree(ctx)
    for loop in todo:
        mine = line_rows[(files == loop["file"]) & (numbers >= loop["line"]) & (numbers <= loop["end"])]
        if not len(mine):
            continue
        frames = np.unique(parent[mine])
        frames = frames[frames >= 0]
        if not len(frames):
            continue
        # all calls of the function the loop is in (also those whose lines were no longer traced)
        calls = np.flatnonzero(ctx.name_code == ctx.name_code[frames[0]])
        traced = line_rows[np.isin(parent[line_rows], frames)]
        traced_ns = max(covered_ns(ctx, traced), 1)
        calls_ns = float(ctx.dur[calls].sum())
        bare_ns = float((ctx.dur[calls] - rec[calls]).sum())
        share = covered_ns(ctx, mine) / traced_ns
        inner_ns = share * bare_ns
        outer = _nested(loop, loops)
        if outer is not None:
            head = line_rows[(files == loop["file"]) & (numbers == outer["line"]) & np.isin(parent[line_rows], frames)]
            searches = len(head) - len(frames)   # a for line runs once more than its passes
        else:
            searches = len(calls)
        if searches < th["min_searches"] or pct(inner_ns, ctx.wall_without_recording) < th["min_pct"]:
            continue
        # lines stop being traced once their budget is spent: the passes counted are those of the traced part
        more = calls_ns > 1.5 * traced_ns
        keep = min(1.0, 2.0 / (searches * max(1.0, calls_ns / traced_ns)))
        removable = inner_ns * (1.0 - keep)
        factor = np.ones(ctx.n)
        factor[calls] = max(0.0, 1.0 - removable / max(bare_ns, 1.0))
        gain, conf = _factor_gain(ctx, calls, factor)
        label = str(ctx.names(mine[:1])[0])
        counted = f"{searches:,} traced, more past the line budget" if more else f"{searches:,} times"
        title = (f"A linear search repeated for every lookup ({counted}): the loop at {loop['file'].rsplit('/', 1)[-1]}:"
                 f"{loop['line']} scans a sequence item by item for a key (if ... == ...: break, line "
                 f"{loop['search']}), about {F.ns(inner_ns)} without the profiler, "
                 f"{pct(inner_ns, ctx.wall_without_recording):.0f}% of the run")
        yield make_finding(
            ctx, "linear_search", "redundant", title,
            evidence={"loop": f"{loop['file']}:{loop['line']}", "search_line": loop["search"], "searches_traced": int(searches),
                      "enclosing_loop": f"{outer['file']}:{outer['line']}" if outer else None,
                      "search_ns": inner_ns, "share_of_function": share, "first_line": label},
            ops=[label], suggestion=(
                "Index the sequence by its key once, before the loop: by_id = {c['id']: c for c in customers}, then "
                "c = by_id.get(key) per lookup (a set for a membership test; pandas merge/map or np.searchsorted on "
                "sorted keys for columns). Each lookup is then one hash probe instead of a scan."),
            gain_ns=gain, method=METHOD_CP + " (the search loop's time, from its share of its function's traced "
            "lines, less two searches' worth)", confidence=conf * 0.7, rows=mine, affected_ns=inner_ns)

