"""What the host sampler costs a profiled cell, by sampling interval (the basis of --interval's default).

The same CPU cell (6 training steps of overhead.py's small CNN, 2 torch threads) runs under the torch collector
alone and under torch + host sampler at several intervals, interleaved in random order round by round
in one process, so machine drift hits every variant alike. Reported: median cell wall time per variant
and its ratio to torch alone. On a 2-core machine the sampler competes with torch's threads for CPU.

    python benchmarks/host_interval.py [--rounds 21] [--intervals 20,50,100]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

os.environ.setdefault("KINETO_LOG_LEVEL", "99")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--intervals", default="20,50,100", help="host sampling intervals in ms")
    args = ap.parse_args()

    import torch

    from cann_nb.collect.base import CollectOptions
    from cann_nb.collect.session import CollectionSession
    from cann_nb.collect.torch_collector import TorchCollector
    from overhead import SETUP   # the CNN workload of overhead.py (this script's folder is on sys.path)

    ns: dict = {}
    exec(SETUP["cnn"], ns)
    work = ns["work"]             # 3 training steps

    def cell():
        work()
        work()

    TorchCollector.warm_up()
    variants = {"torch only": (("torch",), 0.05)}
    for ms in (float(v) for v in args.intervals.split(",")):
        variants[f"torch + host every {ms:g} ms"] = (("torch", "host"), ms / 1000)
    times: dict[str, list] = {k: [] for k in variants}
    rng = random.Random(0)
    for r in range(args.rounds + 1):
        order = list(variants)
        rng.shuffle(order)
        for name in order:
            collectors, interval = variants[name]
            s = CollectionSession("bench", collectors, CollectOptions(interval_s=interval))
            s.start()
            t = time.perf_counter()
            cell()
            dt = time.perf_counter() - t
            s.stop()
            s.close()
            if r:                       # round 0 warms every variant up
                times[name].append(dt)
    base = statistics.median(times["torch only"])
    print(f"torch {torch.__version__}, {os.cpu_count()} cores, {args.rounds} rounds, medians")
    print("| variant | cell ms | vs torch only |\n|---|---:|---:|")
    for name, v in times.items():
        print(f"| {name} | {statistics.median(v) * 1e3:.1f} | {statistics.median(v) / base:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
