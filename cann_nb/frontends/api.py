"""The Python API: profile scripts and services the way ``%%cann_profile`` profiles a cell.

    from cann_nb import Profiler

    prof = Profiler(output_path="./profile_results", name="train")
    with prof:                              # or prof.start() ... prof.stop()
        for batch in loader:
            train_step(batch)
            prof.step()                     # one step per iteration
    prof.findings()                         # the advisor's findings (displayed too, in a notebook)
    prof.analyze()                          # DESIGN.md's analyze object, as Profile.analyze()
    prof.compare("train@1", "train")        # before/after

    @Profiler(name="predict")               # decorator: one stored profile per call ...
    def predict(x): ...

    with prof:                              # ... or, while ``prof`` runs, one step per call
        for x in xs:
            prof_decorated(x)

Every ``stop()`` stores the profile under ``output_path/name`` (a reused name keeps the earlier one
as ``name@k``) and returns it. ``start_continuous_monitoring()`` watches a long-running process
(see ``cann_nb.monitor``).

Modes (``mode=`` or the ``PROFILER_MODE`` environment variable; explicit ``memory=``/``shapes=``/
``stack=``/``flops=`` arguments win over the mode):

========== ================================================================================
basic      torch ops (no shapes, no allocation events, no stacks) + host counters: lightest
detailed   torch ops with input shapes, dtypes, FLOP estimates, allocation events and Python
           stacks + host counters: fullest (torch.profiler costs ~1.15-1.25x on real models)
(unset)    the magic's defaults: torch ops with input shapes and allocation events, no stacks + host
========== ================================================================================

Without torch in the process the collectors are the Python function tracer + host, in every mode.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

from ..collect.base import DEFAULT_INTERVAL_S, CollectOptions
from ..collect.flags import MODE_ENV, MODES, choose, resolve_mode  # noqa: F401 (one reader of $PROFILER_MODE)

# Memory per event: the peak RSS growth of a torch.profiler run per kept event, collection + conversion
# (torch's own records, the exported trace text, the columnar tables): 2.37-2.43 KB measured at 40k-600k
# events (benchmarks/monitoring.py --bytes-per-event). set_buffer_size(bytes) keeps bytes // this events
# in the other collectors; torch's recording is bounded by the memory budget (collect/budget.py).
BYTES_PER_EVENT = 2400


def _in_notebook() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


class Findings(list):
    """The advisor's findings (a list of Finding) that renders as a table in a notebook."""

    _shown_at = None   # execution count of the cell that already displayed this list
    skipped_note = ""  # the rules the profile's data did not let run, and the flags that enable them

    def frame(self):
        from ..analyze.finding import findings_frame

        return findings_frame(self)

    def _text(self) -> str:
        lines = [f"cann_nb: {len(self)} finding(s), largest estimated gain first" if self else "cann_nb: no findings"]
        for f in self:
            gain = f.est_gain_pct
            g = f"{gain:5.1f}%" if gain is not None and gain == gain else "    ?"
            lines.append(f"  [{f.severity:<6}] {g}  {f.title}")
        if self.skipped_note:
            lines.append("  " + self.skipped_note)
        return "\n".join(lines)

    def _repr_mimebundle_(self, include=None, exclude=None):
        from html import escape

        if self._shown_at is not None and self._shown_at == _execution_count():
            # findings() displayed the table in this very cell; the cell's Out[] only says so
            return {"text/plain": f"<{len(self)} finding{'' if len(self) == 1 else 's'}, shown above>"}
        df = self.frame()[["severity", "category", "title", "est_gain_pct", "suggestion"]] if self else None
        html = df.to_html(index=False, escape=True) if df is not None else f"<pre>{escape(self._text())}</pre>"
        if df is not None and self.skipped_note:
            html += f"<p>{escape(self.skipped_note)}</p>"
        return {"text/plain": self._text(), "text/html": html}

    def __repr__(self) -> str:
        return self._text()


def _execution_count():
    try:
        from IPython import get_ipython

        shell = get_ipython()
        return getattr(shell, "execution_count", None) if shell is not None else None
    except ImportError:
        return None


class Profiler:
    """Profile code from a script or service; see the module docstring."""

    def __init__(self, output_path=None, name: str | None = None, collectors=None, memory: bool | None = None,
                 shapes: bool | None = None, mode: str | None = None, stack: bool | None = None,
                 flops: bool | None = None, interval_ms: float = DEFAULT_INTERVAL_S * 1000, store: bool = True,
                 max_memory: int | None = None, max_events: int | None = None):
        from ..store import check_name, default_root

        self.mode = resolve_mode(mode)
        chosen = choose(self.mode, dict(memory=memory, shapes=shapes, stack=stack, flops=flops))
        if not interval_ms > 0:
            raise ValueError("interval_ms must be a positive number of milliseconds")
        self.options = CollectOptions(interval_s=interval_ms / 1000.0, **chosen)
        self._set_budget(max_memory, max_events)
        if isinstance(collectors, str):
            collectors = [c.strip() for c in collectors.split(",") if c.strip()]
        if collectors is not None:
            from .. import collect

            unknown = [c for c in collectors if c not in collect.names()]
            if unknown or not collectors:
                raise ValueError(f"unknown collector(s) {', '.join(unknown) or '(none)'}; "
                                 f"choose from {', '.join(collect.names())}")
            collectors = tuple(collectors)
        self.collectors = collectors            # None: torch+host when torch is imported, else python+host
        self.output_path = Path(output_path) if output_path is not None else default_root()
        self.name = check_name(name or _default_name())
        self.keep = bool(store)
        self.session = None
        self.profile = None                     # the last finished Profile
        self.profiles: list = []                # every Profile this object finished
        self.clock_sync = False
        self._clock_start = None
        self._monitor = None
        self._store = None

    # -- configuration ----------------------------------------------------------------------
    def _set_budget(self, max_memory, max_events) -> None:
        """The collection's memory budget (collect/budget.py); None keeps the default (sized from the
        machine when each run starts)."""
        if max_memory is not None:
            if int(max_memory) <= 0:
                raise ValueError("max_memory must be a positive number of bytes")
            self.options.max_memory = int(max_memory)
        if max_events is not None:
            if int(max_events) <= 0:
                raise ValueError("max_events must be at least 1")
            self.options.max_events = self.options.buffer_events = int(max_events)

    def set_buffer_size(self, nbytes: int) -> int:
        """Bound collector memory to about ``nbytes`` (the memory budget, as ``max_memory=``): torch's
        recording pauses when what it recorded, once converted, would need ``nbytes`` (collect/budget.py;
        ops after that moment are not recorded, the profile says from when and about how many), and each
        other collector keeps at most ``nbytes // BYTES_PER_EVENT`` events (BYTES_PER_EVENT = 2400,
        measured); later ones are counted in ``meta["dropped"]`` and reported (summary line, warning),
        never silently lost. Returns the event bound of the other collectors."""
        nbytes = int(nbytes)
        if nbytes <= 0:
            raise ValueError("buffer size must be a positive number of bytes")
        self.options.max_memory = nbytes
        self.options.buffer_events = max(nbytes // BYTES_PER_EVENT, 1)
        return self.options.buffer_events

    def enable_clock_sync(self, enabled: bool = True) -> "Profiler":
        """Measure host (and CUDA/NPU device) clock offsets around each run into ``meta["clock_sync"]``
        (see ``cann_nb.collect.clock_sync``); device events that start before their launch are shifted."""
        self.clock_sync = bool(enabled)
        return self

    @staticmethod
    def add_custom_metric(name: str, fn, per: str = "sample", unit: str | None = None):
        """Record ``fn()`` as metric ``name`` in every profile from now on (process-wide): with the
        host counters (``per="sample"``), at each step (``per="step"``), or ``fn(profile)`` on the
        finished profile (``per="profile"``). See ``cann_nb.collect.custom_metrics``."""
        from ..collect.custom_metrics import add_custom_metric

        return add_custom_metric(name, fn, per=per, unit=unit)

    @staticmethod
    def remove_custom_metric(name: str) -> None:
        from ..collect.custom_metrics import remove_custom_metric

        remove_custom_metric(name)

    # -- running ----------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.session is not None and self.session.running

    def start(self) -> "Profiler":
        """Start collecting (the Python tracer, when used, records the calling frame)."""
        if self.running:
            raise RuntimeError(f"Profiler {self.name!r} is already running; stop() it first")
        from ..collect.session import CollectionSession

        if self.clock_sync:
            from ..collect.clock_sync import host_offsets

            self._clock_start = host_offsets()
        source = {"kind": "api", "path": _script_path(), "mode": self.mode}
        self.session = CollectionSession(self.name, self.collectors, self.options, source)
        self.session.start(adopt_caller=True)
        return self

    def step(self) -> None:
        """Mark an iteration boundary (each step becomes a ``step`` event; per-step custom metrics
        are read here). Also feeds continuous monitoring in step mode. Does nothing when idle."""
        if self.session is not None and self.session.running:
            self.session.mark_step()
        if self._monitor is not None and self._monitor.running:
            self._monitor.step()

    def stop(self, status: str = "ok", error: str | None = None):
        """Stop, build, store and return the Profile (None if it was not running)."""
        session, self.session = self.session, None
        if session is None:
            return None
        try:
            session.stop(status, error)
            profile = session.finish()
        except BaseException:
            session.close()
            raise
        profile.meta["options"]["mode"] = self.mode
        if self.clock_sync and self._clock_start is not None:
            from ..collect.clock_sync import apply, device_offsets, host_offsets

            apply(profile, self._clock_start, host_offsets(), device_offsets())
        if self.keep:
            try:
                stored = self.store.add(profile)
                profile.meta["stored_at"] = str(self.store.path(stored))
            except Exception as exc:  # a full disk must not lose the caller's result
                from ..errors import StoreError

                why = exc if isinstance(exc, StoreError) else f"could not store profile {self.name!r}: {exc}"
                print(f"cann_nb: {why} (the profile is still returned, and kept as Profiler.profile)",
                      file=sys.stderr)
        self.profile = profile
        self.profiles.append(profile)
        return profile

    def __enter__(self) -> "Profiler":
        return self.start()

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:
            self.stop()
        else:
            interrupted = issubclass(exc_type, KeyboardInterrupt)
            self.stop("interrupted" if interrupted else "failed", f"{exc_type.__name__}: {exc}")
        return False  # never swallow the caller's exception

    def __call__(self, fn):
        """Decorator. While this profiler runs, each call of ``fn`` is one step of the running profile;
        otherwise each call is profiled on its own and stored (``name``, older calls ``name@k``)."""
        if not callable(fn):
            raise TypeError("Profiler(...) decorates a function: @Profiler(name=...) def f(...): ...")

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if self.running:
                self.step()
                return fn(*args, **kwargs)
            with self:
                return fn(*args, **kwargs)

        wrapper.profiler = self
        return wrapper

    # -- results ----------------------------------------------------------------------------
    @property
    def store(self):
        from ..store import Session

        if self._store is None:
            self._store = Session(self.output_path)
        return self._store

    @property
    def dropped(self) -> dict:
        """Events the last profile's collectors dropped at the buffer bound, by collector."""
        return dict((self.profile.meta.get("dropped") or {}) if self.profile is not None else {})

    def _resolve(self, what):
        """The last profile for None, else what ``ingest.load.resolve`` makes of ``what`` in this store."""
        if what is None:
            if self.profile is None:
                raise ValueError("nothing profiled yet: run start()/stop() (or pass a profile)")
            return self.profile
        from ..ingest.load import resolve

        return resolve(what, self.store)

    def analyze(self, profile=None) -> dict:
        """DESIGN.md's ``analyze --json`` object for ``profile`` (default: the last one; a Profile, a stored
        name such as ``'train@1'``, or a path): the same as ``Profile.analyze()``."""
        from ..analyze.api import analyze

        return analyze(self._resolve(profile))

    def findings(self, profile=None, display: bool | None = None) -> Findings:
        """The advisor's findings for ``profile`` (default: the last one; a Profile, a stored name or
        a path), largest estimated gain first. In a notebook they are displayed as a table too."""
        from ..analyze.api import findings
        from ..analyze.rules.coverage import skipped_note, skipped_rules

        resolved = self._resolve(profile)
        found = Findings(findings(resolved))
        found.skipped_note = skipped_note(skipped_rules(resolved))
        if display if display is not None else _in_notebook():
            from IPython.display import display as show

            show(found)
            found._shown_at = _execution_count()
        return found

    def compare(self, before, after, **options):
        """Compare two profiles (stored names such as ``'profile_v1'``, paths, or Profiles; None: the
        last one) with ``cann_nb.compare``; resolved findings go to this store's track record."""
        from .compare import compare

        return compare(self._resolve(before), self._resolve(after), store=self.store, **options)

    # -- continuous monitoring -------------------------------------------------------------
    def start_continuous_monitoring(self, interval: float = 60.0, sample_rate: float = 0.05, fn=None, **kwargs):
        """Watch a long-running process; returns the ``cann_nb.monitor.Monitor``.

        Each ``interval`` seconds becomes one window, stored as a compact profile in
        ``output_path/<name>.monitor/``. ``fn``: the function (or nn.Module) whose calls are timed;
        call it through the returned monitor (``monitor(x)``) or decorate with ``monitor.wrap``. A
        ``sample_rate`` fraction of the time (one burst per window) runs under the op collector.
        Without ``fn``, ``step()`` marks define the calls. See cann_nb.monitor for the options."""
        from ..monitor import Monitor

        if self._monitor is not None and self._monitor.running:
            raise RuntimeError("continuous monitoring is already running; stop_continuous_monitoring() first")
        kwargs.setdefault("directory", self.output_path / f"{self.name}.monitor")
        kwargs.setdefault("name", self.name)
        if self.mode == "detailed":
            kwargs.setdefault("options", CollectOptions(**{**self.options.as_dict(), "stack": False}))
        self._monitor = Monitor(interval=interval, sample_rate=sample_rate, fn=fn, **kwargs).start()
        return self._monitor

    def stop_continuous_monitoring(self, timeout: float = 10.0):
        """Stop monitoring, storing the last (partial) window; returns the Monitor (None if idle)."""
        mon = self._monitor
        if mon is not None:
            mon.stop(timeout=timeout)
        return mon

    @property
    def monitor(self):
        return self._monitor

    def __repr__(self) -> str:
        state = "running" if self.running else "idle"
        return f"<cann_nb Profiler {self.name!r} {state}, mode {self.mode}, output {str(self.output_path)!r}>"


def _default_name() -> str:
    import re

    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    stem = Path(path).stem if path else ""
    if stem == "__main__":                       # python -m package: the package's name
        stem = Path(path).parent.name
    stem = re.sub(r"[^A-Za-z0-9_.\-]", "_", stem).lstrip(".-")
    return stem or "profile"


def _script_path():
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    return str(Path(path).resolve()) if path else None


# -- module-level conveniences (cann_nb.start_continuous_monitoring etc.) ----------------------------
_default: Profiler | None = None


def start_continuous_monitoring(interval: float = 60.0, sample_rate: float = 0.05, fn=None, output_path=None,
                                name: str | None = None, **kwargs):
    """Process-wide monitoring without building a Profiler first (see Profiler.start_continuous_monitoring);
    windows go to ``output_path/NAME.monitor/`` (NAME: the script's name by default). Returns the Monitor."""
    global _default
    if _default is not None and _default.monitor is not None and _default.monitor.running:
        raise RuntimeError("continuous monitoring is already running; call stop_continuous_monitoring() first")
    _default = Profiler(output_path=output_path, name=name)
    return _default.start_continuous_monitoring(interval=interval, sample_rate=sample_rate, fn=fn, **kwargs)


def stop_continuous_monitoring(timeout: float = 10.0):
    """Stop the monitoring started by ``cann_nb.start_continuous_monitoring``; returns its Monitor (or None)."""
    return _default.stop_continuous_monitoring(timeout) if _default is not None else None
