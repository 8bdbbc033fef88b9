"""Fixtures shared by the front ends' tests."""

import pytest
from IPython.core.interactiveshell import InteractiveShell


@pytest.fixture
def ip(tmp_path, monkeypatch):
    monkeypatch.setenv("CANN_NB_DIR", str(tmp_path / "store"))
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "cann_nb")
    yield shell
    shell.run_line_magic("unload_ext", "cann_nb")
