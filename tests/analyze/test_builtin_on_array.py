"""analyze/rules/builtin_calls.builtin_on_array on real Python-tracer profiles: Python's sum() and sorted()
over numpy arrays in a loop are found with a gain; the arrays' own methods are not, nor is sum() over a
list of numbers."""

from __future__ import annotations

from .test_python_loops import profile_script
from .test_work_order_rules import found

SRC = """
    import numpy as np

    rng = np.random.default_rng(0)
    batches = [rng.random(40_000) for _ in range(12)]
    counts = list(range(40_000))

    def stats(batches):
        out = []
        for b in batches:
            total = {total}
            top = {top}
            out.append(total + top + sum(counts))
        return out

    result = stats(batches)
"""


def test_builtins_over_arrays_are_found_and_array_methods_are_not(tmp_path):
    slow = SRC.format(total="sum(b)", top="sorted(b)[-1]")
    (f,) = found(profile_script(tmp_path, slow, "slow"), "builtin_on_array")
    assert f.category == "host_bound"
    lines = {line["line"].rsplit(":", 1)[1]: line for line in f.evidence["lines"]}
    assert set(lines) == {"11", "12"}   # sum(counts) over a list is not an array
    assert lines["12"]["what"].startswith("sorted(b) over 40,000 elements of ndarray float64")
    assert all(line["removable_share"] > 0.8 for line in lines.values()) and 30 < f.est_gain_pct <= 100
    fixed = SRC.format(total="b.sum()", top="np.sort(b)[-1]")
    assert found(profile_script(tmp_path, fixed, "fixed"), "builtin_on_array") == []
