"""The host CPU's peaks, measured once per machine and cached.

A datasheet figure is not what a profiled CPU op can reach (turbo and AVX clocks, cores shared with
other processes, the BLAS the framework links), so the roof is measured the way the work runs: a
square float32 (and float64) matmul in torch when it is installed (numpy otherwise) with the library's
default threads, best of a few repeats, for FLOP/s; a large array copy (read + write) for bytes/s.

Cached in ``$CANN_NB_CACHE_DIR`` (default ``$XDG_CACHE_HOME/cann_nb`` or ``~/.cache/cann_nb``)
``/cpu_peaks.json``, keyed by CPU model and logical core count, so a profile taken on another machine
never gets this machine's figures: its peaks are NaN unless that machine measured itself into the cache.
"""

from __future__ import annotations

import datetime as _dt
import math
import time
from pathlib import Path

from ...collect.environment import cache_dir, machine_key, read_cache, this_machine_key, write_cache
from .peaks import Peaks

MATMUL_N = {"fp32": 1536, "fp64": 1024}
COPY_BYTES = 128 * 1024 ** 2
REPEATS = 5
BUDGET_S = 3.0     # per measurement: stop repeating after this long


def cache_path() -> Path:
    return cache_dir() / "cpu_peaks.json"


def cpu_peaks(meta: dict) -> Peaks:
    """The CPU peaks for a profile: from the cache when its machine measured itself, measured now when
    the profile comes from this machine, else NaN with the reason."""
    env = meta.get("environment") or {}
    key = machine_key(env.get("cpu_model"), env.get("cpu_count"))
    if key is None:
        return Peaks("cpu", None, {}, math.nan, "host CPU: the profile does not say which CPU ran it (imported "
                                                 "trace), so no measured peak applies")
    cached = _read().get(key)
    if cached is not None and "threads" not in cached and key == this_machine_key():
        cached = None     # measured before the thread count was kept: measure again
    if cached is None and key == this_machine_key():
        cached = measure()
        _write(key, cached)
    if cached is None:
        return Peaks("cpu", env.get("cpu_model"), {}, math.nan,
                     f"host CPU '{key}' is not this machine and never measured itself into {cache_path()}")
    flops, note = dict(cached["flops"]), ""
    measured_threads = cached.get("threads")
    run_threads = (env.get("torch") or {}).get("num_threads")
    if isinstance(measured_threads, int) and isinstance(run_threads, int) and 0 < run_threads < measured_threads:
        # the run's ops could use only its own threads (OMP_NUM_THREADS, torch.set_num_threads)
        flops = {k: v * run_threads / measured_threads for k, v in flops.items()}
        note = f"; FLOP/s scaled to the run's {run_threads} of {measured_threads} threads"
    return Peaks("cpu", key, flops, float(cached["bytes_per_s"]),
                 f"measured on this machine ({cached['date']}): {cached['method']}{note}")


def measure() -> dict:
    """Best-of-N FLOP/s of square matmuls per dtype and bytes/s of a large copy, on this machine now."""
    try:
        import torch
        threads = torch.get_num_threads()
        lib = f"torch {torch.__version__} ({threads} threads)"

        def matmul(n, dtype):
            a = torch.randn(n, n, dtype=getattr(torch, {"fp32": "float32", "fp64": "float64"}[dtype]))
            return lambda: torch.mm(a, a)
    except ImportError:
        import numpy as np
        lib, threads = f"numpy {np.__version__}", None

        def matmul(n, dtype):
            a = np.random.default_rng(0).standard_normal((n, n)).astype({"fp32": "float32", "fp64": "float64"}[dtype])
            return lambda: a @ a
    import numpy as np
    flops = {}
    for dtype, n in MATMUL_N.items():
        flops[dtype] = 2.0 * n ** 3 / _best(matmul(n, dtype))
    src = np.ones(COPY_BYTES // 8)
    dst = np.empty_like(src)
    bw = 2.0 * COPY_BYTES / _best(lambda: np.copyto(dst, src))
    return {"flops": flops, "bytes_per_s": bw, "threads": threads, "date": _dt.date.today().isoformat(),
            "method": f"best of {REPEATS}: {lib} square matmul "
                      + ", ".join(f"{d} n={n}" for d, n in MATMUL_N.items())
                      + f"; numpy copy of {COPY_BYTES // 1024 ** 2} MiB (read + write)"}


def _best(fn) -> float:
    fn()   # warm-up: allocation, thread pool, page faults
    best, t_end = math.inf, time.perf_counter() + BUDGET_S
    for _ in range(REPEATS):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
        if time.perf_counter() > t_end:
            break
    return best


def _read() -> dict:
    return read_cache(cache_path().name)


def _write(key: str, value: dict) -> None:
    write_cache(cache_path().name, key, value)
