"""Rules on the roofline (analyze/efficiency): matrix-vector products to batch, memory-bound elementwise
chains to fuse, compute-bound ops far under their roof, integer matrix products no BLAS serves. Every gain is measured time minus the time
the changed work would take at the roof (method named in the evidence); no peak, no gain."""

from __future__ import annotations

import math
import re

import numpy as np

from ... import formatting as F
from ..efficiency import op_efficiency
from ..efficiency.cost import FAMILIES, event_costs
from ..efficiency.roofline import peaks_for
from ..efficiency.tensors import parse_inputs
from ..timeline import enclosing_flag, outermost
from .base import covered_ns, make_finding, pct, replay_gain
from .compute import HALF_RE, MATMUL_RE, _dtype_flag, _factor_gain, _tasks_of, _time_of

METHOD_ROOF = "roofline"
_MATMUL = FAMILIES.index("matmul")


def _is_matvec(name: str, shapes: str, dtypes: str) -> tuple[bool, float]:
    """(is a matrix-vector product: an M or N of 1, bytes of its matrix operand) from the recorded inputs."""
    ins = [t for t in parse_inputs(shapes, dtypes)[:3] if t is not None]
    mats = [t for t in ins if len(t.dims) >= 2]
    if not mats:
        return False, math.nan
    short = name.rsplit("::", 1)[-1]
    if short in ("mv", "addmv"):
        return True, float(max(t.nbytes for t in mats))
    a, b = (ins[1], ins[2]) if short in ("addmm", "baddbmm", "addbmm") and len(ins) >= 3 else (ins[0], ins[-1])
    rows_a = math.prod(a.dims[:-1]) if len(a.dims) >= 1 else 0
    cols_b = b.dims[0] if short == "linear" else (b.dims[-1] if len(b.dims) >= 2 else 1)
    return (rows_a == 1 or cols_b == 1) and len(ins) >= 2, float(max(t.nbytes for t in mats))


def batch_matvec(ctx, th):
    """Many matrix-vector products (an M or N of 1: batch-one inference, per-sample loops). Each reads
    its whole matrix for 2 FLOPs per element: far left of the ridge. Batched into one GEMM the matrix is
    read once. Gain: their measured time minus the batched GEMM's time at the roof."""
    eff = op_efficiency(ctx.profile, "name+shapes")
    if not len(eff):
        return
    c = event_costs(ctx)
    mm = eff[eff["bound"].isin(["memory", "latency"]) & (eff["calls"] >= th["min_calls"])]
    dtypes = _group_dtypes(ctx, c)
    groups, t_all, gain, rows_all = [], 0.0, 0.0, []
    for r in mm.to_dict("records"):
        dt = dtypes.get((r["name"], r["shapes"]))
        if dt is None:
            continue
        ok, matrix = _is_matvec(r["name"], r["shapes"], dt)
        if not ok:
            continue
        pk = peaks_for(ctx.profile, r["device"])
        batched_bytes = r["bytes"] - (r["calls"] - 1) * matrix
        roof_s = max(r["flops"] / pk.flops_for(r["dtype"]), batched_bytes / pk.bytes_per_s)
        g = r["time_ns"] - roof_s * 1e9 if math.isfinite(roof_s) else math.nan
        groups.append({"op": r["name"], "shapes": r["shapes"], "calls": r["calls"], "time_ns": r["time_ns"],
                       "intensity": r["intensity"], "bound": r["bound"], "batched_roof_ns": roof_s * 1e9})
        t_all += r["time_ns"]
        gain = gain + max(g, 0.0) if math.isfinite(gain) and math.isfinite(g) else math.nan
        rows_all.append(_rows_of(ctx, r["name"], r["shapes"]))
    if not groups:
        return
    rows = np.concatenate(rows_all)
    shown = _span_ns(ctx, rows)
    if pct(shown, ctx.wall) < th["min_pct"]:
        return
    calls = sum(g["calls"] for g in groups)
    yield make_finding(
        ctx, "batch_matvec", "utilization",
        f"{calls:,} matrix-vector products take {F.ns(shown)} ({pct(shown, ctx.wall):.0f}% of end-to-end), "
        "each reading its whole matrix",
        evidence={"groups": groups[:10], "time_ns": t_all},
        ops=sorted({g["op"] for g in groups}),
        suggestion=("Batch the vectors into one matrix (stack the inputs, x of shape [B, K] instead of B calls with "
                    "[1, K]; torch.vmap, or batch requests in the serving loop): the weights are then read once "
                    "per batch instead of once per vector."),
        gain_ns=gain, method=f"{METHOD_ROOF}: measured time minus one batched GEMM's time at the roof (same FLOPs, "
                             "the matrix read once)",
        confidence=0.5, rows=rows, affected_ns=shown)


def fuse_memory_bound(ctx, th):
    """Chains of elementwise ops that are memory-bound: each reads and writes whole tensors; fused, the
    intermediates never touch memory. Gain: the chains' measured time minus a fused kernel's time at the
    bandwidth roof (traffic of each occurrence's largest op: inputs read once, the result written once)."""
    from ..patterns import elementwise_chains

    ch = elementwise_chains(ctx.profile, min_len=th["min_len"], min_count=th["min_count"])
    if not len(ch):
        return
    c = event_costs(ctx)
    fresh = _fresh_ns(ctx)
    found, t_all, gain, rows_all = [], 0.0, 0.0, []
    taken = np.zeros(ctx.n, dtype=bool)
    order = np.argsort(-np.asarray(ch["n"]), kind="stable")
    for pattern, n, rows in zip(ch["pattern"].to_numpy()[order], ch["n"].to_numpy()[order],
                                ch["all_rows"].to_numpy()[order]):
        grid = np.asarray(rows, dtype=np.int64).reshape(-1, n)
        grid = grid[~taken[grid].any(axis=1)]     # a shorter chain inside a longer one is counted once
        if not len(grid):
            continue
        by, t = c["bytes"][grid], c["time_ns"][grid]
        if not np.isfinite(by).all() or not np.isfinite(t).all() or t.sum() <= 0:
            continue
        dev = c["device"][grid[0, 0]]
        pk = peaks_for(ctx.profile, str(dev))
        flops = np.nan_to_num(c["flops"][grid]).sum()
        ridge = pk.flops_for(c["dtype"][grid[0, 0]]) / pk.bytes_per_s
        if not (by.sum() > 0 and flops / by.sum() < ridge):
            continue                    # not memory-bound (or no peaks to say so)
        roof_ns = by.max(axis=1).sum() / pk.bytes_per_s * 1e9
        # a fused kernel still moves its largest op's bytes: on the host CPU no faster than that op was
        # measured to move them (a CPU's elementwise ops already stream near its bandwidth; the roof is a
        # copy micro-benchmark), on an accelerator at the bandwidth roof
        # (less the allocator and page-fault cost of its fresh output, analyze/first_touch.py: the fused
        # kernel's one output is the one a loop keeps reusing)
        big = np.take_along_axis(grid, t.argmax(axis=1)[:, None], axis=1)[:, 0]
        own_ns = float(np.maximum(t.max(axis=1) - fresh[big], 0.0).sum())
        fused_ns = max(roof_ns, own_ns) if str(dev) == "cpu" else roof_ns
        taken[grid.ravel()] = True
        found.append({"pattern": pattern, "ops": int(n), "occurrences": int(len(grid)), "time_ns": float(t.sum()),
                      "bytes": float(by.sum()), "fused_roof_ns": roof_ns, "fused_ns": fused_ns})
        t_all += float(t.sum())
        gain += max(float(t.sum()) - fused_ns, 0.0)
        rows_all.append(grid.ravel())
    if not found:
        return
    rows = np.concatenate(rows_all)
    shown = _span_ns(ctx, rows)
    if pct(shown, ctx.wall) < th["min_pct"]:
        return
    # end to end: the chains' ops shortened to the fused time, replayed (their host time on the CPU, their
    # device tasks on an accelerator), so overlap and the profiler's own time are accounted for
    flagged = np.zeros(ctx.n, dtype=bool)
    flagged[rows] = True
    factor = max(0.0, 1.0 - gain / t_all) if t_all > 0 else 1.0
    tasks = _tasks_of(ctx, flagged) | (flagged & ctx.is_device_task)
    if tasks.any():
        gain, _ = replay_gain(ctx, task_factor=np.where(tasks, factor, 1.0))
    else:
        gain, _ = replay_gain(ctx, seg_factor=ctx.replay.seg_factor_for(flagged, factor))
    yield make_finding(
        ctx, "fuse_memory_bound", "fusion",
        f"{len(found)} memory-bound elementwise chain(s) take {F.ns(shown)} ({pct(shown, ctx.wall):.0f}% of "
        "end-to-end)",
        evidence={"chains": found[:10], "time_ns": t_all},
        ops=sorted({op for f in found for op in f["pattern"].split(" > ")})[:10],
        suggestion=("Fuse the chain into one kernel: torch.compile the function (or a fused op such as F.gelu "
                    "after a linear, torch._foreach_* for optimiser updates): intermediates stay in registers."),
        gain_ns=gain, method=f"{METHOD_ROOF}: measured time minus the fused kernel's (each occurrence moves its "
                             "largest op's bytes: at the bandwidth roof on an accelerator, at that op's measured "
                             "rate on the host CPU), replayed",
        confidence=0.5, rows=rows, affected_ns=shown)


def _fresh_ns(ctx) -> np.ndarray:
    """Per row: what its fresh allocations cost beyond the work (the machine's measured cost per fresh byte;
    zeros when unknown), charged to the outermost op around each allocation."""
    from ..first_touch import fresh_cost_ns, per_byte_cost
    from .memory import host_allocations
    out = np.zeros(ctx.n)
    nbytes, owner = host_allocations(ctx)
    table = per_byte_cost(ctx.meta) if len(owner) else None
    if table:
        np.add.at(out, owner, np.nan_to_num(fresh_cost_ns(nbytes, table)))
    return out


def under_roof(ctx, th):
    """Compute-bound ops on an accelerator far under their compute roof (a float32 GEMM on tensor cores,
    a badly shaped or laid-out convolution, a slow kernel choice). Gain: measured time minus their time at
    ``target_frac`` of the peak (what tuned large GEMMs reach)."""
    eff = op_efficiency(ctx.profile, "name+shapes")
    # accelerators only: the fixes (tensor-core dtypes, TF32, channels_last, cuDNN) are theirs, and the host
    # CPU's peak is a large-matmul micro-benchmark that small ops cannot reach by any such change
    low = eff[(eff["bound"] == "compute") & (eff["flops_frac"] < th["max_frac"]) & (eff["device"] != "cpu")]
    if not len(low):
        return
    t_all = float(low["time_ns"].sum())
    rows = np.concatenate([_rows_of(ctx, n, s) for n, s in zip(low["name"], low["shapes"])])
    shown = _span_ns(ctx, rows)
    if pct(shown, ctx.wall) < th["min_pct"]:
        return
    target_ns = low["flops"] / (th["target_frac"] * low["peak_flops_per_s"]) * 1e9
    gain = float(np.maximum(low["time_ns"] - target_ns, 0).sum())
    top = low.sort_values("time_ns", ascending=False).head(10)
    yield make_finding(
        ctx, "under_roof", "precision",
        f"Compute-bound ops at {100 * float((low['flops'].sum() / (low['time_ns'].sum() / 1e9)) / low['peak_flops_per_s'].max()):.0f}% "
        f"of the compute roof take {F.ns(shown)} ({pct(shown, ctx.wall):.0f}% of end-to-end)",
        evidence={"ops": [{"op": r["name"], "shapes": r["shapes"], "dtype": r["dtype"], "flops_frac": r["flops_frac"],
                           "time_ns": r["time_ns"], "peak_source": r["peak_source"]} for r in top.to_dict("records")],
                  "target_frac": th["target_frac"], "time_ns": t_all},
        ops=top["name"].tolist(),
        suggestion=("Use the fast path of the hardware: bfloat16/float16 (torch.autocast) or TF32 for float32 "
                    "matmuls (torch.set_float32_matmul_precision('high')), channels_last for convolutions, "
                    "dimensions in multiples of 8/16, torch.backends.cudnn.benchmark = True, or torch.compile."),
        gain_ns=gain, method=f"{METHOD_ROOF}: measured time minus the time at {th['target_frac']:.0%} of the "
                             "compute roof", confidence=0.4, rows=rows, affected_ns=shown)


def _span_ns(ctx, rows) -> int:
    """The time the ops take, for a share of end-to-end: their spans and their device tasks' merged (ops
    on several threads, a kernel after its launch), so the share is at most 100 %."""
    mask = np.zeros(ctx.n, dtype=bool)
    mask[rows] = True
    return covered_ns(ctx, np.concatenate([np.asarray(rows, dtype=np.int64), np.flatnonzero(_tasks_of(ctx, mask))]))


def _group_dtypes(ctx, c) -> dict:
    rows = np.flatnonzero(c["costed"] & (c["family"] == _MATMUL))
    ev = ctx.events
    if not len(rows):
        return {}
    df = ev.iloc[rows][["name", "shapes", "dtypes"]].astype(str).drop_duplicates(["name", "shapes"])
    return {(n, s): d for n, s, d in zip(df["name"], df["shapes"], df["dtypes"])}


def _rows_of(ctx, name, shapes) -> np.ndarray:
    c = event_costs(ctx)
    ev = ctx.events
    sel = c["costed"] & (ev["name"].astype(str).to_numpy() == name)
    sel &= ev["shapes"].astype(str).to_numpy() == (shapes or "nan")
    return np.flatnonzero(sel)


INT_DTYPE_RE = re.compile(r"^(long int|int|short int|signed char|unsigned char|long|int64|int32|int16|int8|uint8|"
                          r"torch\.(u?int\d+|long))$", re.I)


def integer_matmul(ctx, th):
    """Matrix products in an integer dtype on the host CPU (counts, one-hot or index matrices multiplied as
    int64): no BLAS kernel serves them, torch and numpy run plain loops, tens of times slower than a
    float32 GEMM of the same shapes; float32 is exact for integer sums below 2**24 (float64 below 2**53).
    Gain: those ops at ``roof_frac`` of the run's float32 peak (their FLOPs from shapes), replayed."""
    yield from _at_float32_roof(
        ctx, th, "integer_matmul", INT_DTYPE_RE, "integer matrix product(s)",
        "Multiply in floating point: a.float() @ b.float() (exact while every product sum stays "
        "below 2**24; .double() below 2**53), then round back with .round().long() if integers "
        "are needed; in numpy, np.dot(a.astype(np.float32), b.astype(np.float32)). Integer "
        "matmuls have no BLAS kernel on the CPU.")


def half_precision_cpu(ctx, th):
    """Matrix products and convolutions in float16/bfloat16 run on the host CPU (a model converted with
    ``.half()`` "to speed up inference"): a CPU without native half-precision matrix units converts the
    operands element by element and runs a slower kernel than its float32 GEMM. Seen from the work: the
    ops' FLOPs (from shapes) at ``roof_frac`` of the machine's measured float32 peak take less than they
    took; ops already faster than that are not flagged (a CPU with AMX or AVX512-FP16 serves them). Ops
    that launched device work (a GPU or NPU run's host side) are left out. Gain: those ops at the float32
    roof, replayed."""
    yield from _at_float32_roof(
        ctx, th, "half_precision_cpu", HALF_RE, "float16/bfloat16 matrix product(s) on the CPU",
        "Run the model in float32 on the CPU (model.float(), inputs .float()): half precision saves memory "
        "but this CPU has no fast half-precision GEMM, so each product converts its operands. For faster "
        "CPU inference use torch.compile, oneDNN's int8 quantisation (torch.ao.quantization) or bfloat16 "
        "only on CPUs with AMX/AVX512-BF16; keep .half() for the GPU/NPU.", launched_ok=False)


def _at_float32_roof(ctx, th, rule: str, dtype_re, what: str, suggestion: str, launched_ok: bool = True):
    """Matmul-like host ops of a dtype the CPU serves slowly, estimated at ``roof_frac`` of its float32 peak."""
    flag = ctx.flag(MATMUL_RE) & ctx.is_host & _dtype_flag(ctx, dtype_re)
    if not launched_ok and flag.any():
        # the host side of a GPU/NPU op: its work ran on the device
        lrow = ctx.task_launch[ctx.is_device_task]
        flag &= ~enclosing_flag(ctx, lrow[lrow >= 0])
    rows = np.flatnonzero(flag)
    if not len(rows):
        return
    outer = outermost(ctx, rows)
    t = _time_of(ctx, outer)
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    c = event_costs(ctx)
    fl = c["flops"][rows]
    flops = float(np.nansum(np.where(c["counted"][rows], fl, np.nan)))
    peak = peaks_for(ctx.profile, "cpu").flops_for("fp32")
    if not (flops > 0 and math.isfinite(peak) and peak > 0):
        return          # no FLOPs from shapes or no measured peak: no estimate to give
    as_f32 = flops / (th["roof_frac"] * peak) * 1e9
    if as_f32 >= t:
        return          # already as fast as float32 would be here
    factor = np.ones(ctx.n)
    factor[outer] = as_f32 / t
    gain, conf = _factor_gain(ctx, outer, factor)
    names = sorted({str(x) for x in ctx.names(outer)})[:5]
    title = (f"{len(outer):,} {what} take {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end) at "
             f"{flops / max(t, 1):.2f} GFLOP/s; in float32 they would take about {F.ns(as_f32)}")
    yield make_finding(
        ctx, rule, "precision", title,
        evidence={"ops": int(len(outer)), "time_ns": t, "flops": flops, "float32_peak_flops_per_s": peak,
                  "roof_frac": th["roof_frac"], "as_float32_ns": as_f32},
        ops=names, suggestion=suggestion,
        gain_ns=gain, method=f"{METHOD_ROOF}: measured time minus the FLOPs at {th['roof_frac']:g} of the float32 "
                             "peak, replayed", confidence=conf * 0.6, rows=outer, affected_ns=t)
