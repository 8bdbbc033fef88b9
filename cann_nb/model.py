"""The Profile: DESIGN.md's three tables plus a meta dict, with fixed dtypes and validation.

Conventions (see docs/architecture.md):
- times are int64 nanoseconds relative to ``meta["t0_ns"]`` (an epoch-ns instant, or 0 when unknown);
- ``parent`` and ``corr`` use -1 for "none" (they are identifiers, not measurements);
- optional measurements (flops, bytes, allocated/reserved bytes) are float64 and NaN when unknown;
- text columns are pandas categoricals; a missing string is NaN, never "".
Tables may carry extra, source-specific columns (Ascend ``core_type``, ``block_dim``, PMU ratios,
Kineto ``stream``...); they are kept and written to disk but are not part of the contract.
"""

from __future__ import annotations

import copy
import datetime as _dt
from typing import Any, Mapping

import numpy as np
import pandas as pd

from .errors import ProfileValidationError

EVENT_CATS = ("op", "kernel", "memcpy", "memset", "runtime", "comm", "python", "annotation", "step")

# column -> dtype; order is the on-disk order.
EVENT_COLUMNS: dict[str, str] = {
    "id": "int64",
    "name": "category",
    "cat": "category",
    "track": "category",
    "device": "category",
    "start_ns": "int64",
    "dur_ns": "int64",
    "parent": "int64",
    "depth": "int32",
    "corr": "int64",
    "shapes": "category",
    "dtypes": "category",
    "flops": "float64",
    "bytes": "float64",
    "module": "category",
}
MEMORY_COLUMNS: dict[str, str] = {
    "ts_ns": "int64",
    "device": "category",
    "delta_bytes": "float64",
    "allocated_bytes": "float64",
    "reserved_bytes": "float64",
    "event_id": "int64",
}
COUNTER_COLUMNS: dict[str, str] = {
    "ts_ns": "int64",
    "source": "category",
    "metric": "category",
    "value": "float64",
}
TABLES = {"events": EVENT_COLUMNS, "memory": MEMORY_COLUMNS, "counters": COUNTER_COLUMNS}

# The optional events columns of value numbering (collect/torch_values.py): ``value_sig`` (int64, 0 none),
# the signature of an outermost op's call, equal for calls on equal values; ``value_kind`` (int8), what the
# call's inputs were: none known, computed from literals alone (a mask, a position table), data, or data
# that just entered (a random draw, Python data, a row of a tensor, a tensor's first use); ``value_known``
# (bool), whether every input's value was recorded (a Python number or Python data is not: equal
# signatures still mean equal values, unequal ones then do not prove different values); ``value_operand``
# (int64, 0 none), equal for calls of one op on equal values of its first tensor argument, whatever the
# others (``ids == k`` for many keys k).
VALUE_UNKNOWN, VALUE_CONSTANT, VALUE_DATA, VALUE_NEW = 0, 1, 2, 3

# What a missing column is filled with: identifiers get -1, measurements NaN, text NaN.
_DEFAULTS = {"int64": -1, "int32": 0, "float64": np.nan, "category": None}
# Columns every producer must supply (the rest default as above).
REQUIRED = {
    "events": ("name", "cat", "start_ns", "dur_ns"),
    "memory": ("ts_ns",),
    "counters": ("ts_ns", "metric", "value"),
}


_EMPTY_TABLES: dict[str, pd.DataFrame] = {}


def categorical(values, n: int | None = None) -> pd.Categorical:
    """A categorical of plain strings with object categories; None/NaN are missing. ``values`` is a
    sequence, or one value repeated ``n`` times.

    Built by factorizing an object array: ``pd.Categorical(list)`` lets pandas 3 infer its
    pyarrow-backed ``str`` dtype first, which costs 3-10x more on the small tables every profile has
    (the host counters, a window's annotations, default columns)."""
    if n is not None:
        missing = values is None or (isinstance(values, float) and values != values)
        cats = [] if missing else [str(values)]
        return pd.Categorical.from_codes(np.full(n, -1 if missing else 0, dtype=np.int8),
                                         dtype=pd.CategoricalDtype(pd.Index(cats, dtype=object)), validate=False)
    arr = values if isinstance(values, np.ndarray) and values.dtype == object else np.asarray(values, dtype=object)
    if arr.ndim != 1:
        arr = np.fromiter(values, dtype=object, count=len(values))
    try:
        codes, uniq = pd.factorize(arr, sort=True, use_na_sentinel=True)
    except TypeError:      # unhashable or unorderable values: the slow general path below
        uniq = None
    if uniq is None or (len(uniq) and not all(type(u) is str for u in uniq)):
        return _object_categories(pd.Categorical(np.where(pd.isna(arr), None, arr.astype(str))))
    return pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(pd.Index(uniq, dtype=object)), validate=False)


def _empty_column(dtype: str, n: int):
    if dtype == "category":
        return categorical(None, n)
    return np.full(n, _DEFAULTS[dtype], dtype=dtype)


def conform(table: str, data: pd.DataFrame | Mapping[str, Any] | None) -> pd.DataFrame:
    """Return ``data`` as a DataFrame with every contract column of ``table`` in its dtype.

    Missing optional columns are filled (ids -1, measurements NaN); extra columns are kept after the
    contract ones. Missing required columns raise ProfileValidationError. Vectorised: no per-row work.
    """
    spec = TABLES[table]
    if data is None:   # every profile has empty tables (no memory, no counters...): built once, copied
        if table not in _EMPTY_TABLES:
            _EMPTY_TABLES[table] = conform(table, {})
        return _EMPTY_TABLES[table].copy()
    df = data if isinstance(data, pd.DataFrame) else pd.DataFrame(dict(data))
    if _already_conformed(df, spec):
        return df
    n = len(df)
    if n and (missing := [c for c in REQUIRED[table] if c not in df.columns]):
        raise ProfileValidationError(f"{table} table lacks required column(s) {missing}")
    cols: dict[str, Any] = {}
    for col, dtype in spec.items():
        if col in df.columns:
            cols[col] = _as_dtype(df[col], dtype, table, col)
        elif table == "events" and col == "id":
            cols[col] = np.arange(n, dtype="int64")
        elif table == "events" and col == "track":
            cols[col] = categorical("main", n)
        elif table == "events" and col == "device":
            cols[col] = categorical("cpu", n)
        else:
            cols[col] = _empty_column(dtype, n)
    for col in df.columns:   # extra columns after the contract ones, in one frame construction
        if col not in spec:
            cols[col] = df[col].to_numpy() if not isinstance(df[col].dtype, pd.CategoricalDtype) \
                else _object_categories(df[col].array)
    return pd.DataFrame(cols, index=pd.RangeIndex(n))


def _already_conformed(df: pd.DataFrame, spec: dict) -> bool:
    """True when ``df`` is exactly what conform() would return (checked per column, not per row; the
    dtypes are read once, as ``df[col]`` per column costs more than the rest of a small profile's check)."""
    if list(df.columns[: len(spec)]) != list(spec) or not isinstance(df.index, pd.RangeIndex) \
            or df.index.start != 0 or df.index.step != 1:
        return False
    dtypes = df.dtypes.tolist()
    for d, dtype in zip(dtypes, spec.values()):
        if str(d) != dtype:
            return False
    # categoricals (contract and extra columns alike) must have plain-string object categories
    for d in dtypes:
        if isinstance(d, pd.CategoricalDtype):
            cats = d.categories
            if cats.dtype != object or (len(cats) and not isinstance(cats[0], str)):
                return False
    return True


def _as_dtype(series, dtype: str, table: str, col: str):
    s = series if isinstance(series, pd.Series) else pd.Series(series)
    try:
        if dtype == "category":
            if not isinstance(s.dtype, pd.CategoricalDtype):
                return categorical(s.to_numpy(dtype=object))
            return _object_categories(s.array)
        if dtype.startswith("int"):
            if s.isna().any():
                raise ProfileValidationError(f"{table}.{col} has missing values; it must be {dtype}")
            return s.to_numpy().astype(dtype, copy=False)
        return s.to_numpy(dtype="float64")
    except ProfileValidationError:
        raise
    except (TypeError, ValueError) as exc:
        raise ProfileValidationError(f"{table}.{col} cannot be read as {dtype}: {exc}") from exc


def _object_categories(cat: pd.Categorical) -> pd.Categorical:
    """Categories as plain Python strings in an object index, whatever produced them (pandas 3 infers
    a ``str`` dtype, pyarrow may give others), so that tables from different sources concatenate."""
    cats = cat.categories
    if cats.dtype == object and (not len(cats) or isinstance(cats[0], str)):
        return cat
    return pd.Categorical.from_codes(cat.codes, categories=pd.Index([str(c) for c in cats], dtype=object))


def _union(parts: list) -> pd.Categorical:
    """Categoricals (object categories) end to end, categories in order of first appearance: the
    codes are remapped with one lookup table per part (pandas' union_categoricals validates and
    re-hashes far more, and concat runs on every profile's tables)."""
    index: dict = {}
    codes = []
    for cat in parts:
        lut = np.array([index.setdefault(v, len(index)) for v in cat.categories] + [-1], dtype=np.int64)
        codes.append(lut[cat.codes])
    return pd.Categorical.from_codes(np.concatenate(codes), validate=False,
                                     dtype=pd.CategoricalDtype(pd.Index(list(index), dtype=object)))


def counter_kind(metric: str) -> str:
    """A counter's unit, from its name (the counters table has none): "time" (ns: ``latency_*``,
    ``*_ns``), "size" (bytes: ``rss``, ``gpu_mem_used``, ``*bytes*``), "percent" (``*util*``) or "number"."""
    m = str(metric).lower()
    if m.startswith("latency") or m.endswith("_ns"):
        return "time"
    if m in ("rss", "gpu_mem_used") or "bytes" in m:
        return "size"
    if "util" in m:
        return "percent"
    return "number"


def new_meta(name: str = "", **fields) -> dict:
    meta = {
        "name": name,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "source": {},
        "status": "ok",
        "t0_ns": 0,
        "wall_ns": None,
        "environment": {},
        "devices": [],
        "collectors": {},
        "options": {},
        "dropped": {},
    }
    meta.update(fields)
    return meta


def left_out(meta: dict) -> tuple[dict, dict]:
    """(dropped, skipped) events of a profile, each {kind: n}: ``dropped`` were lost at a collector's
    buffer bound (a full buffer); ``skipped`` an importer left out on purpose (python_function frames
    without python_functions=True, HCCL sub-tasks an operator span covers...). Imports stored before
    the two were told apart kept both under "dropped": there it reads as skipped."""
    def counts(value) -> dict:
        return {str(k): v for k, v in (value or {}).items() if isinstance(v, (int, float)) and v} \
            if isinstance(value, dict) else {}

    dropped, skipped = counts(meta.get("dropped")), counts(meta.get("skipped"))
    if "skipped" not in meta and (meta.get("source") or {}).get("kind") == "import":
        dropped, skipped = {}, dropped
    return dropped, skipped


def budget_note(meta: dict) -> str | None:
    """One line for every view when the collection's memory budget (``meta["budget"]``, see
    collect/budget.py) cut the recording short: from when, what, and how to rerun; None otherwise."""
    from . import formatting as F

    b = meta.get("budget")
    if not isinstance(b, dict) or not b.get("reached"):
        return None
    window = meta.get("window_ns") or [0, None]
    gone = b.get("not_recorded") or {}
    when = gone.get("from_ns", b.get("reached_ns"))
    head = (f"ops after {F.ns(max(int(when) - int(window[0] or 0), 0))} not recorded" if isinstance(when, (int, float))
            else f"{int(b.get('cut_at_conversion') or 0):,} recorded events not kept")
    what = ""
    if isinstance(when, (int, float)) and window[1]:
        left = max(int(window[1]) - int(when), 0)
        span = max(int(window[1]) - int(window[0] or 0), 1)
        what = f"the last {F.ns(left)}, {100 * left / span:.0f}% of the run"
    limit = int(b.get("max_memory") or 0)
    bigger = max(2 * limit, 2 ** 30)
    suggest = f"--max-memory {-(-bigger // 2 ** 30)}GiB" + (f" or --max-events {2 * int(b['max_events']):,}".replace(",", "")
                                                             if b.get("max_events") else "")
    return (f"{head}{f' ({what})' if what else ''}: memory budget {F.nbytes(limit)} reached "
            f"({b.get('source') or 'budget'}); rerun with {suggest} (Profiler(max_memory=...)) or fewer steps")


# -- how profiles and comparisons show themselves -----------------------------------------------------
# The data and analysis layers never import a view. The view layer registers its renderers here by
# kind ("profile.bundle", "profile.text", "profile.show", "profile.report", "comparison.bundle",
# "comparison.text"); cann_nb/__init__.py wires widgets/ and report/ in, imported on first use.
_RENDERERS: dict[str, Any] = {}


def register_renderer(kind: str, fn) -> None:
    """Make ``fn(obj, *args, **kwargs)`` the renderer of ``kind`` (the view layer calls this)."""
    _RENDERERS[kind] = fn


def render(kind: str, obj, *args, **kwargs):
    """Render ``obj`` with the renderer registered for ``kind``."""
    fn = _RENDERERS.get(kind)
    if fn is None:
        raise LookupError(f"no renderer for {kind!r} is registered (cann_nb/__init__.py registers the views)")
    return fn(obj, *args, **kwargs)


class Profile:
    """One run of a cell, a script, or one imported trace.

    ``events``, ``memory`` and ``counters`` are DataFrames in DESIGN.md's schema; ``meta`` is a
    JSON-serialisable dict. Construction conforms dtypes; ``validate()`` checks the invariants.
    """

    def __init__(self, events=None, memory=None, counters=None, meta: dict | None = None):
        self.events = conform("events", events)
        self.memory = conform("memory", memory)
        self.counters = conform("counters", counters)
        self.meta = new_meta(**(meta or {}))

    # -- identity ---------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.meta.get("name") or ""

    @property
    def status(self) -> str:
        return self.meta.get("status", "ok")

    @property
    def wall_ns(self) -> int:
        """End-to-end time: the measured wall time if recorded, else the events' extent."""
        wall = self.meta.get("wall_ns")
        if wall is not None:
            return int(wall)
        ev = self.events
        if not len(ev):
            return 0
        return int((ev["start_ns"] + ev["dur_ns"]).max() - ev["start_ns"].min())

    def copy(self) -> "Profile":
        return Profile(self.events.copy(), self.memory.copy(), self.counters.copy(), copy.deepcopy(self.meta))

    def __len__(self) -> int:
        return len(self.events)

    # -- checks -----------------------------------------------------------------------------
    def validate(self) -> "Profile":
        """Raise ProfileValidationError if a table breaks the contract; return self otherwise."""
        problems: list[str] = []
        for table, spec in TABLES.items():
            df = getattr(self, table)
            for col, dtype in spec.items():
                if col not in df.columns:
                    problems.append(f"{table}.{col} is missing")
                elif str(df[col].dtype) != dtype:
                    problems.append(f"{table}.{col} is {df[col].dtype}, expected {dtype}")
        if problems:
            raise ProfileValidationError("; ".join(problems))
        ev = self.events
        if len(ev):
            if (ev["dur_ns"].to_numpy() < 0).any():
                problems.append(f"events.dur_ns has {(ev['dur_ns'] < 0).sum()} negative durations")
            if not ev["id"].is_unique:
                problems.append("events.id is not unique")
            parents = ev["parent"].to_numpy()
            has_parent = parents >= 0
            if has_parent.any() and not np.isin(parents[has_parent], ev["id"].to_numpy()).all():
                problems.append("events.parent refers to ids that do not exist")
            unknown = set(ev["cat"].cat.categories) - set(EVENT_CATS)
            if unknown:
                problems.append(f"events.cat has values outside the vocabulary: {sorted(unknown)}")
            if ev["name"].isna().any():
                problems.append("events.name has missing values")
        if not isinstance(self.meta.get("t0_ns", 0), (int, np.integer)):
            problems.append("meta.t0_ns must be an integer (epoch ns or 0)")
        if problems:
            raise ProfileValidationError(f"profile {self.name!r}: " + "; ".join(problems))
        return self

    # -- analysis (the work lives in analyze/) --------------------------------------------------
    def hotspots(self, by: str = "name", **kwargs) -> pd.DataFrame:
        from .analyze.hotspots import hotspots

        return hotspots(self.events, by=by, **kwargs)

    def findings(self) -> pd.DataFrame:
        """The advisor's findings as a DataFrame, largest estimated gain first."""
        from .analyze.api import findings
        from .analyze.finding import findings_frame

        return findings_frame(findings(self))

    def analyze(self) -> dict:
        """DESIGN.md's ``analyze --json`` object: meta, summary, hotspots, findings."""
        from .analyze.api import analyze

        return analyze(self)

    def compare(self, other, **kwargs):
        """Before/after comparison with ``other`` (this profile is the base, ``other`` the new one)."""
        from .analyze.comparison import compare

        return compare(self, other, **kwargs)

    def to_chrome_trace(self, path) -> None:
        """Write a Chrome-trace JSON (.json or .json.gz) that Perfetto UI and chrome://tracing open."""
        from .ingest.chrome_export import write_chrome_trace

        write_chrome_trace(self, path)

    # -- views (renderers registered by the view layer, see register_renderer) ----------------
    def show(self) -> None:
        """The tabbed interactive view (Overview, Timeline, Hotspots, Suggestions, Memory)."""
        render("profile.show", self)

    def to_html(self, path, **kwargs):
        """Write a self-contained HTML report that opens offline (see cann_nb.report.write_report)."""
        return render("profile.report", self, path, **kwargs)

    def summary_text(self) -> str:
        return render("profile.text", self)

    def _repr_mimebundle_(self, include=None, exclude=None):
        """The interactive view with its text/plain and static text/html fallbacks (a cell's last value)."""
        return render("profile.bundle", self)

    def __repr__(self) -> str:
        return (f"<Profile {self.name!r} status={self.status} events={len(self.events)} "
                f"wall={self.wall_ns / 1e6:.3f} ms>")


# what a frame without an extra column holds in it when frames are concatenated: Kineto's ids -1, the value
# numbering's "no signature" 0 (a NaN would turn these int64 columns to float64 and round the signatures);
# any other extra column NaN (the Python tracer's integer columns read NaN as "not recorded")
_ABSENT = {"value_sig": 0, "value_kind": VALUE_UNKNOWN, "value_known": False, "value_operand": 0, "stream": -1,
           "external_id": -1}


def _absent(col: str, dtype, n: int) -> np.ndarray:
    if col in _ABSENT and isinstance(dtype, np.dtype):
        return np.full(n, _ABSENT[col], dtype=dtype)
    return np.full(n, np.nan)


def concat(table: str, frames: list) -> pd.DataFrame:
    """Concatenate conformed tables, unifying categoricals (plain pd.concat would turn them to object)."""
    frames = [conform(table, f) for f in frames if f is not None and len(f)]
    if not frames:
        return conform(table, None)
    if len(frames) == 1:
        return frames[0]
    columns = list(dict.fromkeys(c for f in frames for c in f.columns))
    out = {}
    for col in columns:
        like = next(f[col] for f in frames if col in f.columns)
        parts = [f[col] if col in f.columns else pd.Series(_absent(col, like.dtype, len(f))) for f in frames]
        if any(isinstance(p.dtype, pd.CategoricalDtype) for p in parts):
            out[col] = _union([_as_dtype(p, "category", table, col) for p in parts])
        else:
            out[col] = np.concatenate([p.to_numpy() for p in parts])
    return conform(table, pd.DataFrame(out))
