"""The one formatter of numbers for people: durations, sizes, percentages, ratios and p-values, used by
every view (text, static HTML, report, CLI, finding titles) so that one quantity reads the same everywhere.

Sizes are printed in binary units, labelled as such (KiB, MiB, GiB: 1 MiB = 2**20 B). Limits typed by
users are parsed elsewhere (``check``), where kB/MB/GB are decimal and KiB/MiB/GiB binary, as written.
"""

from __future__ import annotations

import difflib
import math
import re

from .errors import InputError


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


# Units users type (check limits, --max-memory): kB/MB/GB are decimal, KiB/MiB/GiB binary, as written.
TIME_UNITS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}
SIZE_UNITS = {"B": 1.0, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
              "KiB": 1024.0, "MiB": 1024.0 ** 2, "GiB": 1024.0 ** 3, "TiB": 1024.0 ** 4}
_QTY_RE = re.compile(r"^(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s?(?P<unit>[^\s\d.][^\s]*)?$")


# -- reading quantities typed by users ------------------------------------------------------------------------------------------
def _unit_list(units) -> str:
    names = [u for u in units if u not in ("µs", "KB")]
    return ", ".join(names[:-1]) + " or " + names[-1]


def parse_quantity(text, kinds=("time",), what: str = "value") -> tuple[float, str]:
    """Parse ``text`` strictly as one of ``kinds`` (time -> ns, size -> bytes, percent -> %, number).
    Returns (value, kind). Raises InputError naming the bad token."""
    raw = str(text)
    s = raw.strip()
    if not s:
        raise InputError(f"{what}: empty value; expected e.g. {_example(kinds)}")
    if s.startswith(("-", "+")):
        raise InputError(f"{what} {raw!r}: the sign {s[0]!r} is not allowed; limits are positive amounts")
    m = _QTY_RE.match(s)
    if not m:
        num = re.match(r"(\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", s)
        if not num:
            raise InputError(f"{what} {raw!r}: {s.split()[0]!r} is not a number; expected e.g. {_example(kinds)}")
        rest = s[num.end():].strip()
        raise InputError(f"{what} {raw!r}: cannot read {rest!r} after the number {num.group(0)}; expected a "
                              f"number and one unit, e.g. {_example(kinds)}")
    value = float(m.group("num"))
    unit = m.group("unit")
    if not math.isfinite(value):
        raise InputError(f"{what} {raw!r}: not a finite number")
    if unit is None:
        if "number" in kinds:
            return value, "number"
        raise InputError(f"{what} {raw!r}: missing unit; write e.g. {_example(kinds)} "
                              f"(units: {_accepted(kinds)})")
    if "time" in kinds and unit in TIME_UNITS:
        return value * TIME_UNITS[unit], "time"
    if "size" in kinds and unit in SIZE_UNITS:
        return value * SIZE_UNITS[unit], "size"
    if "percent" in kinds and unit == "%":
        return value, "percent"
    known = {**{u: "time" for u in TIME_UNITS}, **{u: "size" for u in SIZE_UNITS}, "%": "percent"}
    if unit in known:
        raise InputError(f"{what} {raw!r}: unit {unit!r} is a {known[unit]} unit, but {what} takes "
                              f"{_accepted(kinds)}")
    same_case = [u for u in known if u.lower() == unit.lower()]
    hint = same_case or difflib.get_close_matches(unit, list(known), n=1)
    raise InputError(f"{what} {raw!r}: unknown unit {unit!r}"
                          + (f" (did you mean {hint[0]!r}? units are case-sensitive)" if same_case else
                             f" (did you mean {hint[0]!r}?)" if hint else "") + f"; use {_accepted(kinds)}")


def _accepted(kinds) -> str:
    parts = []
    if "time" in kinds:
        parts.append(_unit_list(TIME_UNITS))
    if "size" in kinds:
        parts.append(_unit_list(SIZE_UNITS))
    if "percent" in kinds:
        parts.append("%")
    if "number" in kinds:
        parts.append("a plain number")
    return "; ".join(parts)


def _example(kinds) -> str:
    return {"time": "200ms", "size": "2GB", "percent": "10%", "number": "42"}[kinds[0]]


def parse_time(text, what: str = "time") -> float:
    return parse_quantity(text, ("time",), what)[0]


def parse_size(text, what: str = "size") -> float:
    return parse_quantity(text, ("size",), what)[0]


def parse_percent(text, what: str = "percentage") -> float:
    return parse_quantity(text, ("percent",), what)[0]
