"""Calls repeated with the same arguments and the same result, fingerprinted by the Python tracer.

A function called again with arguments it already had, returning what it returned then, redid its work:
memoise it (``functools.cache``, an ``lru_cache`` as large as the working set) or hoist the call out of the
loop. The tracer sees no arguments for free, so only calls that took ``MIN_NS`` or more, made from the user's
code, are looked at, at
their return (the arguments from the frame's locals, and the return value): each value is fingerprinted
cheaply (small immutables by value, arrays and pandas objects by shape, dtype and an evenly strided sample,
short containers by content, anything else by identity). A function whose same arguments ever gave a
different result is not a pure function of them (it reads state or randomness): it is never reported.
A call returning None or a bool is not counted (its result says nothing about the work).

A library's own calls inside its work are looked at from LIBRARY_MIN_NS on: only an expensive step redone on
the same inputs (a format conversion, a factorisation) is worth a fingerprint there, and a result object
is compared by its array and plain attributes (``result_fingerprint``), as such a step builds a new one.

Cost: two list operations per Python call (the open calls' record positions); a fingerprint, some
microseconds, only on calls of MIN_NS or more (LIBRARY_MIN_NS for a library's own), at most MAX_CALLS of
them, and none for a function once GIVE_UP of its calls held no repeat.
"""

from __future__ import annotations

import types
from time import perf_counter_ns

import numpy as np
import pandas as pd

MIN_NS = 20_000           # calls the user's code makes shorter than this are not fingerprinted (their repeats cost little)
LIBRARY_MIN_NS = 1_000_000   # the same for a library's calls inside its own work (see the module docstring)
MAX_CALLS = 100_000       # calls fingerprinted per run
GIVE_UP = 256             # fingerprinted calls of one function without a repeat: stop looking at it
MAX_ORDINALS = 50_000     # repeated calls listed per function in the meta
_SAMPLE = 16              # values of an array (Series) in its fingerprint
_STEPS = np.arange(_SAMPLE, dtype=np.int64)
_ATTRS = 32               # attributes of a result object fingerprinted by content
_SHORT = 16               # items of a container fingerprinted by content
_VARARGS, _VARKEYWORDS = 0x04, 0x08   # code flags: *args, **kwargs
_SUSPENDS = 0x20 | 0x80 | 0x200        # code flags: generator, coroutine, async generator
_NO_RESULT = (type(None), bool)
_PLAIN = (int, float, str, bytes, bool, type(None), complex)
_MISSING = object()


class CallRepeats:
    """Per function (code object): the fingerprints of its long calls and which calls repeated one."""

    def __init__(self):
        self._funcs: dict[int, dict] = {}   # id(code) -> state
        self.looked = 0                     # calls fingerprinted
        self.errors: list[str] = []

    def returned(self, frame, result, pos: int, dur: int) -> bool:
        """A call of ``frame`` that took ``dur`` ns returned ``result``; its call record is at ``pos``.
        False once MAX_CALLS calls were fingerprinted (the tracer then stops calling)."""
        t0 = perf_counter_ns()
        code = frame.f_code
        st = self._funcs.get(id(code))
        if st is None:
            st = self._funcs[id(code)] = {"code": code, "seen": {}, "calls": 0, "pos": [], "ns": 0, "off": False,
                                          "impure": False, "spent": 0, "data": 0}
            # a generator's or coroutine's "return" is a yield: its result is one item, not the call's
            st["off"] = bool(code.co_flags & _SUSPENDS)
        if not st["off"] and type(result) not in _NO_RESULT:
            self._look(st, code, frame, result, pos, dur)
        st["spent"] += perf_counter_ns() - t0
        return self.looked < MAX_CALLS

    def _look(self, st: dict, code, frame, result, pos: int, dur: int) -> None:
        try:
            n = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & _VARARGS) \
                + bool(code.co_flags & _VARKEYWORDS)
            loc = frame.f_locals
            args = [loc.get(name) for name in code.co_varnames[:n]]
            key = tuple(fingerprint(a) for a in args)
            res = result_fingerprint(result)
        except Exception as exc:   # a user object that raised while looked at: that function is left alone
            st["off"] = True
            if len(self.errors) < 5:
                self.errors.append(f"{code.co_name}: {type(exc).__name__}: {exc}"[:300])
            return
        self.looked += 1
        st["calls"] += 1
        prev = st["seen"].get(key, _MISSING)
        if prev is _MISSING:
            st["seen"][key] = res
        elif prev == res:
            st["pos"].append(pos)
            st["ns"] += dur
            st["data"] = max(st["data"], max(map(data_bytes, args), default=0))
        else:   # the same arguments, another result: not a pure function of its arguments
            st["impure"] = st["off"] = True
            st["seen"].clear()
        if st["calls"] >= GIVE_UP and not st["pos"]:
            st["off"] = True
            st["seen"].clear()

    def meta(self, enter_pos: np.ndarray, ident: np.ndarray, ident_of_code) -> dict:
        """{min_ns, looked, errors, functions: one record per function fingerprinted: file_line (its first
        line, as its call spans'), name, spans (its kept call spans), looked (calls fingerprinted),
        spent_ns (the fingerprints' time, in its callers' spans), pure (False: the same arguments once gave
        another result), distinct (argument sets), data_bytes (the most data, ``data_bytes``, among the arguments of
        a repeated call), repeats, repeat_ns (their time, with the tracer's records
        inside), ordinals (the repeated calls' indices among its spans in start order)}. ``enter_pos``/``ident``:
        the kept spans' record positions (ascending) and identities; ``ident_of_code(code)`` the identity the
        tracer gave a code object."""
        funcs = []
        for st in self._funcs.values():
            if not st["calls"]:
                continue
            code = st["code"]
            i = ident_of_code(code)
            own = enter_pos[ident == i] if i is not None else np.empty(0, dtype=np.int64)
            rec = {"file_line": f"{code.co_filename}:{code.co_firstlineno}", "name": code.co_qualname,
                   "spans": int(len(own)), "looked": int(st["calls"]), "spent_ns": int(st["spent"]),
                   "pure": not st["impure"], "distinct": int(len(st["seen"])), "data_bytes": int(st["data"]),
                   "repeats": 0, "repeat_ns": 0,
                   "ordinals": []}
            if st["pos"] and not st["impure"] and len(own):
                pos = np.asarray(st["pos"], dtype=np.int64)
                k = np.searchsorted(own, pos)
                ok = own[np.minimum(k, len(own) - 1)] == pos
                rec.update(repeats=int(ok.sum()), repeat_ns=int(st["ns"]), ordinals=k[ok][:MAX_ORDINALS].tolist())
            funcs.append(rec)
        return {"min_ns": MIN_NS, "looked": int(self.looked), "errors": list(self.errors), "functions": funcs}


def fingerprint(v, depth: int = 0):
    """A hashable stand-in for a value: equal for values that are (very probably) equal. Never calls a
    method of a user's class."""
    t = type(v)
    if t is int or t is bool or t is complex or v is None:
        return v
    if t is float:
        return v if v == v else "nan"
    if t is str or t is bytes:
        return v if len(v) <= 256 else (t.__name__, len(v), hash(v))
    if t is np.ndarray or isinstance(v, np.ndarray) and t.__module__.startswith("numpy"):   # np.matrix too
        return array_fingerprint(v)
    if isinstance(v, np.generic):
        return ("np", v.dtype.str, v.tobytes())
    if t is tuple or t is list or t is frozenset or t is set:
        if depth < 2 and len(v) <= _SHORT:
            if t is tuple or t is list:
                return (t.__name__, tuple(fingerprint(x, depth + 1) for x in v))
            if all(type(x) in _PLAIN for x in v):   # hashing anything else could run a user's __hash__
                return (t.__name__, tuple(sorted(map(hash, v))))
        return (t.__name__, len(v), id(v))   # a long container: by identity (and length)
    if t is dict:
        if depth < 2 and len(v) <= _SHORT:
            return ("dict", tuple((fingerprint(k, 2), fingerprint(x, depth + 1)) for k, x in v.items()))
        return ("dict", len(v), id(v))
    if t is pd.Series:
        # a numpy-backed Series is sampled through a view; another (categorical, arrow) by identity: making
        # its numpy array could copy every value
        if isinstance(v.dtype, np.dtype):
            return ("Series", array_fingerprint(v.to_numpy()), id(v.index))
        return ("Series", len(v), str(v.dtype), id(v))
    if t is pd.DataFrame:
        return ("DataFrame", v.shape, id(v))
    return ("id", t.__qualname__, id(v))


def data_bytes(v) -> int:
    """Bytes of data a value carries, roughly: an array's, a pandas object's (8 per element), or the arrays
    among an object's attributes (a sparse matrix, a triangulation); 0 for anything else."""
    if isinstance(v, np.ndarray):
        return int(v.nbytes)
    if isinstance(v, (pd.Series, pd.DataFrame, pd.Index)):
        return 8 * int(np.prod(v.shape))
    d = _instance_dict(v) if type(v) not in _PLAIN else None
    if type(d) is not dict or len(d) > _ATTRS:
        return 0
    return sum(int(x.nbytes) for x in d.values() if type(x) is np.ndarray)


def result_fingerprint(v):
    """``fingerprint``, but an object it would take by identity by its array and plain-valued attributes: a
    call that builds a new object (a triangulation, a CSR matrix, a fitted estimator) from inputs it had
    before builds an equal one, which is the work redone; a class by its name, bases and members' names (a
    ``namedtuple(...)`` per record), a function by its code and the values it closes over; arguments stay by
    identity (the same object passed again). Attributes are read from the instance dict, never through a
    method."""
    fp = fingerprint(v)
    if not by_identity(fp):
        return fp
    if isinstance(v, type):   # a class built per call (namedtuple(...), type(...)): by its name, bases, members
        return ("class", v.__module__, v.__qualname__, tuple(map(id, v.__bases__)), tuple(sorted(map(str, vars(v)))))
    if type(v) is types.FunctionType:   # a closure built per call: by its code and what it closes over
        cells = tuple(_cell(c) for c in v.__closure__ or ())
        return ("function", id(v.__code__), cells, fingerprint(v.__defaults__, 1))
    d = _instance_dict(v)
    if type(d) is not dict or not d or len(d) > _ATTRS:
        return fp
    kept = tuple((k, fingerprint(x, 2)) for k, x in d.items() if type(x) in _PLAIN or type(x) is np.ndarray)
    return ("obj", fp[1], kept) if any(type(x) is np.ndarray for x in d.values()) else fp


def _cell(c):
    try:
        return fingerprint(c.cell_contents, 2)
    except ValueError:   # an empty cell (a variable not yet assigned)
        return "empty"


def by_identity(fp) -> bool:
    """A fingerprint that is the object's identity (``fingerprint``'s last resort), not its content."""
    return type(fp) is tuple and len(fp) == 3 and fp[0] == "id"


def _instance_dict(v) -> dict | None:
    """The object's instance dict, or None: a type with no dict slot (reading one would go to the class's
    __getattr__), or one whose slot is there but holds none (an asyncio Task's raises AttributeError)."""
    if not type(v).__dictoffset__:
        return None
    try:
        return object.__getattribute__(v, "__dict__")
    except AttributeError:
        return None


def array_fingerprint(a: np.ndarray, n: int = _SAMPLE) -> tuple:
    """Shape, dtype and an evenly strided sample of ``n`` of an array's values (all of a smaller one)."""
    if a.size <= n:
        return (a.shape, a.dtype.str, a.tobytes() if a.dtype != object else tuple(map(id, a.flat)))
    steps = _STEPS if n == _SAMPLE else np.arange(n, dtype=np.int64)
    at = steps * (a.size - 1) // (n - 1)   # integer arithmetic: a third of np.linspace's time
    # a contiguous array is indexed through a flat view: a tenth of the flat iterator's time at 4,096 values
    vals = a.reshape(-1)[at] if a.flags.c_contiguous else a.flat[at]
    return (a.shape, a.dtype.str, vals.tobytes() if a.dtype != object else tuple(map(id, vals)))
