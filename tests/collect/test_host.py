"""Host sampler and environment description, on this real machine (no mocks)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from cann_nb.collect import CollectOptions, get
from cann_nb.collect.environment import describe_environment
from cann_nb.collect.host import THREAD_NAME, HostSampler
from cann_nb.model import Profile


def _sampler_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == THREAD_NAME]


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        n += 1


@pytest.fixture
def sampler():
    made = []

    def make(**opts):
        s = HostSampler(CollectOptions(**opts), time.time_ns())
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()
    assert not _sampler_threads()


def _series(result, metric):
    c = result.counters
    return c[c["metric"] == metric].sort_values("ts_ns")["value"].to_numpy()


def test_registered_and_available():
    assert get("host") is HostSampler
    assert HostSampler.unavailable_reason() is None


def test_busy_loop_shows_process_cpu_above_half_a_core(sampler):
    s = sampler()
    s.start()
    _spin(0.6)
    s.stop()
    cpu = _series(s.result(), "cpu_util:process")
    assert len(cpu) >= 5
    # one busy thread is ~100 % of a core on an idle machine; leave room for a loaded CI host
    assert np.median(cpu) > 30, cpu


def test_rss_grows_with_a_200mb_array(sampler):
    s = sampler()
    s.start()
    time.sleep(0.05)
    block = np.ones(25_000_000)  # 200 MB, written so the pages are resident
    time.sleep(0.05)
    s.stop()
    del block
    rss = _series(s.result(), "rss")
    assert rss.max() - rss[0] > 150e6, rss


def test_thread_gone_after_stop(sampler):
    s = sampler()
    s.start()
    assert len(_sampler_threads()) == 1
    time.sleep(0.05)
    s.stop()
    assert not _sampler_threads()
    s.stop()  # idempotent


def test_thread_gone_after_close_without_stop(sampler):
    s = sampler()
    s.start()
    assert _sampler_threads()
    s.close()
    assert not _sampler_threads()
    s.close()


def test_close_before_start_is_harmless():
    s = HostSampler(CollectOptions(), time.time_ns())
    s.close()
    assert len(s.result().counters) == 0


def test_short_cell_still_gets_a_before_after_pair(sampler):
    s = sampler()
    s.start()
    s.stop()
    r = s.result()
    assert r.meta["samples"] == 2
    assert len(_series(r, "rss")) == 2
    assert len(_series(r, "cpu_util:process")) == 1  # a utilisation needs an interval


def test_counter_table_contract(sampler):
    t0 = time.time_ns()
    s = HostSampler(CollectOptions(interval_s=0.01), t0)
    try:
        s.start()
        time.sleep(0.15)
        s.stop()
    finally:
        s.close()
    end = time.time_ns() - t0
    r = s.result()
    Profile(counters=r.counters).validate()
    c = r.counters
    assert set(c["source"].cat.categories) == {"host"}
    cores = len(__import__("psutil").cpu_times(percpu=True))
    expected = {"cpu_util:process", "cpu_util:system", "rss"} | {f"cpu_util:core {i}" for i in range(cores)}
    assert set(c["metric"].astype(str)) == expected
    assert c["ts_ns"].between(0, end).all()
    util = c[c["metric"].astype(str).str.startswith("cpu_util:core")]["value"]
    assert util.between(0, 100).all()
    assert r.meta["samples"] >= 8  # sleep releases the GIL, so the sampler keeps its pace
    assert 5 < r.meta["achieved_interval_ms"] < 40
    json.dumps(r.meta)
    json.dumps(r.devices)


def test_tiny_buffer_counts_dropped_rows(sampler):
    s = sampler(interval_s=0.005, buffer_events=20)
    s.start()
    time.sleep(0.1)
    s.stop()
    r = s.result()
    width = len(r.counters["metric"].cat.categories)
    assert r.meta["samples"] == 20 // width
    assert r.dropped > 0 and r.dropped % width == 0
    assert len(r.counters) <= 20


def test_memory_off_skips_rss(sampler):
    s = sampler(memory=False)
    s.start()
    s.stop()
    assert "rss" not in set(s.result().counters["metric"].astype(str))


def test_meta_says_why_gpu_and_npu_are_not_sampled(sampler):
    s = sampler()
    s.start()
    s.stop()
    meta = s.result().meta
    try:
        import pynvml  # noqa: F401
    except ImportError:
        assert meta["gpu"].startswith("unavailable: pynvml is not installed")
    assert meta["gpu"] and meta["npu"]
    if not meta["gpu"].startswith("unavailable"):
        assert any(str(src).startswith("cuda:") for src in s.result().counters["source"].cat.categories)


# -- environment ------------------------------------------------------------------------------
def test_environment_describes_the_machine():
    env = describe_environment()
    json.dumps(env)
    assert env["python"] == ".".join(map(str, sys.version_info[:3]))
    assert env["cpu_count"] == os.cpu_count()
    assert env["memory_total_bytes"] > 0
    assert env["hostname"]
    assert env["packages"]["numpy"] == np.__version__


def test_environment_does_not_import_torch():
    code = ("import sys, json; from cann_nb.collect.environment import describe_environment; "
            "e = describe_environment(); assert 'torch' not in sys.modules, 'torch imported'; print(json.dumps(e['torch']))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    assert out.returncode == 0, out.stderr
    torch_info = json.loads(out.stdout)
    assert torch_info.get("imported", False) is False


def test_environment_reports_imported_torch():
    torch = pytest.importorskip("torch")
    info = describe_environment()["torch"]
    assert info["imported"] and info["version"] == str(torch.__version__)
    assert isinstance(info["cuda_available"], bool)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the /proc reader is Linux only")
def test_proc_reader_agrees_with_psutil():
    import psutil

    from cann_nb.collect.host import _ProcReader

    reader = _ProcReader.open()
    assert reader
    ticks = os.sysconf("SC_CLK_TCK")
    ours, theirs = reader.cores() / ticks, np.array(psutil.cpu_times(percpu=True), dtype=np.float64)
    assert ours.shape[0] == theirs.shape[0]
    k = min(ours.shape[1], theirs.shape[1])
    np.testing.assert_allclose(ours[:, :k], theirs[:, :k], atol=2.0)     # seconds since boot; reads 1 s apart at most
    assert abs(reader.rss() - psutil.Process().memory_info().rss) < 64 << 20
    reader.close()
    assert not reader
