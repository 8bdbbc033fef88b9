"""What sampling the arrays of each traced line costs the Python tracer (collect/line_arrays.py).

    python benchmarks/line_arrays_cost.py [--rounds 7]

Each workload (a user file, so its lines are traced as a script's are) runs under the Python tracer with
line sampling on (the default: the first two runs of each line described, the second under tracemalloc)
and off (``SAMPLES = 0``: the hooks still look each line up and a function's arguments are still described
at its first call; no line is described or measured), interleaved round by
round; medians of the traced wall, and their ratio. The workloads:

* ``kmeans``: 12 iterations of a numpy k-means step (a 40 MB broadcast temporary per run): few lines,
  large arrays, the case the sampling is for;
* ``calls``: a pure-Python loop calling a small function 200k times (the hook's fast path);
* ``iterrows``: a pandas per-row loop over 3,000 rows (library calls per line, a DataFrame operand);
* ``many_lines``: 3,000 distinct lines that each run once with a 1k-element array (every line sampled).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

WORKLOADS = {
    "kmeans": '''
import numpy as np
rng = np.random.default_rng(0)
X = rng.normal(size=(8000, 16)); C = rng.normal(size=(40, 16))
def main():
    for _ in range(12):
        d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(-1)
        labels = d.argmin(1)
    return labels
''',
    "calls": '''
def work(v, i):
    return len(v) + abs(i)
def main():
    t, v = 0, [0, 1, 2]
    for i in range(200_000):
        t += work(v, i)
    return t
''',
    "iterrows": '''
import numpy as np, pandas as pd
df = pd.DataFrame({"a": np.arange(3000.0), "b": np.arange(3000) % 7})
def main():
    t = 0.0
    for _, row in df.iterrows():
        t += row["a"] * row["b"]
    return t
''',
    "many_lines": "import numpy as np\nx = np.ones(1000)\ndef main():\n    t = 0.0\n"
                  + "".join(f"    t += float((x * {i}).sum())\n" for i in range(3000)) + "    return t\n",
}


def _load(name: str, src: str, folder: str):
    path = os.path.join(folder, f"{name}.py")
    with open(path, "w") as f:
        f.write(src)
    ns: dict = {}
    exec(compile(src, path, "exec"), ns)
    return ns["main"]


def _traced_ns(main, samples: int) -> int:
    from cann_nb.collect import python_tracer
    from cann_nb.collect.base import CollectOptions

    python_tracer.SAMPLES = samples
    tracer = python_tracer.PythonTracer(CollectOptions(), time.time_ns())
    t = time.perf_counter_ns()
    tracer.start()
    main()
    tracer.stop()
    return time.perf_counter_ns() - t


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    from cann_nb.collect import line_arrays, python_tracer

    default = line_arrays.SAMPLES
    print("| workload | sampling off ms | sampling on ms | on / off |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="cann_nb_bench_") as d:
        for name, src in WORKLOADS.items():
            fn = _load(name, src, d)
            fn()   # warm: imports, caches
            off, on = [], []
            for _ in range(args.rounds):
                off.append(_traced_ns(fn, 0))
                on.append(_traced_ns(fn, default))
            python_tracer.SAMPLES = default
            a, b = statistics.median(off) / 1e6, statistics.median(on) / 1e6
            print(f"| {name} | {a:.1f} | {b:.1f} | {b / a:.3f} |", flush=True)


if __name__ == "__main__":
    main()
