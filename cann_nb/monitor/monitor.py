"""The Monitor: a background thread that turns a long-running process into a series of stored windows.

    import cann_nb
    mon = cann_nb.start_continuous_monitoring(interval=60, sample_rate=0.05, fn=model)
    y = mon(x)                        # a monitored call of model (or: predict = mon.wrap(predict))
    ...
    cann_nb.stop_continuous_monitoring()

Every ``interval`` seconds the window thread closes the current window and opens the next: the host
sampler (and custom metrics) ran through it on their own thread, ``recorder.py`` timed every call, and
for one burst of ``sample_rate x interval`` seconds, at a random instant of the window, torch.profiler
recorded the ops of every thread (``burst.py``: started and stopped by the window thread itself, never
by a served thread), capped at about ``max_burst_events`` op events (the burst's length follows from the
event rate of earlier bursts), which bounds the conversion work of a busy server's windows. The
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
from .recorder import Recorder, _now
from ..collect.clock import perf_to_epoch_offset

log = logging.getLogger("cann_nb.monitor")
THREAD_NAME = "cann_nb-monitor"
MIN_INTERVAL_S = 0.05
_live: "weakref.WeakSet[Monitor]" = weakref.WeakSet()


class Monitor:
    """Continuous sampled monitoring (see the module docstring).

    interval            window length, s (default 60)
    sample_rate         share of each window's time profiled, in one burst (default 0.05; 0 = timing only)
    fn                  the served function (or nn.Module): call it through the monitor, ``monitor(x)``;
                        ``wrap(f)`` monitors more functions; without fn, ``step()`` marks delimit calls
    directory, name     where windows go (default ``$CANN_NB_DIR|./profile_results/NAME.monitor``)
    collectors          "torch" (default when torch is imported): bursts record torch ops of all threads;
                        () or None without torch: timing, host counters and custom metrics only
    options             burst CollectOptions (default: no shapes, allocations or stacks; buffer_events
                        bounds the events kept per burst, the rest counted in ``dropped``)
    max_windows, max_age_s   retention (default 1440 windows, 7 days; None = no limit)
    baseline_windows, min_baseline_windows, warmup_windows   the rolling baseline (20, 3, 1)
    thresholds          anomaly rule overrides, e.g. {"p99_latency": {"margin_pct": 50}, "error_rate": None}
    keep_calls, max_events   stored op events: those of the first 5 profiled calls, at most 20,000
    max_burst_events    about how many op events one burst may record (default 5,000)
    sample_interval     host sampler period (default interval / 15, within 0.02-4 s: a sample in a
                        busy server costs 1-10 ms of CPU on a VM, where merely waking a sleeping thread
                        costs ~2.5 ms (benchmarks/README.md "Monitoring"); 15 per window show the trends)
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
        if set(collectors) - {"torch"}:
            raise ValueError(f"monitoring bursts record torch ops (collectors='torch' or none), not {collectors!r}: "
                             "they run on the monitor's thread and record every thread, which only torch.profiler "
                             "can do; host counters and custom metrics are sampled in every window anyway")
        self.collectors = tuple(collectors)
        self.options = options or CollectOptions(memory=False, shapes=False, stack=False, flops=False)
        self.max_windows, self.max_age_s = max_windows, max_age_s
        self.thresholds = rules.thresholds_for(thresholds)
        self.baseline = Baseline(baseline_windows, min_baseline_windows, warmup_windows)
        self.keep_calls, self.max_events = int(keep_calls), int(max_events)
        self.max_burst_events = int(max_burst_events)
        self._events_per_s = None                    # learnt from the bursts: bounds the next burst's length
        self.burst_note = None                       # why bursts cannot run here, if so
        self.sample_interval = float(sample_interval) if sample_interval else max(0.02, min(4.0, interval / 15))
        self.on_anomaly = on_anomaly
        self.keep = bool(store)
        self.exit_timeout = float(exit_timeout)
        self._random = random.Random(seed)
        self._rec = Recorder()
        self._fn = fn
        self.windows: deque = deque(maxlen=1000)     # summaries of the windows of this run, oldest first
        self.anomalies: deque = deque(maxlen=1000)   # (window seq, anomaly dict)
        self.errors: deque = deque(maxlen=100)       # the monitor's own failures, as text
        self.removed = 0                             # windows removed by retention
        self.bursts_skipped = 0                      # bursts not run: torch busy with another profile, or failed
        self._bursts: list = []                      # this window's finished bursts (window thread only)
        self._thread: threading.Thread | None = None
        self._warm_thread: threading.Thread | None = None
        self._halt = threading.Event()
        self._wake = threading.Event()               # ends a burst early: stop() or a preempting profile
        self._lock = threading.Lock()
        self._store = None
        self._host = None
        self.running = False

    # -- what the served code calls -----------------------------------------------------------
    def wrap(self, fn):
        """A wrapper of ``fn`` whose every call is timed (and, in a burst, profiled)."""
        if not callable(fn):
            raise TypeError("monitor.wrap(fn): fn must be callable")
        monitored = functools.wraps(fn)(self._rec.timed(fn))
        monitored.monitor = self
        return monitored

    def __call__(self, *args, **kwargs):
        """Call the monitored ``fn`` (the one given at start)."""
        # Recorder.timed's body, inlined: the served path stays one Python frame (see Recorder.timed)
        rec, fn = self._rec, self._fn
        if fn is None:
            raise TypeError("this monitor has no fn: pass fn= to start_continuous_monitoring, or use monitor.wrap(f)")
        if rec.bursting or rec.off:
            return rec._slow_call(fn, args, kwargs)
        t = _now()
        try:
            out = fn(*args, **kwargs)
        except BaseException:
            rec._err.append(_now() - t)
            raise
        rec._lat.append(_now() - t)
        return out

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
            self._halt.set()
            self._wake.set()
            thread = self._thread
        deadline = time.monotonic() + timeout
        warm = self._warm_thread
        if warm is not None and warm.ident is not None:   # torch.profiler's initialisation cannot be interrupted
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
        want = "torch" in self.collectors and self.sample_rate > 0
        if want:
            from .burst import unsupported_reason

            self.burst_note = unsupported_reason()
            if self.burst_note:
                log.warning("cann_nb monitor %r: no profiling bursts: %s", self.name, self.burst_note)
                want = False
        self._bursts_on = want
        self._warm = not want
        try:
            self._open_window()
        except Exception as exc:
            self._error(f"could not open window: {type(exc).__name__}: {exc}")
        if not self._warm:   # on its own thread, so that windows keep their schedule meanwhile
            # started before it is published: stop() on another thread joins only a started thread
            warm = threading.Thread(target=self._warm_up, name=THREAD_NAME + "-warmup", daemon=True)
            warm.start()
            self._warm_thread = warm
        k = 1
        while True:
            due = start + k * self.interval
            if self._warm and self._bursts_on and not self._burst_window(due):
                break
            if self._halt.wait(max(due - time.perf_counter(), 0.0)):
                break
            k += 1
            if time.perf_counter() > due + self.interval:   # fell far behind (suspended?): realign
                k = int((time.perf_counter() - start) / self.interval) + 1
            self._rotate(final=False)
        self._rotate(final=True)

    def _burst_window(self, window_end: float) -> bool:
        """This window's burst, at a random instant that lets it end in the window; False when halted."""
        from .burst import Burst

        duration = self.sample_rate * self.interval
        # at most ~max_burst_events op events: the rate is learnt from earlier bursts (the first: 1 s)
        duration = min(duration, self.max_burst_events / self._events_per_s if self._events_per_s else 1.0)
        now = time.perf_counter()
        duration = min(duration, max(window_end - now, 0.0))
        if duration <= 0:
            return True
        at = now + self._random.uniform(0.0, max(window_end - duration - now, 0.0))
        if self._halt.wait(max(at - time.perf_counter(), 0.0)):
            return False
        burst = Burst(f"{self.name}-burst", self.options, on_preempt=self._wake.set)
        self._wake.clear()
        if self._halt.is_set():
            return False
        if not burst.start():
            self.bursts_skipped += 1
            if burst.error:
                self._error(burst.error)
            return True
        self._rec.bursting = True
        try:
            self._wake.wait(duration)
            halted = self._halt.is_set()
        finally:
            self._rec.bursting = False
            burst.stop()                 # on this thread, which started it
            self._bursts.append(burst)
        return not halted

    def _warm_up(self) -> None:
        """torch.profiler's first start in a process costs 1-5 s: pay it here, not in a served call.
        Bursts are armed from the first window that opens after it."""
        from ..collect.session import torch_busy
        from ..collect.torch_collector import TorchCollector

        try:
            if not torch_busy():   # a running profile has warmed torch.profiler up already
                TorchCollector.warm_up()
        except Exception as exc:  # torch failed to start here: recorded in errors, the windows go on
            self._error(f"torch.profiler warm-up failed: {type(exc).__name__}: {exc}")
        self._warm = True

    def _open_window(self) -> None:
        from ..collect.session import CollectionSession

        self._w_seq = self._seq
        self._seq += 1
        host = CollectionSession(f"w{self._w_seq:06d}", ("host",),
                                 # process CPU and RSS only: per-core CPU is for profiles, not worth its cost here
                                 CollectOptions(memory=True, interval_s=self.sample_interval, cpu_cores=False),
                                 {"kind": "monitor", "monitor": self.name})
        _start_quietly(host)
        self._host = host
        self._w_t0 = host.t0_ns
        self._skipped0 = self.bursts_skipped

    def _rotate(self, final: bool) -> None:
        t_build = time.perf_counter()
        end_ns = time.time_ns()
        host, seq, t0_ns = self._host, self._w_seq, getattr(self, "_w_t0", end_ns)
        lat, err, prof_calls = self._rec.take()
        bursts, self._bursts = self._bursts, []
        skipped = self.bursts_skipped - getattr(self, "_skipped0", 0)
        if host is not None:
            try:
                host.stop()
            except Exception as exc:
                self._error(f"host sampler stop failed: {exc!r}")
        if final:
            self._host = None
        else:
            try:
                self._open_window()
            except Exception as exc:
                self._host = None
                self._error(f"could not open window: {type(exc).__name__}: {exc}")
        if host is None and not lat and not err and not prof_calls and not bursts:
            return
        if final and not lat and not err and not prof_calls and not bursts and end_ns - t0_ns < 0.1 * self.interval * 1e9:
            if host is not None:
                host.close()
            return                                   # a stop right after a rotation: nothing to keep
        try:
            self._finish_window(host, seq, t0_ns, end_ns, lat, err, prof_calls, bursts, skipped, final, t_build)
        except Exception as exc:
            self._error(f"window {seq} failed: {type(exc).__name__}: {exc}")

    def _finish_window(self, host, seq, t0_ns, end_ns, lat, err, prof_calls, bursts, skipped, final,
                       t_build) -> None:
        host_profile = None
        if host is not None:
            try:
                host_profile = host.finish()
            except Exception as exc:
                host.close()
                self._error(f"window {seq}: host counters lost: {exc!r}")
        pairs = []
        for b in bursts:
            try:
                prof, lost = b.profile()
            except Exception as exc:
                prof, lost = None, 0
                self._error(f"window {seq}: burst conversion failed: {type(exc).__name__}: {exc}")
            pairs.append((prof, lost))
            if prof is not None and b.seconds > 0:
                eps = max((len(prof.events) + lost) / b.seconds, 1.0)
                self._events_per_s = eps if self._events_per_s is None else 0.5 * self._events_per_s + 0.5 * eps
        profile, summary = window.build(
            monitor=self.name, seq=seq, host=host_profile, bursts=pairs, prof_calls=prof_calls, t0_ns=t0_ns,
            end_ns=end_ns, lat=lat,
            err=err, perf_to_epoch_ns=self._offset, keep_calls=self.keep_calls, max_events=self.max_events,
            partial=final, skipped=skipped)
        summary["burst_s"] = round(sum(b.seconds for b in bursts), 6)   # time the op profiler recorded
        base = self.baseline.stats()
        found = rules.evaluate(summary, base, list(self.baseline.recent_peaks) + [summary["peak_memory_bytes"]],
                               self.thresholds)
        summary["anomalies"] = found
        summary["baseline"] = {k: base.get(k) for k in ("windows", "p50", "p99", "peak_memory_bytes")}
        summary["baseline_member"] = self.baseline.observe(summary, bool(found))
        summary["config"] = {"interval_s": self.interval, "sample_rate": self.sample_rate,
                             "collectors": list(self.collectors)}
        if self.burst_note:
            summary["config"]["bursts"] = f"off: {self.burst_note}"
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
