"""The cluster view and its fallbacks render the analysis' numbers, escaped."""

from __future__ import annotations

import numpy as np
import pytest

from cann_nb.analyze.cluster import cluster_analysis
from cann_nb.store import Session
from cann_nb.widgets._encode import decode
from cann_nb.widgets.cluster_view import ClusterView, cluster_payload
from cann_nb.widgets.static import cluster_html, cluster_text
from tests.analyze.synth_cluster import store_job

EVIL = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    root = tmp_path_factory.mktemp("cv")
    store_job(root, "g", n_ranks=6, steps=4, kernels=8, straggler=2, slow=1.5)
    res = cluster_analysis(Session(root)["g"])
    res.group["name"] = EVIL           # what a trace or a user may put in a name
    return res


def test_payload_carries_the_analysis_numbers(result):
    p = cluster_payload(result)
    assert [r["rank"] for r in p["ranks"]] == list(range(6)) and p["stragglers"] == [2] and p["n_steps"] == 4
    assert p["ranks"][2]["comm_wait_ns"] == int(result.ranks.set_index("rank").loc[2, "comm_wait_ns"])
    np.testing.assert_array_equal(decode(p["steps"]["dur_ns"]), result.steps["dur_ns"].to_numpy(np.float64))
    np.testing.assert_array_equal(decode(p["steps"]["comm_wait_ns"]), result.steps["comm_wait_ns"].to_numpy(np.float64))


def test_text_and_html_fallbacks_mark_the_straggler_and_escape(result):
    text = cluster_text(result)
    assert "2 *" in text and "rank 2: compute" in text and "robust z-score" in text
    html = cluster_html(result)
    assert EVIL not in html and "&lt;img" in html
    assert html.count("background:#ffebe9") == 1     # the straggler's row


def test_the_widget_bundle_and_a_clicked_rank(result):
    bundle = result._repr_mimebundle_()
    assert bundle["text/plain"] == cluster_text(result) and EVIL not in bundle["text/html"]
    view = ClusterView(result)
    assert view._view == "cluster" and view.rank_profile() is None
    view.selected_rank = 2
    assert view.rank_profile().meta["rank"] == 2
