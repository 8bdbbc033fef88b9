"""HTML reports opened from disk in Debian's Chromium with the network blocked: a collected CPU profile
(torch CNN through CollectionSession), an imported Ascend profile, a comparison and a hostile profile.
Each checks that nothing was requested, no CSP violation happened (BokehJS included), the timeline drew,
the hotspot table sorts and a finding click highlights its evidence; print and no-script views too."""

from __future__ import annotations

import re

import pytest

from cann_nb.report import write_report
from tests.report.profiles import HOSTILE, PWN, hostile_findings, hostile_profile, known_findings
from tests.widgets.synth import synthetic_profile

from .conftest import ARTIFACTS, PIXELS_JS, new_page

LABEL_W = 180
CSP_PROBE = ("window.__csp = []; document.addEventListener('securitypolicyviolation', "
             "e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sample || '')));")


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """The report files, written once per module (collection and analysis are the slow part)."""
    out = tmp_path_factory.mktemp("reports")
    files = {}
    prof = synthetic_profile(20_000, name="synthetic")
    files["synthetic"] = write_report(prof, out / "synthetic.html", findings=known_findings(prof))
    hp = hostile_profile()
    files["hostile"] = write_report(hp, out / "hostile.html", against=synthetic_profile(2_000, name="base", seed=3),
                                    findings=hostile_findings(hp))
    return out, files


@pytest.fixture(scope="module")
def cpu_report(reports):
    torch = pytest.importorskip("torch")
    from cann_nb.collect.base import CollectOptions
    from cann_nb.collect.session import CollectionSession

    model = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
                                torch.nn.Flatten(), torch.nn.Linear(32, 10))
    x = torch.randn(8, 3, 32, 32)
    model(x)
    sess = CollectionSession("cnn", ("torch", "host"), CollectOptions(shapes=True, memory=True))
    sess.start()
    try:
        for _ in range(3):
            model(x).sum().backward()
    finally:
        sess.stop()
    prof = sess.finish()
    if prof.meta["collectors"].get("torch", {}).get("status") != "ok":
        pytest.skip(f"torch collector unavailable: {prof.meta['collectors']}")
    return write_report(prof, reports[0] / "cnn.html")


@pytest.fixture
def page(browser, request):
    ctx, pg = new_page(browser, viewport=(1400, 900))
    pg.add_init_script(CSP_PROBE)
    yield pg
    try:
        pg.screenshot(path=str(ARTIFACTS / f"report-{request.node.name}.png"), full_page=True)
    finally:
        ctx.close()


def open_report(page, path):
    page.goto(path.as_uri())
    page.wait_for_selector(".cnb-root[data-ready='1']", timeout=30_000)
    page.wait_for_selector(".cnb-root[data-charts='1']", timeout=30_000)
    if page.locator("#timeline").count():
        page.wait_for_function("() => [...document.querySelectorAll('.cnb-timeline')]"
                               ".every(t => Number(t.dataset.draws || 0) >= 1)", timeout=15_000)


def settle(page):
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def timeline_data(page):
    settle(page)
    return page.evaluate("() => Object.assign({}, document.querySelector('#timeline .cnb-timeline').dataset)")


def assert_clean(page):
    """Offline and inert: only file/blob/data requests, no CSP violation, no error, no dialog, no script
    from profile text."""
    assert not page.blocked, page.blocked
    assert all(u.startswith(("file:", "blob:", "data:")) for u in page.requests)
    assert page.evaluate("window.__csp") == []
    assert not page.errors and not page.dialogs
    assert page.evaluate("window.__pwned") is None


def check_timeline_drew(page):
    px = page.evaluate(PIXELS_JS, ["#timeline .cnb-tl-canvas", LABEL_W])
    assert px["share"] > 0.05 and px["colors"] >= 6, px


def check_table_sorts(page):
    rows = "#hotspots tbody tr"
    cols = page.evaluate("() => [...document.querySelectorAll('#hotspots th')].map(t => t.dataset.col)")
    ci = cols.index("count") + 1

    def counts():
        return [int(x.replace(",", "")) for x in page.locator(f"{rows} td:nth-child({ci})").all_inner_texts()]

    page.click("#hotspots th[data-col=count]")
    desc = counts()
    assert desc == sorted(desc, reverse=True) and desc[0] > desc[-1]
    page.click("#hotspots th[data-col=count]")
    assert counts() == sorted(counts())


def click_finding_with_evidence(page):
    """Click the first finding that has evidence events; the timeline highlights exactly those."""
    cards = page.locator("#suggestions .cnb-finding").all_inner_texts()
    k, n = next((k, int(m.group(1).replace(",", ""))) for k, t in enumerate(cards)
                if (m := re.search(r"([\d,]+) evidence events", t)))
    page.click(f"#suggestions .cnb-finding[data-index='{k}']")
    page.wait_for_function(f"() => Number(document.querySelector('#timeline .cnb-timeline').dataset.highlight || 0) === {n}")
    d = timeline_data(page)
    assert int(d["selected"]) >= 0
    assert page.locator("#suggestions .cnb-finding.selected").count() == 1
    return n


def test_collected_cpu_profile(page, cpu_report):
    open_report(page, cpu_report)
    text = page.inner_text("header")
    assert "cann_nb profile report" in text.lower() and "torch" in text and "python" in text and "Collected with" in text
    assert "Time per device" in page.inner_text("#overview")
    check_timeline_drew(page)
    check_table_sorts(page)
    if page.locator("#suggestions .cnb-finding").count():
        click_finding_with_evidence(page)
    assert page.locator("#charts .cnb-chart").count() == 3
    assert_clean(page)


def test_imported_ascend_profile(page, ascend, tmp_path):
    path = write_report(ascend[0], tmp_path / "ascend.html")
    open_report(page, path)
    head = page.inner_text("header")
    assert "imported profile" in head and "torch_npu-text" in head and "npu:0" in head
    assert "npu:0" in page.inner_text("#overview") and "communication" in page.inner_text("#overview")
    assert re.search(r"2,101 events in \d+ lanes", page.inner_text("#timeline .cnb-tl-status"))
    check_timeline_drew(page)
    check_table_sorts(page)
    click_finding_with_evidence(page)
    assert_clean(page)


def test_comparison(page, ascend, tmp_path):
    base, new = ascend[1], ascend[0]
    path = write_report(new, tmp_path / "cmp.html", against=base)
    open_report(page, path)
    summary = page.inner_text("#comparison-summary")
    assert "rank1_ascend_pt" in summary and "rank0_ascend_pt" in summary and "ops by name" in summary
    views = page.evaluate("() => [...document.querySelectorAll('#comparison .cnb-timeline')].map(t => t.dataset.view)")
    assert len(views) == 2
    a, b = [tuple(map(float, v.split(","))) for v in views]
    assert a[1] - a[0] == pytest.approx(b[1] - b[0])  # one shared scale
    assert page.locator("#comparison .cnb-delta-row").count() > 5
    page.click("#comparison .cnb-delta-row")
    settle(page)
    assert all(int(x) > 0 for x in page.evaluate(
        "() => [...document.querySelectorAll('#comparison .cnb-timeline')].map(t => t.dataset.highlight || 0)"))
    check_timeline_drew(page)  # the profile's own timeline further down
    assert_clean(page)


def test_hostile_profile_renders_as_text(page, reports):
    open_report(page, reports[1]["hostile"])
    # interact where profile text is shown: findings, table filter and row, details, metadata
    page.click("#suggestions .cnb-finding[data-index='0']")
    page.fill("#hotspots .cnb-search", "svg")
    page.click("#hotspots tbody tr")
    page.click("#details summary")
    settle(page)
    body = page.inner_text("body")
    for s in HOSTILE:
        assert s in body, s  # visible as text
    assert PWN in page.inner_text("#suggestions") and "Fuse <b>it</b>" in page.inner_text("#suggestions")
    assert "<svg onload" in page.inner_text("#timeline .cnb-details")
    # nothing became markup: no element from a name, body not hidden by an injected style
    assert page.evaluate("() => document.querySelectorAll('img, [onerror], [onload], body svg:not(.bk-root svg)').length") == 0
    assert page.evaluate("() => document.querySelectorAll('style').length") >= 1
    assert page.evaluate("() => getComputedStyle(document.body).display") != "none"
    assert page.evaluate("() => [...document.querySelectorAll('b')].filter(b => b.textContent === 'it' || "
                         "b.textContent === 'hidden?').length") == 0  # an injected <b> would hold just that
    assert not [u for u in page.requests if u.rstrip("/").endswith("/x")]
    assert_clean(page)


def test_print_view_and_pdf(page, reports):
    open_report(page, reports[1]["synthetic"])
    page.emulate_media(media="print")
    visible = lambda sel: page.locator(sel).first.is_visible()  # noqa: E731
    assert not visible(".rpt-nav") and not visible("#suggestions") and not visible("#hotspots")
    assert visible("#findings-static") and visible("#hotspots-static") and visible("#timeline .cnb-tl-canvas")
    assert "aten::matmul dominates" in page.inner_text("#findings-static")
    assert "Use a larger batch." in page.inner_text("#findings-static")  # every suggestion, not just a selected one
    pdf = page.pdf(format="A4", print_background=True)
    assert pdf.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page[^s]", pdf)) >= 3
    assert_clean(page)


def test_without_javascript_the_static_view_remains(browser, reports):
    ctx = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    try:
        pg = ctx.new_page()
        pg.goto(reports[1]["synthetic"].as_uri())
        for sel in ("#overview", "#findings-static", "#hotspots-static", ".rpt-wait", "#details"):
            assert pg.locator(sel).is_visible(), sel
        assert "aten::matmul dominates" in pg.inner_text("#findings-static")
        assert "JavaScript is off or blocked" in pg.inner_text(".rpt-wait")
        assert pg.locator(".cnb-root").count() == 0
    finally:
        ctx.close()
