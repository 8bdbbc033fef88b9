"""The hot path of continuous monitoring: time every call, profile one short burst of calls per window.

Every call of the monitored function (or every ``step()`` interval) is timed with two
``perf_counter_ns`` reads and one list append (~0.3 us); durations go to per-window lists that the
window thread swaps out. Profiling is done in *bursts*: the window thread arms a burst at a random
instant of the window for ``sample_rate x interval`` seconds; the first call after that instant opens a
collection session *in the calling thread* (torch.profiler only records the thread that starts it, and
stopping it from another thread crashes torch), every call of that thread until the deadline (or a call
cap, which bounds the events to convert) runs under it, and the call that ends past it stops it. The session is converted later, on the window
thread. So a ``sample_rate`` share of the calls is profiled, in one contiguous run, and the profiler's
start/stop cost is paid once per window rather than per call.

Profiled calls are timed too but kept apart: the window's latency percentiles come from unprofiled
calls only, so the profiler's own overhead never reads as a regression. Calls that raise are counted
(and timed apart); the exception goes on to the caller unchanged.
"""

from __future__ import annotations

import threading
import time

_now = time.perf_counter_ns


class Burst:
    __slots__ = ("thread", "owner", "deadline", "max_calls", "session", "calls", "errors", "opened_ns", "abandoned")

    def __init__(self, thread: int, deadline: int, session, max_calls: int):
        self.thread = thread
        self.max_calls = max_calls
        self.owner = threading.current_thread()
        self.deadline = deadline
        self.session = session
        self.calls: list[tuple[int, int]] = []   # (start perf ns, duration ns) of profiled calls
        self.errors = 0
        self.opened_ns = _now()
        self.abandoned = False   # still open when monitoring stopped: its calls count, its session is left


class Recorder:
    def __init__(self, open_session):
        self._open_session = open_session   # () -> a started CollectionSession, or None (skip this burst)
        self._lat: list[int] = []           # durations of unprofiled calls that returned
        self._err: list[int] = []           # durations of calls that raised
        self._arm_ns = 0                    # perf ns from which a call may open the armed burst; 0 = none
        self._burst_ns = 0
        self._burst_calls = 1 << 62
        self._burst: Burst | None = None
        self._finished: list[Burst] = []
        self._claim = threading.Lock()
        self._tls = threading.local()
        self.off = False                    # set when monitoring stops: calls pass straight through
        self.skipped = 0                    # armed bursts that could not open (torch busy, start failed)

    # -- the monitored call ---------------------------------------------------------------------
    def call(self, fn, args, kwargs):
        if (self._arm_ns or self._burst is not None) and self._profiling_here():
            return self._profiled(fn, args, kwargs)
        if self.off:                        # monitoring stopped: a plain call
            return fn(*args, **kwargs)
        t = _now()
        try:
            out = fn(*args, **kwargs)
        except BaseException:
            self._err.append(_now() - t)
            raise
        self._lat.append(_now() - t)
        return out

    def _profiling_here(self) -> bool:
        """Is this call to run under the burst (opening it if armed and due)?"""
        b = self._burst
        if b is None:
            if _now() < self._arm_ns or not self._claim.acquire(blocking=False):
                return False
            try:
                if self._burst is None and self._arm_ns and _now() >= self._arm_ns:
                    self._open()
            finally:
                self._claim.release()
            b = self._burst
        return b is not None and b.thread == threading.get_ident()

    def _open(self) -> None:
        duration, max_calls, self._arm_ns = self._burst_ns, self._burst_calls, 0
        try:
            session = self._open_session()
        except Exception:
            session = None
        if session is None:
            self.skipped += 1
            return
        self._burst = Burst(threading.get_ident(), _now() + duration, session, max_calls)

    def _profiled(self, fn, args, kwargs):
        b = self._burst
        t = _now()
        try:
            return fn(*args, **kwargs)
        except BaseException:
            b.errors += 1
            raise
        finally:
            end = _now()
            b.calls.append((t, end - t))
            if end >= b.deadline or len(b.calls) >= b.max_calls:
                self._close(b)

    def _close(self, b: Burst) -> None:
        """Stop the burst's session in its own thread (cheap); the window thread converts it."""
        if self._burst is not b:
            return
        self._burst = None
        try:
            b.session.stop()
        except Exception:
            pass
        if not b.abandoned:          # an abandoned burst was accounted for when monitoring stopped
            self._finished.append(b)

    # -- step mode: the time between step() marks of a thread is one call ----------------------
    def step(self) -> None:
        now = _now()
        tl = self._tls
        last = getattr(tl, "last", 0)
        tl.last = now
        b = self._burst
        mine = b is not None and b.thread == threading.get_ident()
        if last:
            if mine:
                b.calls.append((last, now - last))
            else:
                self._lat.append(now - last)
        if mine:
            if now >= b.deadline or len(b.calls) >= b.max_calls:
                self._close(b)
        elif self._arm_ns and now >= self._arm_ns:
            self._profiling_here()     # opens the burst in this thread; it covers the next steps

    # -- the window thread ----------------------------------------------------------------------
    def arm(self, at_ns: int, duration_ns: int, max_calls: int | None = None) -> bool:
        """Allow one burst from perf time ``at_ns`` for ``duration_ns`` (and at most ``max_calls``
        calls); False while one is still open."""
        if self._burst is not None:
            return False
        self._burst_ns = max(int(duration_ns), 1)
        self._burst_calls = max(int(max_calls), 1) if max_calls else 1 << 62
        self._arm_ns = max(int(at_ns), 1)
        return True

    def take(self):
        """Swap out (latencies, error latencies, finished bursts) of the window that just ended."""
        return _drain(self._lat), _drain(self._err), _drain(self._finished)

    def shutdown(self) -> Burst | None:
        """No new bursts; an open one ends at its thread's next call (or step). Returns it, if open."""
        self._arm_ns = 0
        b = self._burst
        if b is not None:
            b.deadline = 0
        return b

    @property
    def open_burst(self) -> Burst | None:
        return self._burst


def _drain(items: list) -> list:
    """Take the items present now; one appended meanwhile stays for the next take. Lock-free: the copy
    and the ``del`` are each one operation under the GIL, and appends only go to the end, so an item
    is never lost or taken twice (swapping in a new list could lose an append to the old one)."""
    n = len(items)
    out = items[:n]
    del items[:n]
    return out
