"""Python tracer: function spans for cells without torch (numpy, pure Python), from ``sys.setprofile``.

What it records, for the thread that calls ``start()`` only:

* every Python function call and every C function call that CPython reports (``c_call``: builtins,
  methods of C types such as ``ndarray.sum``, ``ufunc.reduce``, ``list.append``; Cython functions
  raise no such event);
* the lines of the user's own code (the cell, and modules outside the standard library and
  site-packages), through a per-frame ``f_trace``. CPython 3.11 raises no event when it calls a
  ufunc (``np.exp``), an operator (``a @ b``) or a C function behind numpy's ``__array_function__``
  dispatch (``np.dot`` shows only its Python dispatcher): that time would otherwise be anonymous self
  time of the cell. Line spans put it on the line that spent it. ``sys.settrace`` is installed as the
  builtin ``getattr`` (a C callable that returns None), so frames that are not line-traced pay no
  Python-level callback. Line tracing stops after ``LINE_BUDGET`` lines, and for one function after
  ``CODE_LINE_BUDGET`` of its lines, which bounds its cost on a tight pure-Python loop and leaves lines for
  the code that runs after a long one; meta says when either happened.

The line hook also samples the arrays each user line reads and writes on its first two runs, and a user
function's arguments at its first call (collect/line_arrays.py; meta ``line_arrays``), between spans so
that no line is timed with it.

The hooks append one int32 identity code and one int64 ``perf_counter_ns`` per call/return into
``array`` buffers; everything else (pairing, filtering, naming, nesting) is vectorised in ``result()``.
The buffer holds 2 x ``options.buffer_events`` records (a call and its return each); when it fills,
later calls are counted as dropped while the returns of spans already open are still recorded, so the
profile stays well nested (at most buffer_events spans, plus half the call depth at that moment).

Measured overhead (CPython 3.11, numpy 2.4, shared 2-core Xeon VM; the cell run by exec as the
session does, best of 3, whole run including start/stop; result() is extra, ~0.9 us per span):
  numpy-heavy cell (300x300 matmul, exp, sum, dot x50; 1k spans)            1.0-1.3x
  numpy, many tiny calls (np.sqrt(x).sum() + x.mean(), len(x)=100, x20k)   ~5.4x  (300k spans)
  pure-Python loop calling a function 200k times                            9-12x (0.36 us per event)
  pure-Python loop without calls, 300k iterations                           ~3.3x (1.7x once the
                                                                            line budget is spent)
The floor is CPython's cost of calling a Python-level hook (~0.12 us per event; a tracing thread
also loses the specialising interpreter, ~1.7x on tight loops) plus recording (~0.25 us).
"""

from __future__ import annotations

import functools
import linecache
import os
import site
import sys
import sysconfig
import threading
import time
from array import array

import numpy as np
import pandas as pd

from ..model import conform
from ..ingest.nesting import nest
from . import overhead
from .base import Collected, Collector
from .clock import perf_to_epoch_offset
from .call_repeats import LIBRARY_MIN_NS as REPEAT_LIBRARY_MIN_NS, MIN_NS as REPEAT_MIN_NS, CallRepeats
from .line_arrays import SAMPLES, LineArrays

LINE_BUDGET = 300_000       # line spans per run; about 0.2 s of tracing cost at most
# line spans per code object: a loop that runs long (data built in a loop before the work) leaves the rest of
# the run's lines traced; a frame of a code object past its share runs untraced, as under the run's budget
CODE_LINE_BUDGET = 100_000
_EXIT = -1                  # record code of a return / c_return / c_exception / end of line
_LINE0 = -2                 # line enters are recorded as _LINE0 - lineno
_SOURCE_CHARS = 60          # source text kept in a line span's name
_RUNS_CODE = {"builtins.exec", "builtins.eval"}  # how machinery runs the user's code


class PythonTracer(Collector):
    name = "python"
    traces_calls = True

    @classmethod
    def unavailable_reason(cls) -> str | None:
        if sys.implementation.name != "cpython":
            return f"python tracer unavailable: it relies on CPython's profiling events, not {sys.implementation.name}'s"
        return None

    def __init__(self, options, t0_ns: int):
        super().__init__(options, t0_ns)
        self._codes = array("i")
        self._times = array("q")
        self._idents: list[tuple] = []   # per identity: ("py", code, module, is_user) or ("c", name)
        self._installed = False
        self._stopped = False
        self._n = 0
        self._offset_ns = 0
        self._ours: tuple = ()            # the profile functions this tracer may have installed
        self._state: dict = {"lines_left": 0, "overflowed": False, "dropped": 0}
        # set by the session when start() is called from the user's own code (the %%cann_profile
        # rewrite, Profiler.start()): that frame is then recorded as an open span
        self.adopt_caller = False

    # -- life cycle -------------------------------------------------------------------------
    def start(self) -> None:
        if self._installed:
            raise RuntimeError("PythonTracer.start() called twice; make a new tracer per run")
        self._thread_id = threading.get_ident()
        self._native_tid = threading.get_native_id()
        self._prev_profile = sys.getprofile()
        self._prev_trace = sys.gettrace()
        # line spans need the thread's trace slot; a debugger or coverage that holds it keeps it
        self._lines_note = "on" if self._prev_trace is None else \
            f"off: another trace function is active ({self._prev_trace!r})"
        self._replaced = repr(self._prev_profile) if self._prev_profile is not None else None
        self._offset_ns = perf_to_epoch_offset() - self.t0_ns
        self._hook = self._make_hooks(lines=self._prev_trace is None)
        self._installed = True
        if self._prev_trace is None:
            sys.settrace(getattr)  # a C no-op: it activates line events without a Python call per frame
        first = self._adopt_caller() if self.adopt_caller else self._hook
        sys.setprofile(first)  # last statement: only the returns of the frames above are seen after it

    def _adopt_caller(self):
        """Record the user's frame that (indirectly) called start() as an open span, with line spans.

        A cell that starts the profiler from its own code (the %%cann_profile rewrite, or
        ``Profiler.start()`` in a script) runs in a frame entered before the hook existed, so its
        calls and lines would have no parent. The frames between it and start() are the profiler's:
        their returns are swallowed by a short-lived first hook, which then hands over to the real one.
        """
        frame, skip = sys._getframe(2), 1  # start()'s caller; start() itself returns once
        user = _UserFiles()
        while frame is not None and not user(frame.f_code.co_filename):
            frame, skip = frame.f_back, skip + 1
        if frame is None:
            return self._hook
        self._enter_frame(frame)
        # skip = the returns still to come from start() and each profiler frame above it
        hook = self._hook

        def skipping(f, event, arg):
            nonlocal skip
            if event == "return" and skip > 0:
                skip -= 1
                if skip == 0:
                    sys.setprofile(hook)
                return
            hook(f, event, arg)

        self._ours = (*self._ours, skipping)
        return skipping if skip > 0 else hook

    def stop(self) -> None:
        t = time.perf_counter_ns()
        if self._stopped or not self._installed:
            return
        self._uninstall()
        self._t_stop = t
        self._n = len(self._times)
        self._stopped = True

    def close(self) -> None:
        if self._installed and not self._stopped:
            self.stop()

    @property
    def records_written(self) -> int:
        """Calls, returns and lines recorded (each cost the traced code one hook call)."""
        return self._n if self._stopped else len(self._times)

    def _uninstall(self) -> None:
        if threading.get_ident() != self._thread_id:
            # sys.setprofile only reaches the calling thread: ask the hook to remove itself
            self._state["stop_requested"] = True
            self._state["limit"] = -1
            return
        self._uninstall_here()

    # -- the hooks: the only per-event code; keep them lean --------------------------------
    def _make_hooks(self, lines: bool):
        perf = time.perf_counter_ns
        ohash = object.__hash__
        codes, times = self._codes, self._times
        ca, ta = codes.append, times.append
        py_get = (py_index := {}).get   # id(code object) -> identity (bit-inverted for user code)
        c_get = (c_index := {}).get     # C function key -> identity
        idents = self._idents
        state = self._state
        state.update(limit=2 * max(int(self.options.buffer_events), 0), lines_left=LINE_BUDGET if lines else 0,
                     dropped=0, stop_requested=False, overflowed=False)
        code_budget = CODE_LINE_BUDGET
        code_left = {}                  # id(code) -> line spans it may still record
        capped = self._capped = {}      # id(code) -> code, for those that used their share
        left_get = code_left.get
        user_file = _UserFiles()
        arrays = self._arrays = LineArrays()
        count_get, sampling = arrays.counts.get, arrays.open
        # the open Python calls' record positions: a long call is fingerprinted at its return
        repeats = self._repeats = CallRepeats()
        open_calls = []
        push, pop = open_calls.append, open_calls.pop
        fp_min, fp_lib_min = REPEAT_MIN_NS, REPEAT_LIBRARY_MIN_NS

        def intern_py(frame):
            code = frame.f_code
            i = len(idents)
            mine = user_file(code.co_filename)
            idents.append(("py", code, frame.f_globals.get("__name__"), mine))
            py_index[id(code)] = ~i if mine else i
            return py_index[id(code)]

        def intern_c(key, fn):
            i = len(idents)
            idents.append(("c", _c_function_name(fn)))
            c_index[key] = i
            return i

        def hook(frame, event, arg):
            nonlocal fp_min
            t = perf()
            if event == "call":
                i = py_get(id(frame.f_code))
                if i is None:
                    i = intern_py(frame)
                    if i < 0:   # a user function's first call: its arguments are described
                        arrays.call(frame)
                    t = perf()
                if i < 0:
                    i = ~i
                    if sampling and frame.f_code.co_name[0] != "<":   # a comprehension is the line's own work
                        arrays.user_call(frame.f_back)
                    if state["lines_left"] > 0 and left_get(id(frame.f_code), 1) > 0:
                        frame.f_trace = first_line
                    elif frame.f_trace is not None:
                        # a generator resumed after its lines' budget is spent keeps the line hook it had: its
                        # next line would close a line already closed at the yield (an unmatched record)
                        frame.f_trace = None
                if len(times) >= state["limit"]:
                    return overflow()
                push(len(times))
            elif event == "c_call":
                # a bound C method is a new object per call; hash(m) ^ hash(m.__self__) is the
                # pointer hash of its C implementation, stable and cheap
                key = hash(arg) ^ ohash(arg.__self__)
                i = c_get(key)
                if i is None:
                    i = intern_c(key, arg)
                if len(times) >= state["limit"]:
                    return overflow()
            else:
                ca(_EXIT)
                ta(t)
                if event == "return" and open_calls:
                    pos = pop()
                    dur = t - times[pos]
                    if dur >= fp_min:
                        g = py_get(id(frame.f_code))
                        back = frame.f_back
                        # a call the user's code made (negative identities are the user's files) from MIN_NS on; a
                        # library's call inside its own work from LIBRARY_MIN_NS on: pandas makes thousands of
                        # calls over MIN_NS per user line, and only an expensive step redone on inputs it had
                        # (a factorisation, a triangulation, a format conversion) is worth its fingerprint. After
                        # the return's record: the fingerprint's time lies in the caller's span, and the analysis
                        # charges it there as recording cost (recording_cost.fingerprint_charges)
                        if g is not None and codes[pos] == (~g if g < 0 else g) and back is not None \
                                and (dur >= fp_lib_min or py_get(id(back.f_code), 0) < 0) \
                                and not repeats.returned(frame, arg, pos, dur):
                            fp_min = 1 << 62
                return
            ca(i)
            ta(t)

        def first_line(frame, event, arg):
            if event != "line":
                return None
            cid = id(frame.f_code)
            left = left_get(cid, code_budget)
            if state["lines_left"] <= 0 or len(times) >= state["limit"] or left <= 0:
                frame.f_trace_lines = False
                return no_trace
            state["lines_left"] -= 1
            code_left[cid] = left - 1
            if left == 1:
                capped[cid] = frame.f_code
            lineno = frame.f_lineno   # computed from the line table on each access
            key = cid + (lineno << 48)
            run = count_get(key, 0)
            if run < SAMPLES:
                arrays.begin(frame, key, run)
            ca(_LINE0 - lineno)
            ta(perf())
            return next_line

        def next_line(frame, event, arg):
            if event == "line":
                t = perf()
                ca(_EXIT)
                ta(t)
                if sampling and id(frame) in sampling:
                    arrays.end(frame)
                    t = perf()   # the sample's cost is no line's time
                cid = id(frame.f_code)
                left = left_get(cid, code_budget)
                if state["lines_left"] <= 0 or len(times) >= state["limit"] or left <= 0:
                    frame.f_trace_lines = False
                    return no_trace
                state["lines_left"] -= 1
                code_left[cid] = left - 1
                if left == 1:
                    capped[cid] = frame.f_code
                lineno = frame.f_lineno
                key = cid + (lineno << 48)
                run = count_get(key, 0)
                if run < SAMPLES:
                    arrays.begin(frame, key, run)
                    t = perf()
                ca(_LINE0 - lineno)
                ta(t)
            elif event == "return":
                ca(_EXIT)
                ta(perf())
                if sampling:
                    arrays.end(frame, arg)
            return None

        def no_trace(frame, event, arg):
            return None

        def overflow():
            # buffer full (or stop asked from another thread): stop recording, keep returns balanced
            state["overflowed"] = True
            state["lines_left"] = 0
            if state["stop_requested"]:
                self._uninstall_here()
                return
            state["dropped"] += 1
            sys.setprofile(drain)

        depth = 0

        def drain(frame, event, arg):
            nonlocal depth
            if event == "call" or event == "c_call":
                if state["stop_requested"]:
                    return self._uninstall_here()
                depth += 1
                state["dropped"] += 1
            elif depth:
                depth -= 1
            else:  # the return of a span recorded before the buffer filled
                ca(_EXIT)
                ta(perf())

        def enter_frame(frame):
            # an already running frame: record it as entered now, and trace its lines
            i = py_get(id(frame.f_code))
            if i is None:
                i = intern_py(frame)
            push(len(times))
            ca(~i if i < 0 else i)
            ta(perf())
            if i < 0 and state["lines_left"] > 0:
                frame.f_trace = first_line
                frame.f_trace_lines = True

        self._enter_frame = enter_frame
        self._ours = (hook, drain)
        return hook

    def _uninstall_here(self) -> None:
        if sys.getprofile() in self._ours:  # leave a profiler the user's code installed alone
            sys.setprofile(self._prev_profile)
        if sys.gettrace() is getattr:
            sys.settrace(self._prev_trace)
        if getattr(self, "_arrays", None) is not None:
            self._arrays.close()   # a line still open at stop: its temporaries are not measured

    # -- conversion (after the user's code) -------------------------------------------------
    def result(self) -> Collected:
        n = self._n
        events, kept, codes, spans = self._converted()
        state = self._state
        meta = {
            "hooks": "sys.setprofile (calls, C calls)" + (" + per-frame line tracing" if self._lines_on() else ""),
            "thread": getattr(self, "_native_tid", None),
            "lines": getattr(self, "_lines_note", "off"),
            "line_spans": int(np.count_nonzero(codes <= _LINE0)),
            "line_budget": LINE_BUDGET,
            # every line span the budget allows was recorded (the buffer may have filled later on)
            "line_budget_exhausted": bool(self._lines_on() and np.count_nonzero(codes <= _LINE0) >= LINE_BUDGET),
            # functions (their first line, as their call spans' file_line) whose lines stopped being traced
            # when they had used CODE_LINE_BUDGET: their later time is their frames' self time
            "code_line_budget": CODE_LINE_BUDGET,
            "line_capped": sorted(f"{c.co_filename}:{c.co_firstlineno}" for c in getattr(self, "_capped", {}).values()),
            "records": int(n),
            "spans_hidden": int(len(spans["code"]) - kept),
            # the arrays the user's lines read and write, and their temporaries (collect/line_arrays.py)
            "line_arrays": self._arrays.meta() if getattr(self, "_arrays", None) is not None else [],
            # the loops whose passes depend on the previous pass's values (collect/loop_facts.py)
            "loops": self._arrays.loops() if getattr(self, "_arrays", None) is not None else [],
            # the sampler's own error, if it had one (it then stopped sampling; the run went on)
            "line_arrays_error": getattr(getattr(self, "_arrays", None), "failure", None),
            # long calls repeated with the same arguments and result (collect/call_repeats.py)
            "call_repeats": self._call_repeats_meta(),
            # what each record cost the traced code (the advisor's gains are for the run without the tracer)
            "overhead": overhead.describe(overhead.python_cost),
            "clock": "perf_counter_ns shifted onto time.time_ns() at start",
            "not_seen": ("calls that raise no C-call event on CPython 3.11: ufuncs, operators, numpy functions "
                         "behind __array_function__ dispatch; their time is the self time of the calling "
                         "line or function. Other threads are not traced."),
        }
        if getattr(self, "_replaced", None):
            meta["replaced_profiler"] = f"{self._replaced} was suspended during the run and restored after"
        if state.get("overflowed"):
            meta["buffer_full"] = f"stopped recording at options.buffer_events={self.options.buffer_events}"
        return Collected(events=events, meta=meta, dropped=int(state.get("dropped", 0)))

    def events(self) -> pd.DataFrame:
        """The recorded spans as event rows, without the meta (which reads the machine's cost figures: the
        probe that measures them reads its own spans here)."""
        return self._converted()[0]

    def _converted(self) -> tuple:
        codes = np.frombuffer(self._codes[:self._n], dtype=np.int32).astype(np.int64)
        times = np.frombuffer(self._times[:self._n], dtype=np.int64)
        # Ctrl-C can land inside the hook, between recording a code and interning its identity
        unknown = codes >= len(self._idents)
        if unknown.any():
            codes[unknown] = len(self._idents)
            self._idents.append(("c", "<interrupted>"))
        spans = _pair(codes, times, getattr(self, "_t_stop", 0))
        events, kept = self._events(spans)
        return events, kept, codes, spans

    def _call_repeats_meta(self) -> dict:
        repeats = getattr(self, "_repeats", None)
        if repeats is None:
            return {}
        code_ident = {id(e[1]): k for k, e in enumerate(self._idents) if e[0] == "py"}
        pos, ident = getattr(self, "_kept_spans", (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)))
        return repeats.meta(pos, ident, lambda code: code_ident.get(id(code)))

    def _lines_on(self) -> bool:
        return getattr(self, "_lines_note", "off") == "on"

    def _events(self, spans: dict) -> tuple[pd.DataFrame, int]:
        code, start, end, depth, parent = (spans[k] for k in ("code", "start", "end", "depth", "parent"))
        n_ident = len(self._idents)
        # identity tables (a few hundred rows, not per event)
        kinds = np.array([0 if e[0] == "py" else 1 for e in self._idents], dtype=np.int8)  # 0 py, 1 c
        names = _identity_names(self._idents)
        machinery = _machinery_flags(self._idents)
        is_line = code <= _LINE0
        ident = np.where(is_line, -1, code)
        kind = np.where(is_line, 2, kinds[np.clip(ident, 0, max(n_ident - 1, 0))] if n_ident else 2)
        # a line span's function is its parent frame's
        line_owner = np.where(is_line & (parent >= 0), code[np.maximum(parent, 0)], -1)
        user = np.array([e[0] == "py" and e[3] for e in self._idents], dtype=bool)
        cells = np.array([e[0] == "py" and _is_cell_file(e[1].co_filename) for e in self._idents], dtype=bool)
        hidden = _hidden(kind, ident, parent, depth, machinery, user, cells, names)
        keep = ~hidden
        kept = int(keep.sum())
        self._kept_spans = (spans["enter_record"][keep], ident[keep])   # for the repeated calls' meta

        k_code, k_ident, k_kind, k_owner = code[keep], ident[keep], kind[keep], line_owner[keep]
        k_start, k_end = start[keep], end[keep]
        label, file_line = _labels(k_ident, k_kind, k_owner, -(k_code - _LINE0), self._idents, names)
        ids = np.arange(kept, dtype=np.int64)
        # nest on stream positions, not times: exact even when two clock reads tie
        par, dep = nest(np.zeros(kept, dtype=np.int64), spans["enter_pos"][keep],
                        spans["exit_pos"][keep] - spans["enter_pos"][keep], ids)
        offset = self._offset_ns
        events = conform("events", {
            "id": ids,
            "name": label,
            "cat": _constant(kept, "python"),
            "track": _constant(kept, f"host/thread {getattr(self, '_native_tid', 0)}"),
            "device": _constant(kept, "cpu"),
            "start_ns": k_start + offset,
            "dur_ns": k_end - k_start,
            "parent": par,
            "depth": dep,
            **{col: _constant(kept, None) for col in ("shapes", "dtypes", "module")},
            "file_line": file_line,
            "call_kind": pd.Categorical.from_codes(k_kind.astype(np.int8), categories=["py", "c", "line"]),
        })
        return events, kept


def _constant(n: int, value: str | None) -> pd.Categorical:
    """A categorical column holding one value (or all missing), without building n objects."""
    cats = [value] if value is not None else []
    return pd.Categorical.from_codes(np.full(n, 0 if cats else -1, dtype=np.int8), categories=pd.Index(cats, dtype=object))


# -- stream -> spans -------------------------------------------------------------------------
def _pair(codes: np.ndarray, times: np.ndarray, t_stop: int) -> dict:
    """Match enters with exits in a call/return record stream, vectorised.

    Returns whose call came before start() are dropped; spans still open at stop end at ``t_stop``.
    The exit of an enter at nesting level d is the next record at level d; a stable sort by level
    puts every enter right before its exit.
    """
    if not len(codes):
        empty = np.empty(0, dtype=np.int64)
        return {k: empty for k in ("code", "start", "end", "enter_pos", "exit_pos", "depth", "parent", "enter_record")}
    enter = codes != _EXIT
    level = np.cumsum(np.where(enter, 1, -1))
    before = np.concatenate(([0], level[:-1]))
    unmatched = ~enter & (level < np.minimum.accumulate(before))
    record = np.arange(len(codes), dtype=np.int64)   # each kept record's position in the hooks' stream
    if unmatched.any():
        codes, times, enter = codes[~unmatched], times[~unmatched], enter[~unmatched]
        record = record[~unmatched]
        level = np.cumsum(np.where(enter, 1, -1))
    still_open = int(level[-1]) if len(level) else 0
    if still_open:
        codes = np.concatenate((codes, np.full(still_open, _EXIT)))
        times = np.concatenate((times, np.full(still_open, t_stop, dtype=np.int64)))
        enter = np.concatenate((enter, np.zeros(still_open, dtype=bool)))
        level = np.concatenate((level, np.arange(still_open - 1, -1, -1)))
    # level of the span a record opens or closes: after an enter, before an exit
    span_level = np.where(enter, level, level + 1)
    pairs = np.argsort(span_level, kind="stable").reshape(-1, 2)
    enter_pos, exit_pos = pairs[:, 0], pairs[:, 1]
    order = np.argsort(enter_pos)
    enter_pos, exit_pos = enter_pos[order], exit_pos[order]
    depth = span_level[enter_pos].astype(np.int64) - 1
    parent = _stack_parent(depth)
    return {"code": codes[enter_pos], "start": times[enter_pos], "end": times[exit_pos],
            "enter_pos": enter_pos, "exit_pos": exit_pos, "depth": depth, "parent": parent,
            "enter_record": record[np.minimum(enter_pos, len(record) - 1)]}


def _by_depth(depth: np.ndarray) -> list[np.ndarray]:
    """Span indices at each depth, ascending: one sort, not one full scan per level."""
    if not len(depth):
        return []
    order = np.argsort(depth, kind="stable")
    cuts = np.flatnonzero(np.diff(depth[order])) + 1
    groups = np.split(order, cuts)
    levels: list[np.ndarray] = [np.empty(0, dtype=np.int64)] * (int(depth.max()) + 1)
    for g in groups:
        levels[int(depth[g[0]])] = g
    return levels


def _stack_parent(depth: np.ndarray) -> np.ndarray:
    """Index of each span's caller (spans in enter order); -1 for roots."""
    parent = np.full(len(depth), -1, dtype=np.int64)
    levels = _by_depth(depth)
    for d in range(1, len(levels)):
        child, cand = levels[d], levels[d - 1]
        if len(child) and len(cand):
            k = np.searchsorted(cand, child) - 1  # the last span one level up opened before the child
            parent[child[k >= 0]] = cand[k[k >= 0]]
    return parent


def _hidden(kind, ident, parent, depth, machinery, user, cells, names) -> np.ndarray:
    """Spans of the profiler and of IPython's machinery, with everything they call.

    The user's code that hidden code runs through ``exec``/``eval`` (the cell, a script under
    runpy) is shown again, with what it calls; so is cell code reached any other way (IPython resumes
    a top-level-await cell from its runner, not exec). Library modules that the machinery imports
    stay hidden. Root C calls are the user's: the session starts call tracers last (collect/session.py),
    so the frame that started the tracer makes no C call of its own after it.
    """
    n = len(kind)
    own = np.zeros(n, dtype=bool)
    py = kind == 0
    mine, cell = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    if len(machinery):
        own[py] = machinery[ident[py]]
        mine[py], cell[py] = user[ident[py]], cells[ident[py]]
    runs_code = np.zeros(n, dtype=bool)
    if len(names):
        is_exec = np.array([nm in _RUNS_CODE for nm in names], dtype=bool)
        c = kind == 1
        runs_code[c] = is_exec[ident[c]]
    own |= runs_code & (parent < 0)  # an exec/eval run directly by the session (runner, tests)
    hidden = own.copy()
    levels = _by_depth(depth)
    for d in range(1, len(levels)):
        at = levels[d]
        p = parent[at]
        reentry = mine[at] & (runs_code[p] | cell[at])
        hidden[at] = own[at] | (hidden[p] & ~reentry)
    return hidden


# -- names -----------------------------------------------------------------------------------
def _c_function_name(fn) -> str:
    qual = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", "?")
    module = getattr(fn, "__module__", None)
    if not module:
        owner = getattr(fn, "__self__", None)
        module = type(owner).__module__ if owner is not None else None
    return f"{module}.{qual}" if module else qual


def _identity_names(idents) -> list[str]:
    out = []
    for e in idents:
        if e[0] == "c":
            out.append(e[1])
            continue
        code, module = e[1], e[2]
        scope = _scope(code.co_filename, module)
        qual = getattr(code, "co_qualname", code.co_name)  # co_qualname is 3.11+
        if code.co_name == "<module>":
            out.append(scope)
        else:
            out.append(f"{scope}:{qual}" if scope == "<cell>" else f"{scope}.{qual}")
    return out


def _scope(filename: str, module) -> str:
    if _is_cell_file(filename):
        return "<cell>"
    if module in (None, "__main__") and not filename.startswith("<"):
        return os.path.splitext(os.path.basename(filename))[0]
    return module or filename


def _is_cell_file(filename: str) -> bool:
    """Code typed into IPython/Jupyter: named <ipython-input-...> or ipykernel's temp path."""
    if filename.startswith(("<ipython-input", "<cell")):
        return True
    return "ipykernel_" in filename and not os.path.exists(filename)


def _labels(ident, kind, owner, lineno, idents, names):
    """Categorical name and file_line per span, computed once per distinct identity or line."""
    n_ident = len(idents)
    is_line = kind == 2
    # one key per distinct function, and per distinct (function, line)
    key = np.where(is_line, n_ident + owner * (1 << 24) + lineno, ident)
    uniq, inverse = np.unique(key, return_inverse=True)
    labels, places = [], []
    for k in uniq.tolist():
        if 0 <= k < n_ident:
            e = idents[k]
            labels.append(names[k])
            places.append(f"{e[1].co_filename}:{e[1].co_firstlineno}" if e[0] == "py" else None)
        else:
            # a line span without a known frame (its function's record was lost to a Ctrl-C in the hook)
            own, line = divmod(k - n_ident, 1 << 24) if k >= n_ident else (-1, (k - n_ident) % (1 << 24))
            e = idents[own] if 0 <= own < n_ident and idents[own][0] == "py" else None
            if e is None:
                labels.append(f"line {line}")
                places.append(None)
                continue
            src = linecache.getline(e[1].co_filename, line).strip()
            if len(src) > _SOURCE_CHARS:
                src = src[:_SOURCE_CHARS - 1] + "…"
            labels.append(f"{names[own]} line {line}" + (f": {src}" if src else ""))
            places.append(f"{e[1].co_filename}:{line}")
    label_cats = pd.Categorical(labels)
    place_cats = pd.Categorical(places)
    return (pd.Categorical.from_codes(label_cats.codes[inverse], categories=label_cats.categories),
            pd.Categorical.from_codes(place_cats.codes[inverse], categories=place_cats.categories))


# -- which files are whose -------------------------------------------------------------------
def _machinery_dirs() -> tuple[str, ...]:
    """Path prefixes of code that runs the user's code: cann_nb, IPython, ipykernel, runpy."""
    paths = [os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep]  # the cann_nb package
    for mod in ("IPython", "ipykernel"):
        m = sys.modules.get(mod)
        if m is not None and getattr(m, "__file__", None):
            paths.append(os.path.dirname(os.path.abspath(m.__file__)) + os.sep)
    runpy = sys.modules.get("runpy")
    if runpy is not None:  # frozen since 3.11: its code says "<frozen runpy>"
        paths += [os.path.abspath(runpy.__file__), "<frozen runpy>"]
    return tuple(paths)


def _machinery_flags(idents) -> np.ndarray:
    dirs = _machinery_dirs()
    def ours(f: str) -> bool:
        return (f if f.startswith("<") else os.path.abspath(f)).startswith(dirs)

    return np.array([e[0] == "py" and ours(e[1].co_filename) for e in idents], dtype=bool)


@functools.lru_cache(maxsize=1)
def _library_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    lib = {paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    try:
        lib.update(site.getsitepackages())
        lib.add(site.getusersitepackages())
    except AttributeError:  # some embedded interpreters lack these
        pass
    return tuple(os.path.abspath(p) + os.sep for p in lib if p)


class _UserFiles:
    """Is a file the user's own code (line-traced)? Not the stdlib, site-packages, or machinery."""

    def __init__(self):
        self._excluded = _library_dirs() + _machinery_dirs()

    def __call__(self, filename: str) -> bool:
        if filename.startswith("<"):
            return _is_cell_file(filename)
        path = os.path.abspath(filename)
        return not path.startswith(self._excluded) and "-packages" + os.sep not in path


