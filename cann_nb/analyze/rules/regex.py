"""``regex_recompile``: regular expressions compiled over and over in a loop.

``re.search(pattern, text)`` looks the pattern up in the ``re`` module's cache of compiled patterns (512 in
CPython 3.7-3.12) and compiles it on a miss: parsing the pattern and building the matcher in interpreted
Python, typically tens to hundreds of microseconds, against a microsecond for the match itself. Every call
of the compiler (``re._compiler.compile``; ``sre_compile.compile`` before 3.11) is such a miss, so
thousands of them mean patterns built per call (``r"\\b" + kw + r"\\b"`` with new text each time) or more
distinct patterns in rotation than the cache holds. Reasoned from the work: the compilations are the
waste; each distinct pattern needs compiling once, which the trace cannot count (an upper bound when few
patterns repeat).
"""

from __future__ import annotations

import re

import numpy as np

from ... import formatting as F
from ..python_spans import call_kinds, user_frames
from ..timeline import outermost
from .base import METHOD_CP, covered_spans_ns, make_finding, pct
from .compute import _factor_gain

COMPILER_RE = re.compile(r"^(re\._compiler|sre_compile)\.compile$")
# the module-level functions that compile behind the user's back (an explicit re.compile is a choice to compile)
CONVENIENCE_RE = re.compile(r"^re\.(search|match|fullmatch|sub|subn|split|findall|finditer)$")
CACHE_SIZE = 512   # re._MAXCACHE in CPython 3.7-3.12


def regex_recompile(ctx, th):
    """``min_compiles`` or more calls of the regex compiler from re's module-level functions (``re.search``
    and the like; an explicit ``re.compile`` is the fix). Gain: their time removed (replayed)."""
    if "call_kind" not in ctx.events or not ctx.n:
        return
    kinds = call_kinds(ctx)
    rows = np.flatnonzero(kinds["py"] & ctx.flag(COMPILER_RE))
    via = ctx.flag(CONVENIENCE_RE)
    par = ctx.rows_of_parent
    up = par[rows]                      # re._compile
    up = np.where(up >= 0, par[np.maximum(up, 0)], -1)   # the function that called it
    rows = outermost(ctx, rows[(up >= 0) & via[np.maximum(up, 0)]])
    if len(rows) < th["min_compiles"]:
        return
    t = covered_spans_ns(ctx, ctx.start[rows], ctx.end[rows])
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    factor = np.ones(ctx.n)
    factor[rows] = 0.0
    gain, conf = _factor_gain(ctx, rows, factor)
    typical = float(np.median(ctx.dur[rows]))
    # the user's line the compilations come from: the nearest user frame above the first of them
    user = user_frames(ctx)
    p = int(ctx.rows_of_parent[rows[0]])
    while p >= 0 and not user[p]:
        p = int(ctx.rows_of_parent[p])
    origin = str(ctx.names([p])[0]) if p >= 0 else "?"
    title = (f"Regular expressions compiled {len(rows):,} times ({F.ns(typical)} each typically; re's cache holds "
             f"{CACHE_SIZE} patterns): {F.ns(t)}, {pct(t, ctx.wall):.0f}% of end-to-end, from {origin}")
    yield make_finding(
        ctx, "regex_recompile", "compile", title,
        evidence={"compiles": int(len(rows)), "time_ns": int(t), "typical_ns": typical, "from": origin,
                  "cache_size": CACHE_SIZE},
        ops=[origin], suggestion=("Compile each pattern once, before the loop (pat = re.compile(...); pat.search(text)); "
                                  "for many keywords, one alternation (re.compile(r'\\b(?:' + '|'.join(map(re.escape, "
                                  "words)) + r')\\b')) or a set lookup of the text's tokens; do not build a pattern "
                                  "from each item's text."),
        gain_ns=gain, method=METHOD_CP + " (the compilations removed; the distinct patterns' one compilation each is "
        "not counted)", confidence=conf * 0.7, rows=rows, affected_ns=t)
