"""Tiny ops by Python call site: the line that calls millions of ``.item()``s, on whole or truncated
profiles (issue 19).

The recorded ops say *what* is tiny (aten::select/item of ~1 us, by the hundred thousand); the call-site
samples (``meta["call_sites"]``, collect/call_sites.py, taken through the whole run, also after the memory
budget stopped op recording) say *where*: the line the recording thread was on. The finding joins the two:
the line's share of the samples times end-to-end is its time; its calls are the recorded tiny calls scaled
to the whole run (per step when steps were recorded whole, else by the line's sampled time).

Profiles of the Python tracer (no framework ops) have exact call sites instead: its line spans, and the
library calls each line makes (``tiny_calls_by_line``, host-bound Python rather than op launches).
"""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd

from ... import formatting as F
from . import base
from ..classify import R
from ..python_spans import call_kinds, user_frames
from ..sequential_loops import sampled_share
from ..timeline import nearest_ancestor
from .autograd import NODE_RE
from .host import element_time, roof_work_ns


MIN_SAMPLES_TO_SPLIT = 10   # call-site samples below which a line's share of them is noise (binomial, n < 10)


def _line(cs: dict) -> dict | None:
    lines = [r for r in cs.get("lines") or [] if isinstance(r, dict) and r.get("samples")]
    return max(lines, key=lambda r: r["samples"]) if lines else None


def _tiny_roots(ctx, short_ns: int) -> np.ndarray:
    """Rows of the outermost framework ops on the main thread that are shorter than ``short_ns`` (per
    piece for an op that splits a tensor into many: host.element_time), autograd's backward nodes aside."""
    if not ctx.n:
        return np.zeros(0, dtype=np.int64)
    on_main = (ctx.role == R["op"]) & (ctx.track_code == ctx.main_track)
    parent_is_op = np.zeros(ctx.n, dtype=bool)
    has_parent = ctx.parent >= 0
    rows_of = ctx.rows_of_parent
    parent_is_op[has_parent] = ctx.role[rows_of[has_parent]] == R["op"]
    rows = np.flatnonzero(on_main & ~parent_is_op)
    # autograd's backward nodes are the graph's work (per layer, per parameter), run by loss.backward():
    # not ops the line calls element by element
    rows = rows[~ctx.flag(NODE_RE)[rows]]
    return rows[element_time(ctx, rows) < short_ns]


def _calls_per_step(ctx, rows: np.ndarray) -> tuple[float, int] | None:
    """(tiny calls per recorded step, steps) when whole steps were recorded, else None."""
    st = ctx.steps
    if st is None or not len(st):
        return None
    st = st[st["source"].astype(str) != "inferred"] if "source" in st else st   # marked steps span the whole run
    if not len(st):
        return None
    budget = ctx.meta.get("budget") or {}
    cut = (budget.get("not_recorded") or {}).get("from_ns") if budget.get("reached") else None
    starts, ends = st["start_ns"].to_numpy(), (st["start_ns"] + st["dur_ns"]).to_numpy()
    whole = ends <= cut if cut is not None else np.ones(len(st), dtype=bool)
    if not whole.any():
        return None
    counts = np.histogram(ctx.start[rows], bins=np.append(starts[whole], ends[whole][-1]))[0] \
        if whole.sum() > 1 else np.array([((ctx.start[rows] >= starts[whole][0]) & (ctx.start[rows] < ends[whole][0])).sum()])
    return float(np.mean(counts[: whole.sum()])), int(len(st))


def tiny_ops_by_line(ctx, th):
    """The Python line whose per-element loop issues the tiny ops, with the gain of vectorising it: the
    line's sampled time, less one typical call of each distinct op (what the vectorised form still runs)."""
    cs = ctx.meta.get("call_sites")
    if not isinstance(cs, dict) or not cs.get("samples"):
        return
    line = _line(cs)
    rows = _tiny_roots(ctx, th["short_ns"])
    if line is None or len(rows) < th["min_calls"]:
        return
    share = line["samples"] / cs["samples"]
    if 100 * share < th["min_pct"]:
        return
    recorded = sum(int(r.get("recorded_samples") or 0) for r in cs.get("lines") or [])
    at_line = (line.get("recorded_samples") or 0) / recorded if recorded else share
    truncated = bool((ctx.meta.get("budget") or {}).get("reached"))
    line_share_from = f"{recorded} call-site samples taken while recording"
    if not truncated and recorded < MIN_SAMPLES_TO_SPLIT:
        # a few samples of a short run cannot split the tiny ops' stretch between lines (set-up and
        # teardown catch one of them as often as the loop): the stretch is the measure, the line its name
        at_line = 1.0
        line_share_from = (f"only {recorded} call-site samples: the recorded stretch of tiny ops is put on the "
                           "most sampled line whole")
    # the line's sampled time less what recording its ops cost (gains are for the run without the profiler)
    from ..timeline import ancestor_flag
    mine = np.zeros(ctx.n, dtype=bool)
    mine[rows] = True
    line_ns = max(share * ctx.wall - at_line * float(ctx.recording_cost[ancestor_flag(ctx, mine)].sum()), 0.0)
    calls_recorded = len(rows) * at_line
    per_step = _calls_per_step(ctx, rows) if truncated else None
    if per_step is not None:
        calls, how = per_step[0] * per_step[1] * at_line, f"{per_step[0]:,.0f} per recorded step x {per_step[1]} steps"
    elif truncated and len(rows):
        # the line's time after the cut (its unrecorded samples) at the recorded call rate: a lower bound,
        # since calls run faster unrecorded
        cut = (ctx.meta["budget"].get("not_recorded") or {}).get("from_ns", int(ctx.end[rows].max()))
        recorded_ns = max(int(cut) - int(ctx.start[rows].min()), 1)
        after_ns = (line["samples"] - int(line.get("recorded_samples") or 0)) * int(cs.get("period_ns") or 0)
        calls = calls_recorded * (1 + after_ns / recorded_ns)
        how = "recorded calls, and the line's sampled time after the cut at the recorded call rate (a lower bound)"
    else:
        calls, how = calls_recorded, "recorded calls"
    codes = ctx.name_code[rows]
    per_call = element_time(ctx, rows)
    work = float(sum(np.median(per_call[codes == c]) for c in np.unique(codes)))
    # and the work itself at the reachable fraction of the roof (host.roof_work_ns), over the tiny ops' stretch
    work += at_line * roof_work_ns(ctx, np.array([ctx.start[rows].min()]), np.array([ctx.end[rows].max()]),
                                   th["roof_frac"]) if len(rows) else 0.0
    # the share of the line's samples inside a loop carrying state from pass to pass stays
    # (analyze/sequential_loops.py)
    kept, seq_evidence = sampled_share(ctx, (line["file"], line["line"]))
    gain = max(line_ns - work - kept * line_ns, 0.0)
    method = "headroom: the line's sampled time less one typical call of each distinct op"
    if not truncated:
        # every op was recorded: the loop is where its tiny ops are (a few samples of a short run put the
        # whole run, set-up included, on one line), replayed with it shrunk to that work, the line's share of it
        lo, hi = int(ctx.start[rows].min()), int(ctx.end[rows].max())
        rep = ctx.replay
        inside = rep.seg_net[(rep.seg_start >= lo) & (rep.seg_end <= hi)].sum()
        f = rep.seg_factor_in(np.array([lo]), np.array([hi]), min(1.0, kept + work / max(inside, 1.0)))
        gain = at_line * base.replay_gain(ctx, seg_factor=f)[0]
        line_ns = min(line_ns, at_line * float(inside))
        method = ("critical-path what-if: the recorded tiny ops' stretch shrunk to one typical call of each "
                  "distinct op, times the line's share of the recorded samples")
    names = base.top_names(ctx, rows, 3)
    mean = float(ctx.dur[rows].mean())
    where = f"{os.path.basename(str(line['file']))}:{line['line']}"
    approx = "at least " if "lower bound" in how else "~"
    title = (f"Line {where} calls tiny ops one element at a time: {approx}{calls:,.0f} calls of {F.ns(mean)} "
             f"({', '.join(names)}), {100 * share:.0f}% of the run")
    code = line.get("code") or ""
    sugg = (f"Vectorise line {where}{f' ({code})' if code else ''}: operate on the whole tensor at once "
            "(e.g. total = scores.sum().item(), or values = scores.tolist() once, instead of scores[i].item() "
            "per element); on an accelerator each .item() also waits for the device.")
    evidence = {"file": line["file"], "line": line["line"], "function": line.get("function"), "code": code or None,
                "line_samples": line["samples"], "samples": cs["samples"], "line_share": share,
                "line_ns": line_ns, "recorded_calls": int(round(calls_recorded)), "estimated_calls": int(round(calls)),
                "calls_estimate": how, "mean_call_ns": mean, "vectorised_work_ns": work, "truncated": truncated,
                "line_share": at_line, "line_share_from": line_share_from,
                "gain_method": method, **({"sequential": seq_evidence} if seq_evidence else {})}
    if seq_evidence.get("loops"):
        lp = seq_evidence["loops"][0]
        sugg = (f"The loop at {os.path.basename(lp['line'].rpartition(':')[0])}:{lp['line'].rpartition(':')[2]} "
                f"carries {', '.join(lp['carried'][:4])} from one pass to the next, so "
                f"{100 * kept:.0f}% of this line's time stays a loop (kept in the estimate): make each pass "
                "cheaper (fewer, larger ops per pass: a library kernel for the step, torch.compile of it). " + sugg)
    conf = min(0.9, 0.4 + 0.5 * math.sqrt(min(line["samples"], 100) / 100))
    yield base.make_finding(ctx, "tiny_ops_by_line", "launch_overhead", title, evidence=evidence, ops=names,
                            suggestion=sugg, gain_ns=gain,
                            method=base.METHOD_HEADROOM if truncated else base.METHOD_CP, confidence=conf,
                            rows=rows, affected_ns=line_ns)


# -- the Python tracer's lines: exact call sites -----------------------------------------------------
def _file_of(file_line) -> np.ndarray:
    """The file part of ``file:line`` values (object array; None where unknown)."""
    out = np.empty(len(file_line), dtype=object)
    for i, v in enumerate(file_line):
        out[i] = v.rsplit(":", 1)[0] if isinstance(v, str) else None
    return out


def _suggestion(where: str, code: str, names: list[str]) -> str:
    at = f"line {where}{f' ({code})' if code else ''}"
    if any(n.startswith("pandas.") for n in names):
        return (f"Vectorise {at}: compute on whole columns (df['price'] * df['qty'], np.where(cond, a, b), "
                "Series.map / merge instead of lookups per row) instead of iterrows / apply(axis=1) / .loc[i] / "
                ".at[i] per row; if a loop must stay, loop over arrays taken once with .to_numpy() "
                "(or itertuples), not over pandas objects.")
    if any(n.startswith("numpy.") for n in names):
        return (f"Vectorise {at}: one numpy call on the whole array (or a stacked batch) instead of one "
                "call per element or row.")
    return (f"Take the per-element calls out of {at}: operate on whole sequences at once (numpy arrays, "
            "str.join, sum/map over the sequence, a dict or set built once) instead of calling a library "
            "function for every element.")


CALLBACK_LEVELS = 4   # library frames between a C function calling back and the user's line that called it


def tiny_calls_by_line(ctx, th):
    """A user line (the Python tracer's line spans) that calls library functions thousands of times,
    each call short: a per-row / per-element loop (``df.iterrows()``, ``row["a"]``, ``df.loc[i, c] = v``,
    ``math.sqrt(x[i])``), also through a C function it calls that calls back per element
    (``generic_filter(img, np.std)``, ``sorted(key=f)``). Calls are short when no piece of their work exceeds ``short_ns`` (the longest
    self time in their call tree: dispatch, checks and small objects, not native work on data), or none
    exceeds ``max_piece_share`` of the call, and a typical call is under ``max_call_ns``. Gain: replay with the line's time less what vectorised code
    keeps: one typical call of each distinct short function (it is then called once, on whole columns),
    every other call whole, and the line's own time whole when it does work (one typical execution's
    when it is only interpreter overhead)."""
    from .host import LINE_RE, longest_piece, recording_in_subtree

    if "file_line" not in ctx.events or not ctx.n:
        return
    on = (ctx.role == R["python"]) & (ctx.track_code == ctx.main_track)
    is_line = on & ctx.flag(LINE_RE)
    if not is_line.any():
        return
    prow = ctx.rows_of_parent
    calls = np.flatnonzero(on & ~is_line & (prow >= 0))
    # the line a call is made from: its parent, or through one C function the line called that calls back
    # per element (scipy.ndimage.generic_filter(img, np.std), sorted(key=f), map(f, xs))
    owner = prow[calls]
    via_c = ~is_line[owner] & call_kinds(ctx)["c"][owner]
    if via_c.any():
        # up from the C function through the library's frames to the user's line that called it
        library = ~user_frames(ctx) & ~is_line
        # a few levels: a callback API's own frames (generic_filter's), not an import's machinery (class
        # bodies run by __build_class__ deep under an import line)
        owner[via_c] = nearest_ancestor(ctx, owner[via_c], is_line, through=library, max_levels=CALLBACK_LEVELS)
    keep = (owner >= 0) & is_line[np.maximum(owner, 0)]
    calls, owner = calls[keep], owner[keep]
    if len(calls) < th["min_calls"]:
        return
    file_line = ctx.events["file_line"]
    line_rows = np.flatnonzero(is_line)
    user_files = {f for f in pd.unique(_file_of(file_line.iloc[line_rows].to_numpy())) if f}
    call_files = _file_of(file_line.iloc[calls].to_numpy())
    library = np.array([f is None or f not in user_files for f in call_files], dtype=bool)
    calls, owner = calls[library], owner[library]
    if len(calls) < th["min_calls"]:
        return
    piece = longest_piece(ctx)
    line_of = ctx.name_code[owner]
    # a call's time without the profiler: a deep library call (a one-row DataFrame) records hundreds of events
    bare = np.maximum(ctx.dur[calls] - recording_in_subtree(ctx)[calls], 0.0)
    df = pd.DataFrame({"line": line_of, "fn": ctx.name_code[calls], "dur": ctx.dur[calls],
                       "piece": piece[calls], "bare": bare})
    g = df.groupby(["line", "fn"], sort=False).agg(n=("dur", "size"), total=("dur", "sum"),
                                                   typical=("dur", "median"), piece=("piece", "median"),
                                                   bare=("bare", "median"))
    # overhead-made: no piece of work over short_ns, or none over max_piece_share of the call (its time is
    # spread over many small steps: argument checks, broadcasting, small objects, as in scipy.stats' calls);
    # short unprofiled
    g["short"] = ((g["piece"] < th["short_ns"]) | (g["piece"] < th["max_piece_share"] * g["typical"])) \
        & (g["bare"] < th["max_call_ns"])
    short = g[g["short"]]
    per_line = short.groupby(level="line").agg(n=("n", "sum"), total=("total", "sum"), kept=("typical", "sum"))
    per_line = per_line[per_line["n"] >= th["min_calls"]]
    if not len(per_line):
        return
    self_ns = ctx.self_ns
    line_code = ctx.name_code[line_rows]
    found, spread = [], []
    for code, row in per_line.iterrows():
        spans = line_rows[line_code == code]
        line_ns = base.covered_ns(ctx, spans)
        own = self_ns[spans].astype(float)
        typical_self = float(np.median(own))
        # the line's own time: interpreter overhead per execution when short (vectorised code runs the
        # line once), native work on data (untraced ufuncs, operators) when not: kept whole
        self_saved = float(own.sum() - typical_self) if typical_self < th["short_ns"] else 0.0
        removable = float(row["total"] - row["kept"]) + self_saved
        entry = (removable, int(code), spans, line_ns, typical_self, self_saved, row)
        if base.pct(removable, ctx.wall) >= th["min_pct"]:
            found.append(entry)
        elif base.pct(removable, ctx.wall) >= th["min_line_pct"]:
            spread.append(entry)
    # two or more such lines of one function are one loop body (a per-group loop: sort, shift, rolling of
    # each group): vectorising it removes them all, so they are one finding with their gains together
    counts = pd.Series([_function_of(ctx, e[1]) for e in found]).value_counts()
    together = set(counts.index[counts.to_numpy() >= 2])
    spread += [e for e in found if _function_of(ctx, e[1]) in together]
    found = [e for e in found if _function_of(ctx, e[1]) not in together]
    yield from _loop_body(ctx, th, spread, short, calls, line_of)
    found.sort(key=lambda x: -x[0])
    rep = ctx.replay
    for removable, code, spans, line_ns, typical_self, self_saved, row in found[: th["top"]]:
        mask = np.zeros(ctx.n, dtype=bool)
        mask[spans] = True
        factor = max(0.0, 1.0 - removable / max(line_ns, 1))
        gain, conf = base.replay_gain(ctx, seg_factor=rep.seg_factor_for(mask, factor))
        fns = short.loc[code].sort_values("total", ascending=False)
        names = [str(ctx.name_cats[c]) for c in fns.index[:3]]
        rows = calls[line_of == code]
        n_calls, execs = int(row["n"]), int(len(spans))
        mean = float(row["total"]) / max(n_calls, 1)
        place = file_line.iloc[spans[0]]
        where = (f"{os.path.basename(place.rsplit(':', 1)[0])}:{place.rsplit(':', 1)[1]}"
                 if isinstance(place, str) and ":" in place else str(ctx.name_cats[code]))
        label = str(ctx.name_cats[code])
        src = label.split(": ", 1)[1] if ": " in label else ""
        title = (f"Line {where} calls library functions one row/element at a time: {n_calls:,} calls of "
                 f"{F.ns(mean)} on average ({', '.join('.'.join(n.split('.')[-2:]) for n in names)}) in {execs:,} executions, "
                 f"{base.pct(line_ns, ctx.wall):.0f}% of the run")
        evidence = {"file_line": place if isinstance(place, str) else None, "line": label, "code": src or None,
                    "executions": execs, "calls": n_calls, "calls_per_execution": n_calls / max(execs, 1),
                    "mean_call_ns": mean, "line_ns": line_ns,
                    "functions": [{"name": str(ctx.name_cats[c]), "calls": int(r["n"]), "total_ns": int(r["total"]),
                                   "typical_ns": float(r["typical"]), "typical_unprofiled_ns": float(r["bare"]),
                                   "longest_piece_ns": float(r["piece"])}
                                  for c, r in fns.head(5).iterrows()],
                    "kept_calls_ns": float(row["kept"]), "typical_self_ns": typical_self,
                    "self_saved_ns": self_saved, "removable_ns": removable,
                    "threshold_short_ns": th["short_ns"], "threshold_max_call_ns": th["max_call_ns"],
                    "gain_method": "replay: the line's time less one typical call of each distinct short function"}
        yield base.make_finding(ctx, "tiny_calls_by_line", "host_bound", title, evidence=evidence, ops=names,
                                suggestion=_suggestion(where, src, names), gain_ns=gain, method=base.METHOD_CP,
                                confidence=conf * 0.9, rows=rows, affected_ns=line_ns)


def _function_of(ctx, line_code: int) -> str:
    """The function a line span belongs to, from its label (``module.f line 12: source``)."""
    return str(ctx.name_cats[line_code]).split(" line ", 1)[0]


def _loop_body(ctx, th, spread: list, short, calls, line_of):
    """One finding per function whose lines each call library functions per element, two or more of them
    ``min_pct`` or more of the run each, or each less but ``min_pct`` or more together: a loop body spread
    over several lines (a log-density of four ``scipy.stats`` calls evaluated per step). Gain: each line
    replayed as a line finding's is, together."""
    groups: dict[str, list] = {}
    for entry in spread:
        groups.setdefault(_function_of(ctx, entry[1]), []).append(entry)
    rep = ctx.replay
    for func, entries in groups.items():
        removable = sum(e[0] for e in entries)
        if len(entries) < 2 or base.pct(removable, ctx.wall) < th["min_pct"]:
            continue
        entries.sort(key=lambda e: ctx.start[e[2][0]])
        seg = np.ones(rep.S)
        for rem, _, spans, line_ns, *_ in entries:
            mask = np.zeros(ctx.n, dtype=bool)
            mask[spans] = True
            seg *= rep.seg_factor_for(mask, max(0.0, 1.0 - rem / max(line_ns, 1)))
        gain, conf = base.replay_gain(ctx, seg_factor=seg)
        codes = [e[1] for e in entries]
        fns = short.loc[codes].groupby(level="fn").agg(n=("n", "sum"), total=("total", "sum")) \
            .sort_values("total", ascending=False)
        names = [str(ctx.name_cats[c]) for c in fns.index[:3]]
        n_calls, total = int(fns["n"].sum()), float(fns["total"].sum())
        spans = np.concatenate([e[2] for e in entries])
        t = base.covered_ns(ctx, spans)
        places = [str(ctx.events["file_line"].iloc[e[2][0]]) for e in entries]
        first = places[0].rsplit(":", 1)
        where = f"{os.path.basename(first[0])}:{', '.join(p.rsplit(':', 1)[-1] for p in places)}"
        title = (f"Lines {where} (in {func.rsplit('.', 1)[-1]}) call library functions one element at a time: "
                 f"{n_calls:,} calls of {F.ns(total / max(n_calls, 1))} on average "
                 f"({', '.join('.'.join(n.split('.')[-2:]) for n in names)}), {base.pct(t, ctx.wall):.0f}% of the run")
        evidence = {"function": func, "lines": places, "calls": n_calls, "mean_call_ns": total / max(n_calls, 1),
                    "lines_ns": t, "removable_ns": removable,
                    "functions": [{"name": str(ctx.name_cats[c]), "calls": int(r["n"]), "total_ns": int(r["total"])}
                                  for c, r in fns.head(5).iterrows()],
                    "gain_method": "replay: each line's time less one typical call of each distinct short function"}
        rows = calls[np.isin(line_of, codes)]
        yield base.make_finding(ctx, "tiny_calls_by_line", "host_bound", title, evidence=evidence, ops=names,
                                suggestion=_suggestion(where, "", names), gain_ns=gain, method=base.METHOD_CP,
                                confidence=conf * 0.8, rows=rows, affected_ns=t)
