"""Critical path over host threads, kernel launches, device streams and syncs, with "bound by".

Graph (after HTA's critical_path_analysis, simplified and vectorised). Nodes are the host lanes'
elementary pieces (timeline.host_segments) and the device tasks. Each node has one *binding*
predecessor, the constraint that determined when it could start:

- a host piece follows the previous piece of its lane; the piece that ends a sync (or a blocking
  copy) instead follows the device task it waited for, when that task ended inside the piece;
- a device task follows the previous task on its stream when it started back to back (or when the
  launch came earlier); otherwise it was waiting for its launch and follows the host piece just
  before the launch call (the launch latency edge runs from the call's start to the task's start);
- a lane other than the main one starts (and resumes after a gap) from the main lane.

The path is the chain of binding predecessors from the node that ends last; it is found with
pointer doubling (log2(n) vectorised gathers, no per-node Python). Each node contributes the time
from its entry point to where its successor took over, so the pieces tile the path without overlap.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import classify as C
from .context import context
from .timeline import ancestor_flag

I64 = np.int64
KERNEL_KERNEL_GAP_NS = 30_000   # HTA's "kernel wait" cut-off (30 us effective, see analysis-anchors §2.3)
BACK_TO_BACK_NS = 1_000         # a task starting within 1 us of its predecessor's end was queued behind it
CROSS_STREAM_TOL_NS = 20_000    # a task starting within 20 us after another stream's task ended waited for it
LAUNCH_SLACK_NS = 100_000       # HTA's launch-delay outlier cut-off: a longer delay is not launch latency

# bound_by buckets (HTA's names, plus the host detail cann_nb can see)
BUCKETS = ("cpu_bound", "python_or_untracked", "kernel_launch_overhead", "sync_overhead", "data_loading",
           "gc", "compile", "gpu_compute_bound", "gpu_communication_bound", "gpu_memcpy_bound",
           "gpu_kernel_kernel_overhead", "device_wait_other", "outside_path")


def _lane_lookup(seg_lane, seg_start, seg_end, q_lane, q_time):
    """Index of the segment of lane q_lane that covers time q_time - 1 (ends at or after q_time,
    starts before it); -1 when none. Segments sorted by (lane, start)."""
    out = np.full(len(q_lane), -1, dtype=I64)
    if not len(seg_lane) or not len(q_lane):
        return out
    lanes = np.unique(seg_lane)
    bounds = np.searchsorted(seg_lane, lanes, side="left")
    bounds_hi = np.searchsorted(seg_lane, lanes, side="right")
    for ln, a, b in zip(lanes, bounds, bounds_hi):
        q = np.flatnonzero(q_lane == ln)
        if not len(q):
            continue
        k = np.searchsorted(seg_start[a:b], q_time[q], side="left") - 1  # last segment starting before t
        ok = k >= 0
        out[q[ok]] = a + k[ok]
    return out


def _chain(pred: np.ndarray, terminal: int) -> np.ndarray:
    """Nodes from ``terminal`` back to its root following ``pred`` (-1 = root), by pointer doubling."""
    n = len(pred)
    if terminal < 0 or n == 0:
        return np.empty(0, I64)
    J = np.where(pred >= 0, pred, np.arange(n)).astype(I64)  # roots point to themselves
    chain = np.array([terminal], dtype=I64)
    for _ in range(int(np.ceil(np.log2(n + 1))) + 2):
        nxt = J[chain]
        chain = np.concatenate([chain, nxt])
        if J[chain[-1]] == chain[-1]:
            break
        J = J[J]
    # cut at the root (first self-pointing node), then at any repeat (a cycle would be a bug upstream)
    root = np.flatnonzero(pred[chain] < 0)
    if len(root):
        chain = chain[: root[0] + 1]
    _, first = np.unique(chain, return_index=True)
    if len(first) < len(chain):
        seen = np.zeros(len(chain), dtype=bool)
        seen[first] = True
        rep = np.flatnonzero(~seen)
        chain = chain[: rep[0]]
    return chain


def critical_path(profile) -> pd.DataFrame:
    """The pieces of the critical path, in time order: ``start, end, dur_ns, kind (host|device|launch|
    device_gap|head), row (event row or -1), bucket, lane``. The pieces tile [path start, path end];
    a ``head`` piece covers the window before the path's root (time not explained by the path)."""
    ctx = context(profile)
    return ctx.critical_path


def build_critical_path(ctx) -> pd.DataFrame:
    seg = ctx.host_segments
    lo, hi = ctx.window
    H = len(seg)
    s_lane = seg["lane"].to_numpy().astype(I64)
    s_start = seg["start"].to_numpy().astype(I64)
    s_end = seg["end"].to_numpy().astype(I64)
    s_owner = seg["owner"].to_numpy().astype(I64)
    main = ctx.main_track

    dev = np.flatnonzero(ctx.is_device_task & (ctx.dur >= 0))
    # device tasks sorted by (stream, start)
    dev = dev[np.lexsort((ctx.end[dev], ctx.start[dev], ctx.track_code[dev]))]
    K = len(dev)
    d_start, d_end = ctx.start[dev], ctx.end[dev]
    d_stream = ctx.track_code[dev].astype(I64)

    pred = np.full(H + K, -1, dtype=I64)
    entry = np.concatenate([s_start, d_start]).astype(I64)  # where a node's own piece begins
    node_end = np.concatenate([s_end, d_end]).astype(I64)
    # kind of the piece between entry and the node's own start (device nodes): 0 none, 1 launch, 2 gap
    pre_kind = np.zeros(H + K, dtype=np.int8)
    launch_until = np.zeros(H + K, dtype=I64)

    # host pieces: previous piece on the lane
    same = np.zeros(H, dtype=bool)
    if H:
        same[1:] = s_lane[1:] == s_lane[:-1]
        pred[np.flatnonzero(same)] = np.flatnonzero(same) - 1

    # 1. host pieces that end a sync: bound by the device task the sync waited for
    if H and K:
        own = s_owner
        ok_own = own >= 0
        is_sync_owner = np.zeros(H, dtype=bool)
        is_sync_owner[ok_own] = (ctx.role[own[ok_own]] == C.R["sync"]) | ctx.implicit_sync[own[ok_own]]
        # blocking copies: a host call whose own device task ends inside its last piece
        blocking = np.zeros(H, dtype=bool)
        tl = ctx.launches
        if len(tl):
            own_task_end = pd.Series(tl["task_end"].to_numpy(), index=tl["launch"].to_numpy())
            own_task_end = own_task_end.groupby(level=0).max()
            te = np.full(ctx.n, np.iinfo(I64).min, dtype=I64)
            te[own_task_end.index.to_numpy()] = own_task_end.to_numpy()
            cand_te = np.where(ok_own, te[np.maximum(own, 0)], np.iinfo(I64).min)
            blocking = ok_own & (cand_te > s_start) & (cand_te <= s_end)
        last_piece = ok_own & (s_end == ctx.end[np.maximum(own, 0)])
        # the main lane's trailing untracked time waits for the device when it is still running
        # (the end of the recording drains the device)
        tail = np.zeros(H, dtype=bool)
        if main >= 0:
            on_main = np.flatnonzero(s_lane == main)
            if len(on_main) and s_owner[on_main[-1]] < 0 and s_end[on_main[-1]] >= hi:
                tail[on_main[-1]] = True
        q = np.flatnonzero(((is_sync_owner | blocking) & last_piece) | tail)
        if len(q):
            order = np.argsort(d_end, kind="stable")
            ends_sorted = d_end[order]
            k = np.searchsorted(ends_sorted, s_end[q], side="right") - 1  # latest task ending by the piece end
            ok = k >= 0
            k = np.maximum(k, 0)
            t_end = ends_sorted[k]
            ok &= t_end > s_start[q]
            qq = q[ok]
            pred[qq] = H + order[k[ok]]
            entry[qq] = t_end[ok]

    def lookup(q_lane, q_time):
        """The piece of lane q_lane that the path enters at q_time: the one covering q_time - 1,
        or the piece before it when that one is entered later (never a node entered after q_time)."""
        hit = _lane_lookup(s_lane, s_start, s_end, q_lane, q_time)
        ok = hit >= 0
        late = ok & (entry[np.maximum(hit, 0)] >= q_time)
        back = np.where(late, hit - 1, hit)
        valid = ok & (back >= 0)
        valid[valid] &= s_lane[back[valid]] == q_lane[valid]
        return np.where(valid, back, -1)

    # 2. lanes other than the main one: gaps wait for the main lane, first pieces start from it
    if H and main >= 0:
        other = s_lane != main
        gap_other = other & (s_owner < 0)
        entry[:H][gap_other] = s_end[gap_other]
        first_other = other & ~same
        q = np.flatnonzero(gap_other | first_other)
        if len(q):
            qt = np.where(gap_other[q], s_end[q], s_start[q])
            hit = lookup(np.full(len(q), main, I64), qt)
            ok = hit >= 0
            pred[q[ok]] = hit[ok]
            pred[q[~ok & first_other[q]]] = -1

    # 3. device tasks
    if K:
        first_on_stream = np.ones(K, dtype=bool)
        first_on_stream[1:] = d_stream[1:] != d_stream[:-1]
        prev = np.arange(K) - 1
        prev_end = np.where(first_on_stream, np.iinfo(I64).min // 2, np.concatenate([[0], d_end[:-1]]))
        lrow = ctx.task_launch[dev]
        has_launch = lrow >= 0
        l_start = np.where(has_launch, ctx.start[np.maximum(lrow, 0)], 0)
        l_end = np.where(has_launch, ctx.end[np.maximum(lrow, 0)], 0)
        gap = d_start - prev_end
        # host-bound: the launch call was still running when the stream drained (and there was a gap)
        host_bound = has_launch & (gap > BACK_TO_BACK_NS) & (l_end > prev_end) & (l_start <= d_start)
        via_stream = ~first_on_stream & ~host_bound
        idx = np.flatnonzero(via_stream)
        pred[H + idx] = H + prev[idx]
        entry[H + idx] = np.minimum(prev_end[idx], d_start[idx])
        pre_kind[H + idx] = np.where(gap[idx] > 0, 2, 0)
        hb = np.flatnonzero(host_bound | (first_on_stream & has_launch))
        if len(hb):
            t_launch = np.minimum(l_start[hb], d_start[hb])
            entry[H + hb] = t_launch
            pre_kind[H + hb] = 1
            # the launch edge covers the call and a normal latency; a longer delay is a wait for
            # something else (another stream, an event)
            launch_until[H + hb] = np.maximum(l_end[hb], t_launch) + LAUNCH_SLACK_NS
            if H:
                hit = lookup(ctx.track_code[lrow[hb]].astype(I64), t_launch)
                ok = hit >= 0
                pred[H + hb[ok]] = hit[ok]

    # 4. a task that waited longer than its stream or its launch explain, and started right after a
    #    task of another stream of the same device ended, waited for that task (event / stream wait)
    if K > 1:
        wait_end = np.where(pre_kind[H:] == 1, launch_until[H:], entry[H:])
        unexplained = (d_start - np.maximum(wait_end, entry[H:]) > KERNEL_KERNEL_GAP_NS) | (pred[H:] < 0)
        q = np.flatnonzero(unexplained)
        if len(q):
            d_dev = ctx.device_code[dev]
            order = np.lexsort((d_end, d_dev))
            key_dev, key_end = d_dev[order], d_end[order]
            found = np.full(len(q), -1, dtype=I64)
            for dv in np.unique(d_dev[q]):
                a, b = np.searchsorted(key_dev, [dv, dv + 1])
                qq = np.flatnonzero(d_dev[q] == dv)
                k = np.searchsorted(key_end[a:b], d_start[q[qq]], side="right") - 1
                for back in range(2):  # the latest end, or the one before it when on the same stream
                    kk = k - back
                    ok = (kk >= 0) & (found[qq] < 0)
                    cand = order[a + np.maximum(kk, 0)]
                    ok &= d_stream[cand] != d_stream[q[qq]]
                    ok &= d_end[cand] >= d_start[q[qq]] - CROSS_STREAM_TOL_NS
                    ok &= d_end[cand] > np.maximum(wait_end[q[qq]], entry[H + q[qq]])
                    found[qq[ok]] = cand[ok]
            hit = found >= 0
            nodes = H + q[hit]
            pred[nodes] = H + found[hit]
            entry[nodes] = d_end[found[hit]]
            pre_kind[nodes] = 2

    # 5. a device task still without a cause (no launch recorded, first on its stream) was issued by
    #    the host at the latest when it started: follow the main lane from there
    if K and H and main >= 0:
        q = np.flatnonzero(pred[H:] < 0)
        if len(q):
            hit = lookup(np.full(len(q), main, I64), d_start[q])
            ok = hit >= 0
            pred[H + q[ok]] = hit[ok]
            entry[H + q[ok]] = d_start[q[ok]]
            pre_kind[H + q[ok]] = 0

    # terminal: the node that ends last (the main lane wins ties)
    if H + K == 0:
        return _empty_path()
    end_all = node_end.copy()
    prio = np.zeros(H + K, dtype=I64)
    if H and main >= 0:
        prio[:H][s_lane == main] = 1
    terminal = int(np.lexsort((prio, end_all))[-1])
    chain = _chain(pred, terminal)[::-1]  # root first
    # piece ends: min(own end, successor's entry)
    c_entry = entry[chain]
    c_end = node_end[chain].copy()
    c_end[:-1] = np.minimum(c_end[:-1], c_entry[1:])
    c_end = np.maximum(c_end, c_entry)
    is_dev = chain >= H
    # pieces: host nodes; device nodes split into launch / wait-or-gap / the task itself
    hn = ~is_dev
    hrow = s_owner[chain[hn]] if hn.any() else np.empty(0, I64)
    di = chain[is_dev] - H
    drow = dev[di]
    t0 = np.clip(d_start[di], c_entry[is_dev], c_end[is_dev])
    pk = pre_kind[chain[is_dev]]
    split = np.where(pk == 1, np.clip(launch_until[chain[is_dev]], c_entry[is_dev], t0), c_entry[is_dev])
    k_host, k_launch, k_wait, k_gap, k_dev = (KINDS.index(k) for k in ("host", "launch", "device_wait",
                                                                        "device_gap", "device"))
    start = np.concatenate([c_entry[hn], c_entry[is_dev], split, t0])
    end = np.concatenate([c_end[hn], split, t0, c_end[is_dev]])
    kind = np.concatenate([np.full(int(hn.sum()), k_host, np.int8), np.full(len(di), k_launch, np.int8),
                           np.where(pk == 1, k_wait, k_gap).astype(np.int8), np.full(len(di), k_dev, np.int8)])
    row = np.concatenate([hrow, drow, drow, drow])
    lane = np.concatenate([s_lane[chain[hn]], d_stream[di], d_stream[di], d_stream[di]])
    keep = end > start
    start, end, kind, row, lane = start[keep], end[keep], kind[keep], row[keep], lane[keep]
    order = np.argsort(start, kind="stable")
    start, end, kind, row, lane = start[order], end[order], kind[order], row[order], lane[order]
    if len(start) and start[0] > lo:
        start = np.concatenate([[lo], start])
        end = np.concatenate([[start[1]], end])
        kind = np.concatenate([[KINDS.index("head")], kind]).astype(np.int8)
        row = np.concatenate([[-1], row])
        lane = np.concatenate([[-1], lane])
    dur = end - start
    bucket = _bucket_codes(ctx, kind, row, dur)
    return pd.DataFrame({"start": start, "end": end, "dur_ns": dur,
                         "kind": pd.Categorical.from_codes(kind, KINDS),
                         "row": row, "bucket": pd.Categorical.from_codes(bucket, BUCKETS), "lane": lane})


KINDS = ("host", "launch", "device_wait", "device_gap", "device", "head")


def _empty_path() -> pd.DataFrame:
    return pd.DataFrame({"start": np.empty(0, I64), "end": np.empty(0, I64), "dur_ns": np.empty(0, I64),
                         "kind": pd.Categorical.from_codes(np.empty(0, np.int8), KINDS), "row": np.empty(0, I64),
                         "bucket": pd.Categorical.from_codes(np.empty(0, np.int8), BUCKETS), "lane": np.empty(0, I64)})


def _bucket_codes(ctx, kind: np.ndarray, row: np.ndarray, dur: np.ndarray) -> np.ndarray:
    """Index into BUCKETS per path piece (integer work throughout: no string arrays)."""
    from .timeline import HOST_LABELS, owner_label_codes
    B = {b: i for i, b in enumerate(BUCKETS)}
    out = np.full(len(kind), B["outside_path"], dtype=np.int8)
    host = kind == KINDS.index("host")
    if host.any():
        lab = owner_label_codes(ctx, row[host])
        table = np.full(len(HOST_LABELS), B["python_or_untracked"], dtype=np.int8)
        for name, bucket in (("op", "cpu_bound"), ("launch", "kernel_launch_overhead"), ("sync", "sync_overhead"),
                             ("alloc", "cpu_bound"), ("runtime", "cpu_bound"), ("comm", "cpu_bound")):
            table[HOST_LABELS.index(name)] = B[bucket]
        hb = table[lab]
        r = row[host]
        ok = r >= 0
        flags = ctx.host_flags
        for name in ("data_loading", "gc", "compile"):
            f = np.zeros(len(r), dtype=bool)
            f[ok] = flags[name][r[ok]]
            hb[f] = B[name]
        out[host] = hb
    out[kind == KINDS.index("launch")] = B["kernel_launch_overhead"]
    out[kind == KINDS.index("device_wait")] = B["device_wait_other"]
    gap = kind == KINDS.index("device_gap")
    out[gap] = np.where(dur[gap] <= KERNEL_KERNEL_GAP_NS, B["gpu_kernel_kernel_overhead"], B["device_wait_other"])
    dv = kind == KINDS.index("device")
    if dv.any():
        rr = ctx.role[row[dv]]
        out[dv] = np.where(rr == C.R["comm"], B["gpu_communication_bound"],
                           np.where(np.isin(rr, (C.R["memcpy"], C.R["memset"])), B["gpu_memcpy_bound"],
                                    B["gpu_compute_bound"]))
    return out


def bound_by(profile) -> pd.DataFrame:
    """Critical-path time per bucket: ``bucket, dur_ns, pct`` (of the wall time); sums to the wall."""
    ctx = context(profile)
    path = ctx.critical_path
    lo, hi = ctx.window
    wall = max(hi - lo, 1)
    codes = path["bucket"].cat.codes.to_numpy() if len(path) else np.empty(0, np.int64)
    agg = np.bincount(codes, weights=path["dur_ns"].to_numpy(), minlength=len(BUCKETS)) if len(path) \
        else np.zeros(len(BUCKETS))
    covered = int(agg.sum())
    out = pd.DataFrame({"bucket": list(BUCKETS)})
    out["dur_ns"] = agg.astype("int64")
    # time after the path's end (inside the window) is outside the path too
    tail = max(0, (hi - lo) - covered)
    out.loc[out["bucket"] == "outside_path", "dur_ns"] += tail
    out["pct"] = 100.0 * out["dur_ns"] / wall
    return out


def host_flags(ctx) -> dict:
    """Per event: inside data loading / GC / compilation (the event or one of its ancestors)."""
    return {
        "data_loading": ancestor_flag(ctx, ctx.flag(C.DATALOADER_RE)),
        "gc": ancestor_flag(ctx, ctx.flag(C.GC_RE)),
        "compile": ancestor_flag(ctx, ctx.flag(C.COMPILE_RE)),
    }


def on_path_time(ctx, rows=None, mask=None) -> int:
    """Critical-path time owned by the given event rows (host pieces they own, device tasks)."""
    path = ctx.critical_path
    if mask is None:
        mask = np.zeros(ctx.n, dtype=bool)
        mask[np.asarray(rows, dtype=I64)] = True
    r = path["row"].to_numpy()
    k = path["kind"].astype(str).to_numpy()
    sel = (r >= 0) & np.isin(k, ("host", "device"))
    sel[sel] = mask[r[sel]]
    return int(path["dur_ns"].to_numpy()[sel].sum())
