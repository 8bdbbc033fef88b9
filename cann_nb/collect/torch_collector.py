"""torch.profiler collector: framework ops, runtime calls and device tasks, memory, steps.

CPU always; CUDA (and ROCm, which torch reports as CUDA) when ``torch.cuda.is_available()``; Ascend
NPUs through ``torch_npu.profiler`` when torch_npu imports and an NPU is present. The NPU path writes
an Ascend profiler folder that ``cann_nb.ingest.ascend.read_ascend`` reads; it follows torch_npu's
documented API but could not be exercised here (no NPU on the machines this was written on).

Costs, measured on torch 2.13 CPU: the first ``profile()`` of a process takes ~1-1.5 s (Kineto
initialisation); later ones start in < 1 ms. ``warm_up()`` pays that once, ideally when the extension
loads, so no cell does. ``start``/``stop`` only switch recording; ``result()`` exports the trace with
the profiler's C++ exporter to a temporary file and reads it with read_kineto (no Python object per
event, unlike ``prof.events()``/``key_averages()``).

Kineto prints ``USDT ... profiler_start/stop`` lines on stderr, which a notebook shows under the cell:
``KINETO_LOG_LEVEL=99`` is set before the first profile, and fd 2 is muted around start and stop in
case Kineto was initialised before cann_nb was imported.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from . import budget as _budget
from . import overhead
from .base import Collected, Collector

os.environ.setdefault("KINETO_LOG_LEVEL", "99")     # read by libkineto when it initialises

_warm_lock = threading.Lock()
_warm_s: float | None = None


@contextmanager
def quiet_stderr():
    """Send fd 2 to /dev/null for the duration (Kineto's C++ logging bypasses sys.stderr)."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _npu_available() -> bool:
    try:
        import torch_npu  # noqa: F401
        import torch

        return bool(torch.npu.is_available())
    except Exception:   # not installed, or installed without a usable CANN runtime
        return False


class TorchCollector(Collector):
    name = "torch"

    @classmethod
    def unavailable_reason(cls) -> str | None:
        try:
            import torch  # noqa: F401
            import torch.profiler  # noqa: F401
        except Exception as exc:   # ImportError, or a broken install raising anything else
            return f"torch is not importable ({type(exc).__name__}: {exc}); pip install torch"
        return None

    @classmethod
    def warm_up(cls) -> float:
        """Pay torch.profiler's one-time start-up cost now (once per process); return its seconds."""
        global _warm_s
        with _warm_lock:
            if _warm_s is not None:
                return 0.0
            import torch
            from torch.profiler import profile

            t = time.perf_counter()
            with quiet_stderr():
                # freeing a block allocated before the start makes torch print its once-per-process
                # "Memory block of unknown size" warning here, silenced, not in the user's first cell
                before = torch.ones(64)
                prof = profile(activities=cls._activities(), profile_memory=True)
                prof.start()
                torch.ones(1).add_(1)
                del before
                prof.stop()
            _warm_s = time.perf_counter() - t
            return _warm_s

    @staticmethod
    def _activities() -> list:
        import torch
        from torch.profiler import ProfilerActivity

        acts = [ProfilerActivity.CPU]
        if torch.cuda.is_available():
            acts.append(ProfilerActivity.CUDA)
        return acts

    def __init__(self, options, t0_ns: int):
        super().__init__(options, t0_ns)
        self._prof = None
        self._npu = False
        self._npu_dir: str | None = None
        self._recording = False
        self.start_s = None      # seconds start() took (meta; the test checks warm starts are fast)
        self.budget = _budget.resolve(options)
        self._guard: _budget.Guard | None = None
        self._window_ns = [0, 0]   # recording start and stop, relative to t0
        self._ended_ns = None      # when the user's code ended (stop() called), relative to t0
        self._owner_thread: int | None = None
        self._probe: dict | None = None   # the in-run measure of recording's cost (stop -> result)

    # -- around the user's code -----------------------------------------------------------------
    def start(self) -> None:
        if _warm_s is None:
            self.warm_up()     # once per process; a notebook pays it when the extension loads
        t = time.perf_counter()
        o = self.options
        # with_flops is not asked of torch: its FLOPs never reach the trace (see torch_flops)
        kwargs = dict(record_shapes=o.shapes or o.flops, profile_memory=o.memory, with_stack=o.stack)
        if _npu_available():
            self._prof = self._npu_profile(kwargs)
        else:
            from torch.profiler import profile

            # no schedule: the session owns step events (cat "step", one lane, for every collector);
            # a schedule would add a ProfilerStep#N span covering the same time again
            self._prof = profile(activities=self._activities(), **kwargs,
                                 **trace_only_config(self._full_results()))
        self._window_ns[0] = time.time_ns() - self.t0_ns
        self._ended_ns = None
        self._owner_thread = threading.get_ident()
        with quiet_stderr():
            self._prof.start()
        self._recording = True
        if not self._npu:   # [issue 19] the memory budget: pause recording in this thread when reached
            from .call_sites import CallSiteSampler

            self._guard = _budget.Guard(self.budget.pause_at(kwargs["record_shapes"], self._full_results()),
                                        self._pause_recording, self.t0_ns,
                                        sampler=CallSiteSampler(threading.get_ident(), self.t0_ns)).start()
        self.start_s = time.perf_counter() - t

    def _npu_profile(self, kwargs):
        # Untested here (no NPU): torch_npu's profiler mirrors torch.profiler's; with analyse_flag=False
        # stop() only writes the raw data, and result() runs the offline analysis into
        # ASCEND_PROFILER_OUTPUT, which read_ascend understands.
        import torch_npu

        self._npu = True
        self._npu_dir = tempfile.mkdtemp(prefix="cann_nb_npu_")
        acts = [torch_npu.profiler.ProfilerActivity.CPU, torch_npu.profiler.ProfilerActivity.NPU]
        handler = torch_npu.profiler.tensorboard_trace_handler(self._npu_dir, analyse_flag=False)
        return torch_npu.profiler.profile(activities=acts, on_trace_ready=handler, **kwargs)

    def step(self) -> None:
        """Steps are the session's (collect/session.py); torch records no ProfilerStep#N of its own.
        A step boundary is where a recording outside the main thread honours the budget."""
        if self._guard is not None:
            self._guard.check_in_thread()

    def _pause_recording(self, full: bool) -> None:
        """The budget is reached (called in the recording thread): stop recording ops, or everything."""
        if not self._recording:
            return
        import sys

        print(f"cann_nb: memory budget of {self.budget.max_memory / _budget.GIB:.2f} GiB reached: torch "
              f"{'stopped' if full else 'no longer records ops'}; the code runs on and the profile will say what "
              "was not recorded", file=sys.stderr)
        if full:
            self._stop_profiler()
            return
        with quiet_stderr():   # torch warns "Toggling CPU activity with GPU activity on..." on stderr
            self._prof.toggle_collection_dynamic(False, self._activities())

    def stop(self) -> None:
        if self._ended_ns is None:   # the end of the user's code (recording may have stopped before it)
            self._ended_ns = time.time_ns() - self.t0_ns
        if self._guard is not None:
            self._guard.stop()
        probing = self._probe_recorded()
        self._stop_profiler()
        if probing:
            self._probe["bare_ns"] = overhead.probe_rounds()

    def _probe_recorded(self) -> bool:
        """Time a few short loops of small ops while still recording, after the user's code (outside the
        session's window; their events are dropped in result()): what recording costs per op in this very
        process, its heap and its threads, which a separate measurement understates (collect/overhead.py).
        Once per process and set of options: the probe's events cost the stop and the reading ~5 ms."""
        if not self._recording or self._npu or threading.get_ident() != self._owner_thread or \
                (self._guard is not None and self._guard.reached_ns is not None) or \
                self._options_key() in overhead.IN_RUN:
            return False
        self._probe = {"from_ns": time.time_ns() - self.t0_ns}
        self._probe["recorded_ns"] = overhead.probe_rounds()
        return True

    def _stop_profiler(self) -> None:
        if not self._recording:
            return
        self._recording = False
        self._window_ns[1] = time.time_ns() - self.t0_ns
        with quiet_stderr():
            self._prof.stop()

    # -- afterwards -----------------------------------------------------------------------------
    def result(self) -> Collected:
        if self._prof is None:
            return Collected(meta={"status": "not started"})
        self.stop()
        prof = self._read_npu() if self._npu else self._read_trace()
        events, memory = prof.events, prof.memory
        events, memory, probe = self._without_probe(events, memory)
        o = self.options
        if o.flops and len(events):
            from .torch_flops import estimate_flops

            est = estimate_flops(events)
            events["flops"] = np.where(np.isfinite(events["flops"].to_numpy()), events["flops"].to_numpy(), est)
        shapes = o.shapes or o.flops
        bound = min(int(o.buffer_events), self.budget.events_bound(shapes, self._full_results()))
        events, memory, dropped = keep_first(events, memory, bound)
        meta = self._meta(prof, events)
        if probe and isinstance(meta.get("overhead"), dict) and "ns_per_event" in meta["overhead"]:
            meta["overhead"].update(probe)
        meta["budget"] = self._budget_meta(events, shapes, dropped)
        if "value_numbering" in prof.meta:
            from .torch_values import counts

            meta["value_numbering"] = {**prof.meta["value_numbering"], **counts(events)}
        if self._guard is not None and self._guard.sampler is not None:
            meta["call_sites"] = self._guard.sampler.meta(_budget.POLL_S)
        return Collected(events=events, memory=memory, counters=prof.counters, meta=meta,
                         devices=[d for d in prof.meta.get("devices", []) if d.get("device") != "cpu"] or
                         self._device_list(), dropped=dropped)

    def _without_probe(self, events: pd.DataFrame, memory: pd.DataFrame):
        """The events less the probe's (everything from its start on), and the cost per op it measured."""
        pr = self._probe
        if not pr or "bare_ns" not in pr or not len(events):
            return events, memory, dict(overhead.IN_RUN.get(self._options_key(), {}))
        late = events["start_ns"].to_numpy() >= pr["from_ns"]
        ops = int((late & (events["cat"].to_numpy() == "op")).sum())
        events = events[~late].reset_index(drop=True)
        if memory is not None and len(memory):
            memory = memory[memory["ts_ns"].to_numpy() < pr["from_ns"]].reset_index(drop=True)
        if not ops:
            return events, memory, {}
        per_round = ops / len(pr["recorded_ns"])
        k = max(0.0, (min(pr["recorded_ns"]) - min(pr["bare_ns"])) / per_round)
        got = {"in_run_ns_per_event": k,
               "in_run_method": f"after the user's code in this process's first profile, {len(pr['recorded_ns'])} "
                                f"rounds of {overhead.PROBE_ITERS} x index + .item() ({per_round:.0f} op events "
                                "each) recorded, then bare; best of each"}
        overhead.IN_RUN[self._options_key()] = got
        return events, memory, dict(got)

    def _values(self) -> bool:
        """Whether calls get value signatures (torch_values): it needs the inputs (shapes) and the
        allocations (memory) torch records, and the results ``trace_only`` would leave out."""
        o = self.options
        return bool(getattr(o, "values", True) and (o.shapes or o.flops) and o.memory) and not self._npu

    def _full_results(self) -> bool:
        """Whether torch keeps its per-event results (stacks, value signatures): the budget's larger factor."""
        return bool(self.options.stack) or self._values()

    def _options_key(self) -> tuple:
        o = self.options
        return bool(o.shapes or o.flops), bool(o.memory), bool(o.stack)

    def _read_trace(self):
        prof, self._prof = self._prof, None    # read_torch_trace frees torch's results before reading
        return read_torch_trace(prof, self.t0_ns, self.options.stack, "torch", values=self._values())

    def _budget_meta(self, events: pd.DataFrame, shapes: bool, cut: int) -> dict:
        ops = events["cat"].to_numpy() == "op" if len(events) else np.zeros(0, dtype=bool)
        span = None
        if ops.any():
            start = events["start_ns"].to_numpy()[ops]
            span = (int(start.min()), int((start + events["dur_ns"].to_numpy()[ops]).max()))
        # what was not recorded runs to the end of the user's code, also when the budget stopped torch early
        window = [self._window_ns[0], self._ended_ns if self._ended_ns is not None else self._window_ns[1]]
        return _budget.budget_meta(self.budget, self._guard, shapes, self._full_results(), window,
                                   int(ops.sum()), span, cut)

    def _read_npu(self):
        import torch_npu
        from ..ingest.ascend import read_ascend

        folders = sorted(Path(self._npu_dir).glob("*_ascend_pt"))
        if not folders:
            raise RuntimeError(f"torch_npu wrote no profiler folder under {self._npu_dir}")
        with quiet_stderr():
            torch_npu.profiler.profiler.analyse(str(folders[-1]))
        return read_ascend(folders[-1], t0_ns=self.t0_ns)

    def _meta(self, prof, events: pd.DataFrame) -> dict:
        import torch

        o = self.options
        counts = events["cat"].value_counts() if len(events) else pd.Series(dtype=int)
        return {
            "torch_version": torch.__version__,
            "activities": [a.name for a in self._activities()] if not self._npu else ["CPU", "NPU"],
            "options": {"record_shapes": o.shapes or o.flops, "profile_memory": o.memory, "with_stack": o.stack,
                        "flops": "estimated from shapes (torch_flops)" if o.flops else False},
            "devices": self._device_list(),
            "event_counts": {str(k): int(v) for k, v in counts.items() if v},
            "memory_events": int(len(prof.memory)),
            "warm_up_s": _warm_s,
            "start_s": self.start_s,
            "trace": {k: prof.meta.get("kineto", {}).get(k) for k in ("schema_era", "links", "timestamp_precision")},
            "dropped_python_function": prof.meta.get("dropped", {}).get("python_function", 0),
            # what recording cost each op (the advisor's gains are for the run without the profiler)
            "overhead": None if self._npu else overhead.describe(
                lambda: overhead.torch_cost(bool(o.shapes or o.flops), bool(o.memory), bool(o.stack))),
        }

    @staticmethod
    def _device_list() -> list:
        import torch

        out = []
        if torch.cuda.is_available():
            for i in range(torch.cuda.device_count()):
                p = torch.cuda.get_device_properties(i)
                out.append({"device": f"cuda:{i}", "name": p.name, "total_memory": int(p.total_memory),
                            "compute_capability": f"{p.major}.{p.minor}",
                            "multi_processor_count": int(p.multi_processor_count)})
        return out

    def close(self) -> None:
        if self._recording:
            try:
                self.stop()
            except Exception:
                pass
        self._prof = None
        if self._npu_dir:
            import shutil

            shutil.rmtree(self._npu_dir, ignore_errors=True)
            self._npu_dir = None


def trace_only_config(stack: bool) -> dict:
    """torch's ``trace_only`` option when it applies: its results then skip the per-event objects only
    ``prof.events()`` needs (~20 % of its memory after stop; with_stack needs them). Older torch: none."""
    if stack:
        return {}
    try:
        from torch._C._profiler import _ExperimentalConfig

        return {"experimental_config": _ExperimentalConfig(trace_only=True)}
    except (ImportError, TypeError):
        return {}


def read_torch_trace(prof, t0_ns: int, python_functions: bool, name: str, values: bool = False):
    """The Profile of a stopped torch.profiler run: torch's C++ Chrome-trace export to a temporary file,
    torch's results freed (so the conversion reuses their memory instead of adding to it), then the file
    read by read_kineto, which streams it into columns. With ``values``, before the results are freed, the
    calls' value signatures (torch_values: the events' ``value_sig``, ``value_kind``, ``value_known``) from
    torch's event tree and the file's list arguments. ``prof`` is unusable afterwards."""
    from ..ingest.kineto import read_kineto

    fd, path = tempfile.mkstemp(prefix="cann_nb_torch_", suffix=".json")
    os.close(fd)
    calls = None
    try:
        with quiet_stderr():
            prof.export_chrome_trace(path)
        try:
            if values:
                from . import torch_values

                calls, numbering = torch_values.value_numbers(prof, torch_values.concrete_lists(path))
        finally:
            release_results(prof)
        out = read_kineto(path, t0_ns=t0_ns, python_functions=python_functions, name=name)
    finally:
        Path(path).unlink(missing_ok=True)
    if calls is not None:
        for col, v in torch_values.attach(out.events, calls).items():
            out.events[col] = v
        out.meta["value_numbering"] = numbering
    return out


def release_results(prof) -> None:
    """Free a stopped torch.profiler's results (its largest memory) and give the pages back."""
    inner = getattr(prof, "profiler", None)
    if inner is not None:
        for attr in ("kineto_results", "_function_events", "_old_function_events"):
            if hasattr(inner, attr):
                setattr(inner, attr, None)
    _budget.give_back_freed_memory()


def keep_first(events: pd.DataFrame, memory: pd.DataFrame, bound: int):
    """(events, memory, dropped): the earliest ``bound`` events (rows are in time order, parents before
    children); allocations owned by a dropped event lose their owner."""
    bound = int(bound)
    dropped = len(events) - bound
    if dropped <= 0:
        return events, memory, 0
    events = events.iloc[:bound].copy()
    par = events["parent"].to_numpy()
    events["parent"] = np.where(par < bound, par, -1)
    if len(memory):
        memory = memory.copy()
        memory["event_id"] = np.where(memory["event_id"] < bound, memory["event_id"], -1)
    return events, memory, dropped
