"""analyze/rules/containers.sum_concatenation on real Python-tracer profiles: sum(lists, []) is found with
a gain; the same flattening in one pass, and sum() of numbers, are not."""

from __future__ import annotations

from .test_python_loops import profile_script
from .test_work_order_rules import found

SRC = """
    import itertools

    lists = [[i] * 40 for i in range(3000)]

    def main():
        flat = {flatten}
        return len(flat) + sum(x for x in range(10))

    result = main()
"""


def test_sum_of_lists_is_quadratic_concatenation_and_a_one_pass_flatten_is_not(tmp_path):
    (f,) = found(profile_script(tmp_path, SRC.format(flatten="sum(lists, [])"), "slow"), "sum_concatenation")
    assert f.category == "redundant"
    assert f.title.startswith("Line slow.py:7 (flat = sum(lists, [])) concatenates sequences with sum()")
    assert f.evidence["calls"] == 1 and 30 < f.est_gain_pct <= 100
    fixed = SRC.format(flatten="list(itertools.chain.from_iterable(lists))")
    assert found(profile_script(tmp_path, fixed, "fixed"), "sum_concatenation") == []
