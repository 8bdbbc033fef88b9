"""The profiling schedule of ``cann-nb run --skip-steps N``: drop warm-up iterations from a profile.

The collectors record the whole run (tracers must see the script from its first frame), then the
profile keeps only what happens from the start of step N (0-based: the first N steps are warm-up):
events that end before it are dropped, events that straddle it are clipped to start there (so
nesting stays valid), memory and counter samples before it are dropped, the remaining steps are
renumbered from 0, and ``wall_ns`` / ``window_ns`` become the measured window. ``meta["schedule"]``
says what was skipped. Steps come from ``--repeat`` (one per run of the script) and from
``cann_nb.step()`` calls in the script.
"""

from __future__ import annotations

import numpy as np

from ..errors import CannNbError
from ..model import Profile


class ScheduleError(CannNbError, ValueError):
    """The run did not mark enough steps for the schedule."""


def skip_steps(profile: Profile, n: int) -> Profile:
    """A copy of ``profile`` without its first ``n`` steps (see the module docstring)."""
    if n <= 0:
        return profile
    ev = profile.events
    is_step = (ev["cat"] == "step").to_numpy()
    starts = np.sort(ev["start_ns"].to_numpy()[is_step])
    if len(starts) <= n:
        raise ScheduleError(f"--skip-steps {n}: the run marked {len(starts)} step{'s' if len(starts) != 1 else ''}; "
                            "call cann_nb.step() at the start of each iteration (or use --repeat) so that steps "
                            "remain after the skipped ones")
    w0 = int(starts[n])
    start = ev["start_ns"].to_numpy()
    end = start + ev["dur_ns"].to_numpy()
    keep = (end > w0) | ((end == w0) & (start == w0))
    keep &= ~(is_step & (start < w0))
    out = ev[keep].copy()
    s = out["start_ns"].to_numpy()
    e = s + out["dur_ns"].to_numpy()
    clipped = s < w0
    out["start_ns"] = np.maximum(s, w0)
    out["dur_ns"] = e - out["start_ns"].to_numpy()
    kept_ids = set(out["id"].to_numpy().tolist())
    par = out["parent"].to_numpy()
    out["parent"] = np.where(np.isin(par, list(kept_ids)), par, -1)
    st = (out["cat"] == "step").to_numpy()
    order = np.argsort(out["start_ns"].to_numpy()[st], kind="stable")
    names = np.empty(st.sum(), dtype=object)
    names[order] = [f"step {i}" for i in range(st.sum())]
    out["name"] = out["name"].astype(object)
    out.loc[st, "name"] = names
    mem = profile.memory
    mem = mem[mem["ts_ns"].to_numpy() >= w0]
    cn = profile.counters
    cn = cn[cn["ts_ns"].to_numpy() >= w0]
    meta = dict(profile.meta)
    window = meta.get("window_ns")
    stop = int(window[1]) if window else int(end.max()) if len(end) else w0
    meta["window_ns"] = [w0, stop]
    meta["wall_ns"] = max(stop - w0, 0)
    meta["schedule"] = {"skipped_steps": int(n), "window_start_ns": w0, "dropped_events": int((~keep).sum()),
                        "clipped_events": int(clipped.sum()),
                        "original_wall_ns": profile.meta.get("wall_ns")}
    return Profile(out.reset_index(drop=True), mem.reset_index(drop=True), cn.reset_index(drop=True), meta)
