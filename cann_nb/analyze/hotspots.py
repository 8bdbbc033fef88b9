"""Where the time goes: self time from nesting and per-op aggregates (vectorised)."""

from __future__ import annotations

import numpy as np
import pandas as pd

HOST_CATS = ("op", "python", "runtime")
DEVICE_CATS = ("kernel", "memcpy", "memset", "comm")


def self_time(events: pd.DataFrame) -> np.ndarray:
    """Each event's duration minus its direct children's (on the same track), clipped at 0."""
    ids = events["id"].to_numpy()
    dur = events["dur_ns"].to_numpy()
    parent = events["parent"].to_numpy()
    has_parent = parent >= 0
    if not has_parent.any():
        return dur.copy()
    child_sum = pd.Series(dur[has_parent]).groupby(parent[has_parent]).sum()
    pos = pd.Index(ids).get_indexer(child_sum.index.to_numpy())
    sub = np.zeros(len(ids), dtype=np.int64)
    ok = pos >= 0
    sub[pos[ok]] = child_sum.to_numpy()[ok]
    return np.maximum(dur - sub, 0)


def hotspots(events: pd.DataFrame, by: str = "name", cats=HOST_CATS + DEVICE_CATS, top: int | None = None
             ) -> pd.DataFrame:
    """One row per op (``by`` = name, name+shapes or module): count, total, self, mean, p50, p99, shares.

    ``share_pct`` is the op's self time over the self time of its side (host ops or device tasks),
    so host and device rankings each sum to 100 %. Sorted by self time, heaviest first.
    """
    keys = {"name": ["name"], "name+shapes": ["name", "shapes"], "shapes": ["name", "shapes"],
            "module": ["module"]}.get(by)
    if keys is None:
        raise ValueError(f"by must be 'name', 'name+shapes' or 'module', not {by!r}")
    ev = events
    selfs = self_time(ev)
    mask = ev["cat"].isin(cats).to_numpy()
    if by == "module":
        mask &= ev["module"].notna().to_numpy()
    df = pd.DataFrame({k: ev[k].to_numpy()[mask] for k in keys})
    df["cat"] = ev["cat"].to_numpy()[mask]
    df["dur"] = ev["dur_ns"].to_numpy()[mask]
    df["self"] = selfs[mask]
    cols = [*keys, "cat", "count", "total_ns", "self_ns", "mean_ns", "p50_ns", "p99_ns", "share_pct", "cum_share_pct"]
    if not len(df):
        return pd.DataFrame(columns=cols)
    for k in keys:
        df[k] = df[k].astype(str).where(pd.notna(df[k]), "")
    g = df.groupby([*keys, "cat"], observed=True, sort=False)
    out = g.agg(count=("dur", "size"), total_ns=("dur", "sum"), self_ns=("self", "sum"), mean_ns=("dur", "mean"))
    q = g["dur"].quantile([0.5, 0.99]).unstack()
    out["p50_ns"] = q[0.5].to_numpy()
    out["p99_ns"] = q[0.99].to_numpy()
    out = out.reset_index()
    side = np.where(out["cat"].isin(DEVICE_CATS), "device", "host")
    side_total = out.groupby(side)["self_ns"].transform("sum").to_numpy().astype(float)
    out["share_pct"] = np.where(side_total > 0, 100.0 * out["self_ns"] / np.where(side_total > 0, side_total, 1), 0.0)
    out = out.sort_values(["self_ns", "total_ns"], ascending=False, kind="stable").reset_index(drop=True)
    sorted_side = np.where(out["cat"].isin(DEVICE_CATS), "device", "host")
    out["cum_share_pct"] = out.groupby(sorted_side)["share_pct"].cumsum()
    out["cat"] = out["cat"].astype(str)
    out = out[cols]
    return out.head(top) if top else out
