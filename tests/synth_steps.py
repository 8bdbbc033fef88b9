"""Synthetic profiles with steps, for the compare/check/sweep tests: ops of known durations per step,
with seeded multiplicative noise, so that every test is deterministic."""

from __future__ import annotations

import numpy as np
import pandas as pd

from cann_nb.model import Profile
from cann_nb.ingest.nesting import nest

HOST = "host/thread 1"


def stepped(ops: dict, steps: int = 5, seed: int = 0, noise: float = 0.02, name: str = "p", setup_ns: int = 0,
            shapes: dict | None = None, modules: dict | None = None, memory_peak: float | None = None,
            counters: dict | None = None, status: str = "ok", step_events: bool = True, **meta) -> Profile:
    """``ops``: name -> mean duration (ns) per step; each step runs them in order. ``setup_ns``: time
    before the first step (outside every step). Returns a Profile whose ``wall_ns`` is the whole run."""
    rng = np.random.default_rng(seed)
    rows = []
    t = setup_ns
    for s in range(steps):
        s0 = t
        for op, d in ops.items():
            dd = max(1, int(d * (1.0 + noise * rng.standard_normal())))
            row = dict(name=op, cat="op", track=HOST, device="cpu", start_ns=t, dur_ns=dd)
            if shapes and op in shapes:
                row["shapes"] = shapes[op]
            if modules and op in modules:
                row["module"] = modules[op]
            rows.append(row)
            t += dd + 100
        if step_events:
            rows.append(dict(name=f"step {s}", cat="step", track="host/steps", device="cpu", start_ns=s0,
                             dur_ns=t - s0))
    if setup_ns:
        rows.append(dict(name="setup", cat="op", track=HOST, device="cpu", start_ns=0, dur_ns=setup_ns - 50))
    ev = pd.DataFrame(rows)
    ev["id"] = np.arange(len(ev), dtype=np.int64)
    par, dep = nest(ev["track"].astype(str).to_numpy(), ev["start_ns"], ev["dur_ns"], ev["id"])
    ev["parent"], ev["depth"] = par, dep
    memory = None
    if memory_peak is not None:
        memory = pd.DataFrame({"ts_ns": [10, 20, 30], "device": "cpu", "delta_bytes": [memory_peak / 2] * 3,
                               "allocated_bytes": [memory_peak / 2, memory_peak, memory_peak / 4]})
    cn = None
    if counters:
        recs = [{"ts_ns": i * 1000, "source": "custom", "metric": k, "value": v}
                for k, vals in counters.items() for i, v in enumerate(vals)]
        cn = pd.DataFrame(recs)
    return Profile(ev, memory, cn, {"name": name, "wall_ns": int(t), "status": status, **meta})


def empty(name: str = "empty") -> Profile:
    return Profile(meta={"name": name})


def with_cold_first_step(profile, extra_ns):
    """The profile with its first step made longer by ``extra_ns`` (a cold start), later events shifted."""
    ev = profile.events.copy()
    steps = ev[ev["cat"] == "step"].sort_values("start_ns")
    first_end = int(steps["start_ns"].iloc[1])
    op0 = ev.index[(ev["cat"] == "op") & (ev["start_ns"] < first_end)][0]
    later = ev["start_ns"] >= first_end
    ev.loc[later, "start_ns"] += extra_ns
    ev.loc[op0, "dur_ns"] += extra_ns
    s0 = steps.index[0]
    ev.loc[s0, "dur_ns"] += extra_ns
    return Profile(ev, meta={**profile.meta, "wall_ns": profile.wall_ns + extra_ns})
