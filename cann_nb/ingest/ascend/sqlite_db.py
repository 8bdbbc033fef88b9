"""SQLite exports: ascend_pytorch_profiler_{rank}.db, ascend_mindspore_profiler_{rank}.db, msprof_*.db
(formats.md §3.10) -> Parts.

Opened read-only and immutable (no -wal/-shm files appear beside the sample). Times are epoch-ns
integers, memory in bytes; text is interned in STRING_IDS and joined back with one vectorised map per
column. Device tasks: TASK rows with a COMPUTE_TASK_INFO row (kernels, same set as kernel_details),
COMMUNICATION_OP (one comm span per HCCL operator, like kernel_details' HCCL rows) and MEMCPY tasks;
HCCL sub-tasks (COMMUNICATION_TASK_INFO) and stream-sync tasks are counted in meta["skipped"].
Unknown tables and columns (e.g. MindStudio Insight's ``depth``, ``connectionCats``) are ignored.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd

from ...errors import TraceFormatError
from .assemble import Parts
from .trace_view import MEMCPY_TASK_TYPES
from .units import decimal_to_ns, unquote_list

API_PREFIX = {"acl": "AscendCL", "node": "Node", "runtime": "Runtime", "hccl": "Hccl", "communication": "Hccl",
              "model": "Model"}
PYTORCH_API_CAT = {50001: "op", 50002: "runtime", 50003: "python", 50004: "annotation"}


class Db:
    """A read-only connection that turns every sqlite/pandas failure into TraceFormatError."""

    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            self.con = sqlite3.connect(f"file:{self.path.resolve().as_posix()}?mode=ro&immutable=1", uri=True)
            rows = self.con.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
        except sqlite3.Error as exc:
            raise TraceFormatError(self.path, "sqlite_master", "a readable SQLite database", str(exc)) from exc
        self.tables = {r[0] for r in rows}
        self._cols: dict[str, list[str]] = {}

    def close(self):
        self.con.close()

    def columns(self, table: str) -> list[str]:
        if table not in self._cols:
            try:
                self._cols[table] = [r[1] for r in self.con.execute(f'PRAGMA table_info("{table}")').fetchall()]
            except sqlite3.Error as exc:
                raise TraceFormatError(self.path, f"table {table}", "a readable table", str(exc)) from exc
        return self._cols[table]

    def has(self, table: str, *cols: str) -> bool:
        return table in self.tables and all(c in self.columns(table) for c in cols)

    def read(self, table: str, wanted: list[str] | tuple[str, ...], required: tuple[str, ...] = ()) -> pd.DataFrame:
        """SELECT the wanted columns that exist (aliases as 'a|b'); missing required ones raise."""
        have = self.columns(table)
        sel = []
        for w in wanted:
            alts = w.split("|")
            col = next((a for a in alts if a in have), None)
            if col is None:
                if alts[0] in required:
                    raise TraceFormatError(self.path, f"table {table}", f"a column {w!r}",
                                           f"columns found: {have[:12]}")
                continue
            sel.append(f'"{col}" AS "{alts[0]}"')
        if not sel:
            return pd.DataFrame()
        return self.query(f'SELECT {", ".join(sel)} FROM "{table}"', table)

    def query(self, sql: str, where: str) -> pd.DataFrame:
        try:
            return pd.read_sql_query(sql, self.con)
        except (sqlite3.Error, pd.errors.DatabaseError, ValueError, OverflowError) as exc:
            raise TraceFormatError(self.path, f"table {where}", "a readable table", str(exc)) from exc


def _strings(db: Db, table: str = "STRING_IDS") -> pd.Series:
    """id -> text of STRING_IDS(id, value) or an ENUM_* table (id, name)."""
    if not db.has(table, "id"):
        return pd.Series(dtype=object)
    s = db.read(table, ["id", "value|name"])
    if "value" not in s:
        return pd.Series(dtype=object)
    return pd.Series(s["value"].to_numpy(dtype=object), index=s["id"].to_numpy())


def _map(col: pd.Series, strings: pd.Series) -> np.ndarray:
    return col.map(strings).to_numpy(dtype=object) if len(strings) else np.full(len(col), None, dtype=object)


def _ns(db: Db, df: pd.DataFrame, col: str, table: str) -> np.ndarray:
    """Integer ns column (INTEGER, or TEXT as in PYTORCH_API) -> int64, exactly."""
    s = df[col]
    if s.dtype.kind in "iu":
        return s.to_numpy(dtype=np.int64)
    if s.dtype.kind == "f" and not s.isna().any():
        # only exact when every value is an integer below 2**53; otherwise parse the text form
        if (np.abs(s.to_numpy()) < 2 ** 53).all():
            return s.to_numpy().astype(np.int64)
    v, miss = decimal_to_ns(s.astype(object).where(s.notna(), None).astype(str), scale_digits=0, path=db.path,
                            column=f"{table}.{col}", row_base=1)
    if miss.any():
        raise TraceFormatError(db.path, f"table {table}, row {int(np.flatnonzero(miss)[0]) + 1}", f"a value in {col}",
                               "NULL")
    return v


def _ids(s: pd.Series) -> np.ndarray:
    # a copy: pandas 3 hands out read-only views (a float64 column, e.g. one with a NULL id)
    v = np.array(pd.to_numeric(s, errors="coerce"), dtype="float64")
    v[(v == 4294967295.0) | (v >= 1.8e19)] = np.nan
    return v


def _tid(global_tid: pd.Series) -> np.ndarray:
    g = pd.to_numeric(global_tid, errors="coerce").fillna(0).astype("int64").to_numpy()
    return (g & 0xFFFFFFFF).astype(np.int64)


def read_db(path: Path, parts: Parts, analysis_db: Path | None = None) -> Parts:
    db = Db(path)
    try:
        _read(db, parts)
        if analysis_db is not None:
            _read_analysis(analysis_db, parts)
    finally:
        db.close()
    parts.files.append(str(path))
    return parts


def _read(db: Db, parts: Parts) -> None:
    if not ({"TASK", "PYTORCH_API", "CANN_API"} & db.tables):
        raise TraceFormatError(db.path, "sqlite_master", "Ascend profiler tables (TASK, PYTORCH_API, CANN_API, "
                               "STRING_IDS)", f"tables found: {sorted(db.tables)[:12]}")
    S = _strings(db)
    if "NPU_INFO" in db.tables:
        ni = db.read("NPU_INFO", ["id", "name"])
        parts.device_names = {int(i): str(n) for i, n in zip(ni.get("id", []), ni.get("name", [])) if n}
    if db.has("RANK_DEVICE_MAP", "rankId", "deviceId"):
        rd = db.read("RANK_DEVICE_MAP", ["rankId", "deviceId"])
        if len(rd) == 1:
            parts.rank = int(rd["rankId"].iloc[0]) if pd.notna(rd["rankId"].iloc[0]) else None
            parts.device_ids.append(int(rd["deviceId"].iloc[0]))
    if db.has("META_DATA", "name", "value"):
        md = db.read("META_DATA", ["name", "value"])
        meta = dict(zip(md["name"], md["value"]))
        parts.ascend["db_meta"] = {k: v for k, v in meta.items() if k != "ENV_VARIABLES"}
        if meta.get("ENV_VARIABLES"):
            try:
                parts.ascend.setdefault("profiler_metadata", {})["ENV_VARIABLES"] = json.loads(meta["ENV_VARIABLES"])
            except ValueError:
                pass
    if db.has("SESSION_TIME_INFO"):
        st = db.query('SELECT * FROM "SESSION_TIME_INFO"', "SESSION_TIME_INFO")
        if len(st):
            parts.ascend["session_time"] = {k: (int(v) if pd.notna(v) else None) for k, v in st.iloc[0].items()}

    host, conn_to_host = _host(db, S)
    parts.host = host
    parts.device = _device(db, S, parts, conn_to_host)
    parts.ascend["device_task_source"] = "TASK + COMPUTE_TASK_INFO + COMMUNICATION_OP"
    if db.has("STEP_TIME", "id", "startNs", "endNs"):
        st = db.read("STEP_TIME", ["id", "startNs", "endNs"])
        st = st.dropna()
        parts.steps = pd.DataFrame({"step": pd.to_numeric(st["id"], errors="coerce").to_numpy(),
                                    "start_abs": _ns(db, st, "startNs", "STEP_TIME"),
                                    "end_abs": _ns(db, st, "endNs", "STEP_TIME")}).dropna()
        parts.ascend["step_source"] = "STEP_TIME"
    _memory(db, S, parts)
    _counters(db, S, parts)


def _host(db: Db, S: pd.Series) -> tuple[pd.DataFrame, pd.Series]:
    frames = []
    conn_to_host = pd.Series(dtype="int64")
    if db.has("PYTORCH_API", "startNs", "endNs", "name"):
        p = db.read("PYTORCH_API", ["startNs", "endNs", "globalTid", "connectionId", "name", "inputDtypes",
                                    "inputShapes", "type"], required=("startNs", "endNs", "name"))
        start = _ns(db, p, "startNs", "PYTORCH_API")
        end = _ns(db, p, "endNs", "PYTORCH_API")
        typ = pd.to_numeric(p.get("type", pd.Series(50001, index=p.index)), errors="coerce")
        names = _map(p["name"], S)
        f = pd.DataFrame({"name": names, "cat": typ.map(PYTORCH_API_CAT).fillna("op").to_numpy(dtype=object),
                          "tid": _tid(p.get("globalTid", pd.Series(0, index=p.index))), "start_abs": start,
                          "dur_ns": end - start, "corr": -1,
                          **_shapes_and_dtypes(p, S)})
        frames.append(f)
        # op -> CONNECTION_IDS -> task connectionIds (formats.md §3.10)
        if "connectionId" in p and db.has("CONNECTION_IDS", "id", "connectionId"):
            ci = db.read("CONNECTION_IDS", ["id", "connectionId"])
            ops = pd.DataFrame({"id": pd.to_numeric(p["connectionId"], errors="coerce"), "row": np.arange(len(p))})
            ops = ops[(typ == 50001).to_numpy() & ops["id"].notna().to_numpy()]
            lk = ops.merge(ci, on="id").drop_duplicates("connectionId", keep="first")
            conn_to_host = pd.Series(lk["row"].to_numpy(dtype="int64"), index=lk["connectionId"].to_numpy())
    if db.has("CANN_API", "startNs", "endNs", "name"):
        c = db.read("CANN_API", ["startNs", "endNs", "type", "globalTid", "connectionId", "name"],
                    required=("startNs", "endNs", "name"))
        start = _ns(db, c, "startNs", "CANN_API")
        end = _ns(db, c, "endNs", "CANN_API")
        api = pd.Series(_map(c["name"], S), dtype=object).fillna("?")
        if "type" in c and db.has("ENUM_API_TYPE", "id", "name"):
            et = db.read("ENUM_API_TYPE", ["id", "name"])
            level = c["type"].map(pd.Series(et["name"].to_numpy(), index=et["id"].to_numpy())).astype(object)
            prefix = level.map(lambda x: API_PREFIX.get(str(x).lower(), str(x))).where(level.notna(), None)
            api = pd.Series(np.where(prefix.notna(), prefix.astype(str) + "@" + api, api), dtype=object)
        frames.append(pd.DataFrame({"name": api.to_numpy(dtype=object), "cat": "runtime",
                                    "tid": _tid(c.get("globalTid", pd.Series(0, index=c.index))),
                                    "start_abs": start, "dur_ns": end - start,
                                    "corr": pd.to_numeric(c.get("connectionId"), errors="coerce")
                                    .fillna(-1).astype("int64").to_numpy()}))
    if db.has("MSTX_EVENTS", "startNs", "endNs"):
        m = db.read("MSTX_EVENTS", ["startNs", "endNs", "message", "globalTid"])
        start = _ns(db, m, "startNs", "MSTX_EVENTS")
        end = _ns(db, m, "endNs", "MSTX_EVENTS")
        msg = pd.Series(_map(m["message"], S) if "message" in m else None, dtype=object).fillna("mstx")
        frames.append(pd.DataFrame({"name": msg.to_numpy(dtype=object), "cat": "annotation",
                                    "tid": _tid(m.get("globalTid", pd.Series(0, index=m.index))),
                                    "start_abs": start, "dur_ns": np.maximum(end - start, 0), "corr": -1}))
    if not frames:
        return None, conn_to_host
    host = pd.concat(frames, ignore_index=True, sort=False)
    return host, conn_to_host


def _shapes_and_dtypes(p: pd.DataFrame, S: pd.Series) -> dict:
    """PYTORCH_API's input shapes and dtypes. torch_npu's writers disagree on which column holds which
    (the msinsight level0-2 samples store "float;None;Scalar" under inputShapes and "32,3,224,224;;"
    under inputDtypes), so the column whose strings name element types is the dtypes one."""
    shapes = _map(p["inputShapes"], S) if "inputShapes" in p else None
    dtypes = _map(p["inputDtypes"], S) if "inputDtypes" in p else None
    if shapes is not None and dtypes is not None and _names_types(shapes) and not _names_types(dtypes):
        shapes, dtypes = dtypes, shapes
    return {"shapes": _clean_list(shapes) if shapes is not None else None,
            "dtypes": _clean_list(dtypes) if dtypes is not None else None}


def _names_types(values) -> bool:
    """Most non-empty strings start with a letter (dtype names), not a digit (dims)."""
    v = pd.Series(values, dtype=object).dropna().astype(str).str.strip().str.lstrip("'\"")
    v = v[v.str.len() > 0]
    return bool(len(v)) and float(v.str.match(r"[A-Za-z]").mean()) > 0.5


def _clean_list(values) -> pd.Categorical:
    """Interned shape/dtype strings (``"32,3,224,224"`` with quotes) -> categorical without quotes."""
    return unquote_list(pd.Series(values, dtype=object))


def _device(db: Db, S: pd.Series, parts: Parts, conn_to_host: pd.Series) -> list[pd.DataFrame]:
    out = []
    if "TASK" not in db.tables:
        return out
    t = db.read("TASK", ["globalTaskId", "startNs", "endNs", "deviceId", "connectionId", "taskType", "contextId",
                         "streamId", "taskId", "modelId"], required=("globalTaskId", "startNs", "endNs"))
    t["start_abs"] = _ns(db, t, "startNs", "TASK")
    t["dur_ns"] = _ns(db, t, "endNs", "TASK") - t["start_abs"]
    t["task_type"] = _map(t["taskType"], S) if "taskType" in t else None
    dev = pd.to_numeric(t.get("deviceId", pd.Series(np.nan, index=t.index)), errors="coerce").astype("float64")
    t["device_id"] = dev
    for d in sorted({int(x) for x in dev.dropna().unique()}):
        if d not in parts.device_ids:
            parts.device_ids.append(d)
    t["corr"] = pd.to_numeric(t.get("connectionId"), errors="coerce").fillna(-1).astype("int64")
    base = pd.DataFrame({"start_abs": t["start_abs"], "dur_ns": t["dur_ns"], "device_id": t["device_id"],
                         "stream_id": _ids(t.get("streamId", pd.Series(np.nan, index=t.index))),
                         "task_id": _ids(t.get("taskId", pd.Series(np.nan, index=t.index))),
                         "model_id": _ids(t.get("modelId", pd.Series(np.nan, index=t.index))),
                         "context_id": _ids(t.get("contextId", pd.Series(np.nan, index=t.index))),
                         "task_type": t["task_type"], "corr": t["corr"],
                         "_hkey": t["corr"].map(conn_to_host).fillna(-1).astype("int64") if len(conn_to_host)
                         else -1})
    base.index = pd.to_numeric(t["globalTaskId"], errors="coerce").to_numpy()
    used = np.zeros(len(base), dtype=bool)
    # kernels
    if db.has("COMPUTE_TASK_INFO", "globalTaskId"):
        ci = db.read("COMPUTE_TASK_INFO", ["globalTaskId", "name", "blockDim|blockNum", "mixBlockDim|mixBlockNum",
                                           "taskType", "opType", "inputFormats", "inputDataTypes", "inputShapes",
                                           "outputFormats", "outputDataTypes", "outputShapes", "opState",
                                           "hf32Eligible", "waitNs"], required=("globalTaskId",))
        ci = ci.drop_duplicates("globalTaskId")
        ci = ci[ci["globalTaskId"].isin(base.index)]
        k = base.loc[ci["globalTaskId"].to_numpy()].copy()
        text = {"name": "name", "core_type": "taskType", "op_type": "opType", "input_formats": "inputFormats",
                "output_formats": "outputFormats", "op_state": "opState", "hf32_eligible": "hf32Eligible"}
        for canon, col in text.items():
            if col in ci:
                k[canon] = _map(ci[col], S)
        k["name"] = pd.Series(k["name"].to_numpy(dtype=object) if "name" in k else None, index=k.index,
                              dtype=object).fillna(pd.Series(k["task_type"].to_numpy(dtype=object), index=k.index))
        for canon, col in (("shapes", "inputShapes"), ("dtypes", "inputDataTypes"), ("output_shapes", "outputShapes"),
                           ("output_dtypes", "outputDataTypes")):
            if col in ci:
                k[canon] = _clean_list(_map(ci[col], S))
        for canon, col in (("block_dim", "blockDim"), ("mix_block_dim", "mixBlockDim"), ("wait_ns", "waitNs")):
            if col in ci:
                k[canon] = pd.to_numeric(ci[col], errors="coerce").to_numpy(dtype="float64")
        k = k.join(_pmu(db, S, ci["globalTaskId"]))
        for c in ("core_type", "op_type", "op_state", "hf32_eligible", "input_formats", "output_formats"):
            if c in k:
                k[c] = pd.Series(k[c], index=k.index, dtype=object).where(lambda x: x != "N/A", None)
        used |= base.index.isin(ci["globalTaskId"])
        out.append(k.reset_index(drop=True))
    # HCCL operators (one span each); their sub-tasks are dropped
    if db.has("COMMUNICATION_OP", "startNs", "endNs"):
        co = db.read("COMMUNICATION_OP", ["opName", "startNs", "endNs", "connectionId", "groupName", "opId",
                                          "dataType", "algType", "count", "opType", "waitNs", "deviceId"],
                     required=("startNs", "endNs"))
        if len(co):
            start = _ns(db, co, "startNs", "COMMUNICATION_OP")
            c = pd.DataFrame({"name": pd.Series(_map(co["opName"], S) if "opName" in co else None,
                                                dtype=object).fillna("hcom").to_numpy(dtype=object),
                              "start_abs": start, "dur_ns": _ns(db, co, "endNs", "COMMUNICATION_OP") - start,
                              "cat": "comm", "core_type": "COMMUNICATION",
                              "op_type": _map(co["opType"], S) if "opType" in co else None,
                              "group": _map(co["groupName"], S) if "groupName" in co else None,
                              "corr": pd.to_numeric(co.get("connectionId"), errors="coerce").fillna(-1)
                              .astype("int64").to_numpy(),
                              "wait_ns": pd.to_numeric(co.get("waitNs"), errors="coerce").to_numpy(dtype="float64")
                              if "waitNs" in co else np.nan})
            c["device_id"] = _comm_devices(db, co, base)
            c["_hkey"] = c["corr"].map(conn_to_host).fillna(-1).astype("int64") if len(conn_to_host) else -1
            out.append(c)
    if db.has("COMMUNICATION_TASK_INFO", "globalTaskId"):
        sub = db.read("COMMUNICATION_TASK_INFO", ["globalTaskId"])
        is_sub = base.index.isin(pd.to_numeric(sub["globalTaskId"], errors="coerce")) & ~used
        if is_sub.any():
            parts.dropped["hccl_subtasks"] = int(is_sub.sum())
        used |= is_sub
    # data moves
    tt = pd.Series(base["task_type"].to_numpy(dtype=object), dtype=object).fillna("").astype(str).str.upper()
    is_copy = (tt.isin(MEMCPY_TASK_TYPES) | tt.str.startswith("MEMCPY")).to_numpy() & ~used
    if is_copy.any():
        m = base[is_copy].copy()
        m["name"] = m["task_type"]
        m["cat"] = "memcpy"
        m["core_type"] = m["task_type"]
        out.append(m.reset_index(drop=True))
    used |= is_copy
    if (~used).any():
        parts.dropped["db_tasks_not_imported"] = int((~used).sum())
        vc = pd.Series(base["task_type"].to_numpy(dtype=object)[~used], dtype=object).fillna("?").value_counts()
        parts.ascend["dropped_task_types"] = {str(k): int(v) for k, v in vc.items()}
    return out


def _comm_devices(db: Db, co: pd.DataFrame, base: pd.DataFrame) -> np.ndarray:
    if "deviceId" in co:
        d = pd.to_numeric(co["deviceId"], errors="coerce").to_numpy(dtype="float64")
        if not np.isnan(d).all():
            return d
    if "opId" in co and db.has("COMMUNICATION_TASK_INFO", "globalTaskId", "opId"):
        sub = db.read("COMMUNICATION_TASK_INFO", ["globalTaskId", "opId"]).drop_duplicates("opId")
        sub = sub[sub["globalTaskId"].isin(base.index)]
        dev = pd.Series(base.loc[sub["globalTaskId"].to_numpy(), "device_id"].to_numpy(), index=sub["opId"].to_numpy())
        return co["opId"].map(dev).to_numpy(dtype="float64")
    return np.full(len(co), np.nan)


def _pmu(db: Db, S: pd.Series, task_ids: pd.Series) -> pd.DataFrame:
    """TASK_PMU_INFO (long, times in ns) -> wide pmu_* columns named and scaled like kernel_details (µs)."""
    if not db.has("TASK_PMU_INFO", "globalTaskId", "name", "value"):
        return pd.DataFrame(index=task_ids.to_numpy())
    p = db.read("TASK_PMU_INFO", ["globalTaskId", "name", "value"])
    tid = pd.to_numeric(p["globalTaskId"], errors="coerce").to_numpy(dtype="float64")
    nid = pd.to_numeric(p["name"], errors="coerce").to_numpy(dtype="float64")
    val = pd.to_numeric(p["value"], errors="coerce").to_numpy(dtype="float64")
    ok = ~(np.isnan(tid) | np.isnan(nid))
    if not ok.any():
        return pd.DataFrame(index=task_ids.to_numpy())
    # long -> wide with two np.unique calls and one scatter (no pivot_table on millions of rows)
    tasks, ti = np.unique(tid[ok], return_inverse=True)
    metrics, mi = np.unique(nid[ok], return_inverse=True)
    grid = np.full((len(tasks), len(metrics)), np.nan)
    grid[ti, mi] = val[ok]
    names = [str(S.get(int(m), f"metric_{int(m)}")) if len(S) else f"metric_{int(m)}" for m in metrics]
    wide = pd.DataFrame(grid, index=tasks.astype(np.int64), columns=names)
    cols = {}
    for m in wide.columns:
        m = str(m)
        if m.endswith("_time"):  # ns here, µs in the CSV
            canon = {"aic_total_time": "aic_time", "aiv_total_time": "aiv_time"}.get(m, m)
            cols[m] = f"pmu_{canon}_us"
            wide[m] = wide[m] / 1000.0
        else:
            cols[m] = f"pmu_{m}"
    wide = wide.rename(columns=cols)
    wide.columns.name = None
    return wide


def _memory(db: Db, S: pd.Series, parts: Parts) -> None:
    if "MEMORY_RECORD" in db.tables:
        m = db.read("MEMORY_RECORD", ["component", "timestamp|timestampNs", "totalAllocated", "totalReserved",
                                      "totalActive", "deviceId"], required=("timestamp",))
        parts.memory.append(pd.DataFrame({
            "ts_abs": _ns(db, m, "timestamp", "MEMORY_RECORD"), "device": _npu(m.get("deviceId"), len(m)),
            "allocated_bytes": pd.to_numeric(m.get("totalAllocated"), errors="coerce"),
            "reserved_bytes": pd.to_numeric(m.get("totalReserved"), errors="coerce"),
            "active_bytes": pd.to_numeric(m.get("totalActive"), errors="coerce"),
            "component": _map(m["component"], S) if "component" in m else None, "kind": "sample"}))
    if db.has("OP_MEMORY", "allocationTime", "size"):
        o = db.read("OP_MEMORY", ["name", "size", "allocationTime", "releaseTime", "allocationTotalAllocated",
                                  "allocationTotalReserved", "allocationTotalActive", "releaseTotalAllocated",
                                  "releaseTotalReserved", "releaseTotalActive", "deviceId"])
        size = pd.to_numeric(o["size"], errors="coerce").to_numpy(dtype="float64")
        dev = _npu(o.get("deviceId"), len(o))
        names = _map(o["name"], S) if "name" in o else None
        alloc = pd.DataFrame({"ts_abs": _ns(db, o, "allocationTime", "OP_MEMORY"), "device": dev, "delta_bytes": size,
                              "allocated_bytes": pd.to_numeric(o.get("allocationTotalAllocated"), errors="coerce"),
                              "reserved_bytes": pd.to_numeric(o.get("allocationTotalReserved"), errors="coerce"),
                              "active_bytes": pd.to_numeric(o.get("allocationTotalActive"), errors="coerce"),
                              "op_name": names, "kind": "alloc"})
        rel = o["releaseTime"] if "releaseTime" in o else pd.Series(np.nan, index=o.index)
        has = rel.notna().to_numpy()
        fr = o[has]
        free = pd.DataFrame({"ts_abs": _ns(db, fr, "releaseTime", "OP_MEMORY") if has.any() else np.array([], np.int64),
                             "device": dev[has], "delta_bytes": -size[has],
                             "allocated_bytes": pd.to_numeric(fr.get("releaseTotalAllocated"), errors="coerce").to_numpy(),
                             "reserved_bytes": pd.to_numeric(fr.get("releaseTotalReserved"), errors="coerce").to_numpy(),
                             "active_bytes": pd.to_numeric(fr.get("releaseTotalActive"), errors="coerce").to_numpy(),
                             "op_name": (names[has] if names is not None else None), "kind": "free"})
        parts.memory += [alloc, free]
    elif db.has("NPU_OP_MEM", "timestampNs", "size", "type"):
        # msprof: GE operator memory events, type -> ENUM_MEMORY / STRING_IDS (allocate|release)
        o = db.read("NPU_OP_MEM", ["operatorName", "type", "size", "timestampNs", "totalAllocate", "totalReserve",
                                   "deviceId"])
        enum = _strings(db, "ENUM_MEMORY")
        kind = pd.Series(_map(o["type"], enum if len(enum) else S), dtype=object).fillna("").str.lower()
        sign = np.where(kind.str.startswith("release"), -1.0, 1.0)
        parts.memory.append(pd.DataFrame({
            "ts_abs": _ns(db, o, "timestampNs", "NPU_OP_MEM"), "device": _npu(o.get("deviceId"), len(o)),
            "delta_bytes": sign * pd.to_numeric(o["size"], errors="coerce").to_numpy(dtype="float64"),
            "allocated_bytes": pd.to_numeric(o.get("totalAllocate"), errors="coerce"),
            "reserved_bytes": pd.to_numeric(o.get("totalReserve"), errors="coerce"),
            "op_name": _map(o["operatorName"], S) if "operatorName" in o else None,
            "component": "GE", "kind": np.where(sign < 0, "free", "alloc")}))


def _npu(dev: pd.Series | None, n: int) -> np.ndarray:
    if dev is None:
        return np.full(n, None, dtype=object)
    d = pd.to_numeric(dev, errors="coerce")
    return np.where(d.notna(), "npu:" + d.fillna(0).astype("int64").astype(str), None).astype(object)


def _counters(db: Db, S: pd.Series, parts: Parts) -> None:
    if db.has("NPU_MODULE_MEM", "timestampNs", "totalReserved"):
        m = db.read("NPU_MODULE_MEM", ["moduleId", "timestampNs", "totalReserved", "deviceId"])
        mods = _strings(db, "ENUM_MODULE")
        comp = pd.Series(_map(m["moduleId"], mods) if "moduleId" in m else None, dtype=object)
        comp = comp.fillna(m.get("moduleId", pd.Series(dtype=object)).astype(str))
        val = pd.to_numeric(m["totalReserved"], errors="coerce").astype("float64")
        val[val == -1] = np.nan
        parts.counters.append(pd.DataFrame({"ts_abs": _ns(db, m, "timestampNs", "NPU_MODULE_MEM"),
                                            "source": _npu(m.get("deviceId"), len(m)),
                                            "metric": ("module_mem:" + comp).to_numpy(dtype=object), "value": val}))
    if db.has("NPU_MEM", "timestampNs", "ddr", "hbm"):
        m = db.read("NPU_MEM", ["type", "ddr", "hbm", "timestampNs", "deviceId"])
        kind = pd.Series(_map(m["type"], S) if "type" in m else None, dtype=object).fillna("?").str.lower()
        kind = kind.map({"app": "APP", "device": "Device"}).fillna(kind)
        ts = _ns(db, m, "timestampNs", "NPU_MEM")
        src = _npu(m.get("deviceId"), len(m))
        ddr = pd.to_numeric(m["ddr"], errors="coerce").to_numpy(dtype="float64")
        hbm = pd.to_numeric(m["hbm"], errors="coerce").to_numpy(dtype="float64")
        for label, v in (("DDR", ddr), ("HBM", hbm), ("Memory", ddr + hbm)):
            parts.counters.append(pd.DataFrame({"ts_abs": ts, "source": src,
                                                "metric": ("npu_mem:" + kind + "/" + label).to_numpy(dtype=object),
                                                "value": v}))
    if db.has("AICORE_FREQ", "timestampNs", "freq"):
        m = db.read("AICORE_FREQ", ["timestampNs", "freq", "deviceId"])
        parts.counters.append(pd.DataFrame({"ts_abs": _ns(db, m, "timestampNs", "AICORE_FREQ"),
                                            "source": _npu(m.get("deviceId"), len(m)), "metric": "aicore_freq_mhz",
                                            "value": pd.to_numeric(m["freq"], errors="coerce")}))
    for c in parts.counters:
        if len(parts.device_ids):
            c["source"] = pd.Series(c["source"], dtype=object).fillna(f"npu:{parts.device_ids[0]}").to_numpy()


def _read_analysis(path: Path, parts: Parts) -> None:
    """analysis.db (torch_npu) / communication_analyzer.db (MindSpore): communication + step summaries."""
    db = Db(path)
    try:
        comm = {}
        if "CommAnalyzerTime" in db.tables:
            comm["ops"] = _records(db.query('SELECT * FROM "CommAnalyzerTime"', "CommAnalyzerTime"))
        if "CommAnalyzerBandwidth" in db.tables:
            comm["bandwidth"] = _records(db.query('SELECT * FROM "CommAnalyzerBandwidth"', "CommAnalyzerBandwidth"))
        if "CommAnalyzerMatrix" in db.tables:
            comm["matrix"] = _records(db.query('SELECT * FROM "CommAnalyzerMatrix"', "CommAnalyzerMatrix"))
        if comm:
            comm["units"] = "times ms, start_timestamp µs, sizes MB, bandwidth GB/s (as written by the profiler)"
            parts.ascend["communication"] = comm
        if "StepTraceTime" in db.tables:
            st = db.query('SELECT * FROM "StepTraceTime"', "StepTraceTime")
            recs = []
            for r in _records(st):
                rec = {"step": _num(r.get("step"))}
                for k, v in r.items():
                    if k != "step":
                        rec[f"{k}_ns"] = round(float(v) * 1000.0) if isinstance(v, (int, float)) else None
                recs.append(rec)
            parts.ascend["step_trace"] = recs
        parts.files.append(str(path))
    finally:
        db.close()


def _num(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return v


def _records(df: pd.DataFrame) -> list[dict]:
    from .csv_text import _records as rec

    return rec(df)
