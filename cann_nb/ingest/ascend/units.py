"""Ascend quirk helpers: exact epoch-µs strings -> int ns, N/A handling, sentinels, header units, names.

Every function works on whole columns with Arrow compute kernels (C++; no Python per cell) and returns
numpy / pandas objects. The only per-cell Python is for Excel-mangled cells (``1.69512E+15``), which
are rare by construction and converted with ``Decimal``. See docs/formats.md §2.
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
NA_TOKENS = ("", "N/A", "NA", "n/a", "NaN", "nan", "None", "none", "NULL", "null", "-")
_NA = pa.array(NA_TOKENS, type=pa.large_string())
# 0xFFFFFFFF / 0xFFFFFFFFFFFFFFFF mean "none" (Model ID, dst rank, Subtask Id, notify id).
SENTINELS = (4294967295, 18446744073709551615)

_NUM_RE = r"^(?P<sign>[+-]?)(?P<int>[0-9]*)(?:\.(?P<frac>[0-9]*))?$"
_SCI_RE = r"^[+-]?[0-9]*\.?[0-9]*[eE][+-]?[0-9]+$"
_FLOAT_RE = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
_WS = " \t\r\n"
_TRIM = _WS + '"'
_INT64_MAX = np.iinfo(np.int64).max


def arrow(s) -> pa.Array:
    """Any column of text (pandas str/object, list, Arrow) -> Arrow large_string array."""
    if isinstance(s, pa.ChunkedArray):
        s = s.combine_chunks()
    if isinstance(s, pa.Array):
        arr = s
    else:
        try:
            arr = pa.array(s, type=pa.large_string(), from_pandas=True)
        except (pa.ArrowTypeError, pa.ArrowInvalid):  # mixed objects (rare): text of each value
            vals = pd.Series(s, dtype=object)
            arr = pa.array(vals.map(lambda x: x if isinstance(x, str) else None if x is None or x != x else str(x)),
                           type=pa.large_string(), from_pandas=True)
    if not pa.types.is_large_string(arr.type):
        arr = arr.cast(pa.large_string()) if (pa.types.is_string(arr.type) or pa.types.is_null(arr.type)) \
            else pc.cast(arr, pa.large_string())
    return arr


def clean(s, quotes: bool = True) -> pa.Array:
    """Strip whitespace, TABs and (``quotes``) the stray quotes Ascend writes around numbers
    (``"...643.212<TAB>"``). Text cells such as names keep their quotes."""
    return pc.utf8_trim(arrow(s), characters=_TRIM if quotes else _WS)


def missing(arr: pa.Array) -> np.ndarray:
    """True where a cleaned cell means "no value" (empty, N/A, NULL ...)."""
    m = pc.or_kleene(pc.is_null(arr), pc.is_in(arr, value_set=_NA))
    return np.asarray(m.fill_null(True).to_numpy(zero_copy_only=False), dtype=bool)


def _with_missing_as_null(arr: pa.Array) -> pa.Array:
    return pc.if_else(pa.array(missing(arr)), pa.nulls(len(arr), arr.type), arr)


def decimal_to_ns(s, *, scale_digits: int = 3, path="", column: str = "", row_base: int = 2,
                  allow_negative: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Decimal strings in units of 10**-scale_digits ns... exactly -> int64 ns.

    ``scale_digits`` is how many decimal digits make one ns: 3 for µs, 0 for ns. Returns
    ``(values, missing)``; values are 0 where missing. Exact: integer and fractional parts are parsed
    as integers, so ``1736408883704643.212`` gives ``...643212`` ns with no float rounding; digits
    below 1 ns are rounded half away from zero. Excel forms (``1.69512E+15``) go through Decimal. Any
    other text raises TraceFormatError naming ``path``, the line (``row_base`` = line of the first data
    row) and ``column``.
    """
    arr = clean(s)
    n = len(arr)
    miss = missing(arr)
    values = np.zeros(n, dtype=np.int64)
    if n == 0 or miss.all():
        return values, miss
    parts = pc.extract_regex(arr, _NUM_RE)
    matched = np.asarray(pc.is_valid(parts).to_numpy(zero_copy_only=False), dtype=bool)
    ip = pc.struct_field(parts, "int")
    fp = pc.struct_field(parts, "frac").fill_null("")
    empty = np.asarray(pc.and_(pc.equal(pc.utf8_length(ip), 0), pc.equal(pc.utf8_length(fp), 0))
                       .fill_null(True).to_numpy(zero_copy_only=False), dtype=bool)
    bad = ~miss & (~matched | empty)
    sci_idx = np.array([], dtype=np.int64)
    if bad.any():
        sci = np.asarray(pc.match_substring_regex(arr, _SCI_RE).fill_null(False).to_numpy(zero_copy_only=False),
                         dtype=bool)
        really_bad = bad & ~sci
        if really_bad.any():
            i = int(np.flatnonzero(really_bad)[0])
            raise TraceFormatError(path, f"line {i + row_base}, column {column!r}", "a decimal number",
                                   f"got {str(arr[i].as_py())[:40]!r}")
        sci_idx = np.flatnonzero(bad)
    ok = ~miss & ~bad
    ip_ok = pc.if_else(pa.array(ok), ip, pa.scalar("0", ip.type))
    long = np.asarray(pc.greater(pc.utf8_length(ip_ok), 19).to_numpy(zero_copy_only=False), dtype=bool)
    if long.any():
        i = int(np.flatnonzero(long)[0])
        raise TraceFormatError(path, f"line {i + row_base}, column {column!r}",
                               "a value that fits in int64 nanoseconds", f"got {str(arr[i].as_py())[:40]!r}")
    ip_ok = pc.if_else(pc.equal(pc.utf8_length(ip_ok), 0), pa.scalar("0", ip.type), ip_ok)
    try:
        whole = pc.cast(ip_ok, pa.int64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, OverflowError):
        i = int(np.flatnonzero(np.asarray(pc.greater_equal(pc.utf8_length(ip_ok), 19)
                                          .to_numpy(zero_copy_only=False), dtype=bool))[0])
        raise TraceFormatError(path, f"line {i + row_base}, column {column!r}",
                               "a value that fits in int64 nanoseconds", f"got {str(arr[i].as_py())[:40]!r}")
    limit = _INT64_MAX // (10 ** scale_digits) - 1
    if (whole > limit).any():
        i = int(np.flatnonzero(whole > limit)[0])
        raise TraceFormatError(path, f"line {i + row_base}, column {column!r}",
                               "a value that fits in int64 nanoseconds", f"got {str(arr[i].as_py())[:40]!r}")
    padded = pc.utf8_rpad(fp, width=scale_digits + 1, padding="0")
    if scale_digits > 0:
        head = pc.cast(pc.utf8_slice_codeunits(padded, 0, scale_digits), pa.int64()).to_numpy(zero_copy_only=False)
    else:
        head = np.zeros(n, dtype=np.int64)
    rnd = pc.cast(pc.utf8_slice_codeunits(padded, scale_digits, scale_digits + 1), pa.int64()) \
        .to_numpy(zero_copy_only=False) >= 5
    mag = whole * (10 ** scale_digits) + head + rnd
    neg = np.asarray(pc.equal(pc.struct_field(parts, "sign"), "-").fill_null(False).to_numpy(zero_copy_only=False),
                     dtype=bool)
    out = np.where(neg, -mag, mag)
    values[ok] = out[ok]
    if len(sci_idx):
        values[sci_idx] = _sci_to_ns([arr[int(i)].as_py() for i in sci_idx], scale_digits, path, column,
                                     sci_idx + row_base)
    if not allow_negative and (values < 0).any():
        i = int(np.flatnonzero(values < 0)[0])
        raise TraceFormatError(path, f"line {i + row_base}, column {column!r}", "a non-negative value",
                               f"got {str(arr[i].as_py())[:40]!r}")
    return values, miss


def _sci_to_ns(cells, scale_digits, path, column, rows) -> np.ndarray:
    out = np.empty(len(cells), dtype=np.int64)
    for i, cell in enumerate(cells):  # only Excel-mangled cells reach here
        try:
            v = int((Decimal(cell) * (Decimal(10) ** scale_digits)).to_integral_value())
            if abs(v) > _INT64_MAX:
                raise OverflowError(cell)
            out[i] = v
        except (InvalidOperation, OverflowError, ValueError) as exc:
            raise TraceFormatError(path, f"line {rows[i]}, column {column!r}", "a decimal number",
                                   f"got {cell!r}") from exc
    return out


def us_to_ns(s, **kw) -> tuple[np.ndarray, np.ndarray]:
    """Epoch or duration µs strings -> exact int64 ns (see decimal_to_ns)."""
    return decimal_to_ns(s, scale_digits=3, **kw)


def floats_to_ns(values, scale: float = 1000.0) -> np.ndarray:
    """Float durations (µs by default) -> int64 ns, rounded to nearest."""
    arr = np.asarray(values, dtype="float64") * scale
    return np.rint(np.nan_to_num(arr, nan=0.0)).astype(np.int64)


def to_float(s) -> np.ndarray:
    """Lenient numeric column: N/A, empty and unparsable cells become NaN."""
    if isinstance(s, pd.Series) and s.dtype.kind in "fiub":
        return np.array(s.to_numpy(dtype="float64", na_value=np.nan), dtype="float64")
    arr = clean(s)
    good = pc.match_substring_regex(arr, _FLOAT_RE).fill_null(False)
    num = pc.cast(pc.if_else(good, arr, pa.nulls(len(arr), arr.type)), pa.float64())
    return np.array(num.to_numpy(zero_copy_only=False), dtype="float64")


def to_id(s) -> np.ndarray:
    """Integer-like id column -> float64 with NaN for missing and for the 0xFFFFFFFF sentinels."""
    v = to_float(s)
    for sentinel in SENTINELS:
        v[v == float(sentinel)] = np.nan
    return v


def _categorical(arr: pa.Array) -> pd.Categorical:
    enc = pc.dictionary_encode(arr)
    cat = enc.to_pandas()
    return cat.array if isinstance(cat, pd.Series) else pd.Categorical(cat)


def to_text(s) -> pd.Categorical:
    """Text column -> categorical with N/A/empty as missing (whitespace and quotes trimmed)."""
    return _categorical(_with_missing_as_null(clean(s, quotes=False)))


def to_str(s) -> np.ndarray:
    """Text column -> object array of str, None where missing."""
    return np.asarray(_with_missing_as_null(clean(s, quotes=False)).to_numpy(zero_copy_only=False), dtype=object)


def unquote_list(s) -> pd.Categorical:
    """Shapes/dtypes cells: drop the inner quotes of tripled-quote CSV cells and Windows ``;\\r\\n`` joins.

    Raw ``\"\"\"32,3,224,224\"\"\"`` reaches us as ``\"32,3,224,224\"`` -> ``32,3,224,224``;
    multiple tensors stay ``;``-separated (``81920,4096;8192,512``).
    """
    a = clean(s)
    a = pc.replace_substring(a, "\r", "")
    a = pc.replace_substring(a, ";\n", ";")
    a = pc.replace_substring(a, '"', "")
    return _categorical(_with_missing_as_null(a))


def device_label(s) -> np.ndarray:
    """``NPU:0`` / ``npu:0`` / ``0`` -> ``npu:0``; ``CPU`` -> ``cpu``; missing -> None (object array)."""
    a = pc.replace_substring(pc.utf8_lower(clean(s)), " ", "")
    digits = pc.match_substring_regex(a, r"^[0-9]+$").fill_null(False)
    a = pc.if_else(digits, pc.binary_join_element_wise(pa.scalar("npu:", pa.large_string()), a,
                                                       pa.scalar("", pa.large_string())), a)
    return np.asarray(_with_missing_as_null(a).to_numpy(zero_copy_only=False), dtype=object)


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
