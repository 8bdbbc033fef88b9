"""communication.json / communication_matrix.json (and analysis.db's CommAnalyzer* tables) -> summaries.

These are per-operator aggregates computed by the profiler (formats.md §3.8), not spans: they go to
``meta["ascend"]["communication"]`` as records, keeping the file's units in the key names
(``elapse_time_ms``, ``transit_size_mb``, ``bandwidth_gbps``) rather than converting on a guess.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from ...errors import TraceFormatError
from .units import snake


def load_json(path: Path):
    try:
        return orjson.loads(Path(path).read_bytes())
    except OSError as exc:
        raise TraceFormatError(path, "", "a readable JSON file", str(exc)) from exc
    except orjson.JSONDecodeError as exc:
        raise TraceFormatError(path, f"char {exc.pos}", "valid JSON", exc.msg) from exc


def _items(obj):
    return obj.items() if isinstance(obj, dict) else ()


def _split(op: str) -> tuple[str, str | None]:
    name, _, group = op.partition("@")
    return name, (group or None)


def read_communication(path: Path) -> list[dict]:
    """communication.json -> one record per (step, p2p|collective, operator)."""
    doc = load_json(path)
    if not isinstance(doc, dict):
        raise TraceFormatError(path, "top level", "a JSON object keyed by step", f"got {type(doc).__name__}")
    out = []
    for step, kinds in _items(doc):
        for kind, ops in _items(kinds):
            for op, rec in _items(ops):
                if not isinstance(rec, dict):
                    continue
                name, group = _split(op)
                r = {"step": step, "type": kind, "op": name, "group": group}
                if name == "Total Op Info":  # the profiler's own per-step total, not an operator
                    r["op"] = None
                    r["total"] = True
                for k, v in _items(rec.get("Communication Time Info")):
                    r[snake(k)] = v
                bw = {}
                for transport, info in _items(rec.get("Communication Bandwidth Info")):
                    bw[transport] = {snake(k): v for k, v in _items(info) if k != "Size Distribution"}
                if bw:
                    r["bandwidth"] = bw
                out.append(r)
    return out


def read_matrix(path: Path) -> list[dict]:
    """communication_matrix.json -> one record per (step, operator group, src-dst link)."""
    doc = load_json(path)
    if not isinstance(doc, dict):
        raise TraceFormatError(path, "top level", "a JSON object keyed by step", f"got {type(doc).__name__}")
    out = []
    for step, kinds in _items(doc):
        for kind, ops in _items(kinds):
            for op, links in _items(ops):
                name, group = _split(op)
                for link, info in _items(links):
                    src, _, dst = str(link).partition("-")
                    r = {"step": step, "type": kind, "op": name, "group": group, "src_rank": src, "dst_rank": dst}
                    r.update({snake(k): v for k, v in _items(info)})
                    out.append(r)
    return out


def summarise(ops: list[dict]) -> dict:
    """Totals over operators (ms, as in the file): count, elapse, transit, wait, synchronization, idle."""
    ops = [r for r in ops if not r.get("total")]
    tot = {"count": len(ops)}
    for key in ("elapse_time_ms", "transit_time_ms", "wait_time_ms", "synchronization_time_ms", "idle_time_ms"):
        vals = [r[key] for r in ops if isinstance(r.get(key), (int, float))]
        tot[key] = float(sum(vals)) if vals else None
    return tot
