"""The library-loop rule: a call from the user's code inside which the library runs a per-element loop in
interpreted Python (``np.genfromtxt`` converting every field, ``read_csv``'s Python engine parsing every
row, ``df.apply(f, axis=1)`` building a Series per row).

The user's line runs once and is not a loop, so python_loop and tiny_calls_by_line do not see it, and no
single library function dominates by self time (the op-level hotspot rule sees nothing either). Reasoned
from the work under the call: a library function called ``min_calls_per_call`` times or more per call of
the user's, each call short (no piece of its work, self time anywhere in its tree, over ``short_ns``), is a
per-element loop, unless the user's own code called back under the call takes ``max_user_share`` of its
time or more (an optimiser evaluating the user's function: that loop is the user's). A compiled path (a C
parser, a vectorised sibling, an engine or method option) does the same work without the interpreter: it
keeps the native work on bulk data (C calls whose own time reaches ``short_ns``) and one typical call of
each per-element function; the interpreted frames' time and the short calls go. Gain: that replayed on the
user's calls' spans, as tiny_calls_by_line does for a loop the user wrote.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ... import formatting as F
from ..classify import R
from ..python_spans import call_kinds, user_frames
from ..timeline import ancestor_flag, nearest_ancestor
from .arrays import where
from .base import METHOD_CP, covered_ns, make_finding, pct, replay_gain
from .host import longest_piece

# the import system runs module bodies (and what they call) call by call: not a loop the user can replace
NOT_A_CALL = re.compile(r"^(importlib\.|builtins\.(__import__|exec|__build_class__)$)")
# work a library does once and caches (compiling a regex: re caches 512 patterns; a lazy import): the
# first call pays it, the next ones do not; not a per-element loop of the data
ONE_TIME = re.compile(r"^(re\._parser\.|re\._compiler\.|re\._casefix|sre_parse\.|sre_compile\.|importlib\.|"
                      r"<frozen importlib)")


def _entries(ctx, user: np.ndarray) -> np.ndarray:
    """Library Python functions called directly by the user's code, on the main thread (a C function
    calling back per element is tiny_calls_by_line's)."""
    prow = ctx.rows_of_parent
    on = (ctx.role == R["python"]) & (ctx.track_code == ctx.main_track)
    rows = np.flatnonzero(on & call_kinds(ctx)["py"] & ~user & (prow >= 0))
    rows = rows[user[prow[rows]]]
    return rows[~ctx.flag(NOT_A_CALL)[rows]]


def library_loop(ctx, th):
    """User calls into a library inside which one library function runs ``min_calls_per_call`` times or more
    per call, each short: a per-element loop in interpreted library code. Gain: replay with those calls'
    time less what a compiled path keeps (long native pieces, one typical call per per-element function)."""
    if "call_kind" not in ctx.events or not ctx.n:
        return
    user = user_frames(ctx)
    entries = _entries(ctx, user)
    if not len(entries):
        return
    is_entry = np.zeros(ctx.n, dtype=bool)
    is_entry[entries] = True
    kind = call_kinds(ctx)
    inner = np.flatnonzero(ancestor_flag(ctx, is_entry) & ~is_entry)
    # the entry an inner call belongs to, climbing only through library frames (a user callback's own
    # calls are tiny_calls_by_line's)
    owner = nearest_ancestor(ctx, inner, is_entry, through=~user)
    ok = owner >= 0
    inner, owner = inner[ok], owner[ok]
    if not len(inner):
        return
    # a call site: the user's line (or function) making the call, and the library function called
    site_of = np.full(ctx.n, -1, dtype=np.int64)
    site_of[entries] = ctx.name_code[ctx.rows_of_parent[entries]].astype(np.int64) * (len(ctx.name_cats) + 1) \
        + ctx.name_code[entries]
    entry_site = site_of[entries]
    site = site_of[owner]
    piece = longest_piece(ctx)
    py = kind["py"][inner] & ~ctx.flag(ONE_TIME)[inner]
    df = pd.DataFrame({"site": site[py], "fn": ctx.name_code[inner[py]], "dur": ctx.dur[inner[py]].astype(float),
                       "piece": piece[inner[py]]})
    g = df.groupby(["site", "fn"], sort=False).agg(n=("dur", "size"), total=("dur", "sum"),
                                                   typical=("dur", "median"), piece=("piece", "median"))
    calls_per_site = pd.Series(entry_site).value_counts()
    g["per_call"] = g["n"] / calls_per_site.reindex(g.index.get_level_values("site")).to_numpy()
    loops = g[(g["per_call"] >= th["min_calls_per_call"]) & (g["piece"] < th["short_ns"])
              & (g["typical"] < th["max_call_ns"])]
    if not len(loops):
        return
    self_ns = ctx.self_ns.astype(float)
    native = kind["c"][inner] & (self_ns[inner] >= th["short_ns"])
    # the user's code called back under each entry (outermost user frames): an optimiser or a framework
    # driving the user's function is the user's loop, not the library's
    called_back = np.zeros(ctx.n)
    back = np.flatnonzero(user & ancestor_flag(ctx, is_entry))
    back_owner = nearest_ancestor(ctx, back, is_entry, through=~user)
    np.add.at(called_back, back_owner[back_owner >= 0], ctx.dur[back[back_owner >= 0]].astype(float))
    found = []
    for s, fns in loops.groupby(level="site"):
        calls = entries[entry_site == s]
        t = covered_ns(ctx, calls)
        if called_back[calls].sum() >= th["max_user_share"] * float(ctx.dur[calls].sum()):
            continue
        mine = site == s
        kept = float(self_ns[inner[mine & native]].sum()) + float(fns["typical"].sum())
        removable = max(0.0, t - kept)
        if pct(removable, ctx.wall) < th["min_pct"]:
            continue
        found.append((removable, calls, t, kept, fns.droplevel("site").sort_values("n", ascending=False)))
    found.sort(key=lambda x: -x[0])
    rep = ctx.replay
    for removable, calls, t, kept, fns in found[: th["top"]]:
        mask = np.zeros(ctx.n, dtype=bool)
        mask[calls] = True
        gain, conf = replay_gain(ctx, seg_factor=rep.seg_factor_for(mask, min(1.0, kept / max(t, 1.0))))
        callee = str(ctx.name_cats[ctx.name_code[calls[0]]])
        line_row = ctx.rows_of_parent[calls[0]]
        line = str(ctx.name_cats[ctx.name_code[line_row]])
        file_line = ctx.events["file_line"].iloc[line_row] if "file_line" in ctx.events else None
        place = where(str(file_line)) if isinstance(file_line, str) else line
        loop_names = [str(ctx.name_cats[c]) for c in fns.index[:3]]
        per_call = int(fns["per_call"].max())
        title = (f"{callee} (called at {place}) runs a per-element loop in interpreted Python: "
                 f"{per_call:,} calls of {'.'.join(loop_names[0].split('.')[-2:])} per call, "
                 f"{F.ns(t)} in all ({pct(t, ctx.wall):.0f}% of end-to-end)")
        sugg = (f"{callee} does its work element by element in Python. Use a compiled path for the same work: an "
                "option that selects the library's C implementation (e.g. read_csv with a one-character sep so "
                "the C engine runs), a vectorised sibling (np.loadtxt or pd.read_csv instead of np.genfromtxt; "
                "whole-column operations instead of apply(axis=1)), or a different format (binary, Parquet) "
                "that needs no per-element parsing.")
        evidence = {"callee": callee, "line": line, "file_line": file_line if isinstance(file_line, str) else None,
                    "calls": int(len(calls)), "time_ns": t, "kept_ns": kept, "removable_ns": removable,
                    "per_element_functions": [{"name": str(ctx.name_cats[c]), "calls": int(r["n"]),
                                               "per_call": float(r["per_call"]), "total_ns": float(r["total"]),
                                               "typical_ns": float(r["typical"])} for c, r in fns.head(5).iterrows()],
                    "threshold_short_ns": th["short_ns"],
                    "gain_method": "replay: the calls' time less their long native pieces and one typical call "
                                   "of each per-element function"}
        yield make_finding(ctx, "library_loop", "host_bound", title, evidence=evidence, ops=[callee, *loop_names],
                           suggestion=sugg, gain_ns=gain, method=METHOD_CP, confidence=conf * 0.8, rows=calls,
                           affected_ns=t)
