"""Text a user reads in a terminal is whole and aligned (issue 15, item 9): the advice of
``cann-nb analyze``, ``profile.findings()`` in terminal IPython, the summary's table with short names."""

from __future__ import annotations

import re

import pandas as pd

from cann_nb.frontends import cli
from cann_nb.store import Session

from tests.synth_steps import stepped


def test_analyze_prints_each_suggestion_whole(tmp_path, capsys):
    store = Session(tmp_path / "s")
    store.add(stepped({"aten::mm": 10_000_000, "aten::add": 2_000_000}, name="p", steps=4))
    findings = store["p"].findings()
    assert cli.main(["analyze", "p", "--store", str(store.root)]) == 0
    out = capsys.readouterr().out
    flat = re.sub(r"\s+", " ", out)
    for suggestion in findings["suggestion"]:
        assert re.sub(r"\s+", " ", suggestion) in flat, suggestion     # wrapped, not cut
    assert "…" not in out
    assert max(len(line) for line in out.splitlines() if "->" in line) <= 110


def test_findings_in_a_terminal_show_title_and_suggestion(tmp_path):
    p = stepped({"aten::mm": 10_000_000, "aten::add": 2_000_000}, name="p", steps=4)
    frame = p.findings()
    assert isinstance(frame, pd.DataFrame) and len(frame)
    with pd.option_context("display.width", 80, "display.max_colwidth", 50):   # a terminal's
        text = repr(frame)
    first = frame.iloc[0]
    assert first["title"] in text and first["suggestion"].split()[-1] in text
    assert "…" not in text and "NaN" not in text
    assert type(frame[["title"]]) is pd.DataFrame                    # derived frames are plain


def test_the_summary_table_lines_up_with_short_op_names():
    p = stepped({"mm": 1_000_000, "a": 2_000}, name="short", steps=2)
    lines = p.summary_text().splitlines()
    head = next(i for i, line in enumerate(lines) if "top ops by self time" in line)
    header, row = lines[head], lines[head + 1]
    assert header.index("cat") == row.index(" op ") + 1                 # the columns start where their header does
    assert header.index("share") + len("share") == len(row.rstrip())     # right-aligned column ends together


def test_counts_of_one_are_singular(monkeypatch):
    import cann_nb.frontends.api as api
    from cann_nb.analyze.finding import Finding

    found = api.Findings([Finding(rule="r", category="hotspot", severity="high", title="t")])
    found._shown_at = 7
    monkeypatch.setattr(api, "_execution_count", lambda: 7)
    assert found._repr_mimebundle_()["text/plain"] == "<1 finding, shown above>"
