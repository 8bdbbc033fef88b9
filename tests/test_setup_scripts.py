"""The README's commands work for a normal user: `.ci/browsers` (called by `.ci/setup`, which the
quickstart runs) installs the browsers only as root or with passwordless sudo, and otherwise says how
to get them and succeeds (before, it ran apt-get as any user and `set -e` stopped the quickstart)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def fake_system(tmp_path: Path, uid: int, sudo: bool) -> Path:
    """A PATH with no browsers: ``id`` says ``uid``, ``apt-get`` records its calls (and fails for a
    normal user, as the real one does), ``sudo -n`` works only when ``sudo``."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    log = tmp_path / "apt.log"
    scripts = {
        "id": f"echo {uid}",
        "apt-get": f'echo "$*" >> {log}\n[ "${{FAKE_ROOT:-{uid}}}" = 0 ] || '
                   '{ echo "E: Could not open lock file /var/lib/apt/lists/lock" >&2; exit 100; }',
    }
    if sudo:
        scripts["sudo"] = '[ "$1" = -n ] && shift; FAKE_ROOT=0 "$@"'
    for name, body in scripts.items():
        (bin_ / name).write_text("#!/bin/bash\n" + body + "\n")
        (bin_ / name).chmod(0o755)
    os.symlink(shutil.which("env"), bin_ / "env")
    return bin_


def browsers(tmp_path, uid: int, sudo: bool = False):
    bin_ = fake_system(tmp_path, uid, sudo)
    r = subprocess.run(["/bin/bash", str(ROOT / ".ci" / "browsers")], capture_output=True, text=True,
                       env={"PATH": str(bin_), "HOME": str(tmp_path)}, timeout=60)
    log = tmp_path / "apt.log"
    return r, log.read_text().splitlines() if log.exists() else []


def test_a_normal_user_is_told_how_to_get_the_browsers_and_set_up_goes_on(tmp_path):
    r, apt = browsers(tmp_path, uid=1000)
    assert r.returncode == 0, r.stderr
    assert apt == []                                                  # apt-get never ran without root
    assert "sudo apt-get install chromium firefox-esr" in r.stdout and "tests/browser" in r.stdout


def test_root_or_passwordless_sudo_installs_them(tmp_path):
    for uid, sudo, where in ((0, False, "root"), (1000, True, "sudo")):
        (tmp_path / where).mkdir()
        r, apt = browsers(tmp_path / where, uid=uid, sudo=sudo)
        assert r.returncode == 0, r.stderr
        assert apt[0] == "update -qq" and any(line.endswith("install -y -qq chromium") for line in apt), apt
        assert any(line.endswith("install -y -qq firefox-esr") for line in apt), apt


def test_setup_calls_it_and_the_quickstart_needs_no_browser():
    setup = (ROOT / ".ci" / "setup").read_text()
    assert "bash .ci/browsers" in setup and "apt-get" not in setup
    assert "chromium" not in (ROOT / ".ci" / "quickstart").read_text()
