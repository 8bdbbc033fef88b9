"""cann_nb's device breakdown against HTA's temporal breakdown on the real Kineto traces.

    python benchmarks/advisor/hta_compare.py [--hta-python benchmarks/results/.venv-hta/bin/python]

HTA (HolisticTraceAnalysis) runs in its own virtual environment (it is not a cann_nb dependency):
``python -m venv benchmarks/results/.venv-hta && benchmarks/results/.venv-hta/bin/pip install
HolisticTraceAnalysis``. Each trace is copied into its own folder (HTA reads a folder per run) and
``TraceAnalysis.get_temporal_breakdown()`` is compared with ``analyze.breakdown`` computed on the same
selection HTA makes: device events launched from a correlated CPU call, without the last profiler step
(HTA's default), the span from the first to the last of them. HTA also counts the device-side sync
markers (Kineto ``cuda_sync``: "Stream Sync", "Context Sync") as busy GPU time; cann_nb does not (they are
not work), so the comparison is reported both ways.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from cann_nb.analyze import classify as C  # noqa: E402
from cann_nb.analyze.context import context  # noqa: E402
from cann_nb.analyze.intervals import union  # noqa: E402
from cann_nb.analyze.steps import steps  # noqa: E402
from cann_nb.ingest.kineto import read_kineto  # noqa: E402

TRACES = [
    "hta/tests/data/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
    "hta/tests/data/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz",
    "hta/tests/data/nccl_parser_config/nccl_data.json.gz",
    "hta/tests/data/negative_queue_length_values_check/rank0.json.gz",
    "hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
    "hta/tests/data/trace_diff/control/control.json.gz",
    "hta/tests/data/trace_diff/test/test.json.gz",
    "tracelens/tests/traces/mi300/resnet_act_checkpoint.json.gz",
]

HTA_SCRIPT = r"""
import json, logging, os, sys
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
out = {}
for d in sys.argv[1:]:
    try:
        r = TraceAnalysis(trace_dir=d).get_temporal_breakdown(visualize=False).iloc[0]
        out[d] = {k: float(r[k]) * 1000 for k in ("idle_time(us)", "compute_time(us)", "non_compute_time(us)",
                                                   "kernel_time(us)")}
    except Exception as exc:
        out[d] = {"error": f"{type(exc).__name__}: {exc}"[:200]}
print(json.dumps(out))
"""


def cann_nb_like_hta(path: Path, count_sync_markers: bool) -> dict:
    prof = read_kineto(path)
    ctx = context(prof)
    dev = np.flatnonzero(ctx.is_device_task | (ctx.role == C.R["sync_marker"]))
    # HTA keeps device events with a CPU correlation, and drops the last profiler step (by the
    # iteration of the launching CPU op)
    lrow = ctx.task_launch[dev]
    dev_with = dev[(lrow >= 0) | (ctx.role[dev] == C.R["sync_marker"])]
    st = steps(prof, infer=False)
    if len(st) >= 2:
        last = int(st["start_ns"].iloc[-1])
        lr = ctx.task_launch[dev_with]
        t = np.where(lr >= 0, ctx.start[np.maximum(lr, 0)], ctx.start[dev_with])
        dev_with = dev_with[t < last]
    markers = ctx.role[dev_with] == C.R["sync_marker"]
    busy_rows = dev_with if count_sync_markers else dev_with[~markers]
    s, e = ctx.start[dev_with], ctx.end[dev_with]
    span = int(e.max() - s.min())
    bs, be = union(ctx.start[busy_rows], ctx.end[busy_rows])
    comp = busy_rows[ctx.role[busy_rows] == C.R["compute"]]
    cs, ce = union(ctx.start[comp], ctx.end[comp])
    busy, compute = int((be - bs).sum()), int((ce - cs).sum())
    return {"kernel_time": span, "compute": compute, "idle": span - busy, "non_compute": busy - compute}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hta-python", default=str(ROOT / "benchmarks" / "results" / ".venv-hta" / "bin" / "python"))
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "real"))
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "hta_compare.json"))
    a = ap.parse_args(argv)
    if not Path(a.hta_python).exists():
        sys.exit(f"HTA's python not found at {a.hta_python} (see the docstring to create it)")
    with tempfile.TemporaryDirectory() as tmp:
        dirs = []
        for i, rel in enumerate(TRACES):
            d = Path(tmp) / f"t{i}"
            d.mkdir()
            shutil.copy(Path(a.data) / rel, d)
            dirs.append(str(d))
        res = subprocess.run([a.hta_python, "-c", HTA_SCRIPT, *dirs], capture_output=True, text=True, timeout=900)
        hta = json.loads(res.stdout.strip().splitlines()[-1])
        rows = []
        for rel, d in zip(TRACES, dirs):
            h = hta.get(d, {})
            row = {"trace": rel}
            if "error" in h:
                row["hta_error"] = h["error"]
                rows.append(row)
                continue
            K = h["kernel_time(us)"]
            for label, markers in (("ours", False), ("ours_sync_as_busy", True)):
                c = cann_nb_like_hta(Path(d) / Path(rel).name, markers)
                row[label] = {k: round(100.0 * (c[k] - h[hk]) / K, 2) for k, hk in
                              (("kernel_time", "kernel_time(us)"), ("compute", "compute_time(us)"),
                               ("idle", "idle_time(us)"), ("non_compute", "non_compute_time(us)"))}
            row["hta_ms"] = {k: round(v / 1e6, 3) for k, v in h.items()}
            rows.append(row)
            print(f"{rel.split('/')[-1][:44]:44s} diff (pts of HTA span) ours: {row['ours']}  "
                  f"sync-as-busy: {row['ours_sync_as_busy']}", flush=True)
    Path(a.out).write_text(json.dumps(rows, indent=2))
    return rows


if __name__ == "__main__":
    main()
