"""Per-element loops in numpy / pandas / pure-Python scripts, profiled by the Python tracer for real:
``python_loop`` (the run of short lines) and ``tiny_calls_by_line`` (the line calling library functions
row by row) are host-bound findings; ``small_ops`` and ``tiny_ops_by_line`` (framework ops) stay silent."""

from __future__ import annotations

import functools
import runpy
import textwrap

import pytest

from cann_nb.analyze import findings
from cann_nb.analyze.rules import all_rules
from cann_nb.collect import python_tracer as pt
from cann_nb.collect.base import CollectOptions
from cann_nb.collect.session import CollectionSession

pd = pytest.importorskip("pandas")

LOOP_RULES = {"python_loop", "tiny_calls_by_line"}
OP_RULES = {"small_ops", "tiny_ops_by_line"}


def profile_script(tmp_path, src: str, name: str = "script", **options):
    """Run a script under the Python tracer as ``cann-nb run`` does (runpy inside a session)."""
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(src))
    sess = CollectionSession(name, ("python",), CollectOptions(**options))
    run = functools.partial(runpy.run_path, str(path), run_name="__main__")
    sess.start()
    try:
        run()
    finally:
        sess.stop()
    prof = sess.finish()
    py = prof.meta["collectors"].get("python", {})
    if py.get("status") != "ok" or py.get("lines") != "on":
        pytest.skip(f"python tracer without line spans here: {py}")
    return prof


def by_rule(fs):
    out = {}
    for f in fs:
        out.setdefault(f.rule, []).append(f)
    return out


ITERROWS = """
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"price": rng.random(2500) * 100, "qty": rng.integers(1, 10, 2500)})

    def main():
        totals = []
        for _, row in df.iterrows():
            t = row["price"] * row["qty"]
            totals.append(t * 0.9 if t > 100 else t)
        return np.array(totals)

    result = main()
"""

VECTORISED = """
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"price": rng.random(2500) * 100, "qty": rng.integers(1, 10, 2500)})

    def main():
        t = (df["price"] * df["qty"]).to_numpy()
        return np.where(t > 100, t * 0.9, t)

    for _ in range(20):
        result = main()
"""


def test_iterrows_loop_is_a_host_bound_per_row_loop(tmp_path):
    fs = findings(profile_script(tmp_path, ITERROWS))
    rules = by_rule(fs)
    assert not OP_RULES & set(rules), "no framework ops: not launch overhead"
    # python_loop, or (when this machine's lines run over its 30 us under a loaded suite) the per-line rule
    loop = (rules.get("python_loop") or rules["tiny_calls_by_line"])[0]
    assert loop.category == "host_bound"
    # magnitudes are left to the gain tests: the replay corrects for the tracer's own cost
    assert 0 < loop.est_gain_pct <= 100
    assert loop in fs[:3]
    lines = rules["tiny_calls_by_line"]
    assert all(f.category == "host_bound" and 0 < f.est_gain_pct <= 100 for f in lines)
    # the for line resumes DataFrame.iterrows once per row; the next line indexes the row twice
    it = next(f for f in lines if any("iterrows" in o for o in f.ops))
    # the for line's and the next line's calls: one finding for the loop body when both are over the share
    places = it.evidence.get("lines") or [it.evidence["file_line"]]
    assert it.evidence["calls"] >= 2500 and any(p.endswith("script.py:10") for p in places)
    getitem = [f for f in lines if any("Series.__getitem__" in o for o in f.ops)]
    if getitem and getitem[0] is not it:   # a finding of its own line
        assert getitem[0].evidence["calls_per_execution"] == pytest.approx(2, abs=0.01)
    # the vectorised form still calls each function once: the gain is below the lines' time
    assert it.est_gain_ns < it.evidence.get("line_ns", it.evidence.get("lines_ns"))
    assert "iterrows" in it.suggestion


FRAME_PER_RECORD = """
    import json

    import pandas as pd

    LOG = "\\n".join(json.dumps({{"ts": 1_700_000_000 + i, "device": "d%d" % (i % 7), "temp": 20 + i % 9 * 0.5,
                                  "humidity": 50.5, "battery": 3.7, "ok": i % 50 > 0}}) for i in range(1500))

    def load(text):
        {body}

    result = load(LOG)
"""


def test_a_one_row_frame_per_record_is_a_per_row_loop_and_one_frame_is_not(tmp_path):
    # each one-row DataFrame is a deep pandas call: over a millisecond traced (hundreds of events), a fraction
    # of one without the profiler, which is what the per-call bound is judged on
    per_row = "return pd.concat([pd.DataFrame([json.loads(s)]) for s in text.splitlines()], ignore_index=True)"
    f = by_rule(findings(profile_script(tmp_path, FRAME_PER_RECORD.format(body=per_row), "rows")))["tiny_calls_by_line"][0]
    frames = next(x for x in f.evidence["functions"] if x["name"].endswith("DataFrame.__init__"))
    assert frames["calls"] == 1500 and f.category == "host_bound" and 30 < f.est_gain_pct <= 100
    assert 0 < frames["typical_unprofiled_ns"] < 0.8 * frames["typical_ns"]   # the bound's measure
    whole = "return pd.DataFrame.from_records([json.loads(s) for s in text.splitlines()])"
    fs = by_rule(findings(profile_script(tmp_path, FRAME_PER_RECORD.format(body=whole), "whole")))
    assert not any(x["name"].endswith("DataFrame.__init__") for f in fs.get("tiny_calls_by_line", [])
                   for x in f.evidence["functions"])


def test_vectorised_pandas_gets_no_per_row_finding(tmp_path):
    fs = findings(profile_script(tmp_path, VECTORISED))
    assert not (LOOP_RULES | OP_RULES) & {f.rule for f in fs}


def test_numpy_element_loop_is_host_bound_not_launch_overhead(tmp_path):
    prof = profile_script(tmp_path, """
        import numpy as np

        a = np.random.default_rng(0).random(20_000)

        def main():
            out = np.empty_like(a)
            for i in range(a.shape[0]):
                # a few scalar operations: the line's own work stands out from its two records' cost, so
                # the finding does not hang on the machine's recording figure being exact to ten percent
                out[i] = (a[i] * a[i] + 3.0) / (a[i] + 1.0) - a[i] * 0.5
            return out

        result = main()
    """)
    rules = by_rule(findings(prof))
    assert "small_ops" not in rules
    # python_loop, or (when this machine's lines run over its 30 us under a loaded suite) the per-line rule
    loop = (rules.get("python_loop") or rules["tiny_calls_by_line"])[0]
    assert loop.category == "host_bound" and 0 < loop.est_gain_pct <= 100
    assert "tiny_calls_by_line" not in rules     # no library calls: scalar ops raise no call events


def test_a_loop_of_native_work_is_not_a_per_element_loop(tmp_path):
    """Each execution takes about as long as a pandas row access, but in one long piece of native work
    (LAPACK): not overhead, so neither loop rule fires."""
    prof = profile_script(tmp_path, """
        import numpy as np

        m = np.random.default_rng(0).random((60, 60)) + 60 * np.eye(60)

        def main():
            acc = 0.0
            for _ in range(300):
                acc += np.linalg.inv(m)[0, 0]
            return acc

        result = main()
    """)
    fs = findings(prof)
    assert not LOOP_RULES & {f.rule for f in fs}
    # with the piece threshold raised above the LAPACK call, the same loop would count as short
    loose = findings(prof, overrides={"python_loop": {"short_ns": 10**8, "max_unit_ns": 5 * 10**6}},
                     only=["python_loop"])
    assert loose


BUDGETS = pytest.mark.parametrize("budget", ["LINE_BUDGET", "CODE_LINE_BUDGET"])


def spent(prof, budget: str) -> bool:
    """The run's line budget was spent, or (CODE_LINE_BUDGET) a function's share of it."""
    py = prof.meta["collectors"]["python"]
    return py["line_budget_exhausted"] if budget == "LINE_BUDGET" else bool(py["line_capped"])


@BUDGETS
def test_loop_past_the_line_budget_is_counted_whole(tmp_path, monkeypatch, budget):
    """Lines stop being recorded after the tracer's line budget (or the function's share of it); the loop
    goes on as its frame's self time, and python_loop extends the run to the frame's end."""
    monkeypatch.setattr(pt, budget, 4000)
    prof = profile_script(tmp_path, """
        import numpy as np

        a = np.random.default_rng(0).random(20_000)

        def main():
            out = np.empty_like(a)
            for i in range(a.shape[0]):
                out[i] = a[i] * 2.0
            return out

        result = main()
    """)
    assert spent(prof, budget)
    loop = by_rule(findings(prof))["python_loop"][0]
    ev = loop.evidence
    assert ev["unrecorded_after_line_budget_ns"] > 0
    # the run reaches the end of main(), the frame that went on running the loop unrecorded
    ev_main = prof.events[prof.events["name"].astype(str) == "script.main"].iloc[0]
    assert ev["region_ns"] >= 0.95 * ev_main["dur_ns"] - 50_000
    assert 0 < loop.est_gain_pct <= 100


@BUDGETS
def test_a_loop_calling_a_function_per_element_past_the_line_budget_is_counted_whole(tmp_path, monkeypatch,
                                                                                   budget):
    """After the line budget (or the function's share of it), a loop calling the user's function per element
    goes on as recorded calls of that function (apply(axis=1), map, a recursion): the run follows them to
    the loop's end, not only to the end of the call holding the last recorded line."""
    monkeypatch.setattr(pt, budget, 4000)
    prof = profile_script(tmp_path, """
        import numpy as np

        a = np.random.default_rng(0).random(20_000)

        def scaled(v):
            w = v * 2.0
            return w + 1.0 if w > 1.0 else w

        def main():
            out = [scaled(v) for v in a]
            return np.array(out)

        result = main()
    """)
    assert spent(prof, budget)
    loop = by_rule(findings(prof))["python_loop"][0]
    ev_main = prof.events[prof.events["name"].astype(str) == "script.main"].iloc[0]
    assert loop.evidence["unrecorded_after_line_budget_ns"] > 0
    assert loop.evidence["region_ns"] >= 0.9 * ev_main["dur_ns"]


def test_a_loop_function_called_again_after_its_share_of_lines_is_counted_whole(tmp_path, monkeypatch):
    """A function holding a per-element loop, called once per column: after its share of the line budget its
    later calls run the same loop as their frames' self time, between the caller's own lines."""
    monkeypatch.setattr(pt, "CODE_LINE_BUDGET", 4000)
    prof = profile_script(tmp_path, """
        import numpy as np

        cols = np.random.default_rng(0).random((60, 1_000))

        def smooth(x):
            out = np.empty_like(x)
            out[0] = x[0]
            for i in range(1, len(x)):
                out[i] = 0.2 * x[i] + 0.8 * out[i - 1]
            return out

        def main():
            return [float(smooth(c)[-1]) + float(np.abs(c).sum()) for c in cols]

        result = main()
    """)
    assert prof.meta["collectors"]["python"]["line_capped"]
    loop = by_rule(findings(prof))["python_loop"][0]
    calls = prof.events[prof.events["name"].astype(str) == "script.smooth"]
    assert len(calls) == 60
    late = loop.evidence["capped_functions"]["script.smooth"]
    assert 50 <= late < 60 and "later calls of script.smooth" in loop.title
    # the loop is the calls of smooth, the traced ones and the later ones alike
    assert loop.evidence["region_ns"] >= 0.9 * calls["dur_ns"].sum()


def test_a_callback_loop_that_fills_the_buffer_and_stalls_is_counted_whole(tmp_path, monkeypatch):
    """np.vectorize calls the user's function once per element from C. The line budget runs out, then
    the recorder's buffer fills: the budget still counts as used up, and one pause of a few ms amid
    the calls (as when the machine stalls the process) does not end the loop."""
    monkeypatch.setattr(pt, "LINE_BUDGET", 4000)
    prof = profile_script(tmp_path, """
        import numpy as np

        a = np.random.default_rng(0).random(60_000)
        big = np.ones(1_500_000)
        calls = [0]

        def piecewise(v):
            calls[0] += 1
            if calls[0] == 40_000:
                np.sqrt(big)   # a ufunc: no event, a pause of ~2 ms between two recorded calls
            return v * 0.5 if v < 0.5 else v - 0.25

        def main():
            return np.vectorize(piecewise)(a)

        result = main()
    """, buffer_events=60_000)
    py = prof.meta["collectors"]["python"]
    assert py.get("buffer_full") and py["line_budget_exhausted"]
    loop = by_rule(findings(prof))["python_loop"][0]
    calls = prof.events[prof.events["name"].astype(str) == "script.piecewise"]
    last_call = int((calls["start_ns"] + calls["dur_ns"]).max())
    assert loop.evidence["unrecorded_after_line_budget_ns"] > 0
    # the run goes past the pause, to the last recorded call at least
    main = prof.events[prof.events["name"].astype(str) == "script.main"].iloc[0]
    assert loop.evidence["region_ns"] >= 0.8 * (last_call - int(main["start_ns"]))


def test_a_lookup_that_grows_with_the_loop_is_named_in_the_suggestion(tmp_path):
    prof = profile_script(tmp_path, """
        items = [(i * 7919) % 5000 for i in range(3000)]

        def main():
            seen = []
            dups = 0
            for v in items:
                if v in seen:
                    dups += 1
                else:
                    seen.append(v)
            return dups

        result = main()
    """)
    loop = by_rule(findings(prof))["python_loop"][0]
    assert loop.category == "host_bound" and 0 < loop.est_gain_pct <= 100
    assert any("if v in seen" in g["line"] for g in loop.evidence["growing_lines"])
    assert "set or dict" in loop.suggestion


def test_each_loop_rule_has_one_category():
    cats = {r.id: r.category for r in all_rules()}
    assert cats["small_ops"] == cats["tiny_ops_by_line"] == "launch_overhead"
    assert cats["python_loop"] == cats["tiny_calls_by_line"] == "host_bound"


def test_a_comparator_called_from_sorted_past_the_line_budget_is_a_loop(tmp_path, monkeypatch):
    """The line budget spent on setup; then sorted() calls a Python comparator per comparison from C:
    no line shows that loop, its calls do (one function, one caller, short calls back to back)."""
    monkeypatch.setattr(pt, "LINE_BUDGET", 3000)
    prof = profile_script(tmp_path, """
        import functools
        import random

        rng = random.Random(0)
        rows = []
        for i in range(3000):
            rows.append((rng.randint(0, 100), i))

        def compare(a, b):
            if a[0] != b[0]:
                return -1 if a[0] > b[0] else 1
            return -1 if a[1] < b[1] else (1 if a[1] > b[1] else 0)

        def main():
            return [r[1] for r in sorted(rows, key=functools.cmp_to_key(compare))[:10]]

        result = main()
    """)
    assert prof.meta["collectors"]["python"]["line_budget_exhausted"]
    loop = by_rule(findings(prof))["python_loop"][0]
    assert loop.evidence["callback_functions"] == ["script.compare"]
    sort = prof.events[prof.events["name"].astype(str) == "builtins.sorted"].iloc[0]
    assert loop.evidence["region_ns"] >= 0.8 * sort["dur_ns"]
    assert 0 < loop.est_gain_pct <= 100


def test_a_long_setup_loop_leaves_the_lines_after_it_traced(tmp_path, monkeypatch):
    """Data built in a long loop before the work spends only that code's share of the line budget: the
    work's lines are still traced and sampled (here: numbers held in an object array, seen from them)."""
    monkeypatch.setattr(pt, "CODE_LINE_BUDGET", 3000)
    monkeypatch.setattr(pt, "LINE_BUDGET", 9000)
    prof = profile_script(tmp_path, """
        import numpy as np

        ids = []
        for i in range(20_000):
            ids.append("C%07d" % i)

        def main():
            X = np.empty((200_000, 4), dtype=object)
            X[:] = np.random.default_rng(0).random((200_000, 4))
            mu = X.mean(axis=0)
            return ((X - mu) ** 2).sum(axis=0)

        result = main()
    """)
    py = prof.meta["collectors"]["python"]
    assert not py["line_budget_exhausted"] and py["line_capped"] == [f"{tmp_path / 'script.py'}:1"]
    (f,) = by_rule(findings(prof))["object_numbers"]
    assert "X: ndarray (200000, 4), object, holding float" in f.title


def test_a_library_function_called_back_per_element_from_c_is_the_lines_per_element_calls(tmp_path):
    """sorted(rows, key=np.linalg.norm): the C function sorted calls numpy's Python norm once per row; the
    calls belong to the user's line that called sorted (as generic_filter(img, np.std) would)."""
    prof = profile_script(tmp_path, """
        import numpy as np

        rows = list(np.random.default_rng(0).random((20_000, 3)))

        def main():
            ordered = sorted(rows, key=np.linalg.norm)
            return np.array(ordered[:10])

        result = main()
    """)
    (f,) = by_rule(findings(prof))["tiny_calls_by_line"]
    assert f.title.startswith("Line script.py:7 calls library functions one row/element at a time: 40,000 calls")
    assert f.evidence["executions"] == 1 and "linalg.norm" in f.title   # norm and its dispatcher, per row
    assert 0 < f.est_gain_pct <= 100


LOOP_BODY = """
    import numpy as np

    rng = np.random.default_rng(0)
    xs = rng.random((3000, 3))

    def score(x):
        a = np.clip(x, 0.1, 0.9).sum()
        b = np.clip(x, 0.2, 0.8).max()
        c = np.clip(x, 0.3, 0.7).min()
        return a + b + c

    result = sum(score(x) for x in xs)
"""


def test_a_loop_body_spread_over_lines_is_one_finding(tmp_path):
    """Lines of one function each calling library functions per element, over the rule's share or under it
    but over it together: one finding for the function's lines, its gain their lines' together."""
    from cann_nb.analyze.rules import findings

    prof = profile_script(tmp_path, LOOP_BODY, "body")
    (f,) = [f for f in findings(prof) if f.rule == "tiny_calls_by_line"]
    assert f.title.startswith("Lines body.py:8, 9, 10 (in score) call library functions one element at a time")
    # its gain, replayed on the run without the recorder, is the lines' together, at most what they remove
    assert f.evidence["calls"] >= 9000 and 100 * f.evidence["removable_ns"] / f.evidence["lines_ns"] > 50
    assert 0 < f.est_gain_ns <= f.evidence["removable_ns"] * 1.01
    # the same one finding when no line reaches the rule's share alone (each under 50 %, together over it)
    (high,) = [f for f in findings(prof, overrides={"tiny_calls_by_line": {"min_pct": 50.0}})
               if f.rule == "tiny_calls_by_line"]
    assert high.est_gain_pct == pytest.approx(f.est_gain_pct)


CHAIN = """
    import math

    import numpy as np

    rng = np.random.default_rng(0)

    def logp(x):
        return -0.5 * x * x

    def main():
        x, lp = 0.0, logp(0.0)
        xs = []
        for i in range(30_000):
            prop = x + 0.5 * rng.standard_normal()
            lp_new = logp(prop)
            if math.log(rng.random()) < lp_new - lp:
                x, lp = prop, lp_new
            xs.append(x)
        return sum(xs)

    result = main()
"""


def test_a_loop_carrying_its_state_keeps_the_dependent_work(tmp_path):
    # a Markov chain: each pass needs the previous pass's x; only the random draws can leave the loop
    prof = profile_script(tmp_path, CHAIN, "chain")
    (lp,) = prof.meta["collectors"]["python"]["loops"]
    assert lp["carried"] == ["lp", "x"] and lp["line"] == 14
    loop = by_rule(findings(prof))["python_loop"][0]
    seq = loop.evidence["sequential"]
    assert seq["loops"][0]["carried"] == ["lp", "x"]
    assert {"standard_normal", "random", "log"} <= set(seq["loops"][0]["hoistable"])
    assert 0 < seq["hoistable_ns"] < seq["kept_ns"]
    # the dependent lines' time stays: the gain is well under the loop's share of the run
    share = 100.0 * loop.evidence["region_ns"] / loop.evidence["wall_ns"]
    assert 0 < loop.est_gain_pct < 0.7 * share
    assert "carries lp, x" in loop.suggestion and "before the loop" in loop.suggestion


def test_a_loop_of_independent_passes_is_not_sequential(tmp_path):
    src = CHAIN.replace("x + 0.5 * rng.standard_normal()", "0.5 * rng.standard_normal()").replace(
        "x, lp = prop, lp_new", "pass")
    prof = profile_script(tmp_path, src, "draws")
    assert [lp["carried"] for lp in prof.meta["collectors"]["python"]["loops"]] == [[]]
    loop = by_rule(findings(prof))["python_loop"][0]
    assert "sequential" not in loop.evidence and "carries" not in loop.suggestion



RHS = """
    import numpy as np

    M = 40
    rate = np.linspace(0.5, 1.5, M)

    def rhs(y):
        {body}

    def main():
        y = np.full(M, 0.1)
        for _ in range(1500):   # a sequential outer loop: each step needs the previous y
            y = y + 0.01 * rhs(y)
        return y

    result = main()
"""
LOOPED = """dy = np.empty(M)
        for i in range(M):
            dy[i] = rate[i] * y[i] * (1.0 - y[i])
        return dy"""
WHOLE = "return rate * y * (1.0 - y)"


def test_a_short_loop_in_a_function_called_again_and_again_is_a_per_element_loop(tmp_path):
    # 40 cells per call, 1,500 calls: no run of it reaches 200 passes, the loop's lines do
    prof = profile_script(tmp_path, RHS.format(body=LOOPED), "looped")
    (f,) = by_rule(findings(prof))["python_loop"]
    assert f.est_gain_pct > 50
    assert f.evidence["sequential"]["free_loop_ns"] > 0.5 * f.evidence["region_ns"]   # rhs's loop, per pass
    # whole-array: what is left is the sequential loop's own small steps (numpy calls on 40 values)
    whole = by_rule(findings(profile_script(tmp_path, RHS.format(body=WHOLE), "whole"))).get("python_loop", [])
    assert all(g.est_gain_pct < 25 for g in whole)
