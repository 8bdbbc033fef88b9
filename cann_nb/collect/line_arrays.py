"""The arrays a line of the user's code reads and writes, sampled for the Python tracer.

numpy's and pandas' work runs inside a line: CPython 3.11 raises no event for a ufunc or an operator,
so the tracer sees only the line's time. What that time was spent on (how many bytes, which dtype,
which memory order, how large the temporaries) is what lets the advisor reason from the work. For the
first ``SAMPLES`` runs of each distinct user line, the tracer's line hook calls ``begin()`` before the
line's start is recorded and ``end()`` after its end, so neither is timed as the line's:

* the names the line loads or stores (from its source), resolved in the frame and described when they hold a
  numpy array or a pandas Series/DataFrame: shape, dtype, bytes, memory order, whether the line indexes
  them (``a[idx]``), and the Python type an object column holds;
* whether its second run read what its first did and made what its first made (``same_work``; the names
  that held the same both times: ``same_inputs``): every name it loads fingerprinted (numbers and strings
  by value, arrays by a strided sample of their values, functions, classes and modules by identity), and
  so is every new object it stores or returns, by content where it has one
  (``call_repeats.result_fingerprint``); a line reading another object by identity (a generator, an
  iterator, a model) is compared only where its results can be (a new array's values);
* whether its second run read an array or frame its first made (``made_by_last_run``: ``df = step(df)``
  in a chain, each step starting with ``df = df.copy()``);
* on the second run, the bytes the line allocates and frees again before it ends (its temporaries),
  from ``tracemalloc``, to which numpy reports its data buffers. tracemalloc is on for that one run of
  that line only (never when the user's code traces memory itself); the span's extra time is the
  profiler's, and the analysis takes it out (analyze/recording_cost.py). tracemalloc sees the whole
  process: another thread allocating during that run adds to the line's figure.

Cost: one dict lookup per traced line; a sampled run some microseconds plus its values' descriptions.
"""

from __future__ import annotations

import sys
import traceback
import tracemalloc
import types
import weakref

import numpy as np
import pandas as pd

from .call_repeats import array_fingerprint, by_identity, data_bytes, fingerprint, result_fingerprint
from .loop_facts import file_loops
from .source_facts import SourceFacts

SAMPLES = 2             # runs of each line described; the second also measures its temporaries
MAX_LINES = 5_000       # distinct lines sampled per run: bounds the meta's size
MAX_COLUMNS = 64        # object columns of a DataFrame whose values are looked at
# temporaries are measured only on lines reading this much: below it they rarely reach the rule's MiB, and
# a tracemalloc session inside a loop of small arrays perturbed its later timing (a spurious growth finding)
TRACE_MIN_BYTES = 64 << 10
REPEAT_MIN_BYTES = 1 << 20   # new arrays checked for repeated rows (smaller ones cost little either way)
DISTINCT_SAMPLE = 20_000   # values of a Series looked at for its share of distinct values
SYMMETRY_MAX_N = 8_192     # matrices checked for symmetry before a general eigensolver (n^2 compared once)
WORK_SAMPLE = 4_096        # values of an array in a line's work fingerprint (a padded image's zeros must not
#                            make two images alike)
# read by identity and unchanging in what they do: a name holding one is the same input on every run
_CODE_TYPES = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, np.ufunc)


class LineArrays:
    """Per-line samples of the arrays a traced line touches (see the module docstring)."""

    def __init__(self):
        self.counts: dict[int, int] = {}      # line key -> runs sampled so far
        self.open: dict[int, tuple] = {}      # id(frame) -> the line sample open there (key, ids, roles, tracing,
        #                                       returns, roots)
        self._lines: dict[int, dict] = {}     # line key -> record
        self._sources: dict[str, SourceFacts] = {}   # filename -> what its source says per line
        self._ours = False                    # tracemalloc started here (stopped at close)
        self._peaks: list[list[int]] = []     # lines measuring temporaries, outermost first
        self.failure: str | None = None       # the sampler's own error, if it had one: sampling then stops

    # -- called by the tracer's hooks: an error of the sampler's own is reported (meta, stderr) and stops
    #    the sampling; raised inside a trace hook it would surface in the user's code instead ----------
    def begin(self, frame, key: int, run: int) -> None:
        if self.failure is None:
            try:
                self._begin(frame, key, run)
                return
            except Exception as exc:
                self._fail("begin", frame, exc)
        self.counts[key] = SAMPLES

    def end(self, frame, returned=None) -> None:
        got = self.open.pop(id(frame), None)
        if got is not None and self.failure is None:
            try:
                self._finish(frame, got, returned)
            except Exception as exc:
                self._fail("end", frame, exc)

    def user_call(self, caller) -> None:
        """A user function is called from ``caller``: the line sampled there, if one is, calls the user's code."""
        got = self.open.get(id(caller))
        if got is not None:
            self._lines[got[0]]["_calls_user"] = True

    def call(self, frame) -> None:
        if self.failure is None:
            try:
                self._call(frame)
            except Exception as exc:
                self._fail("call", frame, exc)

    def _fail(self, where: str, frame, exc: Exception) -> None:
        place = f"{frame.f_code.co_filename}:{frame.f_lineno}"
        tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-3))
        self.failure = f"{where} at {place}: {type(exc).__name__}: {exc}\n{tb}"[:2000]
        self.open.clear()
        print(f"cann_nb: the line sampler failed at {place} ({type(exc).__name__}: {exc}); array samples stop "
              "here, the profile says so in meta collectors.python.line_arrays_error", file=sys.stderr)

    def _begin(self, frame, key: int, run: int) -> None:
        """The line ``key`` of ``frame`` (id of its code + line number << 48, as the tracer's hook computes
        it) starts its ``run``-th sampled run (0-based)."""
        self.counts[key] = run + 1
        if run == 0 and len(self._lines) >= MAX_LINES:
            self.counts[key] = SAMPLES
            return
        code, lineno = frame.f_code, frame.f_lineno
        facts = self._source(code.co_filename).line(lineno)
        roles, indexed = facts.names, facts.indexed
        rec = self._lines.get(key)
        if rec is None:
            rec = self._lines[key] = {"file_line": f"{code.co_filename}:{lineno}", "runs": 0, "operands": {}}
        rec["runs"] += 1
        if facts.work:
            rec["work"] = facts.work
        if facts.contractions:
            rec["contractions"] = facts.contractions
        ids = {}
        roots = set()   # the arrays the line's inputs are views of (or are)
        for name, role in roles.items():
            value = _resolve(frame, name)
            d = _described(rec, value)
            if d is None:
                continue
            if "in" in role and isinstance(value, pd.DataFrame):
                self._columns(rec, name, value, facts.columns.get(name, ()), run)
            ids[name] = id(value)
            if "in" in role and isinstance(value, np.ndarray):
                roots.add(id(_root(value)))
            if "in" in role:
                d["role"] = "in"
                # "rows" (a[i], a[idx, :]), "columns" (a[:, j]), "mask" (a[a["k"] == v]) or None
                d["indexed"] = indexed.get(name)
                if name in facts.stored:
                    d["stored"] = True   # its items assigned (a[i, j] = v)
                if name in facts.selected:
                    d["selected"] = True   # a few of its elements selected (d.argmin(1), a[mask], df.loc[idx])
                if name in facts.iterated:
                    d["iterated_by"] = facts.iterated[name]   # a built-in walks it element by element (sum(a))
                if name in facts.compared:
                    d["compared"] = True   # compared against something else: a mask of it made (ids == key)
                first = rec["operands"].setdefault(name, d)
                if run == 0:
                    rec.setdefault("_first_ids", {})[name] = id(value)
                elif name in rec.get("_first_ids", {}):   # the same object on every run: read again each time
                    first["same_object"] = rec["_first_ids"][name] == id(value)
                if run == 1 and any(r() is value for r in rec.get("_made", ())):
                    first["made_by_last_run"] = True   # df = f(df) again and again: this run reads the last's
        work_in = _work_inputs(frame, roles) if run < 2 else None   # (None: not comparable)
        if run == 0:
            for c in facts.contractions:
                if c["kind"] == "eig":
                    self._symmetric(rec, _resolve(frame, c["operands"][0].removesuffix(".T")), c["operands"][0])
        read = sum(d["nbytes"] for d in rec["operands"].values() if d["role"] == "in")
        # not a line whose first run called the user's functions: their lines are sampled themselves, and
        # tracemalloc over a whole callee's run slowed an allocating line inside it sevenfold (q10's loop)
        tracing = run == 1 and read >= TRACE_MIN_BYTES and not rec.get("_calls_user") and self._trace_memory()
        if tracing:
            rec["traced_run"] = rec["runs"] - 1   # which of the line's spans, in start order
        self.open[id(frame)] = (key, ids, roles, tracing, facts.returns, roots, work_in)

    def _columns(self, rec: dict, name: str, frame_: pd.DataFrame, labels, run: int) -> None:
        """The columns a line names by label (``df["city"]``), described as operands of their own on the
        line's first run (``df["city"]``)."""
        if run:
            return
        for label in labels:
            try:
                col = frame_[label] if label in frame_.columns else None
            except Exception:
                col = None   # an odd columns index: the label is left undescribed
            d = _described(rec, col) if isinstance(col, pd.Series) else None
            if d is not None:
                d["role"], d["indexed"] = "in", "columns"
                rec["operands"].setdefault(f'{name}["{label}"]', d)

    @staticmethod
    def _symmetric(rec: dict, value, token: str) -> None:
        """Whether the matrix a general eigensolver gets is symmetric (an O(n^2) comparison, once)."""
        d = rec["operands"].get(token.removesuffix(".T"))
        if d is None or not isinstance(value, np.ndarray) or value.ndim != 2 or value.shape[0] != value.shape[1] \
                or value.shape[0] > SYMMETRY_MAX_N or value.dtype.kind not in "fc":
            return
        try:
            d["symmetric"] = bool(np.allclose(value, value.T.conj(), rtol=1e-10, atol=0.0))
        except Exception as exc:   # a subclass whose comparison raises: reported, never raised in the hook
            rec.setdefault("errors", []).append(f"symmetry: {type(exc).__name__}: {exc}"[:300])

    def _trace_memory(self) -> bool:
        """Start measuring a line's temporaries; False when the user's code traces memory itself. A line
        sampled inside another (a function called from a sampled line) gets its own peak: tracemalloc's is
        reset, and the outer line keeps the larger of the two."""
        if not tracemalloc.is_tracing():
            tracemalloc.start(1)
            self._ours = True
            self._peaks.append([0, 0])
            return True
        if not self._ours:
            return False
        current, peak = tracemalloc.get_traced_memory()
        self._peaks[-1][1] = max(self._peaks[-1][1], peak)
        tracemalloc.reset_peak()
        self._peaks.append([current, 0])    # [traced bytes at the start, peak seen before a reset]
        return True

    def _call(self, frame) -> None:
        """A user function's first call: its arguments are described, under the file_line of its call
        spans (scope "call"). This works once the line budget is spent too, when no line is traced; later
        calls cost nothing here (this runs where the tracer first meets the function's code)."""
        code = frame.f_code
        if len(self._lines) >= MAX_LINES:
            return
        rec = {"file_line": f"{code.co_filename}:{code.co_firstlineno}", "scope": "call", "runs": 1, "operands": {}}
        self._lines[~id(code)] = rec
        loc = frame.f_locals
        for name in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]:
            d = _described(rec, loc.get(name))
            if d is not None:
                d["role"] = "in"
                d["indexed"] = None
                rec["operands"].setdefault(name, d)

    def _finish(self, frame, got, returned=None) -> None:
        """The sampled line open in ``frame`` has ended (its end already recorded); ``returned``: the value
        the frame returns when the line ended by returning."""
        key, ids, roles, tracing, returns, roots, work_in = got
        rec = self._lines[key]
        made = []   # the new objects the line stores or returns
        if tracing and self._peaks:
            current, peak = tracemalloc.get_traced_memory()
            at_start, seen = self._peaks.pop()
            peak = max(peak, seen)
            # allocated and freed again within the line (a free of older memory lowers ``current``)
            rec["temporaries_bytes"] = int(max(peak - max(at_start, current), 0))
            rec["kept_bytes"] = int(max(current - at_start, 0))
            if self._peaks:
                self._peaks[-1][1] = max(self._peaks[-1][1], peak)
            else:
                tracemalloc.stop()
                self._ours = False
        for name, role in roles.items():
            if "out" not in role:
                continue
            value = _resolve(frame, name)
            if ids.get(name) == id(value):
                continue   # the same object as before the line (updated in place, or untouched)
            made.append(value)
            d = _described(rec, value)
            if d is not None:
                d["role"] = "out"
                d["indexed"] = None
                _view_of_new(d, value, roots)
                repeated = _repeated(value)
                if repeated:
                    d["repeats"] = repeated
                rec["operands"].setdefault(name + " (new)", d)
        if returns and returned is not None:   # ``return expr``: the line's result has no name
            made.append(returned)
            d = _described(rec, returned)
            if d is not None:
                d["role"] = "out"
                d["indexed"] = None
                _view_of_new(d, returned, roots)
                rec["operands"].setdefault("(returned)", d)
        if rec["runs"] == 1:   # what the first run made, to tell whether the second reads it
            rec["_made"] = [weakref.ref(v) for v in made if isinstance(v, (np.ndarray, pd.DataFrame, pd.Series))]
        self._same_work(rec, work_in, made)

    @staticmethod
    def _same_work(rec: dict, work_in, made: list) -> None:
        """Compare the line's second sampled run with its first: the same inputs and the same new results
        (an input handed back, ``return x``, is no result)."""
        out = None
        if work_in is not None:
            made = [v for v in made if id(v) not in work_in[3]]
            try:
                out = tuple("(object)" if by_identity(f) else f for f in map(result_fingerprint, made))
            except Exception as exc:   # a user object whose attributes raised: the line is left uncompared
                rec.setdefault("errors", []).append(f"work fingerprint: {type(exc).__name__}: {exc}"[:300])
        if out is None:
            rec["_work"] = None   # this run could not be looked at: the line is not compared
            return
        if "_work" not in rec:
            rec["_work"] = (work_in, out)
            return
        first = rec.pop("_work")
        if first is None or not out:
            return
        (fp_in, opaque_in, nbytes, _), out0 = first
        # a new object known only by identity (a KD-tree, a solver's factors) is taken for the same result
        # only where every input is known by content: then nothing else could make it differ
        rec["same_work"] = bool(fp_in == work_in[0] and out == out0 and not (opaque_in and "(object)" in out))
        # the inputs that were the same on both runs (a solver's matrix beside a new right-hand side)
        again = dict(work_in[0])
        rec["same_inputs"] = sorted(n for n, f in fp_in if n in again and again[n] == f)
        rec["work_input_bytes"] = int(max(nbytes, work_in[2]))
        # new data made (an array, a frame): a line making other data each run is where new inputs come in
        rec["work_makes_data"] = any(data_bytes(v) > 0 for v in made)

    def close(self) -> None:
        if self._ours:
            tracemalloc.stop()
            self._ours = False
        self._peaks.clear()
        self.open.clear()

    # -- after the run ----------------------------------------------------------------------------
    def meta(self) -> list[dict]:
        """One record per sampled line (or function: scope "call", its arguments) that touched an array:
        {file_line, runs, operands: [...],
        temporaries_bytes?, kept_bytes?, traced_run?} (traced_run: the index, in start order, of the line's
        span that ran under tracemalloc)."""
        out = []
        for rec in self._lines.values():
            if not rec["operands"] and not rec.get("errors"):
                continue
            r = {k: v for k, v in rec.items() if not k.startswith("_")}
            r["operands"] = [dict(name=k, **v) for k, v in rec["operands"].items()]
            out.append(r)
        return out

    def loops(self) -> list[dict]:
        """The loops carrying sequential state in the files whose lines were sampled (collect/loop_facts.py)."""
        out = []
        for filename in self._sources:
            try:
                out += file_loops(filename)
            except Exception as exc:   # the profile keeps everything else; the error is said, not raised
                self.failure = self.failure or f"loops of {filename}: {type(exc).__name__}: {exc}"[:2000]
                print(f"cann_nb: reading the loops of {filename} failed ({type(exc).__name__}: {exc}); "
                      "the profile says so in meta collectors.python.line_arrays_error", file=sys.stderr)
        return out

    def _source(self, filename: str) -> "SourceFacts":
        got = self._sources.get(filename)
        if got is None:
            got = self._sources[filename] = SourceFacts(filename)
        return got


def _described(rec: dict, value) -> dict | None:
    """``describe(value)``; an error from the user's object (a subclass whose attribute raises) is kept
    in the line's record, never raised: an exception in a trace hook would stop the user's code."""
    try:
        return describe(value)
    except Exception as exc:
        errors = rec.setdefault("errors", [])
        if len(errors) < 5:
            errors.append(f"{type(value).__name__}: {type(exc).__name__}: {exc}"[:300])
        return None


def _root(a: np.ndarray) -> np.ndarray:
    """The array ``a`` is a view of (through views of views), or ``a`` itself."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _view_of_new(d: dict, value, roots: set) -> None:
    """A line's result that is a view of an array the line made (not one it read): the size of that array
    (``base_nbytes``, ``base_shape``): the line computed it whole and keeps a slice of it."""
    if not isinstance(value, np.ndarray) or not isinstance(value.base, np.ndarray):
        return
    root = _root(value)
    if id(root) not in roots:
        d["base_nbytes"] = int(root.nbytes)
        d["base_shape"] = [int(x) for x in root.shape]


def _resolve(frame, name: str):
    loc = frame.f_locals
    if name in loc:
        return loc[name]
    return frame.f_globals.get(name)


def blas_ready(a: np.ndarray) -> bool:
    """Whether numpy's matmul can hand the matrix (the last two axes) to BLAS as it is: one of its axes
    has unit stride and the other a whole multiple of the item size no shorter than a row (numpy's
    ``is_blasable2d``, _core/src/umath/matmul.c.src). ``X[:, ::2]`` has neither, and matmul then runs
    numpy's own strided loop instead of BLAS."""
    item = a.itemsize
    (r, c), (s0, s1) = a.shape[-2:], a.strides[-2:]

    def blasable(lead: int, unit: int, inner: int) -> bool:
        return unit == item and lead % item == 0 and lead // item >= inner

    return r <= 1 or c <= 1 or blasable(s0, s1, c) or blasable(s1, s0, r)


def describe(value) -> dict | None:
    """Shape, dtype, bytes and memory order of a numpy array, pandas object or scipy sparse matrix (its
    format as the order, its stored values); None for anything else."""
    if isinstance(value, np.ndarray):
        flags = value.flags
        d = {"kind": "ndarray", "shape": [int(s) for s in value.shape], "dtype": value.dtype.name,
             "nbytes": int(value.nbytes),
             "order": "C" if flags.c_contiguous else ("F" if flags.f_contiguous else "strided")}
        if value.dtype == object and value.size:
            d["holds"] = type(value.flat[0]).__name__
        if d["order"] == "strided" and value.ndim >= 2 and value.dtype.kind in "fc":
            d["blas_ready"] = blas_ready(value)
        return d
    if isinstance(value, pd.Series):
        d = {"kind": "Series", "shape": [len(value)], "dtype": str(value.dtype), "nbytes": int(value.nbytes),
             "order": "C"}
        if value.dtype == object and len(value):
            d["holds"] = type(value.iloc[0]).__name__
        if len(value) and not isinstance(value.dtype, pd.CategoricalDtype):
            d["distinct"] = _distinct_share(value)
        return d
    if type(value).__module__.startswith("scipy.sparse") and hasattr(value, "nnz") and hasattr(value, "format"):
        parts = [getattr(value, a, None) for a in ("data", "indices", "indptr", "row", "col", "offsets")]
        return {"kind": "sparse", "shape": [int(s) for s in value.shape], "dtype": str(value.dtype),
                "nbytes": int(sum(p.nbytes for p in parts if isinstance(p, np.ndarray))), "order": str(value.format),
                "nnz": int(value.nnz)}
    if isinstance(value, pd.DataFrame):
        dtypes = value.dtypes
        counts = dtypes.astype(str).value_counts()
        d = {"kind": "DataFrame", "shape": [int(s) for s in value.shape],
             "dtype": ", ".join(f"{k} x{v}" for k, v in counts.items()),
             "nbytes": int(value.memory_usage(index=False, deep=False).sum()), "order": "columns"}
        obj = np.flatnonzero((dtypes == object).to_numpy())[:MAX_COLUMNS]
        if len(obj) and len(value):
            held = [type(value.iat[0, int(j)]).__name__ for j in obj]
            d["holds"] = ", ".join(f"{k} x{held.count(k)}" for k in sorted(set(held)))
            d["object_columns"] = int(len(obj))
        return d
    return None


def _distinct_share(s: pd.Series) -> float:
    """Distinct values over values, in an evenly strided sample of at most DISTINCT_SAMPLE (a column of a
    few repeated values has a small share; the sample's share is an upper bound for such a column's)."""
    step = max(1, len(s) // DISTINCT_SAMPLE)
    sample = s.iloc[::step]
    try:
        return round(float(sample.nunique(dropna=False)) / len(sample), 6)
    except TypeError:   # unhashable values (lists, dicts): no share
        return 1.0


def _repeated(value) -> str | None:
    """"rows" or "columns" when a new 2-D array of MiB is one row (column) repeated: a broadcast
    materialised (np.tile, np.repeat); checked on the first, middle and last row (column)."""
    if not isinstance(value, np.ndarray) or value.ndim != 2 or value.nbytes < REPEAT_MIN_BYTES \
            or value.dtype == object:
        return None
    n, m = value.shape
    # a constant array (np.zeros, np.full) repeats trivially: only a varying row (column) counts
    row, col = value[0], value[:, 0]
    if n > 2 and m > 1 and not np.all(row == row[0]) \
            and all(np.array_equal(row, value[i]) for i in (n // 2, n - 1)):
        return "rows"
    if m > 2 and n > 1 and not np.all(col == col[0]) \
            and all(np.array_equal(col, value[:, j]) for j in (m // 2, m - 1)):
        return "columns"
    return None


def _work_inputs(frame, roles: dict) -> tuple | None:
    """(fingerprints of the names the line loads, whether one is an object known only by identity, bytes of
    data among them, their ids) for the line's work fingerprint; None when a value could not be looked at."""
    fps, opaque, nbytes, ids = [], False, 0, set()
    try:
        for name, role in sorted(roles.items()):
            if "in" not in role:
                continue
            v = _resolve(frame, name)
            f = array_fingerprint(v, WORK_SAMPLE) if isinstance(v, np.ndarray) and v.dtype != object else fingerprint(v)
            if by_identity(f) and not isinstance(v, _CODE_TYPES):
                opaque = True
            fps.append((name, f))
            nbytes += data_bytes(v)
            ids.add(id(v))
    except Exception:   # a user object that raised when looked at: this run is not compared
        return None
    return tuple(fps), opaque, nbytes, ids

