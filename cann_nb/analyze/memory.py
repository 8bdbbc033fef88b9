"""Memory summaries from the memory table and the host counters."""

from __future__ import annotations

import pandas as pd


def peak_memory(memory: pd.DataFrame, counters: pd.DataFrame | None = None) -> dict[str, int]:
    """Peak allocated bytes per device; the host's peak RSS as ``host:rss`` when sampled."""
    peaks: dict[str, int] = {}
    if len(memory):
        alloc = memory.dropna(subset=["allocated_bytes"])
        if len(alloc):
            for dev, value in alloc.groupby("device", observed=True)["allocated_bytes"].max().items():
                peaks[str(dev)] = int(value)
    if counters is not None and len(counters):
        rss = counters.loc[counters["metric"] == "rss", "value"]
        if len(rss):
            peaks["host:rss"] = int(rss.max())
    return peaks
