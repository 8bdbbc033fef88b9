"""analyze/rules/regex.regex_recompile on real Python-tracer profiles: patterns built per item, more than
re's cache holds, are compiled on every call and found with a gain; the same search with the patterns
compiled once is not."""

from __future__ import annotations

from .test_python_loops import profile_script
from .test_work_order_rules import found

SRC = """
    import re

    words = [f"w{{i}}x" for i in range(700)]   # more distinct patterns than re's cache holds (512)
    texts = [" ".join(words[(k * 7) % 700:(k * 7) % 700 + 3]) for k in range(6)]

    def tag(texts):
        {setup}
        hits = 0
        for text in texts:
            for i, w in enumerate(words):
                hits += bool({search})
        return hits

    result = tag(texts)
"""


def test_patterns_compiled_per_call_are_found_and_compiled_once_are_not(tmp_path):
    slow = SRC.format(setup="pass", search='re.search(r"\\\\b" + re.escape(w) + r"\\\\b", text)')
    (f,) = found(profile_script(tmp_path, slow, "slow"), "regex_recompile")
    assert f.category == "compile" and f.evidence["compiles"] >= 6 * 700 - 10
    assert f.evidence["from"].startswith("slow.tag line 12")
    assert 20 < f.est_gain_pct <= 100
    fixed = SRC.format(setup='pats = [re.compile(r"\\\\b" + re.escape(w) + r"\\\\b") for w in words]',
                       search="pats[i].search(text)")
    assert found(profile_script(tmp_path, fixed, "fixed"), "regex_recompile") == []
