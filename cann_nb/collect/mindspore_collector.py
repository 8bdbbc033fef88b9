"""MindSpore collector: ``mindspore.profiler.profile`` around the user's code, in PyNative and Graph mode.

CPU (measured, MindSpore 2.10): with ``tensorboard_trace_handler(DIR, analyse_flag=False)`` ``stop()``
takes ~7 ms and writes only the raw ``FRAMEWORK/cpu_op_execute_timestamp_*.txt`` into DIR, which
``ingest/mindspore_cpu`` reads; the offline analysis (``analyse_flag=True``) would add ~1.1 s per
profile in a child process for files we do not need. Without a handler MindSpore writes into ``./data``
of the user's folder, so one is always given.

Ascend (``device_target`` Ascend): NPU activities too, then MindSpore's offline analysis into
``ASCEND_PROFILER_OUTPUT``, read by ``ingest/ascend``. Written to MindSpore's documented API; not run
here (no NPU on the machines this was written on).

One recording per process, like TensorFlow (framework_slot).
"""

from __future__ import annotations

import importlib.util
import logging
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from . import framework_slot
from .base import Collected, Collector
from .torch_collector import keep_first, quiet_stderr

FRAMEWORK = "mindspore"


def _on_ascend(ms) -> bool:
    try:
        return str(ms.get_context("device_target")).lower() == "ascend"
    except Exception:   # an unset or unknown context: the CPU path
        return False


@contextmanager
def _quiet_log():
    """MindSpore's Python logger warns at every start ("Profiler won't be using warmup"): not the user's."""
    from mindspore import log

    logger = log._get_logger()
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


class MindSporeCollector(Collector):
    name = "mindspore"

    @classmethod
    def unavailable_reason(cls) -> str | None:
        if importlib.util.find_spec("mindspore") is None:
            return "mindspore is not installed; pip install 'cann_nb[frameworks]' (or mindspore)"
        return framework_slot.busy_reason(FRAMEWORK)

    def __init__(self, options, t0_ns: int):
        super().__init__(options, t0_ns)
        self._dir: str | None = None
        self._prof = None
        self._ascend = False
        self._recording = False
        self.start_s = self.stop_s = None
        self.mode = None

    def start(self) -> None:
        busy = framework_slot.claim(FRAMEWORK, self)
        if busy:
            raise RuntimeError(busy)
        t = time.perf_counter()
        import mindspore as ms
        from mindspore.profiler import ProfilerActivity, profile, tensorboard_trace_handler

        self._ascend = _on_ascend(ms)
        self.mode = "graph" if ms.get_context("mode") == ms.GRAPH_MODE else "pynative"
        self._dir = tempfile.mkdtemp(prefix="cann_nb_ms_")
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.NPU] if self._ascend else [])
        handler = tensorboard_trace_handler(self._dir, analyse_flag=False)
        try:
            with _quiet_log():
                self._prof = profile(activities=acts, on_trace_ready=handler, start_profile=False,
                                     # on the CPU the shapes land in a file keyed by short op names that
                                     # several ops share (not read): recording them would only cost time
                                     record_shapes=self.options.shapes and self._ascend,
                                     profile_memory=self.options.memory and self._ascend, with_stack=self.options.stack)
                self._prof.start()
        except Exception:
            framework_slot.release(FRAMEWORK, self)
            raise
        self._recording = True
        self.start_s = time.perf_counter() - t

    def stop(self) -> None:
        if not self._recording:
            return
        self._recording = False
        t = time.perf_counter()
        try:
            with quiet_stderr(), _quiet_log():   # its C++ logging bypasses sys.stderr
                self._prof.stop()
        finally:
            framework_slot.release(FRAMEWORK, self)
        self.stop_s = time.perf_counter() - t

    def result(self) -> Collected:
        if self._dir is None:
            return Collected(meta={"status": "not started"})
        self.stop()
        import mindspore as ms

        runs = sorted(Path(self._dir).glob("*_ascend_ms"))
        if not runs:
            raise RuntimeError(f"MindSpore's profiler wrote no *_ascend_ms folder under {self._dir}")
        if self._ascend:
            from mindspore.profiler.profiler import analyse
            from ..ingest.ascend import read_ascend

            with quiet_stderr():
                analyse(str(runs[-1]))
            prof = read_ascend(runs[-1], t0_ns=self.t0_ns)
        else:
            from ..ingest.mindspore_cpu import read_mindspore_cpu

            prof = read_mindspore_cpu(runs[-1], t0_ns=self.t0_ns, name="mindspore")
        events, memory, dropped = keep_first(prof.events, prof.memory, self.options.buffer_events)
        counts = events["cat"].value_counts()
        meta = {"mindspore_version": ms.__version__, "mode": self.mode, "device_target": "Ascend" if self._ascend else "CPU",
                "start_s": self.start_s, "stop_s": self.stop_s,
                "event_counts": {str(k): int(v) for k, v in counts.items() if v}}
        return Collected(events=events, memory=memory, counters=prof.counters, meta=meta,
                         devices=[d for d in prof.meta.get("devices", []) if d.get("device") != "cpu"], dropped=dropped)

    def close(self) -> None:
        if self._recording:
            try:
                self.stop()
            except Exception:   # closing after an error: the original error is the one to see
                pass
        framework_slot.release(FRAMEWORK, self)
        self._prof = None
        if self._dir:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
