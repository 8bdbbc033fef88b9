"""Events collected vs peak memory: bare torch.profiler and cann_nb side by side (issue 19).

    python benchmarks/memory_budget.py                 # the table in benchmarks/README.md "Memory budget"
    python benchmarks/memory_budget.py --ops 100000 300000 --cap-gb 4
    python benchmarks/memory_budget.py --calibrate     # bytes per op while recording / after stop

The workload is the per-element loop of the issue, ``total += scores[i].item()`` (4 torch ops per
iteration: select, as_strided, item, _local_scalar_dense), with the magic's default options (shapes and
allocations recorded). Each measurement is a fresh subprocess; its peak RSS (``ru_maxrss``) less its RSS
after ``import torch`` and a warm-up profile is the memory the collection added. Kinds:

- ``torch``: torch.profiler started and stopped around the loop, then ``export_chrome_trace`` (what any
  tool must do to read the ops);
- ``cann_nb-unbounded``: ``Profiler(max_memory=1 TB)``: the whole conversion to the Profile, stored;
- ``cann_nb``: ``Profiler()`` with its default budget (1/8 of the available memory).

A run whose projected peak (ops x 3.3 KB for torch's own results) exceeds ``--cap-gb`` is not started
(``skipped``): this shared machine must not swap. ``ulimit -v`` bounds every child too.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OPS_PER_ITER = 4
PROJECTED_BYTES_PER_OP = 3300      # torch's results after stop, shapes + allocations (--calibrate)

CHILD = textwrap.dedent("""\
    import json, os, resource, sys, tempfile, time
    import torch
    from torch.profiler import ProfilerActivity, profile
    kind, iters = sys.argv[1], int(sys.argv[2])
    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    scores = torch.arange(32768) % 7
    p = profile(activities=[ProfilerActivity.CPU]); p.start(); torch.ones(1).add_(1); p.stop(); del p
    if kind != "torch":
        import cann_nb
        from cann_nb.collect.torch_collector import TorchCollector
        TorchCollector.warm_up()
    base = rss()
    t = time.perf_counter()
    def loop():
        total = 0
        for k in range(iters):
            total += scores[k % 32768].item()
        return total
    out = {}
    if kind == "torch":
        p = profile(activities=[ProfilerActivity.CPU], record_shapes=True, profile_memory=True)
        p.start(); loop(); p.stop()
        fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
        p.export_chrome_trace(path)
        out["events"] = sum(1 for line in open(path) if '"ph": "X"' in line)
        os.unlink(path)
    else:
        kw = {"max_memory": 10 ** 12} if kind == "cann_nb-unbounded" else {}
        with cann_nb.Profiler(output_path=tempfile.mkdtemp(), name="loop", collectors="torch,host", **kw) as prof:
            loop()
        prof_ = prof.profile
        out["events"] = int((prof_.events["cat"] != "step").sum())
        out["reached"] = bool(prof_.meta["budget"]["reached"])
        out["budget"] = prof_.meta["budget"]["max_memory"]
    out["s"] = round(time.perf_counter() - t, 2)
    out["added"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base
    print("RESULT " + json.dumps(out))
    """)


def run_child(kind: str, ops: int, vm_gb: float) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(CHILD)
    limit = int(vm_gb * 2 ** 30)

    def bound():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = {**os.environ, "PYTHONPATH": str(ROOT), "KINETO_LOG_LEVEL": "99"}
    try:
        r = subprocess.run([sys.executable, f.name, kind, str(ops // OPS_PER_ITER)], capture_output=True, text=True,
                           env=env, preexec_fn=bound, timeout=3600)
    finally:
        os.unlink(f.name)
    line = next((ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        return {"error": (r.stderr.strip().splitlines() or ["no output"])[-1][:120]}
    return json.loads(line[7:])


def calibrate() -> None:
    """Bytes per op while recording (malloc arena) and after stop, per option set (collect/budget.py)."""
    code = textwrap.dedent("""\
        import ctypes, os, resource, sys, torch
        from torch.profiler import ProfilerActivity, profile
        from torch._C._profiler import _ExperimentalConfig
        from cann_nb.collect.budget import in_use
        shapes, mem, stack, trace_only = (a == "1" for a in sys.argv[1:5])
        scores = torch.arange(32768) % 7
        p = profile(activities=[ProfilerActivity.CPU]); p.start(); torch.ones(1); p.stop(); del p
        def rss():
            with open("/proc/self/statm") as f: return int(f.read().split()[1]) * 4096
        r0, u0 = rss(), in_use()[0]
        kw = {"experimental_config": _ExperimentalConfig(trace_only=True)} if trace_only else {}
        p = profile(activities=[ProfilerActivity.CPU], record_shapes=shapes, profile_memory=mem, with_stack=stack, **kw)
        p.start()
        for k in range(50000): scores[k % 32768].item()
        u1 = in_use()[0]
        p.stop()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - r0
        n = 50000 * 4
        print(f"shapes={shapes} memory={mem} stack={stack} trace_only={trace_only}: recording {(u1 - u0) / n:.0f} B/op, "
              f"after stop {peak / n:.0f} B/op, ratio {peak / max(u1 - u0, 1):.1f}")
        """)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KINETO_LOG_LEVEL": "99"}
    for combo in ("1 1 0 1", "1 1 0 0", "0 0 0 1", "1 1 1 0"):
        r = subprocess.run([sys.executable, "-c", code, *combo.split()], capture_output=True, text=True, env=env)
        print(r.stdout.strip() or r.stderr.strip()[-300:])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ops", type=int, nargs="+", default=[100_000, 300_000, 1_000_000, 3_000_000, 10_000_000])
    ap.add_argument("--kinds", nargs="+", default=["torch", "cann_nb-unbounded", "cann_nb"])
    ap.add_argument("--cap-gb", type=float, default=6.0, help="do not start a run projected above this peak")
    ap.add_argument("--vm-gb", type=float, default=16.0, help="ulimit -v of each child")
    ap.add_argument("--calibrate", action="store_true")
    args = ap.parse_args()
    if args.calibrate:
        calibrate()
        return
    print("| ops run | kind | events kept | peak added | per kept event | budget reached | s |")
    print("|---:|---|---:|---:|---:|---|---:|")
    for ops in args.ops:
        for kind in args.kinds:
            projected = ops * PROJECTED_BYTES_PER_OP / 2 ** 30
            if kind != "cann_nb" and projected > args.cap_gb:
                print(f"| {ops:,} | {kind} | skipped: projected {projected:.1f} GiB > {args.cap_gb:g} GiB | | | | |",
                      flush=True)
                continue
            res = run_child(kind, ops, args.vm_gb)
            if "error" in res:
                print(f"| {ops:,} | {kind} | error: {res['error']} | | | | |", flush=True)
                continue
            per = res["added"] / max(res["events"], 1)
            reached = {True: "yes", False: "no"}.get(res.get("reached"), "-")
            print(f"| {ops:,} | {kind} | {res['events']:,} | {res['added'] / 2 ** 30:.2f} GiB | {per:,.0f} B | "
                  f"{reached} | {res['s']} |", flush=True)


if __name__ == "__main__":
    main()
