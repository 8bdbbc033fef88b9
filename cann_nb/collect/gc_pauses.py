"""Python garbage-collector passes: one event per collection, from CPython's ``gc.callbacks``.

A collection stops the thread that triggered it (holding the GIL) while it walks every tracked object
of its generation and the younger ones; code that builds many long-lived objects (a tree, a graph, a
cache of dicts) makes generation-2 passes walk all of them again and again. Neither torch.profiler nor
``sys.setprofile`` sees that time: it shows up as slower Python. This collector records each pass
(``gc.callbacks``: a "start" and a "stop" call per collection, on the collecting thread) into
preallocated ``array`` buffers: two appends per callback, no Python object per pass.

Events: ``python gc (generation N)``, cat ``python``, on the collecting thread's track
(``host/thread <native id>``, the track the torch and Python collectors use); meta counts the passes
and their time per generation. The session nests them inside the spans of the other collectors on that track
(``nest_into``), so that the analysis sees a pause where it happened. Cost: two Python calls per
collection (a few microseconds against a pass of tens of microseconds at least).
"""

from __future__ import annotations

import gc
import threading
import time
from array import array

import numpy as np
import pandas as pd

from .base import Collected, Collector
from .clock import perf_to_epoch_offset
from ..model import categorical


class GcCollector(Collector):
    name = "gc"

    @classmethod
    def unavailable_reason(cls) -> str | None:
        if not isinstance(getattr(gc, "callbacks", None), list):
            return "this Python has no gc.callbacks (CPython 3.3+ has)"
        return None

    def __init__(self, options, t0_ns: int):
        super().__init__(options, t0_ns)
        self._times = array("q")
        self._info = array("q")    # per callback: generation, phase (1 start, 0 stop), collected, thread
        self._installed = False
        self._limit = 2 * max(int(options.buffer_events), 1)
        self.dropped = 0

    def _callback(self, phase, info) -> None:
        if len(self._times) >= self._limit and phase == "start":
            self.dropped += 1
            return
        self._times.append(time.perf_counter_ns())
        self._info.extend((int(info.get("generation", -1)), 1 if phase == "start" else 0,
                           int(info.get("collected", 0)), threading.get_native_id()))

    def start(self) -> None:
        self._offset_ns = perf_to_epoch_offset()
        gc.callbacks.append(self._callback)
        self._installed = True

    def stop(self) -> None:
        self._uninstall()

    def close(self) -> None:
        self._uninstall()

    def _uninstall(self) -> None:
        if self._installed:
            try:
                gc.callbacks.remove(self._callback)
            except ValueError:      # someone cleared gc.callbacks meanwhile
                pass
            self._installed = False

    def result(self) -> Collected:
        t = np.frombuffer(self._times, dtype=np.int64) if len(self._times) else np.zeros(0, np.int64)
        info = (np.frombuffer(self._info, dtype=np.int64).reshape(-1, 4) if len(self._info)
                else np.zeros((0, 4), np.int64))
        # a pass is a start followed by its stop (collections never nest: the GIL is held throughout)
        start = np.flatnonzero(info[:-1, 1] == 1) if len(info) > 1 else np.zeros(0, np.int64)
        start = start[info[start + 1, 1] == 0]
        stop = start + 1
        begin = t[start] + self._offset_ns - self.t0_ns
        dur = np.maximum(t[stop] - t[start], 0)
        gen = info[start, 0]
        names = np.array([f"python gc (generation {g})" for g in range(3)] + ["python gc"], dtype=object)
        ev = pd.DataFrame({
            "id": np.arange(len(start), dtype=np.int64),
            "name": categorical(names[np.where((gen >= 0) & (gen <= 2), gen, 3)]),
            "cat": categorical(np.full(len(start), "python", dtype=object)),
            "track": categorical(np.array([f"host/thread {x}" for x in info[start, 3]], dtype=object)),
            "device": categorical(np.full(len(start), "cpu", dtype=object)),
            "start_ns": begin.astype(np.int64), "dur_ns": dur.astype(np.int64),
            "parent": np.full(len(start), -1, dtype=np.int64), "depth": np.zeros(len(start), dtype=np.int32),
            "corr": np.full(len(start), -1, dtype=np.int64),
        })
        by_gen = {f"generation {g}": {"passes": int((gen == g).sum()), "time_ns": int(dur[gen == g].sum())}
                  for g in range(3) if (gen == g).any()}
        meta = {"source": "gc.callbacks", "passes": int(len(start)), "time_ns": int(dur.sum()),
                "collected_objects": int(info[stop, 2].sum()),
                "by_generation": by_gen, "clock": "time.perf_counter_ns + epoch offset"}
        return Collected(events=ev, meta=meta, dropped=self.dropped)


def nest_into(events: pd.DataFrame, is_gc: np.ndarray) -> None:
    """Give the collector's passes (rows ``is_gc`` of the merged events) the parent and depth of the
    innermost span of another collector that contains them on their track (in place)."""
    from ..ingest.nesting import nest

    if not is_gc.any():
        return
    tracks = events["track"].astype(str).to_numpy()
    same = np.isin(tracks, np.unique(tracks[is_gc]))
    rows = np.flatnonzero(same)
    parent, depth = nest(tracks[rows], events["start_ns"].to_numpy()[rows], events["dur_ns"].to_numpy()[rows],
                         events["id"].to_numpy()[rows])
    mine = is_gc[rows]
    par = events["parent"].to_numpy().copy()
    dep = events["depth"].to_numpy().copy()
    par[rows[mine]] = parent[mine]
    dep[rows[mine]] = depth[mine]
    events["parent"], events["depth"] = par, dep
