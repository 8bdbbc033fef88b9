"""collect/loop_facts.py: which loops carry state from pass to pass, read from real source files."""

from __future__ import annotations

import textwrap

from cann_nb.collect.loop_facts import file_loops


def loops(tmp_path, src: str) -> list[dict]:
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(src))
    return file_loops(str(path))


def test_a_chain_carries_its_state_and_its_random_draws_can_leave_the_loop(tmp_path):
    (lp,) = loops(tmp_path, """
        import math

        def chain(rng, logp, steps):
            theta, lp = 0.0, logp(0.0)
            accepted = 0
            for i in range(steps):
                proposal = theta + rng.normal(0.0, 0.3)
                lp_new = logp(proposal)
                if math.log(rng.uniform()) < lp_new - lp:
                    theta, lp = proposal, lp_new
                    accepted += 1
            return theta, accepted
    """)
    assert lp["line"] == 7 and lp["end"] == 12
    assert lp["carried"] == ["lp", "theta"] and lp["reductions"] == ["accepted"]
    assert lp["dependent"] == [8, 9, 10, 11, 12]
    assert lp["hoistable"] == {"8": ["normal"], "10": ["log", "uniform"]}


def test_independent_passes_and_reductions_are_not_sequential(tmp_path):
    (lp,) = loops(tmp_path, """
        def f(a, b, out):
            total, best, seen = 0.0, 0.0, []
            for i in range(len(a)):
                y = a[i] * b[i]
                out[i] = y
                total += y
                best = max(best, y)
                if y not in seen:
                    seen.append(y)
            return total, best
    """)
    assert lp["carried"] == [] and lp["dependent"] == [] and lp["reductions"] == ["best", "total"]


def test_a_recurrence_through_a_function_call_and_a_while_condition(tmp_path):
    got = loops(tmp_path, """
        def run(step, x, n):
            h = x[0]
            for t in range(n):
                h = step(x[t], h)
            err = 1.0
            while err > 1e-6:
                new = 0.5 * (h + 2.0 / h)
                err = abs(new - h)
                h = new
            return h
    """)
    assert [(lp["line"], lp["carried"], lp["dependent"]) for lp in got] == [
        (4, ["h"], [5]), (7, ["err", "h"], [7, 8, 9, 10])]


def test_state_reset_at_the_top_of_each_pass_is_not_carried(tmp_path):
    outer, inner = loops(tmp_path, """
        def f(batches, cell):
            out = []
            for xs in batches:
                h = 0.0
                for x in xs:
                    h = cell(x, h)
                out.append(h)
            return out
    """)
    assert (outer["line"], outer["carried"]) == (4, [])
    assert (inner["line"], inner["end"], inner["carried"], inner["dependent"]) == (6, 7, ["h"], [7])


def test_an_unparsable_source_says_nothing(tmp_path):
    assert loops(tmp_path, "for i in range(3)\n    x = x + i\n") == []


def test_a_training_loop_carries_the_parameters_its_optimizer_updates(tmp_path):
    train, ema = loops(tmp_path, """
        def train(model, opt, batches, ema):
            for x, y in batches:
                loss = ((model(x) - y) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                for p, q in zip(ema, model.parameters()):
                    p.mul_(0.99).add_(q, alpha=0.01)
    """)
    assert train["carried"] == ["(parameters: updated by the optimizer)"] and train["dependent"] == [4, 5, 6, 7, 8, 9]
    assert (ema["line"], ema["carried"]) == (8, [])   # within a step, the per-parameter update is free


def test_a_loop_of_independent_passes_inside_a_sequential_one_leaves_its_dependent_lines(tmp_path):
    # Viterbi: each time step needs the previous step's scores, but the tags of one step are independent
    outer, inner, gen = loops(tmp_path, """
        def viterbi(em, trans, start):
            score = start + em[0]
            for t in range(1, len(em)):
                new = [0.0] * len(score)
                for j in range(len(score)):
                    new[j] = max(score[i] + trans[i][j] for i in range(len(score))) + em[t][j]
                score = new
            return score
    """)
    assert outer["line"] == 4 and outer["carried"] == ["score"]
    assert inner["line"] == 6 and inner["carried"] == []
    assert gen["line"] == 7 and gen["comprehension"] and gen["carried"] == []   # max(... for i in ...)
    assert outer["vectorisable_inner"] == [6, 7] and 7 not in outer["dependent"]
    assert outer["dependent"] == [5, 8]


def test_a_comprehension_has_independent_passes_unless_it_assigns_a_name(tmp_path):
    # one conv per channel in a list comprehension (a depthwise conv written out): a loop of independent
    # passes; an assignment expression can carry a value from one pass to the next: not said
    found = loops(tmp_path, """
        def depthwise(x, w):
            return cat([conv(x[:, c:c + 1], w[c:c + 1]) for c in range(x.shape[1])])

        def running(xs):
            total = 0
            return [total := total + x for x in xs]
    """)
    assert [(lp["line"], lp["carried"], lp.get("comprehension")) for lp in found] == [(3, [], True)]


def test_a_running_maximum_the_body_uses_is_a_scan_and_a_decaying_average_is_not(tmp_path):
    scan, ema = loops(tmp_path, """
        import torch

        def drawdown(p):
            dd = torch.empty_like(p)
            running = p[:, 0].clone()
            for t in range(p.shape[1]):
                running = torch.maximum(running, p[:, t])
                dd[:, t] = (p[:, t] - running) / running
            return dd

        def smooth(x):
            avg, out = 0.0, []
            for v in x:
                avg = 0.9 * avg + 0.1 * v
                out.append(avg)
            return out
    """)
    # torch.cummax gives every prefix's maximum at once: the passes are free
    assert scan["carried"] == [] and scan["scans"] == ["running"] and scan["dependent"] == []
    assert ema["carried"] == ["avg"] and ema["scans"] == []   # a recurrence, not an order-free combine
