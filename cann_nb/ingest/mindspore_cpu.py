"""MindSpore profiler folders recorded on the CPU -> Profile.

    prof = read_mindspore_cpu("DIR/host_1234_20261201150253561_ascend_ms")

What MindSpore 2.10 writes on a CPU (../shared/docs/frameworks-notes.md): a ``*_ascend_ms`` run folder
with ``FRAMEWORK/cpu_op_execute_timestamp_<dev>.txt``, one line per op::

    Default/0-Dense/MatMul-op0;HostCpuOps;1796137389859818192,8.77551,0 1796137389869636129,2.87391,0 ...

(name; kind; then ``start epoch ns,duration ms,thread`` records), ``cpu_op_detail_info_<dev>.csv``
(``full_op_name`` -> ``op_type``) and, after the offline analysis only, an Ascend-style
``ASCEND_PROFILER_OUTPUT/trace_view.json`` without device data. The timestamp file is the source here
(it exists with and without the analysis). Folders with device data (``PROF_*``, kernel_details, the
SQLite export) are Ascend runs and go to ``ingest/ascend``.

Mapping: cat ``op`` on ``host/thread T``, device ``cpu``; name the op type as MindSpore writes it
(``MatMul``, ``ReLU``, ``BiasAdd``); ``module`` the scope (Graph mode: ``Default/0-Dense``);
``full_name`` the name as written (PyNative: ``MatMul``, ``Default/BiasAdd-op0``; Graph:
``Default/0-Dense/MatMul-op0``). Input shapes are not taken: ``cpu_framework`` keys them by the short
op name, which several ops share.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import TraceFormatError
from ..model import Profile, categorical, conform, new_meta
from .nesting import nest

TIMESTAMPS = "cpu_op_execute_timestamp_*.txt"
_OP_SUFFIX = re.compile(r"-op\d+$")


def run_folder(path) -> Path | None:
    """The ``*_ascend_ms`` run folder at or directly under ``path`` that holds CPU op timestamps and no
    device data, or None (never raises)."""
    path = Path(path)
    try:
        if not path.is_dir():
            return None
        candidates = [path] if (path / "FRAMEWORK").is_dir() else sorted(path.glob("*_ascend_ms"))
        found = [c for c in candidates if any((c / "FRAMEWORK").glob(TIMESTAMPS)) and not _has_device_data(c)]
    except OSError:
        return None
    return found[-1] if len(found) == 1 or (found and path in found) else None


def _has_device_data(folder: Path) -> bool:
    out = folder / "ASCEND_PROFILER_OUTPUT"
    return (any(folder.glob("PROF_*")) or (out / "kernel_details.csv").is_file()
            or any(out.glob("ascend_mindspore_profiler*.db")))


def read_mindspore_cpu(path, *, t0_ns: int | None = None, name: str | None = None) -> Profile:
    folder = run_folder(path)
    if folder is None:
        raise TraceFormatError(path, expected=f"a MindSpore *_ascend_ms folder with FRAMEWORK/{TIMESTAMPS}")
    files = sorted((folder / "FRAMEWORK").glob(TIMESTAMPS))
    op_types = _op_types(folder)
    parts = [_read_timestamps(f) for f in files]
    full = np.concatenate([p[0] for p in parts])
    start = np.concatenate([p[1] for p in parts])
    dur = np.concatenate([p[2] for p in parts])
    tid = np.concatenate([p[3] for p in parts])
    if not len(start):
        raise TraceFormatError(files[0], "", "at least one op record", "the profile recorded no op")
    uniq, inv = np.unique(full, return_inverse=True)     # per distinct op, never per event
    op_name = np.array([op_types.get(u) or _OP_SUFFIX.sub("", u.rsplit("/", 1)[-1]) for u in uniq], dtype=object)
    scope = np.array([u.rsplit("/", 1)[0] if "/" in u else None for u in uniq], dtype=object)
    order = np.lexsort((-dur, start))
    full, start, dur, tid, inv = full[order], start[order], dur[order], tid[order], inv[order]
    t0 = int(start.min()) if t0_ns is None else int(t0_ns)
    tracks = np.array([f"host/thread {t}" for t in np.unique(tid)], dtype=object)[np.unique(tid, return_inverse=True)[1]]
    ids = np.arange(len(start), dtype=np.int64)
    parent, depth = nest(tracks, start - t0, dur, ids)
    events = conform("events", pd.DataFrame({
        "id": ids, "name": categorical(op_name[inv]), "cat": categorical("op", len(ids)),
        "track": categorical(tracks), "device": categorical("cpu", len(ids)), "start_ns": start - t0,
        "dur_ns": dur, "parent": parent, "depth": depth, "module": categorical(scope[inv]),
        "full_name": categorical(full),
    }))
    meta = new_meta(name or folder.name, source={"kind": "import", "path": str(Path(path)), "format": "mindspore-cpu",
                                                 "files": [str(f.relative_to(folder)) for f in files]},
                    t0_ns=t0, wall_ns=int((start + dur).max() - start.min()),
                    mindspore={"mode": "graph" if any("/" in u and "-op" in u for u in uniq) and
                               not any("/" not in u for u in uniq) else "pynative"})
    return Profile(events, None, None, meta).validate()


def _read_timestamps(path: Path):
    """(full names, start epoch ns, duration ns, thread) arrays of one timestamp file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeError) as exc:
        raise TraceFormatError(path, expected="a readable UTF-8 text file", detail=str(exc)) from None
    names, starts, durs, tids = [], [], [], []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split(";")
        if len(fields) != 3 or not fields[0]:
            raise TraceFormatError(path, f"line {lineno}", "NAME;KIND;START_NS,DUR_MS,THREAD ... records",
                                   f"found {line[:80]!r}")
        recs = fields[2].split()
        cells = np.array([r.split(",") for r in recs], dtype=object) if recs else np.empty((0, 3), object)
        if cells.ndim != 2 or cells.shape[1] != 3:
            raise TraceFormatError(path, f"line {lineno}", "records of three numbers START_NS,DUR_MS,THREAD",
                                   f"found {fields[2][:80]!r}")
        try:
            start = cells[:, 0].astype(np.int64)
            dur_ms = cells[:, 1].astype(np.float64)
            tid = cells[:, 2].astype(np.int64)
        except (ValueError, OverflowError) as exc:
            raise TraceFormatError(path, f"line {lineno}", "integer epoch ns, duration in ms, integer thread",
                                   str(exc)[:100]) from None
        if not (np.isfinite(dur_ms).all() and (dur_ms >= 0).all() and (dur_ms < 1e9).all() and (start >= 0).all()
                and (start < 2 ** 62).all()):
            raise TraceFormatError(path, f"line {lineno}", "non-negative finite times", f"found {fields[2][:80]!r}")
        names.append(np.full(len(start), fields[0], dtype=object))
        starts.append(start)
        durs.append(np.rint(dur_ms * 1e6).astype(np.int64))
        tids.append(tid)
    if not names:
        return (np.empty(0, object), np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.int64))
    return np.concatenate(names), np.concatenate(starts), np.concatenate(durs), np.concatenate(tids)


def _op_types(folder: Path) -> dict:
    """full_op_name -> op_type from cpu_op_detail_info (absent or unreadable: names are parsed instead)."""
    out = {}
    for f in sorted((folder / "FRAMEWORK").glob("cpu_op_detail_info_*.csv")):
        try:
            with open(f, newline="", encoding="utf-8") as fh:
                for row in csv.DictReader(fh):
                    full, kind = row.get("full_op_name"), row.get("op_type")
                    if full and kind:
                        out[full] = kind
        except (OSError, UnicodeError, csv.Error):
            continue
    return out
