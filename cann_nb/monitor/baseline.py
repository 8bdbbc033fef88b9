"""Rolling baseline of continuous monitoring: what "normal" looked like over the last windows.

The baseline is the last ``size`` (default 20) *normal* windows: windows that served calls and had no
anomalies, after the first ``warmup`` windows with calls (lazy initialisation, caches and allocator
growth make them unrepresentative). Idle windows never join: a baseline learnt before traffic arrives
would flag the traffic itself (its memory) as a regression, and keep flagging it. A window that is anomalous is not added, so a regression that persists stays flagged
until it is fixed or ``reset()`` accepts it as the new normal. Its statistics are medians over windows
(robust to one odd window) with the median absolute deviation as their noise:

``p50``, ``p99`` (+ ``_mad``)  per-window latency percentiles of unprofiled calls (windows with calls)
``peak_memory_bytes``         per device key (``host:rss``, ``cpu``, ``cuda:0``...): median window peak
``op_shares``                 mean share (% of op self time) per op, over windows with an op profile
``error_rate_pct``            mean share of calls that raised

A monitor that restarts on the same directory seeds its baseline from the stored windows.
"""

from __future__ import annotations

from collections import deque

import numpy as np


def _median_mad(values) -> tuple[float | None, float]:
    v = np.asarray([x for x in values if x is not None and np.isfinite(x)], dtype=np.float64)
    if not len(v):
        return None, 0.0
    m = float(np.median(v))
    return m, float(np.median(np.abs(v - m)))


class Baseline:
    def __init__(self, size: int = 20, min_windows: int = 3, warmup: int = 1, trend: int = 12):
        if size < 1 or min_windows < 1 or min_windows > size:
            raise ValueError("baseline: need 1 <= min_windows <= size")
        self.size, self.min_windows, self.warmup = int(size), int(min_windows), int(warmup)
        self.windows: deque = deque(maxlen=self.size)
        self.recent_peaks: deque = deque(maxlen=max(int(trend), 2))
        self.seen = 0

    def observe(self, window: dict, anomalous: bool) -> bool:
        """Account for a finished window; returns True when it joined the baseline."""
        if not window.get("calls") or window.get("partial"):
            return False
        self.seen += 1
        if self.seen <= self.warmup:
            return False
        self.recent_peaks.append(dict(window.get("peak_memory_bytes") or {}))
        if anomalous:
            return False
        self.windows.append(_compact(window))
        return True

    def seed(self, windows: list[dict]) -> None:
        """Start from stored window summaries (oldest first), e.g. after a restart."""
        for w in windows[-self.size:]:
            if not w.get("anomalies") and not w.get("partial") and w.get("baseline_member", True):
                self.windows.append(_compact(w))
        for w in windows[-self.recent_peaks.maxlen:]:
            self.recent_peaks.append(dict(w.get("peak_memory_bytes") or {}))
        # self.seen stays: the restarted process has its own warm-up windows

    def reset(self) -> None:
        """Forget the baseline (accept the current behaviour as the new normal from now on)."""
        self.windows.clear()
        self.recent_peaks.clear()

    def ready(self) -> bool:
        return len(self.windows) >= self.min_windows

    def stats(self) -> dict:
        ws = list(self.windows)
        with_calls = [w for w in ws if w.get("latency_ns", {}).get("n")]
        p50, p50_mad = _median_mad([w["latency_ns"].get("p50") for w in with_calls])
        p99, p99_mad = _median_mad([w["latency_ns"].get("p99") for w in with_calls])
        peaks: dict[str, list] = {}
        for w in ws:
            for dev, v in (w.get("peak_memory_bytes") or {}).items():
                peaks.setdefault(dev, []).append(v)
        with_ops = [w for w in ws if w.get("top_ops")]
        shares: dict[str, float] = {}
        for w in with_ops:
            for o in w["top_ops"]:
                shares[o["name"]] = shares.get(o["name"], 0.0) + o["share_pct"]
        calls = sum(w.get("calls", 0) for w in ws)
        errors = sum(w.get("errors", 0) for w in ws)
        return {
            "windows": len(ws), "min_windows": self.min_windows, "latency_windows": len(with_calls),
            "p50": p50, "p50_mad": p50_mad, "p99": p99, "p99_mad": p99_mad,
            "peak_memory_bytes": {d: _median_mad(v)[0] for d, v in peaks.items()},
            "op_windows": len(with_ops),
            "op_shares": {k: v / len(with_ops) for k, v in sorted(shares.items(), key=lambda kv: -kv[1])}
            if with_ops else {},
            "error_rate_pct": 100.0 * errors / calls if calls else 0.0,
        }


def _compact(w: dict) -> dict:
    return {"latency_ns": dict(w.get("latency_ns") or {}), "peak_memory_bytes": dict(w.get("peak_memory_bytes") or {}),
            "top_ops": list(w.get("top_ops") or []), "calls": w.get("calls", 0), "errors": w.get("errors", 0)}
