"""linear_list_ops: list.pop(0) as a queue, found from the call's time against trivial calls (real
Python-tracer profiles); pop() from the end is constant time and is not flagged."""

from __future__ import annotations

from cann_nb.analyze import findings

from .test_python_loops import profile_script  # noqa: E402  (the same in-process Python-tracer run)

QUEUE = """
    def main():
        queue = list(range(80_000))   # pop(0) of 80,000 items moves ~1.3 MB on average: several trivial calls' time on any machine
        seen = [0, 1, 2]
        total = 0
        while queue:
            x = queue.pop({where})
            total += x % 7 + len(seen)
            seen.append(x)
        return total

    result = main()
"""


def rule(prof):
    errors = []
    fs = findings(prof, errors=errors)
    assert not errors
    return [f for f in fs if f.rule == "linear_list_ops"]


def test_pop_from_the_front_of_a_list_is_linear_time(tmp_path):
    (f,) = rule(profile_script(tmp_path, QUEUE.format(where=0), "front"))
    ev = f.evidence
    assert f.category == "hotspot" and f.ops == ("builtins.list.pop",)
    assert ev["calls"] == 80_000 and ev["median_call_ns"] >= 4 * ev["floor_call_ns"]
    assert ev["floor_from"].startswith("median of len")
    assert 30 < f.est_gain_pct <= 100
    assert "deque" in f.suggestion


def test_pop_from_the_end_is_not_flagged(tmp_path):
    assert rule(profile_script(tmp_path, QUEUE.format(where=""), "back")) == []


RESORT = """
    import random

    def main():
        rng = random.Random(0)
        pending = [rng.random() for _ in range(3_000)]
        done = 0.0
        for _ in range(1_500):
            pending.append(rng.random() + done)
            pending.{how}
            done += pending.pop(0 if {front} else -1) * 1e-3
        ranked = sorted(x * 2 for x in pending)   # once, over a generator: its Python work is not the sort's
        return done + ranked[0]

    result = main()
"""


def test_a_list_resorted_after_each_insertion_is_flagged(tmp_path):
    (f,) = rule(profile_script(tmp_path, RESORT.format(how="sort(reverse=True)", front=False), "resort"))
    assert f.ops == ("builtins.list.sort",)
    assert f.evidence["calls"] == 1_500
    assert "heapq" in f.suggestion and 0 < f.est_gain_pct <= 100


def test_a_single_sort_of_a_generator_is_not_a_loop(tmp_path):
    # the loop's operations are constant time; the one sorted() after it, over a generator, is no loop
    prof = profile_script(tmp_path, RESORT.format(how="append(0.0)", front=False), "once")
    assert rule(prof) == []
