"""Anomaly rules of continuous monitoring: one declarative table, each threshold with its reason.

A window is compared with the rolling baseline (``baseline.py``: medians over the last normal
windows). No rule fires before the baseline holds ``min_baseline_windows`` windows. Override any
threshold with ``Monitor(thresholds={"p99_latency": {"margin_pct": 50}})``; disable a rule with
``{"new_top_op": None}``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .. import formatting as F

MiB = 1 << 20


@dataclass(frozen=True)
class AnomalyRule:
    id: str
    metric: str
    title: str
    thresholds: dict = field(default_factory=dict)
    why: str = ""


RULES = (
    AnomalyRule(
        "p99_latency", "latency_p99", "P99 latency above baseline",
        {"margin_pct": 25.0, "mad_k": 3.0, "min_abs_ns": 200_000, "min_calls": 20},
        "window P99 > baseline P99 x (1 + margin) AND > baseline + mad_k x 1.4826 x MAD of the baseline "
        "windows' P99 (its own noise) AND at least min_abs_ns more (sub-0.2 ms jitter is not a "
        "regression); P99 of fewer than min_calls calls is the max and is not judged"),
    AnomalyRule(
        "p50_latency", "latency_p50", "median latency above baseline",
        {"margin_pct": 15.0, "mad_k": 3.0, "min_abs_ns": 100_000, "min_calls": 10},
        "the median is far steadier than P99, so a smaller margin; same noise and absolute floors"),
    AnomalyRule(
        "new_top_op", "top_ops", "a new op among the top ops",
        {"top_k": 3, "min_share_pct": 10.0, "max_baseline_share_pct": 2.0, "min_op_windows": 2},
        "an op in the window's top_k by self time with >= min_share_pct of the op time that held < "
        "max_baseline_share_pct on average in the baseline windows that had an op profile"),
    AnomalyRule(
        "op_share_shift", "top_ops", "an op's share of the time shifted",
        {"top_k": 5, "min_shift_pts": 20.0, "min_op_windows": 2},
        "one of the window's top_k ops gained >= min_shift_pts percentage points of op time"),
    AnomalyRule(
        "memory_growth", "peak_memory", "peak memory above baseline",
        {"margin_pct": 10.0, "min_abs_bytes": 64 * MiB},
        "a window's peak (host RSS, device allocations) above the baseline median by margin_pct and "
        "min_abs_bytes"),
    AnomalyRule(
        "memory_trend", "peak_memory", "peak memory rising window after window",
        {"windows": 8, "min_growth_pct": 5.0, "min_abs_bytes": 64 * MiB},
        "the peak rose in each of the last `windows` windows (a leak) by min_growth_pct and min_abs_bytes "
        "in total; judged on all recent windows, baseline or not"),
    AnomalyRule(
        "error_rate", "errors", "more calls raising than in the baseline",
        {"min_rate_pct": 5.0, "factor": 2.0, "min_errors": 3},
        "share of calls that raised >= min_rate_pct and >= factor x the baseline's, with min_errors"),
)
MIN_BASELINE_WINDOWS = 3


def thresholds_for(overrides: dict | None) -> dict[str, dict | None]:
    out: dict[str, dict | None] = {}
    overrides = overrides or {}
    unknown = set(overrides) - {r.id for r in RULES}
    if unknown:
        raise ValueError(f"unknown anomaly rule(s) {sorted(unknown)}; rules: {[r.id for r in RULES]}")
    for r in RULES:
        if r.id in overrides and overrides[r.id] is None:
            out[r.id] = None
            continue
        th = dict(r.thresholds)
        bad = set(overrides.get(r.id) or {}) - set(th)
        if bad:
            raise ValueError(f"rule {r.id}: unknown threshold(s) {sorted(bad)}; known: {sorted(th)}")
        th.update(overrides.get(r.id) or {})
        out[r.id] = th
    return out


def rules_table():
    import pandas as pd

    return pd.DataFrame([{"id": r.id, "metric": r.metric, "title": r.title, "thresholds": dict(r.thresholds),
                          "why": r.why} for r in RULES])


def _anomaly(rule: str, metric: str, value, baseline, limit, message: str, **extra) -> dict:
    severity = "high"
    if isinstance(value, (int, float)) and isinstance(baseline, (int, float)) and baseline and math.isfinite(value):
        severity = "high" if value >= 1.5 * baseline else "medium"
    return {"rule": rule, "metric": metric, "value": value, "baseline": baseline, "limit": limit,
            "severity": severity, "message": message, **extra}


def evaluate(window: dict, base: dict, recent_peaks: list[dict], thresholds: dict) -> list[dict]:
    """Anomalies of ``window`` (a window summary) against ``base`` (Baseline.stats())."""
    out: list[dict] = []
    if base.get("windows", 0) < base.get("min_windows", MIN_BASELINE_WINDOWS):
        return out
    lat = window.get("latency_ns") or {}
    n = lat.get("n", 0)
    for rid, key in (("p99_latency", "p99"), ("p50_latency", "p50")):
        th = thresholds.get(rid)
        b = base.get(key)
        v = lat.get(key)
        if th is None or b is None or v is None or n < th["min_calls"] or not math.isfinite(b):
            continue
        if base.get("latency_windows", base["windows"]) < base.get("min_windows", MIN_BASELINE_WINDOWS):
            continue   # idle windows (no calls) make no latency baseline
        limit = max(b * (1 + th["margin_pct"] / 100.0), b + th["mad_k"] * 1.4826 * base.get(key + "_mad", 0.0),
                    b + th["min_abs_ns"])
        if v > limit:
            out.append(_anomaly(rid, f"latency_{key}", v, b, limit,
                                f"{key.upper()} latency {F.ns(v)} vs baseline {F.ns(b)} "
                                f"(+{100 * (v / b - 1):.0f} %, limit {F.ns(limit)})"))
    shares = {o["name"]: o["share_pct"] for o in window.get("top_ops") or []}
    base_shares = base.get("op_shares") or {}
    if shares and base.get("op_windows", 0):
        th = thresholds.get("new_top_op")
        if th is not None and base["op_windows"] >= th["min_op_windows"]:
            new = [op for op in list(shares)[: th["top_k"]]
                   if shares[op] >= th["min_share_pct"] and base_shares.get(op, 0.0) < th["max_baseline_share_pct"]]
            if new:
                text = ", ".join(f"{op!r} {shares[op]:.1f} % (baseline {base_shares.get(op, 0.0):.1f} %)" for op in new)
                out.append(_anomaly("new_top_op", "top_ops", shares[new[0]], base_shares.get(new[0], 0.0),
                                    th["max_baseline_share_pct"], f"new top op(s) by self time: {text}",
                                    ops=new))
        th = thresholds.get("op_share_shift")
        if th is not None and base["op_windows"] >= th["min_op_windows"]:
            moved = [op for op in list(shares)[: th["top_k"]]
                     if base_shares.get(op, 0.0) >= 2.0 and shares[op] - base_shares[op] >= th["min_shift_pts"]]
            if moved:
                text = ", ".join(f"{op!r} {base_shares[op]:.1f} % -> {shares[op]:.1f} %" for op in moved)
                out.append(_anomaly("op_share_shift", "top_ops", shares[moved[0]], base_shares[moved[0]],
                                    base_shares[moved[0]] + th["min_shift_pts"], f"op share of op time shifted: {text}",
                                    ops=moved))
    peaks = window.get("peak_memory_bytes") or {}
    th = thresholds.get("memory_growth")
    if th is not None:
        for dev, v in peaks.items():
            b = (base.get("peak_memory_bytes") or {}).get(dev)
            if b is None or v is None:
                continue
            limit = max(b * (1 + th["margin_pct"] / 100.0), b + th["min_abs_bytes"])
            if v > limit:
                out.append(_anomaly("memory_growth", f"peak_memory:{dev}", v, b, limit,
                                    f"peak {dev} {v / MiB:.1f} MiB vs baseline {b / MiB:.1f} MiB "
                                    f"(+{(v - b) / MiB:.1f} MiB)", device=dev))
    th = thresholds.get("memory_trend")
    if th is not None and len(recent_peaks) >= th["windows"]:
        last = recent_peaks[-th["windows"]:]
        for dev in peaks:
            series = [p.get(dev) for p in last]
            if any(s is None for s in series):
                continue
            rising = all(b > a for a, b in zip(series, series[1:]))
            grew = series[-1] - series[0]
            if rising and grew >= th["min_abs_bytes"] and grew >= series[0] * th["min_growth_pct"] / 100.0:
                out.append(_anomaly("memory_trend", f"peak_memory:{dev}", series[-1], series[0],
                                    series[0] * (1 + th["min_growth_pct"] / 100.0),
                                    f"peak {dev} rose in each of the last {th['windows']} windows, "
                                    f"+{grew / MiB:.1f} MiB in total", device=dev))
    th = thresholds.get("error_rate")
    calls = window.get("calls", 0)
    errors = window.get("errors", 0)
    if th is not None and calls and errors >= th["min_errors"]:
        rate = 100.0 * errors / calls
        b = base.get("error_rate_pct", 0.0) or 0.0
        limit = max(th["min_rate_pct"], th["factor"] * b)
        if rate >= limit:
            out.append(_anomaly("error_rate", "errors", rate, b, limit,
                                f"{errors} of {calls} calls raised ({rate:.1f} %, baseline {b:.1f} %)"))
    return out
