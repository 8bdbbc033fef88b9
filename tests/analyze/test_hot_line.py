"""analyze/rules/lines.py on real Python-tracer profiles: a line whose library call holds most of the run
is named, with the roofline's bound on what a rewrite of it saves; a line whose time is the user's own lines
under it, or a loop's short statements, is not; a specific rule's finding on the line supersedes the bound."""
from __future__ import annotations

import math

from .test_python_loops import profile_script
from .test_work_order_rules import found

SRC = """
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"k": rng.integers(0, 20_000, 400_000), "v": rng.random(400_000)})

    def spread(values):
        total = 0.0
        for v in values[:5_000]:
            total += v * v
        return total

    def main():
        q = df.groupby("k")["v"].quantile([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9])
        s = spread(df["v"].tolist())
        return float(q.sum()) + s

    result = main()
"""


def test_a_line_whose_library_call_holds_the_run_is_named(tmp_path):
    prof = profile_script(tmp_path, SRC, "groupby")
    (f,) = found(prof, "hot_line")
    assert f.category == "hotspot" and f.title.startswith("Line groupby.py:15 (q = df.groupby(")
    assert f.evidence["library_share"] > 0.9 and f.evidence["runs"] == 1
    assert f.evidence["top_callees"]
    # the estimate: the library time above the bytes the line's sampled frame holds, at the measured bandwidth
    roof = f.evidence["roofline"]
    assert roof["runs"] == 1 and roof["bytes_per_run"] >= 400_000 * 16 and roof["bytes_per_s"] > 0
    assert f.evidence["method"].startswith("roofline")
    assert 0 < f.est_gain_ns <= f.evidence["time_ns"] - roof["roof_ns"] * 0.99
    # the call of the user's function (its time is the user's own lines) and the loop's statement are not
    assert "spread" not in f.title and "total +=" not in f.title


def test_a_line_whose_time_is_the_users_own_code_is_not_a_hot_line(tmp_path):
    src = """
        def spread(values):
            total = 0.0
            for v in values:
                total += v * v
            return total

        def main():
            return spread([i / 7 for i in range(200_000)])

        result = main()
    """
    assert found(profile_script(tmp_path, src, "own"), "hot_line") == []


def test_a_specific_finding_on_the_line_supersedes_the_roofline_bound(tmp_path):
    # per-element string work on a few distinct values: repeated_values explains the line
    src = """
        import numpy as np
        import pandas as pd

        rng = np.random.default_rng(0)
        names = np.array([f"Agent/{i}.0 (X11; Linux)" for i in range(40)], dtype=object)
        s = pd.Series(names[rng.integers(0, 40, 300_000)])

        def main():
            return s.str.extract(r"agent/(\\d+)", expand=False).astype(float).sum()

        result = main()
    """
    prof = profile_script(tmp_path, src, "agents")
    (f,) = found(prof, "hot_line")
    specific = found(prof, "repeated_values")
    assert specific and math.isfinite(specific[0].est_gain_ns)
    assert math.isnan(f.est_gain_ns) and f.evidence["superseded_by"] == "repeated_values"
    assert "repeated_values" in f.evidence["method"]


def test_a_line_without_sampled_arrays_gets_no_estimate(tmp_path):
    src = """
        import zlib

        payload = bytes(range(256)) * 40_000

        def main():
            return len(zlib.compress(payload, 9))

        result = main()
    """
    (f,) = found(profile_script(tmp_path, src, "pack"), "hot_line")
    assert math.isnan(f.est_gain_ns) and "roofline" not in f.evidence
