"""The widgets in a real browser, rendered from one offline page (the same bundle + a read-only model,
as in the HTML report): drawing, zoom/pan, table sorting, linking, findings, escaping, no network."""

from __future__ import annotations

import pytest

from cann_nb.analyze.comparison import compare
from cann_nb.widgets import CallTreeView, DiffView, ProfileView, TimelineView
from cann_nb.widgets.standalone import standalone_html
from tests.widgets.synth import HOSTILE, synthetic_findings, synthetic_profile

from .conftest import PIXELS_JS

LABEL_W = 180  # js/timeline.js gutter


@pytest.fixture(scope="module")
def prof():
    return synthetic_profile(20_000)


def open_view(page, widget, tmp_path, name="view.html"):
    path = tmp_path / name
    path.write_text(standalone_html(widget), encoding="utf-8")
    page.goto(path.as_uri())
    page.wait_for_selector(".cnb-root[data-ready='1']", timeout=20_000)
    return path


def wait_drawn(page, min_draws=1, scope=".cnb-timeline"):
    page.wait_for_function(f"() => {{ const t = document.querySelector('{scope}'); "
                           f"return t && Number(t.dataset.draws || 0) >= {min_draws}; }}", timeout=15_000)


def pixels(page, sel=".cnb-tl-canvas", left=LABEL_W):
    settle(page)
    return page.evaluate(PIXELS_JS, [sel, left])


def tl_data(page, sel=".cnb-timeline"):
    settle(page)
    return page.evaluate(f"() => Object.assign({{}}, document.querySelector('{sel}').dataset)")


def settle(page):
    """Wait two animation frames: views redraw (and update their data-* attributes) on the next frame."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def span(page, sel=".cnb-timeline"):
    settle(page)
    t0, t1 = map(float, tl_data(page, sel)["view"].split(","))
    return t0, t1, t1 - t0


def test_timeline_draws_lanes_and_events(page, prof, tmp_path):
    open_view(page, TimelineView(prof), tmp_path)
    wait_drawn(page)
    px = pixels(page)
    assert px["share"] > 0.2, px           # lanes and events cover the plot, not a blank canvas
    assert px["colors"] >= 12, px          # many op colours, not one fill
    labels = page.evaluate(PIXELS_JS, [".cnb-tl-canvas", 0])
    assert labels["drawn"] > px["drawn"]   # the lane gutter has text too
    assert not page.errors and not page.dialogs and not page.blocked
    assert "20,000 events in 4 lanes" in page.inner_text(".cnb-tl-status")
    draws = int(tl_data(page)["draws"])
    page.wait_for_timeout(500)
    assert int(tl_data(page)["draws"]) == draws  # idle page: no redraw loop


def test_zoom_pan_and_reset_change_the_view(page, prof, tmp_path):
    open_view(page, TimelineView(prof), tmp_path)
    wait_drawn(page)
    t0, t1, s0 = span(page)
    before = pixels(page)["hash"]
    box = page.locator(".cnb-tl-canvas").bounding_box()
    cx, cy = box["x"] + LABEL_W + (box["width"] - LABEL_W) / 2, box["y"] + 120
    page.mouse.move(cx, cy)
    for _ in range(5):
        page.mouse.wheel(0, -300)
    page.wait_for_function(f"() => {{ const [a, b] = document.querySelector('.cnb-timeline').dataset.view.split(',').map(Number); return b - a < {s0 * 0.5}; }}")
    z0, z1, zs = span(page)
    assert zs < s0 * 0.5 and z0 > t0 and z1 < t1  # zoomed in around the cursor
    assert pixels(page)["hash"] != before
    # drag pans: the window moves left in time when dragging right
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx + 200, cy, steps=5)
    page.mouse.up()
    p0, p1, ps = span(page)
    assert ps == pytest.approx(zs, rel=1e-6) and p0 < z0
    # shift+drag zooms to the box
    page.keyboard.down("Shift")
    page.mouse.move(cx - 100, cy)
    page.mouse.down()
    page.mouse.move(cx + 100, cy, steps=4)
    page.mouse.up()
    page.keyboard.up("Shift")
    b0, b1, bs = span(page)
    assert bs < ps * 0.6
    page.mouse.dblclick(cx, cy)
    page.wait_for_function(f"() => document.querySelector('.cnb-timeline').dataset.view.split(',').map(Number)[1] >= {t1 - 1}")


def test_hover_tooltip_click_details_parent_chain_and_flow_arrow(page, prof, tmp_path):
    open_view(page, TimelineView(prof), tmp_path)
    wait_drawn(page)
    page.fill(".cnb-search", "cudaLaunch")
    page.press(".cnb-search", "Enter")  # next match: selected and zoomed to
    page.wait_for_function("() => Number(document.querySelector('.cnb-timeline').dataset.selected) >= 0")
    details = page.inner_text(".cnb-details")
    assert "cudaLaunchKernel" in details and "parent chain" in details and "launched device tasks (1)" in details
    assert "matches" in page.inner_text(".cnb-toolbar")
    page.wait_for_timeout(100)
    px = pixels(page)
    assert px["accent"] > 30, px  # the flow arrow to the kernel is drawn
    # follow the link to the launched kernel: its details say who launched it
    page.click(".cnb-details .cnb-chain:last-child .cnb-link")
    assert "launched by: cudaLaunchKernel" in page.inner_text(".cnb-details")
    # hovering the selected kernel shows a tooltip with its name, duration and self time
    sel = int(tl_data(page)["selected"])
    assert sel >= 0
    ev = page.evaluate("""(i) => { const t = document.querySelector('.cnb-timeline').__cnbTimeline;
        const b = t.eventBox(i, t.scroller.scrollTop); return {x: (b.x0 + b.x1) / 2, y: b.y + b.h / 2}; }""", sel)
    box = page.locator(".cnb-tl-canvas").bounding_box()
    page.mouse.move(box["x"] + ev["x"], box["y"] + ev["y"])
    tip = page.locator(".cnb-tooltip")
    tip.wait_for(state="visible")
    text = tip.inner_text()
    assert "duration" in text and "self" in text and "kernel" in text
    page.mouse.move(box["x"] + 5, box["y"] + 5)
    tip.wait_for(state="hidden")
    assert not page.errors


def test_table_sorts_and_row_click_highlights_and_zooms(page, prof, tmp_path):
    v = ProfileView(prof, synthetic_findings(prof), tab="hotspots", charts=False)
    open_view(page, v, tmp_path)
    wait_drawn(page)
    rows = ".cnb-hotspots tbody tr"
    col = page.evaluate("() => [...document.querySelectorAll('.cnb-hotspots th')].map(t => t.dataset.col)")
    ci = col.index("count") + 1

    def counts():
        return [int(x.replace(",", "")) for x in page.locator(f"{rows} td:nth-child({ci})").all_inner_texts()]

    page.click(".cnb-hotspots th[data-col=count]")
    desc = counts()
    assert desc == sorted(desc, reverse=True) and desc[0] > desc[-1]
    page.click(".cnb-hotspots th[data-col=count]")
    asc = counts()
    assert asc == sorted(asc)
    page.fill(".cnb-hotspots .cnb-search", "matmul")
    assert page.locator(rows).count() == 1
    _, _, s_before = span(page)
    page.click(rows)
    page.wait_for_function("() => Number(document.querySelector('.cnb-timeline').dataset.highlight || 0) > 0")
    d = tl_data(page)
    n_matmul = int((prof.events["name"] == "aten::matmul").sum())
    assert int(d["highlight"]) == n_matmul
    assert int(d["selected"]) >= 0
    _, _, s_after = span(page)
    assert s_after < s_before / 100  # zoomed to the heaviest occurrence
    page.click(".cnb-btn:has-text('Reset')")
    assert pixels(page)["hl"] > 200  # zoomed out: every occurrence outlined on the canvas
    assert "aten::matmul" in page.inner_text(".cnb-details")


def test_finding_click_highlights_evidence_in_timeline_and_table(page, prof, tmp_path):
    v = ProfileView(prof, synthetic_findings(prof), tab="suggestions", charts=False)
    open_view(page, v, tmp_path)
    wait_drawn(page)
    titles = page.locator(".cnb-finding-title").all_inner_texts()
    assert titles[0] == f"{HOSTILE} dominates host time"  # largest gain first, as text
    page.click(".cnb-finding[data-index='0']")
    page.wait_for_function("() => Number(document.querySelector('.cnb-timeline').dataset.highlight || 0) === 50")
    page.wait_for_timeout(100)
    assert pixels(page)["hl"] > 20
    assert "Fuse <b>it</b> with javascript:alert(2)" in page.inner_text(".cnb-suggestion")
    page.click(".cnb-tab[data-tab=hotspots]")
    marked = page.locator(".cnb-hotspots tr.marked td:first-child").all_inner_texts()
    assert marked == [HOSTILE]
    assert not page.dialogs and not page.errors


def test_hostile_names_render_as_text_everywhere(page, prof, tmp_path):
    v = ProfileView(prof, synthetic_findings(prof), tab="overview", charts=False)
    open_view(page, v, tmp_path)
    for tab in ("overview", "timeline", "hotspots", "calltree", "suggestions"):
        page.click(f".cnb-tab[data-tab={tab}]")
        page.wait_for_timeout(150)
    page.click(".cnb-tab[data-tab=hotspots]")
    page.fill(".cnb-hotspots .cnb-search", "onerror")
    page.click(".cnb-hotspots tbody tr")
    assert HOSTILE in page.inner_text(".cnb-details")
    cells = page.locator(".cnb-hotspots tbody td:first-child").all_inner_texts()
    assert HOSTILE in cells
    page.click(".cnb-tab[data-tab=suggestions]")
    page.click(".cnb-finding[data-index='0']")
    text = page.inner_text(".cnb-findings-panel")
    assert "</script><b>x</b>" in text and "Fuse <b>it</b>" in text and f"{HOSTILE} dominates" in text
    # markup in names never became elements
    assert page.evaluate("() => [...document.querySelectorAll('.cnb-root b')].filter("
                         "b => b.textContent === 'x' || b.textContent === 'it').length") == 0
    assert page.evaluate("() => document.querySelectorAll('.cnb-root img').length") == 0
    assert not page.dialogs
    assert not [u for u in page.requests if u.rstrip("/").endswith("/x")]  # no <img src=x> was ever loaded
    assert not page.blocked and not page.errors


def test_call_tree_draws_and_links_to_timeline(page, prof, tmp_path):
    open_view(page, CallTreeView(prof), tmp_path)
    page.wait_for_function("() => Number((document.querySelector('.cnb-calltree') || {dataset: {}}).dataset.nodes || 0) > 10")
    px = pixels(page, ".cnb-icicle", 0)
    assert px["share"] > 0.3 and px["colors"] >= 8
    box = page.locator(".cnb-icicle").bounding_box()
    page.mouse.click(box["x"] + 40, box["y"] + 18 * 4 + 9)  # a node a few levels down
    page.wait_for_function("() => Number(document.querySelector('.cnb-timeline').dataset.highlight || 0) > 0")
    assert int(tl_data(page)["selected"]) >= 0


def test_memory_tab_bokeh_charts_render_offline(page, prof, tmp_path):
    v = ProfileView(prof, synthetic_findings(prof), tab="memory")
    open_view(page, v, tmp_path)
    page.wait_for_selector(".cnb-panel:not([hidden]) .cnb-charts[data-rendered='1']", timeout=20_000)
    assert page.locator(".cnb-panel:not([hidden]) .cnb-chart .bk-Canvas, .cnb-panel:not([hidden]) .cnb-chart div").count() > 0
    page.click(".cnb-tab[data-tab=overview]")
    page.wait_for_selector(".cnb-panel:not([hidden]) .cnb-charts[data-rendered='1']", timeout=20_000)
    assert not page.blocked and not page.errors


def test_diff_view_aligned_timelines(page, prof, tmp_path):
    after = synthetic_profile(14_000, name="after", seed=4, scale=1.6)
    open_view(page, DiffView(compare(prof, after)), tmp_path)
    page.wait_for_function("() => [...document.querySelectorAll('.cnb-timeline')].every(t => Number(t.dataset.draws || 0) >= 1)")
    head = page.inner_text(".cnb-diff-head")
    assert "synthetic" in head and "after" in head and "%" in head
    assert page.locator(".cnb-delta-row").count() > 5
    views = page.evaluate("() => [...document.querySelectorAll('.cnb-timeline')].map(t => t.dataset.view)")
    a, b = [tuple(map(float, v.split(","))) for v in views]
    assert a[1] - a[0] == pytest.approx(b[1] - b[0])  # one shared scale
    box = page.locator(".cnb-tl-canvas").first.bounding_box()
    page.mouse.move(box["x"] + LABEL_W + 200, box["y"] + 60)
    page.mouse.wheel(0, -400)
    page.wait_for_timeout(300)
    settle(page)  # the wheel zooms on the next frame
    views = page.evaluate("() => [...document.querySelectorAll('.cnb-timeline')].map(t => t.dataset.view)")
    a2, b2 = [tuple(map(float, v.split(","))) for v in views]
    assert a2[1] - a2[0] < (a[1] - a[0]) * 0.8 and a2[1] - a2[0] == pytest.approx(b2[1] - b2[0])
    page.click(".cnb-delta-row")
    assert all(int(x) > 0 for x in page.evaluate(
        "() => [...document.querySelectorAll('.cnb-timeline')].map(t => t.dataset.highlight || 0)"))


def test_missing_bundle_message(page, prof, tmp_path, monkeypatch):
    from cann_nb.widgets import _bundle

    monkeypatch.setattr(_bundle, "BUNDLE", tmp_path / "missing.js")
    monkeypatch.setattr(_bundle, "_warned", True)
    path = tmp_path / "missing.html"
    path.write_text(standalone_html(TimelineView(prof)), encoding="utf-8")
    page.goto(path.as_uri())
    page.wait_for_selector(".cann-nb-missing-bundle")
    assert "npm ci && npm run build" in page.inner_text(".cann-nb-missing-bundle")


def test_the_timeline_shows_its_last_lane_whole_and_its_whole_search_hint(page, tmp_path):
    """The scroller's border took 2 px off the canvas (the last lane was clipped), the search box cut its
    placeholder, and one lane read '1 lanes'."""
    from tests.synth_steps import stepped

    one_lane = stepped({"aten::mm": 1_000_000}, steps=3, step_events=False)
    assert one_lane.events["track"].nunique() == 1
    open_view(page, TimelineView(one_lane), tmp_path)
    wait_drawn(page)
    geo = page.evaluate("""() => { const t = document.querySelector('.cnb-timeline').__cnbTimeline;
        const s = t.scroller, inp = t.search, last = t.bands[t.bands.length - 1];
        const c = document.createElement('canvas').getContext('2d');
        const st = getComputedStyle(inp); c.font = st.font;
        return { canvasH: t.canvasH, clientH: s.clientHeight, scrollH: s.scrollHeight,
                 lastBottom: last.y + last.h + (t.canvasH - t.contentH),
                 hintW: c.measureText(inp.placeholder).width,
                 roomW: inp.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) }; }""")
    assert geo["clientH"] == geo["canvasH"] and geo["scrollH"] <= geo["clientH"], geo   # all of it, no scrolling
    assert geo["lastBottom"] <= geo["clientH"], geo
    assert geo["hintW"] <= geo["roomW"], geo
    assert "events in 1 lane ·" in page.inner_text(".cnb-tl-status") + " ·"
