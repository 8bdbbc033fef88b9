"""What a report says about a run, as plain data (no HTML): what ran, when, where, with what, and how
much of the profile the page shows. sections.py renders it; tests read it directly.

Everything here tolerates any metadata: imported profiles carry whatever their source had (strings where
collected profiles have dicts, missing keys, nested vendor blobs), so nothing is assumed beyond "a dict".
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import formatting as F
from ..model import budget_note, left_out

CELL_PREVIEW_LINES = 40


def _d(x) -> dict:
    return x if isinstance(x, dict) else {}


def _s(x) -> str:
    return "" if x is None else str(x)


def what(profile) -> dict:
    """The subject: name, status, and the source (cell code, script and argv, imported path and format)."""
    meta = profile.meta
    src = _d(meta.get("source"))
    kind = _s(src.get("kind")) or ("import" if src.get("path") and src.get("format") else "")
    out = {"name": _s(profile.name) or "profile", "status": _s(profile.status), "error": _s(meta.get("error")),
           "kind": kind, "items": []}
    items = out["items"]
    if kind == "cell":
        items.append(("cell", f"In [{src.get('execution_count')}]" if src.get("execution_count") is not None else ""))
        code = _s(src.get("cell"))
        lines = code.splitlines()
        out["code"] = "\n".join(lines[:CELL_PREVIEW_LINES]) + (
            f"\n… ({len(lines) - CELL_PREVIEW_LINES} more lines)" if len(lines) > CELL_PREVIEW_LINES else "")
    elif kind in ("script", "api"):
        items.append((kind, _s(src.get("path"))))
        if src.get("argv"):
            items.append(("arguments", " ".join(_s(a) for a in src["argv"])))
        if src.get("mode"):
            items.append(("mode", _s(src["mode"])))
    elif src.get("path"):
        items.append(("imported from", _s(src.get("path"))))
        if src.get("format"):
            items.append(("format", _s(src["format"])))
    # the loop's counts live in meta.options; profiles stored by earlier versions have them in source only
    opts = _d(meta.get("options"))
    repeat, warmup = opts.get("repeat", src.get("repeat")), opts.get("warmup", src.get("warmup"))
    if isinstance(repeat, int) and repeat > 1:
        items.append(("repeat", f"{repeat} runs (one step each)"))
    if isinstance(warmup, int) and warmup > 0:
        items.append(("warm-up", f"{warmup} runs, not profiled"))
    sweep = _d(src.get("sweep"))
    if sweep.get("variables"):
        items.append(("sweep point", ", ".join(f"{k}={v}" for k, v in _d(sweep["variables"]).items())))
    return out


def when(profile) -> list[tuple[str, str]]:
    """When it was recorded (an import's ``created`` is the import; its clock origin is the recording)."""
    meta = profile.meta
    t0 = meta.get("t0_ns")
    t0_text = ""
    if isinstance(t0, (int, np.integer)) and t0 > 10**17:  # an epoch instant, not a relative origin
        t0_text = pd.Timestamp(int(t0), unit="ns", tz="UTC").isoformat(timespec="seconds")
    if what(profile)["kind"] == "import":
        items = [("recorded", t0_text), ("imported", _s(meta.get("created")))]
    else:
        items = [("recorded", _s(meta.get("created"))), ("clock origin (t0)", t0_text)]
    items.append(("end-to-end", F.ns(profile.wall_ns)))
    if meta.get("stored_at"):
        items.append(("stored at", _s(meta["stored_at"])))
    return [(k, v) for k, v in items if v]


def where(profile) -> list[tuple[str, str]]:
    """Host, devices, versions (python, torch, cann_nb and other packages)."""
    meta = profile.meta
    env = _d(meta.get("environment"))
    items = []
    host = _s(env.get("hostname"))
    if env.get("pid"):
        host += f" (pid {env['pid']})" if host else f"pid {env['pid']}"
    items.append(("host", host))
    items.append(("platform", _s(env.get("platform"))))
    cpu = _s(env.get("cpu_model"))
    if env.get("cpu_count"):
        cpu += f", {env['cpu_count']} cores" if cpu else f"{env['cpu_count']} cores"
    items.append(("cpu", cpu))
    if isinstance(env.get("memory_total_bytes"), (int, float)):
        items.append(("memory", F.nbytes(env["memory_total_bytes"])))
    devices = meta.get("devices")
    if isinstance(devices, list) and devices:
        items.append(("devices", "; ".join(_device_text(d) for d in devices[:16])
                      + (f" … ({len(devices)} in all)" if len(devices) > 16 else "")))
    else:
        used = sorted({str(d) for d in profile.events["device"].dropna().unique()} - {"nan"}) if len(profile.events) else []
        items.append(("devices", ", ".join(used) or "host only"))
    rank = meta.get("rank", _d(meta.get("distributed")).get("rank"))
    if rank is not None:
        world = meta.get("world_size")
        items.append(("rank", f"{rank}" + (f" of {world}" if world else "")))
    versions = []
    if env.get("python"):
        versions.append(f"python {env['python']}")
    for pkg, ver in _d(env.get("packages")).items():
        versions.append(f"{pkg} {ver}")
    items.append(("versions", ", ".join(versions)))
    return [(k, v) for k, v in items if v]


def _device_text(d) -> str:
    if not isinstance(d, dict):
        return _s(d)
    name = _s(d.get("device") or d.get("name") or d.get("id"))
    rest = [f"{k}={v}" for k, v in d.items() if k not in ("device",) and not isinstance(v, (dict, list))][:4]
    return name + (f" ({', '.join(rest)})" if rest else "")


def collectors(profile) -> list[dict]:
    """One row per collector: name, status, reason, its options; strings as given by importers."""
    out = []
    for name, c in _d(profile.meta.get("collectors")).items():
        if isinstance(c, dict):
            opts = c.get("options") if isinstance(c.get("options"), dict) else {}
            out.append({"name": _s(name), "status": _s(c.get("status")), "reason": _s(c.get("reason")),
                        "options": ", ".join(f"{k}={v}" for k, v in opts.items())})
        else:
            out.append({"name": _s(name), "status": _s(c), "reason": "", "options": ""})
    return out


def options(profile) -> list[tuple[str, str]]:
    """The collection options, flat (nested option blocks as key=value lists)."""
    out = []
    for k, v in _d(profile.meta.get("options")).items():
        if isinstance(v, dict):
            v = ", ".join(f"{kk}={_short(vv)}" for kk, vv in v.items())
        out.append((_s(k), _short(v)))
    return out


def scalar_options(profile) -> list[tuple[str, str]]:
    """The options that are single values (nested option blocks are in the run details)."""
    return [(_s(k), _short(v, 80)) for k, v in _d(profile.meta.get("options")).items()
            if not isinstance(v, (dict, list, tuple))]


def _short(v, limit: int = 300) -> str:
    s = ", ".join(_s(x) for x in v) if isinstance(v, (list, tuple)) else _s(v)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def display_notes(profile, state: dict, baseline_state: dict | None = None) -> list[str]:
    """What the page shows of the profile, in words: events left out, series and tables cut, merging."""
    notes = []
    tl = state.get("timeline") or {}
    n_total, hidden = int(tl.get("n_total", len(profile.events)) or 0), int(tl.get("hidden", 0) or 0)
    if hidden:
        notes.append(f"The timeline holds {n_total - hidden:,} of {n_total:,} events: the {hidden:,} shortest "
                     f"(under {F.ns(tl.get('hidden_below_ns', 0))}) were left out to keep the file small. "
                     "The tables, findings and charts are computed from all events.")
    elif n_total:
        notes.append(f"The timeline holds all {n_total:,} events.")
    if n_total:
        notes.append("At any zoom level, events narrower than 2 pixels are merged into one lighter bar; "
                     "zoom in to see them individually (the timeline's status line counts the bars drawn).")
    cut = [f"{s.get('group')} {s.get('label')} ({s.get('n_raw'):,} samples)" for s in tl.get("counters") or []
           if (s.get("n_raw") or 0) > 20_000]
    if cut:
        notes.append("Counter lanes thinned to at most 20,000 points each, keeping each bucket's minimum and "
                     "maximum so peaks survive: " + "; ".join(cut) + ".")
    for by, t in (state.get("tables") or {}).items():
        shipped = len(next(iter((t.get("data") or {}).values()), []))
        if t.get("total_rows", 0) > shipped:
            notes.append(f"Hotspots by {by}: the {shipped:,} rows with the most self time of {t['total_rows']:,}.")
    if baseline_state is not None and baseline_state.get("hidden"):
        b = baseline_state
        notes.append(f"The baseline's timeline holds {b['n'] :,} of {b['n_total']:,} events (shortest left out).")
    dropped, skipped = left_out(profile.meta)
    if budget_note(profile.meta):
        notes.append("Truncated while collecting: " + budget_note(profile.meta) + ".")
    if dropped:
        notes.append("Not in the profile at all (dropped while collecting: the buffer was full): "
                     + ", ".join(f"{k} {int(v):,}" for k, v in dropped.items()) + ".")
    if skipped:
        notes.append("Not imported, on purpose (import options, or sub-tasks an operator's span covers): "
                     + ", ".join(f"{k} {int(v):,}" for k, v in skipped.items()) + ".")
    return notes


def peak_rows(peaks: dict) -> list[tuple[str, str]]:
    return [(str(dev), F.nbytes(b)) for dev, b in peaks.items()
            if isinstance(b, (int, float, np.integer, np.floating)) and math.isfinite(float(b))]
