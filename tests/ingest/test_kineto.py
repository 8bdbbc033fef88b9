"""read_kineto on the real Kineto samples, checked against independent computations on the raw JSON.

The raw side is read with the standard json module and ``Decimal`` floats, so every expected number
below is exact and owes nothing to the reader under test.
"""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from cann_nb.errors import TraceFormatError
from cann_nb.ingest.kineto import read_kineto
from tests.conftest import real_data_dir

FAMILIES = ("hta", "tracelens", "kineto", "param")
H100_BERT = "tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz"
NCCL = "hta/tests/data/nccl_parser_config/nccl_data.json.gz"
LEGACY = "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz"
NS_ABS = "hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
BEFORE_FIX = "kineto/docs/traces/before_fix_trace.json"
MI250 = "hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"
MTIA = "hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz"
SAMPLED = "hta/tests/data/trace_filter/sampled_rank-0.json.gz"
MEMORY = "hta/tests/data/df_index_resolver/df_index_resolver.json.gz"
ASYNC_2022 = "hta/tests/data/trace_diff/test/test.json.gz"
B200 = "tracelens/tests/traces/b200/eager_trace.json.gz"

DEVICE_CATS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}


def _samples() -> list[str]:
    root = real_data_dir()
    out = []
    for fam in FAMILIES:
        for p in sorted((root / fam).rglob("*")):
            if p.is_file() and p.name.endswith((".json", ".json.gz")):
                out.append(str(p.relative_to(root)))
    return out or ["<no real data>"]


def raw(path: Path) -> dict:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data, parse_float=Decimal)


def ns(us) -> int:
    """Exact ns of a Decimal/int microsecond value."""
    return int(Decimal(us) * 1000)


def base_ns(doc) -> int:
    return int(doc.get("baseTimeNanoseconds", 0))


# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rel", _samples())
def test_every_real_sample_imports_and_validates(real_data, rel):
    path = real_data / rel
    prof = read_kineto(path).validate()
    doc = raw(path)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    spans = [e for e in events if e.get("ph") == "X" and e.get("cat") not in ("python_function", "Trace")]
    ev = prof.events
    assert len(ev) == len(spans)
    assert prof.meta["kineto"]["parse"] == "streamed"
    assert prof.meta["kineto"]["timestamp_precision"] == "exact ns"
    if len(ev):
        # t0 = the earliest event of the file (python_function frames left out count: they bound the run)
        assert ev["start_ns"].min() == 0 if not prof.meta["skipped"] else ev["start_ns"].min() >= 0
        assert ev["track"].notna().all() and ev["device"].notna().all()
        dev = ev["src_cat"].isin(list(DEVICE_CATS))
        assert (ev.loc[dev, "device"] != "cpu").all()
        assert ev.loc[dev, "track"].astype(str).str.contains("/stream ").all()
        assert (ev.loc[ev["cat"] == "op", "device"] == "cpu").all()
        assert (ev["stream"][ev["device"] == "cpu"] == -1).all()
        # nesting is consistent: a child starts inside its parent, on the same track, one level down;
        # host call stacks nest exactly (real device streams and MTIA queues do overlap partially)
        child = ev[ev["parent"] >= 0]
        par = ev.set_index("id").loc[child["parent"]]
        assert (par["track"].to_numpy() == child["track"].to_numpy()).all()
        assert (par["start_ns"].to_numpy() <= child["start_ns"].to_numpy()).all()
        assert (child["depth"].to_numpy() == par["depth"].to_numpy() + 1).all()
        inside = (par["start_ns"] + par["dur_ns"]).to_numpy() >= (child["start_ns"] + child["dur_ns"]).to_numpy()
        host = (child["device"] == "cpu").to_numpy()
        if host.any():
            assert inside[host].mean() > 0.99


def test_kernel_time_per_device_matches_raw(real_data):
    for rel in (NCCL, MI250, LEGACY, B200, MEMORY):
        path = real_data / rel
        doc = raw(path)
        expect = defaultdict(int)
        for e in doc["traceEvents"]:
            if e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel"):
                expect[int(e["args"].get("device", e["pid"]))] += ns(e["dur"])
        prof = read_kineto(path)
        ev = prof.events
        k = ev[ev["cat"].isin(["kernel", "comm"])]
        got = k.groupby(k["device"].astype(str))["dur_ns"].sum().to_dict()
        assert got == {f"cuda:{d}": v for d, v in expect.items()}, rel


def test_op_counts_and_categories(real_data):
    path = real_data / NCCL
    doc = raw(path)
    ops = Counter(e["name"] for e in doc["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "cpu_op")
    steps = Counter(e["name"] for e in doc["traceEvents"]
                    if e.get("cat") == "user_annotation" and re.fullmatch(r"ProfilerStep#\d+", e["name"]))
    ev = read_kineto(path).events
    got = Counter(ev.loc[ev["cat"] == "op", "name"].astype(str))
    assert got == ops
    assert Counter(ev.loc[ev["cat"] == "step", "name"].astype(str)) == steps and len(steps) == 3
    # gpu_user_annotation: an annotation on the device's stream track
    gua = ev[ev["src_cat"] == "gpu_user_annotation"]
    assert len(gua) and (gua["cat"] == "annotation").all() and gua["track"].astype(str).str.startswith("cuda:0/stream").all()
    # NCCL kernels are communication
    comm = ev[ev["cat"] == "comm"]
    assert len(comm) and comm["name"].astype(str).str.lower().str.startswith("nccl").all()
    raw_nccl = sum(1 for e in doc["traceEvents"] if e.get("cat") == "kernel" and e["name"].lower().startswith("nccl"))
    assert len(comm) == raw_nccl


def test_collective_kernels_by_args(real_data):
    path = real_data / B200
    doc = raw(path)
    coll = [e for e in doc["traceEvents"] if e.get("cat") == "kernel" and "Collective name" in e.get("args", {})]
    ev = read_kineto(path).events
    assert (ev["cat"] == "comm").sum() == len(coll) == 1


def test_memory_peak_and_owner(real_data):
    for rel in (H100_BERT, MEMORY):
        path = real_data / rel
        doc = raw(path)
        peak = defaultdict(int)
        n = 0
        for e in doc["traceEvents"]:
            if e.get("ph") == "i" and e.get("name") == "[memory]":
                a = e["args"]
                dev = "cpu" if a["Device Type"] == 0 else f"cuda:{a['Device Id']}"
                peak[dev] = max(peak[dev], int(a["Total Allocated"]))
                n += 1
        prof = read_kineto(path)
        mem = prof.memory
        assert len(mem) == n
        got = mem.groupby(mem["device"].astype(str))["allocated_bytes"].max().astype(int).to_dict()
        assert got == dict(peak)
        assert mem["ts_ns"].is_monotonic_increasing
        # each allocation is attributed to a host event on its thread that spans it
        owned = mem[mem["event_id"] >= 0]
        assert len(owned) > 0.5 * len(mem)
        ev = prof.events.set_index("id").loc[owned["event_id"]]
        assert (ev["start_ns"].to_numpy() <= owned["ts_ns"].to_numpy()).all()
        assert ((ev["start_ns"] + ev["dur_ns"]).to_numpy() >= owned["ts_ns"].to_numpy()).all()
        assert (ev["device"] == "cpu").all()


def test_legacy_2021_trace(real_data):
    path = real_data / LEGACY
    doc = raw(path)
    prof = read_kineto(path).validate()
    ev, mem = prof.events, prof.memory
    assert prof.meta["kineto"]["schema_era"].startswith("PyTorch 1.8-1.9")
    raw_cats = Counter(e.get("cat") for e in doc["traceEvents"] if e.get("ph") == "X" and e.get("cat") != "Trace")
    cats = Counter(ev["cat"].astype(str))
    assert cats["kernel"] + cats["comm"] == raw_cats["Kernel"]
    assert cats["memcpy"] == raw_cats["Memcpy"] and cats["memset"] == raw_cats["Memset"]
    assert cats["runtime"] == raw_cats["Runtime"]
    assert cats["op"] + cats["step"] == raw_cats["Operator"] and cats["step"] == 6
    # string tids ("25738") and int flow tids are one thread; "stream 7" tids are stream 7
    assert set(ev["track"].astype(str)) == {"host/thread 25738", "host/thread 25772", "cuda:0/stream 7"}
    assert prof.meta["kineto"]["links"]["link_rate"] == 1.0
    assert prof.meta["kineto"]["links"]["events_matched_by_flow"] == 2 * raw_cats["Kernel"] + 2 * (
        raw_cats["Memcpy"] + raw_cats["Memset"])
    # [memory] with Bytes only: allocated is the running sum per device
    running = defaultdict(int)
    last = {}
    for e in sorted((e for e in doc["traceEvents"] if e.get("name") == "[memory]"), key=lambda e: e["ts"]):
        dev = "cpu" if e["args"]["Device Type"] == 0 else f"cuda:{e['args']['Device Id']}"
        running[dev] += e["args"]["Bytes"]
        last[dev] = running[dev]
    got_last = mem.groupby(mem["device"].astype(str))["allocated_bytes"].last().astype(int).to_dict()
    assert got_last == last
    assert mem["reserved_bytes"].isna().all()
    assert ev["external_id"].ge(0).mean() > 0.99      # 'external id' (lowercase) read on GPU/runtime rows


def test_2022_async_cpu_to_gpu_flows(real_data):
    prof = read_kineto(real_data / ASYNC_2022)
    k = prof.meta["kineto"]
    assert k["schema_era"].startswith("PyTorch 1.10-1.12")
    assert k["links"]["events_matched_by_flow"] > 0 and k["links"]["link_rate"] > 0.95


def test_correlation_link_rate_matches_raw(real_data):
    for rel in (NCCL, SAMPLED, "tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"):
        doc = raw(real_data / rel)
        ev_raw = doc["traceEvents"]
        launches = {e["args"]["correlation"] for e in ev_raw
                    if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
        tasks = [e for e in ev_raw if e.get("ph") == "X" and e.get("cat") in DEVICE_CATS]
        rate = sum(e["args"]["correlation"] in launches for e in tasks) / len(tasks)
        prof = read_kineto(real_data / rel)
        assert prof.meta["kineto"]["links"]["link_rate"] == pytest.approx(rate), rel
        ev = prof.events
        linked = ev[ev["corr"] >= 0]
        # every linked value has a host launch and a device task
        by = linked.groupby("corr")["device"].agg(lambda d: {"cpu" in set(d), bool(set(d) - {"cpu"})})
        assert all(v == {True} for v in by)
    # a trace without flows links through args.correlation
    prof = read_kineto(real_data / SAMPLED)
    assert prof.meta["kineto"]["links"]["flows"] == 0 and prof.meta["kineto"]["links"]["link_rate"] == 1.0


def test_ns_precision_relative_base(real_data):
    path = real_data / BEFORE_FIX
    doc = raw(path)
    prof = read_kineto(path)
    kernel = next(e for e in doc["traceEvents"] if e.get("cat") == "kernel")
    row = prof.events[prof.events["cat"] == "kernel"].iloc[0]
    assert row["start_ns"] + prof.meta["t0_ns"] == base_ns(doc) + ns(kernel["ts"])
    assert row["dur_ns"] == ns(kernel["dur"]) == 20


def test_ns_precision_absolute_epoch_us(real_data):
    """Absolute epoch us with ns decimals exceed float64's resolution: digits come from the text."""
    path = real_data / NS_ABS
    doc = raw(path)
    prof = read_kineto(path)
    assert "baseTimeNanoseconds" not in doc
    starts = sorted(ns(e["ts"]) for e in doc["traceEvents"]
                    if e.get("ph") == "X" and e.get("cat") not in ("Trace", "python_function"))
    got = np.sort(prof.events["start_ns"].to_numpy() + prof.meta["t0_ns"])
    assert got.tolist() == starts
    assert any(s % 1000 for s in starts)      # the sample really has sub-us digits


def test_base_time_and_absolute_give_the_same_epoch_times(real_data):
    text = (real_data / BEFORE_FIX).read_text()
    base = json.loads(text)["baseTimeNanoseconds"]

    def absolute(m):
        return f'"ts": {Decimal(m.group(1)) + Decimal(base) / 1000}'

    abs_text = re.sub(r'"ts":\s*(-?[0-9.]+)', absolute, text).replace(f'"baseTimeNanoseconds": {base},', "")
    assert "baseTimeNanoseconds" not in abs_text
    rel = read_kineto(text.encode())
    ab = read_kineto(abs_text.encode())
    assert rel.meta["t0_ns"] == ab.meta["t0_ns"]
    cols = ["name", "cat", "track", "start_ns", "dur_ns", "parent", "corr"]
    assert rel.events[cols].equals(ab.events[cols])
    assert rel.meta["kineto"]["time_base"] != ab.meta["kineto"]["time_base"]


def test_rocm_trace(real_data):
    prof = read_kineto(real_data / "tracelens/tests/traces/mi300/gaunernst_bert-small-uncased__1016001.json.gz")
    ev = prof.events
    assert "ROCm" in prof.meta["kineto"]["markers"]
    kern = ev[ev["cat"] == "kernel"]
    assert len(kern) and set(kern["device"].astype(str)) == {"cuda:2"}
    rt = ev[ev["cat"] == "runtime"]["name"].astype(str)
    assert rt.str.startswith("hip").mean() > 0.9
    assert prof.meta["kineto"]["links"]["link_rate"] == 1.0
    assert any(d.get("name", "").startswith("AMD Instinct MI300X") for d in prof.meta["devices"])


def test_mtia_trace(real_data):
    prof = read_kineto(real_data / MTIA).validate()
    ev = prof.events
    assert set(ev["device"].astype(str)) == {"cpu", "mtia:17"}
    rt = ev[ev["src_cat"] == "mtia_runtime"]
    assert len(rt) and (rt["cat"] == "runtime").all()
    ccp = ev[ev["src_cat"] == "mtia_ccp_events"]
    assert len(ccp) and (ccp["device"] == "mtia:17").all()
    assert ccp["track"].astype(str).str.startswith("mtia:17/").all()
    # the command processor's events are the device's work: execution as kernels, DMA as copies,
    # event waits/records as syncs (not work), so the device shows in the summary beside the CPU
    by_name = ccp.groupby(ccp["name"].astype(str))["cat"].agg(lambda c: set(c.astype(str)))
    assert by_name["pe_exe"] == by_name["merge"] == {"kernel"} and by_name["dma_request"] == {"memcpy"}
    assert by_name["event_wait"] == by_name["event_record"] == {"runtime"}
    from cann_nb.analyze.api import analyze

    devices = analyze(prof)["summary"]["devices"]
    assert devices["mtia:17"]["compute_ns"] > 0 and devices["mtia:17"]["memcpy_ns"] > 0
    assert {"device": "mtia:17", "name": "ARTEMIS"}.items() <= next(
        d for d in prof.meta["devices"] if d["device"] == "mtia:17").items()


def test_python_functions_are_opt_in(real_data):
    path = real_data / H100_BERT
    doc = raw(path)
    n_py = sum(1 for e in doc["traceEvents"] if e.get("cat") == "python_function")
    without = read_kineto(path)
    # left out on purpose, not lost to a full buffer: "skipped", and the summary says so
    assert without.meta["skipped"]["python_function"] == n_py and not without.meta["dropped"]
    assert "not imported, on purpose: python_function" in without.summary_text()
    assert "buffer full" not in without.summary_text()
    assert (without.events["cat"] == "python").sum() == 0
    with_py = read_kineto(path, python_functions=True).validate()
    assert (with_py.events["cat"] == "python").sum() == n_py
    # the frames left out still bound the trace: the same wall and t0 either way
    assert without.wall_ns == with_py.wall_ns and without.meta["t0_ns"] == with_py.meta["t0_ns"]
    # python frames nest above the ops they call
    ops = with_py.events[with_py.events["cat"] == "op"]
    assert ops["depth"].mean() > without.events.loc[without.events["cat"] == "op", "depth"].mean()


def test_meta(real_data):
    prof = read_kineto(real_data / NCCL)
    meta = prof.meta
    assert meta["distributed"] == {"rank": 0, "world_size": 2, "backend": "nccl"}
    assert meta["source"]["path"].endswith("nccl_data.json.gz") and meta["name"] == "nccl_data"
    assert meta["kineto"]["trace"]["displayTimeUnit"] == "ms"
    assert meta["kineto"]["schema_era"].startswith("PyTorch 2.1")
    cuda0 = next(d for d in meta["devices"] if d["device"] == "cuda:0")
    assert cuda0["name"] == "NVIDIA A100-PG509-200" and cuda0["numSms"] == 108
    assert meta["ignored"]["flow fwdbwd"] == 1086
    json.dumps(meta)
    # credentials copied into trace metadata by collection harnesses do not survive the import
    def find(obj, key):
        if isinstance(obj, dict):
            for k, v in obj.items():
                yield from ([v] if k == key else find(v, key))
        elif isinstance(obj, list):
            for v in obj:
                yield from find(v, key)

    raw_tokens = list(find(raw(real_data / H100_BERT), "HF_TOKEN"))
    tokens = list(find(read_kineto(real_data / H100_BERT).meta, "HF_TOKEN"))
    assert raw_tokens and tokens == ["<redacted>"] * len(raw_tokens)


def test_t0_and_sources(real_data):
    path = real_data / BEFORE_FIX
    a = read_kineto(path)
    b = read_kineto(path, t0_ns=a.meta["t0_ns"] - 1000, name="x")
    assert b.name == "x" and (b.events["start_ns"] - a.events["start_ns"] == 1000).all()
    c = read_kineto(path.read_bytes())
    d = read_kineto(json.loads(path.read_text()))
    cols = ["name", "cat", "track", "start_ns", "dur_ns", "parent", "corr"]
    assert a.events[cols].equals(c.events[cols]) and a.events[cols].equals(d.events[cols])


def test_gzip_and_plain_give_the_same_profile(real_data, tmp_path):
    src = real_data / "tracelens/tests/traces/torch_compile_triton/trace.json.gz"
    plain = tmp_path / "trace.json"
    plain.write_bytes(gzip.decompress(src.read_bytes()))
    a, b = read_kineto(src), read_kineto(plain)
    assert a.events.equals(b.events) and a.meta["t0_ns"] == b.meta["t0_ns"]


def test_small_chunks_and_whole_document_agree(real_data, monkeypatch):
    """The streamed reader (many chunks, cuts everywhere) and one whole parse give the same tables."""
    import cann_nb.ingest.chunked_json as cj

    path = real_data / H100_BERT
    whole = read_kineto(json.loads(gzip.decompress(path.read_bytes())))
    monkeypatch.setattr(cj, "CHUNK_BYTES", 4096)
    streamed = read_kineto(path)
    assert streamed.meta["kineto"]["parse"] == "streamed"
    assert streamed.events.equals(whole.events)
    assert streamed.memory.equals(whole.memory)


@pytest.mark.parametrize("rel", [H100_BERT, LEGACY, MTIA, NS_ABS, "tracelens/tests/traces/mi300/resnet_act_checkpoint.json.gz"])
def test_msgspec_and_dict_paths_agree(real_data, monkeypatch, rel):
    """With msgspec installed chunks decode into structs; without, into dicts: same profile."""
    import cann_nb.ingest.kineto_structs as ks

    if ks.decode is None:
        pytest.skip("msgspec not installed: only the dict path exists here")
    path = real_data / rel
    fast = read_kineto(path, python_functions=True)
    monkeypatch.setattr(ks, "decode", None)
    plain = read_kineto(path, python_functions=True)
    assert fast.events.equals(plain.events)
    assert fast.memory.equals(plain.memory)
    assert fast.meta["kineto"]["links"] == plain.meta["kineto"]["links"]
    assert fast.meta["kineto"]["timestamp_precision"] == plain.meta["kineto"]["timestamp_precision"]


def test_errors_name_file_and_place(tmp_path):
    bad = tmp_path / "t.json"
    bad.write_text('{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1},'
                   ' {"ph": "X", "name": "b", "ts": "soon", "dur": 2, "pid": 1, "tid": 1}]}')
    with pytest.raises(TraceFormatError) as err:
        read_kineto(bad)
    assert err.value.path == str(bad) and err.value.where == "traceEvents[1]" and "ts" in err.value.expected
    bad.write_text('{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1},')
    with pytest.raises(TraceFormatError) as err:
        read_kineto(bad)
    assert "byte" in err.value.where and err.value.expected == "valid JSON"
    bad.write_text('{"traceEvents": 3}')
    with pytest.raises(TraceFormatError, match="traceEvents"):
        read_kineto(bad)
    with pytest.raises(TraceFormatError, match="readable file"):
        read_kineto(tmp_path / "missing.json")


def test_counters_and_bare_array():
    events = [
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10.5, "dur": 3.25},
        {"ph": "C", "name": "gpu_util", "pid": 1, "ts": 11, "args": {"value": 87}},
        {"ph": "C", "cat": "host", "name": "mem", "pid": 1, "ts": 12, "args": {"rss": 1.5e9, "vms": 3e9}},
        {"ph": "B", "name": "unsupported", "pid": 1, "tid": 1, "ts": 1},
    ]
    prof = read_kineto(json.dumps(events).encode()).validate()
    assert prof.meta["t0_ns"] == 10_500 and prof.events["dur_ns"].tolist() == [3250]
    c = prof.counters
    assert c["metric"].astype(str).tolist() == ["gpu_util", "mem.rss", "mem.vms"]
    assert c["ts_ns"].tolist() == [500, 1500, 1500] and c["value"].tolist() == [87, 1.5e9, 3e9]
    assert prof.meta["ignored"]["phase B"] == 1
