"""analyze/rules/library_warnings.library_warning on real Python-tracer profiles: pandas' PerformanceWarning
for a frame fragmented by column inserts, and scipy's SparseEfficiencyWarning (which names scipy's own line),
are joined to the user's line that takes the slow path; the same work done the recommended way raises none.
The user's warning filters are respected: an ignored warning is not recorded."""

from __future__ import annotations

import warnings

from cann_nb.collect.warnings_log import WarningsLog

from .test_python_loops import profile_script
from .test_work_order_rules import found

FRAME = """
    import numpy as np
    import pandas as pd

    base = np.arange(20_000.0)

    def features():
        {body}

    result = [features().shape for _ in range(3)]
"""
INSERTS = """df = pd.DataFrame({"a": base})
        for i in range(300):
            df[f"c{i}"] = base * i
        return df"""
CONCAT = """cols = {f"c{i}": base * i for i in range(300)}
        return pd.concat([pd.DataFrame({"a": base}), pd.DataFrame(cols)], axis=1)"""

SPARSE = """
    import scipy.sparse as sp

    def build(n):
        m = sp.csr_matrix((n, n))
        for i in range(n):
            m[i, (7 * i) % n] = 1.0
        return m

    result = build(3000).sum()
"""


def _quiet(*args, **kwargs):
    pass


def test_a_fragmented_frame_warning_is_joined_to_the_inserting_line(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _quiet   # shown to the profiler's log only (restored on leaving the block)
        slow = profile_script(tmp_path, FRAME.format(body=INSERTS), "slow")
        (f,) = found(slow, "library_warning")
        fixed = profile_script(tmp_path, FRAME.format(body=CONCAT), "fixed")
    assert f.category == "hotspot" and f.title.startswith("PerformanceWarning at slow.py:10")
    assert "highly fragmented" in f.title and 0 < f.est_gain_pct <= 100
    assert found(fixed, "library_warning") == []


def test_a_library_warning_naming_its_own_line_is_joined_to_the_users_line(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _quiet
        (f,) = found(profile_script(tmp_path, SPARSE, "slow"), "library_warning")
    (w,) = f.evidence["warnings"]
    assert w["category"] == "SparseEfficiencyWarning" and "scipy" in w["file_line"]
    assert w["line"].endswith("slow.py:7") and w["executions"] == 3000


def test_ignored_warnings_stay_ignored_and_unrecorded():
    log = WarningsLog()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("ignore")
        log.start()
        try:
            warnings.warn("slow path", UserWarning)
        finally:
            log.stop()
    assert seen == [] and log.records() == []
