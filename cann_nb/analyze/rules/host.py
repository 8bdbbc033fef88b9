"""Host-side rules: small-op storms (per-element / batch-1 loops), Python gaps and input building,
data loading, GC, compilation, cold start."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from .. import classify as C
from ..intervals import union
from ..python_spans import call_kinds, places
from ..sequential_loops import kept_ns, sampled_share
from ..timeline import UNTRACKED, outermost, owner_label_codes
from ... import formatting as F
from .arrays import where
from .base import (METHOD_CP, METHOD_HEADROOM, covered_ns, covered_spans_ns, make_finding, pct, replay_gain,
                   top_names)

I64 = np.int64
LINE_RE = re.compile(r" line \d+: ")
TENSOR_FROM_PY_RE = re.compile(r"^aten::(tensor|lift_fresh|lift|scalar_tensor|as_tensor|from_numpy)$|"
                               r"^torch\.(tensor|as_tensor|from_numpy)|numpy\.(array|asarray)$", re.I)
FOLLOW_UNITS = 4  # ops after a Python stretch that are looked at for tensor construction
BATCH1_RE = re.compile(r"^\[\[1(,|\])")
# a recurrent layer given one time step ([1, B, D], or [B, 1, D] batch-first): called per step, its state
# carried by hand, what one call on the whole sequence runs inside the library
RECURRENT_RE = re.compile(r"^aten::(lstm|gru|rnn_tanh|rnn_relu)$")
ONE_STEP_RE = re.compile(r"^\[\[(1,\d+|\d+,1),\d+\]")


def work_units(ctx) -> np.ndarray:
    """The units of work the user's code issues, on the main lane in time order: the outermost
    framework ops; for Python-traced profiles (no ops), the outermost source-line spans, else the
    Python calls one level below the top."""
    main = ctx.main_track
    on = ctx.track_code == main
    is_op = (ctx.role == C.R["op"]) & on
    if is_op.any():
        rows = np.flatnonzero(is_op)
        prow = ctx.rows_of_parent[rows]
        inside_op = np.zeros(len(rows), dtype=bool)
        ok = prow >= 0
        inside_op[ok] = ctx.role[prow[ok]] == C.R["op"]
        rows = rows[~inside_op]
    else:
        py = (ctx.role == C.R["python"]) & on
        line = py & ctx.flag(LINE_RE)
        if line.any():
            rows = np.flatnonzero(line)
            prow = ctx.rows_of_parent[rows]
            in_line = np.zeros(len(rows), dtype=bool)
            ok = prow >= 0
            in_line[ok] = line[prow[ok]]
            rows = rows[~in_line]
        else:
            depth = ctx.events["depth"].to_numpy()
            rows = np.flatnonzero(py & (depth == 1))
    return rows[np.argsort(ctx.start[rows], kind="stable")]


def python_units(ctx) -> bool:
    """True when the main lane has no framework ops: the work units are the Python tracer's lines
    (or calls), and a loop of them is host-bound Python, not op-launch overhead."""
    return not ((ctx.role == C.R["op"]) & (ctx.track_code == ctx.main_track)).any()


def longest_piece(ctx) -> np.ndarray:
    """Per event, the longest self time in its subtree (the event and everything nested in it): the
    largest single stretch of work it does without calling anything recorded. A call made only of
    small steps (a deep pandas call: argument checks, small objects, dispatch) has a short longest
    piece however long it takes in all; a call doing real native work (a LAPACK call, a sort, a
    ufunc on a large array) has a long one."""
    return ctx.memo("longest_piece", lambda: _up_the_tree(ctx, ctx.self_ns.astype(I64), np.maximum))


def _up_the_tree(ctx, values: np.ndarray, ufunc) -> np.ndarray:
    """``values`` folded from every event into its ancestors with ``ufunc`` (np.maximum, np.add), deepest
    level first so that a child is complete before its parent takes it."""
    out = values.copy()
    if not ctx.n:
        return out
    prow = ctx.rows_of_parent
    depth = ctx.events["depth"].to_numpy()
    rows = np.flatnonzero(prow >= 0)
    rows = rows[np.argsort(-depth[rows], kind="stable")]
    for level in np.split(rows, np.flatnonzero(np.diff(depth[rows])) + 1):
        ufunc.at(out, prow[level], out[level])
    return out


def recording_in_subtree(ctx) -> np.ndarray:
    """Per event, the profiler's own time charged inside it (its row's and its descendants'): what its
    duration loses without the profiler."""
    return ctx.memo("recording_in_subtree", lambda: _up_the_tree(ctx, ctx.recording_cost.astype(float), np.add))


SPLIT_MIN_CHILDREN = 20    # an op that makes this many pieces (views of its input) is a loop inside one call
# the pieces a split makes (unbind: a select per row; split/chunk: a narrow or slice per piece)
PIECE_RE = re.compile(r"^aten::(select|slice|narrow|as_strided|alias|view|_reshape_alias)$")


def op_children(ctx) -> np.ndarray:
    """Per row: how many views of its input (PIECE_RE) are nested directly in it: the pieces it split its
    input into (a library kernel running a loop of its own, aten::gru's steps, makes other ops)."""
    def calc():
        par = ctx.rows_of_parent
        kid = np.flatnonzero((ctx.role == C.R["op"]) & (par >= 0) & ctx.flag(PIECE_RE))
        return np.bincount(par[kid], minlength=ctx.n)[: ctx.n]
    return ctx.memo("op_children", calc)


def element_time(ctx, rows: np.ndarray) -> np.ndarray:
    """Per unit: its time per element when it is a loop inside one framework op (iterating a tensor is one
    aten::unbind making a select per row; torch.split/chunk into many pieces alike): its time over its
    direct sub-ops when it has ``SPLIT_MIN_CHILDREN`` or more; else its time."""
    kids = op_children(ctx)[rows]
    d = ctx.dur[rows].astype(float)
    return np.where(kids >= SPLIT_MIN_CHILDREN, d / np.maximum(kids, 1), d)


# the work a cost formula prices well: arithmetic (matrix products, convolutions, recurrent layers); an
# elementwise op's or a copy's bytes at the peak bandwidth understate its time (exp is many FLOPs per element,
# fresh memory faults), so they never make an op look like per-call overhead
PRICED_WORK = ("matmul", "conv", "recurrent")
ENGINE_RE = re.compile(r"^autograd::engine::")   # backward steps: they follow the forward's ops


def unit_work_ns(ctx) -> np.ndarray:
    """Per row: ns the arithmetic in its subtree (its own row's and its descendants' matrix products,
    convolutions and recurrent layers, FLOPs from shapes) would take at the roof (efficiency.work_roof_ns);
    NaN where such rows hold under half of its time (an aten::gru whose recurrence kernel has no formula, a
    solve, an elementwise op) and for the autograd engine's backward steps."""
    def calc():
        from ..efficiency.cost import FAMILIES, event_costs
        from ..efficiency.roofline import work_roof_ns
        fam = event_costs(ctx)["family"]
        priced = np.isin(fam, [FAMILIES.index(f) for f in PRICED_WORK])
        w = np.where(priced, work_roof_ns(ctx), np.nan)
        costed = np.isfinite(w)
        held = _up_the_tree(ctx, np.where(costed, ctx.self_ns, 0).astype(float), np.add)
        known = (held >= 0.5 * ctx.dur) & ~ctx.flag(ENGINE_RE)
        return np.where(known, _up_the_tree(ctx, np.nan_to_num(w), np.add), np.nan)
    return ctx.memo("unit_work_ns", calc)


def short_units(ctx, u: np.ndarray, short_ns: int, max_unit_ns: int | None = None) -> np.ndarray:
    """Which work units are short, by their name's typical (median) call, so an occasional slow call
    (an interrupt, a page fault) does not split a loop. Framework ops: shorter than ``short_ns`` (per
    element for an op that loops inside, ``element_time``), or doing less arithmetic than that
    (``unit_work_ns``: its matrix products' and convolutions' FLOPs at the roof) in under half its time: a
    conv2d of one channel's 20x20 map takes 90 us of which its arithmetic is 1 us, per-call cost that a
    batched call (groups=C, a larger batch) pays once.
    Python lines (``max_unit_ns`` given): no single piece of work longer than ``short_ns``
    (``longest_piece``) and shorter than ``max_unit_ns`` in all: a line made of per-call overhead,
    e.g. ``row["price"] * row["qty"]`` on a pandas row (two short library calls), or scalar
    arithmetic on array elements (no call at all)."""
    codes = ctx.name_code[u]
    if max_unit_ns is None:   # framework ops: per element for a loop inside one op (element_time)
        per = pd.Series(element_time(ctx, u)).groupby(codes).transform("median").to_numpy()
        work = pd.Series(unit_work_ns(ctx)[u]).groupby(codes).transform("median").to_numpy()
        with np.errstate(invalid="ignore"):
            little = (work < short_ns) & (2 * work < per)   # (NaN: no known cost, compares False)
        return (per < short_ns) | little
    typical = pd.Series(ctx.dur[u]).groupby(codes).transform("median").to_numpy()
    piece = pd.Series(longest_piece(ctx)[u]).groupby(codes).transform("median").to_numpy()
    return (piece < short_ns) & (typical < max_unit_ns)


# a pause inside a run of short ops, as a share of the runs it separates, that is a stall and not the loop's
# end: any op on either side, or the same op on both (the loop's body going on after it)
STALL_SHARE_SAME_OP = 0.25


def _bridge_stalls(link: np.ndarray, both: np.ndarray, s: np.ndarray, e: np.ndarray, codes: np.ndarray) -> None:
    """Link (in place) a pause between two short units that is a small part of the runs it separates
    (STALL_SHARE, or STALL_SHARE_SAME_OP where the same op comes before and after it): the machine stalling
    the process amid a long loop (a busy machine preempts it for some ms), not the loop's end; a run split
    there would keep a typical call per piece and lose the pause from its region."""
    breaks = np.flatnonzero(~link[1:] & both) + 1   # units that start a run though both sides are short
    if not len(breaks):
        return
    starts = np.flatnonzero(~link)
    k = np.searchsorted(starts, breaks)
    before = starts[k - 1]                               # where the run before each pause starts
    after_end = e[np.append(starts[1:], len(s))[k] - 1]  # where the run after it ends
    share = np.where(codes[breaks] == codes[breaks - 1], STALL_SHARE_SAME_OP, STALL_SHARE)
    joined: dict[int, int] = {}   # a pause bridged -> the start time of the run it continues
    for b, p, end, q in zip(breaks.tolist(), before.tolist(), after_end.tolist(), share.tolist()):
        t0 = joined.get(p, s[p])
        if s[b] - e[b - 1] < q * ((e[b - 1] - t0) + (end - s[b])):
            link[b] = True
            joined[b] = t0


def small_op_runs(ctx, short_ns: int, gap_ns: int, min_run: int, max_unit_ns: int | None = None) -> pd.DataFrame:
    """Runs of consecutive short units (``short_units``) separated by short gaps: ``first, last``
    (indices into work_units), ``start, end, n``."""
    u = work_units(ctx)
    cols = ["first", "last", "start", "end", "n"]
    if len(u) < min_run:
        return pd.DataFrame(columns=cols)
    s, e = ctx.start[u], ctx.end[u]
    short = short_units(ctx, u, short_ns, max_unit_ns)
    # after an op that split a tensor into many pieces, Python wraps each piece before the loop over
    # them starts: that gap may hold a short op's time per piece
    allowed = np.full(len(u), float(gap_ns))
    if max_unit_ns is None:
        k = op_children(ctx)[u]
        allowed = np.where(k >= SPLIT_MIN_CHILDREN, np.maximum(allowed, k * float(short_ns)), allowed)
    link = np.zeros(len(u), dtype=bool)
    both = short[1:] & short[:-1]
    link[1:] = both & (s[1:] - e[:-1] < allowed[:-1])
    _bridge_stalls(link, both, s, e, ctx.name_code[u])
    run_start = ~link
    first = np.flatnonzero(run_start)
    last = np.append(first[1:], len(u)) - 1
    n = last - first + 1
    keep = (n >= min_run) & short[first]
    first, last, n = first[keep], last[keep], n[keep]
    return pd.DataFrame({"first": first, "last": last, "start": s[first], "end": e[last], "n": n})


def small_ops(ctx, th):
    """Many short framework ops back to back: per-element loops, batch-1 loops. The fix (vectorise,
    batch, fuse) keeps their real work and drops the per-call overhead and the Python between them.
    Gain: replay with the flagged spans shrunk to their estimated work (one typical call of each
    distinct op). Profiles without framework ops (the Python tracer's) are ``python_loop``'s."""
    if python_units(ctx):
        return
    yield from _short_runs(ctx, th, "small_ops", "launch_overhead", None)


def python_loop(ctx, th):
    """A per-element Python loop (Python tracer, no framework ops): executions of the user's lines
    back to back, each made of per-call overhead rather than work: no single piece of work longer
    than ``short_ns`` (scalar arithmetic on array elements, short library calls such as indexing a
    pandas row) and under ``max_unit_ns`` in all; some line of the run executes ``min_iterations``
    times (once per element). Host-bound Python, not op-launch overhead. The fix
    (whole-array numpy/pandas operations) calls each function once on whole columns. Gain: replay with
    the loop's time shrunk to one typical execution of each distinct line."""
    if not python_units(ctx):
        return
    yield from _short_runs(ctx, th, "python_loop", "host_bound", th["max_unit_ns"])


def _sequential_advice(seq_evidence: dict, cheaper: str) -> str:
    """What to do about a loop that carries state (analyze/sequential_loops.py): it stays a loop; the calls
    that do not depend on the state can leave it."""
    lp = seq_evidence["loops"][0]
    hoist = ", ".join(lp["hoistable"][:4])
    return (f"The loop at {where(lp['line'])} carries {', '.join(lp['carried'][:4])} from one pass to the next "
            "(each pass needs the previous one's result), so it cannot become one whole-array operation: "
            "the estimate keeps its dependent work. "
            + (f"Make the calls that do not depend on it ({hoist}) for all passes before the loop (draw all "
               "random numbers in one call, convert once). " if hoist else "")
            + f"Make each pass cheaper: {cheaper}. For the rest of the loop: ")


def _growing_lines(ctx, rows: np.ndarray, region: int) -> list[dict]:
    """Lines of the loop whose time per execution grows with the iterations (the last quarter's median
    at least 3x the first quarter's) and that hold a quarter of the loop: each pass scans or copies a
    container that the loop grows (``x in a_list``, ``list.index``, ``s += piece``, ``np.append``)."""
    out = []
    codes = ctx.name_code[rows]
    for c in np.unique(codes):
        r = rows[codes == c]
        if len(r) < 40 or ctx.dur[r].sum() < 0.25 * region:
            continue
        d = ctx.dur[r[np.argsort(ctx.start[r], kind="stable")]]
        q = len(d) // 4
        first, last = float(np.median(d[:q])), float(np.median(d[-q:]))
        if last >= 3 * max(first, 1.0):
            out.append({"line": str(ctx.name_cats[c]), "first_quarter_ns": first, "last_quarter_ns": last,
                        "time_ns": int(ctx.dur[r].sum())})
    return out


STALL_SHARE = 0.05   # of a loop's time so far: a pause that short inside it is a stall, not its end


def _past_line_budget(ctx, runs: pd.DataFrame, short_ns: int, gap_ns: int) -> tuple[pd.DataFrame, int]:
    """The Python tracer stops recording lines after its line budget (meta ``line_budget_exhausted``), and
    a function's lines after its own share (meta ``line_capped``); a loop still running then goes on
    without line spans: as self time of the last line's frame (a loop body written inline), or as further
    calls of that frame's function (a loop calling a function per element: ``df.apply(f, axis=1)``, a
    recursion), which the tracer still records. The run holding each such last recorded line is extended
    over both: to the end of that frame, and on through the later calls of the same function that follow
    one another with gaps under ``gap_ns``; never past the first recorded piece of real work (self time of
    ``short_ns`` or more) after the run. Returns the runs and the time added."""
    if not len(runs):
        return runs, 0
    u = work_units(ctx)
    added = 0
    for last_line in _last_lines(ctx, u):
        runs, more = _extend_run(ctx, runs, u, last_line, short_ns, gap_ns)
        added += more
    return runs, added


def _last_lines(ctx, u: np.ndarray) -> list[int]:
    """Rows of the last recorded line of the run when its line budget was spent, and of each function
    whose lines stopped being traced at its own share."""
    lines = u[ctx.flag(LINE_RE)[u]]
    if not len(lines):
        return []
    out = list(_capped_last_lines(ctx, lines)[1].values())
    if _run_budget_spent(ctx):
        out.append(int(lines[np.argmax(ctx.start[lines])]))
    return sorted(set(out), key=lambda r: ctx.start[r])


def _capped_per_row(ctx) -> np.ndarray:
    """Per row: the file_line code of the capped function (meta ``line_capped``) the row is a call of, -1
    for other rows; once per analysis (three loop searches read it)."""
    def compute():
        capped = ((ctx.meta.get("collectors") or {}).get("python") or {}).get("line_capped") or []
        codes, index = places(ctx)
        which = index.get_indexer(capped) if capped else np.empty(0, dtype=np.int64)
        which = which[which >= 0]
        if not len(which):
            return np.full(ctx.n, -1, dtype=np.int64)
        return np.where(call_kinds(ctx)["py"] & np.isin(codes, which), codes, -1)
    return ctx.memo("capped_per_row", compute)


def _capped_last_lines(ctx, lines: np.ndarray) -> tuple[np.ndarray, dict]:
    """(per row: the file_line code of the capped function (meta ``line_capped``) the row is a call of, -1
    for other rows; {that code: the row of the last of ``lines`` recorded in a call of it})."""
    per_row = _capped_per_row(ctx)
    if not (per_row >= 0).any():
        return per_row, {}
    frame = ctx.rows_of_parent[lines]
    code = np.where(frame >= 0, per_row[np.maximum(frame, 0)], -1)
    last = {}
    for c in np.unique(code[code >= 0]).tolist():
        sel = lines[code == c]
        last[c] = int(sel[np.argmax(ctx.start[sel])])
    return per_row, last


def _extend_run(ctx, runs: pd.DataFrame, u: np.ndarray, last_line: int, short_ns: int,
                gap_ns: int) -> tuple[pd.DataFrame, int]:
    """The run holding ``last_line`` extended over the unrecorded rest of its loop (see _past_line_budget)."""
    py = (ctx.meta.get("collectors") or {}).get("python") or {}
    k = np.flatnonzero(u[runs["last"].to_numpy()] == last_line)
    frame = ctx.rows_of_parent[last_line]
    if not len(k) or frame < 0:
        return runs, 0
    k = int(k[0])
    end = int(runs["end"].iloc[k])
    stop = int(ctx.end[frame])
    # the loop's later iterations: calls of the frame's function, one after another
    same = np.flatnonzero((ctx.name_code == ctx.name_code[frame]) & (ctx.track_code == ctx.track_code[frame])
                          & (ctx.start > ctx.start[frame]))
    same = same[np.argsort(ctx.start[same], kind="stable")]
    if len(same):
        prev_end = np.maximum.accumulate(np.r_[stop, ctx.end[same]])[:-1]
        # a pause longer than gap_ns ends the loop, unless it is a small part of the loop so far (the
        # machine stalling the process for a few ms amid seconds of calls)
        allowed = np.maximum(gap_ns, STALL_SHARE * (prev_end - int(runs["start"].iloc[k])))
        broken = np.flatnonzero(ctx.start[same] - prev_end >= allowed)
        chain = same[: broken[0]] if len(broken) else same
        if len(chain):
            stop = max(stop, int(ctx.end[chain].max()))
        caller = ctx.rows_of_parent[frame]
        if py.get("buffer_full") and not len(broken) and caller >= 0:
            # the recorder's buffer filled while the calls went on: the rest of the loop is unrecorded
            # time of their caller (np.vectorize, map, apply), up to its return
            stop = max(stop, int(ctx.end[caller]))
    # ... up to the first real piece of work after the run (the code after the loop): a call whose
    # function typically (median) does short_ns or more of self time, so that an occasional slow call
    # (an interrupt, a page fault) inside the loop does not end it; a garbage-collector pass is not one
    later = np.flatnonzero((ctx.track_code == ctx.track_code[frame]) & (ctx.start >= end) & (ctx.start < stop)
                           & (ctx.self_ns >= short_ns) & (ctx.role == C.R["python"]) & ~ctx.flag(C.GC_RE))
    if len(later):
        codes = ctx.name_code[later]
        of = np.isin(ctx.name_code, np.unique(codes))
        typical = pd.Series(ctx.self_ns[of]).groupby(ctx.name_code[of]).median()
        later = later[typical.reindex(codes).to_numpy() >= short_ns]
    if len(later):
        stop = min(stop, int(ctx.start[later].min()))
    if stop <= end:
        return runs, 0
    runs = runs.copy()
    runs.loc[runs.index[k], "end"] = stop
    return runs, stop - end


def _capped_calls(ctx, runs: pd.DataFrame, u: np.ndarray) -> list[np.ndarray]:
    """Per function whose lines stopped being traced at its share (meta ``line_capped``) inside a run of
    short lines: its calls after that, each the same per-element loop again, unrecorded but for its
    frame's time (a loop function called per column: 288 calls, the first few traced line by line). One
    piece per function: vectorised, each call becomes a few whole-array operations."""
    per_row, last = _capped_last_lines(ctx, u[ctx.flag(LINE_RE)[u]])
    in_run = set(u[runs["last"].to_numpy()].tolist()) if len(runs) else set()
    out = []
    for code, line in last.items():
        frame = ctx.rows_of_parent[line]
        if line not in in_run or frame < 0:
            continue
        later = np.flatnonzero((per_row == code) & (ctx.start > ctx.start[frame]))
        later = outermost(ctx, later)   # a recursive call inside another later call is counted there
        if len(later):
            out.append(later[np.argsort(ctx.start[later], kind="stable")])
    return out


def _run_budget_spent(ctx) -> bool:
    py = (ctx.meta.get("collectors") or {}).get("python") or {}
    # (profiles stored before the flag counted a budget used up before the buffer filled: line_spans)
    return bool(py.get("line_budget_exhausted") or py.get("line_spans", 0) >= py.get("line_budget", np.inf))


def _budget_exhausted(ctx) -> bool:
    """Lines stopped being traced somewhere: the run's budget, or a function's share of it."""
    py = (ctx.meta.get("collectors") or {}).get("python") or {}
    return _run_budget_spent(ctx) or bool(py.get("line_capped"))


def _callback_runs(ctx, short_ns: int, gap_ns: int, min_iterations: int, max_unit_ns: int) -> list[np.ndarray]:
    """Past the tracer's line budget, a per-element loop shows as calls: one function called over and
    over by one caller, each call short, back to back (a callback called per element from C:
    ``sorted(key=cmp_to_key(f))``, ``np.vectorize(f)``, ``map(f, xs)``, ``apply(f)``; or a loop calling
    a function). Returns the rows of each such run of ``min_iterations`` calls or more, after the last
    recorded line (of the run, or of the capped function called)."""
    if not _budget_exhausted(ctx):
        return []
    main = ctx.main_track
    lines = np.flatnonzero(ctx.flag(LINE_RE) & (ctx.track_code == main))
    if not len(lines):
        return []
    cand = (ctx.role == C.R["python"]) & (ctx.track_code == main) & ~ctx.flag(LINE_RE) & ~ctx.flag(C.GC_RE)
    past = np.zeros(ctx.n, dtype=bool)
    if _run_budget_spent(ctx):
        past |= ctx.start > int(ctx.start[lines].max())
    # calls of a capped function after its last recorded line
    capped, last = _capped_last_lines(ctx, lines)
    for c, row in last.items():
        past |= (capped == c) & (ctx.start > ctx.start[row])
    rows = np.flatnonzero(cand & past)
    if len(rows) < min_iterations:
        return []
    parent = ctx.rows_of_parent[rows]
    rows = rows[np.lexsort((ctx.start[rows], ctx.name_code[rows], parent))]
    parent = ctx.rows_of_parent[rows]
    short = short_units(ctx, rows, short_ns, max_unit_ns)
    link = np.zeros(len(rows), dtype=bool)
    link[1:] = (short[1:] & short[:-1] & (parent[1:] == parent[:-1])
                & (ctx.name_code[rows[1:]] == ctx.name_code[rows[:-1]])
                & (ctx.start[rows[1:]] - ctx.end[rows[:-1]] < gap_ns))
    first = np.flatnonzero(~link)
    last = np.append(first[1:], len(rows)) - 1
    keep = (last - first + 1 >= min_iterations) & short[first]
    return [rows[a:b + 1] for a, b in zip(first[keep], last[keep])]


def roof_work_ns(ctx, starts: np.ndarray, ends: np.ndarray, frac: float) -> float:
    """ns the arithmetic recorded inside the windows (FLOPs from shapes, analyze/efficiency) takes at
    ``frac`` of the peak of the machine that ran it; 0 without shapes or peaks."""
    from ..efficiency.roofline import flops_roof_ns
    roof = flops_roof_ns(ctx)
    rows = np.flatnonzero(roof > 0)
    if not len(rows) or not len(starts):
        return 0.0
    s, e = union(starts, ends)
    k = np.searchsorted(s, ctx.start[rows], side="right") - 1
    inside = (k >= 0) & (ctx.start[rows] < e[np.maximum(k, 0)])
    return float(roof[rows[inside]].sum()) / frac


def _short_runs(ctx, th, rule_id: str, category: str, max_unit_ns):
    """Shared body of small_ops and python_loop: runs of short units, their region replayed at the
    work that vectorised code keeps."""
    runs = small_op_runs(ctx, th["short_ns"], th["gap_ns"], th["min_run"], max_unit_ns)
    unrecorded = 0
    callbacks: list[np.ndarray] = []
    u = work_units(ctx)
    if max_unit_ns is not None:
        # a per-element loop runs its body once per element: hundreds of times at least, in one run or
        # over the runs of a loop in a function called again and again (60 cells per call of an ODE's
        # right-hand side, 10,000 calls); a few dozen repeats of vectorised code are not one
        top = [np.bincount(np.maximum(ctx.name_code[u[a:b + 1]], 0)) for a, b in zip(runs["first"], runs["last"])]
        line = np.array([int(c.argmax()) for c in top], dtype=np.int64)
        in_run = np.array([int(c.max()) for c in top], dtype=np.int64)
        over_runs = pd.Series(in_run).groupby(line).transform("sum").to_numpy() if len(line) else in_run
        runs = runs[(in_run >= th["min_iterations"]) | ((in_run >= 2) & (over_runs >= th["min_iterations"]))]
        runs, unrecorded = _past_line_budget(ctx, runs, th["short_ns"], th["gap_ns"])
        # loops the lines no longer show, outside the line runs' reach
        s0, e0 = runs["start"].to_numpy(), runs["end"].to_numpy()
        callbacks = [r for r in _callback_runs(ctx, th["short_ns"], th["gap_ns"], th["min_iterations"], max_unit_ns)
                     if not ((s0 < ctx.end[r[-1]]) & (e0 > ctx.start[r[0]])).any()]
        # (a capped function's later calls that run back to back are callbacks already)
        taken = np.concatenate(callbacks) if callbacks else np.empty(0, dtype=np.int64)
        capped = [r for r in (r[~np.isin(r, taken)] for r in _capped_calls(ctx, runs, u)) if len(r)]
        unrecorded += int(sum(ctx.dur[r].sum() for r in capped))
    else:
        capped = []
    if not len(runs) and not callbacks:
        return
    starts = np.concatenate([runs["start"].to_numpy(), [ctx.start[r[0]] for r in callbacks],
                             *[ctx.start[r] for r in capped]]).astype(np.int64)
    ends = np.concatenate([runs["end"].to_numpy(), [ctx.end[r[-1]] for r in callbacks],
                           *[ctx.end[r] for r in capped]]).astype(np.int64)
    region = covered_spans_ns(ctx, starts, ends)   # runs of several threads overlap
    if pct(region, ctx.wall) < th["min_pct"]:
        return
    pieces = [u[np.arange(a, b + 1)] for a, b in zip(runs["first"], runs["last"])] + callbacks + capped
    rows = np.concatenate(pieces)
    run_of = np.repeat(np.arange(len(pieces)), [len(p) for p in pieces])
    d = ctx.dur[rows].astype(float)
    codes = ctx.name_code[rows]
    # the vectorised/batched code still calls each distinct op about once per run of the loop (a loop
    # inside a training step runs again each step), on more data: keep one typical (median) call of each
    # per run as the remaining work (an op looping inside, per element), and the arithmetic itself (the
    # loop's FLOPs at the reachable fraction of the machine's peak: no rewrite goes below it)
    per_call = element_time(ctx, rows) if max_unit_ns is None else d
    calls = float(pd.Series(per_call).groupby([run_of, codes]).median().sum())
    at_roof = roof_work_ns(ctx, starts, ends, th["roof_frac"])
    # a loop carrying state from pass to pass (collect/loop_facts.py) keeps its dependent lines' time:
    # only what reads no carried state can be vectorised or hoisted out of it
    if max_unit_ns is not None:
        sequential, seq_evidence = kept_ns(ctx, starts, ends)
        if sequential and unrecorded:   # past the line budget the loop went on unrecorded, in the same proportion
            sequential *= region / max(region - unrecorded, 1)
    else:   # framework ops: the share of the sampled user stacks that runs in a dependent line
        share, seq_evidence = sampled_share(ctx)
        sequential = share * region
        if sequential:   # a recurrent layer stepped by hand: the library runs the recurrence in one call
            stepped = rows[ctx.flag(RECURRENT_RE)[rows] & C.name_flags(ctx.events["shapes"], ONE_STEP_RE)[rows]] \
                if "shapes" in ctx.events else rows[:0]
            if len(stepped):
                t_steps = float(ctx.dur[stepped].sum())
                sequential = max(0.0, sequential - t_steps)
                seq_evidence["recurrent_steps"] = {"calls": int(len(stepped)), "time_ns": t_steps,
                                                   "ops": top_names(ctx, stepped, 3)}
    work = calls + at_roof + sequential
    factor = min(1.0, work / max(region, 1))
    rep = ctx.replay
    f = rep.seg_factor_in(starts, ends, factor)
    # device work launched from the region is kept (it is the real work)
    gain, conf = replay_gain(ctx, seg_factor=f)
    n_ops = int(len(rows))
    mean = float(d.mean())
    names = top_names(ctx, rows, 5)
    evidence = {"ops": n_ops, "runs": int(len(runs) + len(callbacks)), "region_ns": region, "mean_op_ns": mean,
                "estimated_work_ns": work, "work_at_roof_ns": at_roof, "top_ops": names,
                "threshold_short_ns": th["short_ns"]}
    if seq_evidence:
        evidence["sequential"] = seq_evidence
    if max_unit_ns is not None:
        growing = _growing_lines(ctx, rows, region)
        evidence.update(threshold_max_unit_ns=max_unit_ns, growing_lines=growing,
                        longest_piece_median_ns=float(np.median(longest_piece(ctx)[rows])),
                        unrecorded_after_line_budget_ns=unrecorded)
        what = "executions of short lines" if not callbacks else \
            "short line executions and calls of a function called per element"
        if capped:
            what += (f" (with {sum(len(r) for r in capped):,} later calls of "
                     f"{', '.join(sorted({str(ctx.names(r[:1])[0]) for r in capped}))} whose lines were no longer "
                     "traced)")
        evidence["callback_functions"] = sorted({str(ctx.names(r[:1])[0]) for r in callbacks})
        evidence["capped_functions"] = {str(ctx.names(r[:1])[0]): int(len(r)) for r in capped}
        title = (f"A per-element Python loop: {n_ops:,} {what} ({F.ns(mean)} on average, "
                 f"none doing more than {F.ns(th['short_ns'])} of work at a time) run back to back for "
                 f"{F.ns(region)} ({pct(region, ctx.wall):.0f}% of end-to-end)")
        sugg = ("Vectorise the loop: replace the per-element Python work with whole-array numpy/pandas "
                "operations (e.g. np.sqrt(a * b).sum() instead of a loop over elements; df['a'] * df['b'] "
                "and np.where instead of iterrows/apply(axis=1)/.loc[i] per row).")
        if seq_evidence.get("loops"):
            sugg = _sequential_advice(seq_evidence, "keep its work on Python floats (x.tolist(), not numpy "
                                                    "scalars) or compile the loop (numba.njit)") + sugg
        if growing:
            g = max(growing, key=lambda x: x["time_ns"])
            sugg = (f"{g['line']} costs more at each pass ({F.ns(g['first_quarter_ns'])} early, "
                    f"{F.ns(g['last_quarter_ns'])} late): it scans or copies something the loop grows "
                    "(x in a_list, list.index/remove, s += piece, np.append): use a set or dict for lookups, "
                    "collect pieces in a list and join or build the array once. Otherwise: " + sugg)
    else:
        batch1 = float(C.name_flags(ctx.events["shapes"], BATCH1_RE)[rows].mean()) if len(rows) else 0.0
        evidence["batch1_share"] = batch1
        if batch1 >= 0.5:
            what = "batch-1 calls"
            sugg = ("Batch the samples: stack the inputs along the first dimension and call the model/op once "
                    "(e.g. model(torch.stack(xs)) instead of a loop over model(x[i:i+1])); the per-call "
                    "overhead then is paid once per batch.")
        else:
            what = "tiny ops"
            sugg = ("Vectorise: operate on whole tensors instead of element by element (index/scalar ops in a "
                    "Python loop); on an accelerator also fuse or capture the loop (torch.compile, CUDA graphs).")
        steps = seq_evidence.get("recurrent_steps")
        if steps:
            what = "tiny ops (recurrent layers given one time step per call)"
            sugg = (f"{', '.join(steps['ops'])} run{'s' if len(steps['ops']) == 1 else ''} one time step per call "
                    f"({steps['calls']:,} calls), the state carried by hand: give the layer the whole sequence at once "
                    "(out, (h, c) = lstm(x, (h0, c0)) with x of shape [T, B, D]); the library runs the recurrence "
                    "inside one call. Where the steps' inputs depend on earlier outputs (decoding), keep the loop "
                    "and batch the sequences instead. ")
        elif seq_evidence.get("loops"):
            sugg = _sequential_advice(seq_evidence, "fewer, larger ops per pass (a library kernel for the "
                                                    "step, such as nn.GRU for a recurrent cell; torch.compile of "
                                                    "the step)") + sugg
        title = (f"{n_ops:,} {what} of {F.ns(mean)} on average run back to back for {F.ns(region)} "
                 f"({pct(region, ctx.wall):.0f}% of end-to-end)")
    yield make_finding(ctx, rule_id, category, title, evidence=evidence, ops=names, suggestion=sugg, gain_ns=gain,
                       method=METHOD_CP, confidence=conf * 0.9, rows=rows, affected_ns=region)


def python_gaps(ctx, th):
    """Long stretches of the main thread outside any framework op (Python: building inputs, loops,
    preprocessing) while the run waits. Gain: replay without them (upper bound: the work moves out
    of the loop, to vectorised code, or to a DataLoader worker)."""
    rep = ctx.replay
    if not rep.S:
        return
    if not ((ctx.role == C.R["op"]) & (ctx.track_code == ctx.main_track)).any():
        # no framework ops on the main thread: a pure-Python profile (its Python time is the work;
        # small_ops covers loops) or a device-only trace (host time is simply not recorded)
        return
    lab = owner_label_codes(ctx, rep.seg_owner)
    dur = rep.seg_dur
    gap = (lab == UNTRACKED) & (dur >= th["gap_ns"])
    # time inside data loading / GC / compilation spans has its own rules
    own = rep.seg_owner
    flagged = np.zeros(rep.S, dtype=bool)
    for f in ctx.host_flags.values():
        flagged[own >= 0] |= f[own[own >= 0]]
    gap &= ~flagged
    # only between the first and the last framework op: the time before and after them is the
    # collectors' start/stop and the cell's set-up and tear-down, not the loop
    on_main = (ctx.role == C.R["op"]) & (ctx.track_code == ctx.main_track)
    first_op, last_op = ctx.start[on_main].min(), ctx.end[on_main].max()
    gap &= (rep.seg_start >= first_op) & (rep.seg_end <= last_op)
    if rep.tail_piece >= 0:
        gap[rep.tail_piece] = False
    # not inside a small-op run (those are the per-call overhead of small_ops)
    runs = small_op_runs(ctx, 30_000, 1_000_000, 20)  # the small_ops rule's defaults
    if len(runs):
        mid = (rep.seg_start + rep.seg_end) // 2
        k = np.searchsorted(runs["start"].to_numpy(), mid, side="right") - 1
        inside = (k >= 0) & (mid < runs["end"].to_numpy()[np.maximum(k, 0)])
        gap &= ~inside
    total = int(dur[gap].sum())
    if pct(total, ctx.wall) < th["min_pct"]:
        return
    # what follows each gap: tensors built from Python data point at input construction (torch.tensor
    # shows as aten::empty, then the C++ conversion, then aten::to / aten::lift_fresh)
    u = work_units(ctx)
    us = ctx.start[u]
    nxt = np.searchsorted(us, rep.seg_end[gap], side="left")
    ok = nxt < len(u)
    after = np.full(int(gap.sum()), -1, dtype=I64)
    after[ok] = u[nxt[ok]]
    flag_in = ctx.flag(TENSOR_FROM_PY_RE)
    child_hit = flag_in.copy()
    prow = ctx.rows_of_parent
    kids = np.flatnonzero(flag_in & (prow >= 0))
    child_hit[prow[kids]] = True
    is_input = np.zeros(len(after), dtype=bool)
    for k in range(FOLLOW_UNITS):
        j = nxt + k
        okj = j < len(u)
        is_input[okj] |= child_hit[u[j[okj]]]
    gdur = dur[gap]
    input_share = float(gdur[is_input].sum()) / max(total, 1)
    f = np.ones(rep.S)
    f[gap] = 0.0
    gain, conf = replay_gain(ctx, seg_factor=f)
    n = int(gap.sum())
    longest = int(gdur.max())
    after_names = top_names(ctx, after[after >= 0], 3, weight=gdur[after >= 0])
    if input_share >= 0.5:
        cat, rid = "input_pipeline", "python_inputs"
        title = (f"Inputs are built in Python: {F.ns(total)} ({pct(total, ctx.wall):.0f}% of end-to-end) of "
                 f"Python work before tensor creation ({n} stretches, longest {F.ns(longest)})")
        sugg = ("Build inputs with vectorised operations, once: convert whole arrays (torch.from_numpy, "
                "torch.as_tensor on an ndarray) instead of list comprehensions per step, move constant "
                "preprocessing out of the loop, or prepare batches in a DataLoader with workers.")
    else:
        cat, rid = "host_bound", "python_gaps"
        title = (f"{F.ns(total)} ({pct(total, ctx.wall):.0f}% of end-to-end) is Python between framework ops "
                 f"({n} stretches of {F.ns(th['gap_ns'])} or more, longest {F.ns(longest)})")
        sugg = ("Find the Python work between the ops (profile with --stack or the Python tracer): move it out "
                "of the loop, vectorise it, or overlap it with device work (a DataLoader with workers, a "
                "background thread).")
    gap_rows = after[after >= 0]
    yield make_finding(
        ctx, rid, cat, title,
        evidence={"python_ns": total, "stretches": n, "longest_ns": longest, "followed_by": after_names,
                  "input_construction_share": input_share, "threshold_gap_ns": th["gap_ns"]},
        ops=after_names, suggestion=sugg, gain_ns=gain, method=METHOD_CP, confidence=conf * 0.8, rows=gap_rows,
        affected_ns=total)


def _flag_rule(ctx, th, flag: np.ndarray, rule_id: str, category: str, what: str, suggestion: str,
               min_each_ns: int = 0, bound=None):
    """Shared body: time inside flagged host events (and what they contain), replayed away; ``bound``
    (gain_ns) -> (gain_ns, evidence) caps what moving them away can save."""
    rows = np.flatnonzero(flag & ctx.is_host & (ctx.dur >= min_each_ns))
    if not len(rows):
        return
    outer = rows[~np.isin(ctx.rows_of_parent[rows], rows)]
    total = covered_ns(ctx, outer)
    if pct(total, ctx.wall) < th["min_pct"]:
        return
    mask = np.zeros(ctx.n, dtype=bool)
    mask[outer] = True
    rep = ctx.replay
    gain, conf = replay_gain(ctx, seg_factor=rep.seg_factor_for(mask, 0.0))
    extra = {}
    if bound is not None:
        gain, extra = bound(gain)
    names = top_names(ctx, outer, 3)
    title = f"{what}: {F.ns(total)} ({pct(total, ctx.wall):.0f}% of end-to-end, {len(outer)} calls)"
    yield make_finding(ctx, rule_id, category, title, evidence={"time_ns": total, "calls": int(len(outer)), **extra},
                       ops=names, suggestion=suggestion, gain_ns=gain, method=METHOD_CP, confidence=conf * 0.8,
                       rows=outer, affected_ns=total)


def dataloader(ctx, th):
    """Data loading on the main thread. Workers load in parallel with the loop, on the cores the loop's own
    threads leave free (at least one): the loop then takes the longer of its other work and the loading
    shared among them, so the gain is the loading's time (replayed away) at most, and no more than the run
    less that longer part."""
    def in_workers(gain: float):
        env = ctx.meta.get("environment") or {}
        cores = int(env.get("cpu_count") or 0)
        threads = int(((env.get("torch") or {}).get("num_threads")) or 1)
        if cores <= 0 or not math.isfinite(gain):
            return gain, {}
        workers = max(1, cores - threads)
        bare = ctx.wall_without_recording
        rest = max(bare - gain, 0.0)
        return min(gain, max(bare - max(rest, gain / workers), 0.0)), {
            "workers_assumed": workers, "cores": cores, "loop_threads": threads}

    yield from _flag_rule(
        ctx, th, ctx.flag(C.DATALOADER_RE), "dataloader", "input_pipeline", "Data loading on the main thread",
        "Load data in the background: DataLoader(num_workers>0, pin_memory=True, persistent_workers=True, "
        "prefetch_factor=2); avoid per-sample Python transforms, tar/zip reads and slow storage in the loop; "
        "decode or transform once and cache what does not change between epochs.", bound=in_workers)


FULL_GC_RE = re.compile(r"^python gc \(generation 2\)$")


def gc_pauses(ctx, th):
    """Garbage-collector passes (collect/gc_pauses.py, or GC markers of an imported trace). A full
    (generation 2) pass walks every object the process holds, the libraries' included, and passes are
    triggered by allocation counts, which the profiler's own allocations shift: a single full pass in the
    run may be one the bare run would not make. Full passes count when they repeat (``min_full_passes``:
    the program's allocations drive them); young passes always."""
    flag = ctx.flag(C.GC_RE)
    full = flag & ctx.flag(FULL_GC_RE)
    if 0 < int(full.sum()) < th["min_full_passes"]:
        flag = flag & ~full
    yield from _flag_rule(
        ctx, th, flag, "gc", "gc", "Python garbage collection pauses",
        "Reduce GC work in the loop: gc.freeze() after setting up, gc.disable() around the hot loop (collect "
        "between epochs), or raise thresholds with gc.set_threshold; avoid creating many short-lived objects.",
        min_each_ns=th.get("min_each_ns", 0))


def compilation(ctx, th):
    flag = ctx.flag(C.COMPILE_RE)
    rows = np.flatnonzero(flag)
    acl = int(np.sum(np.char.find(ctx.names(rows).astype(str), "aclopCompile") >= 0)) if len(rows) else 0
    sugg = ("Compile once: warm up before the measured loop, keep shapes static (pad or bucket them), avoid "
            "recompilation triggers (changing dtypes, Python scalars as inputs); on Ascend use "
            "torch_npu.npu.set_compile_mode(jit_compile=False) and allow_internal_format=False.")
    if acl >= th["acl_compile_count"]:
        th = dict(th, min_pct=0.0)
    yield from _flag_rule(ctx, th, flag, "compile", "compile", "Compilation inside the profiled run", sugg)


def cold_start(ctx, th):
    from ..steps import cold_start as cs
    res = cs(ctx.profile)
    if res["steps"] < th["min_steps"] or not res["first_ns"]:
        return
    first, med = res["first_ns"], res["steady_median_ns"]
    extra = res["extra_ns"]
    if med <= 0 or first < th["ratio"] * med or pct(extra, ctx.wall) < th["min_pct"]:
        return
    ops = res["ops"]
    names = ops["name"].head(5).tolist() if len(ops) else []
    title = (f"The first step takes {F.ns(first)}, {first / med:.1f}x the steady-state median {F.ns(med)} "
             f"({F.ns(extra)} extra, {pct(extra, ctx.wall):.0f}% of end-to-end)")
    st = ctx.steps
    rows = np.flatnonzero((ctx.start >= st["start_ns"].iloc[0]) & (ctx.start < st["end_ns"].iloc[0]))
    yield make_finding(
        ctx, "cold_start", "cold_start", title,
        evidence={"first_step_ns": first, "steady_median_ns": med, "steps": res["steps"],
                  "step_source": res.get("source"), "warmup_ops": ops.head(10).to_dict("records") if len(ops) else []},
        ops=names,
        suggestion=("Warm up before measuring (one untimed iteration), cache what the first call builds "
                    "(compiled kernels, lazily created modules, allocator pools), or exclude step 0 from the "
                    "benchmark; if the first-call work is avoidable (re-creating models/tensors each run), "
                    "hoist it out."),
        gain_ns=extra, method=METHOD_HEADROOM + " (first step over the steady-state median)", confidence=0.6,
        rows=rows, affected_ns=extra)
