"""The analysis facade: what the CLI (``python -m cann_nb analyze PROFILE --json``), ``Profile.findings()``
and the widgets call.

    analyze(profile)   -> dict, exactly DESIGN.md's ``analyze --json`` object, JSON-serialisable (no NaN)
    findings(profile)  -> list[Finding], largest estimated gain first
    analyses(profile)  -> dict of every analysis (DataFrames and dicts) for notebooks and reports
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from .finding import Finding

HOTSPOT_KEYS = ("name", "cat", "count", "total_ns", "self_ns", "share_pct")
# efficiency columns of a hotspot row (DESIGN.md "Efficiency (roofline)"); time_ns is what the rates are over
EFFICIENCY_KEYS = ("flops", "bytes", "flops_per_s", "bytes_per_s", "intensity", "bound")


def json_safe(obj: Any) -> Any:
    """Recursively turn numpy scalars/arrays, pandas objects and non-finite floats (-> None) into
    plain JSON values."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        f = float(obj)
        return f if math.isfinite(f) else None
    if isinstance(obj, dict):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [json_safe(v) for v in obj.tolist()]
    if isinstance(obj, pd.DataFrame):
        return [json_safe(r) for r in obj.to_dict("records")]
    if isinstance(obj, pd.Series):
        return json_safe(obj.to_dict())
    if isinstance(obj, Finding):
        return json_safe(obj.to_dict())
    if obj is pd.NA or obj is pd.NaT:
        return None
    return str(obj)


def findings(profile, overrides: dict | None = None, only=None, errors: list | None = None) -> list[Finding]:
    """The advisor's findings for a Profile, sorted by estimated gain (unknown gains last)."""
    from .rules import findings as _findings
    return _findings(profile, overrides=overrides, only=only, errors=errors)


def summary(profile) -> dict:
    """DESIGN.md's ``summary``: wall time, per-device busy/idle/compute/communication/memcpy, peaks."""
    from .breakdown import summary_devices
    from .efficiency import device_efficiency
    return {"wall_ns": int(profile.wall_ns), "devices": summary_devices(profile), "peak_memory_bytes": _peaks(profile),
            "efficiency": device_efficiency(profile)}


# What each share is a share of: every view that shows a share labels it with these words.
SHARES = {
    "hotspots": "share_pct: the op's self time over the self time of its side (all host ops, or all device tasks)",
    "devices": "busy_pct and the other *_pct: share of the end-to-end time (wall_ns)",
    "findings": "est_gain_pct: share of the end-to-end time (wall_ns)",
}
DEVICE_KEYS = ("busy_ns", "idle_ns", "compute_ns", "communication_ns", "memcpy_ns")


def overview(profile, findings_list=None, top_ops: int = 10) -> dict:
    """Every figure a profile's overview shows, computed once; the notebook view, the static summary,
    the HTML report and the CLI text render this and compute nothing themselves.

    ``wall_ns``; ``devices`` {DEV: busy/idle/compute/communication/memcpy ns and their shares of the
    end-to-end time} (the same numbers as ``analyze --json``'s ``summary.devices``); ``top_ops`` (the
    hotspot rows); ``peak_memory_bytes``; ``utilization`` (device busy share and every sampled utilisation
    counter: mean, max, samples); ``findings`` count and largest gain; ``shares`` (what each share is of).
    """
    from .breakdown import device_breakdown

    wall = int(profile.wall_ns)
    bd = device_breakdown(profile)
    devices = {str(r["device"]): {**{k: int(r[k]) for k in DEVICE_KEYS},
                                  **{k.replace("_ns", "_pct"): float(r[k.replace("_ns", "_pct")]) for k in DEVICE_KEYS}}
               for r in bd.to_dict("records")}
    fs = findings(profile) if findings_list is None else list(findings_list)
    gains = [g for g in map(_gain, fs) if g is not None]
    best = max(gains) if gains else None
    return {
        "wall_ns": wall,
        "devices": devices,
        "top_ops": hotspot_table(profile).head(top_ops),
        "peak_memory_bytes": _peaks(profile),
        "utilization": utilization_rows(profile, devices),
        "n_findings": len(fs),
        "best_gain_ns": best,
        "best_gain_pct": (100.0 * best / wall) if best is not None and wall > 0 else None,
        "shares": SHARES,
    }


def _gain(f) -> float | None:
    g = f.get("est_gain_ns") if isinstance(f, dict) else f.est_gain_ns
    return float(g) if g is not None and math.isfinite(float(g)) else None


def utilization_rows(profile, devices: dict) -> list[dict]:
    """Per device: the busy share of the end-to-end time (from the events), then the mean and max of
    every sampled utilisation counter (CPU, GPU/NPU; not per core) over the run."""
    rows = [{"device": dev, "measure": "busy (from events)", "mean_pct": d["busy_pct"], "max_pct": None,
             "samples": None} for dev, d in devices.items()]
    ctr = profile.counters
    if len(ctr):
        metric = ctr["metric"].astype(str)
        util = ctr[metric.str.contains("util", case=False).to_numpy()
                   & ~metric.str.startswith("cpu_util:core ").to_numpy()]
        for (src, m), g in util.groupby(["source", "metric"], observed=True, sort=True):
            v = g["value"].to_numpy(dtype=np.float64)
            v = v[np.isfinite(v)]
            if len(v):
                rows.append({"device": str(src), "measure": str(m), "mean_pct": float(v.mean()),
                             "max_pct": float(v.max()), "samples": int(len(v))})
    return rows


def _peaks(profile) -> dict:
    from .context import context
    from .memory import peak_memory

    return context(profile).memo("peak_memory", lambda: peak_memory(profile.memory, profile.counters))


def hotspot_table(profile, by: str = "name"):
    """The hotspot table (``analyze.hotspots``) of a profile, computed once per profile and grouping."""
    from .context import context
    from .hotspots import hotspots
    ctx = context(profile)
    return ctx.memo(("hotspots", by), lambda: hotspots(profile.events, by=by)).copy()


def hotspot_records(profile, top: int | None = 50) -> list[dict]:
    hs = hotspot_table(profile)
    hs = hs.head(top) if top else hs
    return [{k: json_safe(r[k]) for k in (*HOTSPOT_KEYS, *EFFICIENCY_KEYS, "efficiency_time_ns")}
            for r in with_efficiency(profile, hs).to_dict("records")]


def with_efficiency(profile, hs):
    """Hotspot rows with their efficiency columns (NaN / ``unknown`` for ops without a cost);
    ``efficiency_time_ns`` is the time the rates are over (kernel time for ops that ran on a device)."""
    from .efficiency import op_efficiency
    by = "name+shapes" if "shapes" in hs.columns else "name"
    keys = ["name", "shapes", "cat"] if by == "name+shapes" else ["name", "cat"]
    eff = op_efficiency(profile, by).rename(columns={"time_ns": "efficiency_time_ns"})
    if by == "name+shapes":
        hs = hs.assign(shapes=hs["shapes"].fillna("").astype(str))
    out = hs.merge(eff[[*keys, *EFFICIENCY_KEYS, "efficiency_time_ns"]], on=keys, how="left")
    out["bound"] = out["bound"].fillna("unknown")
    return out


def analyze(profile, top_hotspots: int | None = 50, overrides: dict | None = None) -> dict:
    """DESIGN.md's ``analyze --json`` object: ``{"profile": meta, "summary": {...}, "hotspots": [...],
    "findings": [...]}``. Custom metrics (``cann_nb.add_custom_metric``), when the profile recorded any or
    a ``per="profile"`` one is registered, are added under ``"metrics"`` (see ``custom_metrics``); a rule
    that raised is listed under ``profile.analysis_errors`` instead of failing the analysis; the rules
    the profile's data did not let run, with the flag that enables each, under ``profile.analysis_skipped``."""
    from .rules.coverage import skipped_rules

    errors: list = []
    fs = findings(profile, overrides=overrides, errors=errors)
    meta = dict(profile.meta or {})
    if errors:
        meta["analysis_errors"] = errors
    meta["analysis_skipped"] = skipped_rules(profile)
    out = {
        "profile": json_safe(meta),
        "summary": json_safe(summary(profile)),
        "hotspots": hotspot_records(profile, top_hotspots),
        "findings": [json_safe(f.to_dict()) for f in fs],
    }
    metrics = custom_metrics(profile)
    if metrics:
        out["metrics"] = json_safe(metrics)
    return out


def custom_metrics(profile) -> dict:
    """The profile's custom metrics (``cann_nb.add_custom_metric``), by name: each one it recorded
    (counter rows of source ``custom``: ``per="sample"``/``"step"``) as n/mean/min/max/last, then each
    ``per="profile"`` metric registered in this process, ``fn(profile)``; a metric that raises gives
    ``{"error": ...}``, never a failed analysis."""
    from ..collect.custom_metrics import SOURCE, registered

    out = {}
    c = profile.counters
    custom = c[(c["source"] == SOURCE).to_numpy()].sort_values("ts_ns", kind="stable")
    for name, rows in custom.groupby("metric", observed=True, sort=False):
        v = rows["value"].to_numpy(dtype=np.float64)
        out[str(name)] = {"source": SOURCE, "n": int(len(v)), "mean": float(v.mean()), "min": float(v.min()),
                          "max": float(v.max()), "last": float(v[-1])}
    for name, metric in registered("profile").items():
        try:
            out[name] = metric.fn(profile)
        except Exception as exc:  # a user's metric must not break the analysis
            out[name] = {"error": f"{type(exc).__name__}: {exc}"}
    return out


def analyses(profile) -> dict:
    """Every analysis at once, as DataFrames/dicts (for notebooks, reports and widgets)."""
    from . import breakdown, critical_path, devices, memory, patterns, steps, timeline
    from .line_arrays import line_arrays_table
    return {
        "summary": summary(profile),
        "hotspots": hotspot_table(profile),
        "hotspots_by_shapes": hotspot_table(profile, "name+shapes"),
        "hotspots_by_module": hotspot_table(profile, "module"),
        "device_breakdown": breakdown.device_breakdown(profile),
        "run_breakdown": breakdown.run_breakdown(profile),
        "host_breakdown": timeline.host_breakdown(profile),
        "overlap": breakdown.overlap(profile),
        "bound_by": critical_path.bound_by(profile),
        "critical_path": critical_path.critical_path(profile),
        "idle": devices.idle_breakdown(profile),
        "launches": devices.launch_stats(profile),
        "device_time_by_op": devices.device_time_by_op(profile),
        "transfers": devices.transfers(profile),
        "utilization": devices.utilization(profile),
        "syncs": devices.syncs(profile),
        "contention": devices.contention(profile),
        "memory_timeline": memory.memory_timeline(profile),
        "memory_churn": memory.memory_churn(profile),
        "memory_growth": memory.memory_growth(profile),
        "fragmentation": memory.fragmentation(profile),
        "steps": steps.steps(profile),
        "cold_start": steps.cold_start(profile),
        "sequences": patterns.frequent_sequences(profile),
        "device_sequences": patterns.frequent_sequences(profile, level="device"),
        "elementwise_chains": patterns.elementwise_chains(profile),
        "idioms": patterns.idioms(profile),
        "line_arrays": line_arrays_table(profile),
        "findings": findings(profile),
    }
