"""The Finding record every advisor rule emits (DESIGN.md contract)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import pandas as pd

CATEGORIES = (
    "hotspot", "host_bound", "input_pipeline", "launch_overhead", "sync", "transfer", "memory", "precision",
    "fusion", "layout", "utilization", "idle", "cold_start", "compile", "communication", "redundant", "gc",
)
SEVERITIES = ("high", "medium", "low", "info")


@dataclass(frozen=True)
class Finding:
    rule: str                 # id of the rule in the rules table
    category: str             # one of CATEGORIES
    severity: str             # one of SEVERITIES
    title: str                # one line, numbers included
    evidence: dict = field(default_factory=dict)  # measured facts; "method" names the gain method;
                                                  # "event_ids" lists events to highlight (drill-down)
    ops: tuple = ()           # op names involved
    suggestion: str = ""      # the concrete change to make
    est_gain_ns: float = math.nan   # end-to-end time saved by the fix; NaN when it cannot be estimated
    est_gain_pct: float = math.nan  # the same as % of the profile's end-to-end time
    confidence: float = math.nan    # 0..1

    def __post_init__(self):
        if self.category not in CATEGORIES:
            raise ValueError(f"finding category {self.category!r} is not one of {CATEGORIES}")
        if self.severity not in SEVERITIES:
            raise ValueError(f"finding severity {self.severity!r} is not one of {SEVERITIES}")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ops"] = list(self.ops)
        for k in ("est_gain_ns", "est_gain_pct", "confidence"):
            if isinstance(d[k], float) and math.isnan(d[k]):
                d[k] = None  # JSON has no NaN
        return d


def findings_frame(findings) -> pd.DataFrame:
    """Findings as a DataFrame, sorted by estimated gain (unknown gains last)."""
    cols = list(Finding.__dataclass_fields__)
    df = pd.DataFrame([asdict(f) for f in findings], columns=cols)
    if len(df):
        df = df.sort_values("est_gain_ns", ascending=False, na_position="last", kind="stable").reset_index(drop=True)
    return df
