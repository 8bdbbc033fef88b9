"""Tiny ops by Python call site: the line that calls millions of ``.item()``s, on whole or truncated
profiles (issue 19).

The recorded ops say *what* is tiny (aten::select/item of ~1 us, by the hundred thousand); the call-site
samples (``meta["call_sites"]``, collect/call_sites.py, taken through the whole run, also after the memory
budget stopped op recording) say *where*: the line the recording thread was on. The finding joins the two:
the line's share of the samples times end-to-end is its time; its calls are the recorded tiny calls scaled
to the whole run (per step when steps were recorded whole, else by the line's sampled time).
"""

from __future__ import annotations

import math
import os

import numpy as np

from ... import formatting as F
from . import base
from ..classify import R


def _line(cs: dict) -> dict | None:
    lines = [r for r in cs.get("lines") or [] if isinstance(r, dict) and r.get("samples")]
    return max(lines, key=lambda r: r["samples"]) if lines else None


def _tiny_roots(ctx, short_ns: int) -> np.ndarray:
    """Rows of the outermost framework ops on the main thread that are shorter than ``short_ns``."""
    if not ctx.n:
        return np.zeros(0, dtype=np.int64)
    on_main = (ctx.role == R["op"]) & (ctx.track_code == ctx.main_track)
    parent_is_op = np.zeros(ctx.n, dtype=bool)
    has_parent = ctx.parent >= 0
    rows_of = ctx.rows_of_parent
    parent_is_op[has_parent] = ctx.role[rows_of[has_parent]] == R["op"]
    return np.flatnonzero(on_main & ~parent_is_op & (ctx.dur < short_ns))


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
    line_ns = share * ctx.wall
    calls_recorded = len(rows) * at_line
    truncated = bool((ctx.meta.get("budget") or {}).get("reached"))
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
    work = float(sum(np.median(ctx.dur[rows][codes == c]) for c in np.unique(codes)))
    gain = max(line_ns - work, 0.0)
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
                "gain_method": "headroom: the line's sampled time less one typical call of each distinct op"}
    conf = min(0.9, 0.4 + 0.5 * math.sqrt(min(line["samples"], 100) / 100))
    yield base.make_finding(ctx, "tiny_ops_by_line", "launch_overhead", title, evidence=evidence, ops=names,
                            suggestion=sugg, gain_ns=gain, method=base.METHOD_HEADROOM, confidence=conf,
                            rows=rows, affected_ns=line_ns)
