"""analyze/rules/selection.materialised_selection on real Python-tracer profiles: all pairwise distances
reduced by an argmin, and a cross join filtered to the matching pairs, are found with a gain; their
well-written twins (a k-d tree, an as-of merge) are not, nor is a kernel matrix used whole by a solve."""

from __future__ import annotations

from .test_python_loops import profile_script
from .test_work_order_rules import found

NEAREST = """
    import numpy as np
    from scipy.spatial import cKDTree
    from scipy.spatial.distance import cdist

    rng = np.random.default_rng(0)
    points, sites = rng.random((2500, 2)), rng.random((3000, 2))

    def nearest(points, sites):
        {body}

    result = nearest(points, sites)
"""
BRUTE = """d = cdist(points, sites)
        idx = d.argmin(axis=1)
        return idx"""
TREE = """return cKDTree(sites).query(points)[1]"""

INTERVALS = """
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    starts = np.cumsum(rng.integers(5, 20, 1500))
    ranges = pd.DataFrame({{"start": starts, "end": starts + 5, "id": np.arange(1500)}})
    events = pd.DataFrame({{"t": np.sort(rng.integers(0, int(starts[-1]), 3000)), "v": rng.random(3000)}})

    def match(events, ranges):
        {body}

    result = match(events, ranges)
"""
CROSS = """pairs = events.merge(ranges, how="cross")
        inside = (pairs["t"] >= pairs["start"]) & (pairs["t"] < pairs["end"])
        return pairs.loc[inside, ["t", "v", "id"]]"""
ASOF = """m = pd.merge_asof(events, ranges, left_on="t", right_on="start")
        return m[m["t"] < m["end"]][["t", "v", "id"]]"""

KERNEL = """
    import numpy as np
    from scipy.spatial.distance import cdist

    rng = np.random.default_rng(0)
    x = rng.random((2200, 2))
    y = rng.random(2200)

    def fit(x, y):
        k = np.exp(-cdist(x, x) ** 2)
        w = np.linalg.solve(k + 0.1 * np.eye(len(x)), y)
        return w[np.argmax(np.abs(w))]

    result = fit(x, y)
"""


def test_pairwise_distances_reduced_by_argmin_are_found_and_a_tree_query_is_not(tmp_path):
    (f,) = found(profile_script(tmp_path, NEAREST.format(body=BRUTE), "slow"), "materialised_selection")
    assert f.category == "redundant"
    assert f.title.startswith("Line slow.py:10 builds d (2500, 3000)")
    (inter,) = f.evidence["intermediates"]
    assert inter["selected_at"] == ["slow.py:11"] and inter["kept_bytes"] == 2500 * 8
    assert f.evidence["lines"][0]["removable_share"] > 0.99 and 5 < f.est_gain_pct <= 100   # scipy's import is most of the run
    assert found(profile_script(tmp_path, NEAREST.format(body=TREE), "fixed"), "materialised_selection") == []


def test_a_cross_join_filtered_to_its_matches_is_found_and_an_asof_merge_is_not(tmp_path):
    (f,) = found(profile_script(tmp_path, INTERVALS.format(body=CROSS), "slow"), "materialised_selection")
    (inter,) = f.evidence["intermediates"]
    assert inter["name"] == "pairs" and inter["shape"] == [3000 * 1500, 5]
    # the kept rows are the returned frame's (the line has no name for them)
    assert inter["selected_at"] == ["slow.py:13"] and 0 < inter["kept_bytes"] < 3000 * 3 * 8 + 1
    assert sorted(line["line"].rsplit(":", 1)[1] for line in f.evidence["lines"]) == ["11", "12", "13"]
    assert found(profile_script(tmp_path, INTERVALS.format(body=ASOF), "fixed"), "materialised_selection") == []


def test_a_kernel_matrix_used_whole_by_a_solve_is_not_a_selection(tmp_path):
    assert found(profile_script(tmp_path, KERNEL, "kernel"), "materialised_selection") == []



def _torch_findings(fn):
    pytest = __import__("pytest")
    torch = pytest.importorskip("torch")
    from .test_torch_cpu import profile   # the same in-process torch profile as the other torch rules' tests

    torch.manual_seed(0)
    return found(profile(fn), "materialised_selection")


def test_torch_pairwise_distances_then_a_selection_are_found_and_a_grid_lookup_is_not():
    import torch

    queries, sites = torch.rand(3000, 2), torch.rand(4000, 2)
    slow = {"aten::cdist": lambda: torch.cdist(queries, sites).argmin(dim=1),
            "aten::sub": lambda: ((queries[:, None, :] - sites[None, :, :]) ** 2).sum(-1).min(dim=1).indices}
    for maker, fn in slow.items():
        (f,) = _torch_findings(fn)
        (inter,) = f.evidence["intermediates"]
        assert inter["made_by"] == maker and inter["shape"] == [3000, 4000], inter
        assert inter["selected_by"] in ("aten::argmin", "aten::min") and inter["times"] == 1
        assert f.category == "redundant" and 0 < f.est_gain_pct <= 100

    def grid():   # the twin: the sites bucketed on a grid, each query looked up in its own cell
        key = ((sites * 16).long().clamp(max=15) * torch.tensor([16, 1])).sum(1)
        order = torch.argsort(key)
        q = ((queries * 16).long().clamp(max=15) * torch.tensor([16, 1])).sum(1)
        return order[torch.searchsorted(key[order], q).clamp(max=len(order) - 1)]

    assert _torch_findings(grid) == []
    # a kernel matrix used whole (a matrix product after it) has no selection
    assert _torch_findings(lambda: torch.exp(-torch.cdist(queries, sites)) @ torch.ones(4000)) == []
