"""scans_per_key (analyze/rules/key_scans.py) on real torch.profiler runs: one large tensor compared against
key after key is found with its mask selections; grouping once, and a comparison on new data each time
(a mask per batch), are not."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from cann_nb.analyze import findings  # noqa: E402

from .test_recomputed_values import profile  # noqa: E402

torch.manual_seed(0)
IDS = torch.randint(0, 60, (200_000,))
ROWS = torch.randn(200_000, 4)


def scans(prof):
    errors = []
    fs = findings(prof, errors=errors)
    assert not errors
    return [f for f in fs if f.rule == "scans_per_key"]


def per_key():
    return [ROWS[IDS == k].mean(0) for k in range(60)]


def grouped():
    order = torch.argsort(IDS, stable=True)
    counts = torch.bincount(IDS, minlength=60)
    parts = ROWS[order].split(counts.tolist())
    return [p.mean(0) for p in parts]


def per_batch():
    return [(torch.randn(200_000) > 0).sum() for _ in range(30)]


def test_a_mask_per_key_over_one_tensor_is_found_and_grouping_once_is_not():
    (f,) = scans(profile(per_key))
    (g,) = f.evidence["groups"]
    assert f.category == "redundant" and g["op"] == "aten::eq" and g["keys"] == 60 and g["selections"] == 60
    assert g["elements"] == 200_000 and 0 < f.est_gain_pct <= 100
    assert "argsort" in f.suggestion
    assert scans(profile(grouped)) == []
    assert scans(profile(per_batch)) == []   # a new tensor each time: nothing to group


# -- numpy, under the Python tracer (line samples) -------------------------------------------------------
NP_SRC = """
    import numpy as np

    rng = np.random.default_rng(0)
    ids = np.cumsum(rng.integers(1, 9, 300_000))
    keys = ids[rng.integers(0, ids.size, 300)]

    def main():
        pos = np.empty(keys.size, dtype=np.int64)
        for i, key in enumerate(keys):
            {body}
        return pos

    result = main()
"""


def test_a_numpy_array_compared_key_after_key_is_found_and_new_arrays_each_run_are_not(tmp_path):
    from .test_python_loops import profile_script

    (f,) = scans(profile_script(tmp_path, NP_SRC.format(body="pos[i] = np.where(ids == key)[0][0]"), "where"))
    assert f.category == "redundant" and 0 < f.est_gain_pct <= 100
    (line,) = f.evidence["lines"]
    assert line["runs"] == 300 and "searchsorted" in f.suggestion
    # log2(300,000) = 18 of the 300 runs are kept: one sort's worth of passes
    assert line["removable_share"] == pytest.approx(1 - 18.19 / 300, abs=0.01)
    # a new array compared each run (distances to each key) is work the loop must do, not a lookup
    fresh = "d = np.abs(ids - key)\n            pos[i] = np.flatnonzero(d < 4).size"
    assert not scans(profile_script(tmp_path, NP_SRC.format(body=fresh), "fresh"))
