"""The memory budget (issue 19): a per-element loop of tiny ops profiled with a small explicit budget
stops recording ops, runs to the end, stores a profile that says what it left out in every view, and the
advisor still names the line. Each run is a subprocess (torch.profiler state, peak memory of its own)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from argparse import Namespace
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import cann_nb  # noqa: E402
from cann_nb.collect import budget, flags  # noqa: E402
from cann_nb.collect.base import CollectOptions  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BUDGET = 120 * 10 ** 6
SCALAR_LOOP = textwrap.dedent("""\
    import torch
    scores = torch.arange(4096) % 7
    total = 0
    for p in range(60):            # 60 x 4096 iterations, 4 torch ops each: ~980k ops
        for i in range(4096):
            total += scores[i].item()
    print("total", round(total, 3))
    """)
MEASURE = textwrap.dedent("""\
    import os, runpy, sys
    sys.argv = sys.argv[1:]
    code = 0
    try:
        runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True) if sys.argv[0] == "cann_nb" \\
            else runpy.run_path(sys.argv[0], run_name="__main__")
    except SystemExit as exc:
        code = exc.code or 0
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over fork and exec (a child of a big pytest process
    # would report its parent's size)
    peak = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmHWM:"))
    print("PEAK_RSS", peak, file=sys.stderr)
    sys.exit(code)
    """)


def _run(tmp_path, *argv):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    (tmp_path / "measure.py").write_text(MEASURE)
    r = subprocess.run([sys.executable, str(tmp_path / "measure.py"), *argv], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=600)
    peak = int(next(ln for ln in r.stderr.splitlines() if ln.startswith("PEAK_RSS")).split()[1])
    return r, peak


@pytest.fixture(scope="module")
def truncated(tmp_path_factory):
    """The scalar loop under ``cann-nb run --max-memory 120MB``, and the peak of a run of one op (what
    cann_nb and torch.profiler cost whatever the budget: imports, Kineto's start)."""
    tmp = tmp_path_factory.mktemp("budget")
    (tmp / "scalar_loop.py").write_text(SCALAR_LOOP)
    (tmp / "one_op.py").write_text("import torch\nprint(torch.ones(4).sum().item())\n")
    _, base_peak = _run(tmp, "cann_nb", "run", "-o", "store", "-n", "one", "one_op.py")
    r, peak = _run(tmp, "cann_nb", "run", "-o", "store", "-n", "loop", "--max-memory", "120MB", "scalar_loop.py")
    return r, peak, base_peak, cann_nb.load(tmp / "store" / "loop")


def test_budget_is_honoured_and_the_code_runs_to_the_end(truncated):
    r, peak, base_peak, profile = truncated
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.splitlines()[0] == f"total {60 * sum(i % 7 for i in range(4096))}"   # the loop ran to its end
    b = profile.meta["budget"]
    assert b["reached"] and b["max_memory"] == BUDGET and b["enforced"] == "while recording"
    # what collecting added to the process stays within the budget (torch's results, conversion, store)
    assert peak - base_peak <= BUDGET, (peak, base_peak)
    ops = int((profile.events["cat"] == "op").sum())
    assert 0 < ops <= b["events_bound"] < 60 * 4096 * 4


def test_the_profile_says_what_was_not_recorded(truncated):
    *_, profile = truncated
    meta = profile.meta
    gone = meta["budget"]["not_recorded"]
    start, stop = meta["window_ns"]
    assert start < gone["from_ns"] < gone["to_ns"]
    assert abs(gone["to_ns"] - stop) < 50_000_000                 # to the end of the run (torch stops just after)
    last_op_end = (profile.events["start_ns"] + profile.events["dur_ns"])[profile.events["cat"] == "op"].max()
    assert last_op_end <= gone["from_ns"] + 50_000_000        # nothing recorded well after the cut
    assert gone["estimated_ops"] > 0


def test_every_view_says_it(truncated):
    r, *_, profile = truncated
    from cann_nb.model import budget_note
    from cann_nb.report.facts import display_notes
    from cann_nb.widgets._tables import overview_payload
    from cann_nb.widgets.static import summary_html, summary_text

    note = budget_note(profile.meta)
    assert note.startswith("ops after ") and "memory budget 114.4 MiB reached" in note
    assert "rerun with --max-memory 1GiB" in note
    assert f"truncated: {note}" in r.stdout                         # cann-nb run's summary
    assert f"truncated: {note}" in summary_text(profile)
    assert "truncated: ops after" in summary_html(profile)
    ov = cann_nb.analyze.api.overview(profile)
    assert overview_payload(profile, ov, [])["budget_note"] == note
    assert any(note in n for n in display_notes(profile, {}, None))
    assert "memory budget" in r.stderr                              # said when it happened, too


def test_the_advisor_names_the_line_on_the_truncated_profile(truncated):
    *_, profile = truncated
    sites = profile.meta["call_sites"]
    assert sites["lines"][0]["line"] == 6 and "scores[i].item()" in sites["lines"][0]["code"]
    top = cann_nb.analyze.api.findings(profile)[:3]
    line = next((f for f in top if f.rule == "tiny_ops_by_line"), None)
    assert line is not None, [f.title for f in top]
    assert "scalar_loop.py:6" in line.title and line.evidence["truncated"]
    assert line.est_gain_pct > 50 and "Vectorise line scalar_loop.py:6" in line.suggestion
    assert line.evidence["estimated_calls"] > line.evidence["recorded_calls"]


def test_a_run_within_budget_says_so_and_no_note(tmp_path):
    with cann_nb.Profiler(output_path=tmp_path, name="small", collectors="torch") as prof:
        torch.ones(8).add_(1)
    b = prof.profile.meta["budget"]
    assert b["reached"] is False and b["source"].startswith("default: 1/8 of the")
    assert budget.DEFAULT_FLOOR <= b["max_memory"] <= budget.DEFAULT_CEILING
    assert "truncated" not in prof.profile.summary_text()


def test_outside_the_main_thread_the_budget_holds_at_steps_and_extrapolates_per_step(tmp_path):
    scores = torch.randn(2048)
    out = {}

    def work():
        prof = cann_nb.Profiler(output_path=tmp_path, name="thread", collectors="torch", max_memory=100 * 10 ** 6)
        with prof:
            for _ in range(40):
                for i in range(2048):
                    scores[i].item()
                prof.step()
        out["profile"] = prof.profile

    t = threading.Thread(target=work)
    t.start()
    t.join()
    p = out["profile"]
    b = p.meta["budget"]
    assert b["reached"] and b["enforced"].startswith("at step boundaries")
    steps = p.events[p.events["cat"] == "step"]
    assert len(steps) == 40                                            # steps go on after the cut
    finding = next(f for f in cann_nb.analyze.api.findings(p) if f.rule == "tiny_ops_by_line")
    assert "per recorded step x 40 steps" in finding.evidence["calls_estimate"]
    # two root calls (select, item) per element: the per-step extrapolation is about right
    assert 0.5 < finding.evidence["estimated_calls"] / (40 * 2048 * 2) < 1.5


def test_flags_parse_the_budget():
    args = Namespace(max_memory="512MiB", max_events=1000)
    flags._check_budget(args)
    assert args.max_memory == 512 * 2 ** 20
    opts = flags.options(Namespace(interval=50.0, mode="default", memory=None, shapes=None, stack=None, flops=None,
                                   max_memory=args.max_memory, max_events=1000))
    assert (opts.max_memory, opts.max_events, opts.buffer_events) == (512 * 2 ** 20, 1000, 1000)
    with pytest.raises(flags.FlagError, match="--max-memory"):
        flags._check_budget(Namespace(max_memory="4 parsecs", max_events=None))
    with pytest.raises(flags.FlagError, match="--max-events"):
        flags._check_budget(Namespace(max_memory=None, max_events=0))


def test_budget_from_options():
    assert budget.resolve(CollectOptions(max_memory=10 ** 9)).max_memory == 10 ** 9
    b = budget.resolve(CollectOptions(max_events=1000))
    assert b.events_bound(True, False) == pytest.approx(1000, rel=0.01)
    mem, why = budget.default_max_memory()
    assert budget.DEFAULT_FLOOR <= mem <= budget.DEFAULT_CEILING and "available" in why
