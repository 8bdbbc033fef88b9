"""What every collector implements, and what it hands back.

Life cycle, driven by collect/session.py:  ``start()`` -> [``step()``...] -> ``stop()`` -> ``result()``.
``start``/``stop`` bracket the user's code and must be cheap; all conversion work happens in
``result()``, after the user's code has finished. ``close()`` releases everything and is idempotent
(called on errors and Ctrl-C too).

Clock: every collector reports times as int64 ns relative to the session's ``t0_ns``, an epoch
instant taken with ``time.time_ns()``. A collector whose source clock differs converts (and says how
in its meta).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar

import pandas as pd


# One host sample costs ~1 ms of CPU next to busy threads (benchmarks/sampler_cost.py): every 20 ms
# that took 4-6 % of a 2-core CNN cell, every 50 ms 1-3 % (benchmarks/host_interval.py).
DEFAULT_INTERVAL_S = 0.05


@dataclass
class CollectOptions:
    """The user's choices, shared by all collectors (each uses what applies to it)."""

    memory: bool = True          # allocation/free events (torch) and RSS samples (host)
    shapes: bool = True          # input shapes and dtypes of ops (FLOPs, bytes and the roofline need them)
    stack: bool = False          # Python call stacks / python function events
    flops: bool = False          # FLOP estimates of matmul/conv ops
    values: bool = True          # value signatures of torch calls (torch_values; needs shapes and memory)
    interval_s: float = DEFAULT_INTERVAL_S   # host sampler period
    cpu_cores: bool = True       # host: per-core and system CPU (/proc/stat; some VMs take ms to make it)
    buffer_events: int = 5_000_000  # bound on events kept per collector; beyond it they are dropped and counted
    max_memory: int | None = None   # bytes the collection may add (collect/budget.py); None: sized from the machine
    max_events: int | None = None   # an explicit bound on recorded torch ops (and on every collector's events)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Collected:
    """A collector's contribution to a Profile: partial tables plus its meta entry."""

    events: pd.DataFrame | None = None
    memory: pd.DataFrame | None = None
    counters: pd.DataFrame | None = None
    meta: dict = field(default_factory=dict)      # goes to profile.meta["collectors"][name]
    devices: list = field(default_factory=list)   # device descriptions for profile.meta["devices"]
    dropped: int = 0                              # events lost to the buffer bound


class Collector(ABC):
    name: ClassVar[str]
    # True for collectors that trace every call of the thread (the Python tracer): the session starts
    # them last and stops them first, so that its own bookkeeping is not recorded.
    traces_calls: ClassVar[bool] = False

    def __init__(self, options: CollectOptions, t0_ns: int):
        self.options = options
        self.t0_ns = t0_ns

    @classmethod
    @abstractmethod
    def unavailable_reason(cls) -> str | None:
        """None when the collector can run here, otherwise a one-line reason for the user."""

    @abstractmethod
    def start(self) -> None: ...

    def step(self) -> None:
        """Mark an iteration boundary (repeat N / Profiler.step()); optional."""

    @abstractmethod
    def stop(self) -> None: ...

    @abstractmethod
    def result(self) -> Collected: ...

    def close(self) -> None:
        """Release resources; safe to call more than once and after a failed start."""
