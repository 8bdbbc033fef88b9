"""A monitoring burst: torch.profiler recording every thread for a short while, driven by the window thread.

torch.profiler normally records only the thread that starts it, and it must be stopped by that same
thread: stopping it from another thread, or leaving it running in a thread that ends, crashes the
process (at once, or at interpreter exit). A burst therefore uses torch's ``profile_all_threads``
experimental option and is started *and* stopped by the monitor's window thread: the served threads
are recorded without running any profiler code, and nothing is ever left open in a thread that may end.

While a burst records, it holds the process's torch.profiler slot (``collect/session.py``): a
``Profiler``/``%%cann_profile`` run that starts meanwhile asks it to give way (``preempt``), the burst
ends early and the run gets torch.profiler; a burst never starts while one of those records.

The recording is converted the way the torch collector does it (the C++ Chrome-trace exporter, then
``read_kineto``), on the window thread, after the burst.
"""

from __future__ import annotations

import time

from ..collect import budget


def unsupported_reason() -> str | None:
    """None when all-thread bursts can run here, else why not."""
    try:
        import torch  # noqa: F401
        from torch._C._profiler import _ExperimentalConfig

        _ExperimentalConfig(profile_all_threads=True)
    except ImportError:
        return "torch is not importable"
    except TypeError:
        return "this torch has no profile_all_threads option (torch >= 2.8 needed for monitoring bursts)"
    except Exception as exc:
        return f"torch.profiler cannot record all threads here ({type(exc).__name__}: {exc})"
    return None


class Burst:
    """One all-thread torch.profiler recording; ``start``/``stop``/``profile`` on the same thread."""

    def __init__(self, name: str, options, on_preempt=None):
        self.name = name                  # the slot's owner label
        self.options = options
        self._on_preempt = on_preempt
        self.preempted = False
        self._prof = None
        self.t0_ns = 0
        self.start_perf_ns = self.stop_perf_ns = 0
        self.error: str | None = None
        self.guard = None                 # the memory budget's watcher (collect/budget.py)

    def start(self) -> bool:
        """Claim the slot and start recording; False (nothing started) when torch is busy or fails."""
        from ..collect.session import _claim_torch, _release_torch
        from ..collect.torch_collector import TorchCollector, quiet_stderr

        if _claim_torch(self, wait_s=0):
            return False
        try:
            from torch._C._profiler import _ExperimentalConfig
            from torch.profiler import profile

            o = self.options
            self._prof = profile(activities=TorchCollector._activities(), record_shapes=o.shapes or o.flops,
                                 profile_memory=o.memory, with_stack=o.stack,
                                 experimental_config=_ExperimentalConfig(profile_all_threads=True))
            self.t0_ns = time.time_ns()
            with quiet_stderr():
                self._prof.start()
            self.start_perf_ns = time.perf_counter_ns()
            # [issue 19] the memory budget: past it the window thread is woken and ends the burst itself
            self.guard = budget.Guard(budget.resolve(o).pause_at(o.shapes or o.flops, o.stack),
                                      lambda full: None, self.t0_ns, notify=self._on_preempt).start()
            return True
        except Exception as exc:
            self.error = f"burst start failed: {type(exc).__name__}: {exc}"
            self._prof = None
            _release_torch(self)
            return False

    def stop(self) -> None:
        from ..collect.session import _release_torch
        from ..collect.torch_collector import quiet_stderr

        if self._prof is None or self.stop_perf_ns:
            return
        self.stop_perf_ns = time.perf_counter_ns()
        if self.guard is not None:
            self.guard.stop()
        try:
            with quiet_stderr():
                self._prof.stop()
        except Exception as exc:
            self.error = f"burst stop failed: {type(exc).__name__}: {exc}"
        finally:
            _release_torch(self)

    def preempt(self) -> None:
        """Another profile wants torch.profiler: end this burst now (called from that thread)."""
        self.preempted = True
        if self._on_preempt is not None:
            self._on_preempt()

    @property
    def seconds(self) -> float:
        return max(self.stop_perf_ns - self.start_perf_ns, 0) / 1e9

    def profile(self):
        """(Profile of the recording, events dropped at options.buffer_events); after stop()."""
        from ..collect.torch_collector import keep_first, read_torch_trace

        self.stop()
        if self._prof is None:
            return None, 0
        try:
            prof = read_torch_trace(self._prof, self.t0_ns, self.options.stack, self.name)
        finally:
            self._prof = None
        o = self.options
        bound = min(int(o.buffer_events), budget.resolve(o).events_bound(o.shapes or o.flops, o.stack))
        prof.events, prof.memory, dropped = keep_first(prof.events, prof.memory, bound)
        return prof, dropped
