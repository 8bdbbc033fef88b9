"""The profiler's own cost per recorded event: measured on this machine, cached, written into meta."""

import json
import math

from cann_nb.collect import overhead


def test_torch_cost_is_measured_once_and_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("CANN_NB_CACHE_DIR", str(tmp_path))
    got = overhead.torch_cost(True, True, False)
    assert math.isfinite(got["ns_per_event"]) and got["ns_per_event"] > 0
    assert got["ns_per_memory_event"] >= 0 and "interleaved" in got["method"]
    cached = json.loads((tmp_path / "profiler_overhead.json").read_text())
    assert list(cached.values()) == [got]
    assert overhead.torch_cost(True, True, False) == got          # read back, not measured again


def test_python_tracer_cost_per_record(tmp_path, monkeypatch):
    monkeypatch.setenv("CANN_NB_CACHE_DIR", str(tmp_path))
    entered = []
    measure = overhead._measure_python
    monkeypatch.setattr(overhead, "_measure_python", lambda: entered.append(1) or measure())
    got = overhead.python_cost()
    # CPython's cost of calling a Python-level hook is ~0.1 us; a record cannot be free, nor cost a millisecond
    assert 10 < got["ns_per_record"] < 1_000_000
    # measured once: the probe reads its spans without the meta that asks for this figure (that recursion
    # measured it again at every level, ~100 s on a fresh machine)
    assert len(entered) == 1


def test_a_failed_probe_is_said_not_raised():
    def probe():
        raise RuntimeError("another profiler is already active")
    assert overhead.describe(probe) == {"error": "RuntimeError: another profiler is already active"}


def test_collectors_write_the_figure_into_meta(tmp_path, monkeypatch):
    monkeypatch.setenv("CANN_NB_CACHE_DIR", str(tmp_path))
    from cann_nb.collect.base import CollectOptions
    from cann_nb.collect.python_tracer import PythonTracer

    tr = PythonTracer(CollectOptions(), 0)
    tr.start()
    sum(abs(i) for i in range(100))
    tr.stop()
    meta = tr.result().meta
    assert meta["overhead"]["ns_per_record"] > 0 and meta["records"] == tr.records_written > 0


def test_the_torch_collector_measures_in_the_run_and_drops_its_probe(tmp_path, monkeypatch):
    monkeypatch.setenv("CANN_NB_CACHE_DIR", str(tmp_path))
    torch = __import__("pytest").importorskip("torch")
    import time

    from cann_nb.collect.base import CollectOptions
    from cann_nb.collect.torch_collector import TorchCollector

    x = torch.rand(8)
    c = TorchCollector(CollectOptions(), time.time_ns())
    c.start()
    for i in range(50):
        x[i % 8].item()
    c.stop()
    got = c.result()
    ov = got.meta["overhead"]
    assert ov["in_run_ns_per_event"] > 0 and "after the user's code" in ov["in_run_method"]
    # the probe's 3 x 300 .item() calls are not the user's
    assert (got.events["name"].astype(str) == "aten::item").sum() == 50
