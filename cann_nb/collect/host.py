"""Host sampler: process and per-core CPU utilisation, RSS and (through NVML) GPU utilisation.

A daemon thread takes one sample every ``options.interval_s`` into preallocated numpy arrays; the
first sample is taken in ``start()`` and the last in ``stop()`` so that even a short cell gets a
before/after pair. The thread spends its time in ``Event.wait`` (GIL released); a sample holds the
GIL for the few tens of microseconds a sample needs. On Linux a sample is two ``pread``s of /proc files
kept open (``_ProcReader``) instead of psutil's open/read/close of each: next to a busy torch thread
every syscall gives up the GIL and must win it back, and benchmarks/sampler_cost.py measured 1.1 ms of
sampler CPU per sample against 1.3-2.3 ms with psutil; elsewhere psutil reads them.

Counter rows (``ts_ns`` relative to t0; a utilisation value covers the interval ending at ts_ns):

=============================  ============  =========================================================
metric                         source        value
=============================  ============  =========================================================
``cpu_util:process``           host          CPU time of this process / wall time, % of one core
                                             (can exceed 100 with several busy threads)
``cpu_util:system``            host          busy share of all cores, % (0-100)
``cpu_util:core N``            host          busy share of logical core N, %
``rss``                        host          resident set size of this process, bytes
``gpu_util``                   cuda:N        NVML: % of time a kernel was running
``gpu_mem_util``               cuda:N        NVML: % of time device memory was read or written
``gpu_mem_used``               cuda:N        NVML: device memory in use (all processes), bytes
=============================  ============  =========================================================
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
import threading
import time

import numpy as np
import pandas as pd

from .base import Collected, Collector
from ..model import categorical
from .clock import perf_to_epoch_offset

THREAD_NAME = "cann_nb-host-sampler"
_MIN_INTERVAL_S = 0.001
_FIRST_CAPACITY = 256  # samples; grows by doubling up to the buffer bound
_JOIN_TIMEOUT_S = 10.0
_GPU_METRICS = ("gpu_util", "gpu_mem_util", "gpu_mem_used")


_NO_CORES = np.zeros((0, 10))   # monitor windows sample no per-core times (cpu_cores=False)


class HostSampler(Collector):
    name = "host"

    @classmethod
    def unavailable_reason(cls) -> str | None:
        try:
            import psutil  # noqa: F401
        except ImportError:
            return "host sampler unavailable: psutil is not installed (pip install psutil)"
        return None

    def __init__(self, options, t0_ns: int):
        super().__init__(options, t0_ns)
        self._thread: threading.Thread | None = None
        self._halt = threading.Event()
        self._running = False
        self._error: str | None = None
        self._n = 0                 # samples stored
        self._dropped_samples = 0
        self._offset_ns = 0
        self._times = np.empty(0, dtype=np.int64)
        self._values = np.empty((0, 0), dtype=np.float64)
        self._reader = None         # /proc fast path (Linux), opened by start()

    # -- life cycle -------------------------------------------------------------------------
    def start(self) -> None:
        if self._running or self._thread is not None:
            raise RuntimeError("HostSampler.start() called twice; make a new sampler per run")
        import psutil

        self._psutil = psutil
        self._proc = psutil.Process()
        self._reader = _ProcReader.open()
        self._interval_s = max(float(self.options.interval_s), _MIN_INTERVAL_S)
        fields = _ProcReader.FIELDS if self._reader else psutil.cpu_times(percpu=True)[0]._fields
        # psutil's own definition of busy: total less idle/iowait; guest time is already in user/nice
        self._idle_cols = [i for i, f in enumerate(fields) if f in ("idle", "iowait")]
        self._guest_cols = [i for i, f in enumerate(fields) if f in ("guest", "guest_nice")]
        self._ncores = (0 if not getattr(self.options, "cpu_cores", True) else
                        len(self._reader.cores()) if self._reader else len(psutil.cpu_times(percpu=True)))
        self._nvml, self._gpus, self._gpu_note = _nvml_devices()
        self._metrics = _metric_names(self._ncores, bool(self.options.memory), [g["id"] for g in self._gpus])
        width = len(self._metrics)
        self._max_samples = max(int(self.options.buffer_events) // max(width, 1), 0)
        cap = min(_FIRST_CAPACITY, self._max_samples)
        self._times = np.empty(cap, dtype=np.int64)
        self._values = np.full((cap, width), np.nan)
        self._prev = None
        self._offset_ns = perf_to_epoch_offset() - self.t0_ns
        self._halt.clear()
        self._running = True
        self._sample()
        self._thread = threading.Thread(target=self._run, name=THREAD_NAME, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if not self._running:
            return
        self._join()
        self._running = False
        if self._error is None:
            try:
                self._sample()
            except Exception as exc:
                self._error = f"last sample failed: {type(exc).__name__}: {exc}"

    def close(self) -> None:
        self._join()
        self._running = False
        reader, self._reader = getattr(self, "_reader", None), None
        if reader:
            reader.close()

    def _join(self) -> None:
        self._halt.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(_JOIN_TIMEOUT_S)
            if thread.is_alive():  # only a hung driver call can get here; it is a daemon and ends with it
                self._error = f"sampler thread did not stop within {_JOIN_TIMEOUT_S:.0f} s"

    # -- sampling ---------------------------------------------------------------------------
    def _run(self) -> None:
        period_ns = int(self._interval_s * 1e9)
        due = time.perf_counter_ns() + period_ns
        try:
            while not self._halt.wait(max(due - time.perf_counter_ns(), 0) / 1e9):
                self._sample()
                due += period_ns
                now = time.perf_counter_ns()
                if due < now:  # fell behind (busy machine): skip missed ticks rather than burst
                    due = now + period_ns
        except Exception as exc:  # a sampler must never take the user's kernel down
            self._error = f"host sampling stopped: {type(exc).__name__}: {exc}"

    def _sample(self) -> None:
        # file reads first: each releases the GIL and may wait up to a switch interval (5 ms) to get
        # it back from a busy user thread; the clocks are read together after, so dt matches cpu_ns
        cores, rss = self._read_cores(), self._read_rss()
        gpu = _read_gpus(self._nvml, self._gpus) if self._gpus else ()
        t = time.perf_counter_ns()
        cpu_ns = time.process_time_ns()  # ns resolution; psutil's /proc figure ticks at 10 ms
        prev, self._prev = self._prev, (t, cpu_ns, cores)
        if self._n >= len(self._times) and not self._grow():
            self._dropped_samples += 1
            return
        row = self._values[self._n]      # rows start NaN (np.full) and are written once
        if prev is not None:
            dt = t - prev[0]
            row[0] = 100.0 * (cpu_ns - prev[1]) / dt if dt > 0 else np.nan
        if prev is not None and self._ncores:
            # difference the raw counters first: busy = total - idle on cumulative seconds since
            # boot would round to tiny negatives
            d = cores - prev[2]
            d_total = d.sum(axis=1) - d[:, self._guest_cols].sum(axis=1)
            d_busy = np.clip(d_total - d[:, self._idle_cols].sum(axis=1), 0.0, None)
            all_total = d_total.sum()
            row[1] = min(100.0 * d_busy.sum() / all_total, 100.0) if all_total > 0 else np.nan
            with np.errstate(divide="ignore", invalid="ignore"):
                row[2:2 + self._ncores] = np.where(d_total > 0, np.minimum(100.0 * d_busy / d_total, 100.0), np.nan)
        col = 2 + self._ncores
        if rss is not None:
            row[col] = rss
            col += 1
        if gpu:
            row[col:col + len(gpu)] = gpu
        self._times[self._n] = t
        self._n += 1

    def _read_cores(self) -> np.ndarray:
        """Per-core cumulative CPU times, psutil's columns (in ticks on Linux: only ratios are used)."""
        if not self._ncores:
            return _NO_CORES
        cores = self._reader.cores() if self._reader else np.array(self._psutil.cpu_times(percpu=True), dtype=np.float64)
        if len(cores) != self._ncores:   # a core went offline: keep the row layout, this interval unknown
            cores = np.full((self._ncores, cores.shape[1]), np.nan)
        return cores

    def _read_rss(self) -> int | None:
        if not self.options.memory:
            return None
        return self._reader.rss() if self._reader else self._proc.memory_info().rss

    def _grow(self) -> bool:
        cap = len(self._times)
        if cap >= self._max_samples:
            return False
        new = min(max(cap * 2, 1), self._max_samples)
        times = np.empty(new, dtype=np.int64)
        values = np.full((new, self._values.shape[1]), np.nan)
        times[:cap], values[:cap] = self._times, self._values
        self._times, self._values = times, values
        return True

    # -- output -----------------------------------------------------------------------------
    def result(self) -> Collected:
        n, width = self._n, len(getattr(self, "_metrics", ()))
        ts = self._times[:n] + self._offset_ns if n else np.empty(0, dtype=np.int64)
        values = self._values[:n].ravel()
        keep = ~np.isnan(values)  # first-sample utilisations and failed GPU reads are unknown, not 0
        sources = categorical([s for s, _ in getattr(self, "_metrics", ())])
        metrics = categorical([m for _, m in getattr(self, "_metrics", ())])
        col = np.tile(np.arange(width), n)[keep]
        counters = pd.DataFrame({
            "ts_ns": np.repeat(ts, width)[keep],
            "source": pd.Categorical.from_codes(sources.codes[col], categories=sources.categories),
            "metric": pd.Categorical.from_codes(metrics.codes[col], categories=metrics.categories),
            "value": values[keep],
        })
        return Collected(counters=counters, meta=self._meta(n, ts), devices=[{k: v for k, v in g.items() if k != "_handle"} for g in getattr(self, "_gpus", [])],
                         dropped=self._dropped_samples * width)

    def _meta(self, n: int, ts: np.ndarray) -> dict:
        meta = {
            "interval_s": getattr(self, "_interval_s", float(self.options.interval_s)),
            "samples": n,
            "dropped_samples": self._dropped_samples,
            "achieved_interval_ms": float(np.median(np.diff(ts)) / 1e6) if n > 2 else None,
            "clock": "perf_counter_ns shifted onto time.time_ns() at start",
            "process_cpu": "time.process_time_ns (all threads, user+system)",
            "cores": getattr(self, "_ncores", None),
            "rss": bool(self.options.memory),
            "gpu": getattr(self, "_gpu_note", None),
            "npu": _npu_note(),
        }
        if self._error:
            meta["error"] = self._error
        return meta


# -- helpers ---------------------------------------------------------------------------------
class _ProcReader:
    """/proc/stat per-core times and /proc/self/statm RSS through file descriptors kept open."""

    FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice")

    def __init__(self, stat_fd: int, statm_fd: int):
        self._stat, self._statm = stat_fd, statm_fd
        self._page = os.sysconf("SC_PAGE_SIZE")

    @classmethod
    def open(cls) -> "_ProcReader | None":
        if not sys.platform.startswith("linux"):
            return None
        try:
            reader = cls(os.open("/proc/stat", os.O_RDONLY), os.open("/proc/self/statm", os.O_RDONLY))
            reader.cores(), reader.rss()
            return reader
        except (OSError, ValueError, IndexError):
            return None

    def cores(self) -> np.ndarray:
        data = os.pread(self._stat, 1 << 20, 0)
        rows = [line.split()[1:11] for line in data.split(b"\n") if line[:3] == b"cpu" and line[3:4].isdigit()]
        out = np.zeros((len(rows), 10))
        for i, r in enumerate(rows):       # older kernels have fewer columns: the rest stay 0
            out[i, :len(r)] = np.array(r, dtype=np.float64)
        return out

    def rss(self) -> int:
        return int(os.pread(self._statm, 256, 0).split()[1]) * self._page

    def close(self) -> None:
        for fd in (self._stat, self._statm):
            try:
                os.close(fd)
            except OSError:
                pass
        self._stat = self._statm = -1

    def __bool__(self) -> bool:
        return self._stat >= 0



def _metric_names(ncores: int, rss: bool, gpu_ids: list[str]) -> list[tuple[str, str]]:
    """(source, metric) per column of a sample row, in row order."""
    names = [("host", "cpu_util:process"), ("host", "cpu_util:system")]
    names += [("host", f"cpu_util:core {i}") for i in range(ncores)]
    if rss:
        names.append(("host", "rss"))
    names += [(dev, m) for dev in gpu_ids for m in _GPU_METRICS]
    return names


@functools.lru_cache(maxsize=1)
def _nvml_devices():
    """(pynvml module or None, [device dicts with 'handle'], note). NVML is initialised once per process."""
    try:
        import pynvml
    except ImportError:
        return None, [], "unavailable: pynvml is not installed (pip install nvidia-ml-py)"
    try:
        pynvml.nvmlInit()
        count = pynvml.nvmlDeviceGetCount()
    except Exception as exc:
        return None, [], f"unavailable: NVML could not start ({exc}); no NVIDIA driver on this host?"
    if not count:
        return None, [], "unavailable: NVML reports no NVIDIA GPU"
    gpus = []
    for i in range(count):
        h = pynvml.nvmlDeviceGetHandleByIndex(i)
        name = pynvml.nvmlDeviceGetName(h)
        gpus.append({"id": f"cuda:{i}", "kind": "gpu", "source": "nvml",
                     "name": name.decode() if isinstance(name, bytes) else str(name),
                     "memory_total_bytes": int(pynvml.nvmlDeviceGetMemoryInfo(h).total), "_handle": h})
    return pynvml, gpus, f"sampled through NVML: {count} device(s)"


def _read_gpus(nvml, gpus) -> list[float]:
    out: list[float] = []
    for g in gpus:
        try:
            u = nvml.nvmlDeviceGetUtilizationRates(g["_handle"])
            out += [float(u.gpu), float(u.memory), float(nvml.nvmlDeviceGetMemoryInfo(g["_handle"]).used)]
        except Exception:  # a transient NVML error loses this reading only
            out += [np.nan] * len(_GPU_METRICS)
    return out


def _npu_note() -> str:
    if "torch_npu" in sys.modules or shutil.which("npu-smi") or os.path.exists("/dev/davinci0"):
        return ("unavailable: NPU utilisation is not sampled (npu-smi is far too slow to poll); "
                "NPU activity comes from the torch collector's torch_npu trace")
    return "unavailable: no Ascend NPU on this host (no torch_npu, npu-smi or /dev/davinci0)"
