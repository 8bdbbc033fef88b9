"""analyze/rules/exact.exact_statistics on real Python-tracer profiles: statistics.mean/stdev over a rolling
window is found with a gain; the same z-scores from float sums (statistics.fmean, math.fsum) are not."""

from __future__ import annotations

from .test_python_loops import profile_script
from .test_work_order_rules import found

SRC = """
    import math
    import random
    import statistics

    random.seed(0)
    values = [random.gauss(10, 2) for _ in range(1200)]

    def scores(window=150):
        out = []
        for i in range(window, len(values)):
            w = values[i - window:i]
            {stats}
            out.append((values[i] - m) / s)
        return out

    result = scores()
"""


def test_exact_mean_and_stdev_in_a_loop_are_found_and_float_sums_are_not(tmp_path):
    slow = SRC.format(stats="m, s = statistics.mean(w), statistics.stdev(w)")
    (f,) = found(profile_script(tmp_path, slow, "slow"), "exact_statistics")
    assert f.category == "precision" and f.evidence["calls"] == 2 * 1050
    assert 20 < f.est_gain_pct <= 100
    fixed = SRC.format(stats="m = statistics.fmean(w); s = math.sqrt(math.fsum((v - m) ** 2 for v in w) / (len(w) - 1))")
    assert found(profile_script(tmp_path, fixed, "fixed"), "exact_statistics") == []
