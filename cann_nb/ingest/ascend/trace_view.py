"""trace_view.json (torch_npu / MindSpore) and msprof_*.json (native msprof): the Ascend timeline.

formats.md §3.9: a bare JSON array of Chrome-trace events with ``ts`` as epoch-µs *strings*; processes
are told apart by their ``process_name`` metadata (Python, CANN, Ascend Hardware, HCCL, counters...).
The whole file is loaded once with orjson and turned into DataFrames per kind; per-kind ``args`` are
expanded with one ``DataFrame.from_records`` call each. Timestamps are converted exactly (units.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ...errors import TraceFormatError
from .units import arrow, decimal_to_ns, floats_to_ns, us_to_ns

# Hardware task types that are not device work of their own (stream sync, profiling markers) or are
# sub-tasks of an HCCL operator that the operator's own span already covers (formats.md §3.9).
SYNC_TASK_TYPES = frozenset({
    "EVENT_RECORD", "EVENT_RECORD_SQE", "EVENT_WAIT", "EVENT_WAIT_SQE", "PLACE_HOLDER_SQE", "PLACE_HOLDER",
    "PROFILING_ENABLE", "PROFILING_DISABLE", "STARS_COMMON", "NOTIFY_RECORD", "NOTIFY_WAIT",
    "CAPTURE_RECORD", "CAPTURE_WAIT", "MODEL_EXECUTE", "MODEL_END_GRAPH", "EVENT_RESET"})
HCCL_TASK_TYPES = frozenset({
    "Notify Wait", "Notify Record", "Write Value", "SDMA", "RDMA", "Reduce_Inline", "Reduce Inline",
    "Inline Reduce", "Reduce TBE", "Memcpy", "LOCAL", "RDMA_SEND", "Notify_Wait", "Notify_Record"})
MEMCPY_TASK_TYPES = frozenset({"PCIE_DMA_SQE", "SDMA_SQE", "MEMCPY_ASYNC", "MEMCPY", "PCIE_DMA"})


@dataclass
class TraceView:
    path: Path
    host: pd.DataFrame            # name, cat, tid, start_abs, dur_ns, corr, shapes, dtypes
    hw: pd.DataFrame              # Ascend Hardware tasks: name, start_abs, dur_ns, device_id, stream_id, ...
    hccl_ops: pd.DataFrame        # HCCL operator spans (group threads)
    async_links: pd.DataFrame     # tid, host_start_abs, dev_start_abs (torch_to_npu flows)
    counters: pd.DataFrame        # ts_abs, source, metric, value
    dropped: dict = field(default_factory=dict)
    device_ids: list = field(default_factory=list)


def _load(path: Path) -> list:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TraceFormatError(path, "", "a readable JSON file", str(exc)) from exc
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise TraceFormatError(path, f"char {exc.pos}", "valid JSON (a list of trace events)", exc.msg) from exc
    if isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list):
        doc = doc["traceEvents"]
    if not isinstance(doc, list):
        raise TraceFormatError(path, "top level", "a JSON array of trace events", f"got {type(doc).__name__}")
    bad = next((i for i, e in enumerate(doc) if type(e) is not dict), None)
    if bad is not None:
        raise TraceFormatError(path, f"event {bad}", "a JSON object", f"got {type(doc[bad]).__name__}")
    return doc


def looks_like_trace_view(path: Path) -> bool:
    """Cheap sniff: a JSON array whose start mentions Ascend-only processes or string ``ts``."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(1 << 20)
    except OSError:
        return False
    s = head.lstrip()
    if not s.startswith(b"["):
        return False
    return any(k in head for k in (b'"Ascend Hardware"', b'"CANN"', b'"HostToDevice', b'"torch_to_npu"',
                                   b'"Overlap Analysis"', b'"async_npu"'))


def _args_frame(args: pd.Series) -> pd.DataFrame:
    recs = [a if type(a) is dict else {} for a in args.tolist()]
    return pd.DataFrame.from_records(recs, index=args.index) if recs else pd.DataFrame(index=args.index)


def _col(df: pd.DataFrame, *names, default=np.nan) -> pd.Series:
    for n in names:
        if n in df.columns:
            return df[n]
    return pd.Series(default, index=df.index, dtype=object if default is None else "float64")


def _ids(s: pd.Series, path: Path, field: str) -> np.ndarray:
    """A task/stream/model id column as float64, the "none" markers (uint32/uint64 -1) as NaN; a value
    that breaks the conversion is an error naming the field."""
    try:
        # a copy: pandas 3 hands out read-only views (a float64 column, e.g. one with a missing id)
        v = np.array(_numeric(s), dtype="float64")
        v[(v == 4294967295.0) | (v >= 1.8e19)] = np.nan
    except (ValueError, TypeError) as exc:
        raise TraceFormatError(path, f"Ascend Hardware event args {field!r}", "task, stream and model ids (numbers)",
                               f"{type(exc).__name__}: {exc}") from exc
    return v


def _numeric(s: pd.Series) -> pd.Series:
    return pd.to_numeric(s, errors="coerce")


def _joined(s: pd.Series) -> pd.Categorical:
    """``Input Dims``/``Input type`` strings joined with ``;\\r\\n`` (formats.md §3.9) -> ``;``-joined."""
    a = arrow(s)
    a = pc.replace_substring(pc.replace_substring(a, "\r\n", ""), "\n", "")
    empty = pc.equal(pc.utf8_length(pc.utf8_trim(a, characters="; ")), 0).fill_null(True)
    return pd.Categorical(pd.Series(pc.if_else(empty, pa.nulls(len(a), a.type), a).to_pandas(), dtype=object))


def read_trace_view(path: Path) -> TraceView:
    events = _load(path)
    df = pd.DataFrame.from_records(events) if events else pd.DataFrame(columns=["ph", "name", "pid", "tid"])
    del events
    for col in ("ph", "name", "pid", "tid", "ts", "dur", "cat", "args", "id"):
        if col not in df.columns:
            df[col] = None
    ph = df["ph"].astype(object)
    # process / thread names
    meta = df[ph == "M"]
    is_p = meta["name"] == "process_name"
    pnames = {}
    if is_p.any():
        pa = _args_frame(meta.loc[is_p, "args"])
        pnames = dict(zip(meta.loc[is_p, "pid"].tolist(), _col(pa, "name", default=None).tolist()))
    is_t = meta["name"] == "thread_name"
    tnames = {}
    if is_t.any():
        ta = _args_frame(meta.loc[is_t, "args"])
        tnames = dict(zip(zip(meta.loc[is_t, "pid"].tolist(), meta.loc[is_t, "tid"].tolist()),
                          _col(ta, "name", default=None).tolist()))
    body = df[ph != "M"]
    proc = body["pid"].map(pnames).astype(object)
    # timestamps: exact for strings, repr-exact for numbers
    ts_txt = body["ts"].astype(str)
    ts_abs, ts_missing = us_to_ns(ts_txt, path=path, column="ts", row_base=0)
    is_x = (body["ph"] == "X").to_numpy()
    if (is_x & ts_missing).any():
        i = int(body.index[np.flatnonzero(is_x & ts_missing)[0]])
        raise TraceFormatError(path, f"event {i}", "a 'ts' on every complete (X) event", "ts is missing")
    dur = body["dur"]
    if dur.map(type).eq(str).any():
        dur_ns, _ = us_to_ns(dur.astype(str), path=path, column="dur", row_base=0)
    else:
        dur_ns = floats_to_ns(pd.to_numeric(dur, errors="coerce"))
    if (is_x & (dur_ns < 0)).any():
        i = int(body.index[np.flatnonzero(is_x & (dur_ns < 0))[0]])
        raise TraceFormatError(path, f"event {i}", "a non-negative 'dur'", f"got {dur.loc[i]!r}")
    body = body.assign(_ts=ts_abs, _dur=dur_ns, _proc=proc.to_numpy())
    dropped: dict[str, int] = {}

    # ---- host: Python (cpu_op, python_function, enqueue/dequeue), Python GC, CANN -----------------
    x = body[is_x]
    cat = x["cat"].astype(object)
    proc_x = x["_proc"]
    host_parts = []
    py = x[(proc_x == "Python") | cat.isin(["cpu_op", "python_function", "enqueue", "dequeue"])]
    if len(py):
        pcat = py["cat"].astype(object).map({"cpu_op": "op", "python_function": "python", "enqueue": "runtime",
                                             "dequeue": "runtime", "user_annotation": "annotation",
                                             "gpu_user_annotation": "annotation"}).fillna("op")
        pargs = _args_frame(py["args"])
        host_parts.append(pd.DataFrame({
            "name": py["name"].to_numpy(dtype=object), "cat": pcat.to_numpy(dtype=object),
            "tid": py["tid"].to_numpy(dtype=object), "start_abs": py["_ts"].to_numpy(),
            "dur_ns": py["_dur"].to_numpy(), "corr": -1,
            "shapes": _joined(_col(pargs, "Input Dims", default=None)),
            "dtypes": _joined(_col(pargs, "Input type", default=None))}))
    gc = x[(proc_x == "Python GC")]
    if len(gc):
        host_parts.append(pd.DataFrame({"name": gc["name"].to_numpy(dtype=object), "cat": "python",
                                        "tid": gc["tid"].to_numpy(dtype=object), "start_abs": gc["_ts"].to_numpy(),
                                        "dur_ns": gc["_dur"].to_numpy(), "corr": -1}))
    cann = x[proc_x == "CANN"]
    if len(cann):
        cargs = _args_frame(cann["args"])
        conn = pd.to_numeric(_col(cargs, "connection_id"), errors="coerce")
        host_parts.append(pd.DataFrame({
            "name": cann["name"].to_numpy(dtype=object), "cat": "runtime",
            "tid": _col(cargs, "Thread Id", default=None).fillna(pd.Series(cann["tid"].to_numpy(),
                                                                           index=cann.index)).to_numpy(dtype=object),
            "start_abs": cann["_ts"].to_numpy(), "dur_ns": cann["_dur"].to_numpy(),
            "corr": conn.fillna(-1).astype("int64").to_numpy()}))
    mstx = x[proc_x.astype(str).str.contains("MsTx|mstx", regex=True, na=False) | cat.eq("MsTx")]
    if len(mstx):
        host_parts.append(pd.DataFrame({"name": mstx["name"].to_numpy(dtype=object), "cat": "annotation",
                                        "tid": mstx["tid"].to_numpy(dtype=object),
                                        "start_abs": mstx["_ts"].to_numpy(), "dur_ns": mstx["_dur"].to_numpy(),
                                        "corr": -1}))
    host = pd.concat(host_parts, ignore_index=True) if host_parts else pd.DataFrame(
        columns=["name", "cat", "tid", "start_abs", "dur_ns", "corr"])

    # ---- device: Ascend Hardware tasks -------------------------------------------------------------
    hwx = x[proc_x == "Ascend Hardware"]
    hargs = _args_frame(hwx["args"])
    pid_num = pd.to_numeric(hwx["pid"], errors="coerce")
    hw = pd.DataFrame({
        "name": hwx["name"].to_numpy(dtype=object), "start_abs": hwx["_ts"].to_numpy(),
        "dur_ns": hwx["_dur"].to_numpy(),
        "device_id": (pid_num.fillna(0).astype("int64") & 0x1F).astype("float64").to_numpy(),
        "stream_id": _ids(_col(hargs, "Physic Stream Id", "Stream Id").fillna(
            pd.Series(pd.to_numeric(hwx["tid"], errors="coerce").to_numpy(), index=hwx.index)), path, "Stream Id"),
        "task_id": _ids(_col(hargs, "Task Id"), path, "Task Id"),
        "model_id": _ids(_col(hargs, "Model Id"), path, "Model Id"),
        "task_type": _col(hargs, "Task Type", default=None).to_numpy(dtype=object),
        "corr": pd.to_numeric(_col(hargs, "connection_id"), errors="coerce").fillna(-1).astype("int64").to_numpy(),
    })
    device_ids = sorted({int(d) for d in hw["device_id"].unique()})

    # ---- HCCL: operator spans on "Group N Communication" threads; plane tasks are dropped ----------
    hc = x[proc_x == "HCCL"]
    hcargs = _args_frame(hc["args"])
    tn = pd.DataFrame([(p, t, n) for (p, t), n in tnames.items()], columns=["pid", "tid", "tname"]) if tnames \
        else pd.DataFrame(columns=["pid", "tid", "tname"])
    tn = tn.assign(pid=tn["pid"].astype(str), tid=tn["tid"].astype(str)).drop_duplicates(["pid", "tid"])
    tname = pd.Series(hc[["pid", "tid"]].astype(str).merge(tn, on=["pid", "tid"], how="left")["tname"]
                      .to_numpy(dtype=object), index=hc.index, dtype=object)
    tname = tname.where(tname.map(type) == str, None)
    no_task_type = ~_col(hcargs, "task type", default=None).notna()
    is_op = tname.str.contains("Communication", na=False) | (tname.isna() & no_task_type)
    ops = hc[is_op.to_numpy()]
    oargs = hcargs[is_op.to_numpy()]
    hpid = pd.to_numeric(ops["pid"], errors="coerce").fillna(0).astype("int64")
    hccl_ops = pd.DataFrame({
        "name": ops["name"].to_numpy(dtype=object), "start_abs": ops["_ts"].to_numpy(),
        "dur_ns": ops["_dur"].to_numpy(), "device_id": (hpid & 0x1F).astype("float64").to_numpy(),
        "group": tname[is_op.to_numpy()].str.replace(" Communication", "", regex=False).to_numpy(dtype=object),
        "corr": pd.to_numeric(_col(oargs, "connection_id"), errors="coerce").fillna(-1).astype("int64").to_numpy(),
        "alg_type": _col(oargs, "alg_type", default=None).to_numpy(dtype=object),
        "data_type": _col(oargs, "data_type", default=None).to_numpy(dtype=object),
        "count": pd.to_numeric(_col(oargs, "count"), errors="coerce").to_numpy(dtype="float64"),
    })
    if (~is_op).any():
        dropped["hccl_plane_tasks"] = int((~is_op).sum())
    other = x[~proc_x.isin(["Python", "Python GC", "CANN", "Ascend Hardware", "HCCL", "Overlap Analysis"])
              & ~cat.isin(["cpu_op", "python_function", "enqueue", "dequeue"]) & ~x.index.isin(mstx.index)]
    if len(other):
        dropped["trace_view_other_spans"] = int(len(other))

    # ---- torch_to_npu flows: Python op start -> device task start (id = task start in ns) ---------
    fl = body[(body["ph"] == "s") & (body["cat"] == "async_npu")]
    # ids are integer ns (> 2**53): parse their text exactly, never through float64
    fid, fmiss = decimal_to_ns(fl["id"].astype(str), scale_digits=0, path=path, column="id", row_base=0)
    async_links = pd.DataFrame({"tid": fl["tid"].to_numpy(dtype=object), "host_start_abs": fl["_ts"].to_numpy(),
                                "dev_start_abs": fid})[~fmiss]

    # ---- counters ----------------------------------------------------------------------------------
    counters = _counters(body[body["ph"] == "C"], device_ids[0] if device_ids else None)
    return TraceView(path, host, hw, hccl_ops, async_links, counters, dropped, device_ids)


def _counters(c: pd.DataFrame, device_id) -> pd.DataFrame:
    """Counter (C) events -> long table. NPU MEM KB -> bytes (``npu_mem:<name>``), AI Core Freq -> MHz;
    every other counter keeps its process/name/arg key and unit, e.g. ``HBM/HBM 0/Read/Read(MB/s)``."""
    cols = ["ts_abs", "source", "metric", "value"]
    if not len(c):
        return pd.DataFrame(columns=cols)
    args = _args_frame(c["args"])
    id_cols = [k for k in args.columns if k in ("acc_id",)]
    val_cols = [k for k in args.columns if k not in id_cols]
    base = pd.DataFrame({"ts_abs": c["_ts"].to_numpy(), "proc": c["_proc"].astype(object).fillna("?").to_numpy(),
                         "name": c["name"].astype(str).to_numpy()}, index=c.index)
    if id_cols:
        acc = pd.to_numeric(args["acc_id"], errors="coerce")
        acc_name = base["name"] + " acc " + acc.fillna(0).astype("int64").astype(str)
        base["name"] = base["name"].where(acc.isna(), acc_name)
    parts = []
    for k in val_cols:
        v = pd.to_numeric(args[k], errors="coerce")
        ok = v.notna().to_numpy()
        if not ok.any():
            continue
        b = base[ok]
        metric = (b["proc"] + "/" + b["name"] + "/" + k)
        value = v[ok].to_numpy(dtype="float64")
        if k == "KB":
            metric = "npu_mem:" + b["name"]
            value = value * 1024.0
        elif k == "MHz":
            metric = pd.Series("aicore_freq_mhz", index=b.index)
        parts.append(pd.DataFrame({"ts_abs": b["ts_abs"].to_numpy(), "metric": metric.to_numpy(dtype=object),
                                   "value": value}))
    if not parts:
        return pd.DataFrame(columns=cols)
    out = pd.concat(parts, ignore_index=True)
    out["source"] = f"npu:{device_id}" if device_id is not None else "npu"
    return out[cols]


def merge_trace_views(views: list[TraceView]) -> TraceView:
    """Sliced timelines (msprof_slice_N_*.json) -> one TraceView."""
    if len(views) == 1:
        return views[0]
    dropped: dict = {}
    for v in views:
        for k, n in v.dropped.items():
            dropped[k] = dropped.get(k, 0) + n
    cat = lambda name: pd.concat([getattr(v, name) for v in views], ignore_index=True, sort=False)  # noqa: E731
    return TraceView(views[0].path, cat("host"), cat("hw"), cat("hccl_ops"), cat("async_links"), cat("counters"),
                     dropped, sorted({d for v in views for d in v.device_ids}))
