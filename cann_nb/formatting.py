"""The one formatter of numbers for people: durations, sizes, percentages, ratios and p-values, used by
every view (text, static HTML, report, CLI, finding titles) so that one quantity reads the same everywhere.

Sizes are printed in binary units, labelled as such (KiB, MiB, GiB: 1 MiB = 2**20 B). Limits typed by
users are parsed elsewhere (``check``), where kB/MB/GB are decimal and KiB/MiB/GiB binary, as written.
"""

from __future__ import annotations

import math


def _finite(x) -> bool:
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def ns(value, signed: bool = False) -> str:
    """A duration in ns as '12.345 ms' (three decimals), '+1.200 s' when signed."""
    if not _finite(value):
        return "-"
    v = float(value)
    sign = "+" if signed and v > 0 else ("-" if v < 0 else "")
    a = abs(v)
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if a >= scale:
            return f"{sign}{a / scale:.3f} {unit}"
    return f"{sign}{a:.0f} ns"


def nbytes(value, signed: bool = False) -> str:
    """A size in bytes as '516.0 MiB' (binary units), '+1.0 GiB' when signed."""
    if not _finite(value):
        return "-"
    v = float(value)
    sign = "+" if signed and v > 0 else ("-" if v < 0 else "")
    a = abs(v)
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if a >= scale:
            return f"{sign}{a / scale:.1f} {unit}"
    return f"{sign}{a:.0f} B"


def rate(value, unit: str = "FLOP") -> str:
    """A rate per second in decimal SI units, as peaks are quoted: '84.8 GFLOP/s', '3.35 TB/s' (unit 'B')."""
    if not _finite(value):
        return "-"
    v = float(value)
    for prefix, scale in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(v) >= scale:
            return f"{v / scale:.3g} {prefix}{unit}/s"
    return f"{v:.3g} {unit}/s"


def pct(value, signed: bool = True) -> str:
    if not _finite(value):
        return "-"
    v = float(value)
    return f"{v:+.1f}%" if signed else f"{v:.1f}%"


def ratio(value) -> str:
    if not _finite(value):
        return "-"
    return f"x{float(value):.3g}"


def pvalue(value) -> str:
    if not _finite(value):
        return "-"
    v = float(value)
    return "<0.0001" if v < 1e-4 else f"{v:.4f}"


def table(rows: list[list[str]], header: list[str], right: set[int] | None = None, indent: str = "  ") -> str:
    """A plain-text table; columns in ``right`` are right-aligned."""
    right = right or set()
    cols = list(zip(*([header] + rows))) if rows else [[h] for h in header]
    widths = [max(len(str(c)) for c in col) for col in cols]
    out = []
    for row in [header] + rows:
        cells = [str(c).rjust(w) if i in right else str(c).ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        out.append(indent + "  ".join(cells).rstrip())
    return "\n".join(out)


def clip(text: str, width: int = 60) -> str:
    text = str(text)
    return text if len(text) <= width else text[: width - 1] + "\u2026"
