"""`cann-nb cluster`, `cann_nb.cluster` and `%cann_cluster` on a stored group: one analysis, three front ends."""

from __future__ import annotations

import json

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

import cann_nb
from cann_nb.frontends import cli
from tests.analyze.synth_cluster import store_job


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("clusterfe")
    store_job(root, "job", n_ranks=6, steps=4, kernels=8, straggler=3, slow=1.5)
    return root


def run_cli(capsys, *args):
    code = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_json_text_and_the_python_call_agree(store, capsys):
    code, out, _ = run_cli(capsys, "cluster", "job", "--store", store, "--json")
    assert code == 0
    got = json.loads(out)
    assert [s["rank"] for s in got["stragglers"]] == [3] and len(got["ranks"]) == 6
    assert got == cann_nb.cluster("job", store=store).to_json() == cann_nb.cluster(store / "job").to_json()
    code, out, _ = run_cli(capsys, "cluster", store / "job")
    assert code == 0 and "rank 3: compute" in out and "3 *" in out


def test_analyze_on_a_group_points_to_cluster_and_cluster_on_one_rank_to_analyze(store, capsys):
    code, _, err = run_cli(capsys, "analyze", "job", "--store", store)
    assert code == 2 and "cann-nb cluster job" in err and "job/rank=0" in err
    code, _, err = run_cli(capsys, "cluster", "job/rank=1", "--store", store)
    assert code == 2 and "is one profile" in err and "cann-nb analyze job/rank=1" in err


def test_the_magic_returns_the_result_and_says_what_is_wrong(store, monkeypatch):
    monkeypatch.setenv("CANN_NB_DIR", str(store))
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "cann_nb")
    try:
        res = ip.run_line_magic("cann_cluster", "job")
        assert res.straggler_ranks == [3] and res.ranks["rank"].tolist() == list(range(6))
        res = ip.run_line_magic("cann_cluster", f"job -o {store}")
        assert res.straggler_ranks == [3]
        with pytest.raises(UsageError, match="is one profile"):
            ip.run_line_magic("cann_cluster", "job/rank=0")
    finally:
        ip.run_line_magic("unload_ext", "cann_nb")
