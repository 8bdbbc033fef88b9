"""CPU one host sample costs in the sampling thread while another thread keeps the GIL busy.

A torch MLP is served in a loop on one thread (as in benchmarks/monitoring.py); a second thread takes
a sample every ``--interval`` s, either through psutil (open/read/close of /proc/stat and
/proc/self/statm each time) or through the sampler's ``_ProcReader`` (two ``pread``s of descriptors
kept open), alternating in blocks; ``time.thread_time`` around each read gives its CPU.

    python benchmarks/sampler_cost.py [--samples 25] [--interval 0.2] [--rounds 2]
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

import numpy as np
import psutil
import torch

from cann_nb.collect.host import _ProcReader


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=25)
    ap.add_argument("--interval", type=float, default=0.2)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    stop = threading.Event()
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    x = torch.randn(8, 64)

    def serve():
        torch.set_num_threads(1)
        with torch.inference_mode():
            while not stop.is_set():
                model(x)

    proc, reader = psutil.Process(), _ProcReader.open()
    ways = {"psutil": lambda: (np.array(psutil.cpu_times(percpu=True)), proc.memory_info().rss)}
    if reader:
        ways["pread"] = lambda: (reader.cores(), reader.rss())
    server = threading.Thread(target=serve, daemon=True)
    server.start()
    cost = {k: [] for k in ways}
    for _ in range(args.rounds):
        for name, read in ways.items():
            def sampler():
                for _ in range(args.samples):
                    stop.wait(args.interval)
                    t = time.thread_time()
                    read()
                    cost[name].append(time.thread_time() - t)
            th = threading.Thread(target=sampler)
            th.start()
            th.join()
    stop.set()
    for name, v in cost.items():
        print(f"{name}: {1e3 * statistics.median(v):.2f} ms sampler CPU per sample (median of {len(v)})")


if __name__ == "__main__":
    main()
