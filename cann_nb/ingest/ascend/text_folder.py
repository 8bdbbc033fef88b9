"""A folder of text exports (ASCEND_PROFILER_OUTPUT or mindstudio_profiler_output) -> Parts.

Which source gives device tasks (documented in the package docstring): kernel_details / op_summary
when present - one row per compute task and per HCCL operator, with exact ns strings, core type,
block dim, shapes and PMU columns. trace_view then only *enriches*: stream/task ids and the core type
where kernel_details says N/A (Level0), the CANN ``connection_id`` (-> ``corr``), the torch_to_npu
flows (-> ``host_op_id``), the HCCL group; and it *adds* the MEMCPY_ASYNC data moves that
kernel_details does not list. HCCL plane sub-tasks and stream-sync tasks are not imported (the HCCL
operator span covers the former; the latter are not work) and are counted in ``meta["skipped"]``.
Without kernel_details, trace_view's hardware tasks are the device tasks under the same rules.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from . import comm
from .assemble import Parts
from .csv_text import (read_kernels, read_l2_cache, read_memory_record, read_module_mem, read_operator_memory,
                       read_stat_table, read_step_trace)
from .trace_view import (HCCL_TASK_TYPES, MEMCPY_TASK_TYPES, SYNC_TASK_TYPES, TraceView, merge_trace_views,
                         read_trace_view)

_STEP_RE = re.compile(r"^ProfilerStep#(\d+)$")


def read_text_folder(files: dict[str, list[Path]], parts: Parts) -> Parts:
    """``files`` maps a role (kernel_details, trace_view, memory_record, ...) to its file(s)."""
    tv: TraceView | None = None
    if files.get("trace_view"):
        tv = merge_trace_views([read_trace_view(p) for p in files["trace_view"]])
        parts.files += [str(p) for p in files["trace_view"]]
        parts.dropped.update(tv.dropped)
    default_dev = _default_device(files, tv, parts)
    if default_dev is not None and default_dev not in parts.device_ids:
        parts.device_ids.append(default_dev)

    kernels = None
    if files.get("kernel_details"):
        frames = [_note(parts, p, read_kernels(p, default_dev)) for p in files["kernel_details"]]
        parts.files += [str(p) for p in files["kernel_details"]]
        kernels = pd.concat(frames, ignore_index=True, sort=False) if len(frames) > 1 else frames[0]

    host = tv.host if tv is not None else None
    if kernels is not None:
        device = _enrich(kernels, tv, parts)
        k0 = device[0]
        if files.get("l2_cache") and {"stream_id", "task_id"} <= set(k0.columns):  # after enrich: Level0 ids
            l2 = read_l2_cache(files["l2_cache"][0])
            parts.files.append(str(files["l2_cache"][0]))
            device[0] = k0.merge(l2, on=["stream_id", "task_id"], how="left")
        parts.ascend["device_task_source"] = "kernel_details" + (" + trace_view" if tv is not None else "")
    elif tv is not None:
        device = _from_trace_view(tv, parts)
        parts.ascend["device_task_source"] = "trace_view"
    else:
        device = []
    if tv is not None and host is not None and len(host):
        host, device = _link_host(host, device, tv.async_links)
    parts.host = host
    parts.device = device
    if tv is not None and len(tv.counters):
        parts.counters.append(tv.counters)

    # steps: host ProfilerStep#N spans, else the device extent of each Step Id
    steps = None
    if host is not None and len(host):
        m = host["name"].astype(str).str.extract(_STEP_RE)[0]
        is_step = m.notna() & host["cat"].eq("op")
        if is_step.any():
            s = host[is_step]
            steps = pd.DataFrame({"step": m[is_step].astype("int64").to_numpy(), "start_abs": s["start_abs"].to_numpy(),
                                  "end_abs": (s["start_abs"] + s["dur_ns"]).to_numpy()})
            parts.ascend["step_source"] = "trace_view ProfilerStep#N"
    if steps is None and kernels is not None and "step" in kernels.columns and kernels["step"].notna().any():
        k = kernels.dropna(subset=["step"])
        g = k.assign(end=k["start_abs"] + k["dur_ns"]).groupby("step")
        steps = pd.DataFrame({"step": g.size().index.astype("int64"), "start_abs": g["start_abs"].min().to_numpy(),
                              "end_abs": g["end"].max().to_numpy()})
        parts.ascend["step_source"] = "kernel_details Step Id (device extent)"
    parts.steps = steps
    if files.get("step_trace_time"):
        parts.ascend["step_trace"] = read_step_trace(files["step_trace_time"][0])
        parts.files.append(str(files["step_trace_time"][0]))

    for p in files.get("memory_record", []):
        parts.memory.append(_note(parts, p, read_memory_record(p, default_dev)))
        parts.files.append(str(p))
    for p in files.get("operator_memory", []):
        parts.memory.append(_note(parts, p, read_operator_memory(p, default_dev)))
        parts.files.append(str(p))
    for p in files.get("npu_module_mem", []):
        parts.counters.append(_note(parts, p, read_module_mem(p, default_dev)))
        parts.files.append(str(p))
    for role in ("op_statistic", "api_statistic"):
        if files.get(role):
            parts.ascend[role] = read_stat_table(files[role][0])
            parts.files.append(str(files[role][0]))
    if files.get("communication"):
        ops = comm.read_communication(files["communication"][0])
        parts.ascend["communication"] = {"ops": ops, "totals": comm.summarise(ops)}
        parts.files.append(str(files["communication"][0]))
    if files.get("communication_matrix"):
        parts.ascend.setdefault("communication", {})["matrix"] = comm.read_matrix(files["communication_matrix"][0])
        parts.files.append(str(files["communication_matrix"][0]))
    if kernels is not None and parts.ascend.get("op_statistic"):
        parts.ascend["cross_checks"] = {"op_statistic": op_statistic_check(kernels, parts.ascend["op_statistic"])}
    return parts


def _note(parts: Parts, path: Path, frame: pd.DataFrame) -> pd.DataFrame:
    """Record rows that had fewer fields than the header (padded by the reader)."""
    short = frame.attrs.get("short_rows")
    if short:
        parts.ascend.setdefault("malformed_rows", {})[Path(path).name] = {
            "short_rows": len(short), "lines": short[:20],
            "note": "fewer fields than the header; padded with empty cells, later values may be shifted"}
    return frame


def _default_device(files, tv, parts) -> int | None:
    """Device of this rank for files without a Device_id column (never the rank: rank 2 may be NPU:4)."""
    if tv is not None and tv.device_ids:
        return tv.device_ids[0]
    if parts.device_ids:
        return parts.device_ids[0]
    from .csv_text import Columns, read_csv  # cheap: first rows of the small files that name the device
    from .units import device_label

    for role in ("npu_module_mem", "memory_record", "operator_memory"):
        for p in files.get(role, []):
            df = read_csv(p, nrows=2000)
            s = Columns(df, p).get("Device Type", "Device")
            if s is None:
                continue
            lab = pd.Series(device_label(s), dtype=object).dropna()
            lab = lab[lab.str.startswith("npu:")]
            if len(lab):
                return int(lab.mode().iloc[0].split(":")[1])
    return None


def _enrich(k: pd.DataFrame, tv: TraceView | None, parts: Parts) -> list[pd.DataFrame]:
    k = k.copy()
    k["corr"] = -1
    if tv is None:
        return [k]
    m = _match(k, tv.hw)
    matched = m["dur_ns"].notna()
    for col in ("stream_id", "task_id", "model_id"):
        if col in k.columns:
            k[col] = k[col].fillna(m[col])
        else:
            k[col] = m[col]
    core = k["core_type"] if "core_type" in k.columns else pd.Series(None, index=k.index, dtype=object)
    core = core.astype(object).where(core.notna(), m["task_type"])
    k["core_type"] = core
    k["task_type"] = m["task_type"]
    k["corr"] = m["corr"].fillna(-1).astype("int64")
    # trace_view's start of the same task (flow ids use it; exact int, -1 when unmatched)
    k["_link_start"] = m["_tv_start"].astype("Int64").fillna(-1).astype("int64")
    # HCCL operator rows <-> HCCL group spans
    if len(tv.hccl_ops):
        mo = _match(k, tv.hccl_ops[["start_abs", "name", "corr", "group"]])
        has = mo["corr"].notna()
        k.loc[has, "corr"] = mo.loc[has, "corr"].astype("int64")
        k.loc[has, "_link_start"] = mo.loc[has, "_tv_start"].astype("int64")
        k["group"] = mo["group"]
    # hardware tasks kernel_details does not list
    used = m.loc[matched, "_hw_row"].astype("int64").unique()
    rest = tv.hw.drop(index=tv.hw.index[used])
    tt = rest["task_type"].astype(object).fillna("").astype(str)
    is_memcpy = tt.str.upper().isin(MEMCPY_TASK_TYPES) | rest["name"].astype(str).str.upper().str.startswith("MEMCPY")
    memcpy = rest[is_memcpy.to_numpy()].assign(cat="memcpy", core_type=lambda d: d["task_type"])
    _count_dropped(parts, rest[~is_memcpy.to_numpy()], "trace_view_tasks_not_in_kernel_details")
    return [k, memcpy]


MATCH_TOLERANCE_NS = 1000


def _match(k: pd.DataFrame, other: pd.DataFrame) -> pd.DataFrame:
    """Row of ``other`` (same name, nearest start within 1 µs) for each kernel_details row.

    kernel_details and trace_view print the same start, but HCCL spans can differ by 1 ns of rounding
    (``...241.563`` vs ``...241.564``); names like ``hcom_allReduce__586_0_1`` are unique per operator.
    Each ``other`` row is used at most once. Returns a frame aligned with ``k`` (NaN where unmatched),
    with ``_hw_row`` = position in ``other``.
    """
    left = pd.DataFrame({"start_abs": k["start_abs"].to_numpy(), "name": k["name"].astype(str).to_numpy(),
                         "_k_row": np.arange(len(k))}).sort_values("start_abs", kind="stable")
    right = other.reset_index(drop=True).assign(_hw_row=lambda d: np.arange(len(d)),
                                                _tv_start=lambda d: d["start_abs"].astype("Int64"),
                                                name=lambda d: d["name"].astype(str))
    right = right.sort_values("start_abs", kind="stable")
    m = pd.merge_asof(left, right, on="start_abs", by="name", direction="nearest", tolerance=MATCH_TOLERANCE_NS)
    dup = m["_hw_row"].notna() & m.duplicated("_hw_row", keep="first") & m["_hw_row"].notna()
    m.loc[dup, [c for c in m.columns if c not in ("start_abs", "name", "_k_row")]] = np.nan
    m = m.sort_values("_k_row").reset_index(drop=True)
    m.index = k.index
    return m


def _from_trace_view(tv: TraceView, parts: Parts) -> list[pd.DataFrame]:
    hw = tv.hw
    tt = hw["task_type"].astype(object).fillna("").astype(str)
    skip = tt.isin(SYNC_TASK_TYPES | HCCL_TASK_TYPES) | hw["name"].isin(SYNC_TASK_TYPES)
    _count_dropped(parts, hw[skip.to_numpy()], "trace_view_sync_or_hccl_subtasks")
    dev = hw[~skip.to_numpy()].assign(core_type=lambda d: d["task_type"])
    comm_ops = tv.hccl_ops.assign(cat="comm", core_type="COMMUNICATION", op_type=None)
    return [dev, comm_ops]


def _count_dropped(parts: Parts, rows: pd.DataFrame, key: str) -> None:
    if not len(rows):
        return
    parts.dropped[key] = parts.dropped.get(key, 0) + int(len(rows))
    by = rows["task_type"].astype(object).fillna("?").value_counts()
    parts.ascend.setdefault("dropped_task_types", {}).update({str(k): int(v) for k, v in by.items()})


def _link_host(host: pd.DataFrame, device: list[pd.DataFrame], links: pd.DataFrame):
    """torch_to_npu flows: (thread, op start) -> innermost op starting there; task start -> that op."""
    if not len(links) or not device:
        return host, device
    host = host.reset_index(drop=True)
    ops = host[host["cat"].eq("op")]
    cand = pd.DataFrame({"tid": ops["tid"].astype(str).to_numpy(), "host_start_abs": ops["start_abs"].to_numpy(),
                         "dur": ops["dur_ns"].to_numpy(), "hrow": ops.index.to_numpy()})
    cand = cand.sort_values("dur", kind="stable").drop_duplicates(["tid", "host_start_abs"])
    lk = links.assign(tid=links["tid"].astype(str)).merge(cand, on=["tid", "host_start_abs"], how="inner")
    lk = lk.drop_duplicates("dev_start_abs", keep=False)
    key = pd.Series(lk["hrow"].to_numpy(), index=lk["dev_start_abs"].to_numpy())
    out = []
    for d in device:
        d = d.copy()
        start = d["start_abs"].astype("int64")
        if "_link_start" in d.columns:
            ls = d["_link_start"].astype("int64")
            start = start.where(ls < 0, ls)
        d["_hkey"] = start.map(key).fillna(-1).astype("int64")
        out.append(d)
    return host, out


def op_statistic_check(kernels: pd.DataFrame, stats: list[dict]) -> dict:
    """Cross-check: kernel count per (OP Type, Core Type) against op_statistic.csv."""
    if "op_type" not in kernels.columns or "core_type" not in kernels.columns:
        return {"checked": False}
    got = kernels.groupby([kernels["op_type"].astype(str), kernels["core_type"].astype(str)],
                          observed=True).size()
    mism = []
    for r in stats:
        key = (str(r.get("OP Type")), str(r.get("Core Type")))
        want = r.get("Count")
        have = int(got.get(key, 0))
        if want is not None and have != int(want):
            mism.append({"op_type": key[0], "core_type": key[1], "op_statistic": int(want), "kernels": have})
    return {"checked": True, "rows": len(stats), "mismatches": mism}
