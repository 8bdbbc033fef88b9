"""A notebook executed as the quickstart does (nbclient, which saves widget state), exported with
`jupyter nbconvert --to html` and opened offline in Chromium shows each profiled cell's summary.

With widget state saved, nbconvert renders a widget output's widget mime instead of its text/html, and
that widget needs the widget manager from a CDN: offline it shows nothing. So the static summary has
to be an output of its own (widgets/display.py)."""

from __future__ import annotations

import re
import subprocess
import sys

import nbformat
import pytest
from nbclient import NotebookClient

from .conftest import ARTIFACTS, new_page

pytestmark = pytest.mark.slow

CELLS = [
    "%load_ext cann_nb",
    "%%cann_profile -n first --collectors python,host\n"
    "def work(n):\n    return sum(i * i for i in range(n))\nfor _ in range(20):\n    work(2000)",
    "%%cann_profile -n second --collectors host\nsorted(range(50_000), key=lambda i: -i)[:3]",
]
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def test_exported_notebook_with_widget_state_shows_every_summary_offline(browser, tmp_path, monkeypatch):
    monkeypatch.setenv("CANN_NB_DIR", str(tmp_path / "profiles"))
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors, errors
    # the case that broke: the views' models are in the saved widget state
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    views = [o["data"]["application/vnd.jupyter.widget-view+json"]["model_id"] for c in nb.cells[1:]
             for o in c.outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert len(views) == 2 and all(v in state for v in views), (views, list(state)[:5])
    src = tmp_path / "exported.ipynb"
    nbformat.write(nb, src)
    subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", str(src)], check=True,
                   capture_output=True, timeout=120)
    html = tmp_path / "exported.html"

    ctx, page = new_page(browser)       # file: only: the CDN the widget manager wants is blocked
    try:
        page.goto(html.as_uri())
        page.wait_for_load_state("load")
        text = page.inner_text("body")  # what a reader sees (hidden elements have no innerText)
        page.screenshot(path=str(ARTIFACTS / "exported_notebook.png"), full_page=True)
    finally:
        ctx.close()
    for name in ("first", "second"):
        assert re.search(rf"cann_nb profile '{name}'\s+ok · [\d.]+ \w+ wall · [\d,]+ events", text), text[:3000]
    assert "top ops by self time" not in text and "share" in text    # the HTML table, not the text/plain
