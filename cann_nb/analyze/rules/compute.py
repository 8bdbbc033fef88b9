"""Compute rules: precision, fusion (elementwise chains, known idioms), layout copies, redundant
recomputation, hotspots, and the Ascend device rules (AI_CPU, block dim, pipe utilisation, dynamic
shapes)."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd

from .. import classify as C
from ..patterns import elementwise_chains, idioms
from ..timeline import ancestor_flag, outermost
from ... import formatting as F
from .base import METHOD_CP, METHOD_HEADROOM, covered_ns, make_finding, pct, replay_gain, top_names

I64 = np.int64
F64_RE = re.compile(r"^(double|float64|c10::double|dt_double|torch\.float64)$", re.I)
HALF_RE = re.compile(r"half|bfloat16|bf16|float16|fp16", re.I)
F32_RE = re.compile(r"^(float|float32|dt_float|torch\.float32)$", re.I)
MATMUL_RE = re.compile(r"^aten::(mm|bmm|matmul|addmm|baddbmm|addbmm|linear|conv\w*|_convolution|cudnn_convolution\w*|"
                       r"einsum|addmv|mv|dot|_scaled_dot_product\w*|scaled_dot_product_attention)$", re.I)
LAYOUT_OP_RE = re.compile(r"^aten::contiguous$|TransData|nchwToNhwc|nhwcToNchw|^aten::_reshape_copy|"
                          r"convert_?layout|Transpose(?!.*Backward)|npu_format_cast|format_cast", re.I)
CONSTANT_CANDIDATE_RE = re.compile(
    r"linalg[_.](inv|pinv|cholesky|svd|svdvals|eig|eigh|eigvals|eigvalsh|qr|det|slogdet|matrix_exp|matrix_power|"
    r"lu_factor|lu|inv_ex|cholesky_ex|solve|lstsq|tensorinv)\b|^aten::(inverse|pinverse|cholesky|svd|det|logdet|"
    r"slogdet|matrix_exp|qr|geqrf|triu|tril|eye|arange|linspace|logspace|meshgrid|hann_window|hamming_window|"
    r"cholesky_inverse|_linalg_\w+)$|numpy\.linalg\.|scipy\.linalg\.", re.I)
TRANSCENDENTAL_RE = re.compile(r"^aten::(tanh|exp|exp2|expm1|log|log1p|log2|log10|sigmoid|erf|erfc|erfinv|sin|cos|"
                               r"tan|asin|acos|atan|atan2|sinh|cosh|pow|softmax|_softmax|log_softmax|gelu|silu)_?$",
                               re.I)
ALLOC_OP_RE = re.compile(r"^aten::(empty|empty_like|empty_strided|zeros|zeros_like|ones|ones_like|full|full_like|"
                         r"new_empty|new_zeros|new_ones|new_full|new_empty_strided|rand|randn|rand_like|randn_like|"
                         r"randint|tensor)$|^numpy\.(zeros|ones|empty|full|zeros_like|ones_like|empty_like)$", re.I)


def _parse_list(s) -> list:
    if not isinstance(s, str) or not s:
        return []
    try:
        v = json.loads(s)
        return v if isinstance(v, list) else [v]
    except ValueError:
        return [x.strip() for x in re.split(r"[;,]", s.strip("[]")) if x.strip()]


def tensor_dtypes(ctx) -> tuple[np.ndarray, np.ndarray]:
    """Per event (codes into the returned table): the dtypes of its *tensor* inputs (shape not
    empty: scalars are recorded as 0-dim and as 'double' by torch.profiler), parsed once per
    distinct (shapes, dtypes) pair."""
    ev = ctx.events
    key = ev["shapes"].astype(str) + "\x00" + ev["dtypes"].astype(str)
    cat = key.astype("category")
    table = []
    for k in cat.cat.categories:
        shp, dt = k.split("\x00", 1)
        shapes, dtypes = _parse_list(shp), _parse_list(dt)
        out = []
        for i, d in enumerate(dtypes):
            sh = shapes[i] if i < len(shapes) else None
            is_tensor = isinstance(sh, list) and len(sh) > 0 if shapes else True
            if is_tensor and isinstance(d, str) and d and d not in ("Scalar", "ScalarList", "nan"):
                out.append(d)
        table.append(tuple(out))
    arr = np.empty(len(table) + 1, dtype=object)
    for i, t in enumerate(table):
        arr[i] = t
    arr[-1] = ()
    return cat.cat.codes.to_numpy(), arr


def _dtype_flag(ctx, pattern) -> np.ndarray:
    codes, table = tensor_dtypes(ctx)
    hit = np.array([any(pattern.search(d) for d in t) for t in table], dtype=bool)
    return hit[codes]


def _tasks_of(ctx, op_mask: np.ndarray) -> np.ndarray:
    """Device tasks launched from inside the flagged host events."""
    inside = ancestor_flag(ctx, op_mask)
    lrow = ctx.task_launch
    t = np.zeros(ctx.n, dtype=bool)
    has = lrow >= 0
    t[has] = inside[lrow[has]]
    return t & ctx.is_device_task


def _time_of(ctx, rows) -> int:
    return covered_ns(ctx, rows)


def float64(ctx, th):
    """Tensor ops in float64 (often an accident: numpy defaults, torch.float64 literals). float32 halves
    the bytes moved and doubles the SIMD width. Gain: replay with those ops (and their device tasks)
    at half their time (G-head, expected 2x)."""
    flag = _dtype_flag(ctx, F64_RE) & (ctx.is_host | ctx.is_device_task)
    flag &= ~ctx.flag(re.compile(r"^aten::(to|_to_copy|copy_|item|_local_scalar_dense|detach_?|lift_fresh|"
                                 r"view|reshape|as_strided|select|slice|empty\w*)$"))
    rows = np.flatnonzero(flag)
    if not len(rows):
        return
    outer = outermost(ctx, rows)
    t = _time_of(ctx, outer)
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    speed = th["expected_speedup"]
    tspeed = th.get("transcendental_speedup", speed)
    trans = ctx.flag(TRANSCENDENTAL_RE)
    factor = np.where(trans, 1.0 / tspeed, 1.0 / speed)
    sel = np.zeros(ctx.n, dtype=bool)
    sel[outer] = True
    factor = np.where(sel, factor, 1.0)
    gain, conf = _factor_gain(ctx, outer, factor)
    names = top_names(ctx, outer, 5)
    title = f"{len(outer):,} ops compute in float64 for {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end)"
    yield make_finding(
        ctx, "float64", "precision", title,
        evidence={"ops": int(len(outer)), "time_ns": t, "expected_speedup": speed,
                  "transcendental_speedup": tspeed},
        ops=names,
        suggestion=("Use float32 (or bfloat16/float16 on accelerators): create tensors with dtype=torch.float32, "
                    "convert numpy inputs with .astype(np.float32) / torch.from_numpy(x).float(), avoid .double()."),
        gain_ns=gain, method=METHOD_CP + f" (float32 ops {speed:g}x faster, {tspeed:g}x for transcendental ones)",
        confidence=conf * 0.6, rows=outer,
        affected_ns=t)


def low_precision(ctx, th):
    """Matmul/conv work on an accelerator in float32 with no 16-bit compute (tb: enable AMP; XProf:
    16-bit < 10 %). Gain: replay with their device tasks at 1/expected_speedup (G-head)."""
    if not ctx.accel_devices:
        return
    mm = ctx.flag(MATMUL_RE) & ctx.is_host
    f32 = _dtype_flag(ctx, F32_RE)
    half = _dtype_flag(ctx, HALF_RE)
    if (half & ctx.is_host).any():
        return
    ops = mm & f32
    tasks = _tasks_of(ctx, ops)
    busy = np.flatnonzero(ctx.is_device_task & (ctx.role == C.R["compute"]))
    if not tasks.any() or not len(busy):
        return
    t = int(ctx.dur[tasks].sum())
    share = t / max(int(ctx.dur[busy].sum()), 1)
    if share * 100 < th["min_device_share_pct"]:
        return
    speed = th["expected_speedup"]
    gain, conf = replay_gain(ctx, task_factor=np.where(tasks, 1.0 / speed, 1.0))
    rows = np.flatnonzero(tasks)
    yield make_finding(
        ctx, "low_precision", "precision",
        f"float32 matmul/conv kernels take {F.ns(t)} ({100 * share:.0f}% of device compute) with no 16-bit compute",
        evidence={"kernels": int(len(rows)), "time_ns": t, "device_compute_share": share, "expected_speedup": speed},
        ops=top_names(ctx, np.flatnonzero(ops), 5),
        suggestion=("Enable mixed precision: torch.autocast(device_type, dtype=torch.bfloat16) (torch_npu.npu.amp "
                    "on Ascend), or allow TF32 (torch.backends.cuda.matmul.allow_tf32=True)."),
        gain_ns=gain, method=METHOD_CP + f" (matmul/conv {speed:g}x faster)", confidence=conf * 0.5, rows=rows,
        affected_ns=t)


def _level(ctx) -> str:
    return "device" if ctx.accel_devices else "host"


def _fused_factor(ctx, level: str, durations: np.ndarray, th) -> float:
    """Fused cost over unfused cost of one occurrence. On a device a fused elementwise kernel is
    memory-bound and costs about one pass: its largest op. On a CPU the ops are vectorised and
    compute-heavy ops (tanh, exp, pow) keep most of their cost: assume th["host_fused_share"]."""
    tot = float(durations.sum())
    if tot <= 0:
        return 1.0
    if level == "device":
        return min(1.0, float(durations.max()) / tot)
    return min(1.0, max(th.get("host_fused_share", 0.5), float(durations.max()) / tot))


def elementwise_chain(ctx, th):
    """Repeated runs of elementwise ops: each reads and writes the whole tensor, a fused kernel does it
    once (G-seq: each occurrence shrunk to its fused cost, see _fused_factor)."""
    level = _level(ctx)
    ch = elementwise_chains(ctx.profile, level=level, min_len=th["min_len"], min_count=th["min_count"])
    if not len(ch):
        return
    idm = idioms(ctx.profile, level=level)
    if len(idm):
        covered = set()
        for rows_, _occ in _idiom_rows(ctx, level, idm):
            covered.update(np.asarray(rows_).tolist())
        ch = ch[[len(set(np.asarray(r).tolist()) & covered) < 0.5 * len(r) for r in ch["all_rows"]]]
    if not len(ch):
        return
    rows = np.concatenate([np.asarray(r, dtype=I64) for r in ch["all_rows"]])
    t = covered_ns(ctx, rows)    # chains share ops and run on several threads: their union, not a sum
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    factor = np.ones(ctx.n)
    for all_rows, n in zip(ch["all_rows"], ch["n"]):
        occ = np.asarray(all_rows, dtype=I64).reshape(-1, n)
        for o in occ:
            factor[o] = _fused_factor(ctx, level, ctx.dur[o], th)
    gain, conf = _factor_gain(ctx, rows, factor)
    top = ch.iloc[0]
    title = (f"Unfused elementwise chains take {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end); top: "
             f"{top['pattern']} x{int(top['count'])}")
    yield make_finding(
        ctx, "elementwise_chain", "fusion", title,
        evidence={"chains": ch.drop(columns=["rows", "all_rows"]).head(10).to_dict("records"), "time_ns": t,
                  "level": level, "host_fused_share": th.get("host_fused_share")},
        ops=list(dict.fromkeys(top["pattern"].split(" > "))),
        suggestion=("Fuse the chain into one kernel: torch.compile the function, use a fused op (F.gelu, F.silu, "
                    "torch.addcmul, torch.lerp...), or write it in place (mul_/add_) to avoid new tensors."),
        gain_ns=gain, method=METHOD_CP + " (each occurrence at its fused cost)", confidence=conf * 0.5, rows=rows,
        affected_ns=t)


def _factor_gain(ctx, rows, factor_per_row):
    """Replay with the host pieces of ``rows`` (and their device tasks) scaled by a per-row factor."""
    rep = ctx.replay
    f = np.ones(rep.S)
    owner = rep.seg_owner
    inside = np.zeros(ctx.n, dtype=bool)
    inside[rows] = True
    anc = ancestor_flag(ctx, inside)
    # the factor of the flagged row each piece belongs to: its own or its nearest flagged ancestor's
    row_factor = np.ones(ctx.n)
    row_factor[rows] = factor_per_row[rows]
    eff = np.where(inside, row_factor, np.nan)
    par = ctx.rows_of_parent.copy()
    todo = np.isnan(eff) & anc
    for _ in range(64):
        if not todo.any():
            break
        idx = np.flatnonzero(todo)
        p = par[idx]
        okp = p >= 0
        hit = okp & inside[np.maximum(p, 0)]
        eff[idx[hit]] = row_factor[p[hit]]
        par[idx[~hit & okp]] = ctx.rows_of_parent[p[~hit & okp]]
        todo[idx[hit | ~okp]] = False
    eff = np.where(np.isnan(eff), 1.0, eff)
    has = owner >= 0
    f[has] = eff[owner[has]]
    tf = np.ones(ctx.n)
    lrow = ctx.task_launch
    t = (lrow >= 0) & ctx.is_device_task
    tf[t] = eff[lrow[t]]
    tf[rows[ctx.is_device_task[rows]]] = factor_per_row[rows[ctx.is_device_task[rows]]]
    return replay_gain(ctx, seg_factor=f, task_factor=tf)


def unfused_idiom(ctx, th):
    """Known unfused idioms (msprof affinity API / fusion patterns): a hand-written GELU, RMSNorm,
    softmax, attention, SiLU... Gain: G-seq, the matched ops fused to k x their largest op."""
    level = _level(ctx)
    idm = idioms(ctx.profile, level=level)
    if not len(idm):
        return
    idm = idm[idm["count"] >= th["min_count"]]
    if not len(idm):
        return
    seq_rows = _idiom_rows(ctx, level, idm)
    for (_, r), (rows, factor_rows) in zip(idm.iterrows(), seq_rows):
        t = covered_ns(ctx, rows)
        if pct(t, ctx.wall) < th["min_pct"]:
            continue
        factor = np.ones(ctx.n)
        for occ in factor_rows:
            occ = np.asarray(occ, dtype=I64)
            factor[occ] = _fused_factor(ctx, level, ctx.dur[occ], th)
        gain, conf = _factor_gain(ctx, rows, factor)
        yield make_finding(
            ctx, "unfused_idiom", "fusion",
            f"Unfused {r['idiom']} found {int(r['count'])} times: {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end)",
            evidence={"idiom": r["idiom"], "count": int(r["count"]), "exec_ns": t, "span_ns": int(r["span_ns"]),
                      "level": level, "host_fused_share": th.get("host_fused_share")},
            ops=[r["idiom"]], suggestion=f"Use {r['fused']}.",
            gain_ns=gain, method=METHOD_CP + " (each occurrence at its fused cost)", confidence=conf * 0.5,
            rows=rows, affected_ns=t)


def _idiom_rows(ctx, level, idm):
    """(all rows, [rows of each occurrence]) per idiom row."""
    return [(np.concatenate(occ) if len(occ) else np.empty(0, I64), occ) for occ in idm["occurrences"]]


def layout_copies(ctx, th):
    """Layout conversions: .contiguous() after transpose/permute, copying reshapes, Ascend TransData,
    NCHW<->NHWC kernels. Gain: replay without them (upper bound: consumers may then read strided data)."""
    flag = ctx.flag(LAYOUT_OP_RE) & (ctx.is_host | ctx.is_device_task)
    # a clone right after a transpose/permute of the same thread is the same thing spelled differently
    rows = np.flatnonzero(flag)
    host = rows[ctx.is_host[rows]]
    host = host[ctx.dur[host] > 0]
    # .contiguous() on an already contiguous tensor costs nothing: keep the ones that copied
    if len(host):
        kids = np.zeros(ctx.n, dtype=bool)
        copy_like = ctx.flag(re.compile(r"^aten::(clone|copy_|empty_like|empty_strided|_reshape_copy)$"))
        pr = ctx.rows_of_parent
        k = np.flatnonzero(copy_like & (pr >= 0))
        kids[pr[k]] = True
        host = host[kids[host] | ~ctx.flag(re.compile(r"^aten::contiguous$"))[host]]
    dev = rows[ctx.is_device_task[rows]]
    host = outermost(ctx, host) if len(host) else host
    t_host = _time_of(ctx, host) if len(host) else 0
    t_dev = covered_ns(ctx, dev)
    t = max(t_host, t_dev)
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    mask = np.zeros(ctx.n, dtype=bool)
    mask[host] = True
    tf = np.ones(ctx.n)
    tf[dev] = 0.0
    tf[_tasks_of(ctx, mask)] = 0.0
    gain, conf = replay_gain(ctx, seg_factor=ctx.replay.seg_factor_for(mask, 0.0), task_factor=tf)
    allrows = np.concatenate([host, dev])
    names = top_names(ctx, allrows, 4)
    title = f"Layout copies (contiguous/TransData/NCHW<->NHWC) take {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end)"
    yield make_finding(
        ctx, "layout_copies", "layout", title,
        evidence={"host_ops": int(len(host)), "device_tasks": int(len(dev)), "host_time_ns": t_host,
                  "device_time_ns": t_dev},
        ops=names,
        suggestion=("Avoid materialising layout changes: use ops that accept the transposed view (w @ x instead "
                    "of x.t().contiguous() @ w), pre-transpose constant weights once, keep one memory format "
                    "end to end (channels_last everywhere, or none); on Ascend set "
                    "torch_npu.npu.config.allow_internal_format=False or keep NPU-native formats."),
        gain_ns=gain, method=METHOD_CP + " (upper bound: copies removed)", confidence=conf * 0.6, rows=allrows,
        affected_ns=t)


def redundant_recompute(ctx, th):
    """Expensive functions of constants (inverses, decompositions, masks, position tables) recomputed
    with identical shapes every iteration: hoist them out of the loop. Calls the value numbering decided
    (``_decided_by_values``) are left to recomputed_values. Gain: replay with all calls
    but one removed (upper bound: the inputs must not change between calls)."""
    flag = ctx.flag(CONSTANT_CANDIDATE_RE) & ctx.is_host
    if "value_known" in ctx.events:   # value numbering decided these calls: no need to guess from shapes
        flag &= ~ancestor_flag(ctx, _decided_by_values(ctx))
    rows = np.flatnonzero(flag)
    if not len(rows):
        return
    rows = outermost(ctx, rows)
    rows = rows[~_fed_new_arrays(ctx, rows)]
    if not len(rows):
        return
    shapes = ctx.events["shapes"].iloc[rows].astype(str).fillna("")
    key = ctx.names(rows).astype(object) + "|" + shapes.to_numpy(dtype=object)
    df = pd.DataFrame({"row": rows, "key": key, "dur": ctx.dur[rows]})
    g = df.groupby("key").agg(count=("row", "size"), time=("dur", "sum"))
    g = g[g["count"] >= th["min_count"]]
    if not len(g):
        return
    sel = df[df["key"].isin(g.index)]
    t = covered_ns(ctx, sel["row"].to_numpy())
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    factor = np.ones(ctx.n)
    cnt = sel["key"].map(g["count"]).to_numpy()
    factor[sel["row"].to_numpy()] = 1.0 / cnt
    gain, conf = _factor_gain(ctx, sel["row"].to_numpy(), factor)
    top = g.sort_values("time", ascending=False).index[0]
    top_rows = sel.loc[sel["key"] == top, "row"].to_numpy()
    name = str(ctx.names(top_rows[:1])[0])
    title = (f"{name} is recomputed {int(g.loc[top, 'count'])} times with identical shapes "
             f"({F.ns(t)}, {pct(t, ctx.wall):.0f}% of end-to-end)")
    yield make_finding(
        ctx, "redundant_recompute", "redundant", title,
        evidence={"calls": int(len(sel)), "time_ns": t, "groups": g.reset_index().head(10).to_dict("records")},
        ops=top_names(ctx, sel["row"].to_numpy(), 3),
        suggestion=("If its inputs do not change between iterations (weights, constant matrices, masks, "
                    "position tables), compute it once before the loop and reuse the result (or cache it); "
                    "for solves, factorise once (torch.linalg.lu_factor / cholesky) and reuse the factors."),
        gain_ns=gain, method=METHOD_CP + " (upper bound: all calls but one removed)", confidence=conf * 0.4,
        rows=sel["row"].to_numpy(), affected_ns=t)


def _decided_by_values(ctx) -> np.ndarray:
    """Calls whose values say what redundant_recompute would guess: their inputs' values all recorded and
    either unlike every other call's (nothing is recomputed) or reported by recomputed_values. A signature
    repeated only as often as its loop ran on no new data stays undecided (new data may be a Python number)."""
    from .same_values import removable_calls

    ev = ctx.events
    known = ev["value_known"].to_numpy().astype(bool) & (ev["value_sig"].to_numpy() != 0)
    sig = ev["value_sig"].to_numpy()
    uniq, inv, cnt = np.unique(sig[known], return_inverse=True, return_counts=True)
    out = np.zeros(ctx.n, dtype=bool)
    out[np.flatnonzero(known)[cnt[inv] == 1]] = True
    out[removable_calls(ctx)["row"].to_numpy()] = True
    return out


def _fed_new_arrays(ctx, rows) -> np.ndarray:
    """Per row: whether the Python tracer saw the line calling it read different arrays on its two sampled
    runs (every sampled array operand a new object): its inputs change, it is not loop-invariant."""
    from ..line_arrays import line_arrays
    la = line_arrays(ctx)
    out = np.zeros(len(rows), dtype=bool)
    if la.empty or "file_line" not in ctx.events:
        return out
    changing = set()
    for rec in la.to_dict("records"):
        seen = [o.get("same_object") for o in rec["operands"] if o.get("role") == "in" and o.get("kind") == "ndarray"
                and "same_object" in o]
        if seen and not any(seen):
            changing.add(rec["file_line"])
    if not changing:
        return out
    # the line span each row runs in: climb to the nearest ancestor recorded as a line
    if "call_kind" not in ctx.events:
        return out
    is_line = (ctx.events["call_kind"] == "line").to_numpy()
    in_changing = ctx.events["file_line"].isin(list(changing)).to_numpy() & is_line
    cur = np.asarray(rows, dtype=I64)   # the row itself may be the line (its source names the call)
    for _ in range(64):
        live = cur >= 0
        if not live.any():
            break
        at = np.maximum(cur, 0)
        out |= live & in_changing[at]
        cur = np.where(live & ~is_line[at], ctx.rows_of_parent[at], -1)
    return out


def hotspot(ctx, th):
    """The op (host self time, or device task time) that dominates the run. No gain estimate: what to
    change depends on the op."""
    from ..hotspots import hotspots
    hs = ctx.memo(("hotspots", "name"), lambda: hotspots(ctx.events))
    if not len(hs):
        return
    wall = max(ctx.wall, 1)
    for _, r in hs.head(th["top"]).iterrows():
        code = np.flatnonzero(ctx.name_cats == r["name"])
        rows = np.flatnonzero(ctx.name_code == code[0]) if len(code) else np.empty(0, np.int64)
        # self time summed over threads/streams can exceed the wall: the share is of the time it covers
        share = 100.0 * min(float(r["self_ns"]), covered_ns(ctx, rows)) / wall
        if share < th["min_pct"]:
            continue
        side = "device" if r["cat"] in ("kernel", "memcpy", "memset", "comm") else "host"
        yield make_finding(
            ctx, "hotspot", "hotspot",
            f"{r['name']}: self time {F.ns(r['self_ns'])}, {share:.0f}% of end-to-end and {r['share_pct']:.0f}% of "
            f"all {side} self time ({int(r['count']):,} calls, {F.ns(r['mean_ns'])} each on average)",
            evidence={"self_ns": int(r["self_ns"]), "total_ns": int(r["total_ns"]), "count": int(r["count"]),
                      "p50_ns": float(r["p50_ns"]), "p99_ns": float(r["p99_ns"])},
            ops=[r["name"]],
            suggestion=("Look at this op's shapes and call sites (hotspots by name+shapes): reduce how often it runs, "
                        "give it larger batches, or pick a cheaper algorithm/dtype."),
            rows=rows, affected_ns=float(r["self_ns"]))


# -- Ascend ---------------------------------------------------------------------------------------------
def _col(ctx, name):
    return ctx.events[name] if name in ctx.events.columns else None


def aicpu(ctx, th):
    """Ops that fell back to the AI CPU (msprof aicpu checker: task >= 20 us). Gain: replay without
    them (upper bound; an AI Core implementation is not free)."""
    core = _col(ctx, "core_type")
    if core is None:
        return
    rows = np.flatnonzero((core.astype(str).str.upper() == "AI_CPU").to_numpy() & ctx.is_device_task
                          & (ctx.dur >= th["min_task_ns"]))
    if not len(rows):
        return
    t = covered_ns(ctx, rows)
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    tf = np.ones(ctx.n)
    tf[rows] = 0.0
    gain, conf = replay_gain(ctx, task_factor=tf)
    yield make_finding(
        ctx, "aicpu", "utilization", f"{len(rows):,} AI_CPU tasks of 20 us or more take {F.ns(t)}",
        evidence={"tasks": int(len(rows)), "time_ns": t}, ops=top_names(ctx, rows, 5),
        suggestion=("Avoid AI CPU fallbacks: change the dtype to one the AI Core supports (float64 -> float32, "
                    "int64 -> int32 where safe) or use an equivalent op that runs on the AI Core."),
        gain_ns=gain, method=METHOD_CP + " (upper bound: AI_CPU time removed)", confidence=conf * 0.4, rows=rows,
        affected_ns=t)


def _core_count(ctx):
    asc = ctx.meta.get("ascend") or {}
    for src in (asc, asc.get("profiler_info") or {}, asc.get("info") or {}, ctx.meta):
        if isinstance(src, dict):
            for k in ("ai_core_num", "aic_num", "ai_core_count"):
                if src.get(k):
                    try:
                        return int(src[k]), int(src.get("aiv_num") or 2 * int(src[k]))
                    except (TypeError, ValueError):
                        pass
    return None


def block_dim(ctx, th):
    """Core under-subscription: block_dim not a multiple of the core count (msprof block_dim checker).
    Gain: G-head dur x (1 - block_dim / (ceil(block_dim / cores) x cores)), replayed."""
    bd = _col(ctx, "block_dim")
    core = _col(ctx, "core_type")
    cores = _core_count(ctx)
    if bd is None or core is None or cores is None:
        return
    aic, aiv = cores
    b = pd.to_numeric(bd, errors="coerce").to_numpy(dtype=float)
    ct = core.astype(str).str.upper().to_numpy()
    n = np.where(np.isin(ct, ("AI_VECTOR_CORE", "MIX_AIV")), aiv, np.where(np.isin(ct, ("AI_CORE", "MIX_AIC")), aic, 0))
    ok = ctx.is_device_task & np.isfinite(b) & (b > 0) & (n > 0)
    eff = np.ones(ctx.n)
    eff[ok] = b[ok] / (np.ceil(b[ok] / n[ok]) * n[ok])
    rows = np.flatnonzero(ok & (eff < 1.0))
    if not len(rows):
        return
    loss = min(float((ctx.dur[rows] * (1 - eff[rows])).sum()), covered_ns(ctx, rows))
    if pct(loss, ctx.wall) < th["min_pct"]:
        return
    gain, conf = replay_gain(ctx, task_factor=np.where(ok & (eff < 1), eff, 1.0))
    yield make_finding(
        ctx, "block_dim", "utilization",
        f"{len(rows):,} AI Core tasks use block_dim not a multiple of the core count ({aic} AIC / {aiv} AIV)",
        evidence={"tasks": int(len(rows)), "idle_core_time_ns": loss, "ai_core_num": aic, "aiv_num": aiv},
        ops=top_names(ctx, rows, 5),
        suggestion="Tune the op's tiling (AOE: aoe --job_type=2) or change shapes so block_dim fills every core.",
        gain_ns=gain, method=METHOD_HEADROOM + " (idle cores), replayed", confidence=conf * 0.5, rows=rows,
        affected_ns=loss)


def no_bound(ctx, th):
    """AI Core ops over 20 us whose pipes are all under 80 % busy (msprof operator_no_bound): latency
    bound or under-occupied. Gain: G-head dur x (1 - max_ratio / 0.8), replayed."""
    cols = [c for c in ctx.events.columns if c.startswith("pmu_") and c.endswith("_ratio")]
    if not cols:
        return
    vals = np.column_stack([pd.to_numeric(ctx.events[c], errors="coerce").to_numpy(dtype=float) for c in cols])
    has = np.isfinite(vals).any(axis=1)
    mx = np.nanmax(np.where(np.isfinite(vals), vals, -1), axis=1)
    ok = ctx.is_device_task & has & (ctx.dur >= th["min_task_ns"]) & (mx >= 0) & (mx <= th["ratio"])
    rows = np.flatnonzero(ok)
    if not len(rows):
        return
    f = np.ones(ctx.n)
    f[rows] = np.clip(mx[rows] / th["ratio"], 0.05, 1.0)
    loss = min(float((ctx.dur[rows] * (1 - f[rows])).sum()), covered_ns(ctx, rows))
    if pct(loss, ctx.wall) < th["min_pct"]:
        return
    gain, conf = replay_gain(ctx, task_factor=f)
    yield make_finding(
        ctx, "no_bound", "utilization",
        f"{len(rows):,} device ops of {F.ns(th['min_task_ns'])}+ keep every pipe under {th['ratio']:.0%} busy",
        evidence={"tasks": int(len(rows)), "headroom_ns": loss, "pipes": cols},
        ops=top_names(ctx, rows, 5),
        suggestion="These ops are latency-bound or under-occupied: tune them (AOE), use larger tiles/batches, or fuse "
                   "them with neighbours.",
        gain_ns=gain, method=METHOD_HEADROOM + " (pipe ratio to 0.8), replayed", confidence=conf * 0.4, rows=rows,
        affected_ns=loss)


def dynamic_shape(ctx, th):
    st = _col(ctx, "op_state")
    if st is None:
        return
    s = st.astype(str).str.lower()
    known = s.isin(("static", "dynamic")).to_numpy()
    if known.sum() < th["min_ops"] or (s[known] == "static").any():
        return
    rows = np.flatnonzero(known)
    yield make_finding(
        ctx, "dynamic_shape", "compile", f"All {len(rows):,} device ops ran as dynamic-shape ops (no static shapes)",
        evidence={"ops": int(len(rows))}, ops=top_names(ctx, rows, 3),
        suggestion=("Run with static shapes: torch_npu.npu.set_compile_mode(jit_compile=False), "
                    "torch_npu.npu.config.allow_internal_format=False; pad or bucket variable shapes."),
        rows=rows, affected_ns=float(ctx.dur[rows].sum()))
