"""Device-side rules: idle devices, launch-bound runs, syncs, transfers, communication."""

from __future__ import annotations

import re

import numpy as np

from .. import classify as C
from ..intervals import covered_within, gaps, union
from ... import formatting as F
from .base import METHOD_CP, covered_ns, make_finding, pct, replay_gain, top_names

I64 = np.int64
MEMCPY_NAME_RE = re.compile(r"memcpy|memset", re.I)


def _main_pieces_in(ctx, starts, ends):
    """Main-lane replay pieces (not blocking calls) whose middle lies inside the given intervals."""
    rep = ctx.replay
    if not rep.S or not len(starts):
        return np.zeros(rep.S, dtype=bool)
    mid = (rep.seg_start + rep.seg_end) // 2
    us, ue = union(starts, ends)
    k = np.searchsorted(us, mid, side="right") - 1
    inside = (k >= 0) & (mid < ue[np.maximum(k, 0)])
    block = np.isin(rep.seg_owner, rep.block_rows_all)
    return inside & ~block


def device_idle(ctx, th):
    """An accelerator idle for a large share of the run (msprof Free > 10 %, Nsight gaps). Gain:
    replay with the host work done during the idle gaps removed or overlapped (upper bound)."""
    from ..devices import idle_gaps
    lo, hi = ctx.window
    for dev in ctx.accel_devices:
        rows = ctx.device_rows(dev)
        g = gaps(ctx.start[rows], ctx.end[rows], lo=lo, hi=hi, edges=True)
        idle = int(g["dur"].sum())
        if pct(idle, ctx.wall) < th["min_pct"]:
            continue
        big = g[g["dur"] >= th["gap_ns"]]
        sel = _main_pieces_in(ctx, big["start"].to_numpy(), big["end"].to_numpy())
        f = np.where(sel, 0.0, 1.0)
        gain, conf = replay_gain(ctx, seg_factor=f)
        ig = idle_gaps(ctx.profile)
        ig = ig[ig["device"] == dev] if len(ig) else ig
        cats = ig.groupby("category")["dur"].sum().to_dict() if len(ig) else {}
        longest = int(g["dur"].max()) if len(g) else 0
        # the tasks that end the longest gaps, for drill-down
        nxt = ig.sort_values("dur", ascending=False)["next_row"].head(50).to_numpy() if len(ig) else []
        cause = max(cats, key=cats.get) if cats else None
        hint = {"host_wait": "the host launches work too late (Python, data loading, syncs before launches)",
                "kernel_wait": "many short launches back to back (launch overhead)",
                "other": "syncs, events or other streams"}.get(cause, "")
        title = (f"{dev} is idle {pct(idle, ctx.wall):.0f}% of end-to-end ({F.ns(idle)}; {len(g):,} gaps, "
                 f"longest {F.ns(longest)})")
        yield make_finding(
            ctx, "device_idle", "idle", title,
            evidence={"device": dev, "idle_ns": idle, "gaps": int(len(g)), "gaps_over_threshold": int(len(big)),
                      "longest_gap_ns": longest, "idle_by_cause_ns": cats, "main_cause": cause,
                      "threshold_pct": th["min_pct"]},
            ops=top_names(ctx, np.asarray(nxt, dtype=I64), 3),
            suggestion=(f"Keep {dev} fed: mostly {hint}. Overlap host work with device work (DataLoader workers, "
                        "prefetching, non_blocking copies), remove syncs in the loop, and batch or fuse small "
                        "launches (torch.compile, CUDA graphs)." if hint else
                        f"Keep {dev} fed: overlap host work with device work and remove syncs in the loop."),
            gain_ns=gain, method=METHOD_CP + " (upper bound: host work during idle gaps overlapped)",
            confidence=conf * 0.6, rows=np.asarray(nxt, dtype=I64), affected_ns=idle)


def launch_bound(ctx, th):
    """Kernels shorter than their launch calls, with launches on the critical path (HTA launch stats,
    XProf kernel-launch %). Gain: replay with the launch calls' host time removed (what graph capture
    saves at least)."""
    from ..devices import launch_stats
    ls = launch_stats(ctx.profile)
    if len(ls) < th["min_launches"]:
        return
    short = float(ls["short"].mean())
    path = ctx.critical_path
    on_path = int(path.loc[path["bucket"] == "kernel_launch_overhead", "dur_ns"].sum())
    if short < th["short_share"] or pct(on_path, ctx.wall) < th["min_pct"]:
        return
    # graph capture replays the captured ops without their host work: the launch calls of short
    # kernels and the framework ops around them (the ops whose every kernel is short)
    mask = np.zeros(ctx.n, dtype=bool)
    mask[ls["launch"].to_numpy()] = True
    op_rows = _enclosing_ops(ctx, ls["launch"].to_numpy())
    long_k = np.zeros(ctx.n, dtype=bool)
    ok = op_rows >= 0
    long_k[op_rows[ok & ~ls["short"].to_numpy()]] = True
    short_op = np.zeros(ctx.n, dtype=bool)
    short_op[op_rows[ok]] = True
    short_op &= ~long_k
    rep = ctx.replay
    gain, conf = replay_gain(ctx, seg_factor=rep.seg_factor_for(mask | short_op, 0.0))
    title = (f"Launch-bound: {100 * short:.0f}% of {len(ls):,} kernels run shorter than their launch call; "
             f"launches are {pct(on_path, ctx.wall):.0f}% of the critical path")
    yield make_finding(
        ctx, "launch_bound", "launch_overhead", title,
        evidence={"launches": int(len(ls)), "short_share": short, "median_launch_ns": float(ls["cpu_ns"].median()),
                  "median_kernel_ns": float(ls["gpu_ns"].median()), "launch_on_critical_path_ns": on_path},
        ops=top_names(ctx, ls["task"].to_numpy(), 3),
        suggestion=("Cut the number of launches: capture the step in a CUDA/NPU graph (torch.cuda.graphs, "
                    "torch.compile(mode='reduce-overhead'), torchair/aclgraph on Ascend), fuse small ops, or "
                    "increase the work per op (larger batch)."),
        gain_ns=gain, method=METHOD_CP, confidence=conf * 0.7, rows=ls["task"].to_numpy(), affected_ns=on_path)


def _enclosing_ops(ctx, rows) -> np.ndarray:
    """The outermost framework op enclosing each row (-1 when none)."""
    rows = np.asarray(rows, dtype=I64)
    out = np.full(len(rows), -1, dtype=I64)
    cur = ctx.rows_of_parent[rows]
    for _ in range(128):
        live = cur >= 0
        if not live.any():
            break
        is_op = np.zeros(len(rows), dtype=bool)
        is_op[live] = ctx.role[cur[live]] == C.R["op"]
        out[is_op] = cur[is_op]
        cur = np.where(live, ctx.rows_of_parent[np.maximum(cur, 0)], -1)
    return out


def _sync_rows(ctx, copies: bool):
    rep = ctx.replay
    rows = rep.block_rows_all
    is_sync = (ctx.role[rows] == C.R["sync"]) | ctx.implicit_sync[rows]
    is_copy = ctx.flag(MEMCPY_NAME_RE)[rows]
    if copies:
        return rows[is_copy]
    return rows[is_sync & ~is_copy]


def syncs(ctx, th):
    """Blocking stream/device syncs in the run (.item(), .cpu(), torch.cuda.synchronize, ...): the
    host waits, then the device waits for the host. Gain: replay without them (G-cp)."""
    from ..devices import syncs as sync_table
    rows = _sync_rows(ctx, copies=False)
    if not len(rows):
        return
    tab = sync_table(ctx.profile)
    tab = tab[tab["row"].isin(rows)]
    wait = min(int(tab["wait_ns"].sum()), covered_ns(ctx, rows))   # syncs on several threads overlap
    if pct(wait, ctx.wall) < th["min_pct"]:
        return
    unblock = np.zeros(ctx.n, dtype=bool)
    unblock[rows] = True
    gain, conf = replay_gain(ctx, unblock=unblock)
    sites = tab.assign(site=tab["site"].where(tab["site"] != "", tab["name"])).groupby("site").agg(
        count=("row", "size"), wait_ns=("wait_ns", "sum")).sort_values("wait_ns", ascending=False)
    top_site = str(sites.index[0]) if len(sites) else ""
    advice = _sync_advice(top_site)
    title = (f"{len(rows):,} blocking syncs wait {F.ns(wait)} ({pct(wait, ctx.wall):.0f}% of end-to-end); "
             f"most from {top_site}")
    yield make_finding(
        ctx, "syncs", "sync", title,
        evidence={"syncs": int(len(rows)), "wait_ns": wait, "device_idle_during_syncs_ns": int(tab["device_idle_ns"].sum()),
                  "sites": sites.head(10).reset_index().to_dict("records")},
        ops=[str(s) for s in sites.index[:5]], suggestion=advice, gain_ns=gain, method=METHOD_CP,
        confidence=conf * 0.8, rows=rows, affected_ns=wait)


def _sync_advice(site: str) -> str:
    s = site.lower()
    if "item" in s or "local_scalar" in s:
        return ("Avoid .item()/float(tensor) in the loop: keep values on the device (accumulate losses as "
                "tensors), read them every N steps, or use non_blocking copies into pinned memory.")
    if "nonzero" in s or "masked_select" in s or "unique" in s:
        return ("Data-dependent shapes (nonzero, boolean indexing, unique) force a sync: use masks and "
                "torch.where with fixed shapes, or move the step out of the hot loop.")
    if "to" in s or "copy" in s or "cpu" in s:
        return ("Copies to the host (.cpu(), .numpy(), .tolist(), .to('cpu')) wait for the device: defer them, "
                "batch them, or copy non_blocking into pinned memory and sync once.")
    return ("Remove explicit synchronize calls from the loop (torch.cuda.synchronize / "
            "torch_npu.npu.synchronize); synchronise once at the end or use events to wait only where needed.")


def launch_blocking(ctx, th):
    """Almost every launch is immediately followed by a sync: CUDA_LAUNCH_BLOCKING=1 /
    ASCEND_LAUNCH_BLOCKING=1 left on (msprof synchronize_stream checker, P > 0.5)."""
    launch = np.flatnonzero((ctx.role == C.R["launch"]) & (ctx.track_code == ctx.main_track))
    sync = np.flatnonzero((ctx.role == C.R["sync"]) & (ctx.track_code == ctx.main_track))
    if len(launch) < th["min_launches"] or not len(sync):
        return
    ss = np.sort(ctx.start[sync])
    k = np.searchsorted(ss, ctx.end[launch], side="left")
    ok = k < len(ss)
    follows = np.zeros(len(launch), dtype=bool)
    follows[ok] = ss[k[ok]] - ctx.end[launch[ok]] <= th["within_ns"]
    share = float(follows.mean())
    if share <= th["share"]:
        return
    unblock = np.zeros(ctx.n, dtype=bool)
    unblock[sync] = True
    gain, conf = replay_gain(ctx, unblock=unblock)
    title = f"{100 * share:.0f}% of {len(launch):,} launches are followed at once by a sync: launch-blocking mode"
    yield make_finding(
        ctx, "launch_blocking", "sync", title, evidence={"launches": int(len(launch)), "share_followed_by_sync": share},
        ops=top_names(ctx, sync, 3),
        suggestion=("Unset CUDA_LAUNCH_BLOCKING / ASCEND_LAUNCH_BLOCKING (debug settings that make every launch "
                    "synchronous)."),
        gain_ns=gain, method=METHOD_CP, confidence=conf, rows=sync, affected_ns=float(ctx.dur[sync].sum()))


def syncbn(ctx, th):
    rows = np.flatnonzero(ctx.flag(C.SYNC_BN_RE) & ctx.is_host)
    if len(rows) < th["min_count"]:
        return
    t = int(ctx.dur[rows].sum())
    yield make_finding(
        ctx, "syncbn", "sync", f"SyncBatchNorm called {len(rows):,} times ({F.ns(t)})",
        evidence={"calls": int(len(rows)), "time_ns": t}, ops=top_names(ctx, rows, 2),
        suggestion="SyncBatchNorm synchronises across ranks every call: use plain BatchNorm/GroupNorm where the "
                   "per-device batch is large enough.",
        rows=rows, affected_ns=t)


# -- transfers ------------------------------------------------------------------------------------------
def _copy_rows(ctx):
    return np.flatnonzero(ctx.role == C.R["memcpy"])


def pageable_copies(ctx, th):
    """Copies from/to pageable host memory: the 'async' copy blocks the host (Nsight
    cuda_memcpy_async). Gain: replay with those copy calls non-blocking."""
    copies = _copy_rows(ctx)
    if not len(copies):
        return
    pageable = C.name_flags(ctx.events["name"].iloc[copies], C.PAGEABLE_RE)
    rows = copies[pageable]
    # also: a host->device / device->host copy whose launch call blocked until it finished
    blocking_calls = set(_sync_rows(ctx, copies=True).tolist()) | set(ctx.replay.block_rows_all.tolist())
    lrow = ctx.task_launch[copies]
    kind = C.memcpy_kind(ctx.events["name"].iloc[copies])
    blocked = np.isin(lrow, list(blocking_calls)) & np.isin(kind, ("H2D", "D2H"))
    rows = np.union1d(rows, copies[blocked])
    if len(rows) < th["min_count"]:
        return
    calls = ctx.task_launch[rows]
    calls = calls[calls >= 0]
    t = covered_ns(ctx, rows)
    host_blocked = covered_ns(ctx, calls)
    if pct(max(t, host_blocked), ctx.wall) < th["min_pct"]:
        return
    unblock = np.zeros(ctx.n, dtype=bool)
    unblock[calls] = True
    gain, conf = replay_gain(ctx, unblock=unblock)
    n_page = int(pageable.sum())
    title = (f"{len(rows):,} copies block the host ({n_page:,} from pageable memory): {F.ns(host_blocked)} "
             f"of host time in the copy calls")
    yield make_finding(
        ctx, "pageable_copies", "transfer", title,
        evidence={"copies": int(len(rows)), "pageable": n_page, "copy_time_ns": t, "host_blocked_ns": host_blocked},
        ops=top_names(ctx, rows, 3),
        suggestion=("Pin the host buffers and copy asynchronously: DataLoader(pin_memory=True) or "
                    "tensor.pin_memory(), then .to(device, non_blocking=True); reuse pinned staging buffers."),
        gain_ns=gain, method=METHOD_CP, confidence=conf * 0.8, rows=rows, affected_ns=host_blocked)


def sync_copies(ctx, th):
    """Synchronous copy APIs (cudaMemcpy, aclrtMemcpy: Nsight cuda_memcpy_sync)."""
    rows = _sync_rows(ctx, copies=True)
    rows = rows[ctx.role[rows] == C.R["sync"]]
    if len(rows) < th["min_count"]:
        return
    t = covered_ns(ctx, rows)
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    unblock = np.zeros(ctx.n, dtype=bool)
    unblock[rows] = True
    gain, conf = replay_gain(ctx, unblock=unblock)
    yield make_finding(
        ctx, "sync_copies", "transfer", f"{len(rows):,} synchronous copy calls block the host for {F.ns(t)}",
        evidence={"calls": int(len(rows)), "time_ns": t}, ops=top_names(ctx, rows, 3),
        suggestion="Use the asynchronous copy (non_blocking=True with pinned memory / cudaMemcpyAsync, "
                   "aclrtMemcpyAsync) and synchronise once where the data is needed.",
        gain_ns=gain, method=METHOD_CP, confidence=conf * 0.8, rows=rows, affected_ns=t)


def small_copies(ctx, th):
    """Many small copies (< 64 KB): each pays a fixed launch/DMA setup cost. Gain: replay with them
    batched: their launch calls' host time removed and each copy at the bandwidth of the run's
    large copies of the same direction (when there are any)."""
    copies = _copy_rows(ctx)
    if len(copies) < th["min_count"]:
        return
    nbytes = ctx.events["bytes"].to_numpy()[copies]
    known = np.isfinite(nbytes)
    if known.sum() < th["min_count"]:
        return
    small = known & (nbytes < th["small_bytes"])
    if small.sum() < th["min_count"] or small.sum() / known.sum() < th["count_share"]:
        return
    rows = copies[small]
    t = covered_ns(ctx, rows)
    calls = ctx.task_launch[rows]
    calls = calls[calls >= 0]
    host_t = covered_ns(ctx, calls)
    if pct(t + host_t, ctx.wall) < th["min_pct"]:
        return
    kind = C.memcpy_kind(ctx.events["name"].iloc[copies])
    task_factor = np.ones(ctx.n)
    bw_used = {}
    for k in np.unique(kind[small]):
        big = known & ~small & (kind == k)
        if big.sum():
            bw = float(nbytes[big].sum() / max(ctx.dur[copies[big]].sum(), 1))  # bytes per ns
            sel = small & (kind == k)
            ideal = nbytes[sel] / bw
            task_factor[copies[sel]] = np.clip(ideal / np.maximum(ctx.dur[copies[sel]], 1), 0, 1)
            bw_used[k or "?"] = bw
    mask = np.zeros(ctx.n, dtype=bool)
    mask[calls] = True
    rep = ctx.replay
    unblock = mask.copy()
    gain, conf = replay_gain(ctx, seg_factor=rep.seg_factor_for(mask, 0.0), task_factor=task_factor, unblock=unblock)
    title = (f"{len(rows):,} small copies (< {th['small_bytes'] // 1024} KB, median "
             f"{np.median(nbytes[small]) / 1024:.1f} KB) take {F.ns(t)} on the device and {F.ns(host_t)} "
             f"of launch calls")
    yield make_finding(
        ctx, "small_copies", "transfer", title,
        evidence={"copies": int(len(rows)), "share_of_copies": float(small.sum() / known.sum()),
                  "device_time_ns": t, "host_time_ns": host_t, "large_copy_bandwidth_gbps": bw_used},
        ops=top_names(ctx, rows, 3),
        suggestion=("Batch the transfers: gather the small tensors into one buffer (torch.cat / a pinned staging "
                    "tensor) and copy once per step; keep data that is reused on the device."),
        gain_ns=gain, method=METHOD_CP, confidence=conf * 0.7, rows=rows, affected_ns=t + host_t)


def exposed_transfers(ctx, th):
    """Host<->device copies that do not overlap compute (tb priority breakdown, HTA temporal). Gain:
    replay with their exposed part hidden (upper bound: prefetched on a side stream)."""
    copies = _copy_rows(ctx)
    if not len(copies):
        return
    kind = C.memcpy_kind(ctx.events["name"].iloc[copies])
    copies = copies[np.isin(kind, ("H2D", "D2H"))]
    if not len(copies):
        return
    exposed = np.zeros(len(copies), dtype=I64)
    for d in np.unique(ctx.device_code[copies]):
        comp = np.flatnonzero(np.isin(ctx.role, (C.R["compute"], C.R["comm"])) & (ctx.device_code == d))
        us, ue = union(ctx.start[comp], ctx.end[comp])
        m = ctx.device_code[copies] == d
        exposed[m] = ctx.dur[copies[m]] - covered_within(ctx.start[copies[m]], ctx.end[copies[m]], us, ue)
    tot = min(int(exposed.sum()), covered_ns(ctx, copies))   # copies on several streams overlap
    if pct(tot, ctx.wall) < th["min_pct"]:
        return
    tf = np.ones(ctx.n)
    tf[copies] = 1.0 - exposed / np.maximum(ctx.dur[copies], 1)
    gain, conf = replay_gain(ctx, task_factor=tf)
    title = f"Host<->device copies run {F.ns(tot)} ({pct(tot, ctx.wall):.0f}% of end-to-end) without overlapping compute"
    yield make_finding(
        ctx, "exposed_transfers", "transfer", title,
        evidence={"copies": int(len(copies)), "exposed_ns": tot, "copy_time_ns": int(ctx.dur[copies].sum())},
        ops=top_names(ctx, copies, 3),
        suggestion=("Overlap copies with compute: prefetch the next batch on a side stream with non_blocking=True "
                    "from pinned memory (double buffering), or keep the data on the device."),
        gain_ns=gain, method=METHOD_CP + " (upper bound: copies fully hidden)", confidence=conf * 0.6,
        rows=copies[exposed > 0], affected_ns=tot)


def exposed_communication(ctx, th):
    """Collective communication not overlapped with compute (HTA comm/comp overlap, tb > 10 %).
    Gain: replay with the exposed part hidden (upper bound)."""
    comm = np.flatnonzero(ctx.role == C.R["comm"])
    if not len(comm):
        return
    exposed = np.zeros(len(comm), dtype=I64)
    for d in np.unique(ctx.device_code[comm]):
        comp = np.flatnonzero((ctx.role == C.R["compute"]) & (ctx.device_code == d))
        us, ue = union(ctx.start[comp], ctx.end[comp])
        m = ctx.device_code[comm] == d
        exposed[m] = ctx.dur[comm[m]] - covered_within(ctx.start[comm[m]], ctx.end[comm[m]], us, ue)
    total_comm = covered_ns(ctx, comm)
    tot = min(int(exposed.sum()), total_comm)   # collectives on several streams overlap
    if pct(tot, ctx.wall) < th["min_pct"]:
        return
    tf = np.ones(ctx.n)
    tf[comm] = 1.0 - exposed / np.maximum(ctx.dur[comm], 1)
    gain, conf = replay_gain(ctx, task_factor=tf)
    overlap = 100.0 * (1 - tot / max(total_comm, 1))
    title = (f"Communication takes {F.ns(total_comm)} ({pct(total_comm, ctx.wall):.0f}% of end-to-end), "
             f"{F.ns(tot)} of it not overlapped with compute ({overlap:.0f}% overlap)")
    yield make_finding(
        ctx, "exposed_communication", "communication", title,
        evidence={"comm_ns": int(total_comm), "exposed_ns": tot, "overlap_pct": overlap},
        ops=top_names(ctx, comm, 3),
        suggestion=("Overlap communication with compute: DDP/FSDP bucketing (bucket_cap_mb), gradient accumulation "
                    "with no_sync, larger per-step work; check for stragglers across ranks."),
        gain_ns=gain, method=METHOD_CP + " (upper bound: communication fully hidden)", confidence=conf * 0.5,
        rows=comm[exposed > 0], affected_ns=tot)


def allocator_calls(ctx, th):
    """Device allocator calls on the host (cudaMalloc/cudaFree/aclrtMalloc...: msprof memory checker
    >= 10 ms per step)."""
    rows = np.flatnonzero(ctx.role == C.R["alloc"])
    if not len(rows):
        return
    t = covered_ns(ctx, rows)
    n_steps = max(len(ctx.steps), 1)
    if t / n_steps < th["per_step_ns"] and pct(t, ctx.wall) < th["min_pct"]:
        return
    mask = np.zeros(ctx.n, dtype=bool)
    mask[rows] = True
    gain, conf = replay_gain(ctx, seg_factor=ctx.replay.seg_factor_for(mask, 0.0))
    yield make_finding(
        ctx, "allocator_calls", "memory",
        f"{len(rows):,} device allocator calls take {F.ns(t)} ({F.ns(t / n_steps)} per step)",
        evidence={"calls": int(len(rows)), "time_ns": t, "steps": n_steps}, ops=top_names(ctx, rows, 3),
        suggestion=("Let the caching allocator reuse memory: avoid torch.cuda.empty_cache()/npu.empty_cache() in "
                    "the loop, set PYTORCH_CUDA_ALLOC_CONF / PYTORCH_NPU_ALLOC_CONF=expandable_segments:True, keep "
                    "shapes stable."),
        gain_ns=gain, method=METHOD_CP, confidence=conf, rows=rows, affected_ns=t)
