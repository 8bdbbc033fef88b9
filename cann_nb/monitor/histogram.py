"""Latency histograms with log-spaced buckets: small, mergeable across windows, percentiles within 2.5 %.

Bucket i holds durations in [MIN_NS * RATIO**i, MIN_NS * RATIO**(i+1)); RATIO = 1.05, so a percentile
read from a merged histogram (``monitor-report`` over a range of windows) is within +-2.5 % of the exact
one. Stored sparsely as ``{"ratio", "min_ns", "counts": {bucket: n}}`` in each window's meta.
"""

from __future__ import annotations

import math

import numpy as np

RATIO = 1.05
MIN_NS = 1_000           # 1 us; shorter calls land in bucket 0
_LOG = math.log(RATIO)


def build(durations_ns) -> dict:
    d = np.asarray(durations_ns, dtype=np.float64)
    counts: dict[str, int] = {}
    if len(d):
        idx = np.floor(np.log(np.maximum(d, MIN_NS) / MIN_NS) / _LOG).astype(np.int64)
        uniq, n = np.unique(idx, return_counts=True)
        counts = {str(int(u)): int(c) for u, c in zip(uniq, n)}
    return {"ratio": RATIO, "min_ns": MIN_NS, "counts": counts}


def merge(hists) -> dict:
    total: dict[str, int] = {}
    for h in hists:
        if not h or h.get("ratio") != RATIO or h.get("min_ns") != MIN_NS:
            continue
        for k, v in h.get("counts", {}).items():
            total[k] = total.get(k, 0) + int(v)
    return {"ratio": RATIO, "min_ns": MIN_NS, "counts": total}


def percentile(hist: dict, q: float) -> float:
    """The q-th percentile (0-100) in ns, at the geometric middle of its bucket; NaN when empty."""
    counts = hist.get("counts") or {}
    if not counts:
        return math.nan
    keys = np.array(sorted(int(k) for k in counts), dtype=np.int64)
    n = np.array([counts[str(k)] for k in keys], dtype=np.int64)
    cum = np.cumsum(n)
    rank = q / 100.0 * cum[-1]
    i = int(np.searchsorted(cum, max(rank, 1), side="left"))
    i = min(i, len(keys) - 1)
    return float(MIN_NS * RATIO ** (keys[i] + 0.5))


def count(hist: dict) -> int:
    return int(sum((hist.get("counts") or {}).values()))
