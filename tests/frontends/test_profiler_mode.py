"""$PROFILER_MODE (the CANN Profiler's switch) sets the same options in the magic, the CLI and the API."""

import argparse

import pytest

from cann_nb.collect import flags


def parse(argv):
    p = argparse.ArgumentParser()
    for names, kwargs in flags.PROFILE_FLAGS:
        p.add_argument(*names, **kwargs)
    args = p.parse_args(argv)
    flags.check(args)
    return flags.options(args)


def on(o):
    return (o.memory, o.shapes, o.stack, o.flops)


def test_flags_follow_the_mode(monkeypatch):
    monkeypatch.delenv("PROFILER_MODE", raising=False)
    assert on(parse([])) == (True, True, False, False)          # the defaults
    monkeypatch.setenv("PROFILER_MODE", "basic")
    assert on(parse([])) == (False, False, False, False)
    assert on(parse(["--shapes"])) == (False, True, False, False)   # an explicit flag wins
    monkeypatch.setenv("PROFILER_MODE", "detailed")
    assert on(parse([])) == (True, True, True, True)
    assert on(parse(["--no-shapes"])) == (True, False, True, False)


def test_unknown_mode_is_a_flag_error(monkeypatch):
    monkeypatch.setenv("PROFILER_MODE", "turbo")
    with pytest.raises(flags.FlagError, match="PROFILER_MODE"):
        parse([])


def test_api_and_flags_agree(monkeypatch, tmp_path):
    from cann_nb.frontends.api import Profiler

    for mode in ("basic", "detailed", ""):
        monkeypatch.setenv("PROFILER_MODE", mode)
        assert on(Profiler(output_path=tmp_path).options) == on(parse([]))


def test_magic_reads_the_mode(monkeypatch, tmp_path):
    from IPython.core.interactiveshell import InteractiveShell

    import cann_nb

    monkeypatch.setenv("CANN_NB_DIR", str(tmp_path / "store"))
    monkeypatch.setenv("PROFILER_MODE", "basic")
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "cann_nb")
    try:
        shell.run_cell("%%cann_profile -n light --collectors host --no-display\nx = 1", store_history=True)
    finally:
        shell.run_line_magic("unload_ext", "cann_nb")
    opts = cann_nb.load_session(tmp_path / "store")["light"].meta["options"]
    assert (opts["memory"], opts["shapes"], opts["stack"], opts["flops"]) == (False, False, False, False)


def test_cli_run_reads_the_mode(monkeypatch, tmp_path):
    import json
    import subprocess
    import sys

    script = tmp_path / "s.py"
    script.write_text("x = sum(range(10))\n")
    env = dict(__import__("os").environ, PROFILER_MODE="basic")
    r = subprocess.run([sys.executable, "-m", "cann_nb", "run", str(script), "-o", str(tmp_path / "st"),
                        "--collectors", "host"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    meta = json.loads((tmp_path / "st" / "s" / "meta.json").read_text())
    assert meta["options"]["shapes"] is False and meta["options"]["memory"] is False
