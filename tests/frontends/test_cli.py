"""python -m cann_nb run / list, as a CI system calls them (real subprocesses)."""

from __future__ import annotations

import os
import subprocess
import sys

import cann_nb


def cli(*args, cwd=None, env=None):
    full_env = {**os.environ, "KINETO_LOG_LEVEL": "99", **(env or {})}
    return subprocess.run([sys.executable, "-m", "cann_nb", *args], capture_output=True, text=True,
                          cwd=cwd, env=full_env, timeout=300)


def test_run_profiles_a_numpy_script_and_stores_it(tmp_path):
    script = tmp_path / "work.py"
    script.write_text("import sys\nimport numpy as np\n"
                      "n = int(sys.argv[1])\n"
                      "a = np.random.default_rng(0).standard_normal((n, n))\n"
                      "for _ in range(3):\n    np.linalg.svd(a)\n"
                      "print('done', sys.argv[1:])\n")
    out = tmp_path / "results"
    r = cli("run", str(script), "--output", str(out), "--name", "svd", "200", "--", "--flag-for-script")
    assert r.returncode == 0, r.stderr
    assert "done ['200', '--flag-for-script']" in r.stdout          # the script got its own arguments
    assert "cann_nb profile 'svd': ok" in r.stdout
    p = cann_nb.load_session(out)["svd"]
    assert p.meta["source"]["kind"] == "script"
    names = set(p.events["name"].astype(str))
    assert any("svd" in n for n in names), sorted(names)[:30]
    listing = cli("list", str(out))
    assert listing.returncode == 0 and "svd" in listing.stdout


def test_failing_script_is_stored_and_exits_1(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text("x = 1\nraise RuntimeError('model exploded')\n")
    r = cli("run", str(script), "--output", str(tmp_path / "o"), "--collectors", "host")
    assert r.returncode == 1
    assert "RuntimeError: model exploded" in r.stderr
    p = cann_nb.load_session(tmp_path / "o")["bad"]
    assert p.status == "failed" and "model exploded" in p.meta["error"]


def test_script_exit_code_is_passed_through(tmp_path):
    script = tmp_path / "exits.py"
    script.write_text("import sys\nsys.exit(3)\n")
    r = cli("run", str(script), "--output", str(tmp_path / "o"), "--collectors", "host", "--quiet")
    assert r.returncode == 3


def test_bad_input_exits_2_with_a_clear_message(tmp_path):
    assert cli("run", str(tmp_path / "missing.py")).returncode == 2
    script = tmp_path / "ok.py"
    script.write_text("pass\n")
    r = cli("run", str(script), "--repeat", "0")
    assert r.returncode == 2 and "--repeat" in r.stderr
    r = cli("run", str(script), "--collectors", "gpu")
    assert r.returncode == 2 and "unknown collector" in r.stderr
    r = cli("frobnicate")
    assert r.returncode == 2


def test_help_for_every_command():
    for args in (["--help"], ["run", "--help"], ["list", "--help"]):
        r = cli(*args)
        assert r.returncode == 0 and "usage" in r.stdout.lower()


def test_console_script_is_installed():
    import shutil

    exe = shutil.which("cann-nb") or os.path.join(os.path.dirname(sys.executable), "cann-nb")
    r = subprocess.run([exe, "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and "cann_nb" in r.stdout
