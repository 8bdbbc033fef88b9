"""Profile tables -> the binary payload the front end draws from (no per-event JSON).

The events are sorted by (lane, depth, start) so that every timeline row (one nesting level of one
lane) is a contiguous, start-sorted slice: the front end finds the visible part of a row with a binary
search and merges sub-pixel events while it walks it. Columns travel as zlib-compressed little-endian
typed arrays (``{"dtype": "f8", "z": bytes}``, decoded by ``js/data.js``); strings travel once, as
dictionaries, and events carry small integer codes.

Per event: start f8, dur f4, name u2|u4, cat u1, parent i4 (row index), plus shapes/module codes when
the profile has them; launch -> device-task links travel as (src, dst) row pairs. Before zlib that is
20-26 bytes per event; the benchmark reports what is actually shipped.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..analyze.hotspots import DEVICE_CATS
from ..model import counter_kind

DEFAULT_MAX_EVENTS = 2_000_000   # beyond this the shortest events are left out (and the view says so)
MAX_COUNTER_POINTS = 20_000      # per series; min/max decimation keeps peaks
_DTYPES = {"f8": "<f8", "f4": "<f4", "u1": "<u1", "u2": "<u2", "u4": "<u4", "i4": "<i4"}


def column(values, dtype: str, level: int = 1) -> dict:
    """One typed-array column, zlib-compressed (level 1: most of the gain at a fraction of the cost)."""
    arr = np.ascontiguousarray(np.asarray(values).astype(_DTYPES[dtype], copy=False))
    return {"dtype": dtype, "n": int(arr.size), "z": zlib.compress(arr.tobytes(), level)}


def decode(col: dict) -> np.ndarray:
    """Inverse of :func:`column` (tests and tools)."""
    return np.frombuffer(zlib.decompress(col["z"]), dtype=_DTYPES[col["dtype"]])


def _codes_dtype(n: int) -> str:
    return "u2" if n < 65535 else "u4"


def _natural_key(s: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def lane_group(track: str) -> str:
    """`host/thread 12` -> host, `cuda:0/stream 7` -> cuda:0; a track without '/' is its own group."""
    return track.split("/", 1)[0] if "/" in track else track


def _lane_sort_key(track: str):
    group = lane_group(track)
    rest = track[len(group) + 1:] if "/" in track else ""
    return (0 if group == "host" else 1, _natural_key(group), 0 if rest == "steps" else 1, _natural_key(rest))


@dataclass
class Encoded:
    """The payload plus what Python needs to map ids back and forth."""

    payload: dict
    ids: np.ndarray          # event id per shipped row
    row_of_id: pd.Index      # get_indexer(ids) -> rows

    def rows_for_ids(self, ids) -> np.ndarray:
        ids = np.asarray(list(ids) if not isinstance(ids, np.ndarray) else ids, dtype=np.int64).ravel()
        if not len(ids):
            return np.zeros(0, dtype=np.uint32)
        pos = self.row_of_id.get_indexer(ids)
        return np.unique(pos[pos >= 0]).astype(np.uint32)


def _dictionary(series: pd.Series):
    """(codes+1 with 0 for missing, list of strings) of a categorical column, unused categories dropped."""
    cat = series.astype("category") if not isinstance(series.dtype, pd.CategoricalDtype) else series
    cat = cat.cat.remove_unused_categories()
    codes = cat.cat.codes.to_numpy().astype(np.int64) + 1
    return codes, [str(c) for c in cat.cat.categories]


def encode_events(events: pd.DataFrame, memory: pd.DataFrame | None = None, counters: pd.DataFrame | None = None,
                  *, max_events: int = DEFAULT_MAX_EVENTS) -> Encoded:
    ev = events
    n_total = len(ev)
    hidden = 0
    min_dur = 0
    if n_total > max_events:
        # keep the longest events; what is left out is said in the payload and on screen
        dur_all = ev["dur_ns"].to_numpy()
        min_dur = int(np.partition(dur_all, n_total - max_events)[n_total - max_events])
        keep = np.flatnonzero(dur_all >= min_dur)[:max_events]
        hidden = n_total - len(keep)
        ev = ev.iloc[keep]
    n = len(ev)
    track_codes, track_names = _dictionary(ev["track"])  # 0 = missing track
    track_names = ["main"] + track_names
    used = np.unique(track_codes) if n else np.zeros(0, np.int64)
    tracks = sorted((track_names[c] for c in used), key=_lane_sort_key)
    lane_of_code = np.zeros(len(track_names), dtype=np.int64)
    for i, tname in enumerate(tracks):
        lane_of_code[track_names.index(tname)] = i
    lane = lane_of_code[track_codes] if n else np.zeros(0, np.int64)
    start = ev["start_ns"].to_numpy(dtype=np.int64)
    dur = ev["dur_ns"].to_numpy(dtype=np.int64)
    depth = ev["depth"].to_numpy(dtype=np.int64)
    order = np.lexsort((-dur, start, depth, lane))
    ids = ev["id"].to_numpy(dtype=np.int64)[order]
    lane, depth, start, dur = lane[order], depth[order], start[order], dur[order]
    row_of_id = pd.Index(ids)

    # rows: one per (lane, depth), contiguous in the sorted order
    key = lane * (int(depth.max()) + 1 if n else 1) + depth
    bounds = np.flatnonzero(np.diff(key)) + 1 if n else np.zeros(0, np.int64)
    row_lo = np.concatenate(([0], bounds)).astype(np.int64) if n else np.zeros(0, np.int64)
    row_hi = np.concatenate((bounds, [n])).astype(np.int64) if n else np.zeros(0, np.int64)

    parent_ids = ev["parent"].to_numpy(dtype=np.int64)[order]
    parent_rows = np.full(n, -1, dtype=np.int64)
    has = parent_ids >= 0
    if has.any():
        pos = row_of_id.get_indexer(parent_ids[has])
        parent_rows[np.flatnonzero(has)] = pos  # -1 where the parent was left out

    name_codes, names = _dictionary(ev["name"].iloc[order])
    name_codes -= 1  # names are never missing
    cat_codes, cats = _dictionary(ev["cat"].iloc[order])
    cats = ["(none)"] + cats  # code 0: missing category

    cols = {
        "start": column(start, "f8"),
        "dur": column(dur, "f4"),
        "name": column(np.maximum(name_codes, 0), _codes_dtype(len(names))),
        "cat": column(cat_codes, "u1"),
        "parent": column(parent_rows, "i4"),
    }
    dicts = {"name": names, "cat": [str(c) for c in cats]}
    for opt in ("shapes", "module"):
        if opt in ev.columns and ev[opt].notna().any():
            codes, values = _dictionary(ev[opt].iloc[order])
            cols[opt] = column(codes, _codes_dtype(len(values) + 1))
            dicts[opt] = values

    # launch -> device task links (same corr, host side -> device side)
    corr = ev["corr"].to_numpy(dtype=np.int64)[order]
    flows_src = flows_dst = np.zeros(0, np.int64)
    linked = np.flatnonzero(corr >= 0)
    if len(linked):
        device_codes = np.array([i for i, c in enumerate(dicts["cat"]) if c in DEVICE_CATS], dtype=np.int64)
        dev_mask = np.isin(cat_codes[linked], device_codes)
        src = pd.DataFrame({"corr": corr[linked[~dev_mask]], "src": linked[~dev_mask]})
        dst = pd.DataFrame({"corr": corr[linked[dev_mask]], "dst": linked[dev_mask]})
        if len(src) and len(dst):
            src = src.drop_duplicates("corr", keep="last")  # one launch per correlation id
            pairs = dst.merge(src, on="corr", how="inner")
            flows_src, flows_dst = pairs["src"].to_numpy(), pairs["dst"].to_numpy()

    t_lo = int(start.min()) if n else 0
    t_hi = int((start + dur).max()) if n else 1
    lanes = [{"name": t, "group": lane_group(t), "kind": "events"} for t in tracks]
    counter_series = _counter_series(memory, counters, t_lo, t_hi)
    # a flat series is one number, not a lane (an Ascend import has ~200 constant module_mem ones)
    flat = [s for s in counter_series if s["max"] == s["min"] and s["n_raw"] > 1]
    counter_series = [s for s in counter_series if not (s["max"] == s["min"] and s["n_raw"] > 1)]
    if counter_series:
        t_lo = min(t_lo, min(s["t_min"] for s in counter_series)) if n else min(s["t_min"] for s in counter_series)
        t_hi = max(t_hi, max(s["t_max"] for s in counter_series))
    payload = {
        "version": 1,
        "n": n,
        "n_total": n_total,
        "hidden": hidden,
        "hidden_below_ns": min_dur if hidden else 0,
        "extent": [t_lo, max(t_hi, t_lo + 1)],
        "lanes": lanes,
        "rows": {
            "lane": [int(x) for x in lane[row_lo]] if n else [],
            "depth": [int(x) for x in depth[row_lo]] if n else [],
            "lo": [int(x) for x in row_lo],
            "hi": [int(x) for x in row_hi],
        },
        "cols": cols,
        "dicts": dicts,
        "flows": {"src": column(flows_src, "u4"), "dst": column(flows_dst, "u4")},
        "counters": counter_series,
        "flat_counters": len(flat),
    }
    return Encoded(payload, ids, row_of_id)


def _decimate(ts: np.ndarray, val: np.ndarray, max_points: int):
    """Keep min and max of each bucket (in time order) so spikes and the peak survive (vectorised)."""
    n = len(ts)
    if n <= max_points:
        return ts, val
    buckets = max(max_points // 2, 1)
    bucket = (np.arange(n) * buckets) // n
    v = np.where(np.isnan(val), -np.inf, val)
    order = np.lexsort((v, bucket))            # per bucket, ascending value
    first = np.flatnonzero(np.r_[True, bucket[order][1:] != bucket[order][:-1]])
    last = np.r_[first[1:] - 1, n - 1]
    idx = np.unique(np.concatenate([order[first], order[last]]))
    return ts[idx], val[idx]


def _series(group: str, label: str, unit: str, ts, val) -> dict | None:
    group = "host" if group in ("cpu", "host", "nan", "") else group  # the host lanes' group
    ts = np.asarray(ts, dtype=np.int64)
    val = np.asarray(val, dtype=np.float64)
    ok = ~np.isnan(val)
    ts, val = ts[ok], val[ok]
    if not len(ts):
        return None
    order = np.argsort(ts, kind="stable")
    ts, val = ts[order], val[order]
    peak_i = int(np.argmax(val))
    peak = (int(ts[peak_i]), float(val[peak_i]))
    n_raw = len(ts)
    ts, val = _decimate(ts, val, MAX_COUNTER_POINTS)
    return {"group": group, "label": label, "unit": unit, "n_raw": n_raw,
            "t_min": int(ts[0]), "t_max": int(ts[-1]), "max": float(val.max()), "min": float(val.min()),
            "peak": peak, "ts": column(ts, "f8"), "val": column(val, "f4")}


def _counter_series(memory, counters, t_lo: int, t_hi: int) -> list[dict]:
    out: list[dict] = []
    if memory is not None and len(memory):
        for dev, m in memory.groupby("device", observed=True, sort=True):
            for col, label in (("allocated_bytes", "allocated"), ("reserved_bytes", "reserved")):
                if m[col].notna().any():
                    s = _series(str(dev), f"memory {label}", "bytes", m["ts_ns"], m[col])
                    if s:
                        out.append(s)
    if counters is not None and len(counters):
        c = counters[~counters["metric"].astype(str).str.startswith("cpu_util:core ")]
        for (src, metric), m in c.groupby(["source", "metric"], observed=True, sort=True):
            unit = {"size": "bytes", "percent": "%"}.get(counter_kind(metric), "")
            s = _series(str(src), str(metric), unit, m["ts_ns"], m["value"])
            if s:
                out.append(s)
    return out
