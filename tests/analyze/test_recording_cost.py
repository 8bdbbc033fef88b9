"""Gains are for the run without the profiler: the recording cost in meta comes out of the replay."""

import math

from cann_nb.analyze.context import context
from cann_nb.analyze.rules import findings

from .synth import Trace


def _tiny_loop(k_op=None):
    """10,000 ops of 1 us, 1 us apart, then 20 ms of other work; the profiler cost k_op per op."""
    t = Trace()
    s = 0
    for _ in range(10_000):
        t.op("aten::select", s, 1_000)
        s += 2_000
    t.op("aten::mm", s, 20_000_000)
    meta = {"collectors": {"torch": {"status": "ok", "overhead": {"ns_per_event": k_op}}}} if k_op else {}
    return t.profile(wall_ns=s + 20_000_000, **meta)


def test_the_replay_takes_the_recording_cost_out():
    p0, p1 = _tiny_loop(), _tiny_loop(k_op=800)
    plain, charged = context(p0), context(p1)
    assert plain.recording_ns == 0 and plain.wall_without_recording == plain.wall
    # 10,001 ops (the loop and the mm) x 800 ns, all of it absorbed where they run
    assert math.isclose(charged.recording_ns, 10_001 * 800, rel_tol=1e-9)
    assert math.isclose(charged.replay.baseline, charged.wall - 10_001 * 800, rel_tol=1e-6)
    assert math.isclose(charged.replay.fidelity, 1.0, rel_tol=1e-6)


def test_a_cost_larger_than_its_piece_passes_on_and_never_goes_negative():
    p = _tiny_loop(k_op=5_000)
    ctx = context(p)      # more than the 2 us each op and its gap last
    rep = ctx.replay
    assert (rep.seg_net >= 0).all()
    # what the loop's 20 ms cannot absorb passes on to the pieces after it; never more than was charged
    assert 20_000_000 < ctx.recording_ns <= min(10_001 * 5_000, ctx.wall)


def test_small_op_gains_are_shares_of_the_unprofiled_run():
    f0 = next(f for f in findings(_tiny_loop()) if f.rule == "small_ops")
    f1 = next(f for f in findings(_tiny_loop(k_op=800)) if f.rule == "small_ops")
    assert f1.est_gain_ns < f0.est_gain_ns                  # the profiler's time is not saved by the fix
    assert f1.evidence["recording"]["recording_cost_ns"] > 0 and "recording" not in f0.evidence
    assert 0 < f1.est_gain_pct <= 100
    # the share is of the run without the recording cost
    wall = f1.evidence["recording"]["wall_without_recording_ns"]
    assert math.isclose(f1.est_gain_pct, 100 * f1.est_gain_ns / wall, rel_tol=1e-9)


def _traced_calls(dropped: int):
    """The Python tracer: a frame open for 100 ms holding 1,000 recorded calls of 2 us, 20 us apart (the
    first 20 ms); then the buffer filled and ``dropped`` more calls ran unrecorded in the frame's tail."""
    t = Trace()
    t.add("script.main", "python", 0, 100_000_000)
    for i in range(1_000):
        t.add("script.f", "python", 1_000 + 20_000 * i, 2_000)
    py = {"status": "ok", "records": 2 * 1_001, "overhead": {"ns_per_record": 300.0}}
    return t.profile(collectors={"python": py}, dropped={"python": dropped} if dropped else {})


def test_a_figure_above_what_the_runs_dense_ops_took_is_held_to_their_period():
    # 10,000 ops starting 2 us apart: recording one took at most 2 us, whatever the probe measured
    from cann_nb.analyze.recording_cost import torch_event_ns

    p0, p1 = _tiny_loop(k_op=800), _tiny_loop(k_op=5_000)   # held: a context keeps its profile weakly
    assert torch_event_ns(context(p0)) == 800
    held = context(p1)
    assert torch_event_ns(held) == 2_000
    assert math.isclose(held.recording_ns, 10_001 * 2_000, rel_tol=1e-9)
    assert held.wall_without_recording == 20_000_000 - 2_000   # the mm left whole but its own event


def test_calls_dropped_after_the_buffer_filled_still_cost_their_hooks():
    p0, p1 = _traced_calls(0), _traced_calls(50_000)      # held: a context keeps its profile weakly
    kept, full = context(p0), context(p1)
    assert math.isclose(kept.recording_ns, 300 * 2_002, rel_tol=1e-6)
    # each dropped call still ran the hook at its call and its return: charged after the last recorded span,
    # where the frame's unrecorded tail absorbs it
    assert math.isclose(full.recording_ns, 300 * (2_002 + 2 * 50_000), rel_tol=1e-6)
    assert full.wall_without_recording < kept.wall_without_recording


def test_the_tracers_bytecode_slowdown_is_charged_to_python_frames_not_to_numpy_lines(tmp_path):
    import numpy as np

    from cann_nb.analyze.recording_cost import bytecode_excess, record_charges

    from .test_python_loops import profile_script

    src = """
        import numpy as np

        big = np.random.default_rng(0).random(1_000_000)

        def spin(n):
            t = 0
            for i in range(n):
                t = (t + i * 7) % 65521
            return t

        def main():
            y = big * 2.0 + big
            return spin(300_000) + float(y[0])

        result = main()
    """
    prof = profile_script(tmp_path, src, "mixed")
    slowdown = prof.meta["collectors"]["python"]["overhead"]["bytecode_slowdown"]
    assert slowdown > 1
    ctx = context(prof)
    excess = bytecode_excess(ctx, record_charges(ctx), slowdown)
    names = ctx.events["name"].astype(str).to_numpy()
    kind = ctx.events["call_kind"].astype(str).to_numpy()
    spin = np.flatnonzero((kind == "py") & (names == "mixed.spin"))
    ufuncs = np.flatnonzero(np.char.find(names.astype(str), "y = big * 2.0 + big") >= 0)
    assert len(spin) == 1 and len(ufuncs) == 1
    # the frame past the line budget runs its bytecode slowed, unrecorded; the line's operators on 8 MB
    # arrays are C work (no event of their own: the line's self time)
    assert excess[spin[0]] > 0 and excess[ufuncs[0]] == 0 and ctx.self_ns[ufuncs[0]] > 0
    frames = np.isin(kind, ["py", "line"])
    assert 0 < excess.sum() <= ctx.self_ns[frames].sum() * (1 - 1 / slowdown)
    assert math.isclose(ctx.recording_cost.sum(), record_charges(ctx).sum() + excess.sum(), rel_tol=1e-9)


def test_a_traced_run_inside_another_is_charged_once(tmp_path):
    # the second run of each sampled line measures its temporaries under tracemalloc; a loop line's traced
    # run holds the traced run of the allocating line its callback runs, whose excess it must not charge
    # again (a line that calls the user's functions itself is not measured: collect/line_arrays.py)
    import numpy as np

    from cann_nb.analyze.line_arrays import line_arrays, traced_run_excess

    from .test_python_loops import profile_script

    src = """
        import numpy as np
        import pandas as pd

        big = np.ones(400_000)

        def build(k):
            parts = np.split(big + k, 20_000)
            return len(parts)

        def main():
            t = 0
            for k in range(5):
                t += int(pd.Series([k]).apply(build).iloc[0]) + int(big[k])
            return t

        result = main()
    """
    ctx = context(profile_script(tmp_path, src, "nested"))
    la = line_arrays(ctx).set_index("file_line")
    outer, inner = (la.loc[la.index[la.index.str.endswith(f":{n}")][0]] for n in (14, 8))
    excess = traced_run_excess(ctx)

    def raw(rec):
        k = int(rec["traced_run"])
        d = ctx.dur[rec["rows"]]
        return rec["rows"][k], d[k] - np.median(np.delete(d, k))

    (o_row, o_raw), (i_row, i_raw) = raw(outer), raw(inner)
    assert i_raw > 0 and ctx.start[o_row] <= ctx.start[i_row] <= ctx.end[o_row]   # nested traced runs
    assert excess[i_row] == i_raw
    assert math.isclose(excess[o_row], max(o_raw - i_raw, 0.0), abs_tol=1.0)
