"""discarded_output on real CPU profiles (torch collector, default shapes): an output head computed for
every position of which the last is kept is found with the kept fraction from the recorded arguments; the
head computed on the last position only, and logits sliced for a look while a loss uses them all, are not."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from cann_nb.analyze.rules import findings  # noqa: E402
from cann_nb.analyze.rules.discarded import product_output  # noqa: E402

from .test_torch_cpu import profile  # noqa: E402  (the same in-process torch profile)

HEAD = torch.nn.Linear(128, 8000)
HIDDEN = torch.randn(8, 64, 128)
TARGET = torch.randint(0, 8000, (8 * 64,))


def rule(prof):
    errors = []
    fs = findings(prof, errors=errors)
    assert not [e for e in errors if e["rule"] == "discarded_output"], errors
    return [f for f in fs if f.rule == "discarded_output"]


def test_a_head_over_every_position_of_which_one_is_kept_is_found():
    def slow():
        with torch.no_grad():
            return [HEAD(HIDDEN)[:, -1, :].argmax(-1) for _ in range(6)]

    [f] = rule(profile(slow))
    assert f.category == "redundant" and f.ops[0] == "aten::linear"
    assert f.evidence["output_shape"] == [8, 64, 8000] and f.evidence["calls"] == 6
    assert f.evidence["kept_fraction"] == pytest.approx(1 / 64)
    # the gain is the product's time less its kept share, at most
    assert math.isfinite(f.est_gain_pct) and 0 < f.est_gain_ns <= f.evidence["time_ns"] * (1 - 1 / 64) * 1.01


def test_a_head_on_the_kept_position_and_a_loss_over_all_are_not():
    def fixed():
        with torch.no_grad():
            return [HEAD(HIDDEN[:, -1, :]).argmax(-1) for _ in range(6)]

    def training_look():
        out = []
        for _ in range(6):
            logits = HEAD(HIDDEN)
            out.append(logits[:, -1, :].argmax(-1))      # a look at the last position...
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 8000), TARGET)   # ...all are used
            out.append(loss.detach())
        return out

    assert rule(profile(fixed)) == []
    assert rule(profile(training_look)) == []


def test_product_output_shapes():
    assert product_output("aten::linear", [[4, 7, 16], [32, 16], [32]]) == (4, 7, 32)
    assert product_output("aten::addmm", [[32], [5, 16], [16, 32]]) == (5, 32)
    assert product_output("aten::matmul", [[3, 1, 5, 6], [4, 6, 2]]) == (3, 4, 5, 2)
    assert product_output("aten::matmul", [[6], [6, 2]]) is None      # a vector operand: not a row product


def test_the_full_fft_of_a_real_signal_sliced_to_its_first_half_is_found_and_rfft_is_not():
    frames = torch.rand(64, 50, 512)

    [f] = rule(profile(lambda: (torch.fft.fft(frames).abs() ** 2)[..., :257]))
    assert f.title.startswith("aten::fft_fft computes a 64x50x512 result (and 2 elementwise op(s) on it)")
    assert f.evidence["output_shape"] == [64, 50, 512]
    assert f.evidence["kept_fraction"] == pytest.approx(257 / 512)
    assert f.evidence["products"][0]["carried_by"] == ["aten::abs", "aten::pow"]
    assert rule(profile(lambda: torch.fft.rfft(frames).abs() ** 2)) == []
