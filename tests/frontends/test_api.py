"""The Python API (cann_nb.Profiler) on real collectors: torch.profiler, the host sampler, custom metrics."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import cann_nb  # noqa: E402
from cann_nb import Profiler  # noqa: E402
from cann_nb.analyze import analyze  # noqa: E402
from cann_nb.frontends.api import BYTES_PER_EVENT, Findings, resolve_mode  # noqa: E402
from cann_nb.collect.custom_metrics import registered, remove_custom_metric  # noqa: E402


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))


@pytest.fixture
def x():
    return torch.randn(8, 32)


@pytest.fixture(autouse=True)
def no_metrics_left():
    yield
    for name in list(registered()):
        remove_custom_metric(name)


def _names(profile, cat="op"):
    ev = profile.events
    return set(ev.loc[ev["cat"] == cat, "name"].astype(str))


def test_start_stop_stores_and_returns_the_profile(tmp_path, model, x):
    prof = Profiler(output_path=tmp_path, name="run1")
    prof.start()
    assert prof.running
    model(x)
    p = prof.stop()
    assert not prof.running and p is prof.profile
    assert "aten::addmm" in _names(p)
    assert (tmp_path / "run1" / "meta.json").is_file()
    stored = cann_nb.load_session(tmp_path)["run1"]
    assert len(stored.events) == len(p.events)
    assert p.meta["source"]["kind"] == "api" and p.meta["stored_at"].endswith("run1")
    assert prof.stop() is None  # idempotent


def test_context_manager_keeps_the_exception_and_stores_a_failed_profile(tmp_path, model, x):
    prof = Profiler(output_path=tmp_path, name="boom")
    with pytest.raises(ValueError, match="planted"):
        with prof:
            model(x)
            raise ValueError("planted")
    assert prof.profile.status == "failed" and "planted" in prof.profile.meta["error"]
    assert json.loads((tmp_path / "boom" / "meta.json").read_text())["status"] == "failed"


def test_decorator_one_profile_per_call_or_one_step_per_call(tmp_path, model, x):
    prof = Profiler(output_path=tmp_path, name="deco")

    @prof
    def predict(inp):
        return model(inp)

    predict(x)
    predict(x)
    assert cann_nb.load_session(tmp_path).versions("deco") == ["deco@1", "deco"]
    with prof:
        for _ in range(3):
            predict(x)
    steps = prof.profile.events[prof.profile.events["cat"] == "step"]
    assert len(steps) == 3
    assert predict.__name__ == "predict" and predict.profiler is prof


def test_step_marks_steps_and_cann_nb_step_reaches_the_running_profiler(tmp_path, model, x):
    prof = Profiler(output_path=tmp_path, name="steps", collectors="torch,host")
    with prof:
        for i in range(4):
            (prof.step if i % 2 else cann_nb.step)()
            model(x)
    assert (prof.profile.events["cat"] == "step").sum() == 4


def test_custom_metrics_land_in_the_counters_table_and_survive_errors(tmp_path, model, x):
    calls = {"n": 0}

    def flaky():
        calls["n"] += 1
        if calls["n"] % 2 == 0:
            raise RuntimeError("metric failed")
        return 42.0

    prof = Profiler(output_path=tmp_path, name="metrics", interval_ms=5)
    prof.add_custom_metric("queue_depth", flaky)
    prof.add_custom_metric("batch_loss", lambda: 1.5, per="step")
    prof.add_custom_metric("n_ops", lambda p: int((p.events["cat"] == "op").sum()), per="profile")
    with prof:
        for _ in range(3):
            prof.step()
            model(x)
            time.sleep(0.03)
    p = prof.profile
    c = p.counters[p.counters["source"] == "custom"]
    q = c[c["metric"] == "queue_depth"]["value"].to_numpy()
    assert len(q) >= 5 and (q == 42.0).all()          # sampled through the errors
    assert len(c[c["metric"] == "batch_loss"]) == 3   # one per step (the last at stop)
    meta = p.meta["collectors"]["custom"]["metrics"]
    assert meta["queue_depth"]["errors"] >= 2 and "metric failed" in meta["queue_depth"]["last_error"]
    # stored and read back like any counter
    back = cann_nb.load_session(tmp_path)["metrics"].counters
    assert "queue_depth" in set(back["metric"].astype(str))
    out = analyze(p)
    assert out["metrics"]["queue_depth"]["mean"] == 42.0 and out["metrics"]["batch_loss"]["n"] == 3
    assert out["metrics"]["n_ops"] == int((p.events["cat"] == "op").sum())


def test_buffer_size_bounds_events_and_reports_the_dropped(tmp_path, model, x):
    prof = Profiler(output_path=tmp_path, name="small", collectors="torch,host")
    bound = prof.set_buffer_size(40 * BYTES_PER_EVENT + 100)
    assert bound == 40
    with prof:
        for _ in range(40):
            model(x)
    p = prof.profile
    kept = (p.events["cat"] != "step").sum()
    assert kept <= 40
    assert prof.dropped["torch"] > 0
    assert "dropped events (buffer full): torch" in p.summary_text()
    assert json.loads((tmp_path / "small" / "meta.json").read_text())["dropped"]["torch"] == prof.dropped["torch"]
    with pytest.raises(ValueError):
        prof.set_buffer_size(0)


def test_clock_sync_records_measured_offsets(tmp_path, model, x):
    prof = Profiler(output_path=tmp_path, name="clock").enable_clock_sync()
    with prof:
        model(x)
        time.sleep(0.05)
    cs = prof.profile.meta["clock_sync"]
    host = cs["host"]
    for key in ("start", "stop"):
        assert abs(host[key]["wall_minus_perf_counter_ns"] - (time.time_ns() - time.perf_counter_ns())) < 5e9
        assert 0 <= host[key]["uncertainty_ns"] < 1_000_000
    assert abs(host["drift_ppm"]) < 1000
    if not torch.cuda.is_available():
        assert cs["devices"] == {} and "only the host clocks" in cs["note"]


def test_modes_from_argument_and_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("PROFILER_MODE", raising=False)
    assert resolve_mode(None) == "default"
    basic = Profiler(output_path=tmp_path, mode="basic").options
    assert (basic.memory, basic.shapes, basic.stack) == (False, False, False)
    monkeypatch.setenv("PROFILER_MODE", "detailed")
    detailed = Profiler(output_path=tmp_path).options
    assert (detailed.memory, detailed.shapes, detailed.stack, detailed.flops) == (True, True, True, True)
    assert Profiler(output_path=tmp_path, shapes=False).options.shapes is False   # explicit wins
    monkeypatch.setenv("PROFILER_MODE", "turbo")
    with pytest.raises(ValueError, match="PROFILER_MODE"):
        Profiler(output_path=tmp_path)
    with pytest.raises(ValueError, match="unknown collector"):
        Profiler(output_path=tmp_path, mode="basic", collectors="torch,gpu")


def test_detailed_mode_records_shapes_and_memory(tmp_path, model, x):
    with Profiler(output_path=tmp_path, name="det", mode="detailed") as prof:
        model(x)
    p = prof.profile
    assert p.events["shapes"].notna().any()
    assert len(p.memory) > 0
    assert p.meta["options"]["mode"] == "detailed"


def test_analyze_findings_and_compare_two_stored_profiles(tmp_path, model, x):
    prof = Profiler(output_path=tmp_path, name="v")
    for n in (5, 40):
        with prof:
            for _ in range(n):
                model(x)
    found = prof.findings(display=False)
    assert isinstance(found, Findings) and isinstance(found, list)
    assert "text/plain" in found._repr_mimebundle_()
    out = prof.analyze("v@1")                  # the same dict as Profile.analyze(), for a stored name
    assert out.keys() >= {"profile", "summary", "hotspots", "findings"} and out["profile"]["version"] == 1
    assert prof.analyze()["profile"]["name"] == prof.profile.analyze()["profile"]["name"] == "v"
    cmp = prof.compare("v@1", "v")
    assert cmp is not None and "Comparison" in type(cmp).__name__


def test_a_second_torch_profile_in_another_thread_is_refused_not_a_crash(tmp_path, model, x):
    started, release = threading.Event(), threading.Event()
    box = {}

    def worker():
        with Profiler(output_path=tmp_path, name="worker", collectors="torch") as p:
            started.set()
            model(x)
            release.wait(10)
        box["p"] = p.profile

    th = threading.Thread(target=worker)
    th.start()
    assert started.wait(30)
    with Profiler(output_path=tmp_path, name="main", collectors="torch,host") as prof:
        model(x)
    release.set()
    th.join(30)
    assert prof.profile.meta["collectors"]["torch"]["status"] == "unavailable"
    assert "torch cannot record two at once" in prof.profile.meta["collectors"]["torch"]["reason"]
    assert box["p"].meta["collectors"]["torch"]["status"] == "ok"
    with Profiler(output_path=tmp_path, name="after", collectors="torch") as again:   # the slot is free again
        model(x)
    assert again.profile.meta["collectors"]["torch"]["status"] == "ok"
    assert np.isin(["aten::addmm"], list(_names(again.profile))).all()


def test_python_collector_records_the_calling_frame(tmp_path):
    np_ = pytest.importorskip("numpy")

    def work():
        a = np_.ones((200, 200))
        return float((a @ a).sum())

    prof = Profiler(output_path=tmp_path, name="py", collectors="python,host")
    prof.start()
    work()
    p = prof.stop()
    names = set(p.events.loc[p.events["cat"] == "python", "name"].astype(str))
    assert any("work" in n for n in names), sorted(names)[:20]
    assert any("test_python_collector_records_the_calling_frame" in n for n in names)   # the adopted frame


def test_findings_display_when_asked(tmp_path, model, x, capsys):
    with Profiler(output_path=tmp_path, name="shown") as prof:
        model(x)
    found = prof.findings(display=True)
    out = capsys.readouterr().out
    assert out.strip() and ("finding" in out)
    assert isinstance(found, Findings)
