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

The JSON text is formatted row by row from plain column lists (no dict per event; see _spans).
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import orjson
import pandas as pd

from ..model import Profile

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


# -- text ------------------------------------------------------------------------------------------
# Rows are formatted by one f-string each, from plain column lists (ints via tolist(), the JSON text
# of categoricals computed once per category). Measured on 500k spans: ~1.5 s, where concatenating
# numpy string arrays field by field took ~9 s (every step copies each row's text again).

def _us_parts(ns: np.ndarray) -> tuple[list, list, list]:
    """int64 ns -> (sign, whole us, ns digits) lists for "us.nnn" text (exact, like Kineto's fmtTs)."""
    ns = np.asarray(ns, dtype=np.int64)
    mag = np.abs(ns)
    return np.where(ns < 0, "-", "").tolist(), (mag // 1000).tolist(), (mag % 1000).tolist()


def _us_text(ns: np.ndarray) -> list:
    sign, whole, frac = _us_parts(ns)
    return [f"{s}{w}.{f:03d}" for s, w, f in zip(sign, whole, frac)]


def _json_of_categories(values: pd.Categorical, shaped: bool = False, missing=None) -> list:
    """JSON text per row of a categorical, computed once per category; ``missing`` for NaN."""
    cats = [_shape_json(c) if shaped else orjson.dumps(str(c)).decode() for c in values.categories]
    table = np.array(cats + [missing], dtype=object)
    return table[np.asarray(values.codes)].tolist()


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


def _num_text(values: np.ndarray) -> list:
    """float64 -> JSON number text (integers without a decimal point), None where not finite."""
    v = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(v)
    whole = finite & (v == np.round(v)) & (np.abs(v) < 2 ** 53)
    out = np.full(len(v), None, dtype=object)
    out[whole] = [str(x) for x in v[whole].astype(np.int64).tolist()]
    rest = finite & ~whole
    out[rest] = [repr(x) for x in v[rest].tolist()]
    return out.tolist()


def _ints_or_none(values: np.ndarray, keep: np.ndarray) -> list:
    out = np.full(len(values), None, dtype=object)
    out[keep] = [str(x) for x in np.asarray(values)[keep].tolist()]
    return out.tolist()


def _fields(columns: list[tuple[str, list]]) -> list:
    """Per row, '"key":value' for every column whose value is not None, comma-joined.

    Rows are grouped by which fields they have (a handful of patterns: ops with or without shapes,
    kernels, copies...), and each group is formatted with one template, one call per row."""
    if not columns:
        return []
    cols = [np.asarray(c, dtype=object) for _, c in columns]
    n = len(cols[0])
    present = [c != None for c in cols]   # noqa: E711 (elementwise)
    pattern = np.zeros(n, dtype=np.int64)
    for i, p in enumerate(present):
        pattern |= p.astype(np.int64) << i
    out = np.empty(n, dtype=object)
    for pat in np.unique(pattern).tolist():
        rows = np.flatnonzero(pattern == pat)
        keys = [i for i in range(len(cols)) if pat >> i & 1]
        if not keys:
            out[rows] = ""
            continue
        template = ",".join(f'"{columns[i][0]}":{{}}' for i in keys)
        out[rows] = [template.format(*vals) for vals in zip(*(cols[i][rows].tolist() for i in keys))]
    return out.tolist()


def _join(rows: list) -> str:
    return ",\n".join(rows)


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
        src = ev["src_cat"]
        kcat = np.where(_src_cat_safe(src, ev["cat"]), src.astype(object).to_numpy(), kcat)
    is_step_name = np.array([bool(_STEP.match(str(c))) for c in ev["name"].cat.categories] + [False])
    odd_step = (cat == "step") & ~is_step_name[ev["name"].cat.codes.to_numpy()]
    corr = ev["corr"].to_numpy()
    stream = ev["stream"].to_numpy() if "stream" in ev else np.full(n, -1)
    ext = ev["external_id"].to_numpy() if "external_id" in ev else np.full(n, -1)
    dev_idx = _device_index(ev["device"])
    name_json = _json_of_categories(ev["name"].array)
    args = _fields([
        ("External id", _ints_or_none(ext, ext >= 0)),
        ("correlation", _ints_or_none(corr, corr >= 0)),
        ("device", _ints_or_none(dev_idx, on_dev & (dev_idx >= 0))),
        ("stream", _ints_or_none(stream, stream >= 0)),
        ("Input Dims", _json_of_categories(ev["shapes"].array, shaped=True)),
        ("Input type", _json_of_categories(ev["dtypes"].array, shaped=True)),
        ("Concrete Inputs", _json_of_categories(ev["concrete"].array, shaped=True) if "concrete" in ev
         else [None] * n),
        ("flops", _num_text(ev["flops"].to_numpy())),
        ("bytes", _num_text(ev["bytes"].to_numpy())),
        ("Collective name", np.where(cat == "comm", np.array(name_json, dtype=object), None).tolist()),
        ("cann_nb_cat", np.where(odd_step, '"step"', None).tolist()),
    ])
    sign, whole, frac = _us_parts(ev["start_ns"].to_numpy())
    _, dwhole, dfrac = _us_parts(ev["dur_ns"].to_numpy())
    rows = [f'{{"ph":"X","cat":"{c}","name":{nm},"pid":{p},"tid":{t},"ts":{sg}{w}.{f:03d},'
            f'"dur":{dw}.{df:03d},"args":{{{a}}}}}'
            for c, nm, p, t, sg, w, f, dw, df, a in zip(kcat.tolist(), name_json, pid.tolist(), tid.tolist(), sign,
                                                       whole, frac, dwhole, dfrac, args)]
    return _join(rows)


def _src_cat_safe(src: pd.Series, cat: pd.Series) -> np.ndarray:
    """Rows whose original Kineto category reads back as the same cann_nb cat (decided per pair)."""
    from .kineto import reader_cat
    from .kineto_columns import group_of

    s_codes, c_codes = src.cat.codes.to_numpy().astype(np.int64), cat.cat.codes.to_numpy().astype(np.int64)
    key = (s_codes + 1) * (len(cat.cat.categories) + 1) + (c_codes + 1)
    codes, uniq = pd.factorize(key)
    ok = []
    for k in uniq.tolist():
        si, ci = divmod(k, len(cat.cat.categories) + 1)
        s = src.cat.categories[si - 1] if si > 0 else ""
        c = cat.cat.categories[ci - 1] if ci > 0 else ""
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
    corr, ts = linked["corr"].to_numpy(), np.array(_us_text(linked["start_ns"].to_numpy()), dtype=object)
    rows = [f'{{"ph":"s","id":{c},"pid":{p},"tid":{t},"ts":{x},"cat":"ac2g","name":"ac2g"}}'
            for c, p, t, x in zip(corr[first].tolist(), pid[first].tolist(), tid[first].tolist(), ts[first].tolist())]
    dev = ~host
    rows += [f'{{"ph":"f","id":{c},"pid":{p},"tid":{t},"ts":{x},"cat":"ac2g","name":"ac2g","bp":"e"}}'
             for c, p, t, x in zip(corr[dev].tolist(), pid[dev].tolist(), tid[dev].tolist(), ts[dev].tolist())]
    return _join(rows)


def _memory(mem: pd.DataFrame, ev: pd.DataFrame, lanes: _Lanes) -> str:
    n = len(mem)
    if not n:
        return ""
    # the thread of the event that made the allocation; a lane of its own otherwise
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
    dev = mem["device"] if isinstance(mem["device"].dtype, pd.CategoricalDtype) else mem["device"].astype("category")
    cats, codes = list(dev.cat.categories), dev.cat.codes.to_numpy()
    kinds = [_DEVICE.match(str(c)) for c in cats]
    t_table = np.array([0 if c == "cpu" else _C10.get(m["kind"], 20) if m else -1 for c, m in zip(cats, kinds)] + [-1],
                       dtype=np.int64)[codes]
    i_table = np.array([-1 if c == "cpu" else int(m["idx"]) if m else -1 for c, m in zip(cats, kinds)] + [-1],
                       dtype=np.int64)[codes]
    # c10 has no number for npu & co: name the device so that it reads back the same
    named = np.array([c != "cpu" and not (m and m["kind"] in _C10) for c, m in zip(cats, kinds)] + [False])[codes]
    dev_json = np.array([orjson.dumps(str(c)).decode() for c in cats] + [None], dtype=object)[codes]
    b, a, r = (mem[c].to_numpy(dtype=np.float64) for c in ("delta_bytes", "allocated_bytes", "reserved_bytes"))
    addr = np.asarray(mem["addr"].to_numpy() if "addr" in mem else np.full(n, -1), dtype=np.int64)
    args = _fields([
        ("Device Type", _ints_or_none(t_table, t_table >= 0)),
        ("Device Id", _ints_or_none(i_table, t_table >= 0)),
        ("Bytes", _num_text(b)),
        ("Total Allocated", _num_text(a)),
        ("Total Reserved", _num_text(r)),
        ("Addr", _ints_or_none(addr, addr >= 0)),
        ("cann_nb_device", np.where(named, dev_json, None).tolist()),
    ])
    rows = [f'{{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":{p},"tid":{t},"ts":{x},'
            f'"args":{{{g}}}}}'
            for p, t, x, g in zip(pid.tolist(), tid.tolist(), _us_text(mem["ts_ns"].to_numpy()), args)]
    return _join(rows)


def _counters(ctr: pd.DataFrame, lanes: _Lanes) -> str:
    ctr = ctr[np.isfinite(ctr["value"].to_numpy(dtype=np.float64))] if len(ctr) else ctr
    if not len(ctr):
        return ""
    rows = [f'{{"ph":"C","name":{m},"cat":{c},"pid":{lanes.host_pid},"tid":0,"ts":{x},"args":{{"value":{v}}}}}'
            for m, c, x, v in zip(_json_of_categories(ctr["metric"].array),
                                  _json_of_categories(ctr["source"].array, missing='"trace"'),
                                  _us_text(ctr["ts_ns"].to_numpy()), _num_text(ctr["value"].to_numpy()))]
    return _join(rows)
