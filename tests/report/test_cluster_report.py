"""The cluster report without a browser: a group of ranks -> one inert offline page whose server-rendered
sections and view state carry the ClusterResult's numbers, trace text escaped; every way to ask for it."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest

from cann_nb.analyze.cluster import cluster_analysis
from cann_nb.analyze.cluster.stragglers import Z_THRESHOLD
from cann_nb.ingest.chrome_export import write_chrome_trace
from cann_nb.report import report_html, write_report
from cann_nb.store import ProfileGroup, Session
from tests.analyze.synth_cluster import cluster_job

from .profiles import IMG, PWN
from .test_report import Page

STRAGGLER = 5
ALERT = "<img src=x onerror=alert(1)>"
NCCL = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"
HOSTILE_NCCL = f"ncclKernel_AllReduce{IMG}"   # matched as its name up to the first "("


def hostile_group():
    """An 8-rank DP job with a compute straggler whose all-reduce kernel and group name are markup."""
    profiles, _ = cluster_job(n_ranks=8, steps=6, kernels=8, straggler=STRAGGLER)
    for p in profiles.values():
        p.events["name"] = p.events["name"].cat.rename_categories({NCCL: HOSTILE_NCCL})
    return ProfileGroup(profiles=profiles, meta={"name": ALERT, "world_size": 8})


@pytest.fixture(scope="module")
def result():
    return cluster_analysis(hostile_group())


@pytest.fixture(scope="module")
def html(result):
    return report_html(result)


def state_of(html: str) -> dict:
    return json.loads(next(code for _, i, code in Page(html).scripts if i == "cann-nb-state"))


def text_of(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html.split('<script type="application/json"')[0])))


def test_one_inert_offline_page(html):
    page = Page(html)
    assert [(t, i) for t, i, _ in page.scripts] == [("application/json", "cann-nb-state"), ("text/plain", "cann-nb-esm"),
                                                   ("module", "")]
    for tag, attrs in page.tags:
        assert tag not in ("link", "iframe", "img", "svg", "object", "embed", "base", "form"), tag
        assert not [k for k in attrs if k.startswith("on")], (tag, attrs)
        for key in ("src", "href", "action"):
            assert key not in attrs or (key == "href" and attrs[key].startswith("#")), (tag, attrs)
    csp = next(a["content"] for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in csp and "'unsafe-inline'" not in csp.split("script-src")[1]


def test_trace_text_is_escaped_everywhere(html, result):
    assert any(str(n).startswith("ncclKernel_AllReduce<img") for n in result.collectives["name"])
    for raw in (ALERT, IMG, "<img src=x onerror=", PWN + '">'):
        assert raw not in html, raw
    assert "&lt;img src=x onerror=alert(1)&gt;" in html                 # the group name, as text
    assert "ncclKernel_AllReduce&lt;img src=x onerror=&quot;window.__pwned=" in html   # the collective
    raw_state = next(code for _, i, code in Page(html).scripts if i == "cann-nb-state")
    assert "<" not in raw_state and ">" not in raw_state
    assert state_of(html)["cluster"]["name"] == ALERT                    # js/cluster.js sets it as text


def test_sections_say_the_cluster_result(html, result):
    text = text_of(html)
    assert result.straggler_ranks == [STRAGGLER]
    for heading in ("Findings", "Stragglers", "Rank x step", "Per rank", "Collectives", "How this was computed"):
        assert heading in text, heading
    # the test and its threshold; the straggler's row highlighted in both tables, and only it
    assert f"z > {Z_THRESHOLD}" in text and "Iglewicz-Hoaglin" in text
    rows = re.findall(r'<tr class="rpt-straggler"><td>(\d+)</td>', html)
    assert rows == [str(STRAGGLER), str(STRAGGLER)]
    assert f"Rank {STRAGGLER} is a straggler (compute)" in text
    s = result.stragglers.iloc[0]
    assert f"{s['score']:.1f}" in text
    assert len(re.findall(r"<tr(?: class=\"rpt-straggler\")?><td>\d+</td><td>cuda:0</td>", html)) == 8


def test_the_view_state_is_the_cluster_view(html, result):
    st = state_of(html)
    assert st["_view"] == "cluster" and st["cluster"]["stragglers"] == [STRAGGLER]
    walls = {r["rank"]: r["wall_ns"] for r in st["cluster"]["ranks"]}
    assert walls == {int(r): int(w) for r, w in zip(result.ranks["rank"], result.ranks["wall_ns"])}
    assert st["cluster"]["n_steps"] == 6


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A stored group (in a store), and the same ranks as a folder of Kineto traces."""
    root = tmp_path_factory.mktemp("cluster-report")
    profiles, _ = cluster_job(n_ranks=6, steps=5, kernels=6, straggler=2)
    Session(root / "store").add_group("dp6", profiles, {"world_size": 6})
    folder = root / "traces"
    folder.mkdir()
    for r, p in profiles.items():
        write_chrome_trace(p, folder / f"rank_{r}.json")
    return root, folder


def test_write_report_forms(stored, capsys):
    root, folder = stored
    store = root / "store"
    by_name = write_report("dp6", root / "by-name", store=store).read_text()
    assert "cann_nb cluster report" in by_name and '<tr class="rpt-straggler"><td>2</td>' in by_name
    by_dir = write_report(store / "dp6", root / "by-dir.html").read_text()
    assert state_of(by_dir)["cluster"]["stragglers"] == [2]
    by_group = write_report(Session(store)["dp6"], root / "by-group.html", title="my run").read_text()
    assert "<title>my run · cann_nb report</title>" in by_group
    # a folder of ranks: imported into the store first (streamed), and it says so
    by_folder = write_report(folder, root / "by-folder.html", store=store).read_text()
    assert state_of(by_folder)["cluster"]["stragglers"] == [2]
    assert "importing the ranks of" in capsys.readouterr().err and "traces" in Session(store)
    # one rank of the group is still an ordinary profile report
    one = write_report("dp6/rank=1", root / "one.html", store=store).read_text()
    assert "cann_nb profile report" in one


def test_cli_report_of_a_group(stored, capsys):
    from cann_nb.frontends.cli import main

    root, _ = stored
    out = root / "cli.html"
    assert main(["report", "dp6", "-o", str(out), "--store", str(root / "store")]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    assert state_of(out.read_text())["_view"] == "cluster"
