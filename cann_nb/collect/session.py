"""One profiling run: starts the chosen collectors around the user's code and merges their output.

Used by the %%cann_profile magic, ``python -m cann_nb run`` and the Python API alike, so that all
three collect the same way. ``start``/``mark_step``/``stop`` are what run around user code and stay
cheap; ``finish`` does the conversion afterwards.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback

import numpy as np
import pandas as pd

from .. import collect
from .warnings_log import WarningsLog
from . import active, auto
from ..model import Profile, concat, new_meta
from .base import CollectOptions, Collector

_warned: set[str] = set()

# [issue 8] torch.profiler cannot record in two threads at once: a second profile started while another
# thread's is recording crashes the process (segfault, torch 2.13). The session whose torch collector
# records holds this slot; another session then runs without torch and says why. A slot whose thread
# has ended is free (a profile left open by a dead thread does not block later ones).
_torch_slot_lock = threading.Lock()
_torch_slot: dict = {}


def _claim_torch(session, wait_s: float = 2.0) -> str | None:
    """Take the process's torch.profiler slot for ``session``; None, or why it is taken. A holder that
    can give way (a continuous-monitoring burst has ``preempt()``) is asked to, and waited for."""
    deadline = time.monotonic() + wait_s
    while True:
        with _torch_slot_lock:
            owner, thread = _torch_slot.get("session"), _torch_slot.get("thread")
            if owner is None or owner is session or thread is None or not thread.is_alive():
                _torch_slot.update(session=session, thread=threading.current_thread())
                return None
            preempt = getattr(owner, "preempt", None)
        if preempt is None or wait_s <= 0 or time.monotonic() > deadline:
            return (f"another profile ({owner.name!r}, thread {thread.name!r}) is recording with torch.profiler "
                    "in this process; torch cannot record two at once")
        preempt()
        time.sleep(0.002)


def torch_busy() -> bool:
    """Is torch.profiler recording in a live thread right now (through a session)?"""
    with _torch_slot_lock:
        thread = _torch_slot.get("thread")
        return thread is not None and thread.is_alive()


def _release_torch(session) -> None:
    with _torch_slot_lock:
        if _torch_slot.get("session") is session:
            _torch_slot.clear()


def warn_once(key: str, message: str) -> None:
    if key not in _warned:
        _warned.add(key)
        print(f"cann_nb: {message}", file=sys.stderr)


class CollectionSession:
    def __init__(self, name: str, collectors=None, options: CollectOptions | None = None,
                 source: dict | None = None):
        self.name = name
        self.requested = tuple(collectors) if collectors else auto.for_process()
        # [issue 8] custom metrics (cann_nb.add_custom_metric) are sampled with the host counters:
        # whenever the host sampler runs and a metric is registered, the "custom" collector runs too
        if "host" in self.requested and "custom" not in self.requested:
            from .custom_metrics import registered as _custom_registered

            if _custom_registered():
                self.requested += ("custom",)
        self.options = options or CollectOptions()
        self.source = source or {}
        self.t0_ns = 0
        self.active: list[Collector] = []
        self.collector_meta: dict[str, dict] = {}
        self.steps_ns: list[int] = []
        self.status = "ok"
        self.error: str | None = None
        self._t_start = self._t_stop = None
        self.running = False
        self._warnings = WarningsLog()   # the warnings the user's code raises (collect/warnings_log.py)

    # -- around the user's code --------------------------------------------------------------
    def start(self, adopt_caller: bool = False) -> None:
        """Start the collectors. ``adopt_caller``: the caller runs user code itself (a rewritten cell,
        ``Profiler.start()``), so call tracers record that frame as an open span."""
        self.t0_ns = time.time_ns()
        tracers = []
        for name in self.requested:
            cls = collect.get(name)
            reason = cls.unavailable_reason()
            if reason:
                self.collector_meta[name] = {"status": "unavailable", "reason": reason}
                warn_once(f"unavailable:{name}", f"collector {name!r} unavailable: {reason}")
                continue
            if name == "torch":
                busy = _claim_torch(self)
                if busy:
                    self.collector_meta[name] = {"status": "unavailable", "reason": busy}
                    warn_once(f"busy:{name}", f"collector 'torch' skipped: {busy}")
                    continue
            inst = cls(self.options, self.t0_ns)
            if cls.traces_calls:
                inst.adopt_caller = adopt_caller
                tracers.append(inst)
            elif self._start_one(inst):
                self.active.append(inst)
        self._warnings.start()
        self.running = True
        self._t_start = time.perf_counter_ns()
        self._start_ns = time.time_ns() - self.t0_ns
        active.set_current(self)  # cann_nb.step() marks steps on this session
        for inst in tracers:  # last, so that nothing above is traced
            self.active.append(inst)
            if not self._start_one(inst):
                self.active.remove(inst)

    def _start_one(self, inst: Collector) -> bool:
        self.collector_meta[inst.name] = {"status": "ok"}
        try:
            inst.start()
            return True
        except Exception as exc:  # one broken collector must not stop the others
            inst.close()
            self.collector_meta[inst.name] = {"status": "error", "reason": f"start failed: {exc!r}"}
            warn_once(f"start:{inst.name}", f"collector {inst.name!r} failed to start: {exc!r}")
            return False

    def mark_step(self) -> None:
        self.steps_ns.append(time.time_ns() - self.t0_ns)
        for inst in self.active:  # e.g. per-step custom metrics are read at each step boundary
            inst.step()

    def stop(self, status: str = "ok", error: str | None = None) -> None:
        """Stop recording (idempotent). status is ok, failed or interrupted."""
        if not self.running:
            return
        self._t_stop = time.perf_counter_ns()
        self._stop_ns = time.time_ns() - self.t0_ns
        self.running = False
        self._warnings.stop()
        active.clear(self)
        self.status, self.error = status, error
        # call tracers first (they were started last), then the rest in reverse order
        for inst in sorted(reversed(self.active), key=lambda c: not c.traces_calls):
            try:
                inst.stop()
            except Exception as exc:
                self.collector_meta[inst.name] = {"status": "error", "reason": f"stop failed: {exc!r}"}
        _release_torch(self)  # [issue 8]

    # -- afterwards ----------------------------------------------------------------------------
    def finish(self) -> Profile:
        """Convert every collector's data into one Profile (call after stop)."""
        self.stop()
        events, memory, counters, devices, dropped, lifted = [], [], [], [], {}, {}
        next_id = 0
        gc_ids = None
        timings = {}
        for inst in self.active:
            t = time.perf_counter()
            try:
                got = inst.result()
            except Exception as exc:
                self.collector_meta[inst.name] = {"status": "error", "reason": f"conversion failed: {exc!r}",
                                                  "traceback": traceback.format_exc(limit=5)}
                warn_once(f"result:{inst.name}", f"collector {inst.name!r} failed: {exc!r}")
                continue
            finally:
                inst.close()
            timings[inst.name] = round(time.perf_counter() - t, 6)
            ev = got.events
            if ev is not None and len(ev):
                # the collector's own frame is changed in place: a copy of millions of rows costs memory [issue 19]
                ids = ev["id"].to_numpy() if "id" in ev else np.arange(len(ev))
                offset = next_id - int(ids.min())
                ev["id"] = ids + offset
                if "parent" in ev:
                    par = ev["parent"].to_numpy()
                    ev["parent"] = np.where(par >= 0, par + offset, -1)
                if got.memory is not None and len(got.memory) and "event_id" in got.memory:
                    mem = got.memory.copy()
                    eid = mem["event_id"].to_numpy()
                    mem["event_id"] = np.where(eid >= 0, eid + offset, -1)
                    got.memory = mem
                next_id = int(ev["id"].max()) + 1
                if inst.name == "gc":
                    gc_ids = (int(ev["id"].min()), next_id)
                events.append(ev)
            memory.append(got.memory)
            counters.append(got.counters)
            devices.extend(d for d in got.devices if d not in devices)
            for key in ("budget", "call_sites"):   # [issue 19] the profile's meta["budget"], meta["call_sites"]
                if got.meta.get(key):
                    lifted[key] = got.meta.pop(key)
            self.collector_meta[inst.name] = {"status": "ok", **got.meta}
            if got.dropped:
                dropped[inst.name] = int(got.dropped)
                warn_once(f"dropped:{inst.name}", f"collector {inst.name!r} dropped {got.dropped} events "
                          "(buffer full); the profile says so in meta['dropped']")
        self.active = []
        events.append(self._step_events(next_id))
        wall = (self._t_stop - self._t_start) if self._t_start is not None and self._t_stop else 0
        from .environment import describe_environment

        meta = new_meta(
            self.name, source=self.source, status=self.status, error=self.error, t0_ns=int(self.t0_ns),
            wall_ns=int(wall), window_ns=[int(self._start_ns), int(self._stop_ns)] if self._t_stop else None,
            environment=describe_environment(), devices=devices, collectors=self.collector_meta,
            options=self.options.as_dict(), dropped=dropped, conversion_s=timings,
            warnings=self._warnings.records(), **lifted,
        )
        merged = concat("events", events)
        if gc_ids is not None:
            # garbage-collector passes nest inside the spans of the thread they stopped
            from .gc_pauses import nest_into
            ids = merged["id"].to_numpy()
            nest_into(merged, (ids >= gc_ids[0]) & (ids < gc_ids[1]))
        return Profile(merged, concat("memory", memory), concat("counters", counters), meta)

    def close(self) -> None:
        """Stop and release every collector without converting (errors, Ctrl-C while saving)."""
        self.stop(self.status, self.error)
        for inst in self.active:
            try:
                inst.close()
            except Exception:
                pass
        self.active = []

    def _step_events(self, first_id: int) -> pd.DataFrame | None:
        if len(self.steps_ns) < 1 or self._t_stop is None:
            return None
        starts = np.asarray(self.steps_ns, dtype=np.int64)
        ends = np.append(starts[1:], self._stop_ns)
        n = len(starts)
        return pd.DataFrame({
            "id": np.arange(first_id, first_id + n, dtype=np.int64),
            "name": [f"step {i}" for i in range(n)],
            "cat": "step", "track": "host/steps", "device": "cpu",
            "start_ns": starts, "dur_ns": ends - starts,
        })
