"""Read stored monitoring windows and summarise a range of them (``python -m cann_nb monitor-report``).

Only each window's ``meta.json`` is read (its ``monitor`` summary), so a day of windows loads in well
under a second. Range percentiles come from the merged latency histograms (within 2.5 %), not from
averaging per-window percentiles.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from .. import formatting as F
from ..errors import CannNbError
from . import histogram, retention


def monitor_dirs(path) -> list[Path]:
    """``path`` itself when it holds windows, else its ``*.monitor`` subdirectories that do."""
    path = Path(path)
    if not path.is_dir():
        raise CannNbError(f"{path}: not a directory (expected a monitor directory with w000001/... windows, or "
                          "an output directory containing NAME.monitor/ directories)")
    if retention.window_dirs(path):
        return [path]
    found = sorted(p for p in path.iterdir() if p.is_dir() and retention.window_dirs(p))
    if not found:
        raise CannNbError(f"{path}: no monitoring windows found (expected w000001/meta.json ... here or in "
                          "NAME.monitor/ subdirectories)")
    return found


def _parse_time(text: str, now: pd.Timestamp) -> pd.Timestamp:
    text = str(text).strip()
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    if text and text[-1] in units and text[:-1].replace(".", "", 1).isdigit():
        return now - pd.Timedelta(seconds=float(text[:-1]) * units[text[-1]])
    try:
        ts = pd.Timestamp(text)
    except ValueError:
        raise CannNbError(f"cannot read time {text!r}: use ISO 8601 (2026-11-29T20:00) or an age such as 2h") from None
    return ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")


def load_windows(directory, first: int | None = None, last: int | None = None, since=None, until=None,
                 tail: int | None = None) -> tuple[pd.DataFrame, list[dict]]:
    """(one row per window, their summaries) for the windows of ``directory`` in the range: sequence
    numbers ``first``..``last``, window end times ``since``..``until`` (ISO or an age like ``2h``),
    then the last ``tail`` of those."""
    dirs = retention.window_dirs(Path(directory))
    dirs = [(s, d) for s, d in dirs if (first is None or s >= first) and (last is None or s <= last)]
    summaries = []
    for _, d in dirs:
        try:
            with open(d / "meta.json", encoding="utf-8") as fh:
                summaries.append(json.load(fh)["monitor"])
        except (OSError, ValueError, KeyError, TypeError):
            continue    # a window removed by retention while reading, or damaged: skip it
    now = pd.Timestamp.now(tz="UTC")
    if since is not None:
        lo = _parse_time(since, now).value
        summaries = [s for s in summaries if s["window_end_ns"] >= lo]
    if until is not None:
        hi = _parse_time(until, now).value
        summaries = [s for s in summaries if s["window_start_ns"] <= hi]
    if tail is not None:
        summaries = summaries[-tail:] if tail > 0 else []
    rows = []
    for s in summaries:
        lat = s.get("latency_ns") or {}
        peaks = s.get("peak_memory_bytes") or {}
        ops = s.get("top_ops") or []
        an = s.get("anomalies") or []
        rows.append({
            "seq": s["seq"], "start": pd.Timestamp(s["window_start_ns"], unit="ns", tz="UTC"),
            "duration_s": s["duration_ns"] / 1e9, "partial": bool(s.get("partial")),
            "calls": s.get("calls", 0), "errors": s.get("errors", 0), "profiled": s.get("profiled_calls", 0),
            "p50_ms": lat.get("p50", math.nan) / 1e6, "p90_ms": lat.get("p90", math.nan) / 1e6,
            "p99_ms": lat.get("p99", math.nan) / 1e6, "max_ms": lat.get("max", math.nan) / 1e6,
            "peak_rss_mib": peaks.get("host:rss", math.nan) / 2**20,
            "top_op": ops[0]["name"] if ops else None, "top_op_share": ops[0]["share_pct"] if ops else math.nan,
            "anomalies": ",".join(a["rule"] for a in an),
        })
    cols = ["seq", "start", "duration_s", "partial", "calls", "errors", "profiled", "p50_ms", "p90_ms", "p99_ms",
            "max_ms", "peak_rss_mib", "top_op", "top_op_share", "anomalies"]
    return pd.DataFrame(rows, columns=cols), summaries


def summarize(summaries: list[dict]) -> dict:
    """The range as one record: totals, merged percentiles, peaks, op shares, anomalies."""
    if not summaries:
        return {"windows": 0}
    merged = histogram.merge(s.get("latency_hist") for s in summaries)
    peaks: dict[str, int] = {}
    for s in summaries:
        for dev, v in (s.get("peak_memory_bytes") or {}).items():
            peaks[dev] = max(peaks.get(dev, 0), int(v))
    with_ops = [s for s in summaries if s.get("top_ops")]
    shares: dict[str, float] = {}
    for s in with_ops:
        for o in s["top_ops"]:
            shares[o["name"]] = shares.get(o["name"], 0.0) + o["share_pct"]
    top = sorted(((k, v / len(with_ops)) for k, v in shares.items()), key=lambda kv: -kv[1])[:10]
    anomalies = [{"seq": s["seq"], **a} for s in summaries for a in (s.get("anomalies") or [])]
    by_rule: dict[str, int] = {}
    for a in anomalies:
        by_rule[a["rule"]] = by_rule.get(a["rule"], 0) + 1
    p99s = [s["latency_ns"]["p99"] for s in summaries if (s.get("latency_ns") or {}).get("n")]
    calls = sum(s.get("calls", 0) for s in summaries)

    def pct(q):
        v = histogram.percentile(merged, q)
        return None if math.isnan(v) else v

    return {
        "windows": len(summaries), "first_seq": summaries[0]["seq"], "last_seq": summaries[-1]["seq"],
        "start": pd.Timestamp(summaries[0]["window_start_ns"], unit="ns", tz="UTC").isoformat(),
        "end": pd.Timestamp(summaries[-1]["window_end_ns"], unit="ns", tz="UTC").isoformat(),
        "calls": calls, "errors": sum(s.get("errors", 0) for s in summaries),
        "profiled_calls": sum(s.get("profiled_calls", 0) for s in summaries),
        "latency_ns": {"p50": pct(50), "p90": pct(90), "p99": pct(99), "n": histogram.count(merged),
                       "method": "merged log histograms (ratio 1.05, within 2.5 %)"},
        "window_p99_ns": {"min": min(p99s), "median": float(pd.Series(p99s).median()), "max": max(p99s)} if p99s else None,
        "peak_memory_bytes": peaks,
        "top_ops": [{"name": k, "mean_share_pct": round(v, 3)} for k, v in top],
        "op_windows": len(with_ops),
        "anomalies": anomalies, "anomalies_by_rule": by_rule,
        "monitor_cpu_s": round(sum(s.get("monitor_cpu_s", 0.0) for s in summaries), 3),
        "compacted_events": sum(s.get("compacted_events", 0) for s in summaries),
        "dropped": sum(sum((s.get("dropped") or {}).values()) for s in summaries),
    }


def report_text(directory, table: pd.DataFrame, summary: dict, max_rows: int = 40) -> str:

    lines = [f"cann_nb monitor {str(directory)!r}: {summary['windows']} window(s)"]
    if not summary["windows"]:
        return lines[0] + " in the range"
    lines[0] += (f" #{summary['first_seq']}..#{summary['last_seq']}, {summary['start']} .. {summary['end']}")
    lat = summary["latency_ns"]
    if lat["n"]:
        lines.append(f"  calls {summary['calls']:,} ({summary['errors']:,} raised, {summary['profiled_calls']:,} "
                     f"profiled); latency p50 {F.ns(lat['p50'])}, p90 {F.ns(lat['p90'])}, p99 {F.ns(lat['p99'])}")
    else:
        lines.append("  no monitored calls in the range (wrap the served function or call step())")
    if summary["window_p99_ns"]:
        w = summary["window_p99_ns"]
        lines.append(f"  per-window p99: min {F.ns(w['min'])}, median {F.ns(w['median'])}, max {F.ns(w['max'])}")
    if summary["peak_memory_bytes"]:
        lines.append("  peak memory: " + ", ".join(f"{d} {F.nbytes(b)}" for d, b in summary["peak_memory_bytes"].items()))
    if summary["top_ops"]:
        lines.append(f"  top ops (mean share of op time over {summary['op_windows']} profiled windows): "
                     + ", ".join(f"{o['name']} {o['mean_share_pct']:.1f}%" for o in summary["top_ops"][:5]))
    if summary["dropped"]:
        lines.append(f"  dropped events (buffer full): {summary['dropped']:,}")
    lines.append(f"  anomalies: {len(summary['anomalies'])}"
                 + (" (" + ", ".join(f"{k} {v}" for k, v in summary["anomalies_by_rule"].items()) + ")"
                    if summary["anomalies"] else ""))
    for a in summary["anomalies"][:20]:
        lines.append(f"    #{a['seq']} [{a['severity']}] {a['rule']}: {a['message']}")
    if len(summary["anomalies"]) > 20:
        lines.append(f"    ... {len(summary['anomalies']) - 20} more (--json lists all)")
    shown = table if len(table) <= max_rows else pd.concat([table.head(max_rows // 2), table.tail(max_rows // 2)])
    view = shown.assign(start=shown["start"].dt.strftime("%Y-%m-%d %H:%M:%S"))
    lines.append("")
    lines.append(view.to_string(index=False, float_format=lambda v: f"{v:.3f}", na_rep="-"))
    if len(table) > max_rows:
        lines.append(f"  ({len(table) - len(shown)} windows in the middle not shown; --json has all)")
    return "\n".join(lines)
