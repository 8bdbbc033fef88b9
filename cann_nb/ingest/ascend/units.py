"""Ascend quirk helpers: exact epoch-µs strings -> int ns, N/A handling, sentinels, header units, names.

Everything here works on whole columns (pandas string ops + numpy); nothing loops per row except the
rare Excel-mangled ``1.69512E+15`` cells, which are converted one by one with ``Decimal``.
See docs/formats.md §2 for the conventions these functions undo.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ...errors import TraceFormatError

# Cell values that mean "no value" in Ascend CSVs (formats.md §2).
NA_TOKENS = frozenset({"", "N/A", "NA", "n/a", "NaN", "nan", "None", "none", "NULL", "null", "-"})
# 0xFFFFFFFF / 0xFFFFFFFFFFFFFFFF mean "none" (Model ID, dst rank, Subtask Id, notify id).
SENTINELS = (4294967295, 18446744073709551615)

_NUM_RE = r"^([+-]?)([0-9]*)(?:\.([0-9]*))?$"


def clean(s: pd.Series) -> pd.Series:
    """Strip whitespace, TABs and stray quotes that Ascend writes around numbers."""
    s = s.astype(object).where(s.notna(), None)
    s = pd.Series(s, index=s.index, dtype=object)
    out = s.str.strip().str.strip('"').str.strip()
    return out


def missing_mask(s: pd.Series) -> np.ndarray:
    """True where a cleaned cell means "no value"."""
    return (s.isna() | s.isin(NA_TOKENS)).to_numpy()


def decimal_to_ns(s: pd.Series, *, scale_digits: int = 3, path="", column: str = "",
                  row_base: int = 2, allow_negative: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Convert decimal strings in units of 10**-scale_digits... exactly to int64 nanoseconds.

    ``scale_digits`` is how many decimal digits make one ns: 3 for µs, 6 for ms, 0 for ns.
    Returns ``(values, missing)``; values are 0 where missing. Exact: the integer and fractional
    parts are parsed separately as integers, so ``1736408883704643.212`` gives ``...643212`` ns
    with no float rounding. Digits beyond ns precision are rounded half away from zero. Excel
    scientific forms (``1.69512E+15``) are converted with Decimal. Any other text raises
    TraceFormatError naming ``path``, the row (``row_base`` = file line of the first data row) and
    ``column``.
    """
    s = clean(s)
    n = len(s)
    missing = missing_mask(s)
    values = np.zeros(n, dtype=np.int64)
    if n == 0 or missing.all():
        return values, missing
    present = ~missing
    sp = s[present]
    parts = sp.str.extract(_NUM_RE)
    bad = parts[1].isna().to_numpy() | ((parts[1] == "") & parts[2].fillna("").eq("")).to_numpy()
    # scientific notation (Excel) -> Decimal, one by one (rare by construction)
    sci_vals = None
    if bad.any():
        cand = sp[bad]
        sci = cand.str.contains(r"^[+-]?[0-9]*\.?[0-9]*[eE][+-]?[0-9]+$", regex=True, na=False).to_numpy()
        if not sci.all():
            first = np.flatnonzero(present)[np.flatnonzero(bad)[np.flatnonzero(~sci)[0]]]
            raise TraceFormatError(path, f"line {first + row_base}, column {column!r}",
                                   "a decimal number", f"got {str(s.iloc[first])[:40]!r}")
        sci_vals = _sci_to_ns(cand.tolist(), scale_digits, path, column,
                              np.flatnonzero(present)[np.flatnonzero(bad)] + row_base)
    ok = ~bad
    sign = parts[0].to_numpy()[ok]
    ip = parts[1][ok].replace("", "0")
    fp = parts[2][ok].fillna("")
    too_long = (ip.str.len() > 19).to_numpy()
    try:  # pyarrow casts 19-digit strings exactly and refuses overflow
        whole = pc.cast(pa.array(ip.where(~too_long, "0").to_numpy(dtype=object), type=pa.string()),
                        pa.int64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, OverflowError):
        too_long = too_long | (ip.str.len() >= 19).to_numpy()
        whole = ip.where(~too_long, "0").astype("int64").to_numpy()
    too_big = too_long | (whole > np.iinfo(np.int64).max // (10 ** scale_digits) - 1)
    if too_big.any():
        first = np.flatnonzero(present)[np.flatnonzero(ok)[np.flatnonzero(too_big)[0]]]
        raise TraceFormatError(path, f"line {first + row_base}, column {column!r}",
                               "a value that fits in int64 nanoseconds", f"got {str(s.iloc[first])[:40]!r}")
    if scale_digits > 0:
        padded = fp.str.pad(scale_digits + 1, side="right", fillchar="0")
        head = padded.str.slice(0, scale_digits).astype("int64").to_numpy()
        rnd = (padded.str.slice(scale_digits, scale_digits + 1).astype("int64").to_numpy() >= 5)
        mag = whole * (10 ** scale_digits) + head + rnd
    else:
        rnd = fp.str.slice(0, 1).replace("", "0").astype("int64").to_numpy() >= 5
        mag = whole + rnd
    vals = np.where(sign == "-", -mag, mag)
    out = np.zeros(int(present.sum()), dtype=np.int64)
    out[ok] = vals
    if sci_vals is not None:
        out[bad] = sci_vals
    if not allow_negative and (out < 0).any():
        first = np.flatnonzero(present)[np.flatnonzero(out < 0)[0]]
        raise TraceFormatError(path, f"line {first + row_base}, column {column!r}",
                               "a non-negative value", f"got {str(s.iloc[first])[:40]!r}")
    values[present] = out
    return values, missing


def _sci_to_ns(cells, scale_digits, path, column, rows) -> np.ndarray:
    out = np.empty(len(cells), dtype=np.int64)
    for i, cell in enumerate(cells):  # only Excel-mangled cells reach here
        try:
            d = Decimal(cell) * (Decimal(10) ** scale_digits)
            out[i] = int(d.to_integral_value())
        except (InvalidOperation, OverflowError, ValueError) as exc:
            raise TraceFormatError(path, f"line {rows[i]}, column {column!r}", "a decimal number",
                                   f"got {cell!r}") from exc
    return out


def us_to_ns(s: pd.Series, **kw) -> tuple[np.ndarray, np.ndarray]:
    """Epoch or duration µs strings -> exact int64 ns (see decimal_to_ns)."""
    return decimal_to_ns(s, scale_digits=3, **kw)


def floats_to_ns(values, scale: float = 1000.0) -> np.ndarray:
    """Float durations (µs by default) -> int64 ns, rounded to nearest (JSON ``dur`` values)."""
    arr = np.asarray(values, dtype="float64") * scale
    return np.rint(np.nan_to_num(arr, nan=0.0)).astype(np.int64)


def to_float(s: pd.Series) -> np.ndarray:
    """Lenient numeric column: N/A, empty and unparsable cells become NaN."""
    if s.dtype.kind in "fiub":
        return np.array(s.to_numpy(dtype="float64", na_value=np.nan), dtype="float64")
    c = clean(s)
    c = c.where(~pd.Series(missing_mask(c), index=c.index), None)
    return np.array(pd.to_numeric(c, errors="coerce"), dtype="float64")


def to_id(s: pd.Series) -> np.ndarray:
    """Integer-like id column -> float64 with NaN for missing and for the 0xFFFFFFFF sentinels."""
    v = to_float(s)
    for sentinel in SENTINELS:
        v[v == float(sentinel)] = np.nan
    return v


def to_text(s: pd.Series) -> pd.Categorical:
    """Text column -> categorical with N/A/empty as missing."""
    c = clean(s)
    return pd.Categorical(c.where(~pd.Series(missing_mask(c), index=c.index), None))


def unquote_list(s: pd.Series) -> pd.Categorical:
    """Shapes/dtypes cells: drop the inner quotes of tripled-quote CSV cells and Windows ``;\\r\\n`` joins.

    Raw ``\"\"\"32,3,224,224\"\"\"`` reaches us as ``\"32,3,224,224\"`` -> ``32,3,224,224``;
    multiple tensors stay ``;``-separated (``81920,4096;8192,512``).
    """
    c = clean(s)
    c = c.str.replace("\r", "", regex=False).str.replace(";\n", ";", regex=False).str.replace('"', "", regex=False)
    c = c.where(~pd.Series(missing_mask(c), index=c.index), None)
    return pd.Categorical(c)


def device_label(s: pd.Series) -> pd.Series:
    """``NPU:0`` / ``npu:0`` / ``0`` -> ``npu:0``; ``CPU`` -> ``cpu``; missing stays missing."""
    c = clean(s)
    miss = pd.Series(missing_mask(c), index=c.index)
    low = c.str.lower().str.replace(" ", "", regex=False)
    digits = low.str.fullmatch(r"\d+", na=False)
    out = low.where(~digits, "npu:" + low.fillna(""))
    return out.where(~miss, None)


_UNIT_RE = re.compile(r"\(([^()]*)\)\s*$")
_BYTES = {"b": 1, "byte": 1, "bytes": 1, "kb": 1024, "mb": 1024 ** 2, "gb": 1024 ** 3}


def header_unit(header: str) -> str:
    m = _UNIT_RE.search(header)
    return m.group(1).strip() if m else ""


def bytes_factor(header: str, default: float | None = None) -> float:
    """``Total Reserved(MB)`` -> 2**20; ``Size(KB)`` -> 1024 (Ascend MB/KB are binary: see formats.md §3.6)."""
    unit = header_unit(header).lower()
    if unit in _BYTES:
        return float(_BYTES[unit])
    if default is None:
        raise KeyError(header)
    return default


def norm_key(header: str) -> str:
    """Header -> comparison key: unit dropped, lowercase, only [a-z0-9] (``Stream ID`` == ``Stream Id``)."""
    base = _UNIT_RE.sub("", str(header).replace("\ufeff", "")).strip()
    return re.sub(r"[^a-z0-9]", "", base.lower())


def snake(header: str) -> str:
    """PMU header -> snake_case column name keeping the unit: ``aic_mac_time(us)`` -> ``aic_mac_time_us``."""
    h = str(header).strip()
    unit = header_unit(h).lower()
    base = _UNIT_RE.sub("", h).strip().lower()
    base = re.sub(r"[^a-z0-9]+", "_", base).strip("_")
    unit = {"%": "pct", "gb/s": "gbps", "mb/s": "mbps", "us": "us", "ns": "ns", "ms": "ms"}.get(
        unit, re.sub(r"[^a-z0-9]+", "_", unit).strip("_"))
    return f"{base}_{unit}" if unit else base
