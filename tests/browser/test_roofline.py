"""The roofline in the HTML report, in Chromium with the network blocked: the chart draws, a point
clicked lights its op up on the timeline, and a hostile op name stays text."""

from __future__ import annotations

import pytest

from cann_nb.report import write_report
from tests.analyze.synth import Trace

from .conftest import new_page

PWN = '<img src=x onerror="window.__pwned=1">'


def _profile():
    """A GEMM on an H100 (two kernels), launched by an op with a hostile name variant alongside."""
    t = Trace()
    mm = dict(shapes="[[64],[128,256],[256,64],[],[]]", dtypes='["float","float","float","Scalar","Scalar"]')
    for i, name in enumerate(("aten::addmm", "aten::addmm", f"aten::add{PWN}")):
        s = i * 20_000
        sh = mm if name == "aten::addmm" else dict(shapes="[[128,256],[128,256]]", dtypes='["float","float"]')
        t.op(name if "img" not in name else "aten::add", s, 10_000, **sh)
        t.launch(s + 1_000, 1_000, corr=10 + i)
        t.kernel("ampere_sgemm_128x64_tn" if i < 2 else PWN, s + 3_000, 4_000, corr=10 + i)
    return t.profile(wall_ns=70_000, name="roofline", devices=[{"device": "cpu"},
                                                               {"device": "cuda:0", "name": "NVIDIA H100 80GB HBM3"}])


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return write_report(_profile(), tmp_path_factory.mktemp("roofline") / "roofline.html")


def test_roofline_point_click_lights_up_its_op(browser, report):
    ctx, page = new_page(browser)
    try:
        page.goto(f"file://{report}")
        page.wait_for_selector("#roofline .cnb-charts[data-rendered='1']", timeout=60_000)
        # bokeh draws in a shadow root: the chart's slot holds its view
        assert page.evaluate("() => document.querySelector(\"#roofline [data-chart='roofline']\").childElementCount") > 0
        # select the GEMM kernel's point as a tap would: bokeh runs the chart's callback
        picked = page.evaluate("""() => {
            for (const doc of Bokeh.documents) for (const m of doc.all_models) {
                if (m.type !== 'ColumnDataSource' && m.constructor.name !== 'ColumnDataSource') continue;
                const names = m.data.name;
                if (!names) continue;
                const i = [...names].indexOf('ampere_sgemm_128x64_tn');
                if (i >= 0) { m.selected.indices = [i]; return names[i]; }
            }
            return null; }""")
        assert picked == "ampere_sgemm_128x64_tn"
        page.wait_for_function("() => Number(document.querySelector('#timeline .cnb-timeline').dataset.highlight || 0) === 2")
        assert page.evaluate("window.__pwned") is None and not page.errors and not page.blocked
    finally:
        ctx.close()
