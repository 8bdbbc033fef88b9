"""What recording costs the recorded code, per recorded event: measured once per machine, cached, and
written into the collector's meta (``overhead``) so that any later analysis reads it from the profile.

A loop of tiny ops runs slower profiled than bare: torch.profiler spends about a microsecond per op
(more with shapes), the Python tracer a fraction of one per call or line. The advisor estimates what a
fix saves on the run *without* the profiler (what the user gets), so it takes this cost out of the
profiled time (analyze/recording_cost.py). It is measured the way a loop meets it: loops of small ops
timed bare and recorded with the collector's own options (in the recording thread's CPU time), interleaved
round by round, the best times' difference divided by the events recorded (per op, and per allocation or
free when memory is recorded). Cached in ``$CANN_NB_CACHE_DIR/profiler_overhead.json`` by machine (CPU
model and cores), collector, options and library version; a failed measurement is said in the meta, never
guessed.
"""

from __future__ import annotations

import datetime as _dt
import os
import statistics
import tempfile
import time

from .environment import read_cache, this_machine_key, write_cache

ROUNDS = 15
# the recording thread's CPU time, not wall time: on a shared machine another process or thread takes the
# core for milliseconds at a time, and a recorded round (10 ms) meets that far more often than its bare
# twin, so best-of-rounds wall times charged each record up to twice its cost under load (1,023 ns
# against 487 ns idle on one 2-core machine), and the advisor then took more than the run's own time out
_clock = time.thread_time_ns
VERSION = 3                # of the method: a cached figure from another method is measured again (3: CPU time)
PYTHON_HOOKS = 4           # revision of the Python tracer's figures: 2 added line sampling, 3 the bytecode slowdown, 4 open-call positions
TORCH_ITERS = 500          # 2,000 op events per round (the index loop): short rounds, more of them undisturbed
PYTHON_ITERS = 2_000       # ~24,000 tracer records per round
SPIN_ITERS = 20_000        # ~2 ms of bytecode per round, no record


CACHE_FILE = "profiler_overhead.json"


def _cached(key: str, measure) -> dict:
    got = read_cache(CACHE_FILE).get(key)
    if got is None:
        got = dict(measure(), date=_dt.date.today().isoformat(), machine=this_machine_key())
        write_cache(CACHE_FILE, key, got)
    return got


def _extra_ns(bare, recorded) -> float:
    """Extra ns of ``recorded`` over ``bare`` (each returns its own ns), interleaved over ROUNDS rounds;
    best of each: on a shared machine, load only ever adds time."""
    b, r = [], []
    for _ in range(ROUNDS):
        b.append(bare())
        r.append(recorded())
    return max(0.0, min(r) - min(b))


# -- torch.profiler --------------------------------------------------------------------------------
def torch_cost(record_shapes: bool, profile_memory: bool, with_stack: bool) -> dict:
    """{"ns_per_event": per framework op, "ns_per_memory_event": per allocation or free recorded, ...}
    for torch.profiler with these options on this machine."""
    import torch

    key = f"v{VERSION} torch {torch.__version__} | {this_machine_key()} | shapes={record_shapes} " \
          f"memory={profile_memory} stack={with_stack}"
    return _cached(key, lambda: _measure_torch(record_shapes, profile_memory, with_stack))


def _measure_torch(record_shapes: bool, profile_memory: bool, with_stack: bool) -> dict:
    import torch
    from torch.profiler import ProfilerActivity, profile

    from .torch_collector import quiet_stderr, trace_only_config

    x, a, b = torch.rand(64), torch.rand(8), torch.rand(8)

    def views(n: int) -> int:
        return index_loop(x, n)

    def fresh(n: int) -> int:      # a small product into a fresh tensor: one op, an allocation and a free
        t = _clock()
        for _ in range(n):
            a * b
        return _clock() - t

    kwargs = dict(record_shapes=record_shapes, profile_memory=profile_memory, with_stack=with_stack)

    def recorded(loop, count: bool = False):
        prof = profile(activities=[ProfilerActivity.CPU], **kwargs,
                       **({} if count else trace_only_config(with_stack)))
        with quiet_stderr():
            prof.start()
            ns = loop(TORCH_ITERS)
            prof.stop()
        if count:   # events per run, counted once (trace_only keeps no per-event objects)
            names = [e.name() for e in prof.profiler.kineto_results.events()]
            return sum(n.startswith("aten::") for n in names), sum(n == "[memory]" for n in names)
        return ns

    views(100), fresh(100)
    ops_v, _ = recorded(views, count=True)
    ops_f, mem_f = recorded(fresh, count=True)
    k_op = _extra_ns(lambda: views(TORCH_ITERS), lambda: recorded(views)) / max(ops_v, 1)
    extra_f = _extra_ns(lambda: fresh(TORCH_ITERS), lambda: recorded(fresh))
    k_mem = max(0.0, extra_f - k_op * ops_f) / mem_f if mem_f else 0.0
    return {"ns_per_event": k_op, "ns_per_memory_event": k_mem,
            "per": "framework op event (cat 'op'); allocation or free recorded (memory table)",
            "method": f"{TORCH_ITERS} x index + .item() ({ops_v} op events) and {TORCH_ITERS} x a*b ({ops_f} op "
                      f"and {mem_f} memory events), each bare vs recorded, interleaved, best of {ROUNDS}"}


# -- in the run itself (torch_collector.stop) -------------------------------------------------------
PROBE_ITERS = 100          # 400 op events a round: their stop and reading cost ~5 ms (benchmarks/recording_cost.py)
PROBE_ROUNDS = 3
_PROBE_INPUT = None
IN_RUN: dict = {}          # (shapes, memory, stack) -> the probe's figure, measured once per process


def index_loop(x, n: int) -> int:
    """ns of ``n`` x ``x[i].item()`` (index + .item(): four ops, no allocation): the probe of both measures."""
    t = _clock()
    for i in range(n):
        x[i % 64].item()
    return _clock() - t


def probe_rounds() -> list[int]:
    """ns of each of PROBE_ROUNDS index loops (the torch collector times them recorded, then bare)."""
    global _PROBE_INPUT
    import torch

    if _PROBE_INPUT is None:
        _PROBE_INPUT = torch.rand(64)
    return [index_loop(_PROBE_INPUT, PROBE_ITERS) for _ in range(PROBE_ROUNDS)]


# -- the Python tracer -----------------------------------------------------------------------------
_PY_LOOP = '''
def work(v, i):
    return len(v) + abs(i)


def loop(n, v):
    t = 0
    for i in range(n):
        t += work(v, i)
    return t
'''


_PY_SPIN = '''
class Point:
    def __init__(self):
        self.x, self.y = 1, 2


def spin(n):
    p, d, xs, t = Point(), {"k": 3}, [4, 5, 6], 0
    for i in range(n):
        t = (t + (i * 7) ^ (t & 1023)) % 65521
        if i & 1:
            t += p.x * d["k"] + xs[i % 3]
            p.x = t & 7
    return t
'''


def python_cost() -> dict:
    """{"ns_per_record": ..., "per": "tracer record"} for collect/python_tracer.py on this machine."""
    import sys
    return _cached(f"v{VERSION}.{PYTHON_HOOKS} python {sys.version.split()[0]} | {this_machine_key()} | tracer",
                   _measure_python)


def _measure_python() -> dict:
    from .base import CollectOptions
    from .python_tracer import PythonTracer

    # a user file (outside the stdlib and site-packages), so its lines are traced as a script's are
    with tempfile.TemporaryDirectory(prefix="cann_nb_overhead_") as d:
        path = os.path.join(d, "loop.py")
        ns: dict = {}
        exec(compile(_PY_LOOP, path, "exec"), ns)
    loop, v = ns["loop"], [0, 1, 2]
    records = []

    def bare() -> int:
        t = _clock()
        loop(PYTHON_ITERS, v)
        return _clock() - t

    c_spans = []

    def recorded() -> int:
        tracer = PythonTracer(CollectOptions(), time.time_ns())
        tracer.start()
        t = _clock()
        loop(PYTHON_ITERS, v)
        ns_ = _clock() - t
        tracer.stop()
        records.append(tracer.records_written)
        # how long the probe's C calls (len, abs: a few ns of work) last recorded, in the events' wall
        # clock: the median of each round, the least of the rounds (as the times)
        ev = tracer.events()   # not result(): its meta asks for this very figure (a recursion)
        c_spans.append(float(ev.loc[ev["call_kind"].astype(str) == "c", "dur_ns"].median()))
        return ns_

    bare()
    extra = _extra_ns(bare, recorded)
    n = statistics.median(records)
    return {"ns_per_record": extra / max(n, 1), "per": "tracer record (a call, a return, a line)",
            # the part of a C call's two records that lies inside its own span (the rest is in its caller's)
            "ns_in_c_span": min((c for c in c_spans if c == c), default=0.0),
            "bytecode_slowdown": _bytecode_slowdown(PythonTracer, CollectOptions),
            "method": f"a loop of {PYTHON_ITERS} calls of a small function (len + abs, its lines traced), bare vs "
                      f"traced, interleaved, best of {ROUNDS}; {int(n)} records per run. bytecode_slowdown: a "
                      f"loop of {SPIN_ITERS} iterations of integer arithmetic, every other one with attribute, dict "
                      "and list operations too, in one library frame (no line traced, no call made), traced time "
                      "over bare time, best of each"}


def _bytecode_slowdown(PythonTracer, CollectOptions) -> float:
    """How much slower bytecode runs while the tracer is installed, between records: CPython 3.11 runs
    every frame on its tracing path once sys.settrace is set (each instruction checks for a new line,
    and the specialising interpreter's fast paths are left). Measured on a library frame, which records
    nothing but its call and return."""
    import sysconfig
    ns: dict = {}
    # a file under the stdlib (need not exist): the tracer traces no line of it, as for any library
    exec(compile(_PY_SPIN, os.path.join(sysconfig.get_paths()["stdlib"], "_cann_nb_probe_spin.py"), "exec"), ns)
    spin = ns["spin"]

    def bare() -> int:
        t = _clock()
        spin(SPIN_ITERS)
        return _clock() - t

    def traced() -> int:
        tracer = PythonTracer(CollectOptions(), time.time_ns())
        tracer.start()
        t = _clock()
        spin(SPIN_ITERS)
        ns_ = _clock() - t
        tracer.stop()
        return ns_

    b, r = [], []
    for _ in range(ROUNDS):
        b.append(bare())
        r.append(traced())
    return max(1.0, min(r) / max(min(b), 1))


def describe(measure) -> dict:
    """``measure()``'s result, or what stopped it (the analysis then leaves the profiled times as they are)."""
    try:
        return measure()
    except (ImportError, RuntimeError, OSError, ValueError) as exc:   # e.g. another profiler is active
        return {"error": f"{type(exc).__name__}: {exc}"}
