"""The Finding record every advisor rule emits (DESIGN.md contract)."""

from __future__ import annotations

import math
import textwrap
from dataclasses import asdict, dataclass, field

import pandas as pd

from .. import formatting as F

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
    """Findings as a DataFrame, sorted by estimated gain (unknown gains last); its text repr lists
    each finding whole (``FindingsFrame``)."""
    cols = list(Finding.__dataclass_fields__)
    df = pd.DataFrame([asdict(f) for f in findings], columns=cols)
    if len(df):
        df = df.sort_values("est_gain_ns", ascending=False, na_position="last", kind="stable").reset_index(drop=True)
    return FindingsFrame(df)


class FindingsFrame(pd.DataFrame):
    """A DataFrame of findings whose text repr (a terminal's, ``print``) lists each one whole: pandas'
    own hid the title and suggestion columns behind '…' in a terminal. Notebooks show the HTML table;
    ``to_string()`` gives the table as text. What is derived from it is a plain DataFrame."""

    @property
    def _constructor(self):
        return pd.DataFrame

    def __repr__(self) -> str:
        if not {"severity", "title", "suggestion", "est_gain_ns", "est_gain_pct"} <= set(self.columns):
            return super().__repr__()
        lines = [f"{len(self)} finding{'s' if len(self) != 1 else ''}, largest estimated gain first "
                 "(a DataFrame: .to_string() shows the table)" if len(self) else "no findings"]
        for i, row in enumerate(self.to_dict("records"), 1):
            lines += finding_lines(i, row)
        return "\n".join(lines)


def finding_lines(i: int, f: dict, note: str = "", indent: str = "  ", width: int = 100) -> list[str]:
    """One finding as text, nothing cut: ``i. [severity] title  (gain)`` and its suggestion, wrapped."""
    gain = f.get("est_gain_ns")
    known = gain is not None and not (isinstance(gain, float) and math.isnan(gain))
    g = f"saves ~{F.ns(gain)} ({F.pct(f.get('est_gain_pct'), signed=False)})" if known else "gain not estimated"
    lines = [f"{indent}{i:2d}. [{f['severity']}] {f['title']}  ({g}{note})"]
    if f.get("suggestion"):
        lines += textwrap.wrap(f["suggestion"], width=width, initial_indent=f"{indent}    -> ",
                               subsequent_indent=f"{indent}       ", break_on_hyphens=False)
    return lines
