"""Kineto events -> raw numpy columns, one chunk at a time (see chunked_json for the chunking).

Each chunk's events (orjson dicts, or msgspec structs when kineto_structs can decode the chunk) are
read field by field with C-level ``map(dict.get / attrgetter, ...)`` passes, restricted to the events
a field matters for (shapes only on ops, bytes only on copies...), and turned into int64 / float64
arrays and global category codes at once, so no Python object outlives its chunk. A chunk is ~1 MiB
of text: small enough for its objects to stay in the CPU cache while the passes run.
Interpretation (categories, devices, tracks, links) happens later, on whole columns, in kineto.py.

Times: Kineto writes microseconds, since PyTorch 2.1 as floats with three (ns) decimals. A float64
holds such a value exactly enough for ``floor(us) * 1000 + round(frac * 1000)`` to give the exact ns
below 2**43 us (~101 days; relative timestamps stay below the 3-month ``baseTimeNanoseconds`` window).
Absolute epoch-us floats with decimals (~1.7e15) are beyond float64's ns resolution, so for those the
digits are re-read from the chunk's JSON text.
"""

from __future__ import annotations

import re
from itertools import repeat
from operator import itemgetter

import numpy as np
import orjson
import pandas as pd

from ..errors import TraceFormatError
from .kineto_structs import ATTR as _ATTR_OF
from .kineto_structs import EMPTY_ARGS, GETTERS, RAW_KEYS
from .kineto_structs import Args as _ARGS
from .kineto_structs import Event as _STRUCT

_EMPTY: dict = {}
_EXACT_LIMIT_US = float(2 ** 43)
_TS_TEXT = re.compile(rb'"ts"\s*:\s*(-?)(\d+)(?:\.(\d+))?(?=\s*[,}])')

# groups of raw categories (what the reader needs to know while extracting)
OP, ANNOT, GPU_ANNOT, PY, RUNTIME, KERNEL, MEMCPY, MEMSET, SYNC, TRACE, OTHER = range(11)
DEVICE_GROUPS = (GPU_ANNOT, KERNEL, MEMCPY, MEMSET, SYNC)
_GROUP_OF = {
    "cpu_op": OP, "Operator": OP, "operator": OP,
    "user_annotation": ANNOT,
    "gpu_user_annotation": GPU_ANNOT,
    "python_function": PY,
    "cuda_runtime": RUNTIME, "cuda_driver": RUNTIME, "Runtime": RUNTIME, "runtime": RUNTIME,
    "xpu_runtime": RUNTIME, "xpu_driver": RUNTIME, "mtia_runtime": RUNTIME,
    "kernel": KERNEL, "Kernel": KERNEL,
    "gpu_memcpy": MEMCPY, "Memcpy": MEMCPY,
    "gpu_memset": MEMSET, "Memset": MEMSET,
    "cuda_sync": SYNC,
    "Trace": TRACE,
}
LEGACY_CATS = {"Operator", "Runtime", "Kernel", "Memcpy", "Memset"}
_PHASE = {"X": 0, "s": 1, "f": 1, "i": 2, "I": 2, "C": 3, "M": 4}
LINK_FLOWS = {"ac2g", "async_cpu_to_gpu", "async"}   # launch flows of the three eras (fwdbwd is not one)


def in_groups(grp: np.ndarray, groups) -> np.ndarray:
    """``np.isin`` for group codes, by table lookup (isin sorts; this is one gather)."""
    lut = np.zeros(OTHER + 1, dtype=bool)
    lut[list(groups)] = True
    return lut[grp]


def group_of(cat) -> int:
    if not isinstance(cat, str):
        return OTHER
    g = _GROUP_OF.get(cat)
    if g is None and cat.startswith("privateuse1_") and cat.endswith(("_runtime", "_driver")):
        g = RUNTIME
    return OTHER if g is None else g


class Interner:
    """Global codes for values met chunk by chunk (names, categories, pids...). None -> -1."""

    def __init__(self):
        self.index: dict = {}
        self.values: list = []

    def codes(self, values, label: str, first: int, field: str, positions=None) -> np.ndarray:
        if not len(values):
            return np.zeros(0, dtype=np.int64)
        arr = np.fromiter(values, dtype=object, count=len(values))
        try:
            local, uniques = pd.factorize(arr, use_na_sentinel=True)
        except TypeError:
            bad = next(i for i, v in enumerate(values) if not _hashable(v))
            where = first + (int(positions[bad]) if positions is not None else bad)
            raise TraceFormatError(label, f"traceEvents[{where}]", f"a string or number for {field!r}",
                                   f"found {type(values[bad]).__name__}") from None
        lut = np.empty(len(uniques) + 1, dtype=np.int64)
        index, vals = self.index, self.values
        for j, u in enumerate(uniques):
            code = index.get(u)
            if code is None:
                code = index[u] = len(vals)
                vals.append(u)
            lut[j] = code
        lut[-1] = -1
        return lut[local]

    def code_of(self, value) -> int:
        code = self.index.get(value)
        if code is None:
            code = self.index[value] = len(self.values)
            self.values.append(value)
        return code

    def categorical(self, codes: np.ndarray) -> pd.Categorical:
        """A categorical of the (stringified) values; equal strings from different types are merged."""
        names = [v if isinstance(v, str) else str(v) for v in self.values]
        cats, inverse = np.unique(np.array(names, dtype=object), return_inverse=True) if names else ([], [])
        if len(names):
            remap = np.append(inverse.astype(np.int64), -1)
            codes = remap[codes]
        return pd.Categorical.from_codes(codes, categories=pd.Index(list(cats), dtype=object))


def _field_of(item, key):
    """One field of one event or args object, whichever kind it is (slow paths only)."""
    if isinstance(item, dict):
        return item.get(key)
    if _STRUCT is not None and type(item) in (_STRUCT, _ARGS):
        return getattr(item, key if key in ("name", "labels") else _ATTR_OF.get(key, key), None)
    return None


def _hashable(v) -> bool:
    try:
        hash(v)
        return True
    except TypeError:
        return False


def _get(items: list, key, default=None) -> list:
    """Field ``key`` of every event (dicts from orjson, or kineto_structs structs from msgspec)."""
    if not items or type(items[0]) is dict or (type(items[0]) is not _STRUCT and type(items[0]) is not _ARGS):
        return list(map(dict.get, items, repeat(key, len(items)), repeat(default, len(items))))
    values = list(map(GETTERS[key], items))
    if key == "args" and None in values:
        values = [EMPTY_ARGS if v is None else v for v in values]
    elif key in RAW_KEYS:
        # raw JSON text (b"null" when absent) as bytes: one join and split copies them faster than a
        # bytes() per value, and JSON text never holds a NUL byte (control characters are escaped)
        values = b"\0".join(values).split(b"\0")
    return values


def _present(values: list) -> bool:
    """Whether any value is there (None, or raw b"null" from the struct path, count as absent)."""
    return len(values) > values.count(None) + values.count(b"null")


def _code_of(uniques, value) -> int:
    hits = [i for i, u in enumerate(uniques) if u == value]
    return hits[0] if hits else -2


def _take(items: list, idx: np.ndarray) -> list:
    if len(idx) == 0:
        return []
    if len(idx) == 1:
        return [items[int(idx[0])]]
    return list(itemgetter(*idx.tolist())(items))


def _bad_index(values, ok) -> int:
    return next((i for i, v in enumerate(values) if not ok(v)), 0)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and abs(v) != float("inf")


def f64(values: list, fallback):
    """float64 array of plain int/float values (a C loop, no type discovery), else ``fallback``.

    Integers up to 2**53 (every us timestamp) convert exactly. A later None becomes NaN (rejected or
    treated as missing by the caller); numeric strings are accepted as numbers."""
    if not values or type(values[0]) not in (int, float):
        return fallback
    try:
        return np.fromiter(values, dtype=np.float64, count=len(values))
    except (TypeError, ValueError, OverflowError):
        return fallback


def to_ns(values, label: str, first: int, positions: np.ndarray, field: str,
          allow_missing: bool = False) -> tuple[np.ndarray, bool]:
    """Microseconds (int or float; a list or an array) -> int64 ns. Returns (ns, exact); exact False
    means float64 could not carry the ns digits (the caller re-reads the text). Missing -> 0 if allowed."""
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.int64), True
    arr = values if isinstance(values, np.ndarray) else _array(values)
    if arr.dtype.kind not in "iuf" or arr.ndim != 1:
        # None, strings, bools, nested values: check each and convert what is a number
        def ok(v):
            return _is_number(v) or (allow_missing and v is None)

        if not all(map(ok, values)):
            i = _bad_index(values, ok)
            raise TraceFormatError(label, f"traceEvents[{first + int(positions[i])}]",
                                   f"a number (microseconds) for {field!r}",
                                   f"found {values[i]!r}"[:120])
        arr = np.array([0 if v is None else v for v in values], dtype=np.float64)
        if all(type(v) is int or v is None for v in values):
            arr = arr.astype(np.int64)
    if arr.dtype.kind in "iu":
        if arr.dtype.kind == "u" or np.abs(arr).max() > 9_000_000_000_000_000:
            raise TraceFormatError(label, f"traceEvents[{first + int(positions[int(np.abs(arr).argmax())])}]",
                                   f"a timestamp in microseconds for {field!r}", "value out of range")
        return arr.astype(np.int64) * 1000, True
    if allow_missing:
        arr = np.where(np.isnan(arr), 0.0, arr)
    bad = ~np.isfinite(arr) | (np.abs(arr) >= 9.0e15)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise TraceFormatError(label, f"traceEvents[{first + int(positions[i])}]",
                               f"a finite number of microseconds for {field!r}", f"found {arr[i]!r}")
    whole = np.floor(arr)
    frac = arr - whole
    ns = whole.astype(np.int64) * 1000 + np.rint(frac * 1000).astype(np.int64)
    exact = bool(np.abs(arr).max() < _EXACT_LIMIT_US) or not frac.any()
    return ns, exact


def exact_ts_from_text(raw: bytes, events: list) -> np.ndarray | None:
    """ns of every event that has a 'ts', from its digits in ``raw``; None when text and events disagree."""
    has = np.fromiter((_field_of(e, "ts") is not None if not isinstance(e, dict) else "ts" in e for e in events),
                      dtype=bool, count=len(events))
    found = _TS_TEXT.findall(raw)
    if len(found) != int(has.sum()):
        return None
    if not found:
        return np.zeros(len(events), dtype=np.int64)
    sign, whole, frac = zip(*found)
    whole_ns = np.array(whole, dtype="S").astype(np.int64) * 1000
    frac_ns = np.char.ljust(np.array(frac, dtype="S"), 3, b"0").astype("S3").astype(np.int64)
    ns = whole_ns + frac_ns
    ns = np.where(np.array(sign, dtype="S") == b"-", -ns, ns)
    out = np.zeros(len(events), dtype=np.int64)
    out[has] = ns
    # cross-check against the parsed floats (catches a "ts" key nested in args)
    parsed = np.array([_field_of(e, "ts") for e, h in zip(events, has) if h], dtype=np.float64)
    if not np.allclose(parsed * 1000, ns, rtol=0, atol=512):
        return None
    return out


def _array(values: list):
    try:
        return np.array(values)
    except (ValueError, OverflowError):   # ragged nested lists
        return np.fromiter(values, dtype=object, count=len(values))


def _number_or_nan(v) -> float:
    if _is_number(v):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            pass
    return np.nan


def to_float(values: list) -> np.ndarray:
    """Optional measurements (bytes, flops...) -> float64, NaN where absent or not a number."""
    if not values:
        return np.zeros(0, dtype=np.float64)
    arr = f64(values, None)
    if arr is not None:
        return arr
    return np.fromiter(map(_number_or_nan, values), dtype=np.float64, count=len(values))


def to_int(values: list, default: int = -1) -> np.ndarray:
    """Identifiers (correlation, stream, External id...) -> int64, ``default`` where absent/unusable."""
    if not values:
        return np.zeros(0, dtype=np.int64)
    arr = _array(values)
    if arr.dtype.kind == "i" and arr.ndim == 1:
        return arr.astype(np.int64)
    num = to_float(values)
    ok = np.isfinite(num) & (np.abs(num) < 2.0 ** 62)
    return np.where(ok, num, default).astype(np.int64)


def _compact(raw: bytes) -> str:
    """Raw JSON text as written (maybe with spaces) -> the spelling the dict path produces."""
    try:
        v = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw.decode(errors="replace")
    return v if isinstance(v, str) else _json_text(v)


def _json_text(v) -> str:
    try:
        return orjson.dumps(v).decode()
    except (TypeError, orjson.JSONEncodeError):
        return str(v)


def _text(values: list) -> list:
    """Compact JSON text of each value (strings stay as they are), None stays None."""
    return [None if v is None else (v if isinstance(v, str) else _json_text(v)) for v in values]


class Columns:
    """Accumulates the columns of every chunk; ``reset()`` forgets them (whole-document fallback)."""

    def __init__(self, label: str, keep_python: bool, own_export: bool = False):
        self.label = label
        self.keep_python = keep_python
        self.own_export = own_export     # written by chrome_export: exact cat/device hints in args
        self.names, self.cats, self.pids, self.tids = Interner(), Interner(), Interner(), Interner()
        self.shapes, self.dtypes, self.concrete = Interner(), Interner(), Interner()
        self.flow_ids = Interner()
        self._group_lut = np.zeros(0, dtype=np.int8)
        self.reset()

    def reset(self):
        self.parts: dict[str, list] = {k: [] for k in ("span", "flow", "mem", "ctr")}
        self.metadata: list[dict] = []
        self.trace_spans: list[dict] = []
        self.counts: dict[str, int] = {}
        self.skipped_span: tuple[int, int] | None = None   # [first start, last end] ns of spans left out
        self.imprecise = 0
        self.n_events = 0
        self.float_ts = False
        self.flow_cats: set = set()

    def _count(self, key: str, n: int = 1):
        if n:
            self.counts[key] = self.counts.get(key, 0) + int(n)

    def _extend_skipped_span(self, spans) -> None:
        """Spans left out on purpose still bound the trace's time: python_function spans open first and
        close last, so without them the wall time shrank. Float precision is enough here (it places t0
        and the wall only); a value that is not a number is ignored, as the spans themselves are."""
        ts = pd.to_numeric(pd.Series(_get(spans, "ts"), dtype=object), errors="coerce").to_numpy(dtype=float)
        dur = pd.to_numeric(pd.Series(_get(spans, "dur"), dtype=object), errors="coerce").to_numpy(dtype=float)
        ok = np.isfinite(ts) & (np.abs(ts) < 9.0e15)
        if not ok.any():
            return
        start = ts[ok] * 1000.0
        end = start + np.clip(np.nan_to_num(dur[ok], nan=0.0, posinf=0.0), 0.0, None) * 1000.0
        first, last = int(round(start.min())), int(round(end.max()))
        if self.skipped_span is not None:
            first, last = min(first, self.skipped_span[0]), max(last, self.skipped_span[1])
        self.skipped_span = (first, last)

    def groups(self, cat_codes: np.ndarray) -> np.ndarray:
        values = self.cats.values
        if len(self._group_lut) < len(values) + 1:       # the last entry serves code -1 (no cat)
            self._group_lut = np.array([group_of(c) for c in values] + [OTHER], dtype=np.int8)
        return self._group_lut[cat_codes] if len(cat_codes) else np.zeros(0, dtype=np.int8)

    # -- one chunk ------------------------------------------------------------------------------
    def consume(self, chunk) -> None:
        if chunk is None:
            self.reset()
            return
        evs, first, label = chunk.events, chunk.first, self.label
        self.n_events += len(evs)
        try:
            ph = _get(evs, "ph")
        except TypeError:
            i = _bad_index(evs, lambda e: isinstance(e, dict))
            raise TraceFormatError(label, f"traceEvents[{first + i}]", "a JSON object (an event)",
                                   f"found {type(evs[i]).__name__}") from None
        try:
            code, uniq = pd.factorize(np.fromiter(ph, dtype=object, count=len(ph)))
        except TypeError:
            i = _bad_index(ph, _hashable)
            raise TraceFormatError(label, f"traceEvents[{first + i}]", "a string for 'ph'",
                                   f"found {type(ph[i]).__name__}") from None
        kind = np.array([_PHASE.get(u, 5) if isinstance(u, str) else 5 for u in uniq] + [5], dtype=np.int8)[code]
        is_x, is_flow, is_inst, is_ctr, is_meta = (kind == k for k in range(5))
        if (kind == 5).any():
            other = pd.Series(code[kind == 5]).value_counts()
            for c, cnt in other.items():
                self._count(f"phase {uniq[c] if c >= 0 else None}", cnt)
        exact_ts = None
        if is_meta.any():
            self._metadata(_take(evs, np.flatnonzero(is_meta)))
        if is_x.any():
            exact_ts = self._spans(chunk, np.flatnonzero(is_x), exact_ts)
        if is_flow.any():
            exact_ts = self._flows(chunk, np.flatnonzero(is_flow), exact_ts, pha_start=code == _code_of(uniq, "s"))
        if is_inst.any():
            exact_ts = self._instants(chunk, np.flatnonzero(is_inst), exact_ts)
        if is_ctr.any():
            exact_ts = self._counters(chunk, np.flatnonzero(is_ctr), exact_ts)

    def _ts(self, chunk, idx, values, exact_ts):
        """ns of the 'ts' values of events ``idx``; re-read from text when floats lose ns digits."""
        ns, exact = to_ns(values, self.label, chunk.first, idx, "ts")
        if len(values) and (values.dtype.kind == "f" if isinstance(values, np.ndarray) else type(values[0]) is float):
            self.float_ts = True
        if exact:
            return ns, exact_ts
        if exact_ts is None and chunk.raw is not None:
            exact_ts = exact_ts_from_text(chunk.raw, chunk.events)
            if exact_ts is None:
                exact_ts = False
        if exact_ts is False or exact_ts is None:
            self.imprecise += len(idx)
            return ns, exact_ts
        return exact_ts[idx], exact_ts

    def _times(self, chunk, idx, dicts, exact_ts, with_dur: bool):
        """(ts_ns, dur_ns or None, pid codes, tid codes, exact_ts) of ``dicts`` (events ``idx``)."""
        label, first = self.label, chunk.first
        ts_vals = _get(dicts, "ts")
        ts, exact_ts = self._ts(chunk, idx, f64(ts_vals, ts_vals), exact_ts)
        dur = None
        if with_dur:
            dur_vals = _get(dicts, "dur")
            dur = to_ns(f64(dur_vals, dur_vals), label, first, idx, "dur", allow_missing=True)[0]
        pid = self._id_codes(self.pids, _get(dicts, "pid"), first, "pid", idx)
        tid = self._id_codes(self.tids, _get(dicts, "tid"), first, "tid", idx)
        return ts, dur, pid, tid, exact_ts

    def _id_codes(self, interner: "Interner", values: list, first: int, field: str, idx) -> np.ndarray:
        """Global codes of pids/tids: integer ids are hashed as an int64 array (fast path)."""
        if not values or type(values[0]) is not int:
            return interner.codes(values, self.label, first, field, idx)
        try:
            arr = np.fromiter(values, dtype=np.int64, count=len(values))
        except (TypeError, ValueError, OverflowError):
            return interner.codes(values, self.label, first, field, idx)
        if (arr == arr[0]).all():           # one thread (memory events, most flows): no hashing
            return np.full(len(arr), interner.code_of(int(arr[0])), dtype=np.int64)
        local, uniq = pd.factorize(arr)
        lut = np.array([interner.code_of(int(v)) for v in uniq] + [-1], dtype=np.int64)
        return lut[local]

    def _spans(self, chunk, idx, exact_ts):
        label, first = self.label, chunk.first
        xs = _take(chunk.events, idx)
        cat = self.cats.codes(_get(xs, "cat"), label, first, "cat", idx)
        grp = self.groups(cat)
        drop = grp == TRACE
        if not self.keep_python:
            py = np.flatnonzero(grp == PY)
            if len(py):
                self._count("python_function", len(py))
                self._extend_skipped_span(_take(xs, py))
            drop |= grp == PY
        if (grp == TRACE).any():
            for e in _take(xs, np.flatnonzero(grp == TRACE)):
                self.trace_spans.append({k: _field_of(e, k) for k in ("name", "ts", "dur", "tid")})
        if drop.any():
            keep = np.flatnonzero(~drop)
            xs, cat, grp, idx = _take(xs, keep), cat[keep], grp[keep], idx[keep]
        n = len(xs)
        if n == 0:
            return exact_ts
        names = _get(xs, "name")
        ts, dur, pid, tid, exact_ts = self._times(chunk, idx, xs, exact_ts, with_dur=True)
        args = _get(xs, "args", _EMPTY)
        try:
            ext = to_int(_get(args, "External id", -1))
        except TypeError:   # an 'args' that is not an object: treat it as absent
            bad = sum(1 for a in args if not isinstance(a, dict))
            self._count("args not an object", bad)
            args = [a if isinstance(a, dict) else _EMPTY for a in args]
            ext = to_int(_get(args, "External id", -1))
        legacy = in_groups(grp, (RUNTIME, KERNEL, MEMCPY, MEMSET)) & (ext < 0)
        if legacy.any():   # 2021 traces spell it 'external id' on runtime and GPU events
            li = np.flatnonzero(legacy)
            ext[li] = to_int(_get(_take(args, li), "external id", -1))
        # per-group fields, each read only where it can occur
        dev_like = np.flatnonzero(~in_groups(grp, (OP, PY, ANNOT)))
        corr = np.full(n, -1, dtype=np.int64)
        stream = np.full(n, -1, dtype=np.int64)
        device = np.full(n, -1, dtype=np.int64)
        if len(dev_like):
            sub = _take(args, dev_like)
            corr[dev_like] = to_int(_get(sub, "correlation", -1))
            stream[dev_like] = to_int(_get(sub, "stream", -1))
            device[dev_like] = to_int(_get(sub, "device", -1))
        shapes = np.full(n, -1, dtype=np.int64)
        dtypes = np.full(n, -1, dtype=np.int64)
        concrete = np.full(n, -1, dtype=np.int64)
        flops = np.full(n, np.nan)
        ops = np.flatnonzero(grp == OP)
        if len(ops):
            sub = _take(args, ops)
            dims = _get(sub, "Input Dims")
            if _present(dims):
                shapes[ops] = self._list_codes(self.shapes, dims, first, "Input Dims", idx[ops])
                dtypes[ops] = self._list_codes(self.dtypes, _get(sub, "Input type"), first, "Input type", idx[ops])
            conc = _get(sub, "Concrete Inputs")   # scalar arguments (stride, padding...), PyTorch 2.1+
            if _present(conc):
                concrete[ops] = self._list_codes(self.concrete, conc, first, "Concrete Inputs", idx[ops])
            fl = _get(sub, "flops", np.nan)
            if any(f == f for f in fl):
                flops[ops] = to_float(fl)
        nbytes = np.full(n, np.nan)
        copies = np.flatnonzero((grp == MEMCPY) | (grp == MEMSET) | (grp == KERNEL))   # kernels: collectives
        if len(copies):
            nbytes[copies] = to_float(_get(_take(args, copies), "bytes", np.nan))
        collective = np.zeros(n, dtype=bool)
        kern = np.flatnonzero(grp == KERNEL)
        if len(kern):
            collective[kern] = [c is not None for c in _get(_take(args, kern), "Collective name")]
        step = np.zeros(n, dtype=bool)
        if self.own_export:
            ann = np.flatnonzero(grp == ANNOT)
            if len(ann):
                step[ann] = [c == "step" for c in _get(_take(args, ann), "cann_nb_cat")]
        name_codes = self.names.codes(names, label, first, "name", idx)
        if (name_codes < 0).any():     # a span without a name still happened: keep it, labelled
            name_codes[name_codes < 0] = self.names.code_of("(unnamed)")
        self.parts["span"].append({
            "step": step,
            "index": idx.astype(np.int64) + first,
            "name": name_codes,
            "cat": cat, "group": grp, "pid": pid, "tid": tid,
            "ts": ts, "dur": dur, "ext": ext, "corr": corr, "stream": stream, "device": device,
            "shapes": shapes, "dtypes": dtypes, "concrete": concrete, "flops": flops, "bytes": nbytes,
            "collective": collective,
        })
        return exact_ts

    def _flows(self, chunk, idx, exact_ts, pha_start):
        label, first = self.label, chunk.first
        fl = _take(chunk.events, idx)
        try:
            code, uniq = pd.factorize(np.fromiter(_get(fl, "cat"), dtype=object, count=len(fl)))
        except TypeError:   # an unhashable cat: not a launch flow
            code, uniq = np.zeros(len(fl), dtype=np.int64), [None]
        self.flow_cats.update(u for u in uniq if isinstance(u, str))
        link = np.array([isinstance(u, str) and u in LINK_FLOWS for u in uniq] + [False])
        keep = link[code]
        if not keep.all():
            for c, cnt in pd.Series(code[~keep]).value_counts().items():
                self._count(f"flow {uniq[c] if c >= 0 else None}", cnt)
            sel = np.flatnonzero(keep)
            fl, idx = _take(fl, sel), idx[sel]
        if not fl:
            return exact_ts
        ts, _, pid, tid, exact_ts = self._times(chunk, idx, fl, exact_ts, with_dur=False)
        ids = _get(fl, "id")
        fid = to_int(ids, default=-2)
        if (fid == -2).any():     # string ids (allowed by the Chrome format): intern them
            fid = self.flow_ids.codes(ids, label, first, "id", idx) + (1 << 50)
        self.parts["flow"].append({
            "start": pha_start[idx],
            "id": fid, "ts": ts, "pid": pid, "tid": tid,
        })
        return exact_ts

    def _list_codes(self, interner: Interner, values: list, first: int, field: str, positions) -> np.ndarray:
        """Global codes of the compact JSON text of each value (lists of dims / dtypes), None -> -1.

        Each value is serialised by orjson in a C-level map and the bytes are factorized; only the
        distinct texts are decoded. (Splitting one orjson.dumps of the whole list with numpy was
        tried: slower at chunk sizes that keep a chunk in cache, and much more code.)"""
        if any(type(v) is bytes for v in values[:64]):   # raw JSON text (msgspec path): None or bytes
            local, uniq = pd.factorize(np.fromiter(values, dtype=object, count=len(values)))
            lut = np.array([-1 if u is None or u == b"null" else interner.code_of(_compact(u)) for u in uniq] + [-1],
                           dtype=np.int64)
            return lut[local]
        try:
            blobs = list(map(orjson.dumps, values))
        except (TypeError, orjson.JSONEncodeError):      # keys or ints orjson refuses
            return interner.codes(_text(values), self.label, first, field, positions)
        local, uniq = pd.factorize(np.fromiter(blobs, dtype=object, count=len(blobs)))
        lut = np.array([-1 if u == b"null" else interner.code_of(orjson.loads(u) if u[:1] == b'"' else u.decode())
                        for u in uniq] + [-1], dtype=np.int64)
        return lut[local]

    _MEM_KEYS = ("Device Type", "Device Id", "Bytes", "Total Allocated", "Total Reserved", "Addr")

    def _instants(self, chunk, idx, exact_ts):
        ins = _take(chunk.events, idx)
        names = _get(ins, "name")
        is_mem = np.fromiter(names, dtype=object, count=len(names)) == "[memory]"
        self._count("instant events (not [memory])", int((~is_mem).sum()))
        if not is_mem.any():
            return exact_ts
        if not is_mem.all():
            sel = np.flatnonzero(is_mem)
            ins, idx = _take(ins, sel), idx[sel]
        ts, _, pid, tid, exact_ts = self._times(chunk, idx, ins, exact_ts, with_dur=False)
        args = _get(ins, "args", _EMPTY)
        if args and type(args[0]) is not _ARGS:
            args = [a if isinstance(a, dict) else _EMPTY for a in args]
        # 2021 traces carry only Device Type/Id and Bytes: the others are NaN there
        cols = [to_float(_get(args, k, np.nan)) for k in self._MEM_KEYS]
        nan_to = lambda a: np.where(np.isfinite(a), a, -1).astype(np.int64)   # noqa: E731
        device = (np.fromiter(_get(args, "cann_nb_device"), dtype=object, count=len(args)) if self.own_export
                  else np.full(len(args), None, dtype=object))
        self.parts["mem"].append({
            "device": device,
            "index": idx.astype(np.int64) + chunk.first, "ts": ts, "pid": pid, "tid": tid,
            "dev_type": nan_to(cols[0]), "dev_id": nan_to(cols[1]),
            "bytes": cols[2].astype(np.float64), "allocated": cols[3].astype(np.float64),
            "reserved": cols[4].astype(np.float64), "addr": nan_to(cols[5].astype(np.float64)),
        })
        return exact_ts

    def _counters(self, chunk, idx, exact_ts):
        cs = _take(chunk.events, idx)
        if cs and not isinstance(cs[0], dict) and chunk.raw is not None:
            # structs keep only known args; counters name theirs freely: read these events as dicts
            try:
                cs = _take(orjson.loads(b"[" + bytes(chunk.raw) + b"]"), idx)
            except orjson.JSONDecodeError as exc:
                raise TraceFormatError(self.label, f"traceEvents[{chunk.first}:{chunk.first + len(chunk.events)}]",
                                       "valid JSON", str(exc).split(":")[0]) from None
        ts, exact_ts = self._ts(chunk, idx, _get(cs, "ts"), exact_ts)
        rows_ts, src, metric, value = [], [], [], []
        for e, t in zip(cs, ts.tolist()):
            args = e.get("args")
            if not isinstance(args, dict):
                continue
            name = str(e.get("name", "counter"))
            source = e.get("cat") or "trace"
            for k, v in args.items():
                if not _is_number(v):
                    continue
                rows_ts.append(t)
                src.append(str(source))
                metric.append(name if len(args) == 1 else f"{name}.{k}")
                value.append(float(v))
        if rows_ts:
            self.parts["ctr"].append({"ts": np.array(rows_ts, dtype=np.int64), "source": src,
                                      "metric": metric, "value": np.array(value)})
        return exact_ts

    def _metadata(self, ms: list) -> None:
        for e in ms:
            name = _field_of(e, "name")
            if name in ("process_name", "process_labels", "thread_name"):
                args = _field_of(e, "args")
                value = _field_of(args, "name") if args is not None else None
                if value is None and args is not None:
                    value = _field_of(args, "labels")
                self.metadata.append({"kind": name, "pid": _field_of(e, "pid"), "tid": _field_of(e, "tid"),
                                      "value": value})

    # -- all chunks -----------------------------------------------------------------------------
    def table(self, part: str) -> dict:
        pieces = self.parts[part]
        if not pieces:
            return {}
        out = {}
        for k in pieces[0]:
            vals = [p[k] for p in pieces]
            out[k] = np.concatenate(vals) if isinstance(vals[0], np.ndarray) else [x for v in vals for x in v]
        return out
