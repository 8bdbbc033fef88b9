"""write_chrome_trace: valid Chrome-trace JSON, and read_kineto gives back the same tables."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest

from cann_nb.ingest.chrome_export import write_chrome_trace
from cann_nb.ingest.kineto import read_kineto
from cann_nb.model import Profile

EVENT_COLS = ["id", "name", "cat", "track", "device", "start_ns", "dur_ns", "parent", "depth", "corr", "shapes",
              "dtypes", "concrete", "flops", "bytes", "stream", "external_id"]
MEMORY_COLS = ["ts_ns", "device", "delta_bytes", "allocated_bytes", "reserved_bytes", "event_id", "addr"]
SAMPLES = [
    "tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz",   # memory, shapes, python
    "kineto/tb_plugin/samples/resnet50_num_workers_4/worker0.1623213129365.pt.trace.json.gz",  # 2021 legacy
    "hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz",          # MTIA lanes
    "hta/tests/data/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",  # cuda_sync
    "tracelens/tests/traces/b200/eager_trace.json.gz",                            # collectives
    "tracelens/tests/traces/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz",  # ROCm graph replay
]


def assert_same(a: Profile, b: Profile):
    assert a.meta["t0_ns"] == b.meta["t0_ns"]
    for col in EVENT_COLS:
        assert a.events[col].equals(b.events[col]), col
    for col in MEMORY_COLS:
        if col in a.memory:
            assert a.memory[col].equals(b.memory[col]), col
    assert len(a.counters) == len(b.counters)
    for col in ("ts_ns", "source", "metric", "value"):
        assert a.counters[col].astype(object).equals(b.counters[col].astype(object)), col


@pytest.mark.parametrize("rel", SAMPLES)
def test_round_trip_of_real_traces(real_data, tmp_path, rel):
    a = read_kineto(real_data / rel, python_functions=True)
    out = write_chrome_trace(a, tmp_path / "out.json.gz")
    b = read_kineto(out, python_functions=True).validate()
    assert_same(a, b)
    assert b.meta["kineto"]["links"]["link_rate"] == a.meta["kineto"]["links"]["link_rate"]


def test_output_is_a_chrome_trace_viewers_open(real_data, tmp_path):
    a = read_kineto(real_data / SAMPLES[0])
    out = write_chrome_trace(a, tmp_path / "t.json")
    doc = json.loads(out.read_text())            # plain JSON, no NaN/Infinity
    assert doc["baseTimeNanoseconds"] == a.meta["t0_ns"] and doc["displayTimeUnit"] == "ms"
    ev = doc["traceEvents"]
    phases = {e["ph"] for e in ev}
    assert phases == {"M", "X", "s", "f", "i"}
    for e in ev:
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int) and isinstance(e["ts"], (int, float))
        if e["ph"] == "X":
            assert e["dur"] >= 0 and e["cat"] and e["name"]
    names = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    assert names == set(a.events["track"].astype(str))
    labels = {e["args"]["labels"] for e in ev if e["name"] == "process_labels"}
    assert labels == {"CPU", "GPU 0"}
    flows = [e for e in ev if e["ph"] in "sf"]
    assert {e["cat"] for e in flows} == {"ac2g"} and all(e["bp"] == "e" for e in flows if e["ph"] == "f")
    # the ns digits are in the text (3 decimals), as Kineto writes them
    kernel = next(e for e in ev if e.get("cat") == "kernel")
    row = a.events[a.events["cat"] == "kernel"].iloc[0]
    assert round(kernel["ts"] * 1000) == row["start_ns"]
    assert gzip.decompress(write_chrome_trace(a, tmp_path / "t.json.gz").read_bytes()) == out.read_bytes()


def _collected_profile() -> Profile:
    """A profile as a collector or the Ascend importer makes it: npu device, free-form tracks,
    non-Kineto shapes text, steps with other names, counters, memory on an npu."""
    n = 7
    events = pd.DataFrame({
        "name": ["step 1", "aten::mm", "aclnnMatmul", "MatMul", "hcom_allReduce_", "allreduce", "rec"],
        "cat": ["step", "op", "runtime", "kernel", "runtime", "comm", "annotation"],
        "track": ["main", "main", "main", "npu:0/stream 3", "main", "npu:0/stream 5", "host/sampler"],
        "device": ["cpu", "cpu", "cpu", "npu:0", "cpu", "npu:0", "cpu"],
        "start_ns": [0, 100, 150, 400, 600, 700, -50],
        "dur_ns": [1000, 300, 50, 120, 20, 200, 10],
        "corr": [-1, -1, 11, 11, 12, 12, -1],
        "shapes": [None, "8,512;512,512", None, None, None, None, None],
        "dtypes": [None, "[\"float\", \"float\"]", None, None, None, None, None],
        "flops": [np.nan, 4.2e6, np.nan, np.nan, np.nan, np.nan, np.nan],
        "bytes": [np.nan, np.nan, np.nan, np.nan, np.nan, 1048576.0, np.nan],
    })
    from cann_nb.ingest.nesting import nest

    events["parent"], events["depth"] = nest(events["track"].astype(object).to_numpy(), events["start_ns"],
                                             events["dur_ns"], np.arange(n))
    memory = pd.DataFrame({"ts_ns": [120, 800], "device": ["npu:0", "cpu"], "delta_bytes": [4096.0, -64.0],
                           "allocated_bytes": [8192.0, np.nan], "reserved_bytes": [65536.0, np.nan],
                           "event_id": [1, -1]})
    counters = pd.DataFrame({"ts_ns": [0, 20_000_000], "source": ["host", "host"], "metric": ["cpu_util", "cpu_util"],
                             "value": [12.5, 97.0]})
    return Profile(events, memory, counters, {"name": "cell 3", "t0_ns": 1_700_000_000_123_456_789})


def test_round_trip_of_a_collected_profile(tmp_path):
    a = _collected_profile().validate()
    b = read_kineto(write_chrome_trace(a, tmp_path / "c.json")).validate()
    # ids are re-assigned in time order on import; compare in that order
    a_sorted = a.events.sort_values(["start_ns", "dur_ns"], ascending=[True, False], kind="stable")
    for col in ("name", "cat", "track", "device", "start_ns", "dur_ns", "corr", "shapes", "dtypes", "flops", "bytes",
                "depth"):
        def values(series):
            return [None if pd.isna(v) else v for v in series.astype(object)]

        assert values(a_sorted[col]) == values(b.events[col]), col
    assert b.meta["t0_ns"] == a.meta["t0_ns"]
    m = b.memory
    assert m["device"].astype(str).tolist() == ["npu:0", "cpu"]
    assert m["allocated_bytes"].tolist()[0] == 8192.0 and np.isnan(m["allocated_bytes"].tolist()[1])
    owner = b.events.set_index("id").loc[m["event_id"].iloc[0], "name"]
    assert owner == "aten::mm" and m["event_id"].iloc[1] == -1
    assert b.counters["metric"].astype(str).tolist() == ["cpu_util"] * 2
    assert b.counters["source"].astype(str).tolist() == ["host"] * 2
    assert b.counters["value"].tolist() == [12.5, 97.0]


def test_empty_profile(tmp_path):
    out = write_chrome_trace(Profile(meta={"name": "empty"}), tmp_path / "e.json")
    doc = json.loads(out.read_text())
    assert [e["ph"] for e in doc["traceEvents"]] == ["M", "M"]
    assert len(read_kineto(out).events) == 0
