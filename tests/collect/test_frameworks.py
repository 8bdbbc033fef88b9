"""TensorFlow and MindSpore for real (issue 18): `cann-nb run` scripts, %%cann_profile in a real kernel,
profiles recorded by the frameworks' own profilers imported, and everything downstream on them.

The frameworks are imported only in subprocesses and the kernel (TF takes seconds to import); the
recordings are made once per module, concurrently, by the ``recorded`` fixture.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest

import cann_nb
from cann_nb.collect import auto, framework_slot
from cann_nb.frontends.cli import main as cli

HAS_TF = importlib.util.find_spec("tensorflow") is not None
HAS_MS = importlib.util.find_spec("mindspore") is not None
pytestmark = pytest.mark.skipif(not (HAS_TF and HAS_MS), reason="tensorflow-cpu and mindspore not installed "
                                "(pip install 'cann_nb[frameworks]'; .ci/setup installs them)")

KERAS = """\
import numpy as np
import tensorflow as tf
model = tf.keras.Sequential([tf.keras.Input((32,)), tf.keras.layers.Dense(64, activation="relu"),
                             tf.keras.layers.Dense(10)])
x = np.random.rand(16, 32).astype("float32")
"""
KERAS_WORK = "for _ in range(10):\n    model.predict_on_batch(x)\ny = model(x)   # eager: MatMul, BiasAdd, Relu\n"
MINDSPORE = """\
import numpy as np
import mindspore as ms
from mindspore import nn
ms.set_device("CPU")
net = nn.SequentialCell([nn.Dense(32, 64), nn.ReLU(), nn.Dense(64, 10)])
xm = ms.Tensor(np.random.rand(16, 32).astype("float32"))
"""
MINDSPORE_WORK = "for _ in range(10):\n    net(xm)\n"
# the frameworks' own profilers, as a user runs them (MindSpore with its offline analysis)
OWN = """\
import sys, numpy as np
import tensorflow as tf
import mindspore as ms
from mindspore import nn
from mindspore.profiler import ProfilerActivity, profile, tensorboard_trace_handler
out = sys.argv[1]
model = tf.keras.Sequential([tf.keras.Input((32,)), tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(10)])
x = np.random.rand(16, 32).astype("float32")
model.predict_on_batch(x)
tf.profiler.experimental.start(out + "/tf_logdir")
for i in range(3):
    with tf.profiler.experimental.Trace("train", step_num=i, _r=1):
        model.predict_on_batch(x)
tf.profiler.experimental.stop()
ms.set_device("CPU")
ms.set_context(mode=ms.GRAPH_MODE)
net = nn.SequentialCell([nn.Dense(32, 64), nn.ReLU(), nn.Dense(64, 10)])
t = ms.Tensor(x)
prof = profile(activities=[ProfilerActivity.CPU], on_trace_ready=tensorboard_trace_handler(out + "/ms"))
for _ in range(3):
    net(t)
prof.stop()
"""


def _cli(capsys, *argv) -> tuple[int, str]:
    capsys.readouterr()
    code = cli(list(argv))
    return code, capsys.readouterr().out


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """cann-nb run over a Keras and a MindSpore script, and both frameworks' own profilers, concurrently."""
    root = tmp_path_factory.mktemp("frameworks")
    store = root / "store"
    (root / "keras_model.py").write_text(KERAS + KERAS_WORK)
    (root / "ms_net.py").write_text(MINDSPORE + MINDSPORE_WORK)
    (root / "own.py").write_text(OWN)
    env = {**os.environ, "CANN_NB_DIR": str(store), "TF_CPP_MIN_LOG_LEVEL": "2"}
    run = [sys.executable, "-m", "cann_nb", "run"]
    procs = [subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for cmd in (run + ["keras_model.py", "-n", "keras"], run + ["ms_net.py", "-n", "mindspore"],
                         [sys.executable, "own.py", str(root / "own")])]
    outs = [p.communicate(timeout=300)[0] for p in procs]
    for p, out in zip(procs, outs):
        assert p.returncode == 0, out[-3000:]
    return root, store, outs


# TensorFlow's fused dense kernel: oneDNN's name where TF enables it (Intel CPUs), the Eigen one elsewhere
FUSED = {"_MklNativeFusedMatMul", "_FusedMatMul"}


def _ops(profile) -> set:
    ev = profile.events
    return set(ev.loc[ev["cat"] == "op", "name"].astype(str))


def test_run_script_profiles_keras_with_tf_op_names(recorded, capsys):
    _, store, outs = recorded
    prof = cann_nb.load_session(store)["keras"]
    assert prof.meta["collectors"]["tensorflow"]["status"] == "ok"      # chosen from the script's imports
    ops = _ops(prof)
    assert {"MatMul", "BiasAdd", "Relu"} <= ops and ops & FUSED, ops
    fused = prof.events[prof.events["name"].isin(FUSED)]
    assert fused["module"].astype(str).str.contains("dense").all()      # the node path, i.e. the layer
    code, out = _cli(capsys, "analyze", str(store / "keras"), "--json")
    hot = json.loads(out)["hotspots"]
    assert code == 0 and any(h["name"] in FUSED and h["cat"] == "op" for h in hot)


def test_run_script_profiles_mindspore_with_its_op_names(recorded, capsys):
    _, store, _ = recorded
    prof = cann_nb.load_session(store)["mindspore"]
    assert prof.meta["collectors"]["mindspore"]["mode"] == "pynative"
    assert {"MatMul", "BiasAdd", "ReLU"} <= _ops(prof)
    code, out = _cli(capsys, "analyze", str(store / "mindspore"), "--json")
    hot = json.loads(out)["hotspots"]
    assert code == 0 and hot[0]["name"] in {"MatMul", "BiasAdd", "ReLU"} and hot[0]["share_pct"] > 0


def test_downstream_report_check_compare(recorded, capsys, tmp_path):
    _, store, _ = recorded
    for name in ("keras", "mindspore"):
        code, _ = _cli(capsys, "report", str(store / name), "-o", str(tmp_path / f"{name}.html"))
        assert code == 0 and (tmp_path / f"{name}.html").stat().st_size > 10_000
        code, out = _cli(capsys, "check", "--file", str(store / name), "--threshold", "60s", "--json")
        assert code == 0 and json.loads(out)["ok"]
        prof = cann_nb.load_session(store)[name]
        assert "MatMul" in prof.summary_text() or "MatMul" in prof._repr_mimebundle_()["text/plain"]
    code, out = _cli(capsys, "compare", str(store / "keras"), str(store / "keras"), "--json", "--no-record")
    assert code == 0 and json.loads(out)["ops"]


def test_import_tf_own_xprof_and_mindspore_own_folder(recorded, tmp_path, capsys):
    root, _, _ = recorded
    code, _ = _cli(capsys, "import", str(root / "own" / "tf_logdir"), "-o", str(tmp_path), "-n", "tf_own")
    assert code == 0
    tf_prof = cann_nb.load_session(tmp_path)["tf_own"]
    assert _ops(tf_prof) & FUSED
    steps = tf_prof.events[tf_prof.events["cat"] == "step"]
    assert sorted(steps["step"]) == [0, 1, 2] and set(steps["name"]) == {"train"}
    ms_run = next((root / "own" / "ms").glob("*_ascend_ms"))
    assert (ms_run / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").is_file()   # MindSpore's analysed folder
    ms_prof = cann_nb.load(ms_run)
    assert {"MatMul", "BiasAdd", "ReLU"} <= _ops(ms_prof)
    assert ms_prof.meta["mindspore"]["mode"] == "graph" and "Default/0-Dense" in set(ms_prof.events["module"])


def test_kernel_cells_keras_and_mindspore(tmp_path):
    """%%cann_profile in a real kernel: a cell that only uses a Keras model made earlier gets TF's collector;
    a MindSpore cell; a user's own TF profiler running makes the collector say so."""
    from jupyter_client.manager import start_new_kernel

    from tests.test_notebooks import _execute

    km, kc = start_new_kernel(kernel_name="python3", env={**os.environ, "CANN_NB_DIR": str(tmp_path),
                                                          "TF_CPP_MIN_LOG_LEVEL": "2"})
    try:
        cells = ["%load_ext cann_nb", KERAS + "model.predict_on_batch(x);",
                 "%%cann_profile -n keras_cell --no-display\n" + KERAS_WORK,
                 "%%cann_profile -n ms_cell --no-display\n" + MINDSPORE + MINDSPORE_WORK,
                 f"tf.profiler.experimental.start({str(tmp_path / 'own')!r})",
                 "%%cann_profile -n busy --no-display\nmodel.predict_on_batch(x);",
                 "tf.profiler.experimental.stop()"]
        for cell in cells:
            reply, outputs = _execute(kc, cell, timeout=240)
            errors = [o["content"] for o in outputs if o["msg_type"] == "error"]
            assert reply["status"] == "ok" and not errors, (cell, errors)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    session = cann_nb.load_session(tmp_path)
    keras, ms_cell, busy = session["keras_cell"], session["ms_cell"], session["busy"]
    assert keras.meta["collectors"]["tensorflow"]["status"] == "ok"
    assert {"MatMul", "BiasAdd", "Relu"} <= _ops(keras)
    assert {"MatMul", "BiasAdd", "ReLU"} <= _ops(ms_cell)
    assert cann_nb.analyze.api.analyze(ms_cell)["hotspots"]
    reason = busy.meta["collectors"]["tensorflow"]["reason"]
    assert "already recording" in reason and "one profile at a time" in reason


def test_auto_choice_from_imports_and_objects():
    assert auto.for_script("import tensorflow as tf\n") == ("tensorflow", "host", "gc")
    assert auto.for_script("from mindspore import nn\n") == ("mindspore", "host", "gc")
    assert auto.for_script("import keras\n") == ("tensorflow", "host", "gc")
    fake = type("Model", (), {"__module__": "tensorflow.python.module"})
    import ast

    tree = ast.parse("model.predict(x)")
    sys.modules.setdefault("tensorflow", None)   # objects_frameworks only looks at imported frameworks
    try:
        assert auto.objects_frameworks(tree, {"model": fake()}) == ["tensorflow"]
    finally:
        if sys.modules.get("tensorflow") is None:
            del sys.modules["tensorflow"]


def test_unavailable_framework_says_why(monkeypatch):
    from cann_nb.collect.session import CollectionSession

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "mindspore" else real(n, *a))
    s = CollectionSession("x", collectors=("mindspore", "host"))
    s.start()
    prof = s.finish()
    meta = prof.meta["collectors"]
    assert meta["mindspore"]["status"] == "unavailable" and "not installed" in meta["mindspore"]["reason"]
    assert meta["host"]["status"] == "ok"


def test_one_recording_per_process_slot():
    holder, held, done = object(), threading.Event(), threading.Event()

    def hold():
        assert framework_slot.claim("tensorflow", holder) is None
        held.set()
        done.wait(5)
        framework_slot.release("tensorflow", holder)

    t = threading.Thread(target=hold, name="first")
    t.start()
    held.wait(5)
    try:
        assert "records one profile at a time" in framework_slot.claim("tensorflow", object())
        from cann_nb.collect.tensorflow_collector import TensorFlowCollector

        assert "thread 'first'" in TensorFlowCollector.unavailable_reason()
    finally:
        done.set()
        t.join()
    assert framework_slot.busy_reason("tensorflow") is None
