"""Steps (iterations): recorded step spans, ProfilerStep annotations, or repeats inferred from the
top-level host ops; per-step times, cold start (first repeat vs steady state) and outliers."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from . import classify as C

PROFILER_STEP_RE = re.compile(r"^ProfilerStep#\d+$")
STEP_COLUMNS = ["step", "start_ns", "end_ns", "dur_ns", "source"]


def _empty() -> pd.DataFrame:
    return pd.DataFrame({"step": np.empty(0, np.int64), "start_ns": np.empty(0, np.int64),
                         "end_ns": np.empty(0, np.int64), "dur_ns": np.empty(0, np.int64),
                         "source": np.empty(0, object)})


def _frame(start, end, source) -> pd.DataFrame:
    order = np.argsort(start, kind="stable")
    start, end = np.asarray(start, np.int64)[order], np.asarray(end, np.int64)[order]
    return pd.DataFrame({"step": np.arange(len(start), dtype=np.int64), "start_ns": start, "end_ns": end,
                         "dur_ns": end - start, "source": source})


def steps(profile, infer: bool = True) -> pd.DataFrame:
    """One row per step: ``step, start_ns, end_ns, dur_ns, source`` (recorded | profiler_step | inferred)."""
    from .context import context
    ctx = context(profile)
    if not ctx.n:
        return _empty()
    sel = ctx.role == C.R["step"]
    if sel.sum() >= 1:
        # only the outermost step spans (steps may nest in imported traces)
        rows = np.flatnonzero(sel)
        par = ctx.parent[rows]
        top = rows[~np.isin(par, ctx.id[rows])]
        return _frame(ctx.start[top], ctx.end[top], "recorded")
    ps = ctx.flag(PROFILER_STEP_RE) & ~ctx.is_device_task
    if ps.sum() >= 1:
        rows = np.flatnonzero(ps)
        return _frame(ctx.start[rows], ctx.end[rows], "profiler_step")
    if not infer:
        return _empty()
    return infer_steps(ctx)


MIN_BODY_NAMES = 2   # distinct top-level names called once per iteration that make an inferred loop


def infer_steps(ctx) -> pd.DataFrame:
    """Repeats of a loop from the top-level host work on the main lane.

    The loop count N is the count shared by most top-level names (ops called once per iteration);
    the anchor is the earliest-starting name called N times; a step runs from one anchor call to the
    next. Needs N >= 3 and at least MIN_BODY_NAMES names called N times (a loop body).
    """
    t = ctx.main_track
    if t < 0:
        return _empty()
    sel = (ctx.track_code == t) & np.isin(ctx.role, (C.R["op"], C.R["python"], C.R["launch"], C.R["runtime"],
                                                     C.R["sync"], C.R["alloc"]))
    rows = np.flatnonzero(sel)
    # top-level on the lane: no parent among the lane's work rows
    top = rows[~np.isin(ctx.parent[rows], ctx.id[rows])]
    if len(top) < 3:
        return _empty()
    codes = ctx.name_code[top]
    counts = np.bincount(codes[codes >= 0])
    cand = counts[counts >= 3]
    if not len(cand):
        return _empty()
    vals, freq = np.unique(cand, return_counts=True)
    n_steps = int(vals[np.lexsort((vals, freq))[-1]])
    names_n = np.flatnonzero(counts == n_steps)
    if len(names_n) < MIN_BODY_NAMES:
        return _empty()   # one op that happens to repeat (four .to() calls in a script) is not a loop body
    starts = ctx.start[top]
    first = {c: starts[codes == c].min() for c in names_n}
    anchor = min(first, key=first.get)
    a = np.sort(starts[codes == anchor])
    ends = np.append(a[1:], 0)
    last_end = int(ctx.end[top].max())
    med = int(np.median(np.diff(a))) if len(a) > 1 else last_end - int(a[-1])
    ends[-1] = min(last_end, int(a[-1]) + max(med, 0)) if len(a) > 1 else last_end
    ends[-1] = max(ends[-1], a[-1])
    return _frame(a, ends, "inferred")


def step_stats(profile) -> dict:
    """Per-step durations: count, first, median of the rest (steady state), mean, std, outliers."""
    st = steps(profile)
    if len(st) < 2:
        return {"count": int(len(st)), "source": st["source"].iloc[0] if len(st) else None}
    d = st["dur_ns"].to_numpy().astype(float)
    steady = d[1:]
    mean, std = float(steady.mean()), float(steady.std())
    thresh = mean + 3 * std
    out_idx = np.flatnonzero(d[1:] > thresh) + 1 if std > 0 else np.empty(0, np.int64)
    return {
        "count": int(len(d)), "source": str(st["source"].iloc[0]),
        "first_ns": float(d[0]), "steady_median_ns": float(np.median(steady)),
        "steady_mean_ns": mean, "steady_std_ns": std,
        "outlier_steps": out_idx.tolist(), "outlier_threshold_ns": thresh,
    }


def cold_start(profile) -> dict:
    """First repeat vs steady state: extra time of the first step over the steady-state median, and
    which ops account for it (ops whose time in step 0 exceeds their per-step median elsewhere)."""
    from .context import context
    ctx = context(profile)
    st = steps(profile)
    res = {"steps": int(len(st)), "first_ns": None, "steady_median_ns": None, "extra_ns": 0.0, "ops": pd.DataFrame()}
    if len(st) < 3:
        return res
    d = st["dur_ns"].to_numpy()
    med = float(np.median(d[1:]))
    res.update(first_ns=float(d[0]), steady_median_ns=med, extra_ns=max(0.0, float(d[0]) - med),
               source=str(st["source"].iloc[0]))
    # per-op self time per step on the host and the device
    work = np.flatnonzero(ctx.is_host | ctx.is_device_task)
    if not len(work):
        return res
    mid = ctx.start[work]
    k = np.searchsorted(st["start_ns"].to_numpy(), mid, side="right") - 1
    inside = (k >= 0) & (mid < st["end_ns"].to_numpy()[np.maximum(k, 0)])
    work, k = work[inside], k[inside]
    df = pd.DataFrame({"name": ctx.name_code[work], "step": k, "self": ctx.self_ns[work]})
    per = df.groupby(["name", "step"])["self"].sum().unstack(fill_value=0)
    if 0 not in per.columns:
        return res
    first = per[0]
    rest = per.drop(columns=[0])
    steady = rest.median(axis=1) if rest.shape[1] else pd.Series(0, index=per.index)
    extra = (first - steady).clip(lower=0)
    ops = pd.DataFrame({"name": ctx.name_cats[extra.index.to_numpy()], "first_ns": first.to_numpy(),
                        "steady_ns": steady.to_numpy(), "extra_ns": extra.to_numpy()})
    res["ops"] = ops[ops["extra_ns"] > 0].sort_values("extra_ns", ascending=False).reset_index(drop=True)
    return res
