"""What measuring the profiler's own cost costs (collect/overhead.py, issue 13).

    python benchmarks/recording_cost.py [--rounds 9]

1. The in-run probe: the torch collector's ``stop()`` with its probe (3 x 100 index + .item() loops recorded,
   then bare; once per process, so the figure cache is cleared before each such stop) against ``stop()``
   with the probe switched off, interleaved round by round around the same small cell (200 tiny ops);
   medians. The probe's events also cost their reading in ``result()``, timed the same way.
2. The once-per-machine figures (torch.profiler with the default options, the Python tracer), measured into
   an empty cache folder: seconds, and the figures themselves.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time


def probe_cost(rounds: int) -> dict:
    import torch

    from cann_nb.collect import overhead
    from cann_nb.collect.base import CollectOptions
    from cann_nb.collect.torch_collector import TorchCollector

    x = torch.rand(64)
    with_probe = TorchCollector._probe_recorded
    out = {"with": [], "without": []}
    for _ in range(rounds):
        for side in ("with", "without"):
            TorchCollector._probe_recorded = with_probe if side == "with" else (lambda self: False)
            overhead.IN_RUN.clear()
            c = TorchCollector(CollectOptions(), time.time_ns())
            c.start()
            for i in range(50):
                x[i % 64].item()
            t = time.perf_counter_ns()
            c.stop()
            t1 = time.perf_counter_ns()
            c.result()
            out[side].append(((t1 - t) / 1e6, (time.perf_counter_ns() - t1) / 1e6))
            c.close()
    TorchCollector._probe_recorded = with_probe
    return {f"{k}_{part}": statistics.median(r[i] for r in v) for k, v in out.items()
            for i, part in enumerate(("stop", "result"))}


def machine_figures() -> dict:
    from cann_nb.collect import overhead

    with tempfile.TemporaryDirectory() as d:
        os.environ["CANN_NB_CACHE_DIR"] = d
        t = time.perf_counter()
        torch_fig = overhead.torch_cost(True, True, False)
        t_torch = time.perf_counter() - t
        t = time.perf_counter()
        py_fig = overhead.python_cost()
        t_py = time.perf_counter() - t
    return {"torch_s": t_torch, "torch_ns_per_op": torch_fig["ns_per_event"],
            "torch_ns_per_memory_event": torch_fig["ns_per_memory_event"],
            "python_s": t_py, "python_ns_per_record": py_fig["ns_per_record"]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=9)
    a = ap.parse_args(argv)
    p = probe_cost(a.rounds)
    print(f"stop() with the probe: {p['with_stop']:.2f} ms, without: {p['without_stop']:.2f} ms; result() "
          f"{p['with_result']:.2f} / {p['without_result']:.2f} ms (the probe: "
          f"{p['with_stop'] + p['with_result'] - p['without_stop'] - p['without_result']:.2f} ms, first profile of "
          "a process only)")
    m = machine_figures()
    print(f"torch figure: {m['torch_s']:.2f} s once per machine ({m['torch_ns_per_op']:.0f} ns per op, "
          f"{m['torch_ns_per_memory_event']:.0f} ns per allocation/free); Python tracer figure: {m['python_s']:.2f} s "
          f"({m['python_ns_per_record']:.0f} ns per record)")
    return p, m


if __name__ == "__main__":
    main()
