"""Device-side analyses: idle classification, launch statistics and queue length, transfers,
utilisation, implicit syncs and resource contention."""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import classify as C
from .context import context
from .intervals import covered_within, gaps, sweep, union

I64 = np.int64
IDLE_CATEGORIES = ("host_wait", "kernel_wait", "other")
KERNEL_WAIT_NS = 30_000          # HTA consecutive_kernel_delay (effectively 30 us)
SMALL_COPY_BYTES = 64 * 1024     # analysis-anchors D3: copies under 64 KB
RUNTIME_OUTLIER_NS = 50_000      # HTA runtime_cutoff
LAUNCH_DELAY_OUTLIER_NS = 100_000  # HTA launch_delay_cutoff


# -- idle --------------------------------------------------------------------------------------------
def idle_breakdown(profile) -> pd.DataFrame:
    """HTA's idle-time breakdown per stream: each gap between consecutive tasks of a stream is
    ``host_wait`` (the next task's launch call began after the previous task ended: the device
    waited for the host), ``kernel_wait`` (shorter than 30 us: back-to-back launch overhead) or
    ``other`` (syncs, events, other streams). Columns ``stream, device, category, idle_ns, count,
    idle_pct`` (of the stream's first-to-last span)."""
    g = idle_gaps(profile)
    cols = ["stream", "device", "category", "idle_ns", "count", "idle_pct"]
    if not len(g):
        return pd.DataFrame(columns=cols)
    agg = g.groupby(["stream", "device", "category"], observed=True).agg(idle_ns=("dur", "sum"),
                                                                          count=("dur", "size")).reset_index()
    span = g.groupby("stream")["span"].first()
    agg["idle_pct"] = 100.0 * agg["idle_ns"] / agg["stream"].map(span).clip(lower=1)
    return agg[cols]


def idle_gaps(profile) -> pd.DataFrame:
    """Every gap between consecutive tasks of each stream with its HTA category and the row of the
    task that ended it. Columns ``stream, device, start, end, dur, category, next_row, span``."""
    ctx = context(profile)
    rows = np.flatnonzero(ctx.is_device_task)
    cols = ["stream", "device", "start", "end", "dur", "category", "next_row", "span"]
    if len(rows) < 2:
        return pd.DataFrame(columns=cols)
    rows = rows[np.lexsort((ctx.start[rows], ctx.track_code[rows]))]
    st = ctx.track_code[rows]
    s, e = ctx.start[rows], ctx.end[rows]
    # running end per stream (tasks of a stream may overlap in imported traces)
    from .intervals import _group_cummax
    first = np.ones(len(rows), dtype=bool)
    first[1:] = st[1:] != st[:-1]
    run_end = _group_cummax(e, st, first)
    prev_end = np.concatenate([[0], run_end[:-1]])
    gap = s - prev_end
    sel = ~first & (gap > 0)
    nxt = rows[sel]
    ge, gs = s[sel], prev_end[sel]
    lrow = ctx.task_launch[nxt]
    lstart = np.where(lrow >= 0, ctx.start[np.maximum(lrow, 0)], np.iinfo(I64).max)
    cat = np.where((lrow >= 0) & (lstart > gs), 0, np.where(ge - gs < KERNEL_WAIT_NS, 1, 2)).astype(np.int8)
    span_lo = pd.Series(s).groupby(st).min()
    span_hi = pd.Series(run_end).groupby(st).max()
    span = (span_hi - span_lo)
    tracks = ctx.track_cats.astype(str)
    devs = ctx.device_cats.astype(str)
    return pd.DataFrame({"stream": pd.Categorical.from_codes(st[sel], tracks),
                         "device": pd.Categorical.from_codes(ctx.device_code[nxt], devs), "start": gs, "end": ge,
                         "dur": ge - gs, "category": pd.Categorical.from_codes(cat, IDLE_CATEGORIES),
                         "next_row": nxt, "span": span.reindex(st[sel]).to_numpy()})


def device_idle_gaps(profile, device: str, min_ns: int = 0) -> pd.DataFrame:
    """Gaps of the whole device (no task on any stream) inside the profile window."""
    ctx = context(profile)
    rows = ctx.device_rows(device)
    lo, hi = ctx.window
    g = gaps(ctx.start[rows], ctx.end[rows], lo=lo, hi=hi, edges=True)
    return g[g["dur"] >= min_ns].reset_index(drop=True)


# -- device time per host op -------------------------------------------------------------------------------
def device_time_by_op(profile, level: str = "outer") -> pd.DataFrame:
    """Device time attributed to the framework ops that launched it (via corr): ``level="outer"``
    the outermost op around the launch call (what the user's code called, e.g. aten::linear),
    ``"inner"`` the innermost (e.g. aten::addmm). Columns ``name, kernels, device_ns, share_pct``
    (of all launched device time), sorted by device time."""
    ctx = context(profile)
    j = ctx.launches
    cols = ["name", "kernels", "device_ns", "share_pct"]
    if not len(j):
        return pd.DataFrame(columns=cols)
    launch = j["launch"].to_numpy()
    op = np.full(len(launch), -1, dtype=I64)
    cur = ctx.rows_of_parent[launch]
    for _ in range(128):
        live = cur >= 0
        if not live.any():
            break
        is_op = np.zeros(len(launch), dtype=bool)
        is_op[live] = ctx.role[cur[live]] == C.R["op"]
        take = is_op if level == "outer" else is_op & (op < 0)
        op[take] = cur[take]
        cur = np.where(live, ctx.rows_of_parent[np.maximum(cur, 0)], -1)
    dur = (j["task_end"] - j["task_start"]).to_numpy()
    ok = op >= 0
    codes = ctx.name_code[op[ok]]
    tot = np.bincount(codes, weights=dur[ok], minlength=len(ctx.name_cats))
    cnt = np.bincount(codes, minlength=len(ctx.name_cats))
    keep = np.flatnonzero(cnt)
    out = pd.DataFrame({"name": ctx.name_cats[keep].astype(str), "kernels": cnt[keep], "device_ns": tot[keep].astype(I64)})
    out["share_pct"] = 100.0 * out["device_ns"] / max(int(dur.sum()), 1)
    return out.sort_values("device_ns", ascending=False).reset_index(drop=True)[cols]


# -- launches ------------------------------------------------------------------------------------------
def launch_stats(profile) -> pd.DataFrame:
    """HTA's kernel launch statistics, one row per launched task: ``task, launch, name, cpu_ns``
    (launch call duration), ``gpu_ns`` (task duration), ``delay_ns`` (task start - call end),
    ``short`` (gpu < cpu), ``runtime_outlier`` (> 50 us), ``delay_outlier`` (> 100 us)."""
    ctx = context(profile)
    j = ctx.launches
    cols = ["task", "launch", "name", "cpu_ns", "gpu_ns", "delay_ns", "short", "runtime_outlier", "delay_outlier"]
    if not len(j):
        return pd.DataFrame(columns=cols)
    cpu = (j["launch_end"] - j["launch_start"]).to_numpy()
    gpu = (j["task_end"] - j["task_start"]).to_numpy()
    out = pd.DataFrame({"task": j["task"].to_numpy(), "launch": j["launch"].to_numpy(),
                        "name": ctx.name_categorical(j["task"].to_numpy()), "cpu_ns": cpu, "gpu_ns": gpu,
                        "delay_ns": j["delay_ns"].to_numpy()})
    out["short"] = out["gpu_ns"] < out["cpu_ns"]
    out["runtime_outlier"] = out["cpu_ns"] > RUNTIME_OUTLIER_NS
    out["delay_outlier"] = out["delay_ns"] > LAUNCH_DELAY_OUTLIER_NS
    return out[cols]


def queue_length(profile) -> pd.DataFrame:
    """HTA's launch queue length per stream as a step function: +1 at each launch call, -1 when its
    task starts. Columns ``stream, ts_ns, queue_length``."""
    ctx = context(profile)
    j = ctx.launches
    if not len(j):
        return pd.DataFrame(columns=["stream", "ts_ns", "queue_length"])
    t = np.concatenate([j["launch_start"].to_numpy(), j["task_start"].to_numpy()])
    d = np.concatenate([np.ones(len(j), I64), -np.ones(len(j), I64)])
    st = np.concatenate([j["stream"].to_numpy(), j["stream"].to_numpy()])
    order = np.lexsort((d, t, st))
    t, d, st = t[order], d[order], st[order]
    q = pd.Series(d).groupby(st).cumsum().to_numpy()
    return pd.DataFrame({"stream": ctx.track_cats[st], "ts_ns": t, "queue_length": q})


# -- transfers -------------------------------------------------------------------------------------------
def transfers(profile) -> pd.DataFrame:
    """One row per copy kind (H2D, D2H, D2D, ...; '' when the name does not say) and device:
    ``count, bytes, dur_ns, bandwidth_gbps`` (bytes over busy time; NaN without bytes),
    ``small_count`` (< 64 KB), ``pageable_count``, ``overlap_pct`` (copy time overlapping compute on
    the same device), ``exposed_ns`` (copy time not overlapping compute)."""
    ctx = context(profile)
    rows = np.flatnonzero(np.isin(ctx.role, (C.R["memcpy"], C.R["memset"])))
    cols = ["device", "kind", "count", "bytes", "dur_ns", "bandwidth_gbps", "small_count", "pageable_count",
            "overlap_pct", "exposed_ns"]
    if not len(rows):
        return pd.DataFrame(columns=cols)
    names = ctx.events["name"].iloc[rows]
    kind = C.memcpy_kind(names)
    kind = np.where(ctx.role[rows] == C.R["memset"], "memset", kind)
    nbytes = ctx.events["bytes"].to_numpy()[rows]
    pageable = C.name_flags(names, C.PAGEABLE_RE)
    dev = ctx.devices(rows)
    covered = np.zeros(len(rows), dtype=I64)
    for d in np.unique(dev):
        comp = ctx.device_rows(d, (C.R["compute"], C.R["comm"]))
        us, ue = union(ctx.start[comp], ctx.end[comp])
        m = dev == d
        covered[m] = covered_within(ctx.start[rows[m]], ctx.end[rows[m]], us, ue)
    df = pd.DataFrame({"device": dev, "kind": kind, "bytes": nbytes, "dur": ctx.dur[rows],
                       "small": nbytes < SMALL_COPY_BYTES, "pageable": pageable, "covered": covered})
    g = df.groupby(["device", "kind"], sort=True)
    out = g.agg(count=("dur", "size"), bytes=("bytes", lambda x: x.sum(min_count=1)), dur_ns=("dur", "sum"),
                small_count=("small", "sum"), pageable_count=("pageable", "sum"), covered=("covered", "sum"))
    out = out.reset_index()
    out["bandwidth_gbps"] = out["bytes"] / out["dur_ns"].clip(lower=1)  # bytes/ns == GB/s
    out["overlap_pct"] = 100.0 * out["covered"] / out["dur_ns"].clip(lower=1)
    out["exposed_ns"] = out["dur_ns"] - out["covered"]
    return out[cols]


# -- utilisation -------------------------------------------------------------------------------------------
def utilization(profile) -> dict:
    """Device busy % (time with any task), CPU utilisation from the host sampler, achieved FLOP/s
    where FLOPs are recorded, and Ascend pipe ratios (duration-weighted ``pmu_*`` means) when present."""
    from .breakdown import device_breakdown
    ctx = context(profile)
    out: dict = {"devices": {}, "cpu": {}, "flops": {}, "pipes": {}}
    bd = device_breakdown(profile)
    for _, r in bd.iterrows():
        out["devices"][r["device"]] = {"busy_pct": float(r["busy_pct"]), "compute_pct": float(r["compute_pct"])}
    cn = profile.counters
    if len(cn):
        metric = cn["metric"].astype(str)
        for m in ("cpu_util", "system_cpu_util"):
            v = cn.loc[metric == m, "value"]
            if len(v):
                out["cpu"][m] = {"mean": float(v.mean()), "p95": float(v.quantile(0.95)), "max": float(v.max())}
        cores = metric.str.startswith("cpu_util:core")
        if cores.any():
            per = cn[cores].groupby(metric[cores])["value"].mean()
            out["cpu"]["cores_busy_mean"] = float((per / 100.0).sum())
    fl = ctx.events["flops"].to_numpy()
    has = np.isfinite(fl) & (fl > 0)
    if has.any():
        rows = np.flatnonzero(has)
        dev = np.where(ctx.is_device_task[rows], ctx.devices(rows), "cpu")
        df = pd.DataFrame({"device": dev, "flops": fl[rows], "dur": ctx.dur[rows]})
        for d, g in df.groupby("device"):
            out["flops"][d] = {"flops": float(g["flops"].sum()), "time_ns": int(g["dur"].sum()),
                               "achieved_tflops": float(g["flops"].sum() / max(g["dur"].sum(), 1) / 1e3)}
    pmu = [c for c in ctx.events.columns if c.startswith("pmu_")]
    if pmu:
        ev = ctx.events
        w = ev["dur_ns"].to_numpy().astype(float)
        for c in pmu:
            v = pd.to_numeric(ev[c], errors="coerce").to_numpy(dtype=float)
            ok = np.isfinite(v)
            if ok.any():
                out["pipes"][c] = float(np.average(v[ok], weights=np.maximum(w[ok], 1)))
    return out


# -- syncs -------------------------------------------------------------------------------------------------
SYNC_SITE_RE = r"item|_local_scalar_dense|nonzero|\.cpu|aten::to$|aten::_to_copy|aten::copy_|masked_select|" \
               r"unique|is_nonzero|tolist|numpy|synchronize|allclose|equal"


def syncs(profile) -> pd.DataFrame:
    """Host calls that block until the device catches up (stream/device syncs, synchronous or
    pageable copies), one row each: ``row, name, site`` (the innermost enclosing framework op, e.g.
    aten::item or aten::_to_copy: the Python-level cause), ``start_ns, dur_ns, wait_ns`` (time the
    call spent waiting for device work), ``device_idle_ns`` (device idle during the call)."""
    ctx = context(profile)
    rep = ctx.replay
    rows = rep.block_rows_all
    cols = ["row", "name", "site", "start_ns", "dur_ns", "wait_ns", "device_idle_ns"]
    if not len(rows):
        # syncs on lanes other than the main one are listed too
        pass
    allrows = np.flatnonzero(((ctx.role == C.R["sync"]) | ctx.implicit_sync) & (ctx.dur > 0))
    rows = np.union1d(rows, allrows)
    if not len(rows):
        return pd.DataFrame(columns=cols)
    s, e = ctx.start[rows], ctx.end[rows]
    dev = np.flatnonzero(ctx.is_device_task)
    de = np.sort(ctx.end[dev])
    k = np.searchsorted(de, e, side="right") - 1
    c = np.where(k >= 0, de[np.maximum(k, 0)], np.iinfo(I64).min) if len(de) else np.full(len(rows), np.iinfo(I64).min)
    wait = np.where(c > s, c - s, 0)
    us, ue = union(ctx.start[dev], ctx.end[dev])
    idle = (e - s) - covered_within(s, e, us, ue)
    # site: innermost enclosing 'op' ancestor
    site = np.full(len(rows), "", dtype=object)
    cur = ctx.rows_of_parent[rows]
    pending = np.ones(len(rows), dtype=bool)
    for _ in range(64):
        live = pending & (cur >= 0)
        if not live.any():
            break
        is_op = np.zeros(len(rows), dtype=bool)
        is_op[live] = ctx.role[cur[live]] == C.R["op"]
        hit = live & is_op
        site[hit] = ctx.names(cur[hit])
        pending &= ~hit
        cur = np.where(pending & (cur >= 0), ctx.rows_of_parent[np.maximum(cur, 0)], -1)
    # an implicit sync with no op around it is its own site
    own = ctx.implicit_sync[rows] & (site == "")
    site[own] = ctx.names(rows[own])
    return pd.DataFrame({"row": rows, "name": ctx.names(rows), "site": site, "start_ns": s, "dur_ns": e - s,
                         "wait_ns": wait, "device_idle_ns": idle})[cols]


# -- contention -------------------------------------------------------------------------------------------
def contention(profile) -> pd.DataFrame:
    """Per device: time with 2+ streams busy at once, time copies overlap compute (they share memory
    bandwidth), time two copies of the same direction overlap (they share the link). Columns
    ``device, concurrent_streams_ns, copy_compute_overlap_ns, copy_copy_overlap_ns, busy_ns``."""
    ctx = context(profile)
    out = []
    for d in ctx.accel_devices:
        rows = ctx.device_rows(d)
        if not len(rows):
            continue
        st = ctx.track_code[rows]
        # per-stream unions, then count of active streams via +1/-1
        g, us, ue = union(ctx.start[rows], ctx.end[rows], st)
        t = np.concatenate([us, ue])
        dd = np.concatenate([np.ones(len(us), I64), -np.ones(len(ue), I64)])
        order = np.lexsort((dd, t))
        t, dd = t[order], dd[order]
        active = np.cumsum(dd)
        seg = np.diff(t)
        concurrent = int(seg[active[:-1] >= 2].sum()) if len(seg) else 0
        role = ctx.role[rows]
        is_copy = np.isin(role, (C.R["memcpy"], C.R["memset"]))
        lab = np.where(is_copy, 1, 0)
        sw = sweep(ctx.start[rows], ctx.end[rows], lab, 2)
        both = int(sw.loc[sw["mask"] == 3, "dur"].sum()) if len(sw) else 0
        # copies of the same direction overlapping each other
        kinds = C.memcpy_kind(ctx.events["name"].iloc[rows[is_copy]])
        cc = 0
        for k in np.unique(kinds):
            r = rows[is_copy][kinds == k]
            if len(r) < 2:
                continue
            tot = int(ctx.dur[r].sum())
            cover = int((lambda a: (a[1] - a[0]).sum())(union(ctx.start[r], ctx.end[r])))
            cc += tot - cover
        busy_s, busy_e = union(ctx.start[rows], ctx.end[rows])
        out.append({"device": d, "concurrent_streams_ns": concurrent, "copy_compute_overlap_ns": both,
                    "copy_copy_overlap_ns": int(cc), "busy_ns": int((busy_e - busy_s).sum())})
    return pd.DataFrame(out, columns=["device", "concurrent_streams_ns", "copy_compute_overlap_ns",
                                      "copy_copy_overlap_ns", "busy_ns"])
