"""What fingerprinting long calls costs the Python tracer (collect/call_repeats.py).

    python benchmarks/call_repeats_cost.py [--rounds 7]

Each workload (a user file, traced as a script is) runs under the Python tracer with call fingerprints on
(the default: calls the user's code makes from ``MIN_NS``, a library's own calls from ``LIBRARY_MIN_NS``)
and off (both thresholds out of reach), interleaved round by round; medians of the traced wall, their
ratio, and the fingerprints taken; and with a library's calls fingerprinted from ``MIN_NS`` as well, as
before session 16. The workloads:

* ``masked``: a table of 200k rows masked once per key for 300 keys (pandas makes thousands of calls over
  20 us inside each mask; before session 16 every one was fingerprinted, half the traced time);
* ``lil``: 40 products of a LIL matrix with a vector (each converts the matrix to CSR: the library step
  ``repeated_library_calls`` finds, fingerprinted once per product);
* ``cache``: 400 draws of 40 keys through a function of ~100 us (the user-level repeats ``repeated_calls``
  finds).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

WORKLOADS = {
    "masked": '''
import numpy as np, pandas as pd
rng = np.random.default_rng(0)
df = pd.DataFrame({"k": rng.integers(0, 300, 200_000), "v": rng.random(200_000)})
def main():
    return [float(df[df["k"] == key]["v"].sum()) for key in range(300)]
''',
    "lil": '''
import numpy as np
from scipy import sparse
rng = np.random.default_rng(0)
n = 20_000
A = sparse.coo_matrix((np.ones(200_000), (rng.integers(0, n, 200_000), rng.integers(0, n, 200_000))),
                      shape=(n, n)).tolil()
def main():
    x = np.ones(n) / n
    for _ in range(40):
        x = A @ x
        x /= x.sum()
    return x
''',
    "cache": '''
import random
KEYS = ["item %d" % i for i in range(40)]
def score(key):
    return sum(map(ord, key * 3000))
def main():
    random.seed(0)
    return sum(score(random.choice(KEYS)) for _ in range(400))
''',
}


def _load(name: str, src: str, folder: str):
    path = os.path.join(folder, f"{name}.py")
    with open(path, "w") as f:
        f.write(src)
    ns: dict = {}
    exec(compile(src, path, "exec"), ns)
    return ns["main"]


def _traced(main, mode: str) -> tuple[int, int]:
    """mode: "off", "on" (the default thresholds) or "all" (a library's calls from MIN_NS too: what the
    tracer did before session 16)."""
    from cann_nb.collect import call_repeats, python_tracer
    from cann_nb.collect.base import CollectOptions

    never = 1 << 62
    python_tracer.REPEAT_MIN_NS = never if mode == "off" else call_repeats.MIN_NS
    python_tracer.REPEAT_LIBRARY_MIN_NS = {"off": never, "on": call_repeats.LIBRARY_MIN_NS, "all": call_repeats.MIN_NS}[mode]
    tracer = python_tracer.PythonTracer(CollectOptions(), time.time_ns())
    t = time.perf_counter_ns()
    tracer.start()
    main()
    tracer.stop()
    wall = time.perf_counter_ns() - t
    return wall, tracer._repeats.looked


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    print("| workload | fingerprints off ms | on ms | on / off | calls fingerprinted | library's from 20 us too ms | "
          "that / off | calls fingerprinted |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="cann_nb_bench_") as d:
        for name, src in WORKLOADS.items():
            fn = _load(name, src, d)
            fn()   # warm: imports, caches
            walls, looked = {"off": [], "on": [], "all": []}, {}
            for _ in range(args.rounds):
                for mode in walls:
                    wall, looked[mode] = _traced(fn, mode)
                    walls[mode].append(wall)
            a, b, c = (statistics.median(walls[m]) / 1e6 for m in ("off", "on", "all"))
            print(f"| {name} | {a:.1f} | {b:.1f} | {b / a:.3f} | {looked['on']:,} | {c:.1f} | {c / a:.3f} | "
                  f"{looked['all']:,} |", flush=True)
    _traced(lambda: None, "on")   # the module's thresholds back as they were


if __name__ == "__main__":
    main()
