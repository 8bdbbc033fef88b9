"""A Profile -> Chrome-trace JSON that Perfetto UI and chrome://tracing open (and read_kineto reads back).

    write_chrome_trace(profile, "run.json.gz")

Written in Kineto's own schema, so every tool that reads PyTorch traces reads it: ``X`` spans with
Kineto categories (cpu_op, cuda_runtime, kernel, gpu_memcpy...), ``M`` process/thread names, ``s``/``f``
``ac2g`` flows for each CUPTI correlation, ``[memory]`` instants, ``C`` counters, float microsecond
``ts`` with three (ns) decimals relative to ``baseTimeNanoseconds`` (= the profile's t0).

cann_nb's own details ride along where Kineto has no field, so that a re-import gives back the same
tables: the top-level ``"cann_nb"`` object marks the file, thread names carry the track names and
process names the device names, ``cann_nb_cat`` marks steps that are not ``ProfilerStep#N``, and
``cann_nb_device`` names memory devices c10 has no number for (npu...).

The JSON text is assembled column-wise with numpy string arrays (no dict per event).
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import orjson
import pandas as pd
from numpy.dtypes import StringDType

from ..model import Profile

_S = StringDType()
_STREAM_TRACK = re.compile(r"^(?P<dev>[^/]+)/stream (?P<n>\d+)$")
_HOST_TRACK = re.compile(r"^host/(?:(?P<pid>\d+)/)?thread (?P<tid>-?\d+)$")
_STEP = re.compile(r"^ProfilerStep#\d+$")
_DEVICE = re.compile(r"^(?P<kind>[a-z][a-z0-9_]*):(?P<idx>\d+)$")
# c10::DeviceType numbers Kineto writes in [memory] events
_C10 = {"cpu": 0, "cuda": 1, "xla": 9, "xpu": 12, "mps": 13, "hpu": 15, "mtia": 19, "privateuseone": 20}
_HOST_CAT = {"op": "cpu_op", "annotation": "user_annotation", "step": "user_annotation",
             "python": "python_function", "runtime": "cuda_runtime", "kernel": "cpu_op", "comm": "cpu_op",
             "memcpy": "cpu_op", "memset": "cpu_op"}
_DEVICE_CAT = {"kernel": "kernel", "comm": "kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset",
               "runtime": "cuda_sync", "annotation": "gpu_user_annotation", "step": "gpu_user_annotation",
               "op": "kernel", "python": "gpu_user_annotation"}
_HOST_PID_DEFAULT = 1
_UNOWNED_TID = (1 << 30) - 1


def write_chrome_trace(profile: Profile, path, *, compresslevel: int = 3) -> Path:
    """Write ``profile`` as Chrome-trace JSON (gzipped when ``path`` ends in .gz); return the path."""
    path = Path(path)
    text = chrome_trace_bytes(profile)
    if path.name.endswith(".gz"):
        text = gzip.compress(text, compresslevel=compresslevel, mtime=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text)
    return path


def chrome_trace_bytes(profile: Profile) -> bytes:
    ev, meta = profile.events, profile.meta
    lanes = _Lanes(ev, profile.memory)
    parts = [lanes.metadata_events(), _spans(ev, lanes), _flows(ev, lanes),
             _memory(profile.memory, ev, lanes), _counters(profile.counters, lanes)]
    body = ",\n".join(p for p in parts if p)
    t0 = int(meta.get("t0_ns") or 0)
    kineto = meta.get("kineto") if isinstance(meta.get("kineto"), dict) else {}
    head = {
        "schemaVersion": 1,
        "deviceProperties": _device_properties(meta, kineto),
        "displayTimeUnit": "ms",
        "baseTimeNanoseconds": t0,
        "cann_nb": {"format": 1, "name": profile.name},
    }
    dist = kineto.get("distributedInfo") or meta.get("distributed")
    if dist:
        head["distributedInfo"] = dist
    prefix = orjson.dumps(head, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY)[:-1]
    tail = orjson.dumps({"traceName": profile.name}, option=orjson.OPT_NON_STR_KEYS)[1:]
    return prefix + b',"traceEvents":[\n' + body.encode() + b"\n]," + tail


def _device_properties(meta: dict, kineto: dict) -> list:
    props = kineto.get("deviceProperties")
    if isinstance(props, list) and props:
        return props
    out = []
    for d in meta.get("devices") or []:
        m = _DEVICE.match(str(d.get("device", ""))) if isinstance(d, dict) else None
        if m:
            out.append({"id": int(m["idx"]), **{k: v for k, v in d.items() if k != "device" and _jsonable(v)}})
    return out


def _jsonable(v) -> bool:
    try:
        orjson.dumps(v)
        return True
    except TypeError:
        return False


# -- lanes: one (pid, tid) per track ---------------------------------------------------------------
class _Lanes:
    """pid/tid for every track: devices get one pid each (labelled "GPU 0", "NPU 0"...), host threads
    keep their tid; tracks without a number get a synthetic tid and their name as thread_name."""

    def __init__(self, ev: pd.DataFrame, memory: pd.DataFrame):
        tracks = list(ev["track"].cat.categories) if len(ev) else []
        track_dev = (ev.groupby("track", observed=True)["device"].first().astype(str).to_dict()
                     if len(ev) else {})
        devices = sorted({d for d in track_dev.values() if d != "cpu"}
                         | {str(d) for d in memory["device"].dropna().unique() if str(d) != "cpu"}
                         if len(memory) else {d for d in track_dev.values() if d != "cpu"})
        host_pids = {int(m["pid"]) for t in tracks if (m := _HOST_TRACK.match(t)) and m["pid"]}
        self.host_pid = min(host_pids) if host_pids else _HOST_PID_DEFAULT
        used = set(host_pids) | {self.host_pid}
        self.device_pid = {}
        for d in devices:
            m = _DEVICE.match(d)
            pid = int(m["idx"]) if m else 0
            while pid in used:
                pid += 1000
            used.add(pid)
            self.device_pid[d] = pid
        self.pid, self.tid, self.names = {}, {}, {}
        synthetic = 1 << 30
        taken: set = set()
        for t in tracks:
            dev = track_dev.get(t, "cpu")
            if dev != "cpu":
                pid = self.device_pid[dev]
                m = _STREAM_TRACK.match(t)
                tid = int(m["n"]) if m and m["dev"] == dev else None
            else:
                m = _HOST_TRACK.match(t)
                pid = int(m["pid"]) if m and m["pid"] else self.host_pid
                tid = int(m["tid"]) if m else None
            if tid is None or (pid, tid) in taken:
                synthetic += 1
                tid = synthetic
            taken.add((pid, tid))
            self.pid[t], self.tid[t], self.names[t] = pid, tid, t

    def codes(self, ev: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        cats = ev["track"].cat.categories
        pid = np.array([self.pid[t] for t in cats] + [self.host_pid], dtype=np.int64)
        tid = np.array([self.tid[t] for t in cats] + [0], dtype=np.int64)
        codes = ev["track"].cat.codes.to_numpy()
        return pid[codes], tid[codes]

    def metadata_events(self) -> str:
        rows = []

        def m(name, pid, tid, args):
            rows.append(orjson.dumps({"name": name, "ph": "M", "ts": 0, "pid": pid, "tid": tid, "args": args}).decode())

        m("process_name", self.host_pid, 0, {"name": "host"})
        m("process_labels", self.host_pid, 0, {"labels": "CPU"})
        for dev, pid in self.device_pid.items():
            kind, _, idx = dev.partition(":")
            m("process_name", pid, 0, {"name": dev})
            m("process_labels", pid, 0, {"labels": f"{'GPU' if kind == 'cuda' else kind.upper()} {idx}"})
            m("process_sort_index", pid, 0, {"sort_index": 5_000_000 + pid})
        for t in self.pid:
            m("thread_name", self.pid[t], self.tid[t], {"name": self.names[t]})
        return ",\n".join(rows)


# -- vectorised text -------------------------------------------------------------------------------
def _us(ns: np.ndarray) -> np.ndarray:
    """int64 ns -> "us.nnn" text (exact, like Kineto's fmtTs)."""
    ns = np.asarray(ns, dtype=np.int64)
    mag = np.abs(ns)
    text = (mag // 1000).astype(_S) + "." + np.strings.zfill((mag % 1000).astype(_S), 3)
    return np.where(ns < 0, "-" + text, text)


def _json_of_categories(values: pd.Categorical, shaped: bool = False, missing: str = "") -> np.ndarray:
    """JSON text per row of a categorical, computed once per category; ``missing`` for NaN."""
    cats = [_shape_json(c) if shaped else orjson.dumps(str(c)).decode() for c in values.categories]
    table = np.array(cats + [missing], dtype=_S)
    return table[np.asarray(values.codes)]


def _shape_json(text: str) -> str:
    """Shapes/dtypes are compact JSON text when cann_nb read them from Kineto: embed them as JSON;
    anything else (Ascend "8,512;512") is written as a JSON string, so the text comes back unchanged."""
    try:
        value = orjson.loads(text)
        if isinstance(value, list) and orjson.dumps(value).decode() == text:
            return text
    except orjson.JSONDecodeError:
        pass
    return orjson.dumps(text).decode()


def _field(key: str, mask: np.ndarray, value: np.ndarray) -> np.ndarray:
    return np.where(mask, f'"{key}":' + value + ",", "")


def _num(values: np.ndarray) -> np.ndarray:
    """float64 -> JSON number text (integers without a decimal point)."""
    v = np.asarray(values, dtype=np.float64)
    whole = np.isfinite(v) & (v == np.round(v)) & (np.abs(v) < 2 ** 53)
    as_int = np.where(whole, v, 0).astype(np.int64).astype(_S)
    return np.where(whole, as_int, np.where(np.isfinite(v), v, 0).astype(_S))


def _join(rows: np.ndarray) -> str:
    return ",\n".join(rows.tolist()) if len(rows) else ""


def _args(pieces: list[np.ndarray], n: int) -> np.ndarray:
    out = np.full(n, "", dtype=_S)
    for p in pieces:
        out = out + p
    return np.strings.rstrip(out, ",")


# -- sections --------------------------------------------------------------------------------------
def _spans(ev: pd.DataFrame, lanes: _Lanes) -> str:
    n = len(ev)
    if not n:
        return ""
    pid, tid = lanes.codes(ev)
    cat = ev["cat"].astype(str).to_numpy()
    device = ev["device"].astype(str).to_numpy()
    on_dev = device != "cpu"
    kcat = np.where(on_dev, pd.Series(cat).map(_DEVICE_CAT).fillna("gpu_user_annotation").to_numpy(),
                    pd.Series(cat).map(_HOST_CAT).fillna("user_annotation").to_numpy())
    if "src_cat" in ev:     # keep the original Kineto category where it reads back as the same cat
        src = ev["src_cat"].astype(object).to_numpy()
        keep = _src_cat_safe(src, cat)
        kcat = np.where(keep, src, kcat)
    names = ev["name"].astype(str).to_numpy()
    odd_step = (cat == "step") & ~pd.Series(names).str.match(_STEP.pattern).to_numpy()
    corr = ev["corr"].to_numpy()
    stream = ev["stream"].to_numpy() if "stream" in ev else np.full(n, -1)
    ext = ev["external_id"].to_numpy() if "external_id" in ev else np.full(n, -1)
    dev_idx = _device_index(ev["device"])
    flops, nbytes = ev["flops"].to_numpy(), ev["bytes"].to_numpy()
    shapes = _json_of_categories(ev["shapes"].array, shaped=True)
    dtypes = _json_of_categories(ev["dtypes"].array, shaped=True)
    concrete = (_json_of_categories(ev["concrete"].array, shaped=True) if "concrete" in ev
                else np.full(n, "", dtype=_S))
    args = _args([
        _field("External id", ext >= 0, ext.astype(_S)),
        _field("correlation", corr >= 0, corr.astype(_S)),
        _field("device", on_dev & (dev_idx >= 0), dev_idx.astype(_S)),
        _field("stream", stream >= 0, stream.astype(_S)),
        _field("Input Dims", shapes != "", shapes),
        _field("Input type", dtypes != "", dtypes),
        _field("Concrete Inputs", concrete != "", concrete),
        _field("flops", np.isfinite(flops), _num(flops)),
        _field("bytes", np.isfinite(nbytes), _num(nbytes)),
        _field("Collective name", cat == "comm", _json_of_categories(ev["name"].array)),
        _field("cann_nb_cat", odd_step, np.full(n, '"step"', dtype=_S)),
    ], n)
    rows = ('{"ph":"X","cat":"' + kcat.astype(_S) + '","name":' + _json_of_categories(ev["name"].array)
            + ',"pid":' + pid.astype(_S) + ',"tid":' + tid.astype(_S)
            + ',"ts":' + _us(ev["start_ns"].to_numpy()) + ',"dur":' + _us(ev["dur_ns"].to_numpy())
            + ',"args":{' + args + "}}")
    return _join(rows)


def _src_cat_safe(src: np.ndarray, cat: np.ndarray) -> np.ndarray:
    from .kineto import reader_cat
    from .kineto_columns import group_of

    pairs = pd.MultiIndex.from_arrays([pd.Series(src).fillna(""), cat])
    codes, uniq = pd.factorize(pairs)
    ok = []
    for s, c in uniq:
        if not s or not re.fullmatch(r"[A-Za-z0-9_]+", s) or s == "Trace":
            ok.append(False)
            continue
        base = reader_cat(group_of(s))
        ok.append(base == c or (c == "step" and base in ("op", "annotation")) or (c == "comm" and base == "kernel"))
    return np.array(ok + [False])[codes]


def _device_index(device: pd.Series) -> np.ndarray:
    cats = device.cat.categories
    idx = np.array([int(c.rsplit(":", 1)[1]) if _DEVICE.match(str(c)) else -1 for c in cats] + [-1], dtype=np.int64)
    return idx[device.cat.codes.to_numpy()]


def _flows(ev: pd.DataFrame, lanes: _Lanes) -> str:
    """One ac2g flow per correlation: 's' at the host launch, 'f' (binding to the enclosing slice)
    at every device task of it."""
    if not len(ev):
        return ""
    linked = ev[ev["corr"] >= 0]
    if not len(linked):
        return ""
    host = linked["device"].astype(str).to_numpy() == "cpu"
    pid, tid = lanes.codes(linked)
    first = host & ~linked["corr"].where(host).duplicated().to_numpy()   # one launch per correlation
    starts, dev = linked[first], linked[~host]
    s_rows = ('{"ph":"s","id":' + starts["corr"].to_numpy().astype(_S) + ',"pid":' + pid[first].astype(_S)
              + ',"tid":' + tid[first].astype(_S) + ',"ts":' + _us(starts["start_ns"].to_numpy())
              + ',"cat":"ac2g","name":"ac2g"}')
    f_rows = ('{"ph":"f","id":' + dev["corr"].to_numpy().astype(_S) + ',"pid":' + pid[~host].astype(_S)
              + ',"tid":' + tid[~host].astype(_S) + ',"ts":' + _us(dev["start_ns"].to_numpy())
              + ',"cat":"ac2g","name":"ac2g","bp":"e"}')
    return ",\n".join(p for p in (_join(s_rows), _join(f_rows)) if p)


def _memory(mem: pd.DataFrame, ev: pd.DataFrame, lanes: _Lanes) -> str:
    n = len(mem)
    if not n:
        return ""
    # the thread of the event that made the allocation; the main host thread otherwise
    owner = mem["event_id"].to_numpy()
    pid = np.full(n, lanes.host_pid, dtype=np.int64)
    tid = np.full(n, _UNOWNED_TID, dtype=np.int64)     # a lane without spans: no owner on re-import
    has = owner >= 0
    if has.any() and len(ev):
        pos = pd.Index(ev["id"]).get_indexer(owner[has])
        ok = pos >= 0
        e_pid, e_tid = lanes.codes(ev.iloc[pos[ok]])
        idx = np.flatnonzero(has)[ok]
        pid[idx], tid[idx] = e_pid, e_tid
    device = mem["device"].astype(object).to_numpy()
    cats = mem["device"].cat.categories if isinstance(mem["device"].dtype, pd.CategoricalDtype) else []
    kinds = {c: _DEVICE.match(str(c)) for c in cats}
    dtype_of = {c: (0 if c == "cpu" else _C10.get(m["kind"], 20) if m else -1) for c, m in kinds.items()}
    id_of = {c: (-1 if c == "cpu" else int(m["idx"]) if m else -1) for c, m in kinds.items()}
    exact = {c for c, m in kinds.items() if c == "cpu" or (m and m["kind"] in _C10)}
    codes = mem["device"].cat.codes.to_numpy()
    t_table = np.array([dtype_of[c] for c in cats] + [-1], dtype=np.int64)[codes]
    i_table = np.array([id_of[c] for c in cats] + [-1], dtype=np.int64)[codes]
    named = np.array([c not in exact for c in cats] + [False])[codes]
    dev_json = np.array([orjson.dumps(str(c)).decode() for c in cats] + [""], dtype=_S)[codes]
    b, a, r = (mem[c].to_numpy(dtype=np.float64) for c in ("delta_bytes", "allocated_bytes", "reserved_bytes"))
    addr = mem["addr"].to_numpy() if "addr" in mem else np.full(n, -1)
    args = _args([
        _field("Device Type", t_table >= 0, t_table.astype(_S)),
        _field("Device Id", t_table >= 0, i_table.astype(_S)),
        _field("Bytes", np.isfinite(b), _num(b)),
        _field("Total Allocated", np.isfinite(a), _num(a)),
        _field("Total Reserved", np.isfinite(r), _num(r)),
        _field("Addr", addr >= 0, np.asarray(addr, dtype=np.int64).astype(_S)),
        _field("cann_nb_device", named & pd.notna(device), dev_json),
    ], n)
    rows = ('{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":' + pid.astype(_S)
            + ',"tid":' + tid.astype(_S) + ',"ts":' + _us(mem["ts_ns"].to_numpy()) + ',"args":{' + args + "}}")
    return _join(rows)


def _counters(ctr: pd.DataFrame, lanes: _Lanes) -> str:
    ctr = ctr[np.isfinite(ctr["value"].to_numpy(dtype=np.float64))] if len(ctr) else ctr
    if not len(ctr):
        return ""
    rows = ('{"ph":"C","name":' + _json_of_categories(ctr["metric"].array)
            + ',"cat":' + _json_of_categories(ctr["source"].array, missing='"trace"')
            + f',"pid":{lanes.host_pid},"tid":0,"ts":' + _us(ctr["ts_ns"].to_numpy())
            + ',"args":{"value":' + _num(ctr["value"].to_numpy()) + "}}")
    return _join(rows)
