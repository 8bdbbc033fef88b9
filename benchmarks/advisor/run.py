"""Gains that hold: does the advisor find the planted problem, and is its estimated gain close to the
gain measured by running the fix?

    python benchmarks/advisor/run.py            # all cases, writes benchmarks/results/advisor.json
    python benchmarks/advisor/run.py --only tiny_op_loop sync_item

For each CPU pair (cases.py) the slow and fixed functions are timed without any profiler (alternating,
median of --repeats runs after warm-up); the slow one is then profiled once (torch.profiler ->
Chrome trace -> cann_nb.ingest.kineto for torch cases; cann_nb's Python tracer for numpy cases) and
analysed. For the synthetic GPU traces (gpu_synth.py) the measured gain is the difference of the two
simulated runs and the device breakdown is compared with the simulator's own bookkeeping.

Detected: a finding of the planted category is among the top 3 (findings are sorted by estimated
gain). Gain error: |estimated - measured| in percentage points of the slow run's time, taking the
best-ranked finding of the planted category.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

from cann_nb.analyze.breakdown import device_breakdown  # noqa: E402
from cann_nb.analyze.rules import findings  # noqa: E402

TOP_K = 3


def timeit(fn, state, repeats):
    t = time.perf_counter()
    fn(state)
    return time.perf_counter() - t


def measure(case, repeats: int) -> dict:
    s = case.setup()
    a, b = case.slow(s), case.fixed(s)  # warm-up, and the twins must agree
    if case.check:
        import numpy as np
        av = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
        bv = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
        if not np.allclose(av.astype(float), bv.astype(float), rtol=case.tol, atol=case.tol):
            raise AssertionError(f"{case.name}: slow and fixed results differ")
    case.slow(s)
    case.fixed(s)
    slow, fixed = [], []
    for _ in range(repeats):
        slow.append(timeit(case.slow, s, 1))
        fixed.append(timeit(case.fixed, s, 1))
    ts, tf = statistics.median(slow), statistics.median(fixed)
    return {"state": s, "slow_s": ts, "fixed_s": tf, "measured_pct": 100.0 * (1.0 - tf / ts)}


def profile_torch(case, state, via: str = "collector"):
    """The slow twin profiled as a user would: cann_nb's torch collector (shapes and memory on), or
    torch.profiler + the Kineto importer (``via="kineto"``)."""
    if via == "collector":
        from cann_nb.collect.base import CollectOptions
        from cann_nb.collect.session import CollectionSession
        sess = CollectionSession(case.name, ("torch",), CollectOptions(shapes=True, memory=True))
        sess.start()
        try:
            case.slow(state)
        finally:
            sess.stop()
        return sess.finish()
    import torch
    from cann_nb.ingest.kineto import read_kineto
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True,
                                profile_memory=True) as prof:
        with torch.profiler.record_function("cann_nb_bench"):
            case.slow(state)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, f"{case.name}.json")
        prof.export_chrome_trace(path)
        return read_kineto(path, name=case.name)


def profile_python(case, state):
    from cann_nb.collect.session import CollectionSession
    sess = CollectionSession(case.name, ("python",))
    sess.start()
    try:
        case.slow(state)
    finally:
        sess.stop()
    return sess.finish()


def judge(fs, categories, measured: float) -> dict:
    top = fs[:TOP_K]
    hit = next((f for f in top if f.category in categories), None)
    est = hit.est_gain_pct if hit is not None else math.nan
    err = abs(est - measured) if hit is not None and est is not None and math.isfinite(est) else math.nan
    return {"detected": hit is not None, "rule": hit.rule if hit else None, "estimated_pct": est, "error_pts": err,
            "top": [{"rule": f.rule, "category": f.category, "gain_pct": f.est_gain_pct, "title": f.title} for f in top]}


def run_cpu(names, repeats: int, via: str = "collector") -> list[dict]:
    from cases import CASES
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        torch = None
    out = []
    for case in CASES:
        if names and case.name not in names:
            continue
        if case.kind == "torch" and torch is None:
            continue
        m = measure(case, repeats)
        t0 = time.perf_counter()
        prof = profile_torch(case, m["state"], via) if case.kind == "torch" else profile_python(case, m["state"])
        fs = findings(prof)
        res = {"case": case.name, "kind": case.kind, "planted": list(case.categories), "note": case.note,
               "slow_ms": 1e3 * m["slow_s"], "fixed_ms": 1e3 * m["fixed_s"], "measured_pct": m["measured_pct"],
               "profiled_ms": prof.wall_ns / 1e6, "analysis_s": time.perf_counter() - t0,
               **judge(fs, case.categories, m["measured_pct"])}
        out.append(res)
        _print(res)
    return out


def run_gpu(names) -> list[dict]:
    from gpu_synth import SCENARIOS
    out = []
    for name, build in SCENARIOS.items():
        if names and name not in names:
            continue
        (slow, truth), (fixed, _), cats = build()
        measured = 100.0 * (1.0 - fixed.wall_ns / slow.wall_ns)
        fs = findings(slow)
        bd = device_breakdown(slow).set_index("device").loc["cuda:0"]
        wall = truth["wall_ns"]
        # the simulator's bitmap is at 1 us resolution: compare at that resolution
        berr = max(abs(float(bd[f"{k}_ns"]) - truth[f"{k}_ns"]) / wall for k in ("compute", "memcpy", "idle")) * 100
        res = {"case": name, "kind": "gpu-synthetic", "planted": list(cats), "measured_pct": measured,
               "breakdown_err_pct": berr, **judge(fs, cats, measured)}
        if not cats:  # control: nothing planted; record the largest claimed gain
            res["detected"] = None
            res["max_claimed_pct"] = max([f.est_gain_pct for f in fs if f.est_gain_pct == f.est_gain_pct] or [0.0])
        out.append(res)
        _print(res)
    return out


def _print(r):
    est = r.get("estimated_pct")
    est_s = f"{est:5.1f}%" if est is not None and est == est else "  n/a "
    print(f"{r['case']:26s} planted={'/'.join(r['planted']) or '-':32s} detected={str(r['detected']):5s} "
          f"rule={str(r.get('rule')):20s} est={est_s} measured={r['measured_pct']:5.1f}%", flush=True)


def summarize(rows: list[dict]) -> dict:
    planted = [r for r in rows if r["planted"]]
    det = [r for r in planted if r["detected"]]
    errs = [r["error_pts"] for r in planted if r["error_pts"] == r["error_pts"] and r["error_pts"] is not None]
    bd = [r["breakdown_err_pct"] for r in rows if "breakdown_err_pct" in r]
    return {"cases": len(planted), "detected": len(det), "detection_rate_pct": 100.0 * len(det) / max(len(planted), 1),
            "median_gain_error_pts": statistics.median(errs) if errs else None,
            "max_gain_error_pts": max(errs) if errs else None,
            "max_breakdown_error_pct": max(bd) if bd else None}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--skip-cpu", action="store_true")
    ap.add_argument("--via", choices=("collector", "kineto"), default="collector",
                    help="torch cases: cann_nb's torch collector, or torch.profiler + the Kineto importer")
    ap.add_argument("--out", default=str(HERE.parent / "results" / "advisor.json"))
    a = ap.parse_args(argv)
    t = time.perf_counter()
    rows = ([] if a.skip_cpu else run_cpu(a.only, a.repeats, a.via)) + run_gpu(a.only)
    summary = summarize(rows)
    summary["seconds"] = round(time.perf_counter() - t, 1)
    summary["via"] = a.via
    print(json.dumps(summary, indent=2))
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps({"summary": summary, "cases": rows}, indent=2, default=float))
    return summary


if __name__ == "__main__":
    main()
