"""The roofline analysis: exact FLOP/byte formulas per op family, attribution (each FLOP once, on the
event whose time it took), peaks with their sources, and the issue's "done when": a profiled GEMM and
GEMV loop, and imported real traces."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import cann_nb
from cann_nb.analyze.efficiency import device_efficiency, op_efficiency
from cann_nb.analyze.efficiency.formulas import cost
from cann_nb.analyze.efficiency.peaks import ACCELERATORS, device_peaks
from cann_nb.analyze.efficiency.tensors import parse_inputs

from .synth import STREAM, Trace

ROOT = Path(__file__).resolve().parents[2]


def fb(name, shapes, dtypes, concrete=""):
    f, b, _, _ = cost(name, parse_inputs(shapes, dtypes), concrete)
    return f, b


# -- formulas ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, shapes, dtypes, concrete, flops, nbytes", [
    ("aten::mm", "[[8,16],[16,4]]", '["float","float"]', "", 2 * 8 * 16 * 4, 4 * (8 * 16 + 16 * 4 + 8 * 4)),
    ("aten::addmm", "[[4],[8,16],[16,4],[],[]]", '["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"]',
     "", 2 * 8 * 16 * 4, 2 * (4 + 8 * 16 + 16 * 4 + 8 * 4)),
    ("aten::bmm", "[[3,8,16],[3,16,4]]", '["c10::Half","c10::Half"]', "", 2 * 3 * 8 * 16 * 4,
     2 * (3 * 8 * 16 + 3 * 16 * 4 + 3 * 8 * 4)),
    ("aten::linear", "[[2,5,16],[4,16],[4]]", '["float","float","float"]', "", 2 * 10 * 16 * 4,
     4 * (2 * 5 * 16 + 4 * 16 + 4 + 10 * 4)),
    ("aten::mv", "[[8,16],[16]]", '["float","float"]', "", 2 * 8 * 16, 4 * (8 * 16 + 16 + 8)),
    ("aten::matmul", "[[1,1024],[1024,1024]]", '["float","float"]', "", 2 * 1024 * 1024,
     4 * (1024 + 1024 * 1024 + 1024)),
    ("aten::conv2d", "[[1,3,8,8],[4,3,3,3],[4],[],[],[],[]]", '["float","float","float","ScalarList","ScalarList",'
     '"ScalarList","Scalar"]', '["","","","[1, 1]","[1, 1]","[1, 1]","1"]', 2 * 4 * 3 * 9 * 64,
     4 * (3 * 64 + 4 * 27 + 4 + 4 * 64)),
    ("aten::scaled_dot_product_attention", "[[2,4,16,8],[2,4,32,8],[2,4,32,8]]",
     '["c10::BFloat16","c10::BFloat16","c10::BFloat16"]', "", 2 * 2 * 4 * 16 * 32 * (8 + 8),
     2 * (2 * 4 * 16 * 8 + 2 * 2 * 4 * 32 * 8 + 2 * 4 * 16 * 8)),
    ("aten::add", "[[4,1],[1,5],[]]", '["float","float","Scalar"]', "", 20, 4 * (4 + 5 + 20)),
    ("aten::relu_", "[[6,5]]", '["float"]', "", 30, 4 * (30 + 30)),
    ("aten::eq", "[[4,5],[]]", '["long int","Scalar"]', "", 20, 8 * 20 + 20),
    ("aten::addcmul", "[[10],[10],[10],[]]", '["float","float","float","Scalar"]', "", 20, 4 * 40),
    ("aten::sum", "[[10,10],[],[],[]]", '["float","ScalarList","Scalar",""]', "", 100, 400),
    ("aten::var", "[[10,10]]", '["float"]', "", 300, 400),
    ("aten::native_layer_norm", "[[2,8],[],[8],[8],[]]", '["float","ScalarList","float","float","Scalar"]', "",
     (5 + 2) * 16, 4 * (16 + 8 + 8 + 16)),
    ("aten::_softmax", "[[2,8],[],[]]", '["float","Scalar","Scalar"]', "", 5 * 16, 4 * (16 + 16)),
    ("aten::embedding", "[[100,16],[2,3],[],[],[]]", '["float","long int","Scalar","Scalar","Scalar"]', "", 0,
     8 * 6 + 2 * 6 * 16 * 4),
    ("aten::copy_", "[[4,4],[4,4],[]]", '["c10::Half","float","Scalar"]', "", 0, 2 * 16 + 4 * 16),
    ("aten::cat", "[[2,3],[4,3]]", '["float","float"]', "", 0, 2 * 4 * 18),
    ("aten::view", "[[4,4],[]]", '["float","ScalarList"]', "", 0, 0),
    # an LSTM layer over 5 steps of a batch of 2: 4 gates of 8, input 3; the output sequence written
    ("aten::mkldnn_rnn_layer", "[[5,2,3],[32,3],[32,8],[32],[32],[2,8],[2,8],[]]",
     '["float","float","float","float","float","float","float","Scalar"]', "", 2 * 10 * 32 * (3 + 8) + 10 * 32,
     4 * (30 + 96 + 256 + 32 + 32 + 16 + 16 + 10 * 8)),
    ("aten::mm", "8,16;16,4", "FLOAT16;FLOAT16", "", 2 * 8 * 16 * 4, 2 * (8 * 16 + 16 * 4 + 8 * 4)),  # Ascend spelling
])
def test_formula(name, shapes, dtypes, concrete, flops, nbytes):
    assert fb(name, shapes, dtypes, concrete) == (flops, nbytes)


@pytest.mark.parametrize("name, shapes, dtypes", [
    ("aten::conv2d", "[[1,3,8,8],[4,3,3,3],[4]]", '["float","float","float"]'),   # no stride/padding recorded
    ("aten::normal_", "[[4,4],[],[]]", '["float","Scalar","Scalar"]'),            # no formula
    ("aten::mm", "[[],[]]", '["",""]'),                                            # inputs not recorded
])
def test_no_formula_is_unknown_not_guessed(name, shapes, dtypes):
    f, b = fb(name, shapes, dtypes)
    assert math.isnan(f) and math.isnan(b)


# -- attribution ------------------------------------------------------------------------------------------
def _gpu_linear(name="NVIDIA H100 80GB HBM3"):
    """aten::linear -> aten::addmm -> launch -> two kernels (3 and 1 us) on an H100."""
    t = Trace()
    mm = dict(shapes="[[64],[128,256],[256,64],[],[]]", dtypes='["float","float","float","Scalar","Scalar"]')
    t.op("aten::linear", 0, 10_000, shapes="[[128,256],[64,256],[64]]", dtypes='["float","float","float"]')
    t.op("aten::addmm", 1_000, 8_000, **mm)
    t.launch(2_000, 1_000, corr=7)
    t.launch(4_000, 1_000, corr=8)
    t.kernel("ampere_sgemm_128x64_tn", 5_000, 3_000, corr=7)
    t.kernel("bias_add_kernel", 9_000, 1_000, corr=8)
    return t.profile(wall_ns=20_000, devices=[{"device": "cpu"}, {"device": "cuda:0", "name": name}])


def test_each_flop_counted_once_on_the_innermost_op_and_spread_over_its_kernels():
    p = _gpu_linear()
    ops = op_efficiency(p).set_index("name")
    flops = 2.0 * 128 * 256 * 64
    assert math.isnan(ops.loc["aten::linear", "flops"]) if "aten::linear" in ops.index else True
    assert ops.loc["aten::addmm", "flops"] == flops
    assert ops.loc["aten::addmm", "time_ns"] == 4_000            # its kernels' time, not the host's
    assert ops.loc["ampere_sgemm_128x64_tn", "flops"] == pytest.approx(0.75 * flops)
    assert ops.loc["bias_add_kernel", "flops"] == pytest.approx(0.25 * flops)
    eff = device_efficiency(p)
    assert set(eff) == {"cuda:0"}                              # the host op is not counted a second time
    assert eff["cuda:0"]["flops"] == pytest.approx(flops)
    assert eff["cuda:0"]["peak_flops_per_s"] == 67e12          # float32 without TF32 kernels: the FP32 figure
    assert eff["cuda:0"]["mfu"] == pytest.approx(flops / 67e12 / 20e-6)
    assert "nvidia-tensor-core-gpu-datasheet" in eff["cuda:0"]["peak_source"]


def test_unknown_device_has_no_peak_and_says_so():
    eff = device_efficiency(_gpu_linear("Acme Tensor 9000"))["cuda:0"]
    assert math.isnan(eff["mfu"]) and math.isnan(eff["peak_flops_per_s"]) and eff["flops"] > 0
    assert "unknown device" in eff["peak_source"] and "Acme Tensor 9000" in eff["peak_source"]
    assert set(op_efficiency(_gpu_linear("Acme Tensor 9000"))["bound"]) == {"unknown"}


def test_an_mfu_above_one_is_flagged_not_shown_silently(tmp_path, monkeypatch):
    peaks = tmp_path / "peaks.json"
    peaks.write_text(json.dumps({"H100": {"model": "wrong", "flops": {"fp32": 1e9}, "bytes_per_s": 1e9,
                                          "source": "a wrong table"}}))
    monkeypatch.setenv("CANN_NB_PEAKS", str(peaks))
    eff = device_efficiency(_gpu_linear())["cuda:0"]
    assert eff["mfu"] > 1 and "peak is wrong" in eff["peak_warning"] and "a wrong table" in eff["peak_source"]


def test_every_table_row_cites_its_source():
    for row in ACCELERATORS:
        if row.flops:
            assert row.source.startswith("https://"), row.model
        else:
            assert "no vendor datasheet figure" in row.source, row.model
        for dtype, v in row.flops.items():
            assert v > 0 and dtype in ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8")
    # dense, not sparse: the H100 SXM bf16 figure is half the datasheet's starred 1,979
    assert device_peaks({"devices": [{"device": "cuda:0", "name": "NVIDIA H100 80GB HBM3"}]}, "cuda:0").flops["bf16"] \
        == 989.5e12


def test_cpu_peaks_of_another_machine_are_unknown(tmp_path, monkeypatch):
    from cann_nb.analyze.efficiency import cpu_peaks as C

    monkeypatch.setenv("CANN_NB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(C, "measure", lambda: pytest.fail("measured for another machine"))
    pk = C.cpu_peaks({"environment": {"cpu_model": "Some Other CPU", "cpu_count": 999}})
    assert not pk.flops and "not this machine" in pk.source
    assert "imported trace" in C.cpu_peaks({}).source


def test_cpu_peaks_are_measured_once_and_cached(tmp_path, monkeypatch):
    from cann_nb.analyze.efficiency import cpu_peaks as C
    from cann_nb.collect.environment import describe_environment

    monkeypatch.setenv("CANN_NB_CACHE_DIR", str(tmp_path))
    calls = []
    monkeypatch.setattr(C, "measure", lambda: calls.append(1) or {"flops": {"fp32": 1e11}, "bytes_per_s": 1e10,
                                                                   "threads": None, "date": "2026-01-02",
                                                                   "method": "test"})
    meta = {"environment": describe_environment()}
    first, second = C.cpu_peaks(meta), C.cpu_peaks(meta)
    assert calls == [1] and first.flops == second.flops == {"fp32": 1e11}
    assert second.source.startswith("measured on this machine (2026-01-02)")
    assert (tmp_path / "cpu_peaks.json").is_file()


def test_cpu_flops_peak_is_scaled_to_the_threads_the_run_had(tmp_path, monkeypatch):
    # measured with 4 threads, the run had 1 (OMP_NUM_THREADS=1): a quarter of the FLOP/s is its roof
    from cann_nb.analyze.efficiency import cpu_peaks as C
    from cann_nb.collect.environment import describe_environment

    monkeypatch.setenv("CANN_NB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(C, "measure", lambda: {"flops": {"fp32": 4e11}, "bytes_per_s": 1e10, "threads": 4,
                                               "date": "2026-01-02", "method": "test"})
    env = describe_environment()
    one = dict(env, torch=dict(env.get("torch") or {}, num_threads=1))
    pk = C.cpu_peaks({"environment": one})
    assert pk.flops == {"fp32": 1e11} and pk.bytes_per_s == 1e10
    assert "scaled to the run's 1 of 4 threads" in pk.source
    assert C.cpu_peaks({"environment": dict(env, torch=dict(one["torch"], num_threads=4))}).flops == {"fp32": 4e11}


# -- the "done when": a profiled GEMM and GEMV loop -----------------------------------------------
SCRIPT = """
import torch
a, b, x = torch.randn(1024, 1024), torch.randn(1024, 1024), torch.randn(1, 1024)
for _ in range(3):
    torch.mm(a, b)
for _ in range(200):   # enough GEMV time (well over the rule's 5 % of end-to-end) on a busy machine too
    torch.mm(x, b)
"""


@pytest.fixture(scope="module")
def gemm_json(tmp_path_factory):
    pytest.importorskip("torch")
    tmp = tmp_path_factory.mktemp("roofline")
    (tmp / "gemm.py").write_text(textwrap.dedent(SCRIPT))
    env = {**os.environ, "CANN_NB_CACHE_DIR": str(tmp / "cache"), "PYTHONPATH": str(ROOT)}
    run = [sys.executable, "-m", "cann_nb"]
    subprocess.run([*run, "run", str(tmp / "gemm.py"), "--output", str(tmp / "store")], check=True, env=env,
                   capture_output=True, timeout=300)
    out = subprocess.run([*run, "analyze", str(tmp / "store" / "gemm"), "--json"], check=True, env=env,
                         capture_output=True, timeout=300)
    return json.loads(out.stdout)


def test_gemm_and_gemv_with_default_flags(gemm_json):
    rows = {r["shapes"]: r for r in gemm_json["summary"]["efficiency"]["cpu"]["ops"] if r["name"] == "aten::mm"}
    gemm, gemv = rows["[[1024,1024],[1024,1024]]"], rows["[[1,1024],[1024,1024]]"]
    assert gemm["flops"] == pytest.approx(3 * 2 * 1024 ** 3, rel=0.05)
    assert gemv["flops"] == pytest.approx(200 * 2 * 1024 * 1024, rel=0.05)
    assert gemm["bound"] == "compute" and gemv["bound"] == "memory"
    cpu = gemm_json["summary"]["efficiency"]["cpu"]
    # a GEMV whose 4 MiB stay in cache may beat the DRAM copy bandwidth (flagged); FLOP/s never beat the roof
    assert 0 < cpu["mfu"] <= 1 and "FLOP/s above" not in (cpu["peak_warning"] or ""), cpu["peak_warning"]
    assert cpu["peak_source"].startswith("measured on this machine (")
    assert cpu["flops"] == pytest.approx(3 * 2 * 1024 ** 3 + 200 * 2 * 1024 * 1024, rel=0.05)
    mm = next(r for r in gemm_json["hotspots"] if r["name"] == "aten::mm")
    assert mm["efficiency_time_ns"] == mm["self_ns"]
    assert mm["flops_per_s"] == pytest.approx(mm["flops"] / mm["self_ns"] * 1e9, rel=1e-9)
    assert mm["intensity"] == pytest.approx(mm["flops"] / mm["bytes"])


# -- imported real traces ------------------------------------------------------------------------------------
@pytest.mark.parametrize("path, device, model", [
    ("tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz", "cuda:0", "NVIDIA H100 SXM"),
    # its kernels run on cuda:2 while its device properties name cuda:0 only
    ("tracelens/tests/traces/mi300/gaunernst_bert-small-uncased__1016001.json.gz", "cuda:2", "AMD Instinct MI300X"),
    ("tracelens/tests/traces/b200/eager_trace.json.gz", "cuda:0", "NVIDIA B200 (HGX)"),
])
def test_real_gpu_traces_show_efficiency_with_table_peaks(real_data, path, device, model):
    p = cann_nb.load(real_data / path)
    eff = device_efficiency(p)[device]
    assert eff["model"] == model and eff["peak_source"].startswith("https://")
    assert eff["flops"] > 0 and 0 < eff["mfu"] <= 1 and eff["peak_warning"] is None
    ops = op_efficiency(p)
    costed = ops[ops["flops"] > 0]
    assert len(costed) and set(costed["bound"]) <= {"compute", "memory", "latency", "unknown"}
    assert (costed["bound"] != "unknown").any()
    hs = {r["name"]: r for r in cann_nb.analyze.analyze(p)["hotspots"]}
    assert any(r["flops"] and r["bound"] != "unknown" for r in hs.values())


def test_real_ascend_trace_shows_efficiency_and_why_its_peak_is_unknown(real_data):
    from cann_nb.ingest.ascend import read_ascend

    p = read_ascend(real_data / "msinsight/test/data/pytorch/db/level1/rank0_ascend_pt")
    from cann_nb.analyze.efficiency.peaks import device_peaks

    ops = op_efficiency(p).set_index("name")
    assert ops.loc["aten::addmm", "flops"] > 0 and ops.loc["aten::relu_", "bytes"] > 0
    # its ops run on a task-queue thread the trace does not link: never put on the CPU's roofs
    assert set(ops.loc[ops["flops"] > 0, "device"]) == {"unlinked"}
    assert "cpu" not in device_efficiency(p)
    assert set(ops.loc[ops["flops"] > 0, "bound"]) == {"unknown"}
    npu = device_peaks(p.meta, "npu:0")
    assert not npu.flops and "Ascend 910B" in npu.source


def test_the_advisor_batches_the_gemv_with_a_gain_from_the_roof(gemm_json):
    f = next(f for f in gemm_json["findings"] if f["rule"] == "batch_matvec")
    assert f["evidence"]["method"].startswith("roofline:")
    assert f["ops"] == ["aten::mm"] and f["evidence"]["groups"][0]["shapes"] == "[[1,1024],[1024,1024]]"
    g = f["evidence"]["groups"][0]
    assert 0 < f["est_gain_ns"] <= g["time_ns"] and g["batched_roof_ns"] < g["time_ns"]


def test_the_advisor_finds_memory_bound_chains_and_ops_under_the_roof():
    """Synthetic H100 trace: a mul > add > relu chain repeated, memory-bound; a float32 GEMM at 1 % of the roof.
    The host launches ahead (ops 10 us apart), so the kernels queue and the device is the critical path."""
    from cann_nb.analyze.api import findings

    t = Trace()
    ew = dict(shapes="[[4096,4096],[4096,4096]]", dtypes='["float","float"]')
    corr, s, dev = 1, 0, 0
    for _ in range(5):
        for name in ("aten::mul", "aten::add", "aten::relu"):
            t.op(name, s, 5_000, **(ew if name != "aten::relu" else dict(shapes="[[4096,4096]]", dtypes='["float"]')))
            t.launch(s + 1_000, 1_000, corr=corr)
            dev = max(dev, s + 2_000)
            t.kernel(f"{name}_kernel", dev, 400_000, corr=corr)
            corr, s, dev = corr + 1, s + 10_000, dev + 400_000
    t.op("aten::mm", s, 5_000, shapes="[[4096,4096],[4096,4096]]", dtypes='["float","float"]')
    t.launch(s + 1_000, 1_000, corr=corr)
    t.kernel("gemm_kernel", dev, 20_000_000, corr=corr)
    t.add("cudaDeviceSynchronize", "runtime", s + 10_000, dev + 20_000_000 - s - 10_000)
    p = t.profile(wall_ns=dev + 20_010_000,
                  devices=[{"device": "cpu"}, {"device": "cuda:0", "name": "NVIDIA H100 80GB HBM3"}])
    fs = {f.rule: f for f in findings(p)}
    fuse = fs["fuse_memory_bound"]
    assert fuse.evidence["method"].startswith("roofline:") and fuse.est_gain_ns > 0
    assert fuse.evidence["chains"][0]["pattern"] == "mul > add > relu"
    under = fs["under_roof"]
    assert under.evidence["ops"][0]["op"] == "aten::mm" and under.est_gain_ns > 0


def test_integer_matmul_is_estimated_at_the_float32_roof():
    torch = pytest.importorskip("torch")
    from cann_nb.analyze.api import findings

    from .test_torch_cpu import profile

    a = torch.randint(0, 3, (600, 400))

    def slow():
        return a.T @ a

    prof = profile(slow)
    (f,) = [f for f in findings(prof) if f.rule == "integer_matmul"]
    ev = f.evidence
    assert f.category == "precision" and ev["flops"] == 2 * 400 * 600 * 400
    assert ev["as_float32_ns"] < ev["time_ns"] and 0 < f.est_gain_pct < 100
    assert "float()" in f.suggestion
    # the same product in float32 is not flagged
    b = a.float()
    assert not [f for f in findings(profile(lambda: b.T @ b)) if f.rule == "integer_matmul"]


def test_half_precision_matmuls_on_the_cpu_are_estimated_at_the_float32_roof():
    """A model converted with .half() for CPU inference: its linear layers run far under the float32
    peak (no fast half-precision GEMM on this CPU); the float32 model is not flagged."""
    torch = pytest.importorskip("torch")
    from cann_nb.analyze.api import findings

    from .test_torch_cpu import profile

    half = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256)).eval()
    x = torch.randn(1024, 256)

    def run(model, inp):
        with torch.no_grad():
            for _ in range(5):
                model(inp)

    prof32 = profile(lambda: run(half, x))
    assert not [f for f in findings(prof32) if f.rule == "half_precision_cpu"]
    half = half.half()
    prof = profile(lambda: run(half, x.half()))
    fs = [f for f in findings(prof) if f.rule == "half_precision_cpu"]
    if not fs:   # only a CPU with fast half-precision matrix units (AMX, AVX512-FP16) may leave it unflagged
        assert wall_of(prof) < 2 * wall_of(prof32), "half precision ran slower than float32, not flagged"
        return
    (f,) = fs
    ev = f.evidence
    assert f.category == "precision" and ev["flops"] == 5 * 2 * (2 * 1024 * 256 * 256)
    assert ev["as_float32_ns"] < ev["time_ns"] and 0 < f.est_gain_pct < 100
    assert "model.float()" in f.suggestion


def wall_of(prof) -> int:
    ev = prof.events
    return int((ev["start_ns"] + ev["dur_ns"]).max() - ev["start_ns"].min())
