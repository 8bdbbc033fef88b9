"""Malformed XProf (.xplane.pb, trace.json.gz) and MindSpore CPU input: a valid Profile or TraceFormatError
naming the file, never another exception (same pattern as test_kineto_fuzz.py). No framework needed:
the XSpace is built with cann_nb's own copy of the schema."""

from __future__ import annotations

import gzip
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cann_nb.errors import TraceFormatError
from cann_nb.ingest.mindspore_cpu import read_mindspore_cpu
from cann_nb.ingest.xplane_schema import messages
from cann_nb.ingest.xprof import read_xplane
from cann_nb.ingest.xprof_json import read_xprof_json

SETTINGS = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "100")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def xspace() -> bytes:
    """A small TF-like XSpace: host plane with python + tf_Compute lines, a GPU plane, Task Environment."""
    m = messages()
    space = m["XSpace"](hostnames=["vm"])
    host = space.planes.add(name="/host:CPU")
    for key, name, display in [(1, "EagerLocalExecute: MatMul", ""), (2, "dense/Relu:_MklNativeFusedMatMul",
                                                                       "_MklNativeFusedMatMul"),
                               (3, "train", ""), (4, "ExecutorState::Process", ""), (5, "ThreadpoolListener::Record", "")]:
        host.event_metadata.add(key=key, value=m["XEventMetadata"](id=key, name=name, display_name=display))
    host.stat_metadata.add(key=9, value=m["XStatMetadata"](id=9, name="step_num"))
    py = host.lines.add(id=1, name="python", timestamp_ns=1000)
    step = py.events.add(metadata_id=3, offset_ps=0, duration_ps=90_000_000)
    step.stats.add(metadata_id=9, int64_value=0)
    py.events.add(metadata_id=1, offset_ps=1_000_000, duration_ps=20_000_000)
    comp = host.lines.add(id=2, name="tf_Compute/2", timestamp_ns=1000)
    comp.events.add(metadata_id=4, offset_ps=30_000_000, duration_ps=40_000_000)
    comp.events.add(metadata_id=2, offset_ps=31_000_000, duration_ps=10_000_000)
    comp.events.add(metadata_id=5, offset_ps=32_000_000, duration_ps=0)
    gpu = space.planes.add(name="/device:GPU:0")
    gpu.event_metadata.add(key=1, value=m["XEventMetadata"](id=1, name="sgemm_kernel"))
    gpu.event_metadata.add(key=2, value=m["XEventMetadata"](id=2, name="MemcpyH2D"))
    stream = gpu.lines.add(id=7, name="Stream #7", timestamp_ns=2000)
    stream.events.add(metadata_id=1, offset_ps=5_000_000, duration_ps=3_000_000)
    stream.events.add(metadata_id=2, offset_ps=9_000_000, duration_ps=1_000_000)
    env = space.planes.add(name="Task Environment")
    env.stat_metadata.add(key=1, value=m["XStatMetadata"](id=1, name="profile_start_time"))
    env.stats.add(metadata_id=1, uint64_value=1_796_137_318_957_171_656)
    return space.SerializeToString()


VALID = xspace()


def outcome(fn, source) -> None:
    try:
        prof = fn(source)
    except TraceFormatError as err:
        assert err.path and (err.where or err.expected or err.detail)
        return
    prof.validate()


def test_valid_xspace_maps_ops_steps_and_device_tasks():
    prof = read_xplane(VALID)
    ev = prof.events.set_index("name")
    assert ev.loc["MatMul", "cat"] == "op" and ev.loc["_MklNativeFusedMatMul", "module"] == "dense/Relu"
    assert ev.loc["train", "cat"] == "step" and ev.loc["train", "track"] == "host/steps"
    assert ev.loc["sgemm_kernel", "cat"] == "kernel" and ev.loc["sgemm_kernel", "device"] == "cuda:0"
    assert ev.loc["MemcpyH2D", "cat"] == "memcpy" and ev.loc["ExecutorState::Process", "cat"] == "runtime"
    assert "ThreadpoolListener::Record" not in ev.index and prof.meta["skipped"] == {"xprof_flow_markers": 1}
    # times: profile start + line timestamp + offset; the earliest event is t0
    assert prof.meta["t0_ns"] == 1_796_137_318_957_171_656 + 1000


@SETTINGS
@given(cut=st.integers(0, len(VALID)))
def test_truncated_xspace(cut):
    outcome(read_xplane, VALID[:cut])


@SETTINGS
@given(data=st.data())
def test_corrupted_xspace_bytes(data):
    blob = bytearray(VALID)
    for _ in range(data.draw(st.integers(1, 4))):
        blob[data.draw(st.integers(0, len(blob) - 1))] = data.draw(st.integers(0, 255))
    outcome(read_xplane, bytes(blob))


@SETTINGS
@given(blob=st.binary(max_size=64))
def test_random_bytes(blob):
    outcome(read_xplane, blob)


def test_errors_name_file_and_place(tmp_path):
    m = messages()
    space = m["XSpace"]()
    plane = space.planes.add(name="/host:CPU")
    plane.lines.add(name="python").events.add(metadata_id=42, duration_ps=5)
    path = tmp_path / "bad.xplane.pb"
    path.write_bytes(space.SerializeToString())
    with pytest.raises(TraceFormatError, match="bad.xplane.pb at plane '/host:CPU' line 'python' event 0"):
        read_xplane(path)
    path.write_bytes(b"\x0a\xff\xff")
    with pytest.raises(TraceFormatError, match="XSpace"):
        read_xplane(path)


TRACE_JSON = json.dumps({"displayTimeUnit": "ns", "traceEvents": [
    {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/host:CPU"}},
    {"ph": "M", "pid": 1, "tid": 5, "name": "thread_name", "args": {"name": "tf_Compute/5"}},
    {"ph": "X", "pid": 1, "tid": 5, "ts": 10.5, "dur": 20.25, "name": "ExecutorState::Process"},
    {"ph": "X", "pid": 1, "tid": 5, "ts": 11.0, "dur": 5.125, "name": "BiasAdd",
     "args": {"long_name": "seq/dense/BiasAdd:BiasAdd"}},
    {}]}).encode()


def test_trace_json_maps_like_xplane(tmp_path):
    path = tmp_path / "vm.trace.json.gz"
    path.write_bytes(gzip.compress(TRACE_JSON))
    from cann_nb import load

    prof = load(path)
    op = prof.events[prof.events["cat"] == "op"].iloc[0]
    assert (op["name"], op["module"], op["track"], op["depth"]) == ("BiasAdd", "seq/dense/BiasAdd", "host/tf_Compute/5", 1)


@SETTINGS
@given(data=st.data())
def test_corrupted_trace_json(data, tmp_path):
    text = bytearray(TRACE_JSON)
    for _ in range(data.draw(st.integers(1, 3))):
        text[data.draw(st.integers(0, len(text) - 1))] = data.draw(st.integers(0, 255))
    path = tmp_path / "x.trace.json"
    path.write_bytes(bytes(text[: data.draw(st.integers(0, len(text)))]))
    outcome(read_xprof_json, path)


MS_LINES = ("Default/0-Dense/MatMul-op0;HostCpuOps;1796137389859818192,8.77551,0 1796137389869636129,2.87391,0 \n"
            "Default/1-ReLU/ReLU-op0;HostCpuOps;1796137389868723518,0.011107,0 \n")


def _ms_folder(tmp_path, text: str):
    run = tmp_path / "vm_1_2_ascend_ms"
    (run / "FRAMEWORK").mkdir(parents=True, exist_ok=True)
    (run / "FRAMEWORK" / "cpu_op_execute_timestamp_0.txt").write_text(text, encoding="utf-8", errors="replace")
    return run


def test_mindspore_folder_maps_op_type_and_scope(tmp_path):
    prof = read_mindspore_cpu(_ms_folder(tmp_path, MS_LINES))
    ev = prof.events
    assert list(ev["name"]) == ["MatMul", "ReLU", "MatMul"]
    assert ev["module"].iloc[0] == "Default/0-Dense" and ev["dur_ns"].iloc[0] == 8_775_510
    assert ev["track"].iloc[0] == "host/thread 0" and prof.meta["mindspore"]["mode"] == "graph"


@SETTINGS
@given(data=st.data())
def test_corrupted_mindspore_timestamps(data, tmp_path):
    text = bytearray(MS_LINES.encode())
    for _ in range(data.draw(st.integers(1, 4))):
        text[data.draw(st.integers(0, len(text) - 1))] = data.draw(st.sampled_from(b";, 0x-.9\n\xff"))
    outcome(read_mindspore_cpu, _ms_folder(tmp_path, bytes(text).decode("utf-8", "replace")))
