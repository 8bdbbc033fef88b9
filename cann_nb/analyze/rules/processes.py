"""The process-per-item rule: a loop starting an external program for every item (``subprocess.run([...,
path])`` per file, ``os.system`` per record), the Python side waiting for each to start, work and exit.

Reasoned from the work: every launch pays a process's creation, the program's loading and start-up and its
exit before doing anything on its item; the trace gives each launch-and-wait (the outermost calls into
``subprocess``, ``os.system``). The fastest of them is a floor: a start-up and exit with the least work, so
each launch's time above it is the program's work on its item, kept (done in-process instead), and the
floor is the overhead. Gain: every launch at its time above the floor, replayed.
"""

from __future__ import annotations

import re

import numpy as np

from ... import formatting as F
from ..python_spans import call_kinds
from ..timeline import outermost
from .base import METHOD_CP, covered_spans_ns, make_finding, pct
from .compute import _factor_gain

LAUNCH_RE = re.compile(r"^(subprocess\.(run|call|check_call|check_output|getoutput|getstatusoutput|Popen\..+)|"
                       r"(posix|os|nt)\.(system|popen|spawn\w*))$")
START_RE = re.compile(r"^(subprocess\.Popen\.__init__|(posix|os|nt)\.(system|popen|spawn\w*))$")


def process_per_item(ctx, th):
    """``min_launches`` or more external processes started and waited for on the main thread. Gain: each
    launch-and-wait at its time above the fastest one (start-up and exit are the overhead)."""
    if "call_kind" not in ctx.events or not ctx.n:
        return
    kinds = call_kinds(ctx)
    on = (kinds["py"] | kinds["c"]) & (ctx.track_code == ctx.main_track)
    starts = np.flatnonzero(on & ctx.flag(START_RE))
    if len(starts) < th["min_launches"]:
        return
    rows = outermost(ctx, np.flatnonzero(on & ctx.flag(LAUNCH_RE)))
    t = covered_spans_ns(ctx, ctx.start[rows], ctx.end[rows])
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    dur = ctx.dur[rows].astype(float)
    names = np.asarray(ctx.name_code[rows])
    floor = np.zeros(len(rows))
    for c in np.unique(names):     # the fastest call of each kind (run, Popen.__init__, communicate...)
        floor[names == c] = dur[names == c].min()
    factor = np.ones(ctx.n)
    factor[rows] = 1.0 - floor / np.maximum(dur, 1.0)
    gain, conf = _factor_gain(ctx, rows, factor)
    typical = float(np.median(dur))
    called = str(ctx.names(rows[:1])[0])
    title = (f"{len(starts):,} external processes started and waited for ({called}, {F.ns(typical)} each "
             f"typically, the fastest {F.ns(float(dur.min()))}): {F.ns(t)}, {pct(t, ctx.wall):.0f}% of end-to-end")
    yield make_finding(
        ctx, "process_per_item", "idle", title,
        evidence={"launches": int(len(starts)), "calls": int(len(rows)), "time_ns": int(t), "typical_ns": typical,
                  "floor_ns": float(dur.min()), "overhead_ns": float(floor.sum()), "called": called},
        ops=[called], suggestion=("Do the work in-process with a library (hashlib for checksums, zlib/gzip, PIL or "
                                  "imageio for images, a Python binding of the tool), or give the program all the "
                                  "items in one launch (it takes a list of files; xargs-style batches); if it must "
                                  "run once per item, run the launches concurrently (a thread pool)."),
        gain_ns=gain, method=METHOD_CP + " (each launch at its time above the fastest one: process start-up and exit "
        "removed, the program's work kept)", confidence=conf * 0.6, rows=rows, affected_ns=t)
