"""What-if replay: re-time the run with some host time, device tasks or blocking calls changed, and
report the new end-to-end time. This is the "critical-path what-if" gain method (G-cp).

Model (one host lane driving the devices, in-order streams):

- The main host lane is a sequence of pieces (timeline.host_segments) that run back to back; a
  what-if scales each piece's duration (a factor per piece).
- Blocking calls (stream/device syncs, synchronous or pageable copies) on the main lane split it
  into *epochs*. A blocking call returns when the device has finished what was launched before
  it, so each epoch starts with the device drained and epochs are independent: epoch k lasts
  ``max(W_k + base_k, C_k + ret_k)`` with W_k its host work, C_k the completion of its device work
  (relative to the epoch start), base_k the call's own cost and ret_k its return latency after the
  device finished (both measured). The last epoch waits for its device work when the recorded
  window did.
- A device task is released at its launch call's start (re-timed with the host) plus its launch
  latency (measured when the stream was idle, else the device's median); each stream runs its tasks
  in order: ``end = max(prev_end, release) + dur`` (one cumsum + cummax per epoch and stream, see
  intervals.max_plus_scan). Tasks launched elsewhere keep their offset on the main lane's clock.

Gains are differences between two replays (the baseline replay and the changed one), so the
model's own error largely cancels; ``fidelity`` compares the baseline replay with the recorded wall.
Both replays run on the pieces' times less the profiler's own (recording_cost.py): a gain is what the
run without the profiler would save.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd

from . import classify as C
from .intervals import max_plus_scan, union

I64 = np.int64
LAUNCH_LATENCY_CAP_NS = 100_000  # HTA's launch-delay outlier cut-off (cuda_kernel_analysis)


class Replay:
    """Precomputed arrays for repeated what-ifs on one profile (``context(profile).replay``)."""

    def __init__(self, ctx):
        self.ctx = ctx
        lo, hi = ctx.window
        self.lo, self.hi = lo, hi
        seg = ctx.host_segments
        main = ctx.main_track
        seg = seg[seg["lane"] == main] if main >= 0 else seg.iloc[:0]
        self.seg_start = seg["start"].to_numpy().astype(I64)
        self.seg_end = seg["end"].to_numpy().astype(I64)
        self.seg_dur = self.seg_end - self.seg_start
        self.seg_owner = seg["owner"].to_numpy().astype(I64)
        self.S = len(seg)
        # blocking calls on the main lane: syncs, and calls whose own device task ends inside them
        is_block = np.zeros(ctx.n, dtype=bool)
        on_main = ctx.track_code == main
        is_block |= on_main & ((ctx.role == C.R["sync"]) | ctx.implicit_sync)
        tl = ctx.launches
        if len(tl):
            lrow = tl["launch"].to_numpy()
            te = tl["task_end"].to_numpy()
            inside = (te > ctx.start[lrow]) & (te <= ctx.end[lrow]) & on_main[lrow] & (ctx.dur[lrow] > 0)
            # a launch call that lasts until its own task is done blocks (e.g. pageable cudaMemcpyAsync)
            is_block[lrow[inside]] = True
        self.block_rows_all = np.flatnonzero(is_block & (ctx.dur > 0))
        # device tasks
        dev = np.flatnonzero(ctx.is_device_task)
        self.dev = dev[np.lexsort((ctx.start[dev], ctx.track_code[dev]))]
        self.d_dur = ctx.dur[self.dev].astype(I64)
        self.d_stream = ctx.track_code[self.dev].astype(I64)
        self.d_start = ctx.start[self.dev]
        self.d_end = ctx.end[self.dev]
        lrow = ctx.task_launch[self.dev]
        self.d_launch_main = (lrow >= 0) & (ctx.track_code[np.maximum(lrow, 0)] == main)
        self.d_anchor = np.where(self.d_launch_main, ctx.start[np.maximum(lrow, 0)], self.d_start)
        self.d_latency = self._latency(lrow)
        self._net_of_recording(ctx, main)
        rec_dev_end = int(self.d_end.max()) if len(self.dev) else lo
        self.wait_at_end = len(self.dev) > 0 and rec_dev_end <= hi
        # the main lane's trailing untracked time while the device drains is a wait, not work
        self.tail_piece = -1
        self.tail_ret = 0
        if self.wait_at_end and self.S and self.seg_owner[-1] < 0 and rec_dev_end > self.seg_start[-1]:
            self.tail_piece = self.S - 1
            self.tail_ret = int(max(0, self.seg_end[-1] - rec_dev_end))

    def _net_of_recording(self, ctx, main: int) -> None:
        """``seg_net``: each piece's time less the profiler's own (recording_cost.py), so that replays
        estimate the run without the profiler. Each main-lane event's cost is charged where it starts;
        what a piece cannot absorb (a tiny op costs more to record than it lasts) passes on to the
        next pieces: removed-so-far R_i = min(C_i, R_{i-1} + d_i) = D_i + min(0, min_{j<=i} (C_j - D_j))."""
        self.seg_net = self.seg_dur.astype(float)
        self.recording_ns = 0.0
        cost = ctx.recording_cost
        rows = np.flatnonzero((cost > 0) & (ctx.track_code == main)) if self.S else np.zeros(0, I64)
        if not len(rows):
            return
        p = np.searchsorted(self.seg_start, ctx.start[rows], side="right") - 1
        ok = p >= 0
        charged = np.bincount(p[ok], weights=cost[rows[ok]], minlength=self.S)
        C_ = np.cumsum(charged)
        D_ = np.cumsum(self.seg_net)
        R = D_ + np.minimum(np.minimum.accumulate(C_ - D_), 0.0)
        removed = np.diff(R, prepend=0.0)
        self.seg_net = np.maximum(self.seg_net - removed, 0.0)
        self.recording_ns = float(R[-1])

    def _latency(self, lrow) -> np.ndarray:
        """Launch-call start to task start when the stream was idle (not queued); the device median
        of those for queued tasks; the recorded offset for tasks with no main-lane launch (0)."""
        K = len(self.dev)
        lat = np.zeros(K, dtype=I64)
        if not K:
            return lat
        first = np.ones(K, dtype=bool)
        first[1:] = self.d_stream[1:] != self.d_stream[:-1]
        prev_end = np.where(first, np.iinfo(I64).min // 2, np.concatenate([[0], self.d_end[:-1]]))
        raw = self.d_start - self.d_anchor
        # not queued: the stream had drained when the launch call began; a longer delay than
        # LAUNCH_LATENCY_CAP_NS means the task waited for something else (another stream, an event)
        idle = self.d_launch_main & (prev_end <= self.d_anchor) & (raw >= 0)
        typical = idle & (raw <= LAUNCH_LATENCY_CAP_NS)
        med = int(np.median(raw[typical])) if typical.any() else 0
        # a task that was not queued keeps its whole measured delay (including any wait for another
        # stream or event, which the model does not re-time); a queued one gets the typical latency
        lat = np.where(idle, raw, med)
        lat[~self.d_launch_main] = 0
        return np.maximum(lat, 0).astype(I64)

    @cached_property
    def block_info(self):
        """Per blocking call: base cost (no wait) and return latency, from the recording."""
        ctx = self.ctx
        rows = self.block_rows_all
        if not len(rows) or not len(self.dev):
            return pd.DataFrame({"row": rows, "base": ctx.dur[rows].astype(I64), "ret": np.zeros(len(rows), I64)})
        s, e = ctx.start[rows], ctx.end[rows]
        # completion of what it waited for: the latest device task end inside the call
        order = np.argsort(self.d_end, kind="stable")
        ends = self.d_end[order]
        k = np.searchsorted(ends, e, side="right") - 1
        c = np.where(k >= 0, ends[np.maximum(k, 0)], np.iinfo(I64).min)
        waited = c > s
        ret = np.where(waited, e - c, 0)
        # base: the cheapest call of the same name (what it costs when nothing is pending)
        # (a waiting call's own cost is its time after the device finished)
        names = ctx.name_code[rows]
        own = np.where(waited, ret, ctx.dur[rows])
        mins = pd.Series(own).groupby(names).transform("min").to_numpy()
        base = np.where(waited, np.minimum(mins, ctx.dur[rows]), ctx.dur[rows])
        return pd.DataFrame({"row": rows, "base": base.astype(I64), "ret": ret.astype(I64)})

    # ------------------------------------------------------------------------------------------
    def run(self, seg_factor=None, task_factor=None, unblock=None, detail: bool = False):
        """New end-to-end time (ns). ``seg_factor``: per main-lane piece (len S); ``task_factor``:
        per event row (device tasks use it); ``unblock``: bool per event row, blocking calls that
        stop blocking (they keep their base cost)."""
        ctx = self.ctx
        dur = self.seg_net.copy()
        if seg_factor is not None:
            dur = dur * np.asarray(seg_factor, dtype=float)
        binfo = self.block_info
        brows = binfo["row"].to_numpy()
        keep_block = np.ones(len(brows), dtype=bool)
        if unblock is not None and len(brows):
            keep_block &= ~np.asarray(unblock)[brows]
        # pieces owned by a blocking call (or inside it)
        bs, be = ctx.start[brows], ctx.end[brows]
        owner_block = np.full(self.S, -1, dtype=I64)
        order_b = np.argsort(bs, kind="stable")
        bs, be, brows, keep_block = bs[order_b], be[order_b], brows[order_b], keep_block[order_b]
        base = binfo["base"].to_numpy()[order_b]
        ret = binfo["ret"].to_numpy()[order_b]
        if len(brows):
            k = np.searchsorted(bs, self.seg_start, side="right") - 1
            inside = (k >= 0) & (self.seg_start < be[np.maximum(k, 0)])
            owner_block[inside] = k[inside]
        # unblocked calls: their pieces shrink to the base cost
        if len(brows):
            ub = (owner_block >= 0) & ~keep_block[np.maximum(owner_block, 0)]
            if ub.any():
                scale = base / np.maximum(be - bs, 1)
                dur[ub] = dur[ub] * scale[owner_block[ub]]
        blocking_piece = (owner_block >= 0)
        if len(brows):
            blocking_piece &= keep_block[np.maximum(owner_block, 0)]
        # epochs: kept blocks in order; epoch id of a piece = number of kept blocks ending before it
        kb = np.flatnonzero(keep_block)
        kb_end = be[kb]
        epoch = np.searchsorted(kb_end, self.seg_start, side="right")
        # pieces of block j belong to epoch j (they close it)
        bp = blocking_piece
        epoch[bp] = np.searchsorted(kb, owner_block[bp])
        n_ep = len(kb) + 1
        work = np.where(bp, 0.0, dur)
        if self.tail_piece >= 0:
            work[self.tail_piece] = 0.0
        W = np.bincount(epoch, weights=work, minlength=n_ep)
        # local clock: cumulative work before each piece within its epoch
        cw = np.cumsum(work) - work
        ep_first = np.searchsorted(epoch, np.arange(n_ep), side="left") if self.S else np.zeros(n_ep, I64)
        offset0 = np.where(ep_first < self.S, cw[np.minimum(ep_first, max(self.S - 1, 0))], 0.0) if self.S else \
            np.zeros(n_ep)
        local = cw - offset0[epoch] if self.S else cw
        # device tasks
        C_ep = np.zeros(n_ep)
        if len(self.dev):
            if self.S:
                t = self.d_anchor
                p = np.clip(np.searchsorted(self.seg_start, t, side="right") - 1, 0, self.S - 1)
                within = np.clip(t - self.seg_start[p], 0, None).astype(float)
                frac = np.where(self.seg_dur[p] > 0, dur[p] / np.maximum(self.seg_dur[p], 1), 1.0)
                ep = epoch[p]
                rel = np.where(bp[p], W[ep], local[p] + np.minimum(within * frac, dur[p])) + self.d_latency
            else:  # no host lane: tasks keep their recorded release
                ep = np.zeros(len(self.dev), dtype=I64)
                rel = (self.d_start - self.lo).astype(float)
            dd = self.d_dur.astype(float)
            if task_factor is not None:
                dd = dd * np.asarray(task_factor, dtype=float)[self.dev]
            order = np.lexsort((self.d_start, self.d_stream, ep))
            g = ep[order] * (int(self.d_stream.max()) + 1) + self.d_stream[order]
            scale = 1000.0  # keep sub-ns precision through the integer scan
            ends = max_plus_scan(np.round(rel[order] * scale).astype(I64), np.round(dd[order] * scale).astype(I64),
                                 g) / scale
            C_ep = np.zeros(n_ep)
            np.maximum.at(C_ep, ep[order], ends)
        # epoch durations
        E = W.copy()
        if len(kb):
            E[: len(kb)] = np.maximum(W[: len(kb)] + base[kb], C_ep[: len(kb)] + ret[kb])
        if self.wait_at_end:
            E[-1] = max(W[-1], C_ep[-1] + self.tail_ret)
        total = float(E.sum())
        if not self.S:  # no host lane: the device alone
            total = float(C_ep.max()) if len(self.dev) else float(self.hi - self.lo)
            E = np.array([total])
        if detail:
            return total, pd.DataFrame({"work_ns": W, "device_ns": C_ep, "epoch_ns": E})
        return total

    @cached_property
    def baseline(self) -> float:
        return self.run()

    @property
    def fidelity(self) -> float:
        """Baseline replay over the recorded wall time less the profiler's own (1.0 = the model
        reproduces the run)."""
        wall = self.hi - self.lo - self.recording_ns
        return self.baseline / wall if wall > 0 else float("nan")

    def gain(self, **changes) -> float:
        """Time saved (ns, >= 0) by the changes, as baseline replay minus changed replay."""
        return max(0.0, self.baseline - self.run(**changes))

    # helpers to express changes ------------------------------------------------------------------
    def seg_factor_for(self, row_mask: np.ndarray, factor: float, include_descendants: bool = True) -> np.ndarray:
        """Scale the main-lane pieces owned by the flagged events (and, by default, by anything
        nested inside them)."""
        f = np.ones(self.S)
        owner = self.seg_owner
        has = owner >= 0
        mask = row_mask
        if include_descendants:
            from .timeline import ancestor_flag
            mask = ancestor_flag(self.ctx, row_mask)
        hit = np.zeros(self.S, dtype=bool)
        hit[has] = mask[owner[has]]
        f[hit] = factor
        return f

    def seg_factor_in(self, starts, ends, factor: float, untracked_only: bool = False) -> np.ndarray:
        """Scale the main-lane pieces that lie inside the given time ranges (optionally only the
        untracked ones, e.g. Python time between ops)."""
        f = np.ones(self.S)
        us, ue = union(starts, ends)
        if not len(us):
            return f
        mid = (self.seg_start + self.seg_end) // 2
        k = np.searchsorted(us, mid, side="right") - 1
        inside = (k >= 0) & (mid < ue[np.maximum(k, 0)])
        if untracked_only:
            inside &= self.seg_owner < 0
        f[inside] = factor
        return f
