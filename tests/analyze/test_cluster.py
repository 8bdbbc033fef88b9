"""The cross-rank analysis (DESIGN.md, "Clusters (many ranks)"): a synthetic 16-rank data-parallel job with
a planted straggler stored as a real group, the real multi-rank samples, and the Dask engine."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import cann_nb
from cann_nb.analyze.api import summary
from cann_nb.analyze.cluster import COLLECTIVE_KEYS, RANK_KEYS, STRAGGLER_KEYS, cluster_analysis
from cann_nb.analyze.cluster.stragglers import Z_THRESHOLD
from cann_nb.errors import CannNbError
from cann_nb.store import Session
from tests.analyze.synth_cluster import store_job
from tests.conftest import ASCEND_L1

DLRM = "param/et_replay/tests/inputs/dlrm_kineto_extracted"
STRAGGLER = 5


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    root = tmp_path_factory.mktemp("cluster")
    truth = store_job(root, "dp16", n_ranks=16, steps=20, kernels=32, straggler=STRAGGLER, kind="compute")
    group = Session(root)["dp16"]
    return group, truth.set_index("rank"), cluster_analysis(group)


def test_per_rank_breakdowns_are_within_one_percent_of_the_truth(job):
    _, truth, res = job
    ranks = res.ranks.set_index("rank")
    assert list(ranks.index) == list(range(16)) and set(ranks["device"]) == {"cuda:0"}
    for col in ("wall_ns", "busy_ns", "idle_ns", "compute_ns", "communication_ns", "step_p50_ns"):
        np.testing.assert_allclose(ranks[col], truth[col], rtol=0.01, err_msg=col)
    assert (ranks["memcpy_ns"] == 0).all()


def test_comm_wait_is_within_five_percent_despite_the_clock_errors(job):
    _, truth, res = job
    ranks = res.ranks.set_index("rank")
    assert truth["clock_error_ns"].abs().max() > 50_000   # the clocks really disagree
    healthy = truth.index != STRAGGLER
    np.testing.assert_allclose(ranks["comm_wait_ns"][healthy], truth["comm_wait_ns"][healthy], rtol=0.05)
    assert ranks.loc[STRAGGLER, "comm_wait_ns"] <= 0.05 * truth["comm_wait_ns"][healthy].median()


def test_the_straggler_is_the_only_entry_and_a_finding_names_it(job):
    _, truth, res = job
    assert res.straggler_ranks == [STRAGGLER]
    s = res.stragglers.iloc[0]
    assert s["reason"] == "compute" and s["metric"] == "active_ns" and s["score"] > Z_THRESHOLD
    (f,) = res.findings
    assert f.rule == "cluster_straggler" and f.evidence["rank"] == STRAGGLER and "Rank 5" in f.title
    # the gain: the straggler's extra compute, i.e. the others' wait per step
    expected = truth.loc[STRAGGLER, "compute_ns"] - truth["compute_ns"].median()
    assert f.est_gain_ns == pytest.approx(expected, rel=0.05)
    assert f.evidence["test"] == res.group["straggler_test"]


def test_collectives_are_matched_on_every_rank_with_the_straggler_last(job):
    _, _, res = job
    (c,) = res.collectives.to_dict("records")
    assert c["name"] == "ncclKernel_AllReduce_RING_LL_Sum_float" and c["count"] == 20 and c["ranks"] == 16
    assert c["last_rank"] == STRAGGLER and 0 < c["skew_p50_ns"] <= c["skew_max_ns"]
    # the heatmap's cells: one per rank and step, their waits adding up to the rank's
    assert len(res.steps) == 16 * 20
    per_rank = res.steps.groupby("rank")["comm_wait_ns"].sum()
    np.testing.assert_array_equal(per_rank.to_numpy(), res.ranks["comm_wait_ns"].to_numpy())


def test_json_is_exactly_the_design_shape(job):
    _, _, res = job
    out = res.to_json()
    assert list(out) == ["group", "ranks", "stragglers", "collectives", "findings"]
    assert all(tuple(r) == RANK_KEYS for r in out["ranks"])
    assert all(tuple(s) == STRAGGLER_KEYS for s in out["stragglers"])
    assert all(tuple(c) == COLLECTIVE_KEYS for c in out["collectives"])
    assert out["group"]["name"] == "dp16" and out["group"]["engine"] == "duckdb"
    import json
    json.dumps(out, allow_nan=False)


@pytest.mark.parametrize("kind", ["data_loading", "imbalance"])
def test_the_reason_follows_what_the_straggler_does_more(tmp_path, kind):
    store_job(tmp_path, "g", n_ranks=8, steps=6, kernels=16, straggler=2, kind=kind, slow=1.4)
    res = cluster_analysis(Session(tmp_path)["g"])
    assert res.straggler_ranks == [2] and res.stragglers["reason"].tolist() == [kind]
    assert res.findings[0].category == {"data_loading": "input_pipeline", "imbalance": "utilization"}[kind]


def test_a_healthy_job_has_no_straggler(tmp_path):
    store_job(tmp_path, "g", n_ranks=8, steps=6, kernels=16, straggler=-1)
    res = cluster_analysis(Session(tmp_path)["g"])
    assert res.straggler_ranks == [] and res.findings == []


def test_the_analysed_ranks_are_let_go(job):
    import gc
    import weakref

    from cann_nb.analyze.cluster.rank import summarise_rank
    group, _, _ = job
    from cann_nb.store import read_profile_dir
    p = read_profile_dir(group.directory / "rank=0")
    summarise_rank(p, 0)
    ref = weakref.ref(p)
    del p
    gc.collect()
    assert ref() is None


def test_real_dlrm_eight_ranks(real_data, tmp_path):
    group = cann_nb.load(real_data / DLRM, workers=1, progress=False)
    res = cluster_analysis(group)
    assert res.ranks["rank"].tolist() == list(range(8))
    # the same definitions as analyze, for each rank's busiest device
    for r in res.ranks.to_dict("records"):
        dev = summary(group[r["rank"]])["devices"][r["device"]]
        assert {k: r[k] for k in dev} == dev
    names = set(res.collectives["name"])
    assert names == {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", "ncclKernel_AllReduce_RING_LL_Sum_float"}
    assert (res.collectives["ranks"] == 8).all()
    assert res.collectives.set_index("name")["count"].to_dict() == {
        "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t": 5, "ncclKernel_AllReduce_RING_LL_Sum_float": 3}
    assert (res.ranks["comm_wait_ns"] >= 0).all() and (res.ranks["comm_wait_ns"] < res.ranks["wall_ns"]).all()
    # one clock (one host): the alignment moves no rank by more than a few microseconds
    assert res.ranks["offset_ns"].abs().max() < 10_000
    # stored as a group, the answer is the same
    Session(tmp_path).add_group("dlrm", {r: group[r] for r in group.ranks})
    stored = cluster_analysis(Session(tmp_path)["dlrm"])
    assert stored.to_json()["ranks"] == res.to_json()["ranks"]


def test_real_ascend_hccl_collectives_are_matched(real_data):
    group = cann_nb.load(real_data / ASCEND_L1, workers=1, progress=False)
    res = cluster_analysis(group)
    assert res.ranks["device"].tolist() == ["npu:0", "npu:1"]
    assert sorted(res.collectives["name"]) == [f"hcom_allReduce__586_{i}_1" for i in range(4)]
    assert (res.collectives["ranks"] == 2).all()
    assert res.stragglers.empty   # two ranks: no median to stand out from
    # rank 1 came to the first all-reduce 5.6 ms late: rank 0 waited for it
    first = res.collectives.set_index("name").loc["hcom_allReduce__586_0_1"]
    assert first["last_rank"] == 1 and first["skew_max_ns"] > 5_000_000
    assert res.ranks.set_index("rank").loc[0, "comm_wait_ns"] > 5_000_000


def test_dask_gives_the_same_answer_on_its_workers(job):
    distributed = pytest.importorskip("distributed")
    group, _, local = job
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                                  dashboard_address=None) as lc:
        workers = set(lc.scheduler_info["workers"])
        res = cluster_analysis(group, scheduler=lc.scheduler_address)
    got, want = res.to_json(), local.to_json()
    assert {k: v for k, v in got.items() if k != "group"} == {k: v for k, v in want.items() if k != "group"}
    assert res.ranks["worker"].notna().all() and set(res.ranks["worker"]) <= workers
    assert res.group["engine"].startswith("dask (tcp://") and res.group["workers"]


def test_a_scheduler_without_dask_says_how_to_get_it(job, monkeypatch):
    group, _, _ = job
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(CannNbError, match=r"pip install 'dask\[distributed\]'"):
        cluster_analysis(group, scheduler="tcp://127.0.0.1:1")
