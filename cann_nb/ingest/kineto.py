"""PyTorch/Kineto Chrome-trace JSON -> Profile (docs: shared/docs/formats.md section 4).

    prof = read_kineto("rank-0.pt.trace.json.gz")

Reads every era seen in the wild: PyTorch 1.8-1.9 tb_plugin traces (``Operator``/``Runtime``/``Kernel``
categories, string tids, ``async``/``launch`` flows, ``[memory]`` with Bytes only), 1.10-1.12
(``async_cpu_to_gpu`` flows), 1.13-2.0 (``ac2g``, integer us), 2.1+ (float us with ns decimals and
``baseTimeNanoseconds``), ROCm (hip* calls under ``cuda_runtime``), MTIA, XPU and PrivateUse1 runtimes.

Extra columns besides DESIGN.md's: events ``src_cat`` (the Kineto category as written, categorical),
``stream`` (int64, -1 on the host), ``external_id`` (Kineto "External id", -1 none) and ``concrete``
(JSON text of "Concrete Inputs", the scalar arguments of ops); memory ``addr`` (-1 unknown).
``shapes``/``dtypes`` are the compact JSON text of "Input Dims"/"Input type".

Pipeline: chunked_json streams the events array, kineto_columns turns each chunk into numpy columns,
and this module interprets the columns as a whole: event categories, devices and tracks, time base,
nesting, CUPTI correlation links, the memory and counter tables, and the meta dict.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import TraceFormatError
from ..model import EVENT_CATS, Profile, categorical
from .nesting import nest
from . import kineto_structs
from .chunked_json import EventStream, gc_paused, iter_chunks
from .comm_markers import is_device_comm_name
from .kineto_columns import (ANNOT, DEVICE_GROUPS, GPU_ANNOT, KERNEL, LEGACY_CATS, MEMCPY, MEMSET, OP, OTHER, PY,
                             RUNTIME, SYNC, Columns, in_groups)

# c10::DeviceType -> cann_nb device prefix (HIP is reported as a CUDA device, as torch does on ROCm)
C10_DEVICE = {0: "cpu", 1: "cuda", 2: "mkldnn", 3: "opengl", 4: "opencl", 5: "ideep", 6: "cuda", 7: "fpga",
              8: "maia", 9: "xla", 10: "vulkan", 11: "metal", 12: "xpu", 13: "mps", 14: "meta", 15: "hpu",
              16: "ve", 17: "lazy", 18: "ipu", 19: "mtia", 20: "privateuseone"}
_LABEL = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s+(\d+)\s*$")   # process_labels "GPU 0", "MTIA 17"
_DEVICE = re.compile(r"^[a-z][a-z0-9_]*:\d+$")
_STREAM = re.compile(r"^\s*stream\s+(\d+)", re.I)
_STEP = re.compile(r"^ProfilerStep#\d+$")
_SECRET = re.compile(r"token|secret|passw|api_?key|access_?key|private_?key|credential", re.I)
_CAT_CODE = {c: i for i, c in enumerate(EVENT_CATS)}


def read_kineto(source, *, t0_ns: int | None = None, python_functions: bool = False,
                name: str | None = None) -> Profile:
    """A Profile from a Kineto/Chrome trace: a .json / .json.gz path, its bytes, or the parsed dict.

    ``t0_ns`` (epoch ns) is the instant event times are made relative to; by default the earliest
    event. ``python_functions`` keeps ``python_function`` events (with_stack traces can hold millions);
    otherwise they are counted in ``meta["skipped"]`` (left out on purpose; ``meta["dropped"]`` is for
    events lost at a full buffer) and still count in the trace's wall time (``meta["wall_ns"]``).
    Raises TraceFormatError on unreadable input.
    """
    label, path = _label(source)
    with gc_paused():
        stream = EventStream(source, label, decoder=kineto_structs.decode)
        cols = Columns(label, python_functions, own_export=isinstance(stream.top.get("cann_nb"), dict))
        iter_chunks(stream, cols.consume)
        prof = _Assembler(cols, stream.top, label, path, t0_ns, name).profile()
    prof.meta["kineto"]["parse"] = stream.mode
    return prof


def _label(source) -> tuple[str, str | None]:
    if isinstance(source, (str, Path)):
        return str(source), str(source)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return "<bytes>", None
    if isinstance(source, (dict, list)):
        return "<dict>", None
    raise TypeError(f"read_kineto needs a path, bytes or a parsed trace dict, not {type(source).__name__}")


def _default_name(path: str | None) -> str:
    if not path:
        return "kineto"
    name = Path(path).name
    for suffix in (".gz", ".json", ".trace", ".pt"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name or "kineto"


def _redact(value):
    """Drop credentials that collection harnesses sometimes copy into trace metadata (env dumps)."""
    if isinstance(value, dict):
        return {k: ("<redacted>" if isinstance(k, str) and _SECRET.search(k) else _redact(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact(v) for v in value]
    return value


class _Assembler:
    def __init__(self, cols: Columns, top: dict, label: str, path: str | None, t0_ns, name):
        self.cols, self.top, self.label, self.path = cols, top, label, path
        self.name = name or _default_name(path)
        self.t0_arg = t0_ns
        self.own = cols.own_export     # our own export: thread names are track names, pids devices
        self.base = self._base()
        self.span = cols.table("span")
        self.n = len(self.span.get("ts", ()))
        self._metadata()
        self.pid_vals, self.pid_canon = _canonical(cols.pids.values)
        self.tid_vals, self.tid_canon = _canonical(cols.tids.values)
        if self.n:
            self.span["pid"] = _lut(self.pid_canon, self.span["pid"])
            self.span["tid"] = _lut(self.tid_canon, self.span["tid"])

    # -- time base ------------------------------------------------------------------------------
    def _base(self) -> int:
        base = self.top.get("baseTimeNanoseconds")
        if base is None:
            return 0
        if isinstance(base, bool) or not isinstance(base, (int, float)) or base < 0 or base > 2 ** 62:
            raise TraceFormatError(self.label, "baseTimeNanoseconds", "a non-negative integer (epoch ns)",
                                   f"found {base!r}"[:100])
        return int(base)

    def _t0(self, mem: dict, ctr: dict) -> int:
        if self.t0_arg is not None:
            return int(self.t0_arg)
        if self.own:                      # our export: the base is the profile's own t0
            return self.base
        firsts = [a.min() for a in (self.span.get("ts"), mem.get("ts"), ctr.get("ts")) if a is not None and len(a)]
        if self.cols.skipped_span is not None:      # python_function spans left out still start the trace
            firsts.append(self.cols.skipped_span[0])
        return int(min(firsts)) + self.base if firsts else self.base

    # -- process/thread metadata ------------------------------------------------------------------
    def _metadata(self):
        self.labels, self.pnames, self.tnames = {}, {}, {}
        for m in self.cols.metadata:
            pid = _canon_value(m["pid"])
            if m["value"] is None:
                continue
            if m["kind"] == "process_labels":
                self.labels[pid] = str(m["value"])
            elif m["kind"] == "process_name":
                self.pnames[pid] = str(m["value"])
            else:
                self.tnames[(pid, _canon_value(m["tid"]))] = str(m["value"]).strip()

    def _ccp_groups(self, grp: np.ndarray, cat_codes: np.ndarray, name_codes: np.ndarray) -> np.ndarray:
        """MTIA's device events share one category, ``mtia_ccp_events`` (the command processor's view of
        the device): by name they are waits and records on events (sync), DMA requests (copies), and
        the rest is device work (``pe_exe``, graph ops such as ``merge``): kernels."""
        code = self.cols.cats.index.get("mtia_ccp_events")
        if code is None:
            return grp
        names = self.cols.names.values
        kind = np.array([_ccp_group(v) for v in names] + [KERNEL], dtype=grp.dtype)
        return np.where(cat_codes == code, kind[name_codes], grp)

    def _device_kind(self) -> str:
        cats = [c for c in self.cols.cats.values if isinstance(c, str)]
        if any(c.startswith("mtia") for c in cats):
            return "mtia"
        if any(c.startswith("xpu") for c in cats):
            return "xpu"
        if any(c.startswith("privateuse1") for c in cats):
            return "privateuseone"
        return "cuda"

    # -- events ---------------------------------------------------------------------------------
    def events(self) -> pd.DataFrame:
        s, n = self.span, self.n
        if n == 0:
            self.track_of_thread = {}
            return pd.DataFrame()
        grp, pid, tid = self._ccp_groups(s["group"], s["cat"], s["name"]), s["pid"], s["tid"]
        default_kind = self._device_kind()
        # which pids are devices: labelled "GPU 0"/"MTIA 17"..., or hosting device-side activities
        pid_kind = []
        for v in self.pid_vals:
            m = _LABEL.match(self.labels.get(v, ""))
            kind = m.group(1).lower() if m and m.group(1).upper() != "CPU" else None
            pid_kind.append("cuda" if kind == "gpu" else kind)
        hosts_dev = np.zeros(len(self.pid_vals) + 1, dtype=bool)
        hosts_dev[:-1] = np.bincount(pid[in_groups(grp, DEVICE_GROUPS) & (pid >= 0)],
                                     minlength=len(self.pid_vals))[: len(self.pid_vals)] > 0
        hosts_dev[-1] = False
        pid_is_dev = np.array([k is not None for k in pid_kind] + [False]) | hosts_dev
        is_dev = in_groups(grp, DEVICE_GROUPS) | (in_groups(grp, (RUNTIME, OTHER)) & pid_is_dev[pid])
        if self.own:
            is_dev = pid_is_dev[pid]
        is_dev &= pid >= 0
        # device: "<kind>:<index>", index from args.device, else the pid
        pid_int = np.array([v if isinstance(v, int) and not isinstance(v, bool) else 0 for v in self.pid_vals] + [0])
        dev_index = np.where(s["device"] >= 0, s["device"], pid_int[pid])
        kinds = sorted({k for k in pid_kind if k} | {default_kind})
        kind_code = np.array([kinds.index(k or default_kind) for k in pid_kind] + [kinds.index(default_kind)])
        dev_kind = kind_code[pid]
        # stream: args.stream, else "stream N" in the thread's name (2021 string tids, M events)
        tid_stream = np.array([_stream_of(t) for t in self.tid_vals] + [-1])
        arg_stream = np.where((s["stream"] >= 0) & (s["stream"] < 0xFFFFFFFF), s["stream"], -1)  # uint32 -1 = none
        if self.own:
            tid_stream[:] = -1
        stream = np.where(is_dev, np.where(arg_stream >= 0, arg_stream, tid_stream[tid]), -1)
        named_stream = self._thread_streams(pid, tid, is_dev, stream)
        stream = np.where(is_dev & (stream < 0), named_stream, stream)
        # on CUDA/ROCm device rows the tid is the stream id (gpu_user_annotation has no stream arg)
        tid_int = np.array([v if type(v) is int and 0 <= v < 0xFFFFFFFF else -1 for v in self.tid_vals] + [-1])
        cuda_kind = kinds.index("cuda") if "cuda" in kinds else -1
        if not self.own:
            stream = np.where(is_dev & (stream < 0) & (dev_kind == cuda_kind) & (grp != SYNC), tid_int[tid], stream)
        role = np.where(is_dev, np.where(grp == SYNC, 2, 1), 0)
        a = np.where(is_dev, dev_kind * (1 << 32) + dev_index, pid)
        b = np.where(is_dev & (stream >= 0), stream, -2 - tid)
        track_code, uniq, first_row = _factorize_rows(role, a, b)
        track_names, dev_names = self._track_names(uniq, first_row, pid, tid, kinds)
        self.track_of_thread = {(int(pid[r]), int(tid[r])): t for t, (r, row) in enumerate(zip(first_row, uniq))
                                if row[0] == 0}
        cat = self._categories(grp, s["name"], s["collective"])
        cat = np.where(s["step"], _CAT_CODE["step"], cat).astype(np.int8)
        corr = self._links(grp, is_dev, s["corr"], pid, tid, s["ts"])
        # time order (parents before children at equal starts), applied to plain arrays once
        start = s["ts"] + (self.base - self._t0_value)
        dur = np.maximum(s["dur"], 0)
        order = np.lexsort((-dur, start))
        self.track_sorted = track_code[order]

        def cat_of(interner, codes):
            return interner.categorical(codes[order])

        start, dur = start[order], dur[order]
        ids = np.arange(n, dtype=np.int64)
        parent, depth = nest(self.track_sorted, start, dur, ids)
        # contract order (model.EVENT_COLUMNS) then the extras, built once from arrays made here:
        # no copy, and Profile() finds the table already conformed
        return pd.DataFrame({
            "id": ids,
            "name": cat_of(self.cols.names, s["name"]),
            "cat": pd.Categorical.from_codes(cat[order], categories=_object_index(EVENT_CATS)),
            "track": _from_codes(self.track_sorted, track_names),
            "device": _from_codes(self.track_sorted, dev_names),
            "start_ns": start,
            "dur_ns": dur,
            "parent": parent,
            "depth": depth,
            "corr": corr[order],
            "shapes": cat_of(self.cols.shapes, s["shapes"]),
            "dtypes": cat_of(self.cols.dtypes, s["dtypes"]),
            "flops": s["flops"][order],
            "bytes": s["bytes"][order],
            "module": categorical(None, n),
            "concrete": cat_of(self.cols.concrete, s["concrete"]),
            "src_cat": cat_of(self.cols.cats, s["cat"]),
            "stream": stream.astype(np.int64)[order],
            "external_id": s["ext"][order],
        }, copy=False)

    def _thread_streams(self, pid, tid, is_dev, stream) -> np.ndarray:
        out = np.full(len(pid), -1, dtype=np.int64)
        if not self.tnames or self.own:
            return out
        need = np.flatnonzero(is_dev & (stream < 0))
        if not len(need):
            return out
        pairs = pd.DataFrame({"p": pid[need], "t": tid[need]})
        codes, uniq = pd.factorize(pd.MultiIndex.from_frame(pairs))
        lut = []
        for p, t in uniq:
            m = _STREAM.match(self.tnames.get((self.pid_vals[p], self.tid_vals[t]), ""))
            lut.append(int(m.group(1)) if m else -1)
        out[need] = np.array(lut, dtype=np.int64)[codes]
        return out

    def _track_names(self, uniq, first_row, pid, tid, kinds):
        host_pids = {self.pid_vals[p] for r, p, _ in uniq if r == 0 and p >= 0}
        real = {p for p in host_pids if isinstance(p, int) and p > 0}
        prefix = len(real) > 1
        names, devs = [], []
        for (role, a, b), row in zip(uniq, first_row):
            if self.own:     # our export names every lane (thread_name) and device (process_name)
                p, t = self.pid_vals[pid[row]], self.tid_vals[tid[row]]
                pname = self.pnames.get(p, "")
                names.append(self.tnames.get((p, t)) or f"host/thread {t}")
                devs.append(pname if role and _DEVICE.match(pname) else "cpu" if not role
                            else f"{kinds[a >> 32]}:{a & 0xFFFFFFFF}")
                continue
            if role == 0:
                p = self.pid_vals[a] if a >= 0 else "?"
                t = self.tid_vals[tid[row]] if tid[row] >= 0 else "?"
                if isinstance(p, int) and p > 0:
                    names.append(f"host/{p}/thread {t}" if prefix else f"host/thread {t}")
                else:
                    names.append(f"host/{self.pnames.get(p, p)}/thread {t}")
                devs.append("cpu")
                continue
            dev = f"{kinds[a >> 32]}:{a & 0xFFFFFFFF}"
            devs.append(dev)
            if b >= 0:
                names.append(f"{dev}/stream {b}" + (" (sync)" if role == 2 else ""))
            elif role == 2:
                names.append(f"{dev}/sync")
            else:
                t = self.tid_vals[tid[row]] if tid[row] >= 0 else "?"
                tname = self.tnames.get((self.pid_vals[pid[row]], t)) if pid[row] >= 0 else None
                names.append(f"{dev}/{tname or f'thread {t}'}")
        return names, devs

    def _categories(self, grp, name_codes, collective) -> np.ndarray:
        names = self.cols.names.values
        is_step = np.array([isinstance(v, str) and bool(_STEP.match(v)) for v in names] + [False])
        is_nccl = np.array([is_device_comm_name(v) for v in names] + [False])   # the libraries' own kernel names
        lut = np.array([_CAT_CODE[reader_cat(g)] for g in range(OTHER + 1)], dtype=np.int8)
        cat = lut[grp]
        cat = np.where(in_groups(grp, (OP, ANNOT)) & is_step[name_codes], _CAT_CODE["step"], cat)
        cat = np.where((grp == KERNEL) & (collective | is_nccl[name_codes]), _CAT_CODE["comm"], cat)
        return cat.astype(np.int8)

    def _links(self, grp, is_dev, arg_corr, pid, tid, ts) -> np.ndarray:
        """CUPTI correlation of launch <-> device task, from launch flows, else from args.correlation."""
        host_rt = (~is_dev) & (grp == RUNTIME)
        dev_task = is_dev & (grp != GPU_ANNOT)
        flow = self.cols.table("flow")
        from_flow = np.full(len(grp), -1, dtype=np.int64)
        self.link_stats = {"flows": 0, "events_matched_by_flow": 0}
        if flow:
            fpid, ftid = _lut(self.pid_canon, flow["pid"]), _lut(self.tid_canon, flow["tid"])
            self.link_stats["flows"] = int(len(flow["id"]))
            for is_start, side in ((True, host_rt), (False, dev_task)):
                sel = flow["start"] == is_start
                rows = np.flatnonzero(side)
                if not sel.any() or not len(rows):
                    continue
                f = pd.DataFrame({"p": fpid[sel], "t": ftid[sel], "ts": flow["ts"][sel], "fid": flow["id"][sel],
                                  "fi": np.flatnonzero(sel)})
                e = pd.DataFrame({"p": pid[rows], "t": tid[rows], "ts": ts[rows], "row": rows, "ac": arg_corr[rows]})
                m = e.merge(f, on=["p", "t", "ts"], how="inner")
                if not len(m):
                    continue
                # two calls at the same us (integer-us traces): the one whose own correlation matches
                # wins; a flow end binds one event, an event takes one flow
                m["pref"] = m["ac"] != m["fid"]
                m = m.sort_values(["pref", "row"], kind="stable").drop_duplicates("fi").drop_duplicates("row")
                from_flow[m["row"].to_numpy()] = m["fid"].to_numpy()
        self.link_stats["events_matched_by_flow"] = int((from_flow >= 0).sum())
        corr = np.where(from_flow >= 0, from_flow, arg_corr)
        corr = np.where(host_rt | dev_task, corr, -1)
        both = np.intersect1d(corr[host_rt & (corr >= 0)], corr[dev_task & (corr >= 0)])
        corr = np.where(np.isin(corr, both) & (corr >= 0), corr, -1)
        tasks = dev_task & in_groups(grp, (KERNEL, MEMCPY, MEMSET))
        self.link_stats.update(device_tasks=int(tasks.sum()), device_tasks_linked=int((tasks & (corr >= 0)).sum()))
        self.link_stats["link_rate"] = (self.link_stats["device_tasks_linked"] / self.link_stats["device_tasks"]
                                        if self.link_stats["device_tasks"] else None)
        return corr

    # -- memory -----------------------------------------------------------------------------------
    def memory(self, ev: pd.DataFrame, t0: int) -> pd.DataFrame:
        m = self.mem
        if not m:
            return pd.DataFrame()
        order = np.argsort(m["ts"], kind="stable")
        m = {k: v[order] for k, v in m.items()}
        device = self._memory_devices(m["dev_type"], m["dev_id"])
        if self.own and pd.notna(m["device"]).any():
            named = m["device"]
            device = categorical(np.where(pd.isna(named), np.asarray(device, dtype=object), named))
        allocated = m["allocated"].copy()
        legacy = bool(np.isnan(allocated).all()) and len(allocated)
        if legacy:   # 2021 traces: only Bytes; running sum per device, from the start of the profile
            codes = device.codes
            allocated = pd.Series(np.nan_to_num(m["bytes"])).groupby(codes).cumsum().to_numpy(dtype=np.float64, copy=True)
            allocated[codes < 0] = np.nan
        self.memory_legacy = legacy
        return pd.DataFrame({
            "ts_ns": m["ts"] + self.base - t0,
            "device": device,
            "delta_bytes": m["bytes"],
            "allocated_bytes": allocated,
            "reserved_bytes": m["reserved"],
            "event_id": self._memory_owner(ev, m),
            "addr": m["addr"],
        })

    @staticmethod
    def _memory_devices(dev_type: np.ndarray, dev_id: np.ndarray) -> pd.Categorical:
        """c10 (Device Type, Device Id) -> "cpu" / "cuda:0" ...; NaN when the type is missing."""
        codes, uniq = pd.factorize(dev_type * (1 << 32) + (dev_id + 1))
        names = []
        for t, i in ((int(k) >> 32, (int(k) & 0xFFFFFFFF) - 1) for k in uniq):
            kind = C10_DEVICE.get(int(t), f"device{int(t)}") if t >= 0 else None
            names.append(None if kind is None else "cpu" if kind == "cpu" else f"{kind}:{max(int(i), 0)}")
        return _from_codes_nullable(codes, names)

    def _memory_owner(self, ev: pd.DataFrame, m: dict) -> np.ndarray:
        """Id of the innermost host event on the allocating thread that spans the allocation."""
        n = len(m["ts"])
        out = np.full(n, -1, dtype=np.int64)
        if not len(ev) or not self.track_of_thread:
            return out
        pid, tid = _lut(self.pid_canon, m["pid"]), _lut(self.tid_canon, m["tid"])
        track = _pair_lookup(pid, tid, self.track_of_thread)
        start = ev["start_ns"].to_numpy()
        end = start + ev["dur_ns"].to_numpy()
        parent = ev["parent"].to_numpy()
        ev_track = self.track_sorted
        ts = m["ts"] + self.base - self._t0_value
        for t in np.unique(track[track >= 0]):
            rows = np.flatnonzero(track == t)
            ids = np.flatnonzero(ev_track == t)           # sorted by start already
            pos = np.searchsorted(start[ids], ts[rows], side="right") - 1
            cand = np.where(pos >= 0, ids[np.maximum(pos, 0)], -1)
            for _ in range(4096):                         # climb to the first ancestor still open
                open_ = cand >= 0
                closed = open_ & (end[np.maximum(cand, 0)] < ts[rows])
                if not closed.any():
                    break
                cand = np.where(closed, parent[np.maximum(cand, 0)], cand)
            out[rows] = cand
        return out

    # -- counters -------------------------------------------------------------------------------
    def counters(self, t0: int) -> pd.DataFrame:
        c = self.cols.table("ctr")
        if not c:
            return pd.DataFrame()
        return pd.DataFrame({"ts_ns": c["ts"] + self.base - t0, "source": categorical(c["source"]),
                             "metric": categorical(c["metric"]), "value": c["value"]})

    # -- the Profile ------------------------------------------------------------------------------
    def profile(self) -> Profile:
        self.mem = self.cols.table("mem")
        ctr = self.cols.table("ctr")
        t0 = self._t0(self.mem, ctr)
        self._t0_value = t0
        ev = self.events()
        if not len(ev):
            self.link_stats = {}
        mem = self.memory(ev, t0)
        counters = self.counters(t0)
        meta = self._meta(ev, mem, t0)
        return Profile(ev, mem, counters, meta)

    def _meta(self, ev: pd.DataFrame, mem: pd.DataFrame, t0: int) -> dict:
        top, cols = self.top, self.cols
        dist = top.get("distributedInfo") if isinstance(top.get("distributedInfo"), dict) else {}
        props = top.get("deviceProperties") if isinstance(top.get("deviceProperties"), list) else []
        used = sorted(set(ev["device"].dropna().unique().tolist() if len(ev) else [])
                      | set(mem["device"].dropna().unique().tolist() if len(mem) else []))
        devices = []
        for d in used:
            entry = {"device": d}
            if d != "cpu":
                idx = int(d.rsplit(":", 1)[1])
                match = next((p for p in props if isinstance(p, dict) and p.get("id") == idx), None)
                if match:
                    entry.update({k: v for k, v in match.items() if k != "id"})
            devices.append(entry)
        counts = ev["src_cat"].value_counts().to_dict() if len(ev) else {}
        # left out on purpose (python_functions=False), not lost: "dropped" is for a full buffer
        skipped = {k: v for k, v in cols.counts.items() if k == "python_function"}
        ignored = {k: v for k, v in cols.counts.items() if k != "python_function"}
        if cols.trace_spans:
            ignored["Trace spans (profiler window markers)"] = len(cols.trace_spans)
        neg = int((self.span["dur"] < 0).sum()) if self.n else 0
        if neg:
            ignored["negative durations clamped to 0"] = neg
        trace = {k: _redact(v) for k, v in top.items() if k not in ("deviceProperties", "distributedInfo")}
        window = [s for s in cols.trace_spans if isinstance(s.get("ts"), (int, float))]
        era, markers = self._era(ev)
        kineto = {
            "schema_era": era,
            "markers": markers,
            "time_base": "baseTimeNanoseconds + relative us" if "baseTimeNanoseconds" in top else "epoch us",
            "timestamp_precision": "exact ns" if not cols.imprecise else
            f"float64: {cols.imprecise} timestamps rounded (absolute epoch us with decimals)",
            "events_in_file": cols.n_events,
            "span_counts": {str(k): int(v) for k, v in counts.items()},
            "memory_events": int(len(mem)),
            "memory_allocated_from": "running sum of Bytes (legacy trace)" if getattr(self, "memory_legacy", False)
            else "Total Allocated",
            "links": getattr(self, "link_stats", {}),
            "trace": trace,
            "deviceProperties": props,
            "distributedInfo": _redact(dist),
        }
        if window:
            w = min(window, key=lambda s: s["ts"])
            kineto["profiler_window_ns"] = [int(round(w["ts"] * 1000)) + self.base - t0,
                                            int(round((w["ts"] + (w.get("dur") or 0)) * 1000)) + self.base - t0]
        meta = {
            "name": self.name,
            "source": {"kind": "import", "format": "kineto", "path": self.path},
            "t0_ns": int(t0),
            "devices": devices,
            "dropped": {},
            "skipped": skipped,
            "ignored": ignored,
            "kineto": kineto,
        }
        if cols.skipped_span is not None:   # the wall the trace spans, as if the skipped spans were imported
            meta["wall_ns"] = self._wall_with_skipped(ev, t0)
        if dist:
            meta["distributed"] = {k: dist[k] for k in ("rank", "world_size", "backend") if k in dist}
        return meta

    def _wall_with_skipped(self, ev: pd.DataFrame, t0: int) -> int:
        first, last = (v + self.base - t0 for v in self.cols.skipped_span)
        if len(ev):
            first = min(first, int(ev["start_ns"].min()))
            last = max(last, int((ev["start_ns"] + ev["dur_ns"]).max()))
        return max(int(last - first), 0)

    def _era(self, ev) -> tuple[str, list]:
        cats = {c for c in self.cols.cats.values if isinstance(c, str)}
        top = self.top
        markers = []
        if "baseTimeNanoseconds" in top:
            markers.append("baseTimeNanoseconds")
        if self.cols.float_ts:
            markers.append("float us timestamps")
        if "cuda_driver" in cats:
            markers.append("cuda_driver events")
        if "roctracer_version" in top or "hip_runtime_version" in top:
            markers.append("ROCm")
        if any(c.startswith("mtia") for c in cats):
            markers.append("MTIA")
        if cats & LEGACY_CATS or "async" in self.cols.flow_cats:
            era = "PyTorch 1.8-1.9 (2021: legacy categories, async/launch flows)"
        elif "async_cpu_to_gpu" in self.cols.flow_cats:
            era = "PyTorch 1.10-1.12 (2022: async_cpu_to_gpu flows)"
        elif self.cols.float_ts or "baseTimeNanoseconds" in top:
            era = "PyTorch 2.4+ (2024-)" if ("cuda_driver" in cats or "cupti_version" in top
                                              or "roctracer_version" in top) else "PyTorch 2.1-2.3 (2023-24)"
        else:
            era = "PyTorch 1.13-2.0 (late 2022-2023: ac2g flows, integer us)"
        return era, markers


_GROUP_CAT = {OP: "op", PY: "python", RUNTIME: "runtime", KERNEL: "kernel", MEMCPY: "memcpy", MEMSET: "memset",
              SYNC: "runtime"}


def _ccp_group(name) -> int:
    n = str(name).lower()
    if n.startswith(("event_wait", "event_record", "wait", "signal")):
        return SYNC
    if n.startswith("dma"):
        return MEMCPY
    return KERNEL


def reader_cat(group: int) -> str:
    """The event cat of a raw-category group, before the name rules (ProfilerStep#N, nccl*)."""
    return _GROUP_CAT.get(group, "annotation")


def _canon_value(v):
    """Kineto 2021 wrote tids as strings ("25738") where flows use ints: compare them as ints."""
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        return int(v.strip())
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _canonical(values: list) -> tuple[list, np.ndarray]:
    """Canonical values and a code -> canonical-code table (appended -1 keeps code -1 at -1)."""
    index, canon, lut = {}, [], []
    for v in values:
        c = _canon_value(v)
        key = (type(c) is str, c)
        if key not in index:
            index[key] = len(canon)
            canon.append(c)
        lut.append(index[key])
    return canon, np.array(lut + [-1], dtype=np.int64)


def _lut(table: np.ndarray, codes: np.ndarray) -> np.ndarray:
    return table[codes]


def _stream_of(tid) -> int:
    """2021 traces name GPU lanes by tid strings: "stream 7" -> 7."""
    if isinstance(tid, str):
        m = _STREAM.match(tid)
        return int(m.group(1)) if m else -1
    return -1


def _pair_lookup(pid, tid, table: dict) -> np.ndarray:
    codes, uniq = pd.factorize(pid.astype(np.int64) * (1 << 32) + (tid + 1))
    lut = np.array([table.get((int(k) >> 32, (int(k) & 0xFFFFFFFF) - 1), -1) for k in uniq] + [-1], dtype=np.int64)
    return lut[codes]


def _factorize_rows(*cols: np.ndarray):
    """Group codes of rows of int64 columns, the distinct rows (first-seen order), their first rows."""
    codes = np.zeros(len(cols[0]), dtype=np.int64)
    for c in cols:
        local, uniq = pd.factorize(c)
        codes = codes * (len(uniq) + 1) + local
        codes, _ = pd.factorize(codes)          # keep the combined code small
    codes = codes.astype(np.int64)
    # codes are 0..k-1 in first-seen order: the running maximum rises exactly at first occurrences
    top = np.maximum.accumulate(codes)
    first = np.flatnonzero(np.concatenate(([True], top[1:] > top[:-1])))
    return codes, np.stack([c[first] for c in cols], axis=1), first


def _from_codes_nullable(codes: np.ndarray, names: list) -> pd.Categorical:
    """Categorical of names[codes] where a name may be None (-> NaN) or repeat."""
    known = sorted({n for n in names if n is not None})
    index = {n: i for i, n in enumerate(known)}
    lut = np.array([index[n] if n is not None else -1 for n in names] + [-1], dtype=np.int64)
    return pd.Categorical.from_codes(lut[codes], categories=_object_index(known))


def _from_codes(codes: np.ndarray, names: list) -> pd.Categorical:
    """Categorical of names[codes]; names may repeat (two lanes that print alike share a category)."""
    cats, inverse = np.unique(np.array(names, dtype=object), return_inverse=True)
    return pd.Categorical.from_codes(inverse.astype(np.int64)[codes], categories=_object_index(cats))


def _object_index(values) -> pd.Index:
    """Categories as plain str in an object index, as model.conform keeps them (pandas 3 would infer
    its str dtype, and conform would then rebuild every categorical)."""
    return pd.Index([str(v) for v in values], dtype=object)
