"""The wheel carries the built bundle (gitignored, shipped as a hatch artifact)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from cann_nb.widgets import bundle_available

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_contains_the_widget_bundle(tmp_path):
    if not bundle_available():
        pytest.skip("bundle not built (npm run build); the build hook would need npm")
    from hatchling.builders.wheel import WheelBuilder

    wheels = list(WheelBuilder(str(ROOT)).build(directory=str(tmp_path), versions=["standard"]))
    assert len(wheels) == 1
    names = zipfile.ZipFile(wheels[0]).namelist()
    assert "cann_nb/static/widget.js" in names
    assert "cann_nb/widgets/views.py" in names
    assert not any("node_modules" in n for n in names)
    size = zipfile.ZipFile(wheels[0]).getinfo("cann_nb/static/widget.js").file_size
    assert size == (ROOT / "cann_nb" / "static" / "widget.js").stat().st_size
