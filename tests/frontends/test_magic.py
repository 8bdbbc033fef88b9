"""%%cann_profile through a real IPython InteractiveShell."""

from __future__ import annotations

import re
import threading

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

import cann_nb
from cann_nb.frontends.magic import RUNTIME_NAME


def run(ip, cell):
    return ip.run_cell(cell, store_history=True)


def stored(tmp_path, name):
    return cann_nb.load_session(tmp_path / "store")[name]


def cann_threads():
    return [t for t in threading.enumerate() if "cann" in t.name.lower()]


def test_cell_behaves_as_without_the_magic(ip, tmp_path):
    result = run(ip, "%%cann_profile -n plain --collectors host --no-display\nx = 20\ny = x + 1\ny * 2")
    assert result.success and result.result == 42
    assert ip.user_ns["x"] == 20 and ip.user_ns["y"] == 21
    assert ip.user_ns["Out"][result.execution_count] == 42
    assert ip.history_manager.input_hist_raw[-1].startswith("%%cann_profile -n plain")
    assert "__cann_nb_run__" not in ip.user_ns
    p = stored(tmp_path, "plain")
    assert p.status == "ok" and p.meta["source"]["kind"] == "cell"
    assert p.meta["collectors"]["host"]["status"] == "ok"
    assert p.wall_ns > 0
    assert not cann_threads()


def test_trailing_semicolon_and_statement_cells_show_nothing(ip):
    assert run(ip, "%%cann_profile -n semi --collectors host --no-display\n41 + 1;").result is None
    assert run(ip, "%%cann_profile -n stmt --collectors host --no-display\nz = 3").result is None
    assert ip.user_ns["z"] == 3


def test_cell_that_raises_is_stored_as_failed_with_the_usual_traceback(ip, tmp_path, capsys):
    result = run(ip, "%%cann_profile -n boom --collectors host --no-display\na = 1\n\nb = a / 0")
    assert isinstance(result.error_in_exec, ZeroDivisionError)
    out = capsys.readouterr()
    text = re.sub(r"\x1b\[[0-9;]*m", "", out.out + out.err)
    assert "line 4" in text                                     # notebook line numbers: the magic line is 1
    assert text.count("Traceback (most recent call last)") == 1  # exactly one traceback, the user's
    assert "__cann_nb__" not in text and "cann_nb:" not in text       # our frames and messages stay out
    p = stored(tmp_path, "boom")
    assert p.status == "failed" and "ZeroDivisionError" in p.meta["error"]
    assert ip.user_ns["a"] == 1
    assert not cann_threads()


def test_keyboard_interrupt_keeps_the_partial_profile(ip, tmp_path):
    result = run(ip, "%%cann_profile -n stopped --collectors host --no-display\n"
                     "import time\nt = time.perf_counter()\nwhile time.perf_counter() - t < 0.1: pass\n"
                     "raise KeyboardInterrupt")
    assert isinstance(result.error_in_exec, KeyboardInterrupt)   # so "Run All" stops
    p = stored(tmp_path, "stopped")
    assert p.status == "interrupted"
    assert p.wall_ns >= 100_000_000
    assert (p.counters["metric"] == "rss").any()
    assert not cann_threads()


def test_bad_flags_raise_usage_error(ip):
    for line in ("--bogus", "--repeat 0", "--collectors nope", "-n ../escape", "--repeat x"):
        result = run(ip, f"%%cann_profile {line}\n1")
        assert isinstance(result.error_in_exec, UsageError), line


def test_help_is_available(ip, capsys):
    run(ip, "%%cann_profile?")
    out = capsys.readouterr().out
    assert "--repeat" in out and "--collectors" in out


def test_repeat_and_warmup_run_the_cell_and_mark_steps(ip, tmp_path):
    ip.user_ns["calls"] = 0
    result = run(ip, "%%cann_profile -n rep --repeat 3 --warmup 2 --collectors host --no-display\n"
                     "calls += 1\ncalls")
    assert result.result == 5 and ip.user_ns["calls"] == 5
    p = stored(tmp_path, "rep")
    steps = p.events[p.events["cat"] == "step"]
    assert len(steps) == 3 and (steps["dur_ns"] > 0).all()
    assert p.meta["options"]["repeat"] == 3 and p.meta["options"]["warmup"] == 2
    assert "repeat" not in p.meta["source"] and "warmup" not in p.meta["source"]     # kept once, in options


def test_cann_load_stores_by_the_import_function_and_loads_names(ip, tmp_path):
    from tests.synth_steps import stepped

    elsewhere = cann_nb.load_session(tmp_path / "elsewhere")
    elsewhere.add(stepped({"op": 1_000_000}, name="trace"))
    p = ip.run_line_magic("cann_load", f"{tmp_path / 'elsewhere' / 'trace'} -n imported")
    assert p.name == "imported" and stored(tmp_path, "imported").meta["name"] == "imported"
    assert p.meta["stored_at"].endswith("imported")
    q = ip.run_line_magic("cann_load", f"{tmp_path / 'elsewhere' / 'trace'} --no-store")
    assert q.name == "trace" and "trace" not in cann_nb.load_session(tmp_path / "store")
    with pytest.raises(UsageError, match="expected an existing file or folder"):
        ip.run_line_magic("cann_load", f"{tmp_path / 'missing'}")


def test_reused_name_gets_a_new_version(ip, tmp_path):
    run(ip, "%%cann_profile -n same --collectors host --no-display\n1")
    run(ip, "%%cann_profile -n same --collectors host --no-display\n2")
    session = cann_nb.load_session(tmp_path / "store")
    assert session["same"].meta["version"] == 2
    assert "same@1" in session.names(versions=True)


def test_display_bundle_has_text_and_escaped_html(ip, tmp_path):
    run(ip, "%%cann_profile -n shown --collectors host --no-display\n1")
    p = stored(tmp_path, "shown")
    bundle = p._repr_mimebundle_()
    assert "cann_nb profile 'shown'" in bundle["text/plain"]
    assert bundle["text/html"].startswith("<div")


def test_cann_list_returns_a_dataframe(ip, tmp_path):
    run(ip, "%%cann_profile -n listed --collectors host --no-display\n1")
    table = ip.run_line_magic("cann_list", "")
    assert "listed" in set(table["name"])


def test_numpy_cell_gets_python_function_events_without_ipython_frames(ip, tmp_path):
    run(ip, "%%cann_profile -n np_cell --collectors python,host --no-display\n"
            "import numpy as np\na = np.ones((300, 300))\nfor _ in range(3):\n    b = np.linalg.inv(a + np.eye(300))")
    p = stored(tmp_path, "np_cell")
    names = set(p.events["name"].astype(str))
    assert any("inv" in n for n in names), sorted(names)[:20]
    assert not any(n.startswith(("IPython", "cann_nb")) for n in names), sorted(names)


def test_unload_removes_everything(tmp_path, monkeypatch):
    monkeypatch.setenv("CANN_NB_DIR", str(tmp_path / "store"))
    shell = InteractiveShell.instance()
    before_cleanup = list(shell.input_transformers_cleanup)
    before_ast = list(shell.ast_transformers)
    before_callbacks = list(shell.events.callbacks["post_run_cell"])
    shell.run_line_magic("load_ext", "cann_nb")
    assert shell.find_cell_magic("cann_profile") is not None
    shell.run_line_magic("unload_ext", "cann_nb")
    assert shell.find_cell_magic("cann_profile") is None
    assert shell.find_line_magic("cann_list") is None
    assert shell.input_transformers_cleanup == before_cleanup
    assert shell.ast_transformers == before_ast
    assert shell.events.callbacks["post_run_cell"] == before_callbacks
    assert RUNTIME_NAME not in shell.user_ns
    assert not cann_threads()
    result = shell.run_cell("%%cann_profile\n1")
    assert isinstance(result.error_in_exec, UsageError)  # "Cell magic not found"


def test_the_store_write_overlaps_the_display_and_is_done_with_the_cell(ip, tmp_path, monkeypatch):
    """The store writes on its own thread while the view is built; the files are on disk when the
    cell is done, so a script or shell command reading the store right after finds them; the summary
    says "stored" only for a write that landed."""
    import time

    from IPython.utils.capture import capture_output

    import cann_nb.frontends.magic as magic
    import cann_nb.store as store_mod

    marks = {}
    real_write, real_build = store_mod.write_profile_dir, magic.build_view

    def slow_write(*a, **k):
        time.sleep(0.5)
        real_write(*a, **k)
        marks["written"] = time.perf_counter()

    def build_view(profile):
        marks["building"] = time.perf_counter()
        return real_build(profile)

    monkeypatch.setattr(store_mod, "write_profile_dir", slow_write)
    monkeypatch.setattr(magic, "build_view", build_view)
    with capture_output() as cap:
        assert run(ip, "%%cann_profile -n later --collectors host\n1 + 1").success
    assert (tmp_path / "store" / "later" / "meta.json").exists()
    assert marks["building"] < marks["written"]              # the view did not wait for the write
    assert f"stored: {tmp_path / 'store' / 'later'}" in cap.outputs[0].data["text/plain"]


def test_a_write_that_fails_is_one_line_and_the_summary_never_says_stored(ip, tmp_path, monkeypatch):
    import errno

    from IPython.utils.capture import capture_output

    import cann_nb.store as store_mod

    def full_disk(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store_mod, "write_profile_dir", full_disk)
    with capture_output() as cap:
        assert run(ip, "%%cann_profile -n lost --collectors host\n1 + 1").success
    err = [line for line in cap.stderr.splitlines() if line.strip()]
    assert len(err) == 1 and err[0].count("No space left on device") == 1, err
    assert "'lost' was NOT stored" in err[0] and "still in this session" in err[0]
    assert "stored:" not in cap.outputs[0].data["text/plain"] + cap.outputs[0].data["text/html"]
    last = ip.user_ns[RUNTIME_NAME].last
    assert last.name == "lost" and "stored_at" not in last.meta
    assert not (tmp_path / "store" / "lost").exists()


def test_the_profile_is_named_and_numbered_after_the_cell_s_in_prompt(ip, tmp_path):
    """IPython 9 advances execution_count before running a cell: a cell at In [N] is cell_N, not N+1."""
    result = run(ip, "%%cann_profile --collectors host --no-display\n1")
    n = result.execution_count
    session = cann_nb.load_session(tmp_path / "store")
    assert f"cell_{n}" in session.names() and f"cell_{n + 1}" not in session.names()
    assert session[f"cell_{n}"].meta["source"]["execution_count"] == n


def test_a_view_that_cannot_be_built_is_one_line_and_the_static_summary(ip, tmp_path, monkeypatch, capsys):
    import cann_nb.widgets.display as display

    def broken(profile):
        raise RuntimeError("no widget front end here")

    monkeypatch.setattr(display, "make_view", broken)
    result = run(ip, "%%cann_profile -n viewless --collectors host\n1")
    assert result.success
    out, err = capsys.readouterr()
    assert "interactive view unavailable (RuntimeError: no widget front end here); static summary only" in err
    assert "Traceback" not in err and out.count("cann_nb profile 'viewless'") == 1  # the text/plain summary, once
    assert "viewless" in cann_nb.load_session(tmp_path / "store")


def test_a_profiled_cell_shows_its_summary_and_then_the_view_that_hides_it(ip):
    """Two outputs, so that an export of a notebook saved with widget state (where nbconvert renders
    the widget mime and ignores the text/html beside it) still shows the summary."""
    from IPython.utils.capture import capture_output

    from cann_nb.widgets.display import WIDGET_MIME

    with capture_output() as cap:
        assert run(ip, "%%cann_profile -n two_outputs --collectors host\nsum(range(100))").success
    summary, view = [o.data for o in cap.outputs]
    assert WIDGET_MIME not in summary and summary["text/plain"].startswith("cann_nb profile 'two_outputs'")
    token = re.match(r'<div data-cnb-summary="([0-9a-f]+)">', summary["text/html"]).group(1)
    assert "cann-nb-summary" in summary["text/html"]
    from ipywidgets.widgets.widget import _instances as widgets_by_id

    widget = widgets_by_id[view[WIDGET_MIME]["model_id"]]
    assert widget.summary_token == token                           # the view hides exactly this summary
    assert "\n" not in view["text/plain"] and "two_outputs" in view["text/plain"]  # a pointer, not a second summary
