"""Achieved rates against the roofs: per op, per device (MFU), per step.

Per op (one row per hotspot key, name and category): ``flops``, ``bytes`` (summed over its calls that
have a formula), ``time_ns`` (the time they took: self time on the CPU, kernel time on a device),
``flops_per_s = flops / time``, ``bytes_per_s``, ``intensity = flops / bytes`` and ``bound``:

- ``latency``: the op moves no data and does no arithmetic (views, allocations), or its calls are short
  (mean under ``LATENCY_NS``) and neither achieved rate reaches ``LATENCY_FRACTION`` of its roof:
  fixed costs (dispatch, launch, synchronisation) dominate and no roof explains its time;
- ``compute`` when its intensity is at or right of the ridge (peak FLOP/s / peak bytes/s), else ``memory``;
- ``unknown``: no formula, or no peaks for its device and dtype.

Per device: MFU = (time the counted FLOPs would take at the peak of their dtype) / end-to-end time,
which is achieved FLOP/s over peak FLOP/s for a single dtype and weighs each dtype by its own roof
otherwise. ``peak_source`` says where the peak comes from. An achieved rate above its peak is never
shown as a utilisation over 1 silently: ``peak_warning`` says the peak is wrong (or, for bytes on a CPU,
that the data came from cache).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .cost import event_costs
from .peaks import device_peaks

LATENCY_FRACTION = 0.10
TOP_OPS = 20           # ops listed per device in summary.efficiency
LATENCY_NS = 50_000   # a few launch/dispatch costs (5-20 us each, HTA launch stats)
OP_COLUMNS = ["name", "shapes", "cat", "device", "dtype", "calls", "flops", "bytes", "time_ns", "flops_per_s", "bytes_per_s",
              "intensity", "peak_flops_per_s", "peak_bytes_per_s", "ridge", "flops_frac", "bytes_frac", "bound",
              "peak_warning", "peak_source"]


def _ctx(profile):
    from ..context import context
    return context(profile)


def peaks_for(profile, device: str):
    ctx = _ctx(profile)
    return ctx.memo(("efficiency_peaks", device), lambda: device_peaks(ctx.meta, device))


def op_efficiency(profile, by: str = "name") -> pd.DataFrame:
    """One row per op with a cost, keyed like the hotspot table (``by`` = ``name``: name and cat;
    ``name+shapes``: also the recorded shapes): see the module docstring."""
    if by not in ("name", "name+shapes"):
        raise ValueError(f"by must be 'name' or 'name+shapes', not {by!r}")
    ctx = _ctx(profile)
    cols = OP_COLUMNS if by == "name+shapes" else [c for c in OP_COLUMNS if c != "shapes"]
    return ctx.memo(("op_efficiency", by), lambda: _op_efficiency(profile, ctx, by))[cols].copy()


def _op_efficiency(profile, ctx, by: str) -> pd.DataFrame:
    c = event_costs(ctx)
    rows = np.flatnonzero(c["costed"])
    if not len(rows):
        return pd.DataFrame(columns=OP_COLUMNS)
    fl, by_ = c["flops"][rows], c["bytes"][rows]
    keys = ["name", "shapes", "cat"] if by == "name+shapes" else ["name", "cat"]
    shapes = ctx.events["shapes"].iloc[rows].astype(object).where(ctx.events["shapes"].iloc[rows].notna(), "")
    df = pd.DataFrame({
        "name": ctx.name_categorical(rows), "shapes": pd.Categorical(shapes.astype(str).to_numpy()),
        "cat": pd.Categorical(ctx.cat[rows]),
        "device": pd.Categorical(c["device"][rows].astype(str)),
        "dtype": pd.Categorical(np.where(pd.isna(c["dtype"][rows]), "", c["dtype"][rows]).astype(str)),
        "flops": fl, "bytes": by_, "time_ns": c["time_ns"][rows],
        "time_f": np.where(np.isfinite(fl), c["time_ns"][rows], 0.0),
        "time_b": np.where(np.isfinite(by_), c["time_ns"][rows], 0.0),
    })
    g = df.groupby(keys, observed=True, sort=False)
    out = g.agg(calls=("time_ns", "size"), flops=("flops", lambda x: x.sum(min_count=1)),
                bytes=("bytes", lambda x: x.sum(min_count=1)), time_ns=("time_ns", "sum"),
                time_f=("time_f", "sum"), time_b=("time_b", "sum")).reset_index()
    # where the work ran and in which dtype: the device/dtype holding most of the group's time
    for col in ("device", "dtype"):
        top = (df.groupby([*keys, col], observed=True)["time_ns"].sum().reset_index()
               .sort_values("time_ns", ascending=False, kind="stable").drop_duplicates(keys))
        out = out.merge(top[[*keys, col]], on=keys, how="left")
    if "shapes" not in out:
        out["shapes"] = ""
    for col in ("name", "shapes", "cat"):
        out[col] = out[col].astype(str)
    out["device"], out["dtype"] = out["device"].astype(str), out["dtype"].astype(str)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["flops_per_s"] = np.where(out["time_f"] > 0, out["flops"] / out["time_f"] * 1e9, np.nan)
        out["bytes_per_s"] = np.where(out["time_b"] > 0, out["bytes"] / out["time_b"] * 1e9, np.nan)
        out["intensity"] = np.where(out["bytes"] > 0, out["flops"] / out["bytes"], np.nan)
    pk = {d: peaks_for(profile, d) for d in out["device"].unique()}
    out["peak_flops_per_s"] = [pk[d].flops_for(t) for d, t in zip(out["device"], out["dtype"])]
    out["peak_bytes_per_s"] = [pk[d].bytes_per_s for d in out["device"]]
    out["peak_source"] = [pk[d].source for d in out["device"]]
    _classify(out)
    return out.drop(columns=["time_f", "time_b"])[OP_COLUMNS]


def _classify(out: pd.DataFrame) -> None:
    pf, pb = out["peak_flops_per_s"].to_numpy(float), out["peak_bytes_per_s"].to_numpy(float)
    fps, bps = out["flops_per_s"].to_numpy(float), out["bytes_per_s"].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["ridge"] = pf / pb
        ff, bf = fps / pf, bps / pb
    out["flops_frac"], out["bytes_frac"] = ff, bf
    no_work = (out["flops"].fillna(-1).to_numpy() == 0) & (out["bytes"].fillna(-1).to_numpy() == 0)
    short = out["time_ns"].to_numpy(float) / np.maximum(out["calls"].to_numpy(float), 1) < LATENCY_NS
    known = np.isfinite(out["intensity"].to_numpy(float)) & np.isfinite(out["ridge"].to_numpy(float))
    frac = np.fmax(np.nan_to_num(ff, nan=-1.0), np.nan_to_num(bf, nan=-1.0))
    bound = np.where(no_work, "latency",
                     np.where(~known, "unknown",
                              np.where(short & (frac < LATENCY_FRACTION), "latency",
                                       np.where(out["intensity"].to_numpy(float) >= out["ridge"].to_numpy(float),
                                                "compute", "memory"))))
    out["bound"] = bound
    warn = np.full(len(out), None, dtype=object)
    over_f, over_b = np.nan_to_num(ff) > 1, np.nan_to_num(bf) > 1
    warn[over_b] = "achieved bytes/s above the peak bandwidth: data served from cache, or the peak is wrong"
    warn[over_f] = "achieved FLOP/s above the peak: the peak is wrong (or the FLOP count is)"
    out["peak_warning"] = warn


def device_efficiency(profile) -> dict:
    """``{DEV: {flops, flops_per_s, peak_flops_per_s, mfu, bytes, bytes_per_s, peak_bytes_per_s,
    peak_source, ...}}`` over the end-to-end time; see the module docstring."""
    ctx = _ctx(profile)
    return ctx.memo("device_efficiency", lambda: _device_efficiency(profile, ctx))


def _roof_time(profile, devices, dtypes, flops) -> np.ndarray:
    """Seconds each row's FLOPs would take at the peak of its device and dtype (NaN: no peak)."""
    out = np.full(len(flops), np.nan)
    for d in np.unique(devices.astype(str)):
        pk = peaks_for(profile, d)
        sel = devices.astype(str) == d
        peak = np.array([pk.flops_for(t) for t in dtypes[sel]], dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[sel] = flops[sel] / peak
    return out


def flops_roof_ns(ctx) -> np.ndarray:
    """Per row: ns its FLOPs would take at the peak of its device and dtype, on the rows that carry a
    cost (``event_costs``'s counted rows); 0 where there is no formula or no peak. The arithmetic a
    batched, vectorised or fused form of the same work still does (bytes are not kept: batching reads
    a weight once instead of once per call, fusion drops the intermediates)."""
    def calc():
        c = event_costs(ctx)
        out = np.zeros(ctx.n)
        rows = np.flatnonzero(c["counted"])
        if len(rows):
            t = _roof_time(ctx.profile, c["device"][rows].astype(str), c["dtype"][rows],
                           np.nan_to_num(c["flops"][rows])) * 1e9
            out[rows] = np.nan_to_num(t, nan=0.0, posinf=0.0)
        return out
    return ctx.memo("flops_roof_ns", calc)


def work_roof_ns(ctx) -> np.ndarray:
    """Per row: ns its work would take at its device's roof, the longer of its FLOPs at the peak of its dtype
    (``flops_roof_ns``) and its bytes at the peak bandwidth, on the rows that carry a cost; NaN elsewhere."""
    def calc():
        c = event_costs(ctx)
        out = np.full(ctx.n, np.nan)
        rows = np.flatnonzero(c["counted"])
        if not len(rows):
            return out
        bw = np.array([peaks_for(ctx.profile, d).bytes_per_s for d in c["device"][rows].astype(str)], dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            byte_ns = 1e9 * np.nan_to_num(c["bytes"][rows]) / bw
        out[rows] = np.fmax(flops_roof_ns(ctx)[rows], np.where(np.isfinite(byte_ns), byte_ns, np.nan))
        return out
    return ctx.memo("work_roof_ns", calc)


def _device_efficiency(profile, ctx) -> dict:
    c = event_costs(ctx)
    rows = np.flatnonzero(c["counted"])
    wall_s = ctx.wall / 1e9
    out: dict = {}
    if not len(rows) or wall_s <= 0:
        return out
    dev = c["device"][rows].astype(str)
    fl = np.nan_to_num(c["flops"][rows])
    by = np.nan_to_num(c["bytes"][rows])
    roof = _roof_time(profile, dev, c["dtype"][rows], fl)
    t = c["time_ns"][rows]
    ops = op_efficiency(profile)
    by_shapes = op_efficiency(profile, "name+shapes").sort_values("time_ns", ascending=False, kind="stable")
    for d in sorted(str(x) for x in np.unique(dev)):
        sel = dev == d
        pk = peaks_for(profile, d)
        flops, nbytes = float(fl[sel].sum()), float(by[sel].sum())
        if flops <= 0 and nbytes <= 0:
            continue      # only views and allocations ran there: nothing to put against a roof
        has_peak = np.isfinite(roof[sel]) & (fl[sel] > 0)
        roof_s = float(roof[sel][has_peak].sum())
        mfu = roof_s / wall_s if has_peak.any() else math.nan
        peak_f = float(fl[sel][has_peak].sum()) / roof_s if roof_s > 0 else math.nan
        dtypes = pd.Series(fl[sel], index=c["dtype"][rows][sel].astype(str)).groupby(level=0).sum()
        warnings = []
        if math.isfinite(mfu) and mfu > 1:
            warnings.append(f"MFU {mfu:.2f} > 1: the peak is wrong")
        bad = ops[(ops["device"] == d) & ops["peak_warning"].notna()]
        if len(bad):
            warnings.append(f"{len(bad)} op(s) above a roof, e.g. {bad['name'].iloc[0]}: {bad['peak_warning'].iloc[0]}")
        busy_s = float(t[sel].sum()) / 1e9
        out[d] = {
            "model": pk.model,
            "flops": flops,
            "flops_per_s": flops / wall_s,
            "peak_flops_per_s": peak_f,
            "mfu": mfu,
            "bytes": nbytes,
            "bytes_per_s": nbytes / wall_s,
            "peak_bytes_per_s": pk.bytes_per_s,
            "bandwidth_utilization": (nbytes / wall_s / pk.bytes_per_s) if pk.bytes_per_s > 0 else math.nan,
            "peak_source": pk.source,
            "flops_by_dtype": {k: float(v) for k, v in dtypes.items() if v > 0},
            "flops_without_peak": float(fl[sel][~has_peak].sum()),
            "counted_time_ns": int(t[sel].sum()),
            "counted_flops_per_s": flops / busy_s if busy_s > 0 else math.nan,
            "wall_ns": int(ctx.wall),
            "peak_warning": "; ".join(warnings) or None,
            # the device's heaviest ops by name and shapes (a GEMM and a GEMV of one op apart)
            "ops": by_shapes[by_shapes["device"] == d].head(TOP_OPS).drop(columns=["peak_source"]).to_dict("records"),
        }
    return out


def step_mfu(profile) -> pd.DataFrame:
    """MFU per step and device: ``step, device, start_ns, dur_ns, flops, flops_per_s, mfu`` (rows are
    assigned to the step their start falls in)."""
    ctx = _ctx(profile)
    return ctx.memo("step_mfu", lambda: _step_mfu(profile, ctx)).copy()


def _step_mfu(profile, ctx) -> pd.DataFrame:
    from ..steps import steps
    cols = ["step", "device", "start_ns", "dur_ns", "flops", "flops_per_s", "mfu"]
    st = steps(profile)
    c = event_costs(ctx)
    rows = np.flatnonzero(c["counted"])
    if not len(st) or not len(rows):
        return pd.DataFrame(columns=cols)
    starts, ends = st["start_ns"].to_numpy(), st["end_ns"].to_numpy()
    k = np.searchsorted(starts, ctx.start[rows], side="right") - 1
    ok = (k >= 0) & (ctx.start[rows] < ends[np.maximum(k, 0)])
    rows, k = rows[ok], k[ok]
    if not len(rows):
        return pd.DataFrame(columns=cols)
    dev = c["device"][rows].astype(str)
    fl = np.nan_to_num(c["flops"][rows])
    roof = _roof_time(profile, dev, c["dtype"][rows], fl)
    df = pd.DataFrame({"step": st["step"].to_numpy()[k], "device": dev, "flops": fl,
                       "roof_s": np.where(np.isfinite(roof), roof, 0.0), "has": np.isfinite(roof) & (fl > 0)})
    g = df.groupby(["step", "device"], sort=True).agg(flops=("flops", "sum"), roof_s=("roof_s", "sum"),
                                                        has=("has", "any")).reset_index()
    g = g.merge(st[["step", "start_ns", "dur_ns"]], on="step")
    dur_s = g["dur_ns"].to_numpy(float) / 1e9
    with np.errstate(divide="ignore", invalid="ignore"):
        g["flops_per_s"] = g["flops"] / dur_s
        g["mfu"] = np.where(g["has"], g["roof_s"] / dur_s, np.nan)
    return g[cols]


def roofline_points(profile, top: int | None = 200, by: str = "name") -> dict:
    """What a roofline chart draws: per device its roofs (peak FLOP/s of the dominant dtype, bandwidth,
    ridge, sources) and its ops as points (intensity, FLOP/s, time, bound), heaviest first."""
    ops = op_efficiency(profile, by)
    if "shapes" not in ops:
        ops = ops.assign(shapes="")
    ops = ops[np.isfinite(ops["intensity"].to_numpy(float)) & (ops["intensity"].to_numpy(float) > 0)
              & np.isfinite(ops["flops_per_s"].to_numpy(float)) & (ops["flops_per_s"].to_numpy(float) > 0)]
    out = {}
    for d, g in ops.groupby("device", sort=True):
        g = g.sort_values("time_ns", ascending=False, kind="stable")
        g = g.head(top) if top else g
        pk = peaks_for(profile, d)
        dom = g.groupby("dtype")["flops"].sum().idxmax() if len(g) else None
        out[str(d)] = {"model": pk.model, "dtype": dom, "peak_flops_per_s": pk.flops_for(dom),
                       "peak_bytes_per_s": pk.bytes_per_s,
                       "ridge": pk.flops_for(dom) / pk.bytes_per_s if pk.bytes_per_s > 0 else math.nan,
                       "peak_source": pk.source, "points": g.reset_index(drop=True)}
    return out
