"""What a new user types at the command line (issue 15): CANN Profiler's ``run --model SCRIPT`` form,
unknown and misspelt options, help text, and what ``run``/``import``/``list`` say when the store
cannot take a profile (exit 3), is interrupted (130) or needs repair."""

from __future__ import annotations

import errno
import re
import json
import shutil

import pytest

import cann_nb
import cann_nb.store as store_mod
from cann_nb.frontends import cli
from cann_nb.store import Session

from ..synth_steps import stepped

ARGV_SCRIPT = "import json, sys\nopen(__file__ + '.argv', 'w').write(json.dumps(sys.argv[1:]))\n"


def run_cli(capsys, *args):
    code = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def script(tmp_path):
    s = tmp_path / "my_model.py"
    s.write_text(ARGV_SCRIPT)
    return s


def script_argv(script):
    marker = script.with_name(script.name + ".argv")
    return json.loads(marker.read_text()) if marker.exists() else None


def test_run_takes_cann_profilers_model_form(capsys, script, tmp_path):
    code, out, err = run_cli(capsys, "run", "--model", script, "--output", tmp_path / "profile_results",
                             "--collectors", "host")
    assert code == 0, err
    assert script_argv(script) == []                        # --model was not passed on to the script
    assert "my_model" in Session(tmp_path / "profile_results")
    # what follows the script is the script's, with either form
    assert run_cli(capsys, "run", "--model", script, "-o", tmp_path / "o", "--collectors", "host", "--quiet",
                   "--epochs", "2")[0] == 0
    assert script_argv(script) == ["--epochs", "2"]
    assert run_cli(capsys, "run", script, "-o", tmp_path / "o", "--collectors", "host", "--quiet",
                   "--model", "resnet50", "--output-dir", "x")[0] == 0
    assert script_argv(script) == ["--model", "resnet50", "--output-dir", "x"]   # a script's own --model


def test_unknown_options_before_the_script_are_errors_with_a_suggestion(capsys, script, tmp_path):
    code, _, err = run_cli(capsys, "run", "--ouput", tmp_path / "o", script)
    assert code == 2 and "before the script: --ouput (did you mean --output?)" in err
    code, _, err = run_cli(capsys, "run", "--epochs", "3", script)
    assert code == 2 and "before the script: --epochs" in err
    assert script_argv(script) is None                      # nothing ran
    code, _, err = run_cli(capsys, "run")
    assert code == 2 and "--model SCRIPT" in err


def test_a_misspelt_option_of_cann_nb_after_the_script_is_an_error(capsys, script, tmp_path):
    code, _, err = run_cli(capsys, "run", script, "--ouput", tmp_path / "o", "--collectors", "host")
    assert code == 2 and "--ouput: did you mean --output?" in err and "'--'" in err
    assert script_argv(script) is None
    # through '--' it is the script's
    assert run_cli(capsys, "run", script, "-o", tmp_path / "o", "--collectors", "host", "--quiet", "--",
                   "--ouput", "x")[0] == 0
    assert script_argv(script) == ["--ouput", "x"]


def test_other_commands_suggest_the_option_meant(capsys, tmp_path):
    code, _, err = run_cli(capsys, "compare", "a", "b", "--jsno")
    assert code == 2 and "unrecognized arguments: --jsno (did you mean --json?)" in err


def test_help_texts_show_the_magic_as_it_is_typed(capsys):
    for cmd in ("run", "import", "list", "analyze", "compare", "check", "report", "monitor-report"):
        code, out, _ = run_cli(capsys, cmd, "--help")
        assert code == 0 and "%%%%" not in out.replace("\n", " "), cmd
    assert "%%cann_profile" in run_cli(capsys, "run", "--help")[1]


def test_run_that_cannot_store_prints_the_summary_and_where_the_profile_went(capsys, script, tmp_path, monkeypatch):
    target = tmp_path / "store"
    real_write = store_mod.write_profile_dir

    def full_disk(profile, directory, meta=None):
        if str(directory).startswith(str(target)):
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(profile, directory, meta)

    monkeypatch.setattr(store_mod, "write_profile_dir", full_disk)
    code, out, err = run_cli(capsys, "run", script, "-o", target, "-n", "full", "--collectors", "host")
    assert code == cli.STORE_FAILED == 3                    # not bad input (2), not the script's code
    assert "cann_nb profile 'full': ok" in out and "stored:" not in out
    assert err.count("No space left on device") == 1 and "written to" in err
    fallback = err.split("written to ")[1].split(" instead")[0]
    assert cann_nb.load(fallback).name == "full"
    assert "full" not in Session(target)
    shutil.rmtree(fallback, ignore_errors=True)


def test_ctrl_c_while_storing_is_one_line(capsys, script, tmp_path, monkeypatch):
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(store_mod, "write_profile_dir", interrupted)
    code, _, err = run_cli(capsys, "run", script, "-o", tmp_path / "s", "--collectors", "host", "--quiet")
    assert code == 130 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "interrupted" in err


def test_import_says_stored_once_with_the_version_of_a_reused_name(capsys, tmp_path):
    src = Session(tmp_path / "src")
    src.add(stepped({"aten::mm": 1_000_000}, name="trace"))
    for version in (1, 2):
        code, out, _ = run_cli(capsys, "import", src.path("trace"), "-o", tmp_path / "dst", "-n", "nightly")
        assert code == 0 and out.count("stored:") == 1
        assert ("(version 2)" in out) == (version == 2)


def test_import_that_cannot_store_exits_3(capsys, tmp_path, monkeypatch):
    src = Session(tmp_path / "src")
    src.add(stepped({"aten::mm": 1_000_000}, name="trace"))

    def denied(*a, **k):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(store_mod, "write_profile_dir", denied)
    code, _, err = run_cli(capsys, "import", src.path("trace"), "-o", tmp_path / "dst")
    assert code == 3 and "Permission denied" in err


def test_list_repair_says_what_it_repaired(capsys, tmp_path):
    s = Session(tmp_path / "s")
    s.add(stepped({"aten::mm": 1_000_000}, name="nightly"))
    s.path("nightly").rename(s.root / "nightly@1")          # a write killed between its two renames
    code, out, err = run_cli(capsys, "list", s.root, "--repair")
    assert code == 0 and "repaired 1 thing" in out and "restored nightly@1 as nightly" in err
    assert s.path("nightly").is_dir() and not (s.root / "nightly@1").exists()
    code, out, _ = run_cli(capsys, "list", s.root, "--repair")
    assert "nothing to repair" in out


def test_list_shows_times_as_times_and_ranks_only_for_groups(capsys, tmp_path):
    s = Session(tmp_path / "s")
    s.add(stepped({"aten::mm": 1_000_000}, name="one", steps=3))
    code, out, _ = run_cli(capsys, "list", s.root)
    header, row = out.splitlines()[:2]
    assert code == 0 and "NaN" not in out and "<NA>" not in out
    assert "ranks" not in header and re.search(r"\d+\.\d{3} ms", row) and "wall_ms" not in header
    s.add_group("pair", {0: stepped({"x": 1_000}, name="r0"), 1: stepped({"x": 1_000}, name="r1")})
    out = run_cli(capsys, "list", s.root)[1]
    assert "ranks" in out.splitlines()[0] and "NaN" not in out


def test_analyze_on_a_group_says_to_analyze_one_rank(capsys, tmp_path):
    s = Session(tmp_path / "s")
    s.add_group("pair", {0: stepped({"x": 1_000}, name="r0"), 1: stepped({"x": 1_000}, name="r1")})
    code, _, err = run_cli(capsys, "analyze", "pair", "--store", s.root)
    assert code == 2 and "`cann-nb analyze pair/rank=0`" in err and "compare" not in err
