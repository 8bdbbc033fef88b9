"""What value numbering (collect/torch_values.py) costs: the torch collector with the default options,
value signatures on and off, side by side in one run.

    python benchmarks/value_numbering.py                  # the table in benchmarks/README.md
    python benchmarks/value_numbering.py --rounds 5 --iters 5000 20000

Each measurement is a fresh subprocess (``OMP_NUM_THREADS=1``) that runs a workload under
``TorchCollector`` (shapes and allocations recorded, the defaults) and reports ``result_s`` (the time from
the end of the user's code to the Profile: torch's stop, the trace's export and reading, and with values on
the walk of torch's event tree), the number of op events, and ``peak_mb``, the peak RSS (``ru_maxrss``) less
the RSS before the collection (torch imported, a warm-up profile run). On and off alternate; medians.
Workloads:

- ``item``: ``total += scores[i].item()`` per element (4 tiny ops per iteration: the most events per
  second of the user's code, the walk's worst case);
- ``mlp``: a 3-layer MLP forward + backward + SGD step per iteration on a batch of 32 (~60 ops each).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = textwrap.dedent("""\
    import json, resource, sys, time
    import torch
    from cann_nb.collect.base import CollectOptions
    from cann_nb.collect.torch_collector import TorchCollector
    workload, iters, values = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "on"
    torch.manual_seed(0)
    scores = torch.arange(32768) % 7
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                                torch.nn.ReLU(), torch.nn.Linear(256, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(32, 256), torch.randint(0, 10, (32,))
    def item():
        total = 0
        for i in range(iters):
            total += scores[i % 32768].item()
    def mlp():
        for _ in range(iters):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
    TorchCollector.warm_up()
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    col = TorchCollector(CollectOptions(values=values, max_memory=16 * 1024 ** 3), time.time_ns())
    col.start()
    {"item": item, "mlp": mlp}[workload]()
    t = time.perf_counter()
    got = col.result()
    result_s = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    ev = got.events
    print(json.dumps({"result_s": result_s, "ops": int((ev["cat"] == "op").sum()),
                      "peak_mb": max(0, peak - base) / 1024,
                      "numbering": got.meta.get("value_numbering")}))
""")


def measure(workload: str, iters: int, values: str) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", CHILD, workload, str(iters), values], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=1800)
    if out.returncode:
        raise RuntimeError(f"{workload} x{iters} values={values}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, nargs="+", default=None,
                    help="iterations per workload (default: item 25000 75000, mlp 300 1000)")
    args = ap.parse_args(argv)
    plan = [("item", n) for n in (args.iters or (25000, 75000))] + [("mlp", n) for n in (args.iters or (300, 1000))]
    rows = []
    for workload, iters in plan:
        got = {"off": [], "on": []}
        for _ in range(args.rounds):
            for values in ("off", "on"):
                got[values].append(measure(workload, iters, values))
        med = {v: {k: statistics.median(r[k] for r in got[v]) for k in ("result_s", "ops", "peak_mb")}
               for v in got}
        walked = got["on"][-1]["numbering"] or {}
        rows.append((workload, iters, int(med["on"]["ops"]), med["off"]["result_s"], med["on"]["result_s"],
                     med["off"]["peak_mb"], med["on"]["peak_mb"], walked.get("status", "?")))
        print(json.dumps(rows[-1]), flush=True)
    print("\n| workload | iterations | op events | result() off | result() on | on / off | extra per op "
          "| peak MB off | peak MB on | on / off | numbering |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for w, n, ops, t_off, t_on, m_off, m_on, status in rows:
        print(f"| {w} | {n:,} | {ops:,} | {t_off:.2f} s | {t_on:.2f} s | {t_on / t_off:.2f} | "
              f"{(t_on - t_off) / max(ops, 1) * 1e6:.1f} us | {m_off:.0f} | {m_on:.0f} | "
              f"{m_on / max(m_off, 1):.2f} | {status.split(':')[0]} |")


if __name__ == "__main__":
    main()
