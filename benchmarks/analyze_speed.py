"""Speed of the analysis engine on a large trace: every analysis and the advisor on ~1M events.

    python benchmarks/analyze_speed.py [--events 1000000] [--out benchmarks/results/analyze_speed.json]

The trace is GPU-shaped and built with numpy (no per-event Python): a host thread of framework ops,
each with a nested cudaLaunchKernel, kernels on two streams, host<->device copies, a sync per step,
step spans and allocation records. Reports wall time per analysis and the process's peak RSS
(goal: all analyses < 10 s and < 2 GB on the 2-core CI machine).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cann_nb.model import Profile  # noqa: E402
from cann_nb.ingest.nesting import nest  # noqa: E402

US = 1_000


def build(n_events: int, seed: int = 0) -> Profile:
    rng = np.random.default_rng(seed)
    per_op = 3  # op, launch, kernel
    n_ops = n_events // per_op
    ops_per_step = 500
    op_dur = rng.integers(8 * US, 30 * US, n_ops)
    gap = rng.integers(1 * US, 6 * US, n_ops)
    # a sync (blocking) at the end of every step: 300 us
    step_end = (np.arange(n_ops) % ops_per_step) == ops_per_step - 1
    gap = gap + np.where(step_end, 300 * US, 0)
    op_start = np.concatenate([[0], np.cumsum(op_dur + gap)[:-1]])
    l_start = op_start + op_dur // 3
    l_dur = np.full(n_ops, 5 * US)
    k_dur = rng.integers(2 * US, 40 * US, n_ops)
    stream = np.where(rng.random(n_ops) < 0.8, 7, 13)
    # in-order streams: start = max(prev end on stream, launch + 3 us)
    release = l_start + 3 * US
    k_start = np.empty(n_ops, dtype=np.int64)
    for s in (7, 13):
        m = np.flatnonzero(stream == s)
        D = np.cumsum(k_dur[m])
        end = D + np.maximum.accumulate(release[m] - (D - k_dur[m]))
        k_start[m] = end - k_dur[m]
    names_op = np.array(["aten::addmm", "aten::add", "aten::mul", "aten::relu", "aten::layer_norm", "aten::copy_"])
    names_k = np.array(["sm80_gemm", "vectorized_elementwise_kernel<add>", "vectorized_elementwise_kernel<mul>",
                        "elementwise_kernel<relu>", "layer_norm_kernel", "Memcpy HtoD (Pinned -> Device)"])
    which = rng.integers(0, len(names_op), n_ops)
    corr = np.arange(1, n_ops + 1)
    sync_idx = np.flatnonzero(step_end)
    sync_start = op_start[sync_idx] + op_dur[sync_idx] + 1 * US
    sync_dur = np.full(len(sync_idx), 290 * US)
    kcat = np.where(which == 5, "memcpy", "kernel")
    ev = pd.DataFrame({
        "name": pd.Categorical(np.concatenate([names_op[which], np.full(n_ops, "cudaLaunchKernel"), names_k[which],
                                               np.full(len(sync_idx), "cudaStreamSynchronize")])),
        "cat": pd.Categorical(np.concatenate([np.full(n_ops, "op"), np.full(n_ops, "runtime"), kcat,
                                              np.full(len(sync_idx), "runtime")])),
        "track": pd.Categorical(np.concatenate([np.full(n_ops, "host/thread 1"), np.full(n_ops, "host/thread 1"),
                                                np.char.add("cuda:0/stream ", stream.astype(str)),
                                                np.full(len(sync_idx), "host/thread 1")])),
        "device": pd.Categorical(np.concatenate([np.full(2 * n_ops, "cpu"), np.full(n_ops, "cuda:0"),
                                                 np.full(len(sync_idx), "cpu")])),
        "start_ns": np.concatenate([op_start, l_start, k_start, sync_start]),
        "dur_ns": np.concatenate([op_dur, l_dur, k_dur, sync_dur]),
        "corr": np.concatenate([np.full(n_ops, -1), corr, corr, np.full(len(sync_idx), -1)]),
        "bytes": np.concatenate([np.full(2 * n_ops, np.nan), np.where(which == 5, 32768.0, np.nan),
                                 np.full(len(sync_idx), np.nan)]),
    })
    ev["id"] = np.arange(len(ev), dtype=np.int64)
    parent, depth = nest(ev["track"], ev["start_ns"], ev["dur_ns"], ev["id"])
    ev["parent"], ev["depth"] = parent, depth
    bounds = np.concatenate([[0], op_start[sync_idx[:-1] + 1]]) if len(sync_idx) else np.array([0])
    end = int(max(ev["start_ns"].max() + ev["dur_ns"].max(), (k_start + k_dur).max()))
    steps = pd.DataFrame({"name": [f"step {i}" for i in range(len(bounds))], "cat": "step", "track": "host/steps",
                          "device": "cpu", "start_ns": bounds,
                          "dur_ns": np.append(np.diff(bounds), end - bounds[-1]),
                          "id": np.arange(len(ev), len(ev) + len(bounds))})
    ev = pd.concat([ev, steps], ignore_index=True)
    ev["parent"] = ev["parent"].fillna(-1).astype(np.int64)
    ev["corr"] = ev["corr"].fillna(-1).astype(np.int64)
    ev["depth"] = ev["depth"].fillna(0).astype(np.int32)
    n_mem = n_ops // 10
    mem = pd.DataFrame({"ts_ns": np.sort(rng.integers(0, end, n_mem)), "device": "cuda:0",
                        "delta_bytes": np.where(np.arange(n_mem) % 2 == 0, 1 << 20, -(1 << 20)).astype(float)})
    mem["allocated_bytes"] = mem["delta_bytes"].cumsum() + 1e9
    mem["reserved_bytes"] = 2e9
    return Profile(ev, mem, meta={"name": "speed", "wall_ns": end, "window_ns": [0, end]})


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "analyze_speed.json"))
    a = ap.parse_args(argv)
    t = time.perf_counter()
    prof = build(a.events)
    build_s = time.perf_counter() - t
    rss_before = peak_rss_mb()
    from cann_nb.analyze import analyses, analyze
    times, cpu = {}, {}

    def timed(key, fn):
        t, c = time.perf_counter(), time.process_time()
        r = fn()
        times[key], cpu[key] = time.perf_counter() - t, time.process_time() - c
        return r

    timed("analyses", lambda: analyses(prof))
    js = timed("analyze_json", lambda: analyze(prof))  # shares the per-profile cache with analyses()
    total, total_cpu = times["analyses"] + times["analyze_json"], cpu["analyses"] + cpu["analyze_json"]
    prof2 = prof.copy()  # cold: a fresh profile object, analyze() alone
    timed("analyze_cold", lambda: analyze(prof2))
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    res = {"events": int(len(prof.events)), "build_s": round(build_s, 2), "all_analyses_s": round(total, 2),
           "all_analyses_cpu_s": round(total_cpu, 2), "load_avg_1min": load,
           "times_s": {k: round(v, 2) for k, v in times.items()},
           "cpu_s": {k: round(v, 2) for k, v in cpu.items()}, "peak_rss_mb": round(peak_rss_mb(), 0),
           "rss_after_build_mb": round(rss_before, 0), "findings": [f["rule"] for f in js["findings"]],
           "goal": "all analyses < 10 s, < 2048 MB"}
    print(json.dumps(res, indent=2))
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=2))
    return res


if __name__ == "__main__":
    main()
