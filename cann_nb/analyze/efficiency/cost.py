"""The formulas over a whole events table, and which event carries each cost.

Computed once per distinct (name, shapes, dtypes, concrete inputs) group, then mapped back to the rows
by code: a trace of a million events has a few thousand groups. Then the nesting rules, so that every
FLOP and byte is counted once, on the event whose time it took:

1. Innermost wins within a family: ``aten::linear`` -> ``aten::addmm`` counts on addmm (matmul and
   attention are one family here, so an attention op decomposed into bmm/matmul counts the matmuls).
2. Push-down: a costed op whose only same-family child has no formula (``_convolution`` ->
   ``mkldnn_convolution``, ``sdpa`` -> ``_flash_attention_forward``) hands its cost to that child,
   which is where the self time is.
3. Device tasks: a kernel takes the cost of the nearest costed op around its launch; an op that
   launched several kernels spreads its cost over them in proportion to their durations. The op's
   time is then its kernels' time (``time_ns``), not the host's.

Rows that carry a cost in the device totals (``counted``): device kernels, and host ops that launched
no device work (they ran on the CPU). Copies between host and device (memcpy tasks) are transfers,
not roofline work: they take no cost.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .. import classify as C
from .formulas import FAMILY_NAME_RE, cost
from .tensors import parse_inputs

FAMILIES = ("matmul", "conv", "norm", "softmax", "embedding", "copy", "reduction", "elementwise", "no_data",
            "recurrent")
_FAM_CODE = {f: i for i, f in enumerate(FAMILIES)}
# float32 matmuls that ran on tensor cores as TF32 (cuBLAS/CUTLASS kernel names say so)
TF32_KERNEL_RE = re.compile(r"tf32|s1688|s16816|xmma.*f32f32_tf32", re.I)
MAX_DEPTH = 128
UNLINKED = "unlinked"   # the device of ops whose device tasks the trace does not link to them


def _codes(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    cat = series if isinstance(series.dtype, pd.CategoricalDtype) else series.astype("category")
    return cat.cat.codes.to_numpy().astype(np.int64), np.asarray(cat.cat.categories.astype(str), dtype=object)


def group_costs(events: pd.DataFrame) -> dict:
    """Formula results per row (NaN where none): ``flops, bytes, family`` (code into FAMILIES, -1),
    ``dtype`` (object: fp32, bf16...; None). One formula call per distinct group."""
    n = len(events)
    out = {"flops": np.full(n, np.nan), "bytes": np.full(n, np.nan), "family": np.full(n, -1, np.int64),
           "dtype": np.full(n, None, dtype=object)}
    if not n or "shapes" not in events or "dtypes" not in events:
        return out
    name_c, names = _codes(events["name"])
    shp_c, shps = _codes(events["shapes"])
    dt_c, dts = _codes(events["dtypes"])
    if "concrete" in events:
        con_c, cons = _codes(events["concrete"])
    else:
        con_c, cons = np.full(n, -1, np.int64), np.empty(0, dtype=object)
    rows = np.flatnonzero((shp_c >= 0) & (dt_c >= 0) & (name_c >= 0))
    if not len(rows):
        return out
    key = np.stack([name_c[rows], shp_c[rows], dt_c[rows], con_c[rows]], axis=1)
    uniq, inv = np.unique(key, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    g_flops = np.full(len(uniq), np.nan)
    g_bytes = np.full(len(uniq), np.nan)
    g_fam = np.full(len(uniq), -1, np.int64)
    g_dtype = np.full(len(uniq), None, dtype=object)
    for i, (nc, sc, dc, cc) in enumerate(uniq):
        f, b, fam, dtype = cost(names[nc], parse_inputs(shps[sc], dts[dc]), cons[cc] if cc >= 0 else "")
        g_flops[i], g_bytes[i], g_dtype[i] = f, b, dtype
        g_fam[i] = _FAM_CODE.get(fam, -1)
    out["flops"][rows] = g_flops[inv]
    out["bytes"][rows] = g_bytes[inv]
    out["family"][rows] = g_fam[inv]
    out["dtype"][rows] = g_dtype[inv]
    return out


def event_costs(ctx) -> dict:
    """Per row of the profile (arrays of length n): ``flops, bytes`` on the carrying rows (NaN
    elsewhere), ``time_ns`` (the time that cost took: a kernel's duration, a CPU op's self time, a
    host op's kernels' time), ``dtype``, ``family``, ``device`` (where the work ran), ``counted`` (rows
    of the device totals: kernels and CPU-executed ops), ``tasks`` (kernels an op launched)."""
    return ctx.memo("efficiency_costs", lambda: _event_costs(ctx))


def _event_costs(ctx) -> dict:
    ev = ctx.events
    n = ctx.n
    g = group_costs(ev)
    flops, nbytes, fam, dtype = g["flops"], g["bytes"], g["family"], g["dtype"]
    if "flops" in ev:   # a recorded figure (torch with_flops) where no formula has one
        rec = ev["flops"].to_numpy(dtype=np.float64)
        use = ~np.isfinite(flops) & np.isfinite(rec)
        flops = np.where(use, rec, flops)
    parent = ctx.rows_of_parent
    costed = np.isfinite(flops) | np.isfinite(nbytes)
    _innermost_wins(costed, fam, parent)
    _push_down(ctx, costed, fam, flops, nbytes, dtype, parent)
    flops = np.where(costed, flops, np.nan)
    nbytes = np.where(costed, nbytes, np.nan)
    time_ns = np.where(costed, ctx.self_ns, 0).astype(np.float64)
    devices = np.where(costed, ctx.devices(np.arange(n)) if n else np.empty(0, object), None).astype(object)
    counted = costed & ~ctx.is_device_task
    tasks = np.zeros(n, np.int64)
    # device kernels take the cost of the nearest costed op around their launch
    j = ctx.launches
    if len(j):
        kern = j["task"].to_numpy()
        keep = ctx.role[kern] == C.R["compute"]
        kern, launch = kern[keep], j["launch"].to_numpy()[keep]
        op = _nearest_costed(costed, parent, launch)
        ok = op >= 0
        kern, op = kern[ok], op[ok]
        if len(kern):
            dur = ctx.dur[kern].astype(np.float64)
            per_op = np.bincount(op, weights=dur, minlength=n)
            cnt = np.bincount(op, minlength=n)
            share = np.where(per_op[op] > 0, dur / np.where(per_op[op] > 0, per_op[op], 1), 1.0 / cnt[op])
            flops[kern] = flops[op] * share
            nbytes[kern] = nbytes[op] * share
            fam[kern] = fam[op]
            kd = dtype[op].copy()
            tf32 = (kd == "fp32") & C.name_flags(ev["name"].iloc[kern], TF32_KERNEL_RE)
            kd[tf32] = "tf32"
            dtype[kern] = kd
            devices[kern] = ctx.devices(kern)
            time_ns[kern] = dur
            counted[kern] = True
            # the op: its kernels' time, on their device (the first kernel's), not counted twice
            ops = np.unique(op)
            time_ns[ops] = per_op[ops]
            devices[op] = ctx.devices(kern)
            tasks[ops] = cnt[ops]
            counted[ops] = False
            dtype[op] = np.where(tf32, "tf32", dtype[op])
    if ctx.is_device_task.any() and not (tasks > 0).any():
        # device work, but no costed op linked to it (torch_npu's task queue runs ops on another thread
        # than the one that records them): where and how long each op ran is unknown, never the CPU's
        host = costed & ~ctx.is_device_task
        counted[host] = False
        devices[host] = UNLINKED
        time_ns[host] = np.nan
    return {"flops": flops, "bytes": nbytes, "time_ns": time_ns, "dtype": dtype, "family": fam,
            "device": devices, "counted": counted, "costed": costed | counted, "tasks": tasks}


def _innermost_wins(costed: np.ndarray, fam: np.ndarray, parent: np.ndarray) -> None:
    """Clear (in place) every costed row that has a costed descendant of the same family."""
    rows = np.flatnonzero(costed)
    cur = parent[rows]
    f = fam[rows]
    clear = np.zeros(len(costed), dtype=bool)
    for _ in range(MAX_DEPTH):
        live = cur >= 0
        if not live.any():
            break
        rows, cur, f = rows[live], cur[live], f[live]
        hit = costed[cur] & (fam[cur] == f)
        clear[cur[hit]] = True
        cur = parent[cur]
    costed &= ~clear


def _push_down(ctx, costed, fam, flops, nbytes, dtype, parent) -> None:
    """Move a cost (in place) to the only same-family child that has none (a backend kernel op)."""
    for fam_name, pattern in FAMILY_NAME_RE.items():
        code = _FAM_CODE[fam_name]
        matches_name = C.name_flags(ctx.events["name"], pattern)
        for _ in range(4):
            p = parent
            cand = np.flatnonzero(~costed & matches_name & (p >= 0))
            if not len(cand):
                break
            par = p[cand]
            ok = costed[par] & (fam[par] == code)
            cand, par = cand[ok], par[ok]
            if not len(cand):
                break
            cnt = np.bincount(par, minlength=len(costed))
            one = cnt[par] == 1
            cand, par = cand[one], par[one]
            if not len(cand):
                break
            flops[cand], nbytes[cand], dtype[cand], fam[cand] = flops[par], nbytes[par], dtype[par], code
            costed[cand] = True
            costed[par] = False


def _nearest_costed(costed: np.ndarray, parent: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Per start row: itself or its nearest ancestor that carries a cost (-1 none)."""
    out = np.full(len(start), -1, np.int64)
    cur = start.copy()
    idx = np.arange(len(start))
    for _ in range(MAX_DEPTH):
        live = cur >= 0
        if not live.any():
            break
        idx, cur = idx[live], cur[live]
        hit = costed[cur]
        out[idx[hit]] = cur[hit]
        idx, cur = idx[~hit], parent[cur[~hit]]
    return out
