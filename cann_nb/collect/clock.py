"""The one clock conversion every collector needs: perf_counter_ns (monotonic, fine) onto time.time_ns."""

from __future__ import annotations

import time


def perf_to_epoch_offset(reads: int = 5) -> int:
    """time.time_ns() - time.perf_counter_ns(), from the tightest of a few bracketed reads."""
    best = None
    for _ in range(reads):
        a = time.perf_counter_ns()
        wall = time.time_ns()
        b = time.perf_counter_ns()
        if best is None or b - a < best[0]:
            best = (b - a, wall - (a + b) // 2)
    return best[1]
