"""Memory summaries from the memory table and the host counters: peak, timeline, churn, growth
across steps, fragmentation."""

from __future__ import annotations

import numpy as np
import pandas as pd


def peak_memory(memory: pd.DataFrame, counters: pd.DataFrame | None = None) -> dict[str, int]:
    """Peak allocated bytes per device; the host's peak RSS as ``host:rss`` when sampled."""
    peaks: dict[str, int] = {}
    if len(memory):
        alloc = memory.dropna(subset=["allocated_bytes"])
        if len(alloc):
            for dev, value in alloc.groupby("device", observed=True)["allocated_bytes"].max().items():
                peaks[str(dev)] = int(value)
    if counters is not None and len(counters):
        rss = counters.loc[counters["metric"] == "rss", "value"]
        if len(rss):
            peaks["host:rss"] = int(rss.max())
    return peaks


def _allocated(memory: pd.DataFrame) -> pd.DataFrame:
    """ts_ns, device, allocated (recorded, or the running sum of deltas when only deltas exist)."""
    if not len(memory):
        return pd.DataFrame({"ts_ns": np.empty(0, np.int64), "device": np.empty(0, object),
                             "allocated": np.empty(0, float), "reserved": np.empty(0, float),
                             "delta": np.empty(0, float)})
    m = memory.sort_values("ts_ns", kind="stable")
    dev = m["device"].astype(str).to_numpy()
    alloc = m["allocated_bytes"].to_numpy(dtype=float)
    delta = m["delta_bytes"].to_numpy(dtype=float)
    if np.isnan(alloc).all() and np.isfinite(delta).any():
        alloc = pd.Series(np.nan_to_num(delta)).groupby(dev).cumsum().to_numpy()
    return pd.DataFrame({"ts_ns": m["ts_ns"].to_numpy(), "device": dev, "allocated": alloc,
                         "reserved": m["reserved_bytes"].to_numpy(dtype=float), "delta": delta})


def memory_timeline(profile, points: int = 512) -> pd.DataFrame:
    """Allocated (and reserved) bytes over time per device, downsampled to at most ``points`` bins
    keeping each bin's maximum (peaks survive). Host RSS samples appear as device ``host:rss``.
    Columns ``device, ts_ns, allocated_bytes, reserved_bytes``."""
    a = _allocated(profile.memory)
    frames = []
    cn = profile.counters
    if len(cn):
        rss = cn[cn["metric"].astype(str) == "rss"]
        if len(rss):
            frames.append(pd.DataFrame({"ts_ns": rss["ts_ns"].to_numpy(), "device": "host:rss",
                                        "allocated": rss["value"].to_numpy(dtype=float), "reserved": np.nan}))
    a = pd.concat([a[["ts_ns", "device", "allocated", "reserved"]], *frames], ignore_index=True) if frames else a
    out = []
    for dev, g in a.groupby("device", sort=True):
        g = g.dropna(subset=["allocated"])
        if not len(g):
            continue
        ts = g["ts_ns"].to_numpy()
        if len(g) > points:
            edges = np.linspace(ts.min(), ts.max() + 1, points + 1)
            b = np.clip(np.searchsorted(edges, ts, side="right") - 1, 0, points - 1)
            agg = g.groupby(b).agg(ts_ns=("ts_ns", "first"), allocated=("allocated", "max"),
                                   reserved=("reserved", "max"))
            g = agg.reset_index(drop=True)
        out.append(pd.DataFrame({"device": dev, "ts_ns": g["ts_ns"].to_numpy(),
                                 "allocated_bytes": g["allocated"].to_numpy(),
                                 "reserved_bytes": g["reserved"].to_numpy()}))
    if not out:
        return pd.DataFrame(columns=["device", "ts_ns", "allocated_bytes", "reserved_bytes"])
    return pd.concat(out, ignore_index=True)


def memory_churn(profile) -> pd.DataFrame:
    """Allocation churn per device: ``allocs, frees, bytes_allocated, allocs_per_s, allocs_per_step,
    bytes_per_step, mean_alloc_bytes`` (steps from analyze.steps; NaN without steps)."""
    from .context import context
    a = _allocated(profile.memory)
    cols = ["device", "allocs", "frees", "bytes_allocated", "allocs_per_s", "allocs_per_step", "bytes_per_step",
            "mean_alloc_bytes"]
    if not len(a) or not np.isfinite(a["delta"]).any():
        return pd.DataFrame(columns=cols)
    ctx = context(profile)
    n_steps = len(ctx.steps)
    wall_s = max(ctx.wall, 1) / 1e9
    out = []
    for dev, g in a.groupby("device", sort=True):
        d = g["delta"].to_numpy()
        pos = d > 0
        allocs, frees = int(pos.sum()), int((d < 0).sum())
        b = float(d[pos].sum())
        out.append({"device": dev, "allocs": allocs, "frees": frees, "bytes_allocated": b,
                    "allocs_per_s": allocs / wall_s,
                    "allocs_per_step": allocs / n_steps if n_steps else np.nan,
                    "bytes_per_step": b / n_steps if n_steps else np.nan,
                    "mean_alloc_bytes": b / allocs if allocs else np.nan})
    return pd.DataFrame(out, columns=cols)


def memory_growth(profile) -> pd.DataFrame:
    """Allocated bytes at the end of each step per device (the last sample at or before the step's
    end), with the growth over the steady steps: columns ``device, step, allocated_bytes``;
    ``.attrs['summary']`` = {device: {growth_bytes, growth_pct, monotonic, slope_bytes_per_step}}."""
    from .context import context
    ctx = context(profile)
    st = ctx.steps
    a = _allocated(profile.memory).dropna(subset=["allocated"])
    if len(st) < 3 or not len(a):
        out = pd.DataFrame(columns=["device", "step", "allocated_bytes"])
        out.attrs["summary"] = {}
        return out
    frames, summary = [], {}
    ends = st["end_ns"].to_numpy()
    for dev, g in a.groupby("device", sort=True):
        ts = g["ts_ns"].to_numpy()
        k = np.searchsorted(ts, ends, side="right") - 1
        ok = k >= 0
        vals = np.where(ok, g["allocated"].to_numpy()[np.maximum(k, 0)], np.nan)
        frames.append(pd.DataFrame({"device": dev, "step": st["step"].to_numpy(), "allocated_bytes": vals}))
        v = vals[1:][np.isfinite(vals[1:])]  # steady steps (the first one warms caches up)
        if len(v) >= 2:
            growth = float(v[-1] - v[0])
            slope = float(np.polyfit(np.arange(len(v)), v, 1)[0])
            summary[dev] = {"growth_bytes": growth, "growth_pct": 100.0 * growth / max(v[0], 1.0),
                            "monotonic": bool(np.all(np.diff(v) >= 0) and growth > 0),
                            "slope_bytes_per_step": slope, "steps": int(len(v))}
    out = pd.concat(frames, ignore_index=True)
    out.attrs["summary"] = summary
    return out


def fragmentation(profile) -> dict:
    """Per device, at the peak of reserved memory: reserved, allocated, and (reserved - allocated) /
    reserved in percent (the allocator's cached but unused share)."""
    a = _allocated(profile.memory)
    out = {}
    for dev, g in a.groupby("device", sort=True):
        g = g.dropna(subset=["reserved", "allocated"])
        if not len(g) or not (g["reserved"] > 0).any():
            continue
        i = int(np.argmax(g["reserved"].to_numpy()))
        r, al = float(g["reserved"].iloc[i]), float(g["allocated"].iloc[i])
        out[dev] = {"reserved_bytes": r, "allocated_bytes": al, "fragmentation_pct": 100.0 * (r - al) / r}
    return out
