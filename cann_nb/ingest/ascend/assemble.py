"""Intermediate tables of one Ascend run (absolute epoch ns) -> a validated Profile.

Every source (text folder, SQLite, msprof) fills a ``Parts``; ``build_profile`` does the shared work:
device-task categories and tracks, the time origin, ids in start order, host call-tree nesting,
host-op links of device tasks, memory and counters tables, and meta.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ...errors import ProfileValidationError, TraceFormatError
from ...model import Profile
from ..nesting import nest
from .trace_view import MEMCPY_TASK_TYPES

COMM_CORES = frozenset({"HCCL", "COMMUNICATION"})
HOST_CATS = ("op", "runtime", "python", "annotation")

# device extra columns, in output order (numbers float64 with NaN; text categorical)
DEVICE_TEXT_EXTRAS = ("op_type", "core_type", "op_state", "hf32_eligible", "input_formats", "output_shapes",
                      "output_dtypes", "output_formats", "group", "task_type")
DEVICE_NUM_EXTRAS = ("stream_id", "task_id", "model_id", "context_id", "step", "block_dim", "mix_block_dim",
                     "wait_ns")


@dataclass
class Parts:
    """One run, as read from its files. Times are absolute epoch ns (int64)."""

    path: Path
    fmt: str
    device: list[pd.DataFrame] = field(default_factory=list)   # name, start_abs, dur_ns, device_id, [cat], ...
    host: pd.DataFrame | None = None                            # name, cat, tid, start_abs, dur_ns, corr, ...
    steps: pd.DataFrame | None = None                           # step, start_abs, end_abs
    memory: list[pd.DataFrame] = field(default_factory=list)    # ts_abs, device, delta/allocated/reserved...
    counters: list[pd.DataFrame] = field(default_factory=list)  # ts_abs, source, metric, value
    ascend: dict = field(default_factory=dict)                  # -> meta["ascend"]
    dropped: dict = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    device_ids: list[int] = field(default_factory=list)
    device_names: dict = field(default_factory=dict)            # device id -> "Ascend910B"
    rank: int | None = None
    world_size: int | None = None


def device_cat(core_type: pd.Series, name: pd.Series, task_type: pd.Series | None = None) -> np.ndarray:
    """kernel / comm / memcpy for device tasks (formats.md §5.4; DSA_SQE stays a kernel: it runs
    DropoutGenMask-style compute, not a data move)."""
    core = core_type.astype(object).fillna("").astype(str).str.upper()
    nm = name.astype(object).fillna("").astype(str)
    cat = np.full(len(core), "kernel", dtype=object)
    memcpy = core.isin(MEMCPY_TASK_TYPES).to_numpy() | nm.str.upper().str.startswith("MEMCPY").to_numpy()
    if task_type is not None:
        memcpy |= task_type.astype(object).fillna("").astype(str).str.upper().isin(MEMCPY_TASK_TYPES).to_numpy()
    cat[memcpy] = "memcpy"
    cat[core.isin(COMM_CORES).to_numpy()] = "comm"
    return cat


def _device_frame(parts: Parts) -> pd.DataFrame:
    frames = [f for f in parts.device if f is not None and len(f)]
    if not frames:
        return pd.DataFrame(columns=["name", "start_abs", "dur_ns", "device_id", "cat"])
    df = pd.concat(frames, ignore_index=True, sort=False)
    if "cat" not in df.columns:
        df["cat"] = None
    need = df["cat"].isna().to_numpy()
    if need.any():
        core = df["core_type"] if "core_type" in df.columns else pd.Series(None, index=df.index, dtype=object)
        tt = df["task_type"] if "task_type" in df.columns else None
        df.loc[need, "cat"] = device_cat(core, df["name"], tt)[need]
    dev = df["device_id"].astype("float64")
    if dev.isna().any():
        fallback = float(parts.device_ids[0]) if parts.device_ids else 0.0
        dev = dev.fillna(fallback)
    df["device_id"] = dev
    dev_label = "npu:" + dev.astype("int64").astype(str)
    stream = df["stream_id"] if "stream_id" in df.columns else pd.Series(np.nan, index=df.index)
    core = (df["core_type"] if "core_type" in df.columns else pd.Series(None, index=df.index, dtype=object))
    lane = pd.Series(np.where(stream.notna(), "stream " + stream.fillna(0).astype("int64").astype(str),
                              core.astype(object).fillna("unknown core").astype(str)), index=df.index)
    lane = lane.where(df["cat"] != "comm", "COMMUNICATION")
    df["device"] = dev_label
    df["track"] = dev_label + "/" + lane
    return df


def _host_tracks(host: pd.DataFrame) -> np.ndarray:
    """``host/thread TID``; Python frames (with_stack) get their own lane ``host/thread TID/python``.

    Python frames and framework ops do not nest into one tree: ``ProfilerStep#N`` opens inside the
    ``__enter__`` frame of one ``step()`` call and closes in the next, so one containment tree would
    garble every later parent. Each lane nests cleanly on its own.
    """
    track = "host/thread " + host["tid"].astype(str)
    track = track.where(host["cat"].astype(object) != "python", track + "/python")
    return track.to_numpy(dtype=object)


def _cat(values) -> pd.Categorical:
    """Text column -> categorical (missing stays missing) without sorting the categories."""
    if isinstance(values, (pd.Series, pd.Categorical)) and isinstance(values.dtype, pd.CategoricalDtype):
        return pd.Categorical(values)
    codes, uniques = pd.factorize(pd.Series(values, dtype=object), use_na_sentinel=True)
    return pd.Categorical.from_codes(codes, categories=pd.Index(uniques, dtype=object).astype(str))


def build_profile(parts: Parts, *, t0_ns: int | None = None, name: str | None = None,
                  rank: int | None = None, python_functions: bool = False) -> Profile:
    dev = _device_frame(parts)
    host = parts.host if parts.host is not None else pd.DataFrame(
        columns=["name", "cat", "tid", "start_abs", "dur_ns", "corr"])
    host = host.reset_index(drop=True)
    skipped_span = None   # [first start, last end] of the Python frames left out: they still bound the run
    if not python_functions and len(host):
        is_py = host["cat"].astype(object).eq("python").to_numpy()
        if is_py.any():
            parts.dropped["python_function"] = int(is_py.sum())
            py = host[is_py]
            skipped_span = (int(py["start_abs"].min()), int((py["start_abs"] + py["dur_ns"]).max()))
            # keep _hkey = original row position (device links refer to it)
            host = host.assign(_row=np.arange(len(host)))[~is_py]
    if "_row" not in host.columns:
        host = host.assign(_row=np.arange(len(host)))
    dev_ids = sorted({int(d) for d in dev["device_id"].unique()} | set(parts.device_ids)) if len(dev) else \
        sorted(set(parts.device_ids))
    main_dev = f"npu:{dev_ids[0]}" if dev_ids else "npu:0"

    # ---- step spans ---------------------------------------------------------------------------
    steps = parts.steps
    step_ev = None
    if steps is not None and len(steps):
        st = steps.dropna(subset=["start_abs", "end_abs"])
        step_ev = pd.DataFrame({
            "name": "ProfilerStep#" + st["step"].astype("int64").astype(str),
            "cat": "step", "start_abs": st["start_abs"].astype("int64").to_numpy(),
            "dur_ns": (st["end_abs"] - st["start_abs"]).astype("int64").clip(lower=0).to_numpy(),
            "device": main_dev, "track": f"{main_dev}/steps", "step": st["step"].astype("float64").to_numpy()})

    # ---- one events frame -------------------------------------------------------------------------
    h = pd.DataFrame({
        "name": host["name"].astype(object).to_numpy(), "cat": host["cat"].astype(object).to_numpy(),
        "start_abs": host["start_abs"].astype("int64").to_numpy(), "dur_ns": host["dur_ns"].astype("int64").to_numpy(),
        "track": _host_tracks(host), "device": "cpu",
        "corr": host["corr"].astype("int64").to_numpy() if "corr" in host.columns else -1,
        "_hkey": host["_row"].to_numpy(dtype=np.int64)})
    for col in ("shapes", "dtypes"):
        if col in host.columns:
            h[col] = host[col].astype(object).to_numpy()
    d = dev.copy()
    d["corr"] = d["corr"].fillna(-1).astype("int64") if "corr" in d.columns else -1
    d["_hkey"] = d["_hkey"].fillna(-1).astype("int64") if "_hkey" in d.columns else -1
    frames = [h, d] + ([step_ev] if step_ev is not None else [])
    ev = pd.concat(frames, ignore_index=True, sort=False)
    ev["corr"] = pd.to_numeric(ev["corr"], errors="coerce").fillna(-1).astype("int64")
    ev["_hkey"] = pd.to_numeric(ev["_hkey"], errors="coerce").fillna(-1).astype("int64")
    if len(ev) and (ev["dur_ns"].astype("int64") < 0).any():
        bad = ev[ev["dur_ns"] < 0].iloc[0]
        raise TraceFormatError(parts.path, f"event {bad['name']!r}", "a non-negative duration",
                               f"got {int(bad['dur_ns'])} ns")

    # ---- time origin and ids --------------------------------------------------------------------
    if t0_ns is None:
        candidates = [int(ev["start_abs"].min())] if len(ev) else []
        if skipped_span is not None:
            candidates.append(skipped_span[0])
        if not candidates:
            for frame, col in [(m, "ts_abs") for m in parts.memory] + [(c, "ts_abs") for c in parts.counters]:
                if frame is not None and len(frame):
                    candidates.append(int(frame[col].min()))
        t0 = min(candidates) if candidates else 0
    else:
        t0 = int(t0_ns)
    ev = ev.sort_values(["start_abs", "dur_ns"], ascending=[True, False], kind="stable").reset_index(drop=True)
    ev["id"] = np.arange(len(ev), dtype=np.int64)
    ev["start_ns"] = ev["start_abs"].astype("int64") - t0

    # host nesting (device tasks and steps stay flat: hardware queues do not nest)
    parent = np.full(len(ev), -1, dtype=np.int64)
    depth = np.zeros(len(ev), dtype=np.int32)
    is_host = ev["device"].eq("cpu").to_numpy()
    if is_host.any():
        p, dd = nest(ev.loc[is_host, "track"].to_numpy(dtype=object), ev.loc[is_host, "start_ns"].to_numpy(),
                     ev.loc[is_host, "dur_ns"].to_numpy(), ev.loc[is_host, "id"].to_numpy())
        parent[is_host], depth[is_host] = p, dd
    ev["parent"], ev["depth"] = parent, depth

    # host op that launched each device task
    host_ids = pd.Series(ev.loc[is_host, "id"].to_numpy(), index=ev.loc[is_host, "_hkey"].to_numpy())
    dkey = ev["_hkey"].where(~ev["device"].eq("cpu"), -1)
    link = dkey.map(host_ids)
    ev["host_op_id"] = link.fillna(-1).astype("int64").where(dkey >= 0, -1)
    ev = ev.drop(columns=["_hkey", "start_abs"])

    # extra columns: fixed order and dtypes
    out = {c: ev[c] for c in ("id", "name", "cat", "track", "device", "start_ns", "dur_ns", "parent", "depth",
                              "corr")}
    for c in ("shapes", "dtypes"):
        out[c] = _cat(ev[c]) if c in ev.columns else _cat([None] * len(ev))
    for c in DEVICE_TEXT_EXTRAS:
        if c in ev.columns:
            out[c] = _cat(ev[c])
    for c in DEVICE_NUM_EXTRAS:
        if c in ev.columns:
            out[c] = pd.to_numeric(ev[c], errors="coerce").astype("float64")
    out["host_op_id"] = ev["host_op_id"]
    for c in sorted(c for c in ev.columns if c.startswith("pmu_")):
        out[c] = pd.to_numeric(ev[c], errors="coerce").astype("float64")
    events = pd.DataFrame(out)
    for c in ("name", "cat", "track", "device"):
        events[c] = _cat(events[c])

    memory = _memory(parts, t0)
    counters = _counters(parts, t0)
    meta = _meta(parts, t0, name, rank, dev_ids, events)
    if skipped_span is not None and len(events):   # the wall the run spans, as if the frames were imported
        first = min(skipped_span[0] - t0, int(events["start_ns"].min()))
        last = max(skipped_span[1] - t0, int((events["start_ns"] + events["dur_ns"]).max()))
        meta["wall_ns"] = max(last - first, 0)
    try:
        return Profile(events, memory, counters, meta).validate()
    except ProfileValidationError as exc:
        raise TraceFormatError(parts.path, "assembled profile", "data that fits the Profile contract",
                               str(exc)) from exc


def _memory(parts: Parts, t0: int) -> pd.DataFrame:
    frames = [m for m in parts.memory if m is not None and len(m)]
    if not frames:
        return None
    m = pd.concat(frames, ignore_index=True, sort=False)
    m = m.sort_values("ts_abs", kind="stable").reset_index(drop=True)
    out = {"ts_ns": m["ts_abs"].astype("int64") - t0, "device": _cat(m["device"])}
    for c in ("delta_bytes", "allocated_bytes", "reserved_bytes"):
        out[c] = m[c].astype("float64") if c in m.columns else np.nan
    out["event_id"] = -1
    for c in ("active_bytes",):
        if c in m.columns:
            out[c] = m[c].astype("float64")
    for c in ("component", "kind", "op_name"):
        if c in m.columns:
            out[c] = _cat(m[c])
    return pd.DataFrame(out)


def _counters(parts: Parts, t0: int) -> pd.DataFrame:
    frames = [c for c in parts.counters if c is not None and len(c)]
    if not frames:
        return None
    c = pd.concat(frames, ignore_index=True, sort=False)
    c = c.dropna(subset=["value"]).sort_values("ts_abs", kind="stable").reset_index(drop=True)
    return pd.DataFrame({"ts_ns": c["ts_abs"].astype("int64") - t0, "source": _cat(c["source"]),
                         "metric": _cat(c["metric"]), "value": c["value"].astype("float64")})


def _meta(parts: Parts, t0: int, name, rank, dev_ids, events) -> dict:
    asc = dict(parts.ascend)
    info = asc.get("profiler_info") or {}
    md = asc.get("profiler_metadata") or {}
    r = rank if rank is not None else parts.rank
    if r is None:
        r = _as_int(info.get("rank_id"))
    if r is None:
        r = _as_int((md.get("distributed_args") or {}).get("rank"))
    ws = parts.world_size
    if ws is None:
        ws = _as_int((md.get("distributed_args") or {}).get("world_size"))
    if ws is None:
        for g in (md.get("parallel_group_info") or {}).values():
            if isinstance(g, dict) and g.get("group_name") == "default_group":
                ws = len(g.get("global_ranks") or []) or None
    cfg = info.get("config") or {}
    exp = cfg.get("experimental_config") or {}
    options = {"profiler_level": exp.get("_profiler_level"), "aic_metrics": exp.get("_aic_metrics"),
               "export_type": exp.get("_export_type"), "common_config": cfg.get("common_config"),
               "experimental_config": exp}
    env = {k: v for k, v in (("torch_npu_version", info.get("torch_npu_version")),
                             ("cann_version", info.get("cann_version"))) if v is not None}
    if md.get("ENV_VARIABLES") is not None:
        env["ENV_VARIABLES"] = md.get("ENV_VARIABLES")
    dev_name = next((parts.device_names[d] for d in dev_ids if d in parts.device_names), None)
    if dev_name is None and parts.device_names:
        dev_name = next(iter(parts.device_names.values()))
    devices = [{"device": f"npu:{d}", **({"name": parts.device_names.get(d, dev_name)} if dev_name else {})}
               for d in dev_ids]
    asc["format"] = parts.fmt
    asc["rank"] = r
    asc["world_size"] = ws
    asc["device_name"] = dev_name
    asc["device_ids"] = dev_ids
    asc["device_task_source"] = asc.get("device_task_source")
    distributed = {k: v for k, v in (("rank", r), ("world_size", ws)) if v is not None}
    if distributed:
        distributed["backend"] = "hccl"
    return {
        "name": name or _default_name(parts.path),
        "distributed": distributed,
        "source": {"path": str(parts.path), "format": parts.fmt, "files": parts.files, "kind": "import"},
        "t0_ns": int(t0),
        "rank": r, "world_size": ws, "device": dev_name, "devices": devices,
        "environment": env, "options": options,
        "collectors": {"ascend": {"status": "ok", "format": parts.fmt}},  # DESIGN.md: name -> {status, ...}
        # parts.dropped counts what the importer leaves out on purpose (sub-tasks an operator span covers,
        # sync tasks, Python frames without python_functions=True): "skipped"; "dropped" is for a full buffer
        "dropped": {},
        "skipped": {k: int(v) for k, v in parts.dropped.items() if v},
        "ascend": asc,
    }


def _default_name(path: Path) -> str:
    p = Path(path)
    if p.name in ("ASCEND_PROFILER_OUTPUT", "mindstudio_profiler_output"):
        p = p.parent
    return p.stem if p.is_file() else p.name


def _as_int(v):
    try:
        return int(v) if v is not None and str(v).strip() != "" else None
    except (TypeError, ValueError):
        return None
