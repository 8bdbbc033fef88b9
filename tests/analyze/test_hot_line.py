"""analyze/rules/lines.py on real Python-tracer profiles: a line whose library call holds most of the run
is named; a line whose time is the user's own lines under it, or a loop's short statements, is not."""

from __future__ import annotations

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
    assert f.evidence["top_callees"] and f.est_gain_pct != f.est_gain_pct   # NaN: no estimate
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


def test_an_import_is_not_a_hot_line(tmp_path):
    # the module's own code runs once per process at the import (scipy.interpolate: ~0.3 s, several times
    # that traced): nothing the user can ask it to do differently, unlike the groupby call
    src = SRC.replace("import pandas as pd\n", "import pandas as pd\n    from scipy.interpolate import CubicSpline\n")
    src = src.replace("return float(q.sum()) + s", "return float(q.sum()) + s + float(CubicSpline([0, 1, 2], [0, 1, 0])(0.5))")
    prof = profile_script(tmp_path, src, "imports")
    ev = prof.events
    imp = ev["name"].astype(str).str.contains("from scipy.interpolate import CubicSpline", regex=False).to_numpy()
    assert ev["dur_ns"].to_numpy()[imp].sum() > 0.3 * prof.meta["wall_ns"]   # a hot line but for being an import
    assert all("import" not in f.title for f in found(prof, "hot_line"))
