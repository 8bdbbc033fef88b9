"""TensorFlow collector: TF's own profiler (``tf.profiler.experimental.start/stop``) into a temporary
logdir, then the XProf ``*.xplane.pb`` it writes, read by ``ingest/xprof.read_xplane``.

What it records (TF 2.21 CPU, ../shared/docs/frameworks-notes.md): graph ops of tf.functions (Keras
``fit``/``predict``) on ``tf_Compute`` threads as ``node:OpType`` (oneDNN fuses Dense layers:
``_MklNativeFusedMatMul``), eager ops as ``EagerLocalExecute: MatMul`` on the python thread, the
runtime around them, tf.data iterators; device planes when TF has a GPU. Costs: start ~0 s, stop
0.04-0.13 s (TF serialises the XSpace); the reading happens in ``result()``.

TensorFlow runs one profiler per process: a second start raises ``AlreadyExistsError``. The
collector holds the process's "tensorflow" slot (framework_slot) while it records, so a second cann_nb
profile says so up front; a profiler the user started themselves is reported the same way.
"""

from __future__ import annotations

import importlib.util
import shutil
import tempfile
import time
from pathlib import Path

from . import framework_slot
from .base import Collected, Collector
from .torch_collector import keep_first, quiet_stderr

FRAMEWORK = "tensorflow"


class TensorFlowCollector(Collector):
    name = "tensorflow"

    @classmethod
    def unavailable_reason(cls) -> str | None:
        if importlib.util.find_spec("tensorflow") is None:   # no import: it takes seconds
            return "tensorflow is not installed; pip install 'cann_nb[frameworks]' (or tensorflow-cpu)"
        return framework_slot.busy_reason(FRAMEWORK)

    def __init__(self, options, t0_ns: int):
        super().__init__(options, t0_ns)
        self._logdir: str | None = None
        self._recording = False
        self.start_s = self.stop_s = None

    def start(self) -> None:
        busy = framework_slot.claim(FRAMEWORK, self)
        if busy:
            raise RuntimeError(busy)
        t = time.perf_counter()
        import tensorflow as tf

        self._logdir = tempfile.mkdtemp(prefix="cann_nb_tf_")
        options = tf.profiler.experimental.ProfilerOptions(host_tracer_level=2, device_tracer_level=1,
                                                           python_tracer_level=1 if self.options.stack else 0)
        try:
            with quiet_stderr():   # TF logs "Profiler session initializing" lines on fd 2
                tf.profiler.experimental.start(self._logdir, options=options)
        except tf.errors.AlreadyExistsError:
            framework_slot.release(FRAMEWORK, self)
            raise RuntimeError("TensorFlow's profiler is already recording in this process (started outside "
                               "cann_nb?); TensorFlow records one profile at a time: stop it first "
                               "(tf.profiler.experimental.stop())") from None
        self._recording = True
        self.start_s = time.perf_counter() - t

    def stop(self) -> None:
        if not self._recording:
            return
        import tensorflow as tf

        self._recording = False
        t = time.perf_counter()
        try:
            with quiet_stderr():
                tf.profiler.experimental.stop()
        finally:
            framework_slot.release(FRAMEWORK, self)
        self.stop_s = time.perf_counter() - t

    def result(self) -> Collected:
        if self._logdir is None:
            return Collected(meta={"status": "not started"})
        self.stop()
        from ..ingest.xprof import find_xplanes, read_xplane

        files = find_xplanes(Path(self._logdir))
        if not files:
            raise RuntimeError(f"TensorFlow's profiler wrote no *.xplane.pb under {self._logdir}")
        prof = read_xplane(files[-1], t0_ns=self.t0_ns, name="tensorflow")
        events, memory, dropped = keep_first(prof.events, prof.memory, self.options.buffer_events)
        import tensorflow as tf

        counts = events["cat"].value_counts()
        meta = {"tensorflow_version": tf.__version__, "start_s": self.start_s, "stop_s": self.stop_s,
                "xplane_bytes": files[-1].stat().st_size, "planes": prof.meta["xprof"]["planes"],
                "event_counts": {str(k): int(v) for k, v in counts.items() if v},
                "skipped": prof.meta.get("skipped", {})}
        return Collected(events=events, memory=memory, meta=meta, devices=prof.meta.get("devices", []),
                         dropped=dropped)

    def close(self) -> None:
        if self._recording:
            try:
                self.stop()
            except Exception:   # closing after an error: the original error is the one to see
                pass
        framework_slot.release(FRAMEWORK, self)
        if self._logdir:
            shutil.rmtree(self._logdir, ignore_errors=True)
            self._logdir = None
