"""Cost of the cross-rank analysis (`cann-nb cluster GROUP --json`) against the rank count.

    python benchmarks/cluster.py [--ranks 16,32,64,128] [--events 40000] [--dir /tmp/cann_nb_cluster_bench]
                                 [--out benchmarks/results/cluster.json]

For each rank count, a synthetic data-parallel job (tests/analyze/synth_cluster.py: ~`--events` events per
rank, one compute straggler, per-rank clock errors) is stored as a real group (Session.add_group), in a
child process. Then `cann-nb cluster DIR --json` runs in a fresh child process (the CLI's own code path),
which reports its wall time and its peak RSS (ru_maxrss); a third child measures the RSS of the imports
alone (the fixed cost). Goals (issue 17): 128 ranks x ~40k events under 1 GB peak RSS, at most 1 MB per
extra rank from 16 to 128 ranks, and the straggler found.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNELS = 64
PER_STEP = 3 * KERNELS + 6   # events per step and rank in synth_cluster (host ops, launches, kernels, markers)

WRITE = """
import sys
from tests.analyze.synth_cluster import store_job
store_job(sys.argv[1], sys.argv[2], n_ranks=int(sys.argv[3]), steps=int(sys.argv[4]), kernels={k}, straggler=5)
""".format(k=KERNELS)

MEASURE = """
import contextlib, io, json, resource, sys, time
t = time.perf_counter()
from cann_nb.frontends import cli
import duckdb, pandas
if sys.argv[2] == "imports":
    print(json.dumps({"rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
    raise SystemExit
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = cli.main(["cluster", sys.argv[1], "--json"])
res = json.loads(out.getvalue())
print(json.dumps({"code": code, "seconds": time.perf_counter() - t,
                  "rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "stragglers": [s["rank"] for s in res["stragglers"]], "events": res["group"]["events"]}))
"""


def child(code: str, *args) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, env=env,
                       cwd=ROOT, timeout=3600)
    if r.returncode:
        raise SystemExit(r.stderr[-3000:])
    return r.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", default="16,32,64,128")
    ap.add_argument("--events", type=int, default=40_000, help="events per rank (about)")
    ap.add_argument("--dir", default="/tmp/cann_nb_cluster_bench")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "cluster.json"))
    args = ap.parse_args()
    steps = max(1, round(args.events / PER_STEP))
    store = Path(args.dir)
    base = json.loads(child(MEASURE, "-", "imports"))["rss_kib"]
    rows = []
    for n in (int(x) for x in args.ranks.split(",")):
        name = f"dp{n}"
        if not (store / name / "group.json").exists():
            t = time.perf_counter()
            child(WRITE, store, name, n, steps)
            print(f"wrote {n} ranks in {time.perf_counter() - t:.1f} s", file=sys.stderr)
        m = json.loads(child(MEASURE, store / name, "run"))
        rows.append({"ranks": n, "events": m["events"], "seconds": round(m["seconds"], 2),
                     "peak_rss_mib": round(m["rss_kib"] / 1024, 1), "stragglers": m["stragglers"]})
        print(json.dumps(rows[-1]), file=sys.stderr)
    first, last = rows[0], rows[-1]
    growth = (last["peak_rss_mib"] - first["peak_rss_mib"]) / max(last["ranks"] - first["ranks"], 1)
    result = {"imports_rss_mib": round(base / 1024, 1), "events_per_rank": steps * PER_STEP, "runs": rows,
              "rss_growth_mib_per_rank": round(growth, 3), "cpus": os.cpu_count()}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
