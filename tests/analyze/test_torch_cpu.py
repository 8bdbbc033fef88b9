"""The advisor on real CPU profiles taken with cann_nb's torch collector (small, fast cases)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from cann_nb.analyze import findings  # noqa: E402
from cann_nb.collect.base import CollectOptions  # noqa: E402
from cann_nb.collect.session import CollectionSession  # noqa: E402


def profile(fn):
    fn()  # warm-up
    sess = CollectionSession("t", ("torch",), CollectOptions(shapes=True, memory=True))
    sess.start()
    try:
        fn()
    finally:
        sess.stop()
    prof = sess.finish()
    if prof.meta["collectors"].get("torch", {}).get("status") != "ok":
        pytest.skip(f"torch collector unavailable: {prof.meta['collectors']}")
    return prof


def top3(prof):
    return [f for f in findings(prof)[:3]]


def test_per_element_loop_is_small_ops():
    x = torch.rand(1500)

    def slow():
        out = torch.empty_like(x)
        for i in range(x.shape[0]):
            out[i] = x[i] * 2.0 + 1.0
        return out

    fs = top3(profile(slow))
    hit = [f for f in fs if f.rule == "small_ops"]
    assert hit and hit[0].est_gain_pct > 50


def test_iterating_a_tensor_counts_the_split_into_rows_as_part_of_the_loop():
    # `for t in x` is one aten::unbind making a select per row, then Python wraps each row: the loop of
    # tiny ops starts there, not at the first .item()
    x = torch.rand(20_000)     # a run of ~0.1 s: a few call-site samples (one per 25 ms)

    def slow():
        return [t.item() for t in x]

    prof = profile(slow)
    fs = findings(prof)
    small = [f for f in fs if f.rule == "small_ops"]
    by_line = [g for g in fs if g.rule == "tiny_ops_by_line"]
    # the loop is found; by which rule depends on this short run's timing on a busy 2-core machine
    assert small or by_line
    if small:
        f = small[0]
        unbind = prof.events[prof.events["name"].astype(str) == "aten::unbind"].iloc[0]
        assert f.evidence["region_ns"] >= unbind["dur_ns"]
        assert f.evidence["ops"] == 20_001        # the unbind and the .item() calls
        assert f.est_gain_pct > 50
    if small and by_line:   # the same loop seen by its call site says the same
        assert len(by_line) == 1
        g = by_line[0]
        assert abs(g.est_gain_pct - g.evidence["line_share"] * small[0].est_gain_pct) < 3.0


def test_float64_matmuls_are_flagged():
    a = torch.randn(256, 256, dtype=torch.float64)

    def slow():
        acc = a
        for _ in range(8):
            acc = torch.tanh(acc @ a) * 0.5
        return acc

    fs = top3(profile(slow))
    hit = [f for f in fs if f.rule == "float64"]
    assert hit and 20 < hit[0].est_gain_pct < 70
    assert "aten::mm" in hit[0].ops or "aten::matmul" in hit[0].ops


def test_hoistable_inverse_is_redundant():
    g = torch.Generator().manual_seed(0)
    m = torch.randn(128, 128, generator=g)
    A = m @ m.t() + 128 * torch.eye(128)
    x = torch.randn(32, 128, generator=g)

    def slow():
        out = []
        for i in range(10):
            out.append((x * (i + 1)) @ torch.linalg.inv(A))
        return out

    fs = top3(profile(slow))
    assert any(f.category == "redundant" for f in fs), [(f.rule, f.est_gain_pct) for f in fs]


def evaluation(keep_logits: bool, gather: bool = True):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.LayerNorm(64),
                                torch.nn.Linear(64, 4000)).eval()
    batches = torch.randn(12, 256, 32)     # 4 MB of logits per batch: 48 MB kept

    def run():
        kept = []
        with torch.no_grad():
            for x in batches:
                logits = model(x)
                kept.append(logits if keep_logits else logits.argmax(-1))
        return torch.cat(kept).argmax(-1) if gather and keep_logits else kept
    return run


def test_outputs_kept_and_gathered_after_the_loop_cost_the_gathering():
    fs = [f for f in findings(profile(evaluation(keep_logits=True))) if f.rule == "memory_growth"]
    assert fs, "12 batches x 4 MB of logits kept: memory grows"
    (f,) = fs
    assert f.evidence["gathering_ops"] == 1 and "aten::cat" in f.ops
    assert 0 < f.est_gain_pct <= 100 and "argmax" in f.suggestion


def test_growth_without_a_gathering_has_no_time_estimate():
    fs = [f for f in findings(profile(evaluation(keep_logits=True, gather=False))) if f.rule == "memory_growth"]
    assert fs and all(f.evidence["gathering_ops"] == 0 and f.est_gain_pct != f.est_gain_pct for f in fs)


def test_attention_with_its_weights_returned_is_the_unfused_idiom_and_without_them_is_not():
    # nn.MultiheadAttention with need_weights=True (its default) scales the query, then bmm, softmax, bmm:
    # the unfused path; need_weights=False takes scaled_dot_product_attention
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(64, 4, batch_first=True)
    x = torch.randn(8, 256, 64)

    def run(need):
        def fn():
            for _ in range(4):
                mha(x, x, x, need_weights=need)[0].sum().backward()
        return [f for f in findings(profile(fn)) if f.rule == "unfused_idiom"]

    (f,) = [f for f in run(True) if f.evidence["idiom"] == "attention_unfused"]
    assert f.evidence["count"] >= 4
    assert [f for f in run(False) if f.evidence["idiom"] == "attention_unfused"] == []


W = torch.rand(16, 16) * 0.1
XS = torch.rand(12_000, 16)


def recurrent():
    h = torch.zeros(16)
    for t in range(XS.shape[0]):
        h = torch.tanh(W @ h + XS[t])
    return h


def rows():
    out = torch.empty_like(XS)
    for t in range(XS.shape[0]):
        out[t] = torch.tanh(W @ XS[t] + XS[t])
    return out


def test_a_recurrence_keeps_its_steps_where_independent_rows_batch():
    # the same tiny ops per pass; only the recurrence feeds each pass's h into the next
    seq, ind = profile(recurrent), profile(rows)
    loops = seq.meta["call_sites"]["loops"]
    assert [lp["carried"] for lp in loops if lp["line"] == recurrent.__code__.co_firstlineno + 2] == [["h"]]
    assert [lp["carried"] for lp in ind.meta["call_sites"]["loops"] if lp["line"] == rows.__code__.co_firstlineno + 2] \
        == [[]]
    tiny = {"small_ops", "tiny_ops_by_line"}
    seq_f = [f for f in findings(seq) if f.rule in tiny]
    ind_f = [f for f in findings(ind) if f.rule in tiny]
    assert ind_f and all("sequential" not in f.evidence for f in ind_f)
    assert max(f.est_gain_pct for f in ind_f) > 50
    # the recurrence's ops stay: the sampled stacks put the run in its dependent line; whatever is still
    # claimed is small, and says why
    from cann_nb.analyze.context import context
    from cann_nb.analyze.sequential_loops import sampled_share
    assert sampled_share(context(seq))[0] > 0.8 and sampled_share(context(ind))[0] == 0.0
    assert all(f.est_gain_pct < 25 and f.evidence["sequential"]["sampled_share"] > 0.8 for f in seq_f)


LSTM = torch.nn.LSTM(16, 32)
SEQ = torch.randn(400, 8, 16)


def lstm_stepped():
    h = c = torch.zeros(1, 8, 32)
    outs = []
    with torch.no_grad():
        for t in range(SEQ.shape[0]):
            o, (h, c) = LSTM(SEQ[t:t + 1], (h, c))
            outs.append(o)
    return torch.cat(outs)


def lstm_whole():
    with torch.no_grad():
        return LSTM(SEQ)[0]


def test_a_recurrent_layer_stepped_by_hand_is_small_ops_though_its_state_is_carried():
    # the loop carries (h, c), but the layer runs the recurrence itself when given the whole sequence:
    # each call is per-call cost around a few hundred ns of arithmetic
    (f,) = [f for f in findings(profile(lstm_stepped)) if f.rule == "small_ops"]
    assert f.evidence["sequential"]["recurrent_steps"]["calls"] == 400
    assert f.est_gain_pct > 50 and "whole sequence" in f.suggestion
    assert [f for f in findings(profile(lstm_whole)) if f.rule in ("small_ops", "tiny_ops_by_line")] == []
