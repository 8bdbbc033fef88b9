"""The HTML report without a browser: one inert file, hashed CSP, escaping, contents, sizes, entry points."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser

import pytest

import cann_nb
from cann_nb.report import report_html, write_report
from cann_nb.report import facts
from tests.widgets.synth import synthetic_profile

from .profiles import HOSTILE, JSURL, hostile_findings, hostile_profile, known_findings


class Page(HTMLParser):
    """Every tag with its attributes, and the text of each <script> by its type."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags, self.scripts, self._in = [], [], None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in = [dict(attrs).get("type", ""), dict(attrs).get("id", ""), ""]

    def handle_data(self, data):
        if self._in is not None:
            self._in[2] += data

    def handle_endtag(self, tag):
        if tag == "script" and self._in is not None:
            self.scripts.append(tuple(self._in))
            self._in = None


@pytest.fixture(scope="module")
def small():
    p = synthetic_profile(3_000, name="small")
    return p, report_html(p, findings=known_findings(p))


@pytest.fixture(scope="module")
def hostile():
    p = hostile_profile()
    base = synthetic_profile(2_000, name="base", seed=3)
    return report_html(p, against=base, findings=hostile_findings(p))


def state_of(html: str) -> dict:
    page = Page(html)
    return json.loads(next(s[2] for s in page.scripts if s[1] == "cann-nb-state"))


def test_one_inert_file_with_hashed_csp(small):
    _, html = small
    page = Page(html)
    # nothing is loaded from anywhere: no src/href other than in-page anchors, no frames or links
    for tag, attrs in page.tags:
        assert tag not in ("link", "iframe", "frame", "object", "embed", "base", "img", "form"), tag
        for key in ("src", "href", "action", "srcset", "data"):
            if key in attrs:
                assert key == "href" and attrs[key].startswith("#"), (tag, attrs)
    kinds = [(t, i) for t, i, _ in page.scripts]
    assert kinds == [("application/json", "cann-nb-state"), ("text/plain", "cann-nb-esm"), ("", ""), ("module", "")]
    csp = next(a["content"] for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'none'"
    allowed = directives["script-src"].split()
    assert "'unsafe-inline'" not in allowed and "'unsafe-eval'" not in allowed and "http:" not in csp
    executable = [code for kind, _, code in page.scripts if kind in ("", "module")]
    for code in executable:  # BokehJS and the bootstrap, each allowed by its own hash
        digest = base64.b64encode(hashlib.sha256(code.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in allowed
    assert set(allowed) == {f"'sha256-{base64.b64encode(hashlib.sha256(c.encode()).digest()).decode()}'"
                            for c in executable} | {"blob:"}
    assert not re.search(r"@import|url\(\s*['\"]?(https?:|//)", html.split("<script")[0])  # CSS loads nothing


def test_hostile_strings_never_become_markup(hostile):
    page = Page(hostile)
    # exactly our four scripts; no element or attribute came from profile text
    assert len(page.scripts) == 4
    assert not [a for _, a in page.tags if any(k.startswith("on") for k in a)]
    assert not [t for t, _ in page.tags if t in ("img", "svg")]
    assert [t for t, _ in page.tags].count("style") == 1
    for s in HOSTILE:
        if s != JSURL:  # plain text with no markup characters: it may appear as it is, as text
            assert s not in hostile, s  # only escaped (&lt;...) or JSON-escaped (\u003c...) forms
    # in the state (a JSON data block), markup characters are \u escapes: it cannot close its script
    raw_state = next(code for _, i, code in page.scripts if i == "cann-nb-state")
    assert "<" not in raw_state and ">" not in raw_state and "&" not in raw_state
    st = json.loads(raw_state)
    assert "<script>window.__pwned=(window.__pwned||0)+1</script>" in st["timeline"]["dicts"]["name"]
    # escaped text is present where it is shown
    assert "&lt;script&gt;window.__pwned" in hostile and "&lt;img src=x onerror=&quot;" in hostile
    assert "javascript:window.__pwned" in hostile  # as text; never in an href
    assert not [a for _, a in page.tags if "javascript:" in " ".join(map(str, a.values()))]


def test_header_overview_and_notes(small):
    p, html = small
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html.split('<script type="application/json"')[0]))
    for needle in ("cann_nb profile report", "small", "end-to-end", "Time per device", "cuda:0", "Peak memory",
                   "516.0 MiB", "Utilisation", "gpu_util", "busy (from events)", "What this page shows",
                   "The timeline holds all 3,000 events", "aten::matmul dominates", "Use a larger batch.",
                   "Run details", "All metadata of this profile"):
        assert needle in text, needle
    st = state_of(html)
    assert st["_view"] == "report" and st["timeline"]["n"] == 3_000
    assert [f["title"] for f in st["findings"]] == ["aten::matmul dominates", "many small launches"]
    assert st["charts"] and set(st["charts"]) == {"breakdown", "memory", "utilization", "roofline", "mfu"}


def test_left_out_events_and_cut_tables_are_said():
    p = synthetic_profile(4_000)
    html = report_html(p, findings=[], max_events=1_000)
    st = state_of(html)
    assert st["timeline"]["n"] == 1_000 and st["timeline"]["hidden"] == 3_000
    notes = facts.display_notes(p, st)
    assert "holds 1,000 of 4,000 events" in notes[0] and "left out" in notes[0]
    assert "holds 1,000 of 4,000 events" in html


def test_columns_decode():
    from cann_nb.report.build import report_state
    from cann_nb.widgets._encode import decode

    p = synthetic_profile(20_000)
    st, _ = report_state(p, findings=[])
    col = st["timeline"]["cols"]["start"]
    start = decode({**col, "z": base64.b64decode(col["z"])})
    assert len(start) == 20_000 and (start >= 0).all()


def test_write_report_forms(tmp_path):
    base = synthetic_profile(1_500, name="before", seed=1)
    new = synthetic_profile(1_500, name="after", seed=2, scale=1.3)
    out = write_report(new, tmp_path / "sub" / "r", findings=[])
    assert out == tmp_path / "sub" / "r.html" and out.stat().st_size > 100_000
    assert oct(out.stat().st_mode & 0o044) == oct(0o044)  # readable by others (not mkstemp's 0600)
    # (base, new) as the CLI passes it, a Comparison, and names in a store
    pair = write_report((base, new), tmp_path / "pair.html", findings=[])
    assert "before" in pair.read_text() and '"baseline"' in pair.read_text()
    cmp = cann_nb.compare(base, new, record=False)
    via_cmp = write_report(cmp, tmp_path / "cmp.html", findings=[]).read_text()
    assert "Comparison" in via_cmp and "ops by name" in via_cmp
    from cann_nb.store import Session

    store = Session(tmp_path / "store")
    store.add(base, "before")
    store.add(new, "after")
    named = write_report("after", tmp_path / "named.html", against="before", store=tmp_path / "store", findings=[])
    assert "compared against baseline" in named.read_text()


def test_cli_report_command(tmp_path, capsys):
    from cann_nb.frontends.cli import main
    from cann_nb.store import Session

    store = Session(tmp_path / "store")
    store.add(synthetic_profile(1_000, name="a"), "a")
    store.add(synthetic_profile(1_000, name="b", seed=5), "b")
    out = tmp_path / "cli.html"
    assert main(["report", "b", "-o", str(out), "--baseline", "a", "--store", str(tmp_path / "store")]) == 0
    html = out.read_text()
    assert "cann_nb comparison report" in html and "b vs a" in html


def test_magic_writes_a_report(tmp_path, monkeypatch, capsys):
    from IPython.core.error import UsageError
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.setenv("CANN_NB_DIR", str(tmp_path / "store"))
    monkeypatch.chdir(tmp_path)
    from cann_nb.store import Session

    Session(tmp_path / "store").add(synthetic_profile(800, name="stored"), "stored")
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "cann_nb")
    try:
        ip.run_line_magic("cann_report", "stored -o r1.html")
        assert (tmp_path / "r1.html").is_file()
        assert "written to r1.html" in capsys.readouterr().out
        ip.user_ns["prof"] = synthetic_profile(600, name="held")
        ip.run_line_magic("cann_report", "prof --against stored --title 'my title'")
        assert "my title" in (tmp_path / "held.html").read_text()
        with pytest.raises(UsageError, match="no profile 'missing'"):
            ip.run_line_magic("cann_report", "missing")
    finally:
        ip.run_line_magic("unload_ext", "cann_nb")


def test_hundred_thousand_events_under_5_mb():
    p = synthetic_profile(100_000)
    html = report_html(p, findings=[])
    assert len(html.encode()) < 5 * 2**20


def test_imported_ascend_profile(ascend):
    a, _ = ascend
    html = report_html(a)
    text = re.sub(r"<[^>]+>", " ", html.split('<script type="application/json"')[0])
    for needle in ("imported profile", "imported from", "torch_npu-text", "npu:0", "rank", "communication",
                   "Not imported, on purpose", "Level1"):
        assert needle in text, needle
    st = state_of(html)
    assert st["findings"] and any(f["n_events"] for f in st["findings"])
    assert st["timeline"]["n"] == len(a.events)
