"""End to end in a real JupyterLab (and Notebook 7 on the same server) started by the test: profile a cell with %%cann_profile, show the
ProfileView, then drive it with Chromium as a user would and read the selection back in the kernel.

Pitfalls from shared/docs/environment-notes.md: wait for the status bar's "| Idle" (the toolbar
indicator reads idle before a kernel exists), open with ?reset and a private workspaces dir, disable
xsrf for the token-less server, silence the news toast with overrides.json.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import nbformat
import pytest

from .conftest import ARTIFACTS, PIXELS_JS, need, new_page

pytestmark = pytest.mark.slow

WORKLOAD = '''%%cann_profile -n e2e --no-display --collectors python,host
import json
def parse(s):
    return json.loads(s)
def work(n):
    out = 0
    for i in range(n):
        out += len(parse('{"a": [1, 2, 3], "b": "%d"}' % i))
    return out
for _ in range(10):
    work(300)
'''

SHOW = '''import cann_nb
from cann_nb.analyze.finding import Finding
from cann_nb.widgets import ProfileView
p = cann_nb.load_session()["e2e"]
top = p.hotspots().iloc[0]
ids = p.events.loc[p.events["name"] == top["name"], "id"].tolist()
finding = Finding(rule="e2e", category="hotspot", severity="high", title=f"{top['name']} is the top op",
                  evidence={"method": "test", "event_ids": ids}, ops=(top["name"],), est_gain_ns=float(top["self_ns"]))
view = ProfileView(p, [finding], tab="timeline")
view'''

READBACK = 'print("SELECTED", view.selected_id, "DRAWS", view.render_stats.get("draws", 0))'

# %cann_compare as a cell's last value: the diff view of two profiles of the same code, the second slower
COMPARE_CELLS = ("%load_ext cann_nb",
                 WORKLOAD.replace("-n e2e", "-n before"),
                 WORKLOAD.replace("-n e2e", "-n after").replace("work(300)", "work(900)"),
                 "%cann_compare before after")


# a displayed profiled cell: its static summary output first, then the view that hides it once rendered
SUMMARY_CELLS = ("%load_ext cann_nb", WORKLOAD.replace("-n e2e --no-display", "-n shown"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if importlib.util.find_spec("jupyterlab") is None:
        need("jupyterlab is not installed (pip install jupyterlab)")
    root = tmp_path_factory.mktemp("lab")
    settings = root / "app-settings"
    settings.mkdir()
    (settings / "overrides.json").write_text(json.dumps(
        {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}}))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in ("%load_ext cann_nb", WORKLOAD, SHOW, READBACK)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(nb, root / "e2e.ipynb")
    cmp = nbformat.v4.new_notebook(metadata=nb.metadata)
    cmp.cells = [nbformat.v4.new_code_cell(c) for c in COMPARE_CELLS]
    nbformat.write(cmp, root / "compare.ipynb")
    shown = nbformat.v4.new_notebook(metadata=nb.metadata)
    shown.cells = [nbformat.v4.new_code_cell(c) for c in SUMMARY_CELLS]
    nbformat.write(shown, root / "shown.ipynb")
    port = _free_port()
    env = dict(os.environ, CANN_NB_DIR=str(root / "profile_results"), KINETO_LOG_LEVEL="99")
    log = open(root / "lab.log", "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
         "--IdentityProvider.token=", "--ServerApp.disable_check_xsrf=True", "--allow-root",
         f"--ServerApp.root_dir={root}", f"--LabApp.workspaces_dir={root / 'workspaces'}",
         f"--LabApp.app_settings_dir={settings}"],
        cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(url + "/api/status", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    log.flush()
                    pytest.fail("jupyter lab did not start:\n" + (root / "lab.log").read_text()[-3000:])
                time.sleep(0.3)
        yield url, root
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _kernel_idle(url: str, path: str) -> bool:
    """The notebook's kernel exists and is idle (REST API; the UIs' idle indicators can lie early)."""
    try:
        sessions = json.load(urllib.request.urlopen(url + "/api/sessions", timeout=2))
    except OSError:
        return False
    return any(s.get("path", "").endswith(path) and s.get("kernel", {}).get("execution_state") == "idle"
               for s in sessions)


def _wait_kernel(page, url: str, path: str, timeout: float = 90) -> None:
    deadline = time.time() + timeout
    while not _kernel_idle(url, path):
        if time.time() > deadline:
            sessions = urllib.request.urlopen(url + "/api/sessions", timeout=2).read()[:2000]
            pytest.fail(f"no idle kernel for {path} after {timeout} s: {sessions!r}")
        # wait through Playwright, not time.sleep: the page's requests pass through our route handler,
        # which only runs while Playwright's loop is pumped
        page.wait_for_timeout(300)


def _restart_clean(url: str) -> None:
    """Shut down earlier sessions so each front end starts its own kernel."""
    for s in json.load(urllib.request.urlopen(url + "/api/sessions", timeout=5)):
        req = urllib.request.Request(url + f"/api/sessions/{s['id']}", method="DELETE")
        urllib.request.urlopen(req, timeout=10)


@pytest.mark.parametrize("front_end", ["lab", "notebook7"])
def test_profile_cell_then_drill_down(browser, lab, front_end):
    url, root = lab
    if front_end == "notebook7" and importlib.util.find_spec("notebook") is None:
        need("Notebook 7 is not installed (pip install notebook)")
    _restart_clean(url)
    ctx, page = new_page(browser, allow=("file:", "data:", "blob:", url), viewport=(1400, 1000))
    shot = lambda name: str(ARTIFACTS / f"{front_end}_{name}.png")  # noqa: E731
    try:
        page.goto(url + ("/lab/tree/e2e.ipynb?reset" if front_end == "lab" else "/notebooks/e2e.ipynb"))
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        try:
            _wait_kernel(page, url, "e2e.ipynb")
        except BaseException:
            page.screenshot(path=shot("failure"), full_page=True)
            raise
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        page.wait_for_selector(".cnb-root[data-ready='1']", timeout=120_000)
        page.wait_for_function("() => Number((document.querySelector('.cnb-timeline') || {dataset: {}}).dataset.draws || 0) >= 1",
                               timeout=30_000)
        widget = page.locator(".cnb-root").first
        widget.scroll_into_view_if_needed()
        px = page.evaluate(PIXELS_JS, [".cnb-tl-canvas", 180])
        assert px["share"] > 0.05 and px["colors"] >= 6, px  # lanes and events actually drawn
        widget.screenshot(path=shot("timeline"))
        draws = page.evaluate("() => Number(document.querySelector('.cnb-timeline').dataset.draws)")
        page.wait_for_timeout(700)
        # idle: no redraw loop (a loop would draw ~40 frames here; a late layout change may cost one or two)
        assert page.evaluate("() => Number(document.querySelector('.cnb-timeline').dataset.draws)") <= draws + 2

        # hotspot row -> the timeline selects (and zooms to) the heaviest occurrence
        page.click(".cnb-tab[data-tab=hotspots]")
        before = page.evaluate("() => document.querySelector('.cnb-timeline').dataset.selected || '-1'")
        page.click(".cnb-hotspots tbody tr:nth-child(1)")
        page.wait_for_function(f"() => (document.querySelector('.cnb-timeline').dataset.selected || '-1') !== '{before}'")
        page.wait_for_function("() => Number(document.querySelector('.cnb-timeline').dataset.highlight || 0) > 0")
        widget.screenshot(path=shot("hotspot_click"))

        # finding -> its evidence events highlighted on the timeline
        page.click(".cnb-tab[data-tab=suggestions]")
        page.click(".cnb-timeline .cnb-btn:has-text('Clear')")
        page.wait_for_function("() => Number(document.querySelector('.cnb-timeline').dataset.highlight || 0) === 0")
        page.click(".cnb-finding[data-index='0']")
        page.wait_for_function("() => Number(document.querySelector('.cnb-timeline').dataset.highlight || 0) > 0")
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        assert page.evaluate(PIXELS_JS, [".cnb-tl-canvas", 180])["hl"] > 0
        widget.screenshot(path=shot("finding_click"))

        # bokeh charts: BokehJS comes from the kernel over the widget's comm (no CDN; network blocked)
        page.click(".cnb-tab[data-tab=memory]")
        page.wait_for_selector(".cnb-panel:not([hidden]) .cnb-charts[data-rendered='1']", timeout=30_000)
        assert page.locator(".cnb-panel:not([hidden]) .cnb-chart").count() == 2
        widget.screenshot(path=shot("memory"))
        assert not page.blocked, page.blocked

        # the selection reached the kernel: re-run the last cell and read it there
        cell = page.locator(".jp-Notebook .jp-Cell").nth(3)
        cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        page.wait_for_function(
            "() => { const c = document.querySelectorAll('.jp-Notebook .jp-Cell')[3];"
            " const m = c && c.innerText.match(/SELECTED (-?\\d+) DRAWS (\\d+)/); return m && Number(m[1]) >= 0 && Number(m[2]) > 0; }",
            timeout=30_000)
        assert not page.dialogs
        page.screenshot(path=shot("page"), full_page=True)
    except Exception:
        page.screenshot(path=shot("failure"), full_page=True)
        raise
    finally:
        ctx.close()


def test_cann_compare_shows_the_diff_view_linked_to_both_timelines(browser, lab):
    """%cann_compare's result displays as the diff view; clicking an op highlights it in both timelines."""
    url, root = lab
    _restart_clean(url)
    ctx, page = new_page(browser, allow=("file:", "data:", "blob:", url), viewport=(1400, 1000))
    try:
        page.goto(url + "/lab/tree/compare.ipynb?reset")
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        _wait_kernel(page, url, "compare.ipynb")
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        page.wait_for_selector(".cnb-diff .cnb-delta-row", timeout=120_000)
        draws = "() => [...document.querySelectorAll('.cnb-diff .cnb-timeline')].map(t => Number(t.dataset.draws || 0))"
        page.wait_for_function(f"() => {{ const d = ({draws})(); return d.length === 2 && d.every(x => x >= 1); }}",
                               timeout=30_000)
        head = page.inner_text(".cnb-diff-head")
        assert "before" in head and "after" in head and "%" in head
        # an op both profiles ran (not added/removed): it must light up in both timelines
        row = page.locator(".cnb-delta-row:not([data-status=added]):not([data-status=removed])").first
        name = row.get_attribute("data-name")
        row.click()
        page.wait_for_function("() => [...document.querySelectorAll('.cnb-diff .cnb-timeline')]"
                               ".every(t => Number(t.dataset.highlight || 0) > 0)", timeout=10_000)
        page.locator(".cnb-diff").first.screenshot(path=str(ARTIFACTS / "lab_compare.png"))
        assert name and not page.blocked, page.blocked
    except Exception:
        page.screenshot(path=str(ARTIFACTS / "lab_compare_failure.png"), full_page=True)
        raise
    finally:
        ctx.close()


def test_a_profiled_cell_shows_one_summary_once_its_view_renders(browser, lab):
    """The static summary (an output of its own, for exports) is hidden by the view once it renders."""
    url, root = lab
    _restart_clean(url)
    ctx, page = new_page(browser, allow=("file:", "data:", "blob:", url), viewport=(1400, 1000))
    try:
        page.goto(url + "/lab/tree/shown.ipynb?reset")
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        _wait_kernel(page, url, "shown.ipynb")
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        page.wait_for_selector(".cnb-root[data-ready='1']", timeout=120_000)
        summary = page.locator("[data-cnb-summary]")
        assert summary.count() == 1                      # it was displayed ...
        summary.wait_for(state="hidden", timeout=10_000)  # ... and the rendered view hid it
        assert page.locator(".cnb-root[data-ready='1']").count() == 1
        assert "cann_nb profile 'shown'" not in page.inner_text(".jp-Notebook")
        page.locator(".jp-Notebook .jp-Cell").nth(1).screenshot(path=str(ARTIFACTS / "lab_one_summary.png"))
        assert not page.blocked, page.blocked
    except Exception:
        page.screenshot(path=str(ARTIFACTS / "lab_one_summary_failure.png"), full_page=True)
        raise
    finally:
        ctx.close()
