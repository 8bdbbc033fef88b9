"""The Monitor: a background thread that turns a long-running process into a series of stored windows.

    import cann_nb
    mon = cann_nb.start_continuous_monitoring(interval=60, sample_rate=0.05, fn=model)
    y = mon(x)                        # a monitored call of model (or: predict = mon.wrap(predict))
    ...
    cann_nb.stop_continuous_monitoring()

Every ``interval`` seconds the window thread closes the current window and opens the next: the host
sampler (and custom metrics) ran through it on their own thread, ``recorder.py`` timed every call, and
one burst of ``sample_rate x interval`` seconds of calls ran under the op collector (torch.profiler when
torch is imported), capped at about ``max_burst_events`` op events (the calls per burst follow from the
events per call of earlier bursts), which bounds the conversion work of a busy server's windows. The
window becomes a compact profile ``wNNNNNN`` in ``directory`` (default
``./profile_results/NAME.monitor``), its summary is judged against the rolling baseline
(``baseline.py``) by the anomaly rules (``rules.py``), anomalies are logged on the ``cann_nb.monitor``
logger (and passed to ``on_anomaly``), and retention (``retention.py``) removes the oldest windows.
``python -m cann_nb monitor-report DIR`` summarises a range of them.

Robustness: exceptions of the monitored code go to its caller unchanged and are counted; an error in
the monitor's own work (a full disk, a failed conversion) is logged, kept in ``monitor.errors`` and the
next window goes on. The thread is a daemon and ``stop()`` is registered with ``atexit``: at interpreter
exit the partial window is stored and the thread joined within ``exit_timeout`` seconds.

Overhead (benchmarks/monitoring.py): ~0.5 us per call for timing, the burst's profiler cost on at most
``sample_rate`` of the calls, and the window's conversion and storing on the window thread (0.1-0.3 s
of CPU per window).
"""

from __future__ import annotations

import atexit
import functools
import logging
import random
import sys
import threading
import time
import weakref
from collections import deque
from pathlib import Path

from ..collect.base import CollectOptions
from . import retention, rules, window
from .baseline import Baseline
from .recorder import Recorder
from ..collect.clock import perf_to_epoch_offset

log = logging.getLogger("cann_nb.monitor")
THREAD_NAME = "cann_nb-monitor"
MIN_INTERVAL_S = 0.05
_FIRST_BURST_CALLS = 200      # until the events per call are known
_live: "weakref.WeakSet[Monitor]" = weakref.WeakSet()


class Monitor:
    """Continuous sampled monitoring (see the module docstring).

    interval            window length, s (default 60)
    sample_rate         share of each window's time profiled, in one burst (default 0.05; 0 = timing only)
    fn                  the served function (or nn.Module): call it through the monitor, ``monitor(x)``;
                        ``wrap(f)`` monitors more functions; without fn, ``step()`` marks delimit calls
    directory, name     where windows go (default ``$CANN_NB_DIR|./profile_results/NAME.monitor``)
    collectors          burst collectors (default torch when imported, else none: timing and counters)
    options             burst CollectOptions (default: no shapes, allocations or stacks)
    max_windows, max_age_s   retention (default 1440 windows, 7 days; None = no limit)
    baseline_windows, min_baseline_windows, warmup_windows   the rolling baseline (20, 3, 1)
    thresholds          anomaly rule overrides, e.g. {"p99_latency": {"margin_pct": 50}, "error_rate": None}
    keep_calls, max_events   stored op events: those of the first 5 profiled calls, at most 20,000
    max_burst_events    about how many op events one burst may record (default 5,000)
    sample_interval     host sampler period (default interval / 50, within 0.02-1 s)
    on_anomaly          ``fn(window_summary, anomalies)``, called on the window thread
    seed                for the bursts' random placement (tests)
    store               False: keep summaries in memory only (``monitor.windows``)
    exit_timeout        seconds the interpreter-exit handler waits for the thread (default 5)
    """

    def __init__(self, interval: float = 60.0, sample_rate: float = 0.05, fn=None, *, directory=None,
                 name: str = "monitor", collectors=None, options: CollectOptions | None = None,
                 max_windows: int | None = 1440, max_age_s: float | None = 7 * 86400.0,
                 baseline_windows: int = 20, min_baseline_windows: int = 3, warmup_windows: int = 1,
                 thresholds: dict | None = None, keep_calls: int = 5, max_events: int = 20_000,
                 max_burst_events: int = 5_000,
                 sample_interval: float | None = None, on_anomaly=None, seed: int | None = None,
                 store: bool = True, exit_timeout: float = 5.0):
        from ..store import check_name, default_root

        interval = float(interval)
        if not interval >= MIN_INTERVAL_S:
            raise ValueError(f"interval must be at least {MIN_INTERVAL_S} s")
        sample_rate = float(sample_rate)
        if not 0.0 <= sample_rate <= 1.0:
            raise ValueError("sample_rate must be between 0 and 1")
        if max_windows is not None and max_windows < 1:
            raise ValueError("max_windows must be at least 1 (or None for no count limit)")
        self.name = check_name(name)
        self.interval, self.sample_rate = interval, sample_rate
        self.directory = Path(directory) if directory is not None else default_root() / f"{self.name}.monitor"
        if collectors is None:
            collectors = ("torch",) if "torch" in sys.modules else ()
        elif isinstance(collectors, str):
            collectors = tuple(c.strip() for c in collectors.split(",") if c.strip())
        self.collectors = tuple(collectors)
        self.options = options or CollectOptions(memory=False, shapes=False, stack=False, flops=False)
        self.max_windows, self.max_age_s = max_windows, max_age_s
        self.thresholds = rules.thresholds_for(thresholds)
        self.baseline = Baseline(baseline_windows, min_baseline_windows, warmup_windows)
        self.keep_calls, self.max_events = int(keep_calls), int(max_events)
        self.max_burst_events = int(max_burst_events)
        self._events_per_call = None                 # learnt from the bursts: bounds the next burst's calls
        self.sample_interval = float(sample_interval) if sample_interval else max(0.02, min(1.0, interval / 50))
        self.on_anomaly = on_anomaly
        self.keep = bool(store)
        self.exit_timeout = float(exit_timeout)
        self._random = random.Random(seed)
        self._rec = Recorder(self._open_burst)
        self._fn = fn
        self._wrapped = self.wrap(fn) if fn is not None else None
        self.windows: deque = deque(maxlen=1000)     # summaries of the windows of this run, oldest first
        self.anomalies: deque = deque(maxlen=1000)   # (window seq, anomaly dict)
        self.errors: deque = deque(maxlen=100)       # the monitor's own failures, as text
        self.removed = 0                             # windows removed by retention
        self.abandoned_bursts = 0
        self._thread: threading.Thread | None = None
        self._warm_thread: threading.Thread | None = None
        self._halt = threading.Event()
        self._lock = threading.Lock()
        self._store = None
        self._host = None
        self.running = False

    # -- what the served code calls -----------------------------------------------------------
    def wrap(self, fn):
        """A wrapper of ``fn`` whose every call is timed (and, in a burst, profiled)."""
        if not callable(fn):
            raise TypeError("monitor.wrap(fn): fn must be callable")
        call = self._rec.call

        @functools.wraps(fn)
        def monitored(*args, **kwargs):
            return call(fn, args, kwargs)

        monitored.monitor = self
        return monitored

    def __call__(self, *args, **kwargs):
        """Call the monitored ``fn`` (the one given at start)."""
        if self._fn is None:
            raise TypeError("this monitor has no fn: pass fn= to start_continuous_monitoring, or use monitor.wrap(f)")
        return self._rec.call(self._fn, args, kwargs)

    def step(self) -> None:
        """Step mode (no fn): the time between two step() calls of a thread is one call."""
        if self.running:
            self._rec.step()

    # -- life cycle ---------------------------------------------------------------------------
    def start(self) -> "Monitor":
        with self._lock:
            if self.running:
                raise RuntimeError(f"monitor {self.name!r} is already running")
            self.directory.mkdir(parents=True, exist_ok=True)
            stored = retention.window_dirs(self.directory)
            self._seq = (stored[-1][0] + 1) if stored else 1
            self.baseline.seed(_read_summaries([d for _, d in stored[-max(self.baseline.size, 12):]]))
            self._offset = perf_to_epoch_offset(16)
            self._halt.clear()
            self._rec.off = False
            self.running = True
            self._cpu_mark = 0
            self._thread = threading.Thread(target=self._run, name=THREAD_NAME, daemon=True)
            self._thread.start()
            _live.add(self)
        return self

    def stop(self, timeout: float = 10.0) -> "Monitor":
        """Store the partial window and end the thread (waits up to ``timeout`` seconds)."""
        with self._lock:
            if not self.running:
                return self
            self.running = False
            burst = self._rec.shutdown()
            if burst is not None and burst.thread == threading.get_ident():
                self._rec._close(burst)      # the stopping thread owns the burst: close it here
            self._halt.set()
            thread = self._thread
        deadline = time.monotonic() + timeout
        warm = self._warm_thread
        if warm is not None:   # torch.profiler's initialisation cannot be interrupted: let it finish
            warm.join(max(deadline - time.monotonic(), 0.0))
        if thread is not None and thread is not threading.current_thread():
            thread.join(max(deadline - time.monotonic(), 0.0))
            if thread.is_alive():
                self._error(f"monitor thread did not finish within {timeout:g} s; it is a daemon and ends with "
                            "the process")
        self._rec.off = True
        _live.discard(self)
        return self

    def __enter__(self) -> "Monitor":
        return self if self.running else self.start()

    def __exit__(self, *exc) -> bool:
        self.stop()
        return False

    @property
    def ready(self) -> bool:
        """True once bursts can run (torch.profiler's one-time initialisation is done)."""
        return bool(getattr(self, "_warm", False))

    def wait_ready(self, timeout: float = 30.0) -> bool:
        """Wait until ``ready`` (e.g. before a load test); False on timeout or when not running."""
        end = time.monotonic() + timeout
        while not self.ready and self.running and time.monotonic() < end:
            time.sleep(0.01)
        return self.ready

    def reset_baseline(self) -> None:
        """Accept the current behaviour as normal: the baseline re-learns from the next windows."""
        self.baseline.reset()

    @property
    def store(self):
        from ..store import Session

        if self._store is None:
            self._store = Session(self.directory)
        return self._store

    # -- the window thread --------------------------------------------------------------------
    def _run(self) -> None:
        self._cpu_mark = time.thread_time_ns()
        start = time.perf_counter()
        self._warm = not ("torch" in self.collectors and self.sample_rate > 0)
        try:
            self._open_window()       # the first window starts now; its burst is armed after the warm-up
        except Exception as exc:
            self._error(f"could not open window: {type(exc).__name__}: {exc}")
        if not self._warm:   # on its own thread, so that windows keep their schedule meanwhile
            self._warm_thread = threading.Thread(target=self._warm_up, name=THREAD_NAME + "-warmup", daemon=True)
            self._warm_thread.start()
        k = 1
        while True:
            due = start + k * self.interval
            if self._halt.wait(max(due - time.perf_counter(), 0.0)):
                break
            k += 1
            if time.perf_counter() > due + self.interval:   # fell far behind (suspended?): realign
                k = int((time.perf_counter() - start) / self.interval) + 1
            self._rotate(final=False)
        self._rotate(final=True)

    def _warm_up(self) -> None:
        """torch.profiler's first start in a process costs 1-5 s: pay it here, not in a served call.
        Bursts are armed from the first window that opens after it."""
        try:
            from ..collect.session import torch_busy
            from ..collect.torch_collector import TorchCollector

            if not torch_busy():   # a running profile has warmed torch.profiler up already
                TorchCollector.warm_up()
        except Exception as exc:
            self._error(f"torch.profiler warm-up failed: {type(exc).__name__}: {exc}")
        self._warm = True

    def _open_window(self) -> None:
        from ..collect.session import CollectionSession

        self._w_seq = self._seq
        self._seq += 1
        host = CollectionSession(f"w{self._w_seq:06d}", ("host",),
                                 CollectOptions(memory=True, interval_s=self.sample_interval),
                                 {"kind": "monitor", "monitor": self.name})
        _start_quietly(host)
        self._host = host
        self._w_t0 = host.t0_ns
        self._skipped0 = self._rec.skipped
        if self._warm:
            self._arm(time.perf_counter() + self.interval)

    def _arm(self, window_end: float) -> None:
        """Arm this window's burst at a random instant that leaves it time to finish in the window."""
        if self.sample_rate <= 0 or not self.collectors or self._halt.is_set():
            return
        duration = self.sample_rate * self.interval
        now = time.perf_counter()
        at = now + self._random.uniform(0.0, max(window_end - duration - now, 0.0))
        cap = max(self.max_burst_events // self._events_per_call, 10) if self._events_per_call else _FIRST_BURST_CALLS
        self._rec.arm(int(at * 1e9), int(duration * 1e9), cap)

    def _open_burst(self):
        """Called in the serving thread when a burst is due: a started op-collector session, or None."""
        from ..collect.session import CollectionSession, torch_busy

        if not self.running or ("torch" in self.collectors and torch_busy()):
            return None
        session = CollectionSession(f"{self.name}-burst", self.collectors, self.options,
                                    {"kind": "monitor-burst", "monitor": self.name})
        _start_quietly(session)
        if not session.active:
            session.close()
            return None
        return session

    def _rotate(self, final: bool) -> None:
        t_build = time.perf_counter()
        end_ns = time.time_ns()
        host, seq, t0_ns = self._host, self._w_seq, getattr(self, "_w_t0", end_ns)
        lat, err, bursts = self._rec.take()
        skipped = self._rec.skipped - getattr(self, "_skipped0", 0)
        if host is not None:
            try:
                host.stop()
            except Exception as exc:
                self._error(f"host sampler stop failed: {exc!r}")
        if final:
            bursts += self._wait_for_burst()
            self._host = None
        else:
            try:
                self._open_window()
            except Exception as exc:
                self._host = None
                self._error(f"could not open window: {type(exc).__name__}: {exc}")
        if host is None and not lat and not err and not bursts:
            return
        if final and not lat and not err and not bursts and end_ns - t0_ns < 0.1 * self.interval * 1e9:
            if host is not None:
                host.close()
            return                                   # a stop right after a rotation: nothing to keep
        try:
            self._finish_window(host, seq, t0_ns, end_ns, lat, err, bursts, skipped, final, t_build)
        except Exception as exc:
            self._error(f"window {seq} failed: {type(exc).__name__}: {exc}")

    def _wait_for_burst(self, timeout: float = 1.0) -> list:
        """At stop: give the thread that owns an open burst a moment to close it at its next call."""
        deadline = time.perf_counter() + timeout
        while (b := self._rec.open_burst) is not None and b.owner.is_alive() and time.perf_counter() < deadline:
            time.sleep(0.01)
        _, _, done = self._rec.take()
        b = self._rec.open_burst
        if b is not None:
            # its thread made no further call: torch.profiler can only be stopped by the thread that
            # started it (from another it crashes), so the session is left; its calls are still counted
            b.abandoned = True
            self.abandoned_bursts += 1
            log.info("cann_nb monitor %r: a profiling burst was still open at stop; its op events are not kept",
                     self.name)
            done.append(b)
        return done

    def _finish_window(self, host, seq, t0_ns, end_ns, lat, err, bursts, skipped, final, t_build) -> None:
        host_profile = None
        if host is not None:
            try:
                host_profile = host.finish()
            except Exception as exc:
                host.close()
                self._error(f"window {seq}: host counters lost: {exc!r}")
        pairs = []
        for b in bursts:
            if b.abandoned:
                pairs.append((b, None))
                continue
            try:
                prof = b.session.finish()
                pairs.append((b, prof))
                if b.calls and len(prof.events):
                    per_call = max(len(prof.events) / len(b.calls), 1.0)
                    self._events_per_call = per_call if self._events_per_call is None else \
                        0.5 * self._events_per_call + 0.5 * per_call
            except Exception as exc:
                b.session.close()
                pairs.append((b, None))
                self._error(f"window {seq}: burst conversion failed: {exc!r}")
        profile, summary = window.build(
            monitor=self.name, seq=seq, host=host_profile, bursts=pairs, t0_ns=t0_ns, end_ns=end_ns, lat=lat,
            err=err, perf_to_epoch_ns=self._offset, keep_calls=self.keep_calls, max_events=self.max_events,
            partial=final, skipped=skipped)
        base = self.baseline.stats()
        found = rules.evaluate(summary, base, list(self.baseline.recent_peaks) + [summary["peak_memory_bytes"]],
                               self.thresholds)
        summary["anomalies"] = found
        summary["baseline"] = {k: base.get(k) for k in ("windows", "p50", "p99", "peak_memory_bytes")}
        summary["baseline_member"] = self.baseline.observe(summary, bool(found))
        summary["config"] = {"interval_s": self.interval, "sample_rate": self.sample_rate,
                             "collectors": list(self.collectors)}
        cpu = time.thread_time_ns()
        summary["monitor_cpu_s"] = round((cpu - self._cpu_mark) / 1e9, 6)   # this thread, since the last window
        self._cpu_mark = cpu
        summary["build_s"] = round(time.perf_counter() - t_build, 6)
        if self.keep:
            self.store.add(profile, f"w{seq:06d}")
            removed = retention.prune(self.directory, self.max_windows, self.max_age_s)
            self.removed += len(removed)
        self.windows.append(summary)
        for a in found:
            self.anomalies.append((seq, a))
            log.warning("cann_nb monitor %r window %d: %s", self.name, seq, a["message"])
        if found and self.on_anomaly is not None:
            try:
                self.on_anomaly(summary, found)
            except Exception as exc:
                self._error(f"on_anomaly raised {type(exc).__name__}: {exc}")

    def _error(self, text: str) -> None:
        self.errors.append(text)
        log.error("cann_nb monitor %r: %s", self.name, text)

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return (f"<cann_nb Monitor {self.name!r} {state}: {len(self.windows)} windows, {len(self.anomalies)} anomalies, "
                f"interval {self.interval:g} s, sample_rate {self.sample_rate:g}, {str(self.directory)!r}>")


def _start_quietly(session) -> None:
    """Start a monitor session without making it the one ``cann_nb.step()`` marks (collect/active.py):
    the user's own Profiler/cell session stays the current one."""
    from ..collect import active

    before = active.current()
    session.start()
    if active.current() is session:
        active.set_current(before)


def _read_summaries(dirs) -> list[dict]:
    import json

    out = []
    for d in dirs:
        try:
            with open(Path(d) / "meta.json", encoding="utf-8") as fh:
                out.append(json.load(fh)["monitor"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return out


def step_all() -> None:
    """A step mark for every running monitor (step mode); what ``cann_nb.step()`` should also call."""
    for mon in list(_live):
        mon.step()


@atexit.register
def _stop_all() -> None:
    monitors = list(_live)
    if not monitors:
        return
    try:
        # by now concurrent.futures refuses new work ("cannot schedule new futures after interpreter
        # shutdown"), and pyarrow converts a long table to Parquet on a thread pool: convert serially
        import pyarrow

        pyarrow.set_cpu_count(1)
    except Exception:
        pass
    for mon in monitors:
        try:
            mon.stop(timeout=mon.exit_timeout)
        except Exception:
            pass
