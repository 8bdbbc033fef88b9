"""cann-nb analyze / compare / check / report / run --skip-steps: outputs and exit codes.

Most cases call ``cli.main`` in-process (fast); a few run the real console entry point as CI would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

import cann_nb
from cann_nb.frontends import cli
from cann_nb.store import Session

from ..synth_steps import empty, stepped

OPS = {"aten::mm": 10_000_000, "aten::add": 2_000_000}


def run_cli(capsys, *args):
    code = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def proc(*args, cwd=None):
    env = {**os.environ, "KINETO_LOG_LEVEL": "99"}
    return subprocess.run([sys.executable, "-m", "cann_nb", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


@pytest.fixture
def store(tmp_path):
    s = Session(tmp_path / "store")
    s.add(stepped(OPS, name="base", steps=6, memory_peak=100e6))
    s.add(stepped({**OPS, "aten::mm": 30_000_000}, name="slow", steps=6, seed=1, memory_peak=300e6))
    s.add(stepped({"other": 5_000_000}, name="unrelated", steps=6, seed=2))
    s.add(empty("nothing"))
    return tmp_path / "store"


def test_help_for_every_command(capsys):
    for cmd in ("run", "import", "list", "analyze", "compare", "check", "report"):
        code, out, _ = run_cli(capsys, cmd, "--help")
        assert code == 0 and "usage: cann-nb " + cmd in out, cmd
    code, out, _ = run_cli(capsys, "check", "--help")
    assert "kB = 1000 B" in out and "KiB" in out and "Welch" in out and "exit" in out.lower()
    code, out, _ = run_cli(capsys, "compare", "--help")
    assert "delta = B - A" in out


def test_analyze_text_and_json(store, capsys):
    code, out, _ = run_cli(capsys, "analyze", store / "slow")
    assert code == 0 and "cann_nb profile 'slow'" in out and "findings" in out
    code, out, _ = run_cli(capsys, "analyze", "slow", "--store", store, "--json")
    d = json.loads(out)
    assert code == 0 and set(d) >= {"profile", "summary", "hotspots", "findings"}
    assert set(d["summary"]) >= {"wall_ns", "devices", "peak_memory_bytes", "efficiency"}
    assert set(d["hotspots"][0]) == {"name", "cat", "count", "total_ns", "self_ns", "share_pct", "flops", "bytes",
                                     "flops_per_s", "bytes_per_s", "intensity", "bound", "efficiency_time_ns"}
    code, _, err = run_cli(capsys, "analyze", "missing", "--store", store)
    assert code == 2 and "no profile 'missing'" in err


def test_compare_text_and_json(store, capsys):
    code, out, _ = run_cli(capsys, "compare", store / "base", store / "slow")
    assert code == 0 and "cann_nb compare 'base' -> 'slow'" in out and "slower (1)" in out
    assert "+200." in out or "+19" in out or "+20" in out             # +200 % on aten::mm
    code, out, _ = run_cli(capsys, "compare", "base", "slow", "--store", store, "--json", "--no-findings")
    d = json.loads(out)
    mm = next(r for r in d["ops"] if r["name"] == "aten::mm")
    assert mm["bucket"] == "slower" and mm["delta_pct"] == pytest.approx(200, abs=8) and mm["p_value"] < 1e-4
    assert d["e2e"]["verdict"] == "slower" and d["direction"].startswith("delta = new - base")
    code, out, _ = run_cli(capsys, "compare", "base", "unrelated", "--store", store, "--no-findings")
    assert code == 0 and "no op in common" in out
    code, out, _ = run_cli(capsys, "compare", "nothing", "base", "--store", store, "--no-findings")
    assert code == 0 and "no events" in out


def test_compare_bad_input(store, capsys):
    assert run_cli(capsys, "compare", "base")[0] == 2                                  # argparse: missing B
    code, _, err = run_cli(capsys, "compare", "base", "nope", "--store", store)
    assert code == 2 and "no profile 'nope'" in err
    code, _, err = run_cli(capsys, "compare", "base", "slow", "--store", store, "--min-effect", "5ms")
    assert code == 2 and "'ms' is a time unit" in err
    assert run_cli(capsys, "compare", "base", "slow", "--store", store, "--alpha", "2")[0] == 2
    assert run_cli(capsys, "compare", "base", "slow", "--store", store, "--test", "t")[0] == 2


def test_check_exit_codes_and_outputs(store, tmp_path, capsys):
    code, out, _ = run_cli(capsys, "check", "--threshold", "100ms", "--file", store / "slow")
    assert code == 1 and "BREACH" in out and out.rstrip().endswith("-> exit 1")
    code, out, _ = run_cli(capsys, "check", "--threshold", "1s", "--file", store / "base", "--metric", "step_p99")
    assert code == 0 and "step_p99" in out
    junit = tmp_path / "junit.xml"
    code, out, _ = run_cli(capsys, "check", "-f", store / "slow", "-b", store / "base", "--max-regression", "10%",
                           "--max-memory", "200MB", "--json", "--junit", junit)
    d = json.loads(out)
    assert code == 1 and d["breaches"] == 2 and d["exit_code"] == 1
    assert ET.parse(junit).getroot().find("testsuite").get("failures") == "2"
    # names in the store: --file NAME, --baseline NAME@k (--store DIR; default $CANN_NB_DIR)
    Session(store).add(stepped({**OPS, "aten::mm": 30_000_000}, name="base", steps=6, seed=9))   # base@1, base
    code, out, _ = run_cli(capsys, "check", "--file", "base", "--baseline", "base@1", "--max-regression", "10%",
                           "--store", store, "--json")
    d = json.loads(out)
    assert code == 1 and d["settings"]["profiles"] == ["base"] and d["results"][0]["breach"]
    code, _, err = run_cli(capsys, "check", "--file", "base", "--baseline", "nightly@1", "--max-regression", "10%",
                           "--store", store)
    assert code == 2 and "no profile 'nightly@1'" in err and "base@1" in err and str(store) in err


@pytest.mark.parametrize("args, message", [
    (["--threshold", "200", "--file", "{s}/base"], "missing unit"),
    (["--threshold", "200mss", "--file", "{s}/base"], "unknown unit 'mss'"),
    (["--threshold", "2GB", "--file", "{s}/base"], "'GB' is a size unit"),
    (["--threshold", "1s", "--file", "{s}/missing"], "missing': not a file or folder"),
    (["--threshold", "1s", "--file", "{s}/nothing"], "is empty"),
    (["--threshold", "1s", "--file", "{s}/base", "--metric", "step_p50x"], "unknown metric 'step_p50x'"),
    (["--threshold", "1s", "--file", "{s}/base", "--metric", "op:nope"], "no op named 'nope'"),
    (["--file", "{s}/base"], "nothing to check"),
    (["--file", "{s}/base", "--baseline", "{s}/slow"], "needs --max-regression"),
    (["--file", "{s}/base", "--max-regression", "10%", "--threshold", "1s"], "needs --baseline"),
    (["--file", "{s}/base", "--baseline", "{s}/slow", "--max-regression", "ten"], "'ten' is not a number"),
    (["--file", "{s}/base", "--max-memory", "2 gigs"], "unknown unit 'gigs'"),
    (["--file", "{s}/base", "--threshold", "1s", "--alpha", "1.5"], "--alpha"),
    (["--threshold", "1s"], "required: --file"),
    (["--file", "{s}/base", "--threshold", "1s", "--bogus"], "unrecognized arguments: --bogus"),
])
def test_check_bad_input_exits_2_naming_the_problem(store, capsys, args, message):
    code, out, err = run_cli(capsys, "check", *[a.format(s=store) for a in args])
    assert code == 2 and message in err, (out, err)


def test_report_writes_a_file_and_accepts_against(store, capsys, monkeypatch, tmp_path):
    code, out, _ = run_cli(capsys, "report", store / "base", "-o", tmp_path / "r.html")
    assert code == 0 and (tmp_path / "r.html").is_file() and "r.html" in out
    import cann_nb.report as report

    seen = []
    monkeypatch.setattr(report, "write_report", lambda subject, path, **kw: seen.append((subject, path, kw)) or path)
    assert run_cli(capsys, "report", store / "slow", "-o", tmp_path / "a.html")[0] == 0
    for flag in ("--against", "--baseline"):
        assert run_cli(capsys, "report", "slow", "--store", store, flag, "base", "-o", tmp_path / "b.html")[0] == 0
    assert seen[0][0].name == "slow" and seen[0][2]["against"] is None
    assert seen[1][0].name == "slow" and seen[1][2]["against"].name == "base"
    assert seen[2][2]["against"].name == "base"


def test_run_with_step_marks_and_skip_steps(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import time\nimport cann_nb\n"
                      "for i in range(6):\n"
                      "    cann_nb.step()\n"
                      "    time.sleep(0.30 if i < 2 else 0.02)\n")
    r = proc("run", script, "-o", tmp_path / "out", "-n", "train", "--collectors", "python,host",
             "--skip-steps", "2", "--quiet")
    assert r.returncode == 0, r.stderr
    p = cann_nb.load_session(tmp_path / "out")["train"]
    steps = p.events[p.events["cat"] == "step"].sort_values("start_ns")
    assert list(steps["name"].astype(str)) == ["step 0", "step 1", "step 2", "step 3"]
    assert steps["dur_ns"].max() < 150e6                     # the two 300 ms warm-up steps are gone
    assert p.wall_ns < 400e6 and p.meta["schedule"]["skipped_steps"] == 2
    assert p.meta["schedule"]["original_wall_ns"] > 600e6
    assert (p.events["start_ns"] >= p.meta["window_ns"][0]).all()
    # too few steps: the profile is kept untrimmed and the command says why (exit 2)
    r = proc("run", script, "-o", tmp_path / "out", "-n", "t2", "--collectors", "host", "--skip-steps", "9")
    assert r.returncode == 2 and "marked 6 steps" in r.stderr
    assert "t2" in cann_nb.load_session(tmp_path / "out")
    r = proc("run", script, "--skip-steps", "-1")
    assert r.returncode == 2 and "--skip-steps" in r.stderr


def test_run_repeat_and_warmup_share_the_cells_loop(tmp_path, capsys):
    script = tmp_path / "count.py"
    script.write_text("with open(__file__ + '.runs', 'a') as fh:\n    fh.write('x')\n")
    code, _, _ = run_cli(capsys, "run", script, "-o", tmp_path / "out", "-n", "rep", "--collectors", "host",
                         "--repeat", "3", "--warmup", "2", "--quiet")
    assert code == 0 and (tmp_path / "count.py.runs").read_text() == "x" * 5
    p = cann_nb.load_session(tmp_path / "out")["rep"]
    assert (p.events["cat"] == "step").sum() == 3
    assert p.meta["options"]["repeat"] == 3 and p.meta["options"]["warmup"] == 2
    assert "repeat" not in p.meta["source"] and "warmup" not in p.meta["source"]     # kept once, in options
    script.write_text("raise SystemExit(3)\n")                                        # the script's exit code
    assert run_cli(capsys, "run", script, "-o", tmp_path / "out", "--collectors", "host", "--repeat", "2",
                   "--quiet")[0] == 3


def test_step_is_a_no_op_without_a_profile():
    cann_nb.step()   # nothing is recording: nothing happens, nothing raises


def test_step_marks_the_running_session():
    from cann_nb.collect.session import CollectionSession

    s = CollectionSession("s", ("host",))
    s.start()
    cann_nb.step()
    cann_nb.step()
    s.stop()
    cann_nb.step()   # after stop: ignored
    p = s.finish()
    assert (p.events["cat"] == "step").sum() == 2


def test_argparse_errors_exit_2(capsys):
    assert run_cli(capsys, "frobnicate")[0] == 2
    assert run_cli(capsys, "analyze")[0] == 2
    assert run_cli(capsys, "list", "--bogus")[0] == 2


def test_console_entry_point_check(store):
    """The real process, as a CI job runs it: output on stdout, exit code 1 on a breach."""
    r = proc("check", "--threshold", "100ms", "--file", store / "slow")
    assert r.returncode == 1 and "BREACH" in r.stdout and "1 breach in 1 check -> exit 1" in r.stdout, r.stderr
    r = proc("check", "--threshold", "100ms", "--file", store)          # the store holds an empty profile
    assert r.returncode == 2 and "'nothing' is empty" in r.stderr
    r = proc("check", "--threshold", "100", "--file", store / "base")
    assert r.returncode == 2 and "missing unit" in r.stderr


def test_analyze_calibrates_with_the_store_track_record(store, capsys, monkeypatch):
    import cann_nb.analyze.api as api
    from cann_nb.analyze.finding import Finding

    def advisor(profile, **kw):
        if profile.name == "slow":
            return [Finding(rule="slow_mm", category="hotspot", severity="high", title="aten::mm is slow",
                            ops=("aten::mm",), est_gain_ns=1e8, est_gain_pct=50.0,
                            evidence={"wall_ns": profile.wall_ns})]
        return []

    monkeypatch.setattr(api, "findings", advisor)
    # the change slow -> base resolved slow_mm and saved 120 ms of the predicted 100 ms
    code, out, _ = run_cli(capsys, "compare", "slow", "base", "--store", store)
    assert code == 0 and "track record: slow_mm predicted 100.000 ms" in out
    code, out, _ = run_cli(capsys, "analyze", "slow", "--store", store, "--json")
    d = json.loads(out)
    f = d["findings"][0]
    assert d["track_record"]["records"] == 1 and f["evidence"]["calibration"]["factor"] > 1
    assert f["est_gain_ns"] > 1e8 and f["evidence"]["calibration"]["uncalibrated_gain_ns"] == 1e8
    code, out, _ = run_cli(capsys, "analyze", "slow", "--store", store, "--json", "--no-calibrate")
    assert json.loads(out)["findings"][0]["est_gain_ns"] == 1e8
    code, out, _ = run_cli(capsys, "analyze", "slow", "--store", store)
    assert "advisor track record: 1 resolved findings" in out and "calibrated x" in out
