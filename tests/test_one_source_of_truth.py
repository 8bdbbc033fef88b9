"""One source of truth, on real traces: every number a view shows is the analysis' number.

For three real samples (Kineto GPU, HTA NCCL, Ascend torch_npu) the notebook view (ProfileView's
``overview`` and ``tables`` traits), the static text/HTML summaries, the HTML report (its server-rendered
tables and its embedded state) and the CLI (``analyze --json`` and its text form) are compared with
``analyze.api.analyze`` / ``overview``; for a comparison of two real ranks, DiffView's ``diff``, the
report with ``against=`` and the text summary with ``analyze.comparison.compare``. Exact equality for
numbers; the formatted ones through ``cann_nb.formatting``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import cached_property
from html import unescape

import pytest

import cann_nb
from cann_nb import formatting as F
from cann_nb.analyze.api import DEVICE_KEYS, analyze, json_safe, overview
from cann_nb.analyze.comparison import compare
from cann_nb.report import report_html
from cann_nb.widgets import DiffView, ProfileView, bundle_available
from cann_nb.widgets.display import WIDGET_MIME
from cann_nb.widgets.static import comparison_text, summary_html, summary_text

from .conftest import ROOT

ASCEND = "msinsight/test/data/pytorch/text/level1"
SAMPLES = {   # name -> (path under the real data, its accelerator)
    "kineto": ("kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz", "cuda:0"),
    "hta": ("hta/tests/data/nccl_parser_config/nccl_data.json.gz", "cuda:0"),
    "msinsight": (f"{ASCEND}/rank0_ascend_pt", "npu:0"),
}
TOP = 10  # the static summary's and the overview's number of top ops


class Sample:
    """One real profile, its analysis and each view of it, each made once."""

    def __init__(self, path):
        self.path = path
        self.profile = cann_nb.load(path)
        self.analysis = analyze(self.profile)

    @cached_property
    def view(self):
        return ProfileView(self.profile, charts=False)

    @cached_property
    def report(self) -> str:
        return report_html(self.profile)


@pytest.fixture(scope="module")
def samples(real_data):
    cache = {}

    def get(key) -> Sample:
        if key not in cache:
            path = real_data / (SAMPLES[key][0] if key in SAMPLES else key)
            assert path.exists(), path
            cache[key] = Sample(path)
        return cache[key]
    return get


# -- reading the HTML views ----------------------------------------------------------------------------
def cell_rows(html: str) -> list[list[str]]:
    """The <td> texts of each row of the first table in ``html`` (header rows have none: left out)."""
    table = html.split("</table>", 1)[0]
    rows = [[unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
            for tr in re.findall(r"<tr>(.*?)</tr>", table, re.S)]
    return [r for r in rows if r]


def table_after(html: str, heading: str) -> list[list[str]]:
    """The rows of the table after the heading that starts with ``heading``."""
    m = re.search(rf"<h[23]>{re.escape(heading)}[^<]*</h[23]>", html)
    assert m, f"no heading {heading!r}"
    return cell_rows(html[m.end():])


def page_state(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="cann-nb-state">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


def section(html: str, sid: str) -> str:
    start = html.index(f'id="{sid}"')
    return html[start:html.index("</section>", start)]


def as_pct(cell: str) -> str:
    """A share cell as one decimal and '%' (the HTML views write '12.3 %', the text views '12.3%')."""
    return cell.replace(" ", "")


# -- 1. devices: same names, same numbers -------------------------------------------------------------
@pytest.mark.parametrize("key", SAMPLES)
def test_view_devices_are_the_analysis_devices(samples, key):
    s = samples(key)
    want = s.analysis["summary"]["devices"]
    accel = SAMPLES[key][1]
    assert {accel, "cpu"} <= set(want) and "host" not in want, sorted(want)
    got = s.view.overview["devices"]
    ov = overview(s.profile)["devices"]
    assert list(got) == list(want) == list(ov)
    for dev, d in want.items():
        assert set(d) == set(DEVICE_KEYS)
        assert {k: got[dev][k] for k in DEVICE_KEYS} == d, dev
        assert {k: ov[dev][k] for k in DEVICE_KEYS} == d, dev
        assert got[dev]["busy_pct"] == ov[dev]["busy_pct"]
    assert s.view.overview["wall_ns"] == s.analysis["summary"]["wall_ns"] == int(s.profile.wall_ns)
    assert s.view.overview["peak_memory"] == s.analysis["summary"]["peak_memory_bytes"]


# -- 2. the report's device table and its embedded state -------------------------------------------------
@pytest.mark.parametrize("key", SAMPLES)
def test_report_device_table_shows_the_analysis_numbers(samples, key):
    s = samples(key)
    want = s.analysis["summary"]["devices"]
    rows = {r[0]: r for r in table_after(s.report, "Time per device")}
    assert list(rows) == list(want)
    payload = s.view.overview["devices"]
    for dev, d in want.items():
        assert rows[dev] == [dev, F.ns(d["busy_ns"]), f"{payload[dev]['busy_pct']:.1f} %", F.ns(d["idle_ns"]),
                             F.ns(d["compute_ns"]), F.ns(d["communication_ns"]), F.ns(d["memcpy_ns"])], dev
    state = page_state(s.report)
    assert state["overview"]["devices"] == payload
    assert state["overview"]["top"] == s.view.overview["top"]
    assert f"end-to-end {F.ns(s.analysis['summary']['wall_ns'])}" in s.report


# -- 3. op shares: hotspot table, overview top ops, static text and HTML, report ------------------------
@pytest.mark.parametrize("key", SAMPLES)
def test_op_shares_are_the_analysis_shares(samples, key):
    s = samples(key)
    hot = s.analysis["hotspots"][:TOP]
    assert hot, "no hotspots"
    want = [(h["name"], h["cat"], h["self_ns"], h["share_pct"]) for h in hot]

    data = s.view.tables["name"]["data"]
    assert list(zip(data["name"], data["cat"], data["self_ns"], data["share_pct"]))[:len(hot)] == want
    top = s.view.overview["top"]
    assert list(zip(top["name"], top["cat"], top["self_ns"], top["share_pct"])) == want
    ov = overview(s.profile)["top_ops"]
    assert json_safe(list(zip(ov["name"], ov["cat"], ov["self_ns"], ov["share_pct"]))) == [list(w) for w in want]

    lines = summary_text(s.profile).splitlines()
    head = next(i for i, line in enumerate(lines) if "top ops by self time" in line)
    for line, h in zip(lines[head + 1: head + 1 + len(hot)], hot, strict=True):
        assert line.endswith(f"{h['share_pct']:>5.1f}%") and F.ns(h["self_ns"]) in line, (line, h)
        assert str(h["name"])[:20] in line, (line, h)

    html_rows = cell_rows(summary_html(s.profile))
    assert [(r[0], r[1], r[3], r[5]) for r in html_rows] == \
        [(h["name"], h["cat"], F.ns(h["self_ns"]), f"{h['share_pct']:.1f}%") for h in hot]

    report_rows = cell_rows(section(s.report, "hotspots-static"))[:len(hot)]
    assert [(r[0], r[1], r[3], as_pct(r[5])) for r in report_rows] == \
        [(h["name"], h["cat"], F.ns(h["self_ns"]), f"{h['share_pct']:.1f}%") for h in hot]


# -- 4. the CLI ---------------------------------------------------------------------------------------------
def test_cli_analyze_json_and_text_are_the_analysis(samples):
    s = samples("msinsight")
    cmd = [sys.executable, "-m", "cann_nb", "analyze", str(s.path)]
    got = json.loads(subprocess.run([*cmd, "--json"], cwd=ROOT, capture_output=True, text=True, check=True,
                                    timeout=300).stdout)
    assert got["summary"]["devices"] == s.analysis["summary"]["devices"]
    assert got["summary"]["wall_ns"] == s.analysis["summary"]["wall_ns"]
    assert [(h["name"], h["share_pct"]) for h in got["hotspots"]] == \
        [(h["name"], h["share_pct"]) for h in s.analysis["hotspots"]]

    text = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True, timeout=300).stdout
    lines = text.splitlines()
    head = lines.index("  time per device")
    rows = {r[0]: r for r in (re.split(r"\s{2,}", line.strip()) for line in lines[head + 2:])
            if r[0] in s.analysis["summary"]["devices"]}
    for dev, d in s.analysis["summary"]["devices"].items():
        assert rows[dev] == [dev, *(F.ns(d[k]) for k in ("busy_ns", "compute_ns", "communication_ns", "memcpy_ns",
                                                        "idle_ns"))], dev


# -- 5. a comparison of two real ranks ----------------------------------------------------------------------
@pytest.fixture(scope="module", params=["rank0->rank1", "rank1->rank0"])
def comparison(request, samples):
    a, b = (samples(f"{ASCEND}/{r}_ascend_pt").profile for r in request.param.split("->"))
    return compare(a, b)


def test_diff_view_shows_the_comparison(comparison):
    cmp = comparison
    diff = DiffView(cmp).diff
    assert diff["e2e"] == json_safe(cmp.e2e)
    assert diff["e2e"]["delta_ns"] == cmp.e2e["new_ns"] - cmp.e2e["base_ns"] != 0
    assert diff["buckets"] == cmp.buckets("name") and diff["total_rows"] == len(cmp.ops)
    data = diff["data"]
    n = len(data["name"])
    assert n == min(len(cmp.ops), 200) and n > 0
    keys = ("name", "cat", "base_total_ns", "new_total_ns", "delta_ns", "delta_pct", "bucket")
    got = [{k: data[k][i] for k in keys} for i in range(n)]
    want = json_safe([{k: (r[k] if k not in ("name", "cat") else str(r[k])) for k in keys}
                      for r in cmp.ops.head(n).to_dict("records")])
    assert got == want


def test_report_against_shows_the_comparison(comparison):
    cmp = comparison
    html = report_html(cmp.new, against=cmp.base)
    assert page_state(html)["diff"]["e2e"] == json_safe(cmp.e2e)
    part = section(html, "comparison-summary")
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", part)))
    e = cmp.e2e
    assert f"{F.ns(e['base_ns'])} → {F.ns(e['new_ns'])}" in text
    assert f"({F.ns(e['delta_ns'], signed=True)}," in text, (F.ns(e["delta_ns"], signed=True), text[:400])
    for bucket in ("slower", "faster", "added", "removed"):
        want = cmp.table("name", bucket).head(10)
        if not len(want):
            continue
        rows = table_after(part, f"{bucket} (")
        assert [(r[0], r[2], r[3], r[4]) for r in rows] == \
            [(str(r["name"]), F.ns(r["base_total_ns"]), F.ns(r["new_total_ns"]), F.ns(r["delta_ns"], signed=True))
             for r in want.to_dict("records")], bucket
    assert f"({F.ns(e['delta_ns'], True)}, {F.pct(e['delta_pct'])}," in comparison_text(cmp)


# -- 6. what a notebook cell shows -----------------------------------------------------------------------
def test_profile_and_comparison_display_the_widget(samples):
    if not bundle_available():
        pytest.skip("cann_nb/static/widget.js is not built (npm ci && npm run build): "
                    "without it the bundle carries text/plain and text/html only, by design")
    a, b = (samples(f"{ASCEND}/{r}_ascend_pt").profile for r in ("rank0", "rank1"))
    bundle = cann_nb.compare(a, b, record=False)._repr_mimebundle_()
    assert WIDGET_MIME in bundle and bundle[WIDGET_MIME]["model_id"]
    bundle = a._repr_mimebundle_()
    assert WIDGET_MIME in bundle and bundle[WIDGET_MIME]["model_id"]
    assert bundle["text/plain"] == summary_text(a)
