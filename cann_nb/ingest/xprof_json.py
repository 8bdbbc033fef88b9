"""XProf's trace-viewer JSON (``*.trace.json.gz``, written by the TensorBoard profile plugin / xprof from an
XSpace) -> Profile, with the same mapping as ``xprof.read_xplane``.

The file is a Chrome trace, but ``read_kineto`` would lose what carries XProf's meaning: process names
are planes (``/host:CPU``, ``/device:GPU:0``), thread names are lines (``tf_Compute/…``, ``Stream #7``),
and an event with a display name is written with that name plus ``args.long_name`` (``node:OpType``).
Here each (pid, tid) becomes a line and names are classified once per distinct (name, long_name).
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np

from ..errors import TraceFormatError
from .xprof import _assemble, _classify, _default_name, _device_of, _line_kind

_SNIFF = re.compile(rb'"process_name"[^}]{0,80}"name"\s*:\s*"/(host|device):')


def looks_like_xprof_json(path: Path) -> bool:
    """A Chrome trace whose processes are XProf planes (reads at most 64 KiB; never raises)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(2)
        opener = gzip.open if head == b"\x1f\x8b" else open
        with opener(path, "rb") as fh:
            return bool(_SNIFF.search(fh.read(65536)))
    except (OSError, EOFError, ValueError):
        return False


def read_xprof_json(source, *, t0_ns: int | None = None, name: str | None = None):
    label = str(source)
    doc = _load(Path(source))
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        raise TraceFormatError(label, "traceEvents", "a list of trace events")
    procs, threads, rows = {}, {}, []
    for i, ev in enumerate(events):
        if not isinstance(ev, dict) or not ev:
            continue
        ph, pid, tid = ev.get("ph"), ev.get("pid"), ev.get("tid")
        args = ev.get("args") if isinstance(ev.get("args"), dict) else {}
        if ph == "M":
            if ev.get("name") == "process_name":
                procs[pid] = str(args.get("name", pid))
            elif ev.get("name") == "thread_name":
                threads[(pid, tid)] = str(args.get("name", tid))
        elif ph == "X":
            ts, dur = ev.get("ts"), ev.get("dur", 0)
            if not _number(ts) or not _number(dur) or dur < 0 or abs(ts) > 9e12:
                raise TraceFormatError(label, f"traceEvents[{i}]", "numeric ts and non-negative dur in µs",
                                       f"found ts={ts!r}, dur={dur!r}"[:120])
            long_name = args.get("long_name")
            rows.append((pid, tid, str(ev.get("name", "")), str(long_name) if long_name else "",
                         int(round(ts * 1000)), int(round(dur * 1000)), _int(args.get("step_num")),
                         _int(args.get("correlation_id"))))
    if not rows:
        raise TraceFormatError(label, "traceEvents", "at least one complete ('X') event", "none found")
    pid, tid, nm, long_nm, start, dur, step, corr = (np.array(c, dtype=object) for c in zip(*rows))
    start, dur = start.astype(np.int64), dur.astype(np.int64)
    step, corr = step.astype(np.int64), corr.astype(np.int64)
    # XSpace's (name, display_name): an event with a long_name was written under its display name
    full = np.where(long_nm != "", long_nm, nm)
    display = np.where(long_nm != "", nm, "")
    pairs, inv = np.unique(np.stack([full, display]).astype(str), axis=1, return_inverse=True)
    inv = inv.ravel()
    frames = []
    for p in dict.fromkeys(pid.tolist()):
        plane = procs.get(p, str(p))
        device = _device_of(plane)
        host = device == "cpu"
        in_plane = pid == p
        lines = dict.fromkeys(tid[in_plane].tolist())
        has_streams = any(threads.get((p, t), "").startswith("Stream #") for t in lines)
        parts = []
        for t in lines:
            sel = in_plane & (tid == t)
            line = threads.get((p, t), str(t))
            parts.append(dict(meta_idx=inv[sel], start=start[sel], dur=dur[sel], step=step[sel], corr=corr[sel],
                              kind=_line_kind(line, host, has_streams),
                              track=f"host/{line}" if host else f"{device}/{line}"))
        cols = _classify(parts, pairs[0].astype(object), pairs[1].astype(object), host)
        keep = ~cols.pop("skip")
        cols = {k: v[keep] for k, v in cols.items()}
        cols["device"] = device
        frames.append(cols)
    profile = _assemble(frames, label, t0_ns, name or _default_name(label).split(".trace.json")[0])
    profile.meta["source"]["format"] = "xprof-trace-json"
    return profile.validate()


def _load(path: Path):
    import orjson

    try:
        raw = path.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
    except (OSError, EOFError, ValueError) as exc:
        raise TraceFormatError(path, "", "a readable (gzipped) JSON file", str(exc)[:120]) from None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise TraceFormatError(path, f"byte {getattr(exc, 'pos', '?')}", "a JSON document", str(exc)[:120]) from None


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and abs(v) != float("inf")


def _int(v) -> int:
    try:
        out = int(v)
    except (TypeError, ValueError, OverflowError):
        return -1
    return out if -2 ** 63 <= out < 2 ** 63 else -1
