"""An executed notebook exported with nbconvert keeps a readable static view of the profile (the
text/html fallback beside the widget), and ``%cann_report`` in a real kernel writes the report.

The notebook is saved without widget state here, as VS Code saves by default: nbconvert then renders
each output's text/html. With widget state saved (nbclient, JupyterLab), nbconvert renders a widget
output's widget view instead, which needs a CDN; the profiled cell's summary is therefore an output of
its own: tests/browser/test_exported_notebook.py exports such a notebook and reads it offline."""

from __future__ import annotations

import re
from html import unescape

import nbformat
import pytest
from nbclient import NotebookClient

nbconvert = pytest.importorskip("nbconvert", reason="nbconvert is needed for the HTML export (pip install nbconvert)")

CELLS = [
    "%load_ext cann_nb",
    "%%cann_profile -n nb_demo --collectors python,host\n"
    "def work(n):\n    return sum(i * i for i in range(n))\n"
    "for _ in range(30):\n    work(2000)",
    "%cann_report nb_demo -o nb_report.html --title 'from a notebook'",
]


def test_html_export_keeps_a_static_view_and_the_magic_writes_a_report(tmp_path, monkeypatch):
    monkeypatch.setenv("CANN_NB_DIR", str(tmp_path / "profiles"))
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    NotebookClient(nb, timeout=300, kernel_name="python3", store_widget_state=False,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors, errors
    profile_out = [o for o in nb.cells[1].outputs if o.output_type == "display_data"]
    assert profile_out and {"text/plain", "text/html"} <= set(profile_out[0]["data"])
    html, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    (tmp_path / "exported.html").write_text(html, encoding="utf-8")
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))
    # the static summary: the profile's name, status, wall time, and its top ops table
    assert re.search(r"cann_nb profile 'nb_demo' ok · [\d.]+ \w+ wall · [\d,]+ events", text), text[:2000]
    assert "work" in text and "self" in text and "share" in text
    # the report written by the magic, in the notebook's directory
    report = tmp_path / "nb_report.html"
    assert report.is_file() and report.stat().st_size > 100_000
    assert "from a notebook" in report.read_text(encoding="utf-8")
    stream = "".join(o.get("text", "") for o in nb.cells[2].outputs if o.output_type == "stream")
    assert "written to nb_report.html" in stream
