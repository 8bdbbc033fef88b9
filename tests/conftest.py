"""Shared fixtures. Real sample data lives outside the repository (see DESIGN.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("KINETO_LOG_LEVEL", "99")


def real_data_dir() -> Path:
    return Path(os.environ.get("CANN_NB_REAL_DATA") or ROOT.parent / "shared" / "data" / "real")


@pytest.fixture(scope="session")
def real_data() -> Path:
    """The shared real profiler outputs; under CI=true their absence is a failure, not a skip."""
    path = real_data_dir()
    if not path.is_dir():
        msg = f"real sample data not found at {path} (set CANN_NB_REAL_DATA)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return path


ASCEND_L1 = "msinsight/test/data/pytorch/text/level1"   # torch_npu level-1 text output, two ranks


@pytest.fixture(scope="session")
def ascend(real_data):
    """Ranks 0 and 1 of the real Ascend level-1 sample, imported once for every test that shows them."""
    from cann_nb.ingest.ascend import read_ascend

    path = real_data / ASCEND_L1
    return read_ascend(path / "rank0_ascend_pt"), read_ascend(path / "rank1_ascend_pt")


def pytest_terminal_summary(terminalreporter):
    """The machine's measured recorder costs (collect/overhead.py's cache) at the end of the run: the loop
    rules' estimates lean on them, so a failure on another machine can be read against its figures."""
    from cann_nb.collect.environment import read_cache
    from cann_nb.collect.overhead import CACHE_FILE

    for key, fig in read_cache(CACHE_FILE).items():
        if isinstance(fig, dict):
            shown = {k: round(v, 2) if isinstance(v, float) else v for k, v in fig.items()
                     if k not in ("method", "per", "date")}
            terminalreporter.write_line(f"recorder cost [{key}]: {shown}")
