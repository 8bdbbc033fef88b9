"""Cost of the roofline analysis on a large trace.

    python benchmarks/roofline.py [--events 1000000] [--trace PATH] [--runs 3]

The trace is benchmarks/ingest.py's generated Kineto GPU trace (cpu_op trees with Input Dims / Input type,
cudaLaunchKernel, kernels, memcpy, memory instants, steps), about 1M events, loaded once with cann_nb.load.
Each run takes a fresh analysis context and times, in order: the formulas over every distinct
(name, shapes, dtypes) group plus the attribution (``event_costs``), the per-op table by name and by
name+shapes, the per-device summary (peaks included: the generated GPU is named in the trace), MFU per
step, and the three roofline rules. Prints the median wall time of each part, the group and row counts,
and the peak RSS of the process.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cann_nb  # noqa: E402
from cann_nb.analyze import context as C  # noqa: E402
from cann_nb.analyze.efficiency import cost as cost_mod  # noqa: E402
from cann_nb.analyze.efficiency import device_efficiency, op_efficiency, step_mfu  # noqa: E402
from cann_nb.analyze.rules import findings  # noqa: E402


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _run(profile) -> dict:
    C._CACHE.pop(profile, None)                 # a fresh context: nothing memoised from the last run
    ctx = C.context(profile)
    ctx.self_ns, ctx.launches, ctx.rows_of_parent  # shared with every analysis: not the roofline's cost
    t = {}
    t0 = time.perf_counter()
    costs = cost_mod.event_costs(ctx)
    t["event_costs"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    op_efficiency(profile)
    op_efficiency(profile, "name+shapes")
    t["op_efficiency (both keys)"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    eff = device_efficiency(profile)
    t["device_efficiency"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    step_mfu(profile)
    t["step_mfu"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    findings(profile, only=["batch_matvec", "fuse_memory_bound", "under_roof"])
    t["roofline rules"] = time.perf_counter() - t0
    t["total"] = sum(t.values())
    t["_costed"] = int(costs["costed"].sum())
    t["_devices"] = {d: round(v["mfu"], 6) if v["mfu"] == v["mfu"] else None for d, v in eff.items()}
    return t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--trace", type=Path, default=None, help="reuse a generated trace (benchmarks/ingest.py)")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    path = args.trace
    if path is None or not path.exists():
        from benchmarks.ingest import generate
        path = path or Path(tempfile.gettempdir()) / f"cann_nb_roofline_{args.events}.json"
        generate(path, args.events)
    t0 = time.perf_counter()
    profile = cann_nb.load(path)
    load_s = time.perf_counter() - t0
    rss_loaded = _rss_mb()
    ev = profile.events
    groups = ev[ev["shapes"].notna()].groupby(["name", "shapes", "dtypes"], observed=True).ngroups
    runs = [_run(profile) for _ in range(args.runs)]
    print(f"trace: {path} ({len(ev):,} events, {groups:,} distinct name/shapes/dtypes groups; load {load_s:.1f} s)")
    print(f"costed rows: {runs[0]['_costed']:,}; MFU: {runs[0]['_devices']}")
    print("| part | median s | runs |")
    print("|---|---|---|")
    for k in runs[0]:
        if not k.startswith("_"):
            vals = [r[k] for r in runs]
            print(f"| {k} | {statistics.median(vals):.3f} | {', '.join(f'{v:.3f}' for v in vals)} |")
    print(f"peak RSS: {_rss_mb():.0f} MiB (after load: {rss_loaded:.0f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
