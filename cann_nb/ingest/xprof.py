"""XProf (TensorFlow / JAX profiler) ``*.xplane.pb`` -> Profile.

    prof = read_xplane("logdir/plugins/profile/2026_12_01_15_01_59/host.xplane.pb")

An XSpace holds planes (``/host:CPU``, ``/device:GPU:0``, ``/device:TPU:0``, ``Task Environment``),
planes hold lines (threads, streams, derived lines such as ``XLA Ops``), lines hold events whose name
lives in the plane's event metadata. Times: ``line.timestamp_ns + offset_ps / 1000``, relative to the
``Task Environment``'s ``profile_start_time`` (epoch ns) when the plane was normalised (TensorFlow does
this), absolute epoch ns otherwise.

Mapping (DESIGN.md "Frameworks": op names as the framework writes them):

* Host graph ops ``scope/node:OpType`` (event metadata ``display_name`` = OpType): cat ``op``, name the
  op type (``MatMul``, ``_MklNativeFusedMatMul``, ``BiasAdd``), ``module`` the node path
  (``sequential/dense/Relu``, the layer), ``full_name`` as written.
* Eager ops ``EagerLocalExecute: MatMul`` (``model(x)`` outside a tf.function): cat ``op``, name
  ``MatMul``. Events with a ``step_num`` stat (``tf.profiler.experimental.Trace(..., step_num=N)``):
  cat ``step`` on ``host/steps``. Other host events: ``runtime`` for the framework's C++ internals
  (``ExecutorState::Process``, ``EagerExecute``, CUDA calls), ``annotation`` for the rest (tf.data
  iterators, ``tf.function`` calls, user TraceMe). ``ThreadpoolListener::*`` flow markers (0 ns) are
  skipped and counted in ``meta["skipped"]``.
* Device planes: ``Stream #N`` lines are the device's own tasks (``kernel``/``memcpy``/``memset``/
  ``comm`` by name); ``XLA Ops`` is the task line only where a plane has no streams (TPU), otherwise
  derived lines (``XLA Ops``, ``XLA Modules``, ``TensorFlow Ops``, name scopes) are ``annotation``;
  ``Steps`` lines are ``step``. ``corr`` is the ``correlation_id`` stat (CUPTI), on both sides.

Extra event columns: ``full_name`` (as written), ``step`` (the step_num stat, -1 none).
Malformed input raises TraceFormatError naming the file, the place and what was expected.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import TraceFormatError
from ..model import Profile, categorical, conform, new_meta
from .comm_markers import is_device_comm_name
from .nesting import nest

SUFFIX = ".xplane.pb"
_DEVICE_PLANE = re.compile(r"^/device:([A-Za-z_]+):(\d+)")
_DEVICE_PREFIX = {"GPU": "cuda", "TPU": "tpu", "CPU": "cpu"}
_RUNTIME = re.compile(r"::|^Eager|^TFE_|^(cu|cuda|hip)[A-Z]|^ExecutorDoneCallback$|^FunctionRun$")
_SKIPPED = re.compile(r"^ThreadpoolListener::")
_MEMCPY = re.compile(r"memcpy|MemcpyH2D|MemcpyD2H|MemcpyD2D|MemcpyP2P", re.I)
_MEMSET = re.compile(r"memset", re.I)
_DERIVED = re.compile(r"^(XLA Modules|XLA Ops|XLA TraceMe|TensorFlow Ops|TensorFlow Name Scope|Framework Ops|"
                      r"Framework Name Scope|Source code|Launch Stats|Async XLA Ops)", re.I)


def find_xplanes(folder: Path) -> list[Path]:
    """``*.xplane.pb`` files under a TensorBoard logdir or a profile run folder, newest run last."""
    return sorted(folder.rglob(f"*{SUFFIX}"), key=lambda p: (p.parent.name, p.name))


def read_xplane(source, *, t0_ns: int | None = None, name: str | None = None) -> Profile:
    """A Profile from an XSpace: a ``*.xplane.pb`` path (optionally gzipped), a folder holding exactly one
    (a logdir or ``plugins/profile/RUN``), or its bytes. ``t0_ns`` (epoch ns): the instant times are made
    relative to; by default the earliest event."""
    label, data = _read_bytes(source)
    space = _parse(data, label)
    start_ns = _profile_start(space)
    frames, skipped, devices = [], 0, []
    for plane in space.planes:
        if not len(plane.lines):
            continue
        cols, n_skipped = _plane(plane, label, start_ns)
        skipped += n_skipped
        if cols is not None:
            frames.append(cols)
            if cols["device"] != "cpu":
                devices.append({"device": cols["device"], "name": plane.name})
    profile = _assemble(frames, label, t0_ns, name or _default_name(label))
    profile.meta.update(devices=devices, skipped={"xprof_flow_markers": skipped} if skipped else {},
                        xprof={"hostnames": list(space.hostnames), "errors": list(space.errors)[:20],
                               "warnings": list(space.warnings)[:20], "profile_start_ns": start_ns,
                               "planes": [p.name for p in space.planes]})
    return profile.validate()


# -- bytes -> XSpace --------------------------------------------------------------------------------
def _read_bytes(source) -> tuple[str, bytes]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return "<bytes>", bytes(source)
    path = Path(source)
    if path.is_dir():
        files = find_xplanes(path)
        if len(files) != 1:
            raise TraceFormatError(path, expected=f"one *{SUFFIX} file (an XProf run folder)",
                                   detail="found none" if not files else f"found {len(files)}: give one of them")
        path = files[0]
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TraceFormatError(path, expected="a readable file", detail=str(exc)) from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, ValueError) as exc:
            raise TraceFormatError(path, "gzip stream", "a complete gzip file", str(exc)) from None
    return str(path), data


def _parse(data: bytes, label: str):
    try:
        from .xplane_schema import messages
    except ImportError as exc:  # pragma: no cover - protobuf is a dependency
        raise TraceFormatError(label, expected="the protobuf package to read XProf files (pip install protobuf)",
                               detail=str(exc)) from None
    from google.protobuf.message import DecodeError

    space = messages()["XSpace"]()
    try:
        space.ParseFromString(data)
    except (DecodeError, ValueError, RuntimeError) as exc:
        raise TraceFormatError(label, "XSpace message", "a serialized tensorflow.profiler.XSpace protobuf",
                               str(exc)[:200]) from None
    if not len(space.planes):
        raise TraceFormatError(label, "XSpace.planes", "at least one XPlane",
                               "empty file" if not data else "no planes: not an XProf profile")
    return space


def _profile_start(space) -> int | None:
    for plane in space.planes:
        if plane.name != "Task Environment":
            continue
        names = {e.key: e.value.name for e in plane.stat_metadata}
        for st in plane.stats:
            if names.get(st.metadata_id) == "profile_start_time":
                value = getattr(st, st.WhichOneof("value") or "uint64_value")
                return int(value) if isinstance(value, (int, float)) and 0 < value < 2 ** 62 else None
    return None


# -- one plane -> columns ---------------------------------------------------------------------------
def _plane(plane, label: str, start_ns: int | None):
    device = _device_of(plane.name)
    host = device == "cpu"
    keys, names, displays = _metadata(plane, label)
    stat_ids = {e.value.name: e.key for e in plane.stat_metadata}
    want = {stat_ids.get("step_num"): "step", stat_ids.get("correlation_id"): "corr"}
    want.pop(None, None)
    has_streams = any(line.name.startswith("Stream #") for line in plane.lines)
    parts, skipped = [], 0
    for li, line in enumerate(plane.lines):
        events = line.events
        n = len(events)
        if not n:
            continue
        where = f"plane {plane.name!r} line {line.name!r}"
        mid = np.fromiter((e.metadata_id for e in events), np.int64, n)
        off = np.fromiter((e.offset_ps for e in events), np.int64, n)
        dur = np.fromiter((e.duration_ps for e in events), np.int64, n)
        step = np.full(n, -1, np.int64)
        corr = np.full(n, -1, np.int64)
        if want:
            out = {"step": step, "corr": corr}
            for i, e in enumerate(events):
                if len(e.stats):   # few events carry the stats we read
                    for st in e.stats:
                        col = want.get(st.metadata_id)
                        if col is not None:
                            v = getattr(st, st.WhichOneof("value") or "int64_value")
                            if isinstance(v, int) and -2 ** 63 <= v < 2 ** 63:
                                out[col][i] = v
        idx = np.searchsorted(keys, mid)
        idx = np.minimum(idx, max(len(keys) - 1, 0))
        bad = (keys[idx] != mid) if len(keys) else np.ones(n, bool)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise TraceFormatError(label, f"{where} event {i}", "a metadata_id listed in the plane's event_metadata",
                                   f"found {int(mid[i])}")
        if (off < 0).any() or (dur < 0).any():
            i = int(np.flatnonzero((off < 0) | (dur < 0))[0])
            raise TraceFormatError(label, f"{where} event {i}", "non-negative offset_ps and duration_ps",
                                   f"found {int(off[i])}, {int(dur[i])}")
        base = int(line.timestamp_ns)
        if start_ns is not None and abs(base) < 10 ** 17:   # normalised to the profile start
            base += start_ns
        if not -2 ** 62 < base < 2 ** 62:
            raise TraceFormatError(label, f"{where} timestamp_ns", "an int64 time in ns", f"found {base}")
        start = base + (off + 500) // 1000
        duration = (dur + 500) // 1000
        line_name = line.display_name or line.name or str(line.id)
        kind = _line_kind(line.name, host, has_streams)
        parts.append(dict(meta_idx=idx, start=start, dur=duration, step=step, corr=corr, kind=kind,
                          track=f"host/{line_name}" if host else f"{device}/{line_name}"))
    if not parts:
        return None, 0
    cols = _classify(parts, names, displays, host)
    keep = ~cols.pop("skip")
    skipped = int((~keep).sum())
    cols = {k: v[keep] for k, v in cols.items()}
    cols["device"] = device
    return cols, skipped


def _metadata(plane, label: str):
    keys = np.fromiter((e.key for e in plane.event_metadata), np.int64, len(plane.event_metadata))
    names = np.array([e.value.name for e in plane.event_metadata], dtype=object)
    displays = np.array([e.value.display_name for e in plane.event_metadata], dtype=object)
    order = np.argsort(keys, kind="stable")
    return keys[order], names[order], displays[order]


def _device_of(plane_name: str) -> str:
    m = _DEVICE_PLANE.match(plane_name)
    if not m:
        return "cpu"
    kind, index = m.group(1).upper(), m.group(2)
    return "cpu" if kind == "CPU" else f"{_DEVICE_PREFIX.get(kind, kind.lower())}:{index}"


def _line_kind(name: str, host: bool, has_streams: bool) -> str:
    """What a line's events are: host (classified per name), task (device work), step or annotation."""
    if host:
        return "host"
    if name.lower() == "steps":
        return "step"
    if name.startswith("Stream #") or (name.startswith("XLA Ops") and not has_streams):
        return "task"
    return "annotation" if _DERIVED.match(name) or has_streams else "task"


def _classify(parts: list, names: np.ndarray, displays: np.ndarray, host: bool) -> dict:
    """Per distinct event metadata (never per event): output name, category, node path."""
    out_name = names.copy()
    module = np.full(len(names), None, dtype=object)
    cat = np.full(len(names), "annotation", dtype=object)
    skip = np.zeros(len(names), bool)
    task_cat = np.full(len(names), "kernel", dtype=object)
    for i, (nm, disp) in enumerate(zip(names, displays)):
        if nm.startswith("EagerLocalExecute: "):   # a tf.function call (__inference_*) is no op
            out_name[i] = nm[len("EagerLocalExecute: "):]
            cat[i] = "annotation" if out_name[i].startswith("__") else "op"
        elif disp and nm.endswith(":" + disp) and not nm.startswith("Iterator::"):
            out_name[i], cat[i], module[i] = disp, "op", nm[: -len(disp) - 1] or None
        else:
            out_name[i] = disp or nm
            cat[i] = "runtime" if _RUNTIME.search(nm) and not nm.startswith("Iterator::") else "annotation"
        skip[i] = bool(_SKIPPED.match(nm))
        task_cat[i] = ("comm" if is_device_comm_name(nm) else "memcpy" if _MEMCPY.search(nm)
                       else "memset" if _MEMSET.search(nm) else "kernel")
    cols: dict = {k: [] for k in ("name", "full_name", "module", "cat", "track", "start_ns", "dur_ns",
                                  "corr", "step", "skip")}
    for p in parts:
        idx, n = p["meta_idx"], len(p["meta_idx"])
        kind = p["kind"]
        c = (cat[idx] if kind == "host" else task_cat[idx] if kind == "task"
             else np.full(n, kind, dtype=object))
        c = np.where(p["step"] >= 0, "step", c)
        cols["name"].append(out_name[idx])
        cols["full_name"].append(names[idx])
        cols["module"].append(module[idx])
        cols["cat"].append(c)
        cols["track"].append(np.where(c == "step", "host/steps" if host else p["track"].split("/")[0] + "/steps",
                                      p["track"]).astype(object))
        cols["start_ns"].append(p["start"])
        cols["dur_ns"].append(p["dur"])
        cols["corr"].append(p["corr"])
        cols["step"].append(p["step"])
        cols["skip"].append(skip[idx] if kind == "host" else np.zeros(n, bool))
    return {k: np.concatenate(v) for k, v in cols.items()}


# -- planes -> Profile ------------------------------------------------------------------------------
def _assemble(frames: list, label: str, t0_ns, name: str) -> Profile:
    if not frames or not sum(len(f["start_ns"]) for f in frames):
        raise TraceFormatError(label, "XSpace.planes[*].lines[*].events", "at least one timed event",
                               "the profile recorded nothing")
    start = np.concatenate([f["start_ns"] for f in frames])
    t0 = int(start.min()) if t0_ns is None else int(t0_ns)
    device = np.concatenate([np.full(len(f["start_ns"]), f["device"], dtype=object) for f in frames])
    cols = {k: np.concatenate([f[k] for f in frames]) for k in frames[0] if k != "device"}
    order = np.lexsort((-cols["dur_ns"], cols["start_ns"]))   # time order, parents before children
    cols = {k: v[order] for k, v in cols.items()}
    device = device[order]
    n = len(order)
    ids = np.arange(n, dtype=np.int64)
    rel = cols["start_ns"] - t0
    parent, depth = nest(cols["track"], rel, cols["dur_ns"], ids)
    events = conform("events", pd.DataFrame({
        "id": ids, "name": categorical(cols["name"]), "cat": categorical(cols["cat"]),
        "track": categorical(cols["track"]), "device": categorical(device), "start_ns": rel,
        "dur_ns": cols["dur_ns"], "parent": parent, "depth": depth, "corr": cols["corr"],
        "module": categorical(cols["module"]), "full_name": categorical(cols["full_name"]), "step": cols["step"],
    }))
    meta = new_meta(name, source={"kind": "import", "path": label, "format": "xprof"}, t0_ns=t0,
                    wall_ns=int((cols["start_ns"] + cols["dur_ns"]).max() - cols["start_ns"].min()))
    return Profile(events, None, None, meta)


def _default_name(label: str) -> str:
    name = Path(label).name
    return name[: -len(SUFFIX)] if name.endswith(SUFFIX) else name or "xprof"
