"""One monitoring window -> one compact Profile plus its summary (``meta["monitor"]``).

The window's profile has
  counters  the host sampler (and custom metrics) over the whole window, plus one row per summary
            statistic at the window's end, source ``monitor``: ``latency_p50`` / ``latency_p90`` /
            ``latency_p99`` / ``latency_max`` / ``latency_mean`` (ns), ``calls``, ``errors``,
            ``profiled_calls`` - so ``check --metric latency_p99`` and the charts read them like any counter;
  events    the burst's op events (only those of its first ``keep_calls`` profiled calls, at most
            ``max_events``: the rest is summarised in ``top_ops``, and the count of events left out is
            ``meta.monitor.compacted_events``, distinct from ``meta.dropped``, which counts buffer losses)
            and one ``annotation`` event per profiled call, on track ``monitor/calls``;
  memory    the burst's allocation events, if its options record them;
  meta      ``monitor``: the summary below; ``collectors``/``dropped`` of the host and burst sessions.

Summary keys: monitor, seq, window_start_ns, window_end_ns (epoch), duration_ns, partial, calls,
errors, profiled_calls, profiled_errors (of errors), latency_ns {n, p50, p90, p99, max, mean}, latency_hist (histogram.py),
profiled_latency_ns {n, p50}, peak_memory_bytes {device: bytes}, top_ops [{name, cat, share_pct,
self_ns, count}], compacted_events, dropped, bursts_skipped, anomalies, baseline, build_s.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..model import Profile, concat
from . import histogram

SOURCE = "monitor"
TOP_OPS = 20
OP_CATS = ("op", "kernel", "python", "comm", "memcpy", "memset")


def latency_stats(durations) -> dict:
    d = np.asarray(durations, dtype=np.float64)
    if not len(d):
        return {"n": 0}
    p50, p90, p99 = np.percentile(d, [50, 90, 99])
    return {"n": int(len(d)), "p50": float(p50), "p90": float(p90), "p99": float(p99), "max": float(d.max()),
            "mean": float(d.mean())}


def _shift(df: pd.DataFrame, col: str, by: int) -> pd.DataFrame:
    if df is None or not len(df) or not by:
        return df
    df = df.copy()
    df[col] = df[col].to_numpy() + np.int64(by)
    return df


def top_ops(frames, k: int = TOP_OPS) -> list[dict]:
    """Ops by self time over the bursts' events (each frame nests on its own ids), shares of op time.
    One grouping over plain arrays: this runs once a window, on the monitor's thread."""
    from ..analyze.hotspots import self_time

    names, cats, selfs = [], [], []
    for ev in frames:
        if not len(ev):
            continue
        ops = ev[ev["cat"].isin(OP_CATS).to_numpy()]
        if len(ops):
            names.append(_labels(ops["name"]))
            cats.append(_labels(ops["cat"]))
            selfs.append(self_time(ops))
    if not names:
        return []
    hs = pd.DataFrame({"name": np.concatenate(names), "cat": np.concatenate(cats), "self_ns": np.concatenate(selfs)})
    hs = hs.groupby(["name", "cat"], sort=False)["self_ns"].agg(["sum", "count"]).reset_index()
    total = float(hs["sum"].sum())
    hs = hs.sort_values("sum", ascending=False, kind="stable").head(k)
    return [{"name": str(n), "cat": str(c), "share_pct": round(100.0 * float(t) / total, 3) if total else 0.0,
             "self_ns": int(t), "count": int(m)} for n, c, t, m in hs[["name", "cat", "sum", "count"]].itertuples(index=False)]


def _labels(col: pd.Series) -> np.ndarray:
    """A categorical column's values as an object array of strings (missing: "")."""
    cats = np.append(np.asarray(col.cat.categories, dtype=object).astype(str), "")
    return cats[col.cat.codes.to_numpy()]


def build(*, monitor: str, seq: int, host: Profile | None, bursts: list, prof_calls: list, t0_ns: int,
          end_ns: int, lat, err, perf_to_epoch_ns: int, keep_calls: int, max_events: int, partial: bool,
          skipped: int) -> tuple[Profile, dict]:
    """``bursts``: [(Profile or None, events dropped)] of the window's bursts; ``prof_calls``: (start perf
    ns, duration, raised) of the calls made while they recorded; ``lat``/``err``: durations of the other
    calls, that returned / raised. ``perf_to_epoch_ns``: time_ns - perf_counter_ns."""
    events, memory, counters, dropped, collectors = [], [], [], {}, {}
    if host is not None:
        counters.append(_shift(host.counters, "ts_ns", host.meta.get("t0_ns", t0_ns) - t0_ns))
        dropped.update(host.meta.get("dropped") or {})
        collectors.update(host.meta.get("collectors") or {})
    prof_durs = [d for _, d, _ in prof_calls]
    n_prof_errors = sum(1 for *_, r in prof_calls if r)
    starts_sorted = sorted(s for s, _, _ in prof_calls)
    all_burst_events, compacted, next_id = [], 0, 0
    for prof, lost in bursts:
        if lost:
            dropped["burst:torch"] = dropped.get("burst:torch", 0) + int(lost)
        if prof is None:
            continue
        shift = int(prof.meta.get("t0_ns", t0_ns)) - t0_ns
        ev = _shift(prof.events, "start_ns", shift)
        ev = ev[(ev["cat"] != "step").to_numpy()] if len(ev) else ev   # torch's own ProfilerStep spans
        all_burst_events.append(ev)
        if len(ev) and len(starts_sorted) > keep_calls:
            cutoff = starts_sorted[keep_calls] + perf_to_epoch_ns - t0_ns
            keep = ev["start_ns"].to_numpy() < cutoff
            compacted += int((~keep).sum())
            ev = ev[keep]
        if len(ev) > max_events:
            compacted += len(ev) - max_events
            ev = ev.iloc[:max_events]
        if len(ev):
            ids = ev["id"].to_numpy()
            off = next_id - int(ids.min())
            ev = ev.copy()
            ev["id"] = ids + off
            par = ev["parent"].to_numpy()
            ev["parent"] = np.where(np.isin(par, ids), par + off, -1)
            next_id = int(ev["id"].max()) + 1
            events.append(ev)
            mem = _shift(prof.memory, "ts_ns", shift)
            if mem is not None and len(mem):
                mem = mem.copy()
                eid = mem["event_id"].to_numpy()
                mem["event_id"] = np.where(np.isin(eid, ids), eid + off, -1)
                memory.append(mem)
        for k, v in (prof.meta.get("dropped") or {}).items():
            dropped[f"burst:{k}"] = dropped.get(f"burst:{k}", 0) + int(v)
    if bursts:
        collectors["torch"] = {"status": "ok", "bursts": len(bursts), "threads": "all (profile_all_threads)",
                               "events": int(sum(len(e) for e in all_burst_events))}
    if prof_calls:
        starts = np.array([s for s, _, _ in prof_calls], dtype=np.int64) + perf_to_epoch_ns - t0_ns
        durs = np.array(prof_durs, dtype=np.int64)
        events.append(pd.DataFrame({
            "id": np.arange(next_id, next_id + len(prof_calls), dtype=np.int64), "name": "monitored call",
            "cat": "annotation", "track": "monitor/calls", "device": "cpu", "start_ns": starts, "dur_ns": durs}))
    mem_all = concat("memory", memory)
    ctr_host = concat("counters", counters)
    from ..analyze.memory import peak_memory

    stats = latency_stats(lat)
    summary = {
        "monitor": monitor, "seq": int(seq), "window_start_ns": int(t0_ns), "window_end_ns": int(end_ns),
        "duration_ns": int(end_ns - t0_ns), "partial": bool(partial),
        "calls": int(len(lat) + len(err) + len(prof_durs)), "errors": int(len(err) + n_prof_errors),
        "profiled_calls": int(len(prof_durs)), "profiled_errors": int(n_prof_errors),
        "latency_ns": stats, "latency_hist": histogram.build(lat),
        "profiled_latency_ns": latency_stats(prof_durs),
        "peak_memory_bytes": {k: int(v) for k, v in peak_memory(mem_all, ctr_host).items()},
        "top_ops": top_ops(all_burst_events),
        "compacted_events": int(compacted), "dropped": dropped, "bursts_skipped": int(skipped),
    }
    rows = {f"latency_{k}": stats[k] for k in ("p50", "p90", "p99", "max", "mean") if k in stats}
    rows.update(calls=summary["calls"], errors=summary["errors"], profiled_calls=summary["profiled_calls"])
    end_rel = int(end_ns - t0_ns)
    counters.append(pd.DataFrame({"ts_ns": np.full(len(rows), end_rel, dtype=np.int64), "source": SOURCE,
                                  "metric": list(rows), "value": np.array(list(rows.values()), dtype=np.float64)}))
    meta = {
        "name": f"w{seq:06d}", "source": {"kind": "monitor", "monitor": monitor, "window": int(seq)},
        "status": "ok", "t0_ns": int(t0_ns), "wall_ns": int(end_ns - t0_ns), "window_ns": [0, end_rel],
        "collectors": collectors, "dropped": dropped,
        "environment": (host.meta.get("environment") if host is not None else {}),
        "devices": (host.meta.get("devices") if host is not None else []),
        "options": {"monitor": True},
        "monitor": summary,
    }
    profile = Profile(concat("events", events), mem_all, concat("counters", counters), meta)
    return profile, summary
