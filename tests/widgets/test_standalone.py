"""The offline page and the bundle: no network references, escaping of hostile text."""

from __future__ import annotations

import re
import subprocess
import shutil
import os
from pathlib import Path

import pytest

from cann_nb.widgets import TimelineView, _bundle
from cann_nb.widgets.standalone import script_json, standalone_html, widget_state

from .synth import HOSTILE, synthetic_findings, synthetic_profile

ROOT = Path(__file__).resolve().parents[2]


def test_state_json_and_page_are_inert():
    prof = synthetic_profile(2_000)
    v = TimelineView(prof)
    state = widget_state(v)
    assert isinstance(state["timeline"]["cols"]["start"]["z"], str)  # base64
    page = standalone_html(v)
    assert "Content-Security-Policy" in page
    assert HOSTILE not in page  # only as \u003cimg ... inside JSON
    assert "\\u003cimg src=x onerror=alert(1)\\u003e" in page
    assert "</script><b>" not in script_json({"x": "</script><b>x</b>"})


@pytest.mark.skipif(not _bundle.bundle_available(), reason="bundle not built (npm run build)")
def test_bundle_has_no_network_or_html_sinks():
    code = _bundle.BUNDLE.read_text()
    assert not re.findall(r"https?://", code)
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
        assert sink not in code, sink
    for path in (ROOT / "js").glob("*.js"):
        src = path.read_text()
        assert not re.search(r"\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write", src), path


def test_js_unit_tests():
    """node's test runner over js/test (LOD merging, hit testing, call tree)."""
    node = shutil.which("node")
    if not node:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("node is required for the JS unit tests")
        pytest.skip("node not installed")
    r = subprocess.run([node, "--test", "js/test/"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert re.search(r"# fail 0", r.stdout)
