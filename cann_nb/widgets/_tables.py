"""Small JSON payloads for the tables, the findings, the overview and the diff (per op, never per event)."""

from __future__ import annotations

import math
from dataclasses import asdict, is_dataclass

import numpy as np
import pandas as pd

from ..analyze.hotspots import DEVICE_CATS, hotspots
from ..analyze.memory import peak_memory

GROUPINGS = ("name", "name+shapes", "module")
TABLE_LIMIT = 5000  # rows per grouping shipped; the table says when more exist


def jsonable(x, _depth: int = 0):
    """numpy/pandas scalars and arrays -> plain JSON values; NaN -> None; long lists cut at 1000."""
    if _depth > 6:
        return str(x)
    if isinstance(x, dict):
        return {str(k): jsonable(v, _depth + 1) for k, v in x.items()}
    if isinstance(x, (list, tuple, set, np.ndarray, pd.Index, pd.Series)):
        seq = list(x)
        return [jsonable(v, _depth + 1) for v in seq[:1000]]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return None if math.isnan(float(x)) or math.isinf(float(x)) else float(x)
    if isinstance(x, (str, int, bool)) or x is None:
        return x
    if x is pd.NA or x is pd.NaT:
        return None
    return str(x)


def hotspot_tables(events: pd.DataFrame, limit: int = TABLE_LIMIT) -> dict:
    """{grouping: {"columns": [...], "data": {col: [...]}, "total_rows": n}} for the groupings that apply."""
    out = {}
    for by in GROUPINGS:
        if by == "module" and ("module" not in events.columns or not events["module"].notna().any()):
            continue
        if by == "name+shapes" and ("shapes" not in events.columns or not events["shapes"].notna().any()):
            continue
        df = hotspots(events, by=by)
        total = len(df)
        df = df.head(limit)
        data = {}
        for col in df.columns:
            values = df[col].to_numpy()
            if values.dtype.kind in "fc":
                data[col] = [None if not np.isfinite(v) else float(v) for v in values]
            elif values.dtype.kind in "iu":
                data[col] = [int(v) for v in values]
            else:
                data[col] = ["" if (v is None or (isinstance(v, float) and math.isnan(v))) else str(v) for v in values]
        out[by] = {"columns": list(df.columns), "data": data, "total_rows": total}
    return out


def _finding_dicts(findings) -> list[dict]:
    if findings is None:
        return []
    if isinstance(findings, pd.DataFrame):
        records = findings.to_dict("records")
    else:
        records = []
        for f in findings:
            if hasattr(f, "to_dict"):
                records.append(f.to_dict())
            elif is_dataclass(f):
                records.append(asdict(f))
            else:
                records.append(dict(f))
    return records


def findings_payload(findings, rows_for_ids) -> tuple[list[dict], np.ndarray, np.ndarray]:
    """Findings sorted by estimated gain (unknown last), their evidence rows as (offsets, rows) arrays."""
    records = _finding_dicts(findings)

    def gain(r):
        g = r.get("est_gain_ns")
        return -math.inf if g is None or (isinstance(g, float) and math.isnan(g)) else float(g)

    records.sort(key=gain, reverse=True)
    out, offsets, rows = [], [0], []
    for r in records:
        evidence = dict(r.get("evidence") or {})
        ids = evidence.pop("event_ids", None)
        ev_rows = rows_for_ids(ids) if ids is not None and len(ids) else np.zeros(0, np.uint32)
        if ids is not None:
            evidence["event_ids"] = f"{len(ids)} events (highlighted on the timeline)"
        rows.append(ev_rows)
        offsets.append(offsets[-1] + len(ev_rows))
        out.append({
            "rule": jsonable(r.get("rule", "")), "category": jsonable(r.get("category", "")),
            "severity": jsonable(r.get("severity", "info")), "title": jsonable(r.get("title", "")),
            "evidence": jsonable(evidence), "ops": jsonable(list(r.get("ops") or ())),
            "suggestion": jsonable(r.get("suggestion", "")), "est_gain_ns": jsonable(r.get("est_gain_ns")),
            "est_gain_pct": jsonable(r.get("est_gain_pct")), "confidence": jsonable(r.get("confidence")),
            "n_events": int(len(ev_rows)),
        })
    all_rows = np.concatenate(rows).astype(np.uint32) if rows else np.zeros(0, np.uint32)
    return out, np.asarray(offsets, dtype=np.uint32), all_rows


def str_values(series: pd.Series) -> np.ndarray:
    """A categorical column as an object array of str ('nan' for missing), without a per-row astype."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        cats = np.asarray([str(c) for c in series.cat.categories] + ["nan"], dtype=object)
        return cats[series.cat.codes.to_numpy()]
    return series.astype(str).to_numpy(dtype=object)


def _union_ns(start: np.ndarray, end: np.ndarray) -> int:
    """Length of the union of intervals (vectorised sweep)."""
    if not len(start):
        return 0
    order = np.argsort(start, kind="stable")
    s, e = start[order], end[order]
    reach = np.maximum.accumulate(e)
    new = np.ones(len(s), dtype=bool)
    new[1:] = s[1:] > reach[:-1]
    grp = np.cumsum(new) - 1
    g_start = s[new]
    g_end = pd.Series(reach).groupby(grp).max().to_numpy()
    return int((g_end - g_start).sum())


def device_breakdown(events: pd.DataFrame) -> dict:
    """Per device: busy/compute/communication/memcpy/idle ns over the profile's span (display helper).

    Device tasks count for accelerators; for the host (`cpu`) the top-level spans by category.
    """
    out: dict = {}
    if not len(events):
        return out
    start = events["start_ns"].to_numpy()
    end = start + events["dur_ns"].to_numpy()
    span = int(end.max() - start.min())
    cat = str_values(events["cat"])
    device = str_values(events["device"])
    depth = events["depth"].to_numpy()
    for dev in sorted(set(device.tolist())):
        m = device == dev
        if dev in ("cpu", "nan"):
            m &= (depth == 0) & np.isin(cat, ("op", "python", "runtime", "annotation"))
            parts = {"op": ("op",), "python": ("python",), "runtime": ("runtime",), "annotation": ("annotation",)}
        else:
            m &= np.isin(cat, DEVICE_CATS)
            parts = {"compute": ("kernel",), "communication": ("comm",), "memcpy": ("memcpy", "memset")}
        if not m.any():
            continue
        busy = _union_ns(start[m], end[m])
        d = {"span_ns": span, "busy_ns": busy, "idle_ns": max(span - busy, 0)}
        for label, cats in parts.items():
            mm = m & np.isin(cat, cats)
            d[f"{label}_ns"] = _union_ns(start[mm], end[mm])
        out["host" if dev in ("cpu", "nan") else dev] = d
    return out


def overview_payload(profile, findings: list[dict], tables: dict | None = None, breakdown: dict | None = None
                     ) -> dict:
    meta = profile.meta
    ev = profile.events
    collectors = {k: jsonable(v.get("status")) for k, v in (meta.get("collectors") or {}).items()}
    if tables and "name" in tables:
        top = pd.DataFrame(tables["name"]["data"]).head(8)
    else:
        top = hotspots(ev, top=8) if len(ev) else pd.DataFrame()
    return {
        "name": str(profile.name), "status": str(profile.status), "error": jsonable(meta.get("error")),
        "created": jsonable(meta.get("created")), "source": jsonable(meta.get("source") or {}),
        "wall_ns": int(profile.wall_ns), "events": int(len(ev)), "memory_rows": int(len(profile.memory)),
        "counter_rows": int(len(profile.counters)), "collectors": collectors,
        "devices": jsonable(meta.get("devices") or []), "dropped": jsonable(meta.get("dropped") or {}),
        "peak_memory": jsonable(peak_memory(profile.memory, profile.counters)),
        "breakdown": breakdown if breakdown is not None else device_breakdown(ev),
        "top": {"name": [str(x) for x in top.get("name", [])], "cat": [str(x) for x in top.get("cat", [])],
                "self_ns": [int(x) for x in top.get("self_ns", [])],
                "share_pct": [float(x) for x in top.get("share_pct", [])]},
        "top_findings": findings[:3],
        "n_findings": len(findings),
    }


def diff_payload(before, after, limit: int = 200) -> dict:
    """Per-op deltas (by name and category), added/removed ops and the total change."""
    a = hotspots(before.events)
    b = hotspots(after.events)
    keep = ["name", "cat", "count", "total_ns", "self_ns"]
    m = pd.merge(a[keep], b[keep], on=["name", "cat"], how="outer", suffixes=("_a", "_b"))
    for c in ("count", "total_ns", "self_ns"):
        m[f"{c}_a"] = m[f"{c}_a"].fillna(0).astype(np.int64)
        m[f"{c}_b"] = m[f"{c}_b"].fillna(0).astype(np.int64)
    m["delta_total_ns"] = m["total_ns_b"] - m["total_ns_a"]
    m["delta_self_ns"] = m["self_ns_b"] - m["self_ns_a"]
    m["status"] = np.where(m["count_a"] == 0, "added", np.where(m["count_b"] == 0, "removed", "changed"))
    m = m.reindex(m["delta_self_ns"].abs().sort_values(ascending=False, kind="stable").index)
    total = len(m)
    added, removed = int((m["status"] == "added").sum()), int((m["status"] == "removed").sum())
    m = m.head(limit)
    data = {c: ([int(v) for v in m[c]] if m[c].dtype.kind in "iu" else [str(v) for v in m[c]]) for c in m.columns}
    return {
        "names": [str(before.name or "before"), str(after.name or "after")],
        "wall_ns": [int(before.wall_ns), int(after.wall_ns)],
        "events": [int(len(before.events)), int(len(after.events))],
        "columns": list(m.columns), "data": data, "total_rows": total,
        "added": added, "removed": removed,
    }
