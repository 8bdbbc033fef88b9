"""The text exports: kernel_details / op_summary, memory_record, operator_memory, npu_module_mem,
step_trace_time, op_statistic, api_statistic, l2_cache (formats.md §3.1-3.7).

Every reader maps columns by header name (never position), reads all cells as text and converts whole
columns at once (units.py). Results are plain DataFrames in absolute epoch ns; assemble.py turns them
into Profile tables. Header sniffing (``classify``) recognises files that wrappers renamed.
"""

from __future__ import annotations

import csv
import io
import mmap
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pcsv

from ...errors import TraceFormatError
from .units import (bytes_factor, clean, device_label, missing, norm_key, snake, to_float, to_id, to_str,
                    to_text, unquote_list, us_to_ns)

# --------------------------------------------------------------------------------------------------
# reading


def read_header(path: Path, strip: bool = True) -> list[str]:
    """First CSV record of ``path`` (for sniffing); [] for an empty file. Raises TraceFormatError."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(64 * 1024)
    except OSError as exc:
        raise TraceFormatError(path, "", "a readable file", str(exc)) from exc
    if not head.strip():
        return []
    line = head.split(b"\n", 1)[0]
    try:
        text = line.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TraceFormatError(path, "line 1", "UTF-8 text (a CSV header)", str(exc)) from exc
    try:
        names = next(csv.reader(io.StringIO(text.rstrip("\r"))))
    except (csv.Error, StopIteration):
        return []
    return [h.strip() for h in names] if strip else names


_CONVERT = dict(strings_can_be_null=False, quoted_strings_can_be_null=False)


def read_csv(path: Path, nrows: int | None = None) -> pd.DataFrame:
    """Whole CSV as text cells (Arrow-backed str columns, no NA guessing), strict UTF-8.

    Parsed by pyarrow's multi-threaded reader (several times faster than pandas' on 100+ MB files).
    Every cell stays text; units.py converts whole columns. Quoted cells may span lines (operator_details'
    call stacks do). Malformed input -> TraceFormatError with the line.
    """
    raw_names = read_header(path, strip=False)
    if not raw_names:
        raise TraceFormatError(path, "line 1", "a CSV header", "the file is empty")
    opts = dict(read_options=pcsv.ReadOptions(use_threads=True),
                parse_options=pcsv.ParseOptions(newlines_in_values=True),
                convert_options=pcsv.ConvertOptions(column_types={n: pa.string() for n in raw_names}, **_CONVERT))
    try:
        if nrows is None:
            table = pcsv.read_csv(path, **opts)
        else:
            reader = pcsv.open_csv(path, **opts)
            batches, n = [], 0
            for batch in reader:
                batches.append(batch)
                n += batch.num_rows
                if n >= nrows:
                    break
            table = pa.Table.from_batches(batches, schema=reader.schema).slice(0, nrows)
    except pa.ArrowInvalid as exc:
        msg = str(exc)
        short = re.search(r"Expected (\d+) columns, got (\d+)", msg)
        if short and int(short.group(2)) < int(short.group(1)):
            df = _read_padded(path, nrows)  # hand-edited files with short rows: pad, keep, report
        else:
            raise TraceFormatError(path, _where(path, msg), "well-formed UTF-8 CSV rows", msg[:200]) from exc
    except OSError as exc:
        raise TraceFormatError(path, "", "a readable CSV file", str(exc)) from exc
    else:
        df = table.to_pandas(types_mapper=pd.ArrowDtype)
    df.columns = [str(c).replace("\ufeff", "").strip() for c in df.columns]
    if nrows is None:
        _check_not_truncated(path, len(raw_names), len(df))
    return df


def _read_padded(path: Path, nrows: int | None) -> pd.DataFrame:
    """Slow path for rows with fewer fields than the header (seen in a hand-edited real sample):
    pandas pads them with empty cells; their lines are listed in ``df.attrs["short_rows"]`` and end up
    in ``meta["ascend"]["malformed_rows"]``. Rows with *more* fields than the header stay an error."""
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False, encoding="utf-8",
                         on_bad_lines="error", engine="c", nrows=nrows)
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise TraceFormatError(path, _where(path, str(exc)), "well-formed UTF-8 CSV rows", str(exc)[:200]) from exc
    width = len(df.columns)
    with open(path, newline="", encoding="utf-8-sig") as fh:
        rows = csv.reader(fh)
        next(rows, None)
        df.attrs["short_rows"] = [i for i, r in enumerate(rows, start=2) if r and len(r) < width]
    return df


def _where(path: Path, msg: str) -> str:
    """Line of the first malformed record (slow path: only runs when reading already failed)."""
    data = Path(path).read_bytes()
    if "UTF8" in msg or "utf8" in msg.lower():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            return f"line {line}"
    text = data.decode("utf-8", errors="replace")
    rows = csv.reader(io.StringIO(text))
    try:
        width = len(next(rows))
        for i, r in enumerate(rows, start=2):
            if r and len(r) != width:
                return f"line {i}"
    except csv.Error:
        pass
    return "CSV body"


def _check_not_truncated(path: Path, n_cols: int, n_rows: int) -> None:
    """A file cut mid-record: an odd number of quote characters (an unclosed quoted cell), or no final
    newline and a last line with fewer fields than the header. (Hand-edited files without a final
    newline but with complete rows are accepted.)"""
    if n_rows == 0:
        return
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        quotes = mm[:].count(b'"') if len(mm) < (1 << 26) else sum(
            mm[i:i + (1 << 26)].count(b'"') for i in range(0, len(mm), 1 << 26))
        tail = mm[max(0, len(mm) - 65536):]
    if quotes % 2:
        raise TraceFormatError(path, f"line {n_rows + 1} (last record)", "closed quotes",
                               "a quoted cell is never closed; the file looks truncated")
    if tail.endswith((b"\n", b"\r")):
        return
    last = tail.rsplit(b"\n", 1)[-1].decode("utf-8", errors="replace")
    try:
        fields = next(csv.reader(io.StringIO(last)))
    except (csv.Error, StopIteration):
        fields = []
    if last.count('"') % 2 == 0 and len(fields) < n_cols:
        raise TraceFormatError(path, f"line {n_rows + 1} (last line)", f"{n_cols} fields as in the header",
                               f"found {len(fields)}; the file looks truncated")


class Columns:
    """Look up columns of one CSV by normalised header name, with the file path for errors."""

    def __init__(self, df: pd.DataFrame, path: Path):
        self.df = df
        self.path = path
        self.by_key: dict[str, str] = {}
        for col in df.columns:
            self.by_key.setdefault(norm_key(col), col)

    def name(self, *keys: str) -> str | None:
        for k in keys:
            col = self.by_key.get(norm_key(k))
            if col is not None:
                return col
        return None

    def get(self, *keys: str) -> pd.Series | None:
        col = self.name(*keys)
        return None if col is None else self.df[col]

    def require(self, *keys: str) -> str:
        col = self.name(*keys)
        if col is None:
            raise TraceFormatError(self.path, "header", f"a column {' or '.join(repr(k) for k in keys)}",
                                   f"columns found: {list(self.df.columns)[:12]}")
        return col


# --------------------------------------------------------------------------------------------------
# sniffing

KERNEL_NAME = ("Name", "Op Name")
KERNEL_START = ("Start Time(us)", "Task Start Time(us)", "Task Start Time")
KERNEL_DUR = ("Duration(us)", "Task Duration(us)", "Task Duration")
KERNEL_CORE = ("Accelerator Core", "Task Type")


def classify(header: list[str]) -> str | None:
    """Role of a CSV from its header (formats.md §1: wrappers rename files, so sniff headers)."""
    keys = {norm_key(h) for h in header}

    def has(*names):
        return any(norm_key(n) in keys for n in names)

    if has(*KERNEL_NAME) and has(*KERNEL_START) and has(*KERNEL_DUR):
        return "kernel_details"
    if has("Allocation Time(us)") and has("Size(KB)", "Size"):
        return "operator_memory"
    if has("Component") and has("Timestamp(us)") and has("Total Reserved(MB)"):
        return "memory_record" if has("Total Allocated(MB)") else "npu_module_mem"
    if has("Step") and has("Computing") and has("Free") and not has("Type", "Index"):
        return "step_trace_time"
    if has("OP Type") and has("Core Type") and has("Count") and has("Total Time(us)"):
        return "op_statistic"
    if has("Level") and has("API Name") and has("Time(us)"):
        return "api_statistic"
    if has("Stream Id") and has("Task Id") and has("Hit Rate"):
        return "l2_cache"
    if has("Host Self Duration(us)"):
        return "operator_details"
    return None


# file name stems -> role, for files whose name says what they are (torch_npu and msprof names)
NAME_ROLES = {
    "kernel_details": "kernel_details", "op_summary": "kernel_details",
    "memory_record": "memory_record", "operator_memory": "operator_memory",
    "npu_module_mem": "npu_module_mem", "step_trace_time": "step_trace_time",
    "op_statistic": "op_statistic", "api_statistic": "api_statistic", "l2_cache": "l2_cache",
    "operator_details": "operator_details",
}


def role_from_name(path: Path) -> str | None:
    stem = path.stem.lower()
    for prefix, role in NAME_ROLES.items():
        if stem == prefix or stem.startswith(prefix + "_"):
            return role
    return None


# --------------------------------------------------------------------------------------------------
# kernel_details / op_summary

# (canonical extra column, header alternatives, kind)
_KERNEL_EXTRAS = (
    ("op_type", ("Type", "OP Type"), "text"),
    ("core_type", KERNEL_CORE, "text"),
    ("stream_id", ("Stream ID",), "id"),
    ("task_id", ("Task ID",), "id"),
    ("model_id", ("Model ID",), "id"),
    ("context_id", ("Context ID",), "id"),
    ("step", ("Step Id",), "id"),
    ("block_dim", ("Block Dim", "Block Num"), "id"),
    ("mix_block_dim", ("Mix Block Dim", "Mix Block Num"), "id"),
    ("op_state", ("OP State",), "text"),
    ("hf32_eligible", ("HF32 Eligible",), "text"),
    ("input_formats", ("Input Formats",), "text"),
    ("output_shapes", ("Output Shapes",), "list"),
    ("output_dtypes", ("Output Data Types",), "list"),
    ("output_formats", ("Output Formats",), "text"),
)
_KNOWN_KERNEL_KEYS = {norm_key(h) for _, alts, _ in _KERNEL_EXTRAS for h in alts} | {
    norm_key(h) for h in KERNEL_NAME + KERNEL_START + KERNEL_DUR} | {
    norm_key(h) for h in ("Wait Time(us)", "Task Wait Time(us)", "Device_id", "Input Shapes",
                          "Input Data Types", "Model Name", "Infer ID")}
# PMU / metric columns (formats.md §3.1: every aic_metrics group); anything else unknown is ignored
_PMU_PREFIXES = ("aic_", "aiv_", "aicore_", "cube_", "total_cycles", "memory_bound", "mac_", "vec_",
                 "scalar_", "mte1_", "mte2_", "mte3_", "fixpipe_", "icache_", "ub_", "l0a_", "l0b_", "l0c_",
                 "l1_", "l2_", "main_mem_", "write_cache", "r0_", "r1_", "r2_", "r3_")
# text header -> canonical name shared with the SQLite TASK_PMU_INFO names
PMU_RENAMES = {"aicore_time_us": "aic_time_us", "aic_total_time_us": "aic_time_us",
               "aiv_total_time_us": "aiv_time_us"}


def pmu_name(header: str) -> str | None:
    sn = snake(header)
    if not sn.startswith(_PMU_PREFIXES):
        return None
    return "pmu_" + PMU_RENAMES.get(sn, sn)


def read_kernels(path: Path, default_device: int | None) -> pd.DataFrame:
    """kernel_details.csv / op_summary_*.csv -> one row per device task (absolute epoch ns).

    Columns: name, start_abs, dur_ns, device_id, wait_ns, shapes, dtypes, the _KERNEL_EXTRAS and
    pmu_* floats. Rows lacking a name, start or duration raise TraceFormatError.
    """
    df = read_csv(path)
    cols = Columns(df, path)
    name_col = cols.require(*KERNEL_NAME)
    start_col = cols.require(*KERNEL_START)
    dur_col = cols.require(*KERNEL_DUR)
    out: dict[str, object] = {}
    names = to_str(df[name_col])
    no_name = pd.isna(names)
    if no_name.any():
        row = int(np.flatnonzero(no_name)[0]) + 2
        raise TraceFormatError(path, f"line {row}, column {name_col!r}", "a task name", "the cell is empty")
    out["name"] = names
    start, miss = us_to_ns(df[start_col], path=path, column=start_col)
    _require_present(path, start_col, miss)
    dur, miss = us_to_ns(df[dur_col], path=path, column=dur_col)
    _require_present(path, dur_col, miss)
    out["start_abs"] = start
    out["dur_ns"] = dur
    dev = cols.get("Device_id")
    dev_ids = to_id(dev) if dev is not None else np.full(len(df), np.nan)
    if default_device is not None:
        dev_ids = np.where(np.isnan(dev_ids), float(default_device), dev_ids)
    out["device_id"] = dev_ids
    wait = cols.name("Wait Time(us)", "Task Wait Time(us)", "Task Wait Time")
    if wait is not None:
        w, wmiss = us_to_ns(df[wait], path=path, column=wait)
        out["wait_ns"] = np.where(wmiss, np.nan, w.astype("float64"))
    shapes = cols.get("Input Shapes")
    if shapes is not None:
        out["shapes"] = unquote_list(shapes)
    dtypes = cols.get("Input Data Types")
    if dtypes is not None:
        out["dtypes"] = unquote_list(dtypes)
    for canon, alts, kind in _KERNEL_EXTRAS:
        s = cols.get(*alts)
        if s is None:
            continue
        out[canon] = to_text(s) if kind == "text" else unquote_list(s) if kind == "list" else to_id(s)
    for col in df.columns:
        key = norm_key(col)
        if key in _KNOWN_KERNEL_KEYS:
            continue
        pname = pmu_name(col)
        if pname is not None and pname not in out:
            out[pname] = to_float(df[col])
    return _keep_attrs(pd.DataFrame(out), df)


def _keep_attrs(out: pd.DataFrame, df: pd.DataFrame) -> pd.DataFrame:
    if df.attrs.get("short_rows"):
        out.attrs["short_rows"] = list(df.attrs["short_rows"])
    return out


def _require_present(path, col, miss):
    if miss.any():
        row = int(np.flatnonzero(miss)[0]) + 2
        raise TraceFormatError(path, f"line {row}, column {col!r}", "a value", "the cell is empty or N/A")


# --------------------------------------------------------------------------------------------------
# memory


def _devices(cols: Columns, n: int, default_device: int | None) -> np.ndarray:
    s = cols.get("Device Type", "Device")
    out = pd.Series(device_label(s) if s is not None else np.full(n, None, dtype=object), dtype=object)
    dev_id = cols.get("Device_id")
    if dev_id is not None:
        ids = to_id(dev_id)
        alt = pd.Series(np.where(np.isnan(ids), None, "npu:" + pd.Series(ids).fillna(0).astype(int).astype(str)),
                        dtype=object)
        out = out.where(out.notna(), alt)
    if default_device is not None:
        out = out.where(out.notna(), f"npu:{default_device}")
    return out.to_numpy(dtype=object)


def read_memory_record(path: Path, default_device: int | None) -> pd.DataFrame:
    """memory_record.csv (MB, torch_npu) or memory_record_*.csv (KB, msprof) -> allocator samples."""
    df = read_csv(path)
    cols = Columns(df, path)
    ts_col = cols.require("Timestamp(us)")
    ts, miss = us_to_ns(df[ts_col], path=path, column=ts_col)
    _require_present(path, ts_col, miss)
    out = {"ts_abs": ts, "device": _devices(cols, len(df), default_device)}
    for canon, header in (("allocated_bytes", "Total Allocated(MB)"), ("reserved_bytes", "Total Reserved(MB)"),
                          ("active_bytes", "Total Active(MB)")):
        col = cols.name(header)
        if col is None:
            continue
        out[canon] = to_float(df[col]) * bytes_factor(col, 2 ** 20)
    comp = cols.get("Component")
    if comp is not None:
        out["component"] = to_text(comp)
    out["kind"] = "sample"
    return _keep_attrs(pd.DataFrame(out), df)


def read_operator_memory(path: Path, default_device: int | None) -> pd.DataFrame:
    """operator_memory.csv -> one alloc row and (when released in the window) one free row per block."""
    df = read_csv(path)
    cols = Columns(df, path)
    size_col = cols.require("Size(KB)", "Size")
    alloc_col = cols.require("Allocation Time(us)")
    size = to_float(df[size_col]) * bytes_factor(size_col, 1024)
    t_alloc, miss_a = us_to_ns(df[alloc_col], path=path, column=alloc_col)
    _require_present(path, alloc_col, miss_a)
    rel_col = cols.name("Release Time(us)")
    if rel_col is not None:
        t_rel, miss_r = us_to_ns(df[rel_col], path=path, column=rel_col)
    else:
        t_rel, miss_r = np.zeros(len(df), np.int64), np.ones(len(df), bool)
    devices = _devices(cols, len(df), default_device)
    names = to_text(cols.get("Name")) if cols.get("Name") is not None else pd.Categorical([None] * len(df))

    def mem(prefix):
        res = {}
        for canon, h in (("allocated_bytes", "Total Allocated(MB)"), ("reserved_bytes", "Total Reserved(MB)"),
                         ("active_bytes", "Total Active(MB)")):
            col = cols.name(f"{prefix} {h}")
            res[canon] = (to_float(df[col]) * bytes_factor(col, 2 ** 20)) if col else np.full(len(df), np.nan)
        return res

    alloc = pd.DataFrame({"ts_abs": t_alloc, "device": devices, "delta_bytes": size, **mem("Allocation"),
                          "op_name": names, "kind": "alloc"})
    free = pd.DataFrame({"ts_abs": t_rel, "device": devices, "delta_bytes": -size, **mem("Release"),
                         "op_name": names, "kind": "free"})[~miss_r]
    return _keep_attrs(pd.concat([alloc, free], ignore_index=True), df)


def read_module_mem(path: Path, default_device: int | None) -> pd.DataFrame:
    """npu_module_mem.csv (MB in torch_npu, KB in msprof) -> counters ``module_mem:<component>`` in bytes."""
    df = read_csv(path)
    cols = Columns(df, path)
    ts_col = cols.require("Timestamp(us)")
    comp_col = cols.require("Component")
    res_col = cols.require("Total Reserved(MB)")
    ts, miss = us_to_ns(df[ts_col], path=path, column=ts_col)
    _require_present(path, ts_col, miss)
    raw = to_float(df[res_col])
    raw[raw == -1] = np.nan  # -1: only frees were seen for the component (formats.md §3.6)
    comp = pd.Series(to_str(df[comp_col]), dtype=object).fillna("?")
    return _keep_attrs(pd.DataFrame({"ts_abs": ts, "source": _devices(cols, len(df), default_device),
                                     "metric": ("module_mem:" + comp).to_numpy(dtype=object),
                                     "value": raw * bytes_factor(res_col, 2 ** 20)}), df)


# --------------------------------------------------------------------------------------------------
# steps and aggregated tables

_STEP_FIELDS = ("Computing", "Communication(Not Overlapped)", "Overlapped", "Communication", "Free", "Stage",
                "Bubble", "Communication(Not Overlapped and Exclude Receive)", "Preparing")


def read_step_trace(path: Path) -> list[dict]:
    """step_trace_time.csv -> records {step, device_id, computing_ns, ...} (file values are µs)."""
    df = read_csv(path)
    cols = Columns(df, path)
    cols.require("Step")
    steps = to_id(cols.get("Step"))
    recs: dict[str, object] = {"step": steps}
    dev = cols.get("Device_id")
    if dev is not None:
        recs["device_id"] = to_id(dev)
    for field in _STEP_FIELDS:
        col = cols.name(field)
        if col is None:
            continue
        v, miss = us_to_ns(df[col], path=path, column=col)
        recs[snake(field) + "_ns"] = np.where(miss, np.nan, v.astype("float64"))
    return _records(pd.DataFrame(recs))


def read_stat_table(path: Path) -> list[dict]:
    """op_statistic / api_statistic -> records with numbers as floats (kept as-is in meta)."""
    df = read_csv(path)
    out = {}
    for col in df.columns:
        c = clean(df[col])
        num = to_float(c)
        present = ~missing(c)
        out[col] = num if np.isfinite(num[present]).all() and present.any() else to_str(c)
    return _records(pd.DataFrame(out))


def read_l2_cache(path: Path) -> pd.DataFrame:
    df = read_csv(path)
    cols = Columns(df, path)
    stream = cols.require("Stream Id")
    task = cols.require("Task Id")
    out = pd.DataFrame({"stream_id": to_id(df[stream]), "task_id": to_id(df[task])})
    for canon, h in (("pmu_l2_hit_rate", "Hit Rate"), ("pmu_l2_victim_rate", "Victim Rate")):
        col = cols.name(h)
        if col is not None:
            out[canon] = to_float(df[col])
    return out.dropna(subset=["stream_id", "task_id"]).drop_duplicates(["stream_id", "task_id"], keep=False)


def _records(df: pd.DataFrame) -> list[dict]:
    """DataFrame -> JSON-friendly records (NaN -> None, integral floats -> int)."""
    recs = df.astype(object).where(df.notna(), None).to_dict("records")
    for r in recs:
        for k, v in r.items():
            if isinstance(v, (float, np.floating)) and float(v).is_integer() and abs(v) < 2 ** 53:
                r[k] = int(v)
            elif isinstance(v, np.generic):
                r[k] = v.item()
    return recs
