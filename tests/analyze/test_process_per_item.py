"""process_per_item on real Python-tracer profiles: a loop starting a program per item is found, with the
fastest launch as the overhead floor; the same items handled in-process are not."""

from __future__ import annotations

import shutil

import pytest

from .test_python_loops import profile_script
from .test_work_order_rules import found

TRUE = shutil.which("true")
pytestmark = pytest.mark.skipif(TRUE is None, reason="no `true` program on this machine")

SRC = """
    import hashlib
    import subprocess

    items = [f"item {i}".encode() for i in range(40)]

    def digest(data):
        {body}

    result = float(sum(int(digest(d)[:6], 16) for d in items))
"""
LAUNCH = 'subprocess.run(["{true}"], check=True)\n        return hashlib.sha256(data).hexdigest()'
IN_PROCESS = "return hashlib.sha256(data).hexdigest()"


def test_a_program_started_per_item_is_found(tmp_path):
    prof = profile_script(tmp_path, SRC.replace("{body}", LAUNCH.replace("{true}", TRUE)), "launch")
    (f,) = found(prof, "process_per_item")
    ev = f.evidence
    assert f.category == "idle" and ev["launches"] == 40 and ev["called"] == "subprocess.run"
    assert 0 < ev["floor_ns"] <= ev["typical_ns"] and 0 < f.est_gain_ns <= ev["time_ns"]
    assert "in-process" in f.suggestion


def test_the_same_work_in_process_is_not(tmp_path):
    assert found(profile_script(tmp_path, SRC.replace("{body}", IN_PROCESS), "inproc"), "process_per_item") == []
