"""The cluster report opened from disk in Debian's Chromium with the network blocked: it renders offline
(no request, no CSP violation, no error, no dialog from a hostile group or collective name), the view
draws its heatmap and bars, and the straggler is highlighted in the view and in the tables."""

from __future__ import annotations

import pytest

from cann_nb.analyze.cluster import cluster_analysis
from cann_nb.report import write_report
from tests.report.test_cluster_report import ALERT, STRAGGLER, hostile_group

from .conftest import ARTIFACTS, new_page
from .test_report import CSP_PROBE, assert_clean

# per row band of the k-th canvas of the view: pixels of the straggler red (#cf222e) in each rank's row
ROW_RED_JS = """
([k, n]) => {
  const c = document.querySelectorAll('.cnb-cluster canvas')[k];
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  const rows = new Array(n).fill(0), h = c.height / n;
  for (let i = 0; i < d.length; i += 4) {
    const r = d[i], g = d[i + 1], b = d[i + 2];
    if (Math.abs(r - 207) < 20 && Math.abs(g - 34) < 25 && Math.abs(b - 46) < 25) rows[Math.min(n - 1, Math.floor((i / 4 / c.width) / h))]++;
  }
  return rows;
}
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    res = cluster_analysis(hostile_group())
    return write_report(res, tmp_path_factory.mktemp("cluster-report") / "cluster.html"), res


@pytest.fixture
def page(browser, request):
    ctx, pg = new_page(browser, viewport=(1300, 900))
    pg.add_init_script(CSP_PROBE)
    yield pg
    try:
        pg.screenshot(path=str(ARTIFACTS / f"cluster-report-{request.node.name}.png"), full_page=True)
    finally:
        ctx.close()


def test_renders_offline_with_the_straggler_highlighted(page, report):
    path, res = report
    page.goto(path.as_uri())
    page.wait_for_selector(".cnb-root[data-ready='1']", timeout=30_000)
    assert_clean(page)
    assert page.title().startswith(f"cluster {ALERT}")          # the hostile name is text, never markup
    assert page.locator("h1 .rpt-title").inner_text() == f"cluster {ALERT}"
    assert not page.locator("#view img, h1 img, table img").count()
    head = page.locator(".cnb-cluster-head").inner_text()
    assert f"straggler: rank {STRAGGLER}" in head and "8 ranks" in head
    assert not page.locator(".rpt-wait").is_visible()
    # the view drew: the heatmap and the bars, with red only in the straggler's row
    n = len(res.ranks)
    canvases = page.locator(".cnb-cluster canvas")
    assert canvases.count() == 2
    for i in range(2):
        red = page.evaluate(ROW_RED_JS, [i, n])
        assert red[STRAGGLER] > 50 and sum(red) - red[STRAGGLER] < 0.05 * red[STRAGGLER], (i, red)
    # the server-rendered tables mark the same rank
    marked = page.locator("tr.rpt-straggler td:first-child").all_inner_texts()
    assert marked == [str(STRAGGLER)] * 2
    # hovering the straggler's bar names it
    bars = page.locator(".cnb-cluster canvas").nth(1)
    bars.scroll_into_view_if_needed()
    box = bars.bounding_box()
    page.mouse.move(box["x"] + 100, box["y"] + (STRAGGLER + 0.5) * box["height"] / n)
    assert f"rank {STRAGGLER} (cuda:0)" in page.locator(".cnb-cluster-tip").inner_text()
    assert "straggler" in page.locator(".cnb-cluster-tip").inner_text()
