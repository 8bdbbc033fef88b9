"""linear_search on real scripts under the Python tracer: a list scanned for a key per lookup, nested in a
loop or in a function called per lookup, is found; a dict built once is not."""

from __future__ import annotations

from cann_nb.analyze import findings
from cann_nb.collect.loop_facts import file_loops

from .test_python_loops import by_rule, profile_script

SRC = """
    import random

    random.seed(0)
    customers = [{{"id": 7 * i, "discount": random.random()}} for i in range(600)]
    orders = [7 * random.randrange(600) for _ in range(900)]

    {helpers}

    def main():
        total = 0.0
        for cid in orders:
            {body}
        return total

    result = main()
"""
NESTED = """for c in customers:
                if c["id"] == cid:
                    total += c["discount"]
                    break"""
FIND = """def find(cid):
        for c in customers:
            if c["id"] == cid:
                return c"""
INDEXED = "BY_ID = {c['id']: c for c in customers}"


def _searches(tmp_path, name, body, helpers=""):
    prof = profile_script(tmp_path, SRC.format(body=body, helpers=helpers), name)
    return by_rule(findings(prof)).get("linear_search", [])


def test_a_search_loop_per_lookup_is_found_nested_or_in_a_function(tmp_path):
    (f,) = _searches(tmp_path, "nested", NESTED)
    assert f.category == "redundant" and 50 < f.est_gain_pct <= 100
    assert f.evidence["enclosing_loop"].endswith(":12") and "by_id" in f.suggestion
    (g,) = _searches(tmp_path, "called", 'total += find(cid)["discount"]', FIND)
    assert g.evidence["enclosing_loop"] is None and g.evidence["searches_traced"] == 900


def test_a_dict_built_once_is_not_a_search(tmp_path):
    assert not _searches(tmp_path, "indexed", 'total += BY_ID[cid]["discount"]', INDEXED)


def test_loop_facts_name_the_search_line_only_for_an_item_key_compared_and_a_break(tmp_path):
    path = tmp_path / "loops.py"
    path.write_text("for c in cs:\n    if c.k == key:\n        break\n"          # a search
                    "for it in range(9):\n    if err == 0:\n        break\n"     # a stopping test
                    "for c in cs:\n    if c.k == key:\n        n += 1\n")       # a count: every item is needed
    got = {lp["line"]: lp.get("search") for lp in file_loops(str(path))}
    assert got == {1: 2, 4: None, 7: None}
