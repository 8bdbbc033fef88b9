"""Every share a finding states ("X % of end-to-end") and every estimated gain is at most 100 %: they are
fractions of a union of time clipped to the wall, on synthetic profiles built to overlap and on real traces."""

import math
import re

import pytest

from cann_nb.analyze.api import findings

from .synth import Trace

PCT = re.compile(r"(\d+(?:\.\d+)?)\s*%")
ELEMENTWISE = ("aten::mul", "aten::add", "aten::tanh", "aten::mul", "aten::add")


def assert_shares_within_wall(fs, where=""):
    for f in fs:
        if f.est_gain_pct is not None and math.isfinite(f.est_gain_pct):
            assert 0.0 <= f.est_gain_pct <= 100.0, (where, f.rule, f.est_gain_pct)
            assert f.est_gain_ns <= f.evidence.get("wall_ns", math.inf), (where, f.rule)
        for v in PCT.findall(f.title):
            assert float(v) <= 100.0, (where, f.rule, f.title)


def threads_running_the_same_loop(n_threads=6, iters=200, op_ns=40_000):
    """Several host threads running the same elementwise chain and a blocking sync at once: summed
    durations are n_threads x the wall."""
    tr = Trace()
    for th in range(n_threads):
        track = f"host/thread {th + 1}"
        t = 0
        for _ in range(iters):
            for name in ELEMENTWISE:
                tr.op(name, t, op_ns, track=track, shapes="[[4096, 4096], [4096, 4096]]", dtypes="[double, double]")
                t += op_ns + 1_000
            tr.op("aten::linalg_inv", t, op_ns * 3, track=track, shapes="[[256, 256]]", dtypes="[double]")
            t += op_ns * 3 + 1_000
            tr.add("cudaStreamSynchronize", "runtime", t, op_ns, track=track)
            t += op_ns + 1_000
    return tr.profile()


def nested_same_name(depth=5, n=300, dur=50_000):
    """An op nested in itself (recursion, wrappers of one name): each level's time is the same time."""
    tr = Trace()
    t = 0
    for _ in range(n):
        for d in range(depth):
            tr.op("aten::contiguous", t + d, dur - 2 * d)
            tr.op("aten::clone", t + d + 1, dur - 2 * d - 2)
        t += dur + 1_000
    return tr.profile()


@pytest.mark.parametrize("build", [threads_running_the_same_loop, nested_same_name])
def test_synthetic_overlaps_never_exceed_the_wall(build):
    prof = build()
    fs = findings(prof)
    assert fs, "the profile is built to trigger rules"
    assert_shares_within_wall(fs, build.__name__)


def test_chain_share_is_the_union_of_its_ops():
    prof = threads_running_the_same_loop()
    chain = [f for f in findings(prof) if f.rule == "elementwise_chain"]
    assert chain
    # six threads run the same chains at once: the chains cover at most the wall, not six times it
    assert chain[0].evidence["time_ns"] <= prof.wall_ns


REAL = [
    "hta/tests/data/mtia_inference_trace/mtia_inference_rank_0.json.gz",
    "hta/tests/data/nccl_parser_config/nccl_data.json.gz",
    "hta/tests/data/trace_filter/sampled_rank-0.json.gz",
    "hta/tests/data/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
    "hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "tracelens/tests/traces/mi300/resnet_act_checkpoint.json.gz",
    "tracelens/tests/traces/h100/google_owlv2-large-patch14-ensemble__1016001.json.gz",
    "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz",
    "param/et_replay/tests/inputs/resnet_kineto.json.gz",
    "msinsight/test/data/pytorch/text/level1/rank0_ascend_pt",
]


@pytest.mark.parametrize("rel", REAL, ids=lambda r: r.split("/")[-1][:40])
def test_real_traces_never_exceed_the_wall(real_data, rel):
    from cann_nb.ingest.load import load

    prof = load(real_data / rel)
    assert_shares_within_wall(findings(prof), rel)
