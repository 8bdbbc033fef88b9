"""The memory budget of a collection (issue 19): collecting never takes the machine down.

torch.profiler keeps every op it records in memory and cannot be told to stop at a size: a Python loop
of tiny ops (``x[i].item()``, millions of calls) grew a process to 22 GB. Measured on torch 2.13 CPU
(benchmarks/memory_budget.py --calibrate): while recording, the malloc arena grows by ~450 B per op with
shapes and allocations (~230 B without); ``stop()`` then builds torch's results at ~6x that (7.3x with
stacks, which need torch's Python events), and cann_nb's conversion comes on top. So the budget is a
bound on what the *collection* may add to the process (recording, torch's results, the conversion),
and recording stops when the recorded part, times those factors, reaches it.

The budget is on by default: 1/8 of the memory available when the collection starts, between 256 MiB
and 8 GiB (``default_max_memory``); ``--max-memory`` / ``--max-events`` (the magic and ``run``),
``Profiler(max_memory=, max_events=)`` / ``Profiler.set_buffer_size`` override it.

How recording is stopped, and why this way (torch 2.13; each alternative tried in a subprocess):

- torch.profiler can only be stopped, paused or toggled *from the thread that records*: stopping it from
  another thread crashes the process (docs/architecture.md), and ``toggle_collection_dynamic(False,
  [CPU])`` is thread-local (from a watchdog thread it changes nothing: every op is still recorded).
- ``schedule`` + ``on_trace_ready`` flush only at ``prof.step()``, which a script or cell without steps
  never calls, and each flush stops and restarts the profiler inside the user's code.
- There is no RecordFunction sampling or event cap in torch's Python API (``_ExperimentalConfig`` has
  none), and no count of recorded events while recording.

So a watcher thread measures the memory in use by malloc's arena every ``POLL_S``, more often as the
growth rate brings it near the limit (glibc ``mallinfo2``:
its in-use bytes, ~20 us, which torch's small records land in while big tensors are mmapped apart; the
RSS where that is not available) and, past the limit, makes the *recording thread* pause: in the main
thread (``run``, a notebook cell, a ``Profiler`` started there) through ``_thread.interrupt_main`` with a
signal whose handler cann_nb installs only when nobody else handles it -- the handler runs between two
bytecodes of the main thread, where calling torch is as safe as the user's own code calling it; a real
signal of that number is passed on to whoever had it. In another thread at its next step boundary
(``cann_nb.step()``, ``Profiler.step()``, ``--repeat``). Pausing is ``toggle_collection_dynamic(False)``:
ops already running finish normally, and torch's results are built once, at the normal stop, after the
user's code. Allocation events (``--memory``) keep coming while paused; if the memory still grows to
``HARD_FACTOR`` x the limit, the recording thread stops torch.profiler altogether.

What was left out is exact in time (``reached_ns`` to the end) and estimated in count (the recorded op
rate times the time left); ``budget_meta`` writes it into ``meta["budget"]`` and ``model.budget_note``
says it in every view.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass

MIB, GIB = 1024 ** 2, 1024 ** 3
DEFAULT_SHARE = 8                     # the default budget: 1/8 of the memory available at the start
DEFAULT_FLOOR, DEFAULT_CEILING = 256 * MIB, 8 * GIB
# arena growth per recorded torch op, by record_shapes (the smaller, shape-less figure for an explicit
# --max-events would stop later; each is the measured value, benchmarks/memory_budget.py --calibrate)
RECORD_BYTES_PER_EVENT = {True: 446, False: 229}
# torch's results after stop() per byte recorded (trace_only; with_stack needs torch's Python events),
# then cann_nb's conversion on top (streaming: torch's results are freed before the trace is read)
STOP_FACTOR = {False: 6.0, True: 7.4}
CONVERSION_FACTOR = 1.15
HARD_FACTOR = 1.5                     # paused but still growing (allocation events): stop altogether
# recording is paused at this share of the record limit: what is recorded between two polls and until the
# recording thread acts still lands (and costs STOP_FACTOR x itself at the stop); under load that overshot
# the budget by up to 6 % (two clean-clone test runs: 127 and 131 MB on a 120 MB budget); since the
# watcher predicts the growth until the owner acts (ACT_LAG_S), a small margin is enough
PAUSE_MARGIN = 0.95
POLL_S = 0.025
MIN_POLL_S = 0.002                    # the watcher's fastest poll near the limit (mallinfo2: ~20 us)
ACT_LAG_S = 0.01                      # from the watcher's request to the recording thread's pause (GIL)


@dataclass
class Budget:
    """How much a collection may add to the process, and how that was chosen."""

    max_memory: int                   # bytes: recording + torch's results + conversion
    max_events: int | None = None     # an explicit bound on recorded ops, or None
    source: str = ""

    def record_limit(self, shapes: bool, stack: bool) -> int:
        """Arena growth while recording at which recording stops."""
        limit = self.max_memory / (STOP_FACTOR[bool(stack)] * CONVERSION_FACTOR)
        if self.max_events:
            limit = min(limit, self.max_events * RECORD_BYTES_PER_EVENT[bool(shapes)])
        return max(int(limit), 1)

    def pause_at(self, shapes: bool, stack: bool) -> int:
        """Arena growth at which the guard pauses recording: the record limit less a margin for what is
        recorded before the pause takes effect."""
        return max(int(self.record_limit(shapes, stack) * PAUSE_MARGIN), 1)

    def events_bound(self, shapes: bool, stack: bool) -> int:
        """Events kept at conversion: what ``record_limit`` corresponds to (the backstop when recording
        could not be paused in time)."""
        return max(self.record_limit(shapes, stack) // RECORD_BYTES_PER_EVENT[bool(shapes)], 1)

    def as_dict(self) -> dict:
        return {"max_memory": int(self.max_memory), "max_events": self.max_events, "source": self.source}


def available_memory() -> int | None:
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:   # psutil missing or unable to read the system's figures
        return None


def default_max_memory() -> tuple[int, str]:
    """(bytes, why): 1/8 of the memory available now, within [256 MiB, 8 GiB]."""
    avail = available_memory()
    if avail is None:
        return 2 * GIB, "default 2 GiB (available memory unknown)"
    chosen = min(max(avail // DEFAULT_SHARE, DEFAULT_FLOOR), DEFAULT_CEILING)
    return int(chosen), f"default: 1/{DEFAULT_SHARE} of the {avail / GIB:.1f} GiB available"


def resolve(options) -> Budget:
    """The budget of a collection with ``options`` (CollectOptions: max_memory, max_events)."""
    max_events = int(options.max_events) if getattr(options, "max_events", None) else None
    if getattr(options, "max_memory", None):
        return Budget(int(options.max_memory), max_events, "set by max_memory")
    if max_events:   # an explicit event bound alone: the memory it needs is the budget
        return Budget(int(max_events * RECORD_BYTES_PER_EVENT[True] * STOP_FACTOR[True] * CONVERSION_FACTOR),
                      max_events, "set by max_events")
    mem, why = default_max_memory()
    return Budget(mem, None, why)


# -- measuring ---------------------------------------------------------------------------------------
class _MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def _libc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        lib.mallinfo2.restype = _MallInfo2
        lib.malloc_trim.argtypes = [ctypes.c_size_t]
        return lib
    except (OSError, AttributeError):   # not glibc, or a glibc before 2.33 (no mallinfo2)
        return None


_LIBC = _libc()


def _rss() -> int:
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import psutil

        return int(psutil.Process().memory_info().rss)


def in_use() -> tuple[int, str]:
    """(bytes, what was measured): malloc's arena in use (glibc), else the resident set size."""
    if _LIBC is not None:
        return int(_LIBC.mallinfo2().uordblks), "malloc arena in use"
    return _rss(), "resident set size"


def give_back_freed_memory() -> None:
    """Return freed heap pages to the system (glibc keeps them otherwise), after torch's results go."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


# -- the watcher ------------------------------------------------------------------------------------
def _hook_signal():
    return getattr(signal, "SIGRTMAX", None) and signal.SIGRTMAX - 3 or getattr(signal, "SIGUSR2", None)


class Guard:
    """Watches a recording's memory; past ``limit`` bytes of growth, calls ``pause(full)`` in the
    recording thread (see the module docstring). ``t0_ns``: the session's epoch for ``reached_ns``.
    ``notify()``, if given, is called from the watcher when the limit is reached (a thread that waits
    while another records, like a monitoring burst's, wakes up and stops its recording itself)."""

    def __init__(self, limit: int, pause, t0_ns: int, notify=None, sampler=None):
        self.limit, self._pause, self.t0_ns, self._notify = int(limit), pause, t0_ns, notify
        self.sampler = sampler                     # collect/call_sites.py: the owner's line, at each tick
        self.base, self.measure = in_use()
        self.peak_growth = 0
        self.reached_ns: int | None = None        # relative to t0: when recording was paused
        self.stopped_ns: int | None = None        # when it was stopped altogether (HARD_FACTOR)
        self.growth_at_reach = 0
        self.enforced = "at the end only"
        self._owner = threading.current_thread()
        self._due = 0                              # 1: pause asked, 2: full stop asked
        self._done = 0                             # what has been done of it
        self._halt = threading.Event()
        self._thread: threading.Thread | None = None
        self._sig = None
        self._previous = None

    def start(self) -> "Guard":
        if self._owner is threading.main_thread():
            self._install_hook()
        if self._sig is None:
            self.enforced = "at step boundaries (the recording thread is not the main thread)" \
                if self._owner is not threading.main_thread() else \
                "at step boundaries (the hook signal is taken by the program)"
        self._thread = threading.Thread(target=self._watch, name="cann_nb-budget", daemon=True)
        self._thread.start()
        return self

    def _install_hook(self) -> None:
        sig = _hook_signal()
        if sig is None:
            return
        try:
            if signal.getsignal(sig) not in (signal.SIG_DFL, None):
                return   # the program handles this signal itself: leave it alone
            self._previous = signal.signal(sig, self._on_signal)
            self._sig = sig
            self.enforced = "while recording"
        except (ValueError, OSError):   # not the main thread after all, or no such signal here
            self._sig = None

    def _watch(self) -> None:
        # the memory is read more often as it nears the limit: a loop of tiny ops grows the arena by
        # ~500 MB/s, so a fixed 25 ms poll (plus the GIL's 5 ms switch interval before the recording
        # thread acts) let it pass a 14 MB limit by a third; the call-site sampler keeps POLL_S
        last_t, last_growth = time.monotonic(), 0
        next_sample = last_t + POLL_S
        wait = POLL_S
        while not self._halt.wait(wait):
            now = time.monotonic()
            if self.sampler is not None and now >= next_sample:
                self.sampler.sample(recording=not self._done)
                next_sample += POLL_S * (int((now - next_sample) // POLL_S) + 1)   # skip missed ticks
            growth = in_use()[0] - self.base
            self.peak_growth = max(self.peak_growth, growth)
            rate = max(0.0, (growth - last_growth) / max(now - last_t, 1e-6))
            last_t, last_growth = now, growth
            # the limit counts as reached once the growth expected before the owner can act passes it
            soon = growth + rate * ACT_LAG_S
            want = 2 if growth >= HARD_FACTOR * self.limit and self._done else 1 if soon >= self.limit else 0
            if want > max(self._due, self._done):
                if self.reached_ns is None:
                    self.reached_ns, self.growth_at_reach = time.time_ns() - self.t0_ns, growth
                self._due = want
                self._wake_owner()
            if self._done == 2 and self.sampler is None:
                return
            wait = POLL_S
            if not self._done and rate > 0:
                wait = min(POLL_S, max(MIN_POLL_S, (self.limit - soon) / rate / 2))
            if self.sampler is not None:
                wait = max(0.0, min(wait, next_sample - time.monotonic()))

    def _wake_owner(self) -> None:
        if self._notify is not None:
            self._notify()
        if self._sig is None or signal.getsignal(self._sig) != self._on_signal:
            return   # handled at the next step boundary (check_in_thread)
        import _thread

        try:
            _thread.interrupt_main(self._sig)
        except (TypeError, RuntimeError):
            pass

    def _on_signal(self, signum, frame) -> None:
        if self._due <= self._done:   # not ours: a real signal for whoever handled it before
            prev = self._previous
            if callable(prev):
                prev(signum, frame)
            return
        self._act()

    def check_in_thread(self) -> None:
        """Called by the recording thread (steps): act on a pending request; cheap otherwise."""
        if self._due > self._done and threading.current_thread() is self._owner:
            self._act()

    def _act(self) -> None:
        due = self._due
        if due == 2 and self.stopped_ns is None:
            self.stopped_ns = time.time_ns() - self.t0_ns
        self._done = due
        self._pause(due == 2)

    def stop(self) -> None:
        """End watching (from the recording thread) and give the signal back."""
        self._halt.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
        if self._sig is not None and threading.current_thread() is threading.main_thread():
            try:
                if signal.getsignal(self._sig) == self._on_signal:
                    signal.signal(self._sig, self._previous if self._previous is not None else signal.SIG_DFL)
            except (ValueError, OSError):
                pass
        self._sig = None

    @property
    def reached(self) -> bool:
        return self._done > 0


def budget_meta(budget: Budget, guard: Guard | None, shapes: bool, stack: bool, window_ns, op_count: int,
                ops_span: tuple | None, cut_events: int = 0) -> dict:
    """``meta["budget"]``: the budget, whether it was reached, and what was left out: the time range
    not recorded and the ops in it (estimated from the recorded rate). ``ops_span``: (first start, last
    end) of the ops kept; events cut at conversion (``cut_events``) move the range's start to that end."""
    out = {**budget.as_dict(), "record_limit_bytes": budget.record_limit(shapes, stack),
           "events_bound": budget.events_bound(shapes, stack), "reached": False}
    if guard is not None:
        out.update(measured=guard.measure, enforced=guard.enforced, peak_growth_bytes=int(guard.peak_growth))
    if cut_events:
        out.update(reached=True, cut_at_conversion=int(cut_events))
    if guard is None or not guard.reached:
        return out
    start, stop = (window_ns or [0, guard.reached_ns])[:2]
    reached = int(guard.reached_ns)
    if cut_events and ops_span is not None:
        reached = min(reached, int(ops_span[1]))
    recorded_ns = max(reached - (ops_span[0] if ops_span is not None else start), 1)
    rate = op_count / recorded_ns
    out.update(reached=True, reached_ns=reached, growth_at_reach_bytes=int(guard.growth_at_reach),
               not_recorded={"from_ns": reached, "to_ns": int(stop), "kinds": ["op", "runtime", "kernel"],
                             "estimated_ops": int(round(rate * max(int(stop) - reached, 0))),
                             "estimate": "recorded op rate x time not recorded (a lower bound: ops run "
                                         "faster unrecorded)"})
    if guard.stopped_ns is not None:
        out["stopped_ns"] = int(guard.stopped_ns)
    return out
