"""Per-profile arrays and derived tables shared by the analyses, computed once and cached.

``context(profile)`` returns the same Context while ``profile.events`` is the same object, so rules
and analyses that need the same join or union do not recompute it. Everything here is columnar.

The cache is keyed weakly by the profile and the Context holds its profile only weakly too: a value
that held its key strongly would keep every analysed profile alive for the life of the process
(issue 17: +5.6 MB per rank when ranks are analysed one after another).
"""

from __future__ import annotations

import weakref
from functools import cached_property

import numpy as np
import pandas as pd

from . import classify as C
from .hotspots import self_time

_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def context(profile) -> "Context":
    hit = _CACHE.get(profile)
    if hit is not None and hit.events is profile.events and len(hit.events) == len(profile.events):
        return hit
    ctx = Context(profile)
    try:
        _CACHE[profile] = ctx
    except TypeError:  # not weak-referenceable: no caching
        pass
    return ctx


def _codes(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    cat = series if isinstance(series.dtype, pd.CategoricalDtype) else series.astype("category")
    return cat.cat.codes.to_numpy().astype(np.int64), np.asarray(cat.cat.categories.astype(str), dtype=object)


class Context:
    def __init__(self, profile):
        try:
            self._profile_ref = weakref.ref(profile)
        except TypeError:  # not weak-referenceable, so never cached: holding it strongly leaks nothing
            self._profile_ref = lambda profile=profile: profile
        self.events = ev = profile.events
        self.meta = profile.meta or {}
        self.n = len(ev)
        self.id = ev["id"].to_numpy()
        self.start = ev["start_ns"].to_numpy().astype(np.int64)
        self.dur = ev["dur_ns"].to_numpy().astype(np.int64)
        self.end = self.start + self.dur
        self.parent = ev["parent"].to_numpy()
        self.corr = ev["corr"].to_numpy()
        self.cat = ev["cat"].astype(str).to_numpy() if self.n else np.zeros(0, dtype=object)
        self.name_code, self.name_cats = _codes(ev["name"])
        self.track_code, self.track_cats = _codes(ev["track"])
        self.device_code, self.device_cats = _codes(ev["device"])
        self.role = C.roles(ev)

    @property
    def profile(self):
        """The analysed profile (only weakly held: whoever asked for the analysis holds it)."""
        profile = self._profile_ref()
        if profile is None:
            raise ReferenceError("the profile of this analysis context was freed; keep the Profile while "
                                 "analysing it")
        return profile

    def memo(self, key, fn):
        """Compute ``fn()`` once per key for this profile (analyses shared by several rules)."""
        cache = self.__dict__.setdefault("_memo", {})
        if key not in cache:
            cache[key] = fn()
        return cache[key]

    # -- identity and window ------------------------------------------------------------------
    @cached_property
    def pos(self) -> pd.Index:
        return pd.Index(self.id)

    def rows(self, ids) -> np.ndarray:
        p = self.pos.get_indexer(np.asarray(ids))
        return p[p >= 0]

    def name_categorical(self, rows) -> pd.Categorical:
        """Names of rows as a Categorical (cheap for large row sets, unlike object arrays)."""
        c = self.name_code[np.asarray(rows, dtype=np.int64)]
        return pd.Categorical.from_codes(c, self.name_cats.astype(str)) if len(self.name_cats) else \
            pd.Categorical(np.full(len(c), np.nan))

    def names(self, rows) -> np.ndarray:
        c = self.name_code[rows]
        return np.where(c >= 0, self.name_cats[np.maximum(c, 0)], "")

    def tracks(self, rows) -> np.ndarray:
        c = self.track_code[rows]
        return np.where(c >= 0, self.track_cats[np.maximum(c, 0)], "")

    def devices(self, rows) -> np.ndarray:
        c = self.device_code[rows]
        return np.where(c >= 0, self.device_cats[np.maximum(c, 0)], "")

    @cached_property
    def window(self) -> tuple[int, int]:
        """[lo, hi] of the analysed time: the recorded window when there is one, else the events'
        extent; its length is the profile's wall time."""
        wall = self.profile.wall_ns
        win = self.meta.get("window_ns")
        if isinstance(win, (list, tuple)) and len(win) == 2 and win[1] is not None and win[1] > win[0]:
            lo = int(win[0])
        elif self.n:
            lo = int(self.start.min())
        else:
            lo = 0
        if not wall and self.n:
            wall = int(self.end.max() - lo)
        return lo, lo + int(wall or 0)

    @property
    def wall(self) -> int:
        lo, hi = self.window
        return hi - lo

    # -- roles ----------------------------------------------------------------------------------
    @cached_property
    def is_device_task(self) -> np.ndarray:
        return np.isin(self.role, C.DEVICE_ROLES)

    @cached_property
    def is_host(self) -> np.ndarray:
        host_roles = [C.R[r] for r in ("op", "launch", "sync", "alloc", "runtime", "python", "annotation",
                                       "host_comm", "other")]
        return np.isin(self.role, host_roles) & ~C.is_accelerator(self.events["device"])

    @cached_property
    def accel_devices(self) -> list[str]:
        """Accelerator devices with at least one device task, in name order."""
        codes = np.unique(self.device_code[self.is_device_task])
        return sorted(str(self.device_cats[c]) for c in codes if c >= 0)

    @cached_property
    def host_tracks(self) -> list[int]:
        """Track codes of host lanes (threads) holding host work."""
        codes = np.unique(self.track_code[self.is_host & (self.role != C.R["annotation"])])
        return [int(c) for c in codes if c >= 0]

    @cached_property
    def main_track(self) -> int:
        """The host lane whose events cover the most time (the thread running the user's code)."""
        if not self.host_tracks:
            return -1
        sel = self.is_host & np.isin(self.track_code, self.host_tracks)
        from .intervals import length
        per = length(self.start[sel], self.end[sel], self.track_code[sel])
        return int(per.idxmax())

    @cached_property
    def self_ns(self) -> np.ndarray:
        return self_time(self.events)

    def flag(self, pattern) -> np.ndarray:
        return C.name_flags(self.events["name"], pattern)

    # -- joins ------------------------------------------------------------------------------------
    @cached_property
    def launches(self) -> pd.DataFrame:
        """Host launch -> device task pairs joined on ``corr``: one row per device task with a host
        side. Columns: task, launch (row positions), task_start/end, launch_start/end, delay_ns
        (task start - launch end, clipped at 0), stream (task track code), device (code)."""
        task = np.flatnonzero(self.is_device_task & (self.corr >= 0))
        host = np.flatnonzero(self.is_host & (self.corr >= 0))
        cols = ["task", "launch", "task_start", "task_end", "launch_start", "launch_end", "delay_ns",
                "stream", "device", "launch_track"]
        if not len(task) or not len(host):
            return pd.DataFrame({c: np.empty(0, np.int64) for c in cols})
        # several host events may share a corr (an op and its runtime call): keep the innermost
        # (deepest, i.e. latest-starting) one, which is the runtime call when recorded
        h = pd.DataFrame({"corr": self.corr[host], "row": host, "start": self.start[host]})
        h = h.sort_values(["corr", "start"], kind="stable").drop_duplicates("corr", keep="last")
        pos = pd.Index(h["corr"].to_numpy()).get_indexer(self.corr[task])
        ok = pos >= 0
        task, pos = task[ok], pos[ok]
        lrow = h["row"].to_numpy()[pos]
        out = pd.DataFrame({
            "task": task, "launch": lrow,
            "task_start": self.start[task], "task_end": self.end[task],
            "launch_start": self.start[lrow], "launch_end": self.end[lrow],
        })
        out["delay_ns"] = np.maximum(out["task_start"].to_numpy() - out["launch_end"].to_numpy(), 0)
        out["stream"] = self.track_code[task]
        out["device"] = self.device_code[task]
        out["launch_track"] = self.track_code[lrow]
        return out[cols]

    @cached_property
    def task_launch(self) -> np.ndarray:
        """Row of the launching host event per event (-1 when none)."""
        out = np.full(self.n, -1, dtype=np.int64)
        j = self.launches
        out[j["task"].to_numpy()] = j["launch"].to_numpy()
        return out

    # -- device unions ----------------------------------------------------------------------------
    def device_rows(self, device: str | None = None, roles=C.DEVICE_ROLES) -> np.ndarray:
        sel = np.isin(self.role, roles)
        if device is not None:
            codes = np.flatnonzero(self.device_cats == device)
            sel &= np.isin(self.device_code, codes)
        return np.flatnonzero(sel)

    @cached_property
    def rows_of_parent(self) -> np.ndarray:
        from .timeline import _rows_of_parent
        return _rows_of_parent(self)

    @cached_property
    def host_segments(self) -> pd.DataFrame:
        from .timeline import host_segments
        return host_segments(self)

    def _has_descendant(self, flag: np.ndarray) -> np.ndarray:
        """True for events with a flagged descendant (same track), by climbing from the flagged rows."""
        out = np.zeros(self.n, dtype=bool)
        cur = self.rows_of_parent[np.flatnonzero(flag)]
        for _ in range(256):
            cur = cur[cur >= 0]
            if not len(cur):
                break
            cur = np.unique(cur)
            new = cur[~out[cur]]
            out[new] = True
            cur = self.rows_of_parent[new]
        return out

    @cached_property
    def implicit_sync(self) -> np.ndarray:
        """Framework ops that block on the device (.item(), nonzero...) with no recorded sync call
        inside them: the innermost such op per call site. Only when the trace has device tasks."""
        if not self.is_device_task.any():
            return np.zeros(self.n, dtype=bool)
        cand = self.flag(C.IMPLICIT_SYNC_RE) & (self.role == C.R["op"]) & (self.dur > 0)
        if not cand.any():
            return cand
        has_sync = self._has_descendant(self.role == C.R["sync"])
        return cand & ~has_sync & ~self._has_descendant(cand)

    @cached_property
    def host_flags(self) -> dict:
        from .critical_path import host_flags
        return host_flags(self)

    @cached_property
    def critical_path(self) -> pd.DataFrame:
        from .critical_path import build_critical_path
        return build_critical_path(self)

    @cached_property
    def recording_cost(self) -> np.ndarray:
        """ns of the profiler's own time charged to each row (recording_cost.py; zeros when unknown)."""
        from .recording_cost import per_row
        return per_row(self)

    @cached_property
    def recording_ns(self) -> float:
        """The profiler's own time on the main lane: the end-to-end time without it is wall - this."""
        return self.replay.recording_ns if self.recording_cost.any() else 0.0

    @property
    def wall_without_recording(self) -> float:
        """What gains are shares of: the run as it would take without the profiler."""
        return max(float(self.wall) - self.recording_ns, 1.0)

    @cached_property
    def replay(self):
        from .whatif import Replay
        return Replay(self)

    @cached_property
    def steps(self) -> pd.DataFrame:
        from .steps import steps
        return steps(self.profile)
