"""Sleeping while the process has nothing to do: ``while not fut.done(): time.sleep(0.02)``, a
``sleep`` between retries of a check, a fixed ``sleep`` "to let the worker finish".

The main thread's sleeps are recorded by the Python tracer (``time.sleep`` is a C call it sees). Whether
a sleep waited for something is read from the host sampler: the process's CPU time during the sleeps
(``cpu_util:process``, all its threads). While the main thread sleeps, a worker thread doing the awaited
work keeps the process busy; once it has finished, the rest of the sleep is the process sitting idle,
time that a blocking wait (``fut.result()``, ``as_completed``, ``Event.wait``, ``queue.get``, ``join``)
would not spend. Gain: the sleeps' idle part (sleep time less the process's CPU time inside it),
replayed. A sleep that waits for something outside the process (a server, a file) looks idle too: the
evidence says how the gain was reasoned so the user can tell.
"""

from __future__ import annotations

import re

import numpy as np

from ... import formatting as F
from .base import METHOD_CP, make_finding, pct, replay_gain, top_names

SLEEP_RE = re.compile(r"^(time\.sleep|asyncio\.tasks\.sleep|asyncio\.sleep|gevent\.sleep|eventlet\.sleep)$")
CPU_METRIC = "cpu_util:process"


def _busy_ns(ctx, starts: np.ndarray, ends: np.ndarray) -> float | None:
    """CPU time of the whole process inside the spans (sorted, disjoint), from the host sampler's
    ``cpu_util:process`` (each sample: % of one core over the interval ending at it); None without it.
    Within an interval, the main thread runs outside the spans (its code is what the tracer records) and
    accounts for up to one core there: only the CPU beyond that can lie inside the spans (other threads).
    Spread evenly instead, the CPU of a busy interval would fill sleeps shorter than the sampling
    interval (a 12 ms back-off between 40 ms of parsing) and hide that nothing ran during them."""
    c = ctx.profile.counters
    if c is None or not len(c):
        return None
    sel = (c["metric"].astype(str) == CPU_METRIC).to_numpy()
    if sel.sum() < 1:
        return None
    ts = c["ts_ns"].to_numpy()[sel].astype(np.int64)
    util = np.clip(c["value"].to_numpy()[sel].astype(float), 0.0, None) / 100.0
    order = np.argsort(ts)
    ts, util = ts[order], util[order]
    # the interval each sample covers: from the previous sample (or the first sample of any metric)
    first = int(c["ts_ns"].min())
    lo = np.r_[first, ts[:-1]]
    # overlap of each sample interval with the union of spans: prefix sums of span time at the bounds
    cum = np.r_[0, np.cumsum(ends - starts)]

    def covered_until(t):
        k = np.searchsorted(starts, t, side="right")
        inside = np.clip(t - starts[np.maximum(k - 1, 0)], 0, (ends - starts)[np.maximum(k - 1, 0)])
        return cum[np.maximum(k - 1, 0)] + np.where(k > 0, inside, 0)

    overlap = covered_until(ts) - covered_until(lo)
    outside = (ts - lo) - overlap
    return float(np.clip(util * (ts - lo) - outside, 0.0, overlap).sum())


def _idle_part(ctx, th, rows: np.ndarray, keep_ns: float = 0.0):
    """(starts, ends, total ns, process CPU ns, idle ns, gain, confidence) of the main thread's waits at
    ``rows``, their idle part (their time less the process's CPU time in them) replayed away, less ``keep_ns``
    that the fix still waits; None when their share of the run without the profiler, or their idle part's,
    is under ``min_pct``, or no host samples say whether the process was idle (no guess)."""
    rows = rows[np.argsort(ctx.start[rows])]
    starts, ends = ctx.start[rows].astype(np.int64), ctx.end[rows].astype(np.int64)
    ends = np.maximum(ends, starts)
    total = float((ends - starts).sum())
    # a wait lasts as long without the profiler, the code around it does not: its share is of that run
    bare = ctx.wall_without_recording
    if pct(total, bare) < th["min_pct"]:
        return None
    busy = _busy_ns(ctx, starts, ends)
    if busy is None:
        return None
    idle = max(total - busy, 0.0)
    if pct(idle, bare) < th["min_pct"]:
        return None
    mask = np.zeros(ctx.n, dtype=bool)
    mask[rows] = True
    saved = max(idle - keep_ns, 0.0)
    gain, conf = replay_gain(ctx, seg_factor=ctx.replay.seg_factor_for(mask, 1.0 - saved / total))
    return starts, ends, total, busy, idle, gain, conf


def sleep_polling(ctx, th):
    """The main thread sleeping while its process has nothing to do (polling a future or a flag with
    ``time.sleep``, a fixed sleep "to let a worker finish"). Seen from the sleeps the Python tracer
    records and the process's CPU time inside them (host sampler). Gain: the idle part of the sleeps,
    replayed: a blocking wait resumes when the work is done."""
    if not ctx.n:
        return
    flag = ctx.flag(SLEEP_RE) & ctx.is_host & (ctx.track_code == ctx.main_track) & (ctx.dur > 0)
    rows = np.flatnonzero(flag)
    if not len(rows):
        return
    got = _idle_part(ctx, th, rows)
    if got is None:
        return
    starts, ends, slept, busy, idle, gain, conf = got
    bare = ctx.wall_without_recording
    calls = len(rows)
    median = float(np.median(ends - starts))
    title = (f"The main thread sleeps {F.ns(slept)} ({pct(slept, bare):.0f}% of the run without the profiler's own "
             f"time, {calls:,} calls of {F.ns(median)} median) while the process is idle for {F.ns(idle)} of it")
    sugg = ("Block on the thing you wait for instead of sleeping and re-checking: fut.result() or "
            "concurrent.futures.wait/as_completed for futures, threading.Event.wait() or queue.get() for a "
            "flag or a result, thread.join() or process.wait() for a worker: the wait ends when the work does, "
            "not at the next wake-up. If the sleep waits for something outside this process (a server, a file), "
            "poll it less often or subscribe to it instead.")
    evidence = {"sleep_ns": slept, "sleeps": calls, "median_sleep_ns": median, "process_cpu_in_sleeps_ns": busy,
                "idle_in_sleeps_ns": idle, "cpu_source": f"host sampler '{CPU_METRIC}' over the sleeps"}
    yield make_finding(ctx, "sleep_polling", "idle", title, evidence=evidence, ops=top_names(ctx, rows, 3),
                       suggestion=sugg, gain_ns=gain, method=METHOD_CP + " (the sleeps' idle part removed)",
                       confidence=conf * 0.7, rows=rows, affected_ns=slept)


# blocking waits that take a timeout (queue.Queue.get and Event.wait wait on a Condition)
WAIT_RE = re.compile(r"^threading\.(Condition\.wait|Condition\.wait_for|Event\.wait|Semaphore\.acquire|Barrier\.wait)$")
SAME_LENGTH = 0.1   # waits no shorter than their median less this fraction all ran out one timeout
LATE = 2.0          # ... and no longer than this many medians (a wake-up delayed on a busy machine)


def expired_waits(ctx, th):
    """The main thread's blocking waits that run out their timeout while the process is idle
    (``q.get(timeout=0.003)`` until ``queue.Empty`` on a queue this thread filled, ``event.wait(0.05)`` on an event
    nobody sets): waits woken by the awaited work end when it does, so their lengths vary; waits that all last as long
    (``min_share`` of them, ``min_waits`` or more, none shorter than their median less SAME_LENGTH: nothing ended one
    early; a wake-up can come late) waited out a timeout, and nothing ran meanwhile (the process's CPU time in them,
    host sampler). Gain: their idle part, replayed."""
    if not ctx.n:
        return
    flag = ctx.flag(WAIT_RE) & ctx.is_host & (ctx.track_code == ctx.main_track) & (ctx.dur > 0)
    rows = np.flatnonzero(flag)
    if len(rows):   # the outermost waits (Event.wait waits on a Condition)
        from ..timeline import nearest_ancestor
        rows = rows[nearest_ancestor(ctx, rows, flag) < 0]
    if len(rows) < th["min_waits"]:
        return
    d = ctx.dur[rows].astype(float)
    median = float(np.median(d))
    alike = (d >= (1.0 - SAME_LENGTH) * median) & (d <= LATE * median)
    if alike.mean() < th["min_share"]:
        return
    got = _idle_part(ctx, th, rows[alike])
    if got is None:
        return
    starts, ends, waited, busy, idle, gain, conf = got
    rows = rows[alike]
    bare = ctx.wall_without_recording
    title = (f"The main thread waits out a timeout {len(rows):,} times ({F.ns(median)} each, all alike: nothing woke "
             f"it), {F.ns(waited)} ({pct(waited, bare):.0f}% of the run without the profiler's own time) while the "
             f"process is idle for {F.ns(idle)} of it")
    sugg = ("A wait with a timeout that always runs out is time in which nothing happens. To drain a queue this "
            "thread filled, take what is there without waiting: q.get_nowait() until queue.Empty (or read "
            "q.qsize() items); to wait for a producer, block without a timeout and stop on a sentinel (None) it "
            "puts last; for an event nobody sets, check it with event.is_set() instead of event.wait(timeout).")
    evidence = {"wait_ns": waited, "waits": int(len(rows)), "median_wait_ns": median,
                "alike_share": float(alike.mean()), "process_cpu_in_waits_ns": busy, "idle_in_waits_ns": idle,
                "cpu_source": f"host sampler '{CPU_METRIC}' over the waits"}
    yield make_finding(ctx, "expired_waits", "idle", title, evidence=evidence, ops=top_names(ctx, rows, 3),
                       suggestion=sugg, gain_ns=gain, method=METHOD_CP + " (the waits' idle part removed)",
                       confidence=conf * 0.7, rows=rows, affected_ns=waited)


# asyncio's event loop: one iteration waits in the selector for the next ready event, then runs what is ready
LOOP_ITERATION = "asyncio.base_events.BaseEventLoop._run_once"
SELECT_RE = re.compile(r"^(select\.(epoll\.poll|poll\.poll|devpoll\.poll|kqueue\.control|select)|"
                       r"_overlapped\.GetQueuedCompletionStatus)$")
HANDLE = "asyncio.events.Handle._run"
# every low-level awaitable (a sleep, a stream read, an executor call, a lock's or semaphore's waiter) is one
FUTURE = "asyncio.base_events.BaseEventLoop.create_future"
RESOLVED_RE = re.compile(r"^(_asyncio|asyncio\.futures)\.Future\.(set_result|set_exception|cancel)$")


def _named(ctx, name: str) -> np.ndarray:
    return ctx.flag(re.compile("^" + re.escape(name) + "$"))


def serial_awaits(ctx, th):
    """An asyncio program idle in its event loop one awaited operation at a time (``for k in keys:
    rows.append(await fetch(k))``). Each iteration of the loop (``BaseEventLoop._run_once``) waits in the
    selector until something is ready, then runs the callbacks that are (``Handle._run``). Awaited one after
    another, every wait wakes one callback and one operation is in flight during it: the futures the loop
    has made (``create_future``: a sleep, a read, an executor call, a semaphore's waiter) less those resolved
    (``Future.set_result``/``set_exception``/``cancel``). Operations started together (``gather``, a bounded
    pool of tasks) are in flight together, even when each wakes alone. Flagged: at least ``min_waits`` waits holding the selector's
    time, waking one callback each and with one operation in flight (medians), while the process is idle
    (host sampler). Gain: the selector's idle part replayed, less the longest wait, which running them
    together (``asyncio.gather``) still waits."""
    if not ctx.n:
        return
    main = ctx.is_host & (ctx.track_code == ctx.main_track)
    polls = np.flatnonzero(ctx.flag(SELECT_RE) & main & (ctx.dur > 0))
    iteration = _named(ctx, LOOP_ITERATION) & main
    if len(polls) < th["min_waits"] or not iteration.any():
        return
    from ..timeline import nearest_ancestor
    owner = nearest_ancestor(ctx, polls, iteration)
    polls, owner = polls[owner >= 0], owner[owner >= 0]
    at = np.argsort(ctx.start[polls], kind="stable")   # in time order
    polls, owner = polls[at], owner[at]
    # the waits: the longest polls that hold nine tenths of the selector's time (the rest return at once)
    d = ctx.dur[polls].astype(float)
    order = np.argsort(-d, kind="stable")
    waiting = np.zeros(len(polls), dtype=bool)
    waiting[order[np.cumsum(d[order]) <= 0.9 * d.sum()]] = True
    waiting[order[:1]] = True
    if waiting.sum() < th["min_waits"]:
        return
    # per poll: the callbacks its iteration ran, and the operations in flight while it waited
    handles = np.flatnonzero(_named(ctx, HANDLE) & main)
    run_by = np.sort(nearest_ancestor(ctx, handles, iteration)) if len(handles) else np.zeros(0, dtype=np.int64)
    woken = np.searchsorted(run_by, owner, side="right") - np.searchsorted(run_by, owner)
    made = np.sort(ctx.start[np.flatnonzero(_named(ctx, FUTURE) & main)])
    resolved = np.sort(ctx.start[np.flatnonzero(ctx.flag(RESOLVED_RE) & main)])
    in_flight = np.searchsorted(made, ctx.start[polls]) - np.searchsorted(resolved, ctx.start[polls])
    if np.median(woken[waiting]) > 1 or np.median(in_flight[waiting]) > 1:
        return   # operations in flight together
    waits = polls[waiting]
    longest = float(ctx.dur[waits].max())
    got = _idle_part(ctx, th, polls, keep_ns=longest)   # all the selector's time: the short polls wait too
    if got is None:
        return
    starts, ends, waited, busy, idle, gain, conf = got
    bare = ctx.wall_without_recording
    median = float(np.median(ctx.dur[waits]))
    title = (f"The asyncio event loop waits {len(waits):,} times for one awaited operation at a time "
             f"({F.ns(median)} median, each wait wakes one callback): {F.ns(waited)} ({pct(waited, bare):.0f}% "
             f"of the run without the profiler's own time), the process idle for {F.ns(idle)} of it")
    sugg = ("Awaiting inside a for loop runs the operations one after another: the loop sits idle through each "
            "round trip in turn. Where they are independent, start them together and await them all: "
            "results = await asyncio.gather(*(fetch(k) for k in keys)) (or an asyncio.TaskGroup); bound how many "
            "run at once with an asyncio.Semaphore when the service limits concurrency.")
    evidence = {"wait_ns": waited, "waits": int(len(waits)), "median_wait_ns": median,
                "callbacks_per_wait_median": float(np.median(woken[waiting])),
                "in_flight_per_wait_median": float(np.median(in_flight[waiting])), "process_cpu_in_waits_ns": busy,
                "idle_in_waits_ns": idle, "longest_wait_kept_ns": longest,
                "cpu_source": f"host sampler '{CPU_METRIC}' over the waits"}
    yield make_finding(ctx, "serial_awaits", "idle", title, evidence=evidence, ops=top_names(ctx, polls, 3),
                       suggestion=sugg, gain_ns=gain,
                       method=METHOD_CP + " (the selector's idle part removed, less the longest wait)",
                       confidence=conf * 0.6, rows=polls, affected_ns=waited)
