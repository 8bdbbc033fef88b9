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
        mask = mask & ev["module"].notna().to_numpy()
    cols = [*keys, "cat", "count", "total_ns", "self_ns", "mean_ns", "p50_ns", "p99_ns", "share_pct", "cum_share_pct"]
    if not mask.any():
        return pd.DataFrame(columns=cols)
    # group on integer codes (text is looked up once per group, not per event)
    code_cols, labels = [], []
    for k in [*keys, "cat"]:
        c = ev[k] if isinstance(ev[k].dtype, pd.CategoricalDtype) else ev[k].astype("category")
        code_cols.append(c.cat.codes.to_numpy()[mask].astype(np.int64))
        labels.append(np.append(np.asarray(c.cat.categories.astype(str), dtype=object), ""))  # code -1 -> ""
    dur = ev["dur_ns"].to_numpy()[mask]
    sf = selfs[mask]
    key = np.zeros(len(dur), dtype=np.int64)
    for c, lab in zip(code_cols, labels):
        key = key * (len(lab) + 1) + (c + 1)
    uniq, inv = np.unique(key, return_inverse=True)
    first = np.zeros(len(uniq), dtype=np.int64)
    first[inv[::-1]] = np.arange(len(inv))[::-1]  # first row of each group
    count = np.bincount(inv)
    total = np.bincount(inv, weights=dur)
    selfsum = np.bincount(inv, weights=sf)
    # p50 / p99 per group (linear interpolation, as pandas' quantile): sort by (group, dur)
    order = np.lexsort((dur, inv))
    sd = dur[order].astype(float)
    starts = np.concatenate([[0], np.cumsum(count)[:-1]])

    def q(p):
        pos = starts + p * (count - 1)
        lo_i = np.floor(pos).astype(np.int64)
        hi_i = np.minimum(lo_i + 1, starts + count - 1)
        frac = pos - lo_i
        return sd[lo_i] * (1 - frac) + sd[hi_i] * frac

    out = pd.DataFrame({k: lab[np.where(c[first] >= 0, c[first], len(lab) - 1)]
                        for k, c, lab in zip([*keys, "cat"], code_cols, labels)})
    out["count"] = count
    out["total_ns"] = total.astype(np.int64)
    out["self_ns"] = selfsum.astype(np.int64)
    out["mean_ns"] = total / count
    out["p50_ns"] = q(0.5)
    out["p99_ns"] = q(0.99)
    side = np.where(out["cat"].isin(DEVICE_CATS), "device", "host")
    side_total = out.groupby(side)["self_ns"].transform("sum").to_numpy().astype(float)
    out["share_pct"] = np.where(side_total > 0, 100.0 * out["self_ns"] / np.where(side_total > 0, side_total, 1), 0.0)
    out = out.sort_values(["self_ns", "total_ns"], ascending=False, kind="stable").reset_index(drop=True)
    sorted_side = np.where(out["cat"].isin(DEVICE_CATS), "device", "host")
    out["cum_share_pct"] = out.groupby(sorted_side)["share_pct"].cumsum()
    out["cat"] = out["cat"].astype(str)
    out = out[cols]
    return out.head(top) if top else out
