"""Analysis results -> small JSON payloads for the views (per op, never per event). Nothing here
computes a figure: every number comes from analyze/ (``analyze.api.overview``, ``hotspot_table``,
the findings, ``analyze.comparison.Comparison``); this module only selects and encodes it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..analyze.api import SHARES, hotspot_table, json_safe
from ..analyze.comparison import VIEW_KEYS
from ..model import budget_note

GROUPINGS = ("name", "name+shapes", "module")
TABLE_LIMIT = 5000  # rows per grouping shipped; the table says when more exist
DIFF_LIMIT = 200    # op rows of a comparison shipped to the diff view


def columns(df: pd.DataFrame) -> dict:
    """A DataFrame as {column: [values]}: floats (None for NaN/inf), ints, or strings ("" for missing)."""
    data = {}
    for col in df.columns:
        values = df[col].to_numpy()
        if values.dtype.kind in "fc":
            data[col] = [None if not np.isfinite(v) else float(v) for v in values]
        elif values.dtype.kind in "iu":
            data[col] = [int(v) for v in values]
        elif values.dtype.kind == "b":
            data[col] = [bool(v) for v in values]
        else:
            data[col] = ["" if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA else str(v)
                         for v in values]
    return data


def hotspot_tables(profile, limit: int = TABLE_LIMIT) -> dict:
    """{grouping: {"columns", "data", "total_rows", "share_of"}} for the groupings that apply."""
    events = profile.events
    out = {}
    for by in GROUPINGS:
        if by == "module" and ("module" not in events.columns or not events["module"].notna().any()):
            continue
        if by == "name+shapes" and ("shapes" not in events.columns or not events["shapes"].notna().any()):
            continue
        df = hotspot_table(profile, by)
        out[by] = {"columns": list(df.columns), "data": columns(df.head(limit)), "total_rows": len(df),
                   "share_of": SHARES["hotspots"]}
    return out


def findings_payload(findings, rows_for_ids) -> tuple[list[dict], np.ndarray, np.ndarray]:
    """The findings by estimated gain (unknown last; the advisor's order, and any list a user passes),
    their evidence rows as (offsets, rows) arrays for highlighting on the timeline."""
    if isinstance(findings, pd.DataFrame):
        findings = findings.to_dict("records")
    records = [f.to_dict() if hasattr(f, "to_dict") else dict(f) for f in findings or ()]
    records.sort(key=_gain_key, reverse=True)
    out, offsets, rows = [], [0], []
    for r in records:
        evidence = dict(r.get("evidence") or {})
        ids = evidence.pop("event_ids", None)
        ev_rows = rows_for_ids(ids) if ids is not None and len(ids) else np.zeros(0, np.uint32)
        if ids is not None:
            evidence["event_ids"] = f"{len(ids)} events (highlighted on the timeline)"
        rows.append(ev_rows)
        offsets.append(offsets[-1] + len(ev_rows))
        out.append({**json_safe({k: r.get(k) for k in ("rule", "category", "severity", "title", "suggestion",
                                                        "est_gain_ns", "est_gain_pct", "confidence")}),
                    "ops": json_safe(list(r.get("ops") or ())), "evidence": json_safe(evidence),
                    "n_events": int(len(ev_rows))})
    all_rows = np.concatenate(rows).astype(np.uint32) if rows else np.zeros(0, np.uint32)
    return out, np.asarray(offsets, dtype=np.uint32), all_rows


def _gain_key(r: dict) -> float:
    g = r.get("est_gain_ns")
    return -math.inf if g is None or (isinstance(g, float) and math.isnan(g)) else float(g)


def str_values(series: pd.Series) -> np.ndarray:
    """A categorical column as an object array of str ('nan' for missing), without a per-row astype."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        cats = np.asarray([str(c) for c in series.cat.categories] + ["nan"], dtype=object)
        return cats[series.cat.codes.to_numpy()]
    return series.astype(str).to_numpy(dtype=object)


def overview_payload(profile, ov: dict, findings: list[dict]) -> dict:
    """The Overview tab: ``analyze.api.overview``'s figures as they are, plus what ran (meta)."""
    meta = profile.meta
    collectors = {k: (v.get("status") if isinstance(v, dict) else v) for k, v in (meta.get("collectors") or {}).items()}
    top = ov["top_ops"]
    return json_safe({
        "name": str(profile.name), "status": str(profile.status), "error": meta.get("error"),
        "created": meta.get("created"), "source": meta.get("source") or {},
        "events": len(profile.events), "memory_rows": len(profile.memory),
        "counter_rows": len(profile.counters), "collectors": collectors,
        "devices_meta": meta.get("devices") or [], "dropped": meta.get("dropped") or {},
        "budget_note": budget_note(meta),
        "wall_ns": ov["wall_ns"], "devices": ov["devices"], "peak_memory": ov["peak_memory_bytes"],
        "utilization": ov["utilization"], "shares": ov["shares"],
        "top": {k: top[k].tolist() for k in ("name", "cat", "self_ns", "share_pct")},
        "top_findings": findings[:3], "n_findings": ov["n_findings"],
        "best_gain_ns": ov["best_gain_ns"], "best_gain_pct": ov["best_gain_pct"],
    })


def diff_payload(cmp, limit: int = DIFF_LIMIT) -> dict:
    """The diff view's data: a Comparison's end-to-end change, bucket counts and its per-op rows by
    name (largest |delta| first), exactly as ``analyze.comparison`` computed them."""
    ops = cmp.tables["name"]
    keep = [*VIEW_KEYS["name"], "cat", "base_count", "new_count", "base_total_ns", "new_total_ns", "base_self_ns",
            "new_self_ns", "delta_ns", "delta_pct", "p_value", "bucket"]
    return json_safe({
        "names": list(cmp.labels),
        "e2e": cmp.e2e, "per_step": bool(cmp.settings.get("normalised")),
        "buckets": cmp.buckets("name"), "total_rows": len(ops),
        "columns": keep, "data": columns(ops[keep].head(limit)),
        "delta_of": "delta_ns: new - base total time of the op" + (" per step" if cmp.settings.get("normalised") else ""),
    })

