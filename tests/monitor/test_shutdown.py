"""Clean shutdown at interpreter exit: a process that never calls stop() still ends promptly, with its
partial window stored and the monitor thread joined (atexit + daemon thread join with timeout).

(These once failed about half the time with SIGSEGV at exit, when bursts ran torch.profiler inside the
served thread and a burst was left open in a thread that ended; bursts now record all threads from the
monitor's own thread, see monitor/burst.py.)"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent("""
    import atexit, sys, threading, time
    out = sys.argv[1]

    def check():   # registered before cann_nb's handler, so it runs after it (atexit is LIFO)
        alive = [t.name for t in threading.enumerate() if t.name.startswith("cann_nb-")]
        print("threads at exit:", alive, flush=True)
    atexit.register(check)

    import torch
    import cann_nb
    model = torch.nn.Linear(32, 32)
    x = torch.randn(4, 32)

    def predict(v):
        if {raise_every} and int(time.perf_counter_ns()) % {raise_every} == 0:
            raise RuntimeError("served code failed")
        return model(v)

    mon = cann_nb.start_continuous_monitoring(interval=0.3, sample_rate=0.3, fn=predict, output_path=out,
                                              name="svc")
    def serve(seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                mon(x)
            except RuntimeError:
                pass
            time.sleep(0.001)
    # (not a daemon: torch itself aborts at exit, "terminate called without an active exception", when a
    # daemon thread is inside a torch op while the interpreter finalises, with or without cann_nb)
    threading.Thread(target=serve, args=(2.5,)).start()
    {tail}
    print("main done", flush=True)
""")


def _run(tmp_path, tail="", raise_every=0):
    script = tmp_path / "serve.py"
    script.write_text(SCRIPT.format(tail=tail, raise_every=raise_every))
    t = time.monotonic()
    proc = subprocess.run([sys.executable, str(script), str(tmp_path / "out")], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    return proc, time.monotonic() - t


def _windows(tmp_path):
    d = tmp_path / "out" / "svc.monitor"
    return [json.loads((w / "meta.json").read_text())["monitor"] for w in sorted(d.glob("w*"))]


def test_exit_without_stop_stores_the_partial_window_and_joins(tmp_path):
    proc, took = _run(tmp_path, raise_every=7)
    assert proc.returncode == 0, proc.stderr
    assert "main done" in proc.stdout
    assert "threads at exit: []" in proc.stdout            # monitor, host sampler and custom threads all gone
    assert "Traceback" not in proc.stderr and "Segmentation" not in proc.stderr
    windows = _windows(tmp_path)
    assert len(windows) >= 2 and windows[-1]["partial"] is True
    assert sum(w["calls"] for w in windows) > 100 and sum(w["errors"] for w in windows) > 0
    assert took < 60


def test_exit_while_the_main_thread_raises(tmp_path):
    proc, _ = _run(tmp_path, tail="serve(1.0); raise SystemExit(3)")
    # (the exit code, not the stderr text: torch.profiler's conversion mutes fd 2 for all threads briefly)
    assert proc.returncode == 3
    assert "threads at exit: []" in proc.stdout
    assert _windows(tmp_path)[-1]["partial"] is True
