"""What a fresh host allocation costs beyond the work written into it, measured once per machine and cached.

A large tensor allocated anew in every iteration of a loop is not free even when the allocator is fast:
memory the allocator returned to the OS comes back as untouched pages, and the first write to each page
faults (the kernel maps and zeroes it). Whether that happens, and what it costs per byte, depends on the
allocator and the machine (glibc hands blocks over its mmap threshold back to the OS on free), so it is
measured the way a loop meets it and the fix removes it: an elementwise product into a fresh output of
each size (allocated, written, freed), several times in a row, minus the same product into a kept output.

Cached next to the CPU peaks (``$CANN_NB_CACHE_DIR/first_touch.json``), keyed by CPU model and core count;
a profile from another machine gets no figure (NaN), never this one's.
"""

from __future__ import annotations

import datetime as _dt
import math
import time

import numpy as np

SIZES_MIB = (1, 4, 16, 64, 256)
ROUNDS = 4


CACHE_FILE = "first_touch.json"


def _key(meta: dict):
    from ..collect.environment import machine_key
    env = (meta or {}).get("environment") or {}
    return machine_key(env.get("cpu_model"), env.get("cpu_count"))


def measure() -> dict:
    """{size in bytes: extra ns per byte of a fresh output of that size} for this machine: an
    elementwise product into a fresh tensor (allocated, written, freed: a loop's temporary) against the
    same product into an output kept across iterations (``out=``), steady state, median of rounds."""
    try:
        import torch

        def inputs(n):
            return torch.ones(n // 4), torch.ones(n // 4), torch.empty(n // 4)

        def fresh(x, y, _):
            return torch.mul(x, y)

        def reused(x, y, out):
            return torch.mul(x, y, out=out)
    except ImportError:
        def inputs(n):
            return np.ones(n // 4, np.float32), np.ones(n // 4, np.float32), np.empty(n // 4, np.float32)

        def fresh(x, y, _):
            return np.multiply(x, y)

        def reused(x, y, out):
            return np.multiply(x, y, out=out)
    out = {}
    for mib in SIZES_MIB:
        n = mib * 1024 ** 2
        x, y, kept = inputs(n)
        reused(x, y, kept)
        extra = []
        for _ in range(ROUNDS):
            t0 = time.perf_counter_ns()
            tmp = fresh(x, y, None)
            del tmp
            t1 = time.perf_counter_ns()
            reused(x, y, kept)
            t2 = time.perf_counter_ns()
            extra.append(max(0.0, ((t1 - t0) - (t2 - t1)) / n))
        del x, y, kept
        out[str(n)] = float(np.median(extra[1:]))     # steady state: the allocator has seen the size before
    return out


def per_byte_cost(meta: dict) -> dict | None:
    """The measured table for the profile's machine ({bytes: ns per byte}), or None (another machine)."""
    key = _key(meta)
    if key is None:
        return None
    from ..collect.environment import read_cache, this_machine_key, write_cache
    got = read_cache(CACHE_FILE).get(key)
    if got is None and key == this_machine_key():
        got = {"ns_per_byte": measure(), "date": _dt.date.today().isoformat()}
        write_cache(CACHE_FILE, key, got)
    return {int(k): float(v) for k, v in got["ns_per_byte"].items()} if got else None


def fresh_cost_ns(nbytes: np.ndarray, table: dict) -> np.ndarray:
    """Extra ns each fresh allocation of ``nbytes`` pays, from the measured size class at or below it."""
    nbytes = np.asarray(nbytes, dtype=float)
    if not table:
        return np.full(len(nbytes), math.nan)
    sizes = np.array(sorted(table), dtype=float)
    rates = np.array([table[int(s)] for s in sizes])
    k = np.searchsorted(sizes, nbytes, side="right") - 1
    rate = np.where(k >= 0, rates[np.maximum(k, 0)], 0.0)   # under the smallest measured size: no cost known
    return rate * nbytes
