"""Continuous monitoring of a small real torch model served from a thread (short windows keep it fast)."""

from __future__ import annotations

import json
import threading
import time

import pytest

torch = pytest.importorskip("torch")

import cann_nb  # noqa: E402
from cann_nb.collect.base import CollectOptions  # noqa: E402
from cann_nb.collect.custom_metrics import add_custom_metric, remove_custom_metric  # noqa: E402
from cann_nb.monitor import Monitor  # noqa: E402
from cann_nb.monitor.report_cli import monitor_report_main  # noqa: E402

MiB = 1 << 20
WINDOW_S = 0.5


def _wait_windows(mon, n, timeout=60.0):
    end = time.monotonic() + timeout
    while len(mon.windows) < n:
        assert time.monotonic() < end, f"only {len(mon.windows)} windows after {timeout} s; errors: {list(mon.errors)}"
        time.sleep(0.02)


class Server:
    """A model served in a thread: requests every 2 ms; slowdown and memory growth planted on demand."""

    def __init__(self, predict):
        self.predict = predict
        self.stop = threading.Event()
        self.raised = 0
        self.served = 0
        self.thread = threading.Thread(target=self._serve, name="server", daemon=True)

    def _serve(self):
        x = torch.randn(16, 64)
        with torch.no_grad():
            while not self.stop.is_set():
                try:
                    self.predict(x)
                    self.served += 1
                except ValueError:
                    self.raised += 1
                time.sleep(0.002)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One monitored run: normal traffic until the baseline is ready, then a planted regression."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    big = torch.randn(256, 256)
    state = {"slow": False, "n": 0, "hoard": []}

    def predict(x):
        state["n"] += 1
        if state["n"] % 9 == 0:
            raise ValueError("bad request")              # the monitored code raises now and then
        y = model(x)
        if state["slow"]:                                # the regression: a new matmul chain and a stall
            a = big
            for _ in range(3):
                a = torch.mm(a, big).tanh()
            time.sleep(0.05)
        return y

    directory = tmp_path_factory.mktemp("mon") / "svc.monitor"
    add_custom_metric("queue_depth", lambda: 7.0)
    mon = Monitor(interval=WINDOW_S, sample_rate=0.2, fn=predict, directory=directory, name="svc", seed=1,
                  thresholds={"p50_latency": {"min_calls": 3}, "p99_latency": {"min_calls": 3}})
    server = Server(mon)
    try:
        mon.start()
        assert mon.wait_ready(60)                        # torch.profiler initialised: bursts can run
        server.thread.start()
        _wait_windows(mon, len(mon.windows) + 5)         # 1 warm-up + 3 baseline windows + 1
        normal = len(mon.windows)
        state["slow"] = True
        state["hoard"].append(torch.ones(40 * MiB))      # +160 MiB that stays: memory growth
        _wait_windows(mon, normal + 4)
    finally:
        server.stop.set()
        server.thread.join(10)
        mon.stop()
        remove_custom_metric("queue_depth")
    return mon, server, normal, directory


def test_injected_slowdown_is_flagged(served):
    mon, server, normal, _ = served
    slow = [w for w in list(mon.windows)[normal + 1:] if not w["partial"]]   # the first slow one may be mixed
    assert len(slow) >= 2
    for w in slow:
        rules = {a["rule"] for a in w["anomalies"]}
        assert {"p50_latency", "p99_latency"} <= rules, (w["seq"], w["anomalies"], w["baseline"])
    assert any(a["rule"] == "new_top_op" and "aten::mm" in a["ops"] for w in slow for a in w["anomalies"])
    assert any(a["rule"] == "memory_growth" for w in list(mon.windows)[normal:] for a in w["anomalies"])
    before = list(mon.windows)[:normal]
    assert not any(a["rule"] == "new_top_op" for w in before for a in w["anomalies"])
    assert all(w["baseline_member"] is False for w in slow)     # the regression does not become the norm
    assert mon.baseline.stats()["p50"] < 1e6                    # the baseline stayed at the fast calls


def test_exceptions_in_the_monitored_code_are_counted_and_serving_goes_on(served):
    mon, server, _, _ = served
    assert server.raised > 10 and server.served > 100
    assert sum(w["errors"] for w in mon.windows) == server.raised
    assert sum(w["calls"] for w in mon.windows) == server.raised + server.served
    assert not mon.errors                                       # the monitor itself had no failure
    assert not mon.running and not any(t.name == "cann_nb-monitor" for t in threading.enumerate())


def test_windows_are_stored_as_compact_profiles(served):
    mon, _, _, directory = served
    store = cann_nb.load_session(directory)
    names = store.names()
    assert len(names) == len(mon.windows) and names[0] == "w000001"
    assert mon.windows[-1]["partial"] is True and not any(w["partial"] for w in list(mon.windows)[:-1])
    profiled = [w for w in mon.windows if w["profiled_calls"]]
    assert len(profiled) >= len([w for w in mon.windows if w["calls"]]) - 2
    w = profiled[len(profiled) // 2]
    p = store[f"w{w['seq']:06d}"]
    ops = p.events[p.events["cat"] == "op"]
    assert len(ops) and len(p.events[p.events["name"] == "monitored call"]) == w["profiled_calls"]
    # only the first keep_calls (5) profiled calls keep their events; the rest is in top_ops
    calls = p.events[p.events["name"] == "monitored call"].sort_values("start_ns")
    if len(calls) > 5:
        assert (ops["start_ns"] < calls["start_ns"].iloc[5]).all()
    c = p.counters
    monitor_rows = dict(zip(c.loc[c["source"] == "monitor", "metric"].astype(str), c.loc[c["source"] == "monitor", "value"]))
    assert monitor_rows["calls"] == w["calls"] and monitor_rows["latency_p99"] == pytest.approx(w["latency_ns"]["p99"])
    assert (c.loc[c["metric"] == "queue_depth", "value"] == 7.0).all() and (c["metric"] == "queue_depth").sum() >= 2
    assert (c["metric"] == "rss").sum() >= 2
    meta = json.loads((directory / f"w{w['seq']:06d}" / "meta.json").read_text())
    assert meta["source"]["kind"] == "monitor" and meta["monitor"]["seq"] == w["seq"]
    # the profiler's own overhead is kept out of the latency statistics
    assert w["latency_ns"]["n"] + w["profiled_calls"] + w["errors"] - w["profiled_errors"] == w["calls"]


def test_monitor_report(served, capsys):
    mon, _, normal, directory = served
    assert monitor_report_main([str(directory)]) == 0
    out = capsys.readouterr().out
    assert f"{len(mon.windows)} window(s)" in out and "p50_latency" in out and "latency p50" in out
    assert monitor_report_main([str(directory.parent), "--fail-on-anomaly"]) == 1     # found via *.monitor
    capsys.readouterr()
    assert monitor_report_main([str(directory), "--last", str(normal - 1), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["windows"] == normal - 1 and len(doc["windows"]) == normal - 1
    assert doc["summary"]["latency_ns"]["p50"] < 1e6
    assert monitor_report_main([str(directory), "--tail", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["windows"] == 2
    assert monitor_report_main([str(directory / "nope")]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_step_mode_retention_and_buffer_overflow(tmp_path):
    x = torch.randn(8, 32)
    lin = torch.nn.Linear(32, 32)
    mon = Monitor(interval=0.1, sample_rate=0.5, directory=tmp_path / "loop.monitor", name="loop", max_windows=3,
                  options=CollectOptions(memory=False, buffer_events=10), collectors="torch")
    mon.start()
    try:
        end = time.monotonic() + 1.2
        while time.monotonic() < end:
            mon.step()                                    # step mode: the time between marks is a call
            for _ in range(5):
                lin(x)
            time.sleep(0.002)
    finally:
        mon.stop()
    windows = list(mon.windows)
    stored = sorted(p.name for p in (tmp_path / "loop.monitor").iterdir() if not p.name.startswith("."))
    assert len(stored) == 3 and mon.removed == len(windows) - 3
    assert stored[-1] == f"w{windows[-1]['seq']:06d}"
    assert sum(w["calls"] for w in windows) > 50
    dropped = [w["dropped"].get("burst:torch", 0) for w in windows]
    assert sum(dropped) > 0                               # beyond the buffer: counted, never silent
    assert monitor_report_main([str(tmp_path / "loop.monitor")]) == 0


def test_profiler_front_end_and_module_functions(tmp_path):
    calls = []

    def handler(v):
        calls.append(v)
        return v + 1

    mon = cann_nb.start_continuous_monitoring(interval=0.1, sample_rate=0.05, fn=handler, output_path=tmp_path,
                                              name="api")
    try:
        with pytest.raises(RuntimeError, match="already running"):
            cann_nb.start_continuous_monitoring(fn=handler, output_path=tmp_path)
        assert [mon(i) for i in range(50)] == list(range(1, 51))
        wrapped = mon.wrap(handler)
        assert wrapped(1) == 2 and wrapped.__name__ == "handler"
        time.sleep(0.25)
    finally:
        assert cann_nb.stop_continuous_monitoring() is mon
    assert mon.directory == tmp_path / "api.monitor" and sum(w["calls"] for w in mon.windows) == 51
    assert mon(5) == 6                                    # after stop: a plain call


def test_a_profile_taken_while_monitoring_preempts_the_burst(tmp_path):
    from cann_nb import Profiler

    lin = torch.nn.Linear(16, 16)
    x = torch.randn(4, 16)
    mon = Monitor(interval=2.0, sample_rate=1.0, fn=lin, directory=tmp_path / "m.monitor", name="m")
    mon.start()
    try:
        assert mon.wait_ready(60)
        end = time.monotonic() + 10
        while not mon._rec.bursting:                      # a burst records (it spans the whole window)
            mon(x)
            assert time.monotonic() < end
        with Profiler(output_path=tmp_path, name="manual", collectors="torch") as prof:
            lin(x)
        assert prof.profile.meta["collectors"]["torch"]["status"] == "ok"
        assert "aten::addmm" in set(prof.profile.events["name"].astype(str))
    finally:
        mon.stop()
    assert not mon.errors
