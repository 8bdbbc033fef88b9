"""TorchCollector on a real (small) CNN on the CPU: real aten ops, shapes, memory, steps, FLOPs, and
the notebook-facing promises: no Kineto chatter on stderr, a fast start after the first."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")

from cann_nb.collect.base import CollectOptions  # noqa: E402
from cann_nb.collect.torch_collector import TorchCollector  # noqa: E402
from cann_nb.collect.torch_flops import estimate_flops  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


class SmallCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, stride=1, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=2)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc = torch.nn.Linear(16 * 8 * 8, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = self.pool(torch.relu(self.conv2(x)))
        return self.fc(x.flatten(1))


def run(options: CollectOptions, steps: int = 3):
    torch.manual_seed(0)
    model, opt = SmallCNN(), None
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(4, 3, 32, 32), torch.randint(0, 10, (4,))
    TorchCollector.warm_up()
    t0 = time.time_ns()
    col = TorchCollector(options, t0)
    col.start()
    for _ in range(steps):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        col.step()
    t_stop = time.perf_counter()
    col.stop()
    stop_s = time.perf_counter() - t_stop
    wall_ns = time.time_ns() - t0
    got = col.result()
    col.close()
    return col, got, wall_ns, stop_s


@pytest.fixture(scope="module")
def cnn_run():
    return run(CollectOptions(shapes=True, memory=True, flops=True))


def test_real_aten_ops_with_shapes(cnn_run):
    col, got, wall_ns, _ = cnn_run
    ev = got.events
    names = set(ev["name"].astype(str))
    assert {"aten::conv2d", "aten::linear", "aten::addmm", "aten::relu", "aten::max_pool2d",
            "aten::convolution_backward"} <= names
    assert (ev["device"] == "cpu").all() and (ev.loc[ev["cat"] == "op", "track"].astype(str)
                                              .str.startswith("host/thread ")).all()
    conv1 = ev[(ev["name"] == "aten::conv2d")]["shapes"].astype(str)
    assert conv1.iloc[0] == "[[4,3,32,32],[8,3,3,3],[8],[],[],[],[]]"
    assert ev.loc[ev["name"] == "aten::conv2d", "dtypes"].astype(str).iloc[0].startswith('["float","float","float"')
    # all on the session clock: inside [0, wall]
    assert ev["start_ns"].min() >= 0 and (ev["start_ns"] + ev["dur_ns"]).max() <= wall_ns
    assert got.meta["torch_version"] == torch.__version__ and got.meta["activities"][0] == "CPU"
    assert got.dropped == 0


def test_self_times_consistent_with_nesting(cnn_run):
    ev = cnn_run[1].events
    children = ev[ev["parent"] >= 0].groupby("parent")["dur_ns"].sum()
    self_ns = ev.set_index("id")["dur_ns"].sub(children, fill_value=0)
    assert (self_ns >= 0).all()                        # children on one thread fit in their parent
    total_self = self_ns[ev.set_index("id")["depth"] >= 0].sum()
    roots = ev[ev["parent"] < 0].groupby("track", observed=True)["dur_ns"].sum().sum()
    assert total_self == roots                         # self times partition the root spans
    child = ev[ev["parent"] >= 0]
    par = ev.set_index("id").loc[child["parent"]]
    assert (par["start_ns"].to_numpy() <= child["start_ns"].to_numpy()).all()
    assert ((par["start_ns"] + par["dur_ns"]).to_numpy() >= (child["start_ns"] + child["dur_ns"]).to_numpy()).all()


def test_steps_come_from_the_session_only():
    """torch records no ProfilerStep#N of its own: the session's step events are the only ones."""
    from cann_nb.collect.session import CollectionSession

    model = SmallCNN()
    x = torch.randn(2, 3, 32, 32)
    s = CollectionSession("steps", ("torch",))
    s.start()
    for _ in range(3):
        s.mark_step()
        model(x).sum().backward()
    s.stop()
    p = s.finish()
    steps = p.events[p.events["cat"] == "step"].sort_values("start_ns")
    assert steps["name"].astype(str).tolist() == ["step 0", "step 1", "step 2"]
    assert not p.events["name"].astype(str).str.startswith("ProfilerStep").any()
    convs = p.events[p.events["name"] == "aten::conv2d"]
    assert len(convs) == 6 and (convs["start_ns"] >= steps["start_ns"].min()).all()


def test_memory_events(cnn_run):
    got = cnn_run[1]
    mem = got.memory
    assert len(mem) > 20 and set(mem["device"].astype(str)) == {"cpu"}
    assert mem["allocated_bytes"].max() > 4 * 3 * 32 * 32 * 4      # at least the input batch
    assert (mem["delta_bytes"] > 0).any() and (mem["delta_bytes"] < 0).any()
    owned = mem[mem["event_id"] >= 0]
    assert len(owned) > 0.8 * len(mem)
    owner = got.events.set_index("id").loc[owned["event_id"]]
    assert (owner["start_ns"].to_numpy() <= owned["ts_ns"].to_numpy()).all()


def test_flops_match_torch(cnn_run):
    """The shape-based estimate equals torch's own with_flops numbers (prof.events())."""
    got = cnn_run[1]
    ev = got.events
    ours = ev[np.isfinite(ev["flops"].to_numpy())].groupby(ev["name"].astype(str))["flops"].sum()
    torch.manual_seed(0)
    model = SmallCNN()
    x = torch.randn(4, 3, 32, 32)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True,
                                with_flops=True) as prof:
        model(x)
    pairs = [(e.key, e.flops) for e in prof.events() if e.flops]
    theirs = pd.Series([f for _, f in pairs], index=[k for k, _ in pairs]).groupby(level=0).sum()
    fwd = ours.reindex(theirs.index)
    assert (fwd / 3 == theirs).all(), (fwd, theirs)    # 3 steps of forward in ours
    # no double counting: linear (composite) has none, addmm (its child) has it
    assert "aten::linear" not in ours.index and "aten::convolution" not in ours.index


@pytest.mark.parametrize("stride,padding,groups,dilation", [(1, 0, 1, 1), (2, 1, 2, 1), (1, "same", 1, 2),
                                                          (3, "valid", 4, 1)])
def test_conv_flops_formula(stride, padding, groups, dilation):
    conv = torch.nn.Conv2d(8, 16, 3, stride=stride if padding != "same" else 1, padding=padding, groups=groups,
                           dilation=dilation)
    x = torch.randn(2, 8, 17, 19)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True,
                                with_flops=True) as prof:
        conv(x)
        torch.mm(torch.randn(5, 7), torch.randn(7, 3))
        torch.bmm(torch.randn(2, 5, 7), torch.randn(2, 7, 3))
        torch.matmul(torch.randn(3, 5, 7), torch.randn(7, 2))
    theirs: dict = {}
    for e in prof.events():
        if e.flops:
            theirs[e.key] = theirs.get(e.key, 0) + e.flops
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"cann_nb_flops_{os.getpid()}.json"
    prof.export_chrome_trace(str(path))
    from cann_nb.ingest.kineto import read_kineto

    ev = read_kineto(path).events
    path.unlink()
    est = pd.Series(estimate_flops(ev), index=ev["name"].astype(str))
    est = est[np.isfinite(est.to_numpy())].groupby(level=0).sum()
    for key, value in theirs.items():
        assert est.get(key) == value, (key, est.to_dict(), theirs)
    assert est.get("aten::matmul") is None and est.get("aten::mm", 0) > 0


def test_options_stack_and_buffer():
    _, got, _, _ = run(CollectOptions(shapes=False, memory=False, stack=True), steps=1)
    assert (got.events["cat"] == "python").sum() > 10
    assert got.events["shapes"].isna().all() and got.memory is not None and len(got.memory) == 0
    _, small, _, _ = run(CollectOptions(memory=True, buffer_events=50), steps=2)
    assert len(small.events) == 50 and small.dropped > 0
    assert (small.events["parent"] < 50).all()
    assert ((small.memory["event_id"] < 50)).all()


def test_later_starts_reuse_the_warm_up(cnn_run):
    # how fast start/stop are is measured by benchmarks/overhead.py, not asserted here
    col, _, _, _ = cnn_run
    assert col.start_s >= 0
    col2 = TorchCollector(CollectOptions(), time.time_ns())
    col2.start()
    col2.stop()
    col2.close()
    col2.close()
    assert TorchCollector.warm_up() == 0.0          # paid once per process


def test_close_is_idempotent_and_safe_before_start():
    col = TorchCollector(CollectOptions(), time.time_ns())
    col.close()
    col.close()
    assert col.result().events is None
    assert TorchCollector.unavailable_reason() is None


def _run_child(code: str, unset_kineto_env: bool = True) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not (unset_kineto_env and k == "KINETO_LOG_LEVEL")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=env, timeout=300, cwd=ROOT)


def test_no_kineto_chatter_on_stderr_and_fast_second_start():
    out = _run_child("""
        import time, torch
        from cann_nb.collect.base import CollectOptions
        from cann_nb.collect.torch_collector import TorchCollector
        starts = []
        for i in range(3):
            c = TorchCollector(CollectOptions(shapes=True), time.time_ns())
            c.start(); torch.randn(64, 64) @ torch.randn(64, 64); c.stop()
            r = c.result(); c.close()
            assert len(r.events) > 0
            starts.append(c.start_s)
        print("starts", starts)
    """)
    assert out.returncode == 0, out.stderr
    assert "USDT" not in out.stderr and "profiler_start" not in out.stderr, out.stderr
    starts = [float(s) for s in out.stdout.split("[")[1].split("]")[0].split(",")]
    assert max(starts[1:]) < 0.05, starts


def test_chatter_muted_even_when_kineto_started_before_cann_nb():
    out = _run_child("""
        import time, sys, torch
        from torch.profiler import profile, ProfilerActivity
        with profile(activities=[ProfilerActivity.CPU]):     # Kineto initialised without the env var
            torch.ones(1)
        sys.stderr.flush()
        print("---", file=sys.stderr, flush=True)
        from cann_nb.collect.base import CollectOptions
        from cann_nb.collect.torch_collector import TorchCollector
        c = TorchCollector(CollectOptions(), time.time_ns())
        c.start(); torch.ones(8).sum(); c.stop(); c.result(); c.close()
    """)
    assert out.returncode == 0, out.stderr
    after = out.stderr.split("---", 1)[1]
    assert "USDT" not in after and "profiler_st" not in after, out.stderr


def test_torch_warning_about_blocks_allocated_before_start_stays_out_of_the_users_output():
    """torch prints "Memory block of unknown size..." once per process when a block allocated before
    the profiler started is freed; the warm-up triggers it silenced, so the user's cell never shows it."""
    import subprocess
    import sys

    code = ("import torch\nfrom cann_nb.collect.session import CollectionSession\n"
            "from cann_nb.collect.base import CollectOptions\n"
            "a = torch.randn(1000, 1000)\n"
            "s = CollectionSession('w', ('torch',), CollectOptions(memory=True))\n"
            "s.start()\ndel a\ns.stop()\np = s.finish()\nprint(p.meta['collectors']['torch']['status'])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
    assert "Memory block of unknown size" not in out.stderr, out.stderr
