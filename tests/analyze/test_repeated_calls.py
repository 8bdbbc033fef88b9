"""analyze/rules/memo.py on real Python-tracer profiles: a cache too small for its working set and an
archive member read again per lookup are found with a gain; the same scripts written well, and a function
whose same arguments give new results, are not."""

from __future__ import annotations

from .test_python_loops import profile_script
from .test_work_order_rules import found

CACHE = """
    import functools
    import random

    random.seed(0)
    KEYS = ["item %d" % i for i in range(40)]

    @functools.lru_cache(maxsize={size})
    def score(key):
        return sum(map(ord, key * 3000))   # C work: ~100 us, no Python events

    def main():
        return sum(score(random.choice(KEYS)) for _ in range(400))

    result = main()
"""


def test_a_cache_smaller_than_its_working_set_is_found_and_a_large_enough_one_is_not(tmp_path):
    (f,) = found(profile_script(tmp_path, CACHE.format(size=8), "small"), "repeated_calls")
    assert f.category == "redundant" and f.title.startswith("small.score() recomputed results it had already returned")
    ev = f.evidence
    assert ev["distinct_argument_sets"] == 40 and ev["repeated_calls"] > 200   # 400 draws of 40 keys, 8 kept
    assert ev["repeated_calls"] + ev["distinct_argument_sets"] == ev["long_calls_fingerprinted"]
    assert 50 < f.est_gain_pct < 100
    assert found(profile_script(tmp_path, CACHE.format(size=None), "large"), "repeated_calls") == []


NPZ = """
    import os
    import tempfile

    import numpy as np

    path = os.path.join(tempfile.mkdtemp(), "table.npz")
    np.savez(path, table=np.arange(400_000, dtype=np.float64).reshape(4000, 100))

    def main():
        store = np.load(path)
        {hoist}
        total = 0.0
        for i in range(0, 4000, 40):
            total += float({row}[i].sum())
        store.close()
        return total

    result = main()
"""


def test_an_archive_member_read_again_per_lookup_is_found_and_read_once_is_not(tmp_path):
    slow = NPZ.format(hoist="", row='store["table"]')
    (f,) = found(profile_script(tmp_path, slow, "npz"), "repeated_calls")
    assert f.evidence["function"].endswith("NpzFile.__getitem__") and f.evidence["repeated_calls"] == 99
    assert f.est_gain_pct > 30
    fixed = NPZ.format(hoist='table = store["table"]', row="table")
    assert found(profile_script(tmp_path, fixed, "npz_once"), "repeated_calls") == []


def test_a_function_of_random_state_is_not_a_repeat(tmp_path):
    src = """
        import numpy as np

        rng = np.random.default_rng(0)

        def draw(n):
            return float(rng.random(n).sum())

        result = sum(draw(50_000) for _ in range(50))
    """
    assert found(profile_script(tmp_path, src, "rand"), "repeated_calls") == []


LIL = """
    import numpy as np
    from scipy import sparse

    rng = np.random.default_rng(0)
    n = 20_000
    A = sparse.coo_matrix((np.ones(200_000), (rng.integers(0, n, 200_000), rng.integers(0, n, 200_000))),
                          shape=(n, n)).tolil(){convert}

    def main():
        x = np.ones(n) / n
        for _ in range(40):
            x = A @ x
            x /= x.sum()
        return x

    result = main()
"""


def test_a_lil_matrix_converted_again_for_every_product_is_found_and_one_converted_once_is_not(tmp_path):
    # every A @ x on a LIL matrix converts all of it to CSR inside scipy: a library step redone on the same
    # matrix, which the user's code never calls itself
    (f,) = found(profile_script(tmp_path, LIL.format(convert=""), "lil"), "repeated_library_calls")
    assert f.category == "redundant" and f.title.startswith("scipy.sparse._lil._lil_base.tocsr() redid work")
    assert "inside calls from lil.py:13" in f.title and f.evidence["repeated_calls"] >= 30
    assert 30 < f.est_gain_pct < 100
    assert found(profile_script(tmp_path, LIL.format(convert=".tocsr()"), "csr"), "repeated_library_calls") == []
