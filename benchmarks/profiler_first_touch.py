"""What a loop's 256 KiB temporary costs under torch.profiler, by the options it records with, against bare.

    python benchmarks/profiler_first_touch.py --runs 4      # ~40 s

Each run is a fresh process (whether the heap hands the freed block back depends on the process's layout):
``torch.zeros(256, 256)`` 2,000 times bare, then 2,000 times inside ``torch.profiler.profile`` after 20,000
tiny ops recorded (``x + 1``: the profiler's records fill the heap as a real trace's do), for each of
record_shapes x profile_memory. Per call: microseconds and minor page faults (``getrusage``), every run shown:
the effect is bimodal from one process to the next.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
import torch
from torch.profiler import profile

def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

def loop():
    f0, t0 = faults(), time.perf_counter()
    for _ in range(2000):
        torch.zeros(256, 256)
    return round(1e6 * (time.perf_counter() - t0) / 2000, 1), round((faults() - f0) / 2000, 1)

shapes, memory = sys.argv[1] == "1", sys.argv[2] == "1"
bare = loop()
x = torch.randn(4)
with profile(record_shapes=shapes, profile_memory=memory):
    for _ in range(20000):
        x + 1
    profiled = loop()
print(json.dumps({"bare": bare, "profiled": profiled}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=4)
    args = ap.parse_args()
    env = {**os.environ, "OMP_NUM_THREADS": "1", "KINETO_LOG_LEVEL": "99"}
    print("| record_shapes | profile_memory | bare us (faults) per call, each run | profiled us (faults) per call, each run |")
    print("|---|---|---|---|")
    for shapes, memory in (("1", "1"), ("1", "0"), ("0", "1"), ("0", "0")):
        got = []
        for _ in range(args.runs):
            r = subprocess.run([sys.executable, "-c", CHILD, shapes, memory], capture_output=True, text=True,
                               env=env, check=True)
            got.append(json.loads(r.stdout.strip().splitlines()[-1]))
        show = lambda k: ", ".join(f"{g[k][0]} ({g[k][1]})" for g in got)   # noqa: E731
        print(f"| {shapes == '1'} | {memory == '1'} | {show('bare')} | {show('profiled')} |")


if __name__ == "__main__":
    main()
