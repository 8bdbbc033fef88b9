"""Custom metrics: your own numbers, recorded beside the host counters of every profile.

    import cann_nb
    cann_nb.add_custom_metric("queue_depth", lambda: len(queue))            # sampled with the host counters
    cann_nb.add_custom_metric("loss", lambda: float(loss), per="step")      # once per step (Profiler.step())
    cann_nb.add_custom_metric("n_kernels", lambda p: int((p.events.cat == "kernel").sum()), per="profile")

``per="sample"`` (default) and ``per="step"`` metrics are *measured while the code runs* and land in the
profile's ``counters`` table as rows ``source="custom", metric=NAME`` - the same table the host sampler
fills - so ``profile.counters``, the charts' counter series, reports, ``analyze --json`` (under
``"metrics"``, as n/mean/min/max/last) and ``check --metric NAME`` see them like any other counter.
``per="profile"`` metrics are *derived from a profile* when it is analysed (any profile: collected,
stored or imported): ``analyze()`` reports ``fn(profile)`` under ``"metrics"`` and ``check --metric
NAME`` gates on it. This registry is the only one; the analysis reads it.

The registry is process-wide (like the advisor's user rules): every profile taken after registration -
``Profiler``, ``%%cann_profile``, continuous monitoring windows - records the metric, through the
``custom`` collector below, which the collection session adds whenever a metric is registered.

Sampling: ``sample`` metrics are read on a daemon thread every ``options.interval_s`` (the host
sampler's period), plus once at start and once at stop; ``step`` metrics are read at each step
boundary (the value describes the step that just ended) and at stop. ``fn()`` runs on the sampling
thread for ``sample`` metrics and on the stepping thread for ``step`` ones. A metric that raises,
returns something that is not a number, or returns NaN is counted (``meta.collectors.custom.metrics.
NAME.errors`` with the last error) and skipped for that sample; sampling goes on. ``None`` means "no
value now" and is neither stored nor counted as an error.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from .base import Collected, Collector
from ..model import categorical

SOURCE = "custom"
KINDS = ("sample", "step", "profile")
THREAD_NAME = "cann_nb-custom-metrics"
_JOIN_TIMEOUT_S = 10.0
_MIN_INTERVAL_S = 0.001


@dataclass(frozen=True)
class CustomMetric:
    name: str
    fn: Callable
    per: str = "sample"
    unit: str | None = None


_METRICS: dict[str, CustomMetric] = {}
_lock = threading.Lock()


def add_custom_metric(name: str, fn: Callable, per: str = "sample", unit: str | None = None) -> CustomMetric:
    """Register ``fn`` as metric ``name`` for every profile taken from now on (process-wide).

    ``per``: ``"sample"`` - ``fn()`` with the host counters; ``"step"`` - ``fn()`` at each step
    boundary; ``"profile"`` - ``fn(profile)`` on each analysed profile, reported by ``analyze()``.
    Registering a name again replaces it. Returns the registration.
    """
    if not isinstance(name, str) or not name.strip() or len(name) > 200 or not name.isprintable():
        raise ValueError(f"invalid metric name {name!r}: use a short printable string")
    if not callable(fn):
        raise TypeError(f"custom metric {name!r}: fn must be callable")
    if per not in KINDS:
        raise ValueError(f"custom metric {name!r}: per must be one of {', '.join(KINDS)}, not {per!r}")
    metric = CustomMetric(name, fn, per, unit)
    with _lock:
        _METRICS[name] = metric
    return metric


def remove_custom_metric(name: str) -> None:
    """Unregister ``name`` (sampled, per-step or per-profile); unknown names are ignored."""
    with _lock:
        _METRICS.pop(name, None)


def registered(per: str | None = None) -> dict[str, CustomMetric]:
    """The registered metrics of kind ``per``, by name; without ``per``, those measured while the code
    runs (``sample`` and ``step``: what the ``custom`` collector records)."""
    with _lock:
        return {n: m for n, m in _METRICS.items() if (m.per == per if per else m.per != "profile")}


def custom_metrics_frame(profile) -> pd.DataFrame:
    """The custom metric rows of a profile's counters table (ts_ns, metric, value)."""
    c = profile.counters
    return c[(c["source"] == SOURCE).to_numpy()].reset_index(drop=True)


def _as_value(got) -> float | None:
    if got is None:
        return None
    if isinstance(got, bool):
        return float(got)
    try:
        v = float(got)  # numbers, numpy scalars, 0-d tensors
    except (TypeError, ValueError):
        raise TypeError(f"returned {type(got).__name__}, not a number") from None
    if math.isnan(v):
        raise ValueError("returned NaN")
    return v


class CustomMetricsCollector(Collector):
    """Reads the registered ``sample`` and ``step`` metrics into counter rows (source ``custom``)."""

    name = "custom"

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return None if registered() else "no custom metrics are registered (cann_nb.add_custom_metric)"

    def __init__(self, options, t0_ns: int):
        super().__init__(options, t0_ns)
        self._thread: threading.Thread | None = None
        self._halt = threading.Event()
        self._lock = threading.Lock()
        self._ts: list[int] = []
        self._names: list[str] = []
        self._values: list[float] = []
        self._dropped = 0
        self._stats: dict[str, dict] = {}
        self._running = False
        self._steps = 0
        self._error: str | None = None

    def start(self) -> None:
        metrics = registered()
        self._sampled = [m for m in metrics.values() if m.per == "sample"]
        self._per_step = [m for m in metrics.values() if m.per == "step"]
        self._stats = {m.name: {"per": m.per, "unit": m.unit, "samples": 0, "errors": 0, "call_s": 0.0}
                       for m in metrics.values()}
        self._interval_s = max(float(self.options.interval_s), _MIN_INTERVAL_S)
        self._max = max(int(self.options.buffer_events), 0)
        self._halt.clear()
        self._running = True
        self._read(self._sampled)
        if self._sampled:
            self._thread = threading.Thread(target=self._run, name=THREAD_NAME, daemon=True)
            self._thread.start()

    def step(self) -> None:
        """A step boundary: the per-step metrics describe the step that just ended."""
        if self._running:
            if self._steps:
                self._read(self._per_step)
            self._steps += 1

    def stop(self) -> None:
        if not self._running:
            return
        self._join()
        self._running = False
        self._read(self._sampled + (self._per_step if self._steps else []))

    def close(self) -> None:
        self._join()
        self._running = False

    def _join(self) -> None:
        self._halt.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(_JOIN_TIMEOUT_S)
            if thread.is_alive():  # a metric function that hangs: the daemon thread ends with the process
                self._error = f"custom metric thread did not stop within {_JOIN_TIMEOUT_S:.0f} s (a metric hangs?)"

    def _run(self) -> None:
        period_ns = int(self._interval_s * 1e9)
        due = time.perf_counter_ns() + period_ns
        while not self._halt.wait(max(due - time.perf_counter_ns(), 0) / 1e9):
            self._read(self._sampled)
            due += period_ns
            now = time.perf_counter_ns()
            if due < now:
                due = now + period_ns

    def _read(self, metrics) -> None:
        for m in metrics:
            st = self._stats[m.name]
            t = time.perf_counter()
            try:
                value = _as_value(m.fn())
            except BaseException as exc:  # noqa: BLE001 - a user's metric must never stop sampling
                if isinstance(exc, (KeyboardInterrupt, SystemExit)) and threading.current_thread() is threading.main_thread():
                    raise
                st["errors"] += 1
                st["last_error"] = f"{type(exc).__name__}: {exc}"[:300]
                continue
            finally:
                st["call_s"] += time.perf_counter() - t
            if value is None:
                continue
            ts = time.time_ns() - self.t0_ns
            with self._lock:
                if len(self._values) >= self._max:
                    self._dropped += 1
                    continue
                self._ts.append(ts)
                self._names.append(m.name)
                self._values.append(value)
            st["samples"] += 1

    def result(self) -> Collected:
        with self._lock:
            ts, names, values = list(self._ts), list(self._names), list(self._values)
        counters = pd.DataFrame({
            "ts_ns": np.asarray(ts, dtype=np.int64),
            "source": categorical(SOURCE, len(ts)),
            "metric": categorical(names),
            "value": np.asarray(values, dtype=np.float64),
        })
        metrics = {}
        for name, st in self._stats.items():
            calls = st["samples"] + st["errors"]
            metrics[name] = {k: v for k, v in st.items() if k != "call_s"}
            metrics[name]["mean_call_us"] = round(1e6 * st["call_s"] / calls, 3) if calls else None
        meta = {"interval_s": getattr(self, "_interval_s", None), "metrics": metrics,
                "clock": "time.time_ns() at each read"}
        if self._error:
            meta["error"] = self._error
        return Collected(counters=counters, meta=meta, dropped=self._dropped)
