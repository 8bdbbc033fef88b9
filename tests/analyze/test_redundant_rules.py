"""rebuilt_per_call and sort_for_topk on real CPU profiles (torch collector, default shapes): each fires on
the planted problem with a gain in (0, 100] and stays silent on the look-alike that is not one (a model
built once, per-step dropout/randn noise, a sort whose whole result is used)."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from cann_nb.analyze.rules import findings  # noqa: E402
from cann_nb.analyze.rules.redundant import topk_cost_ratio  # noqa: E402

from .test_torch_cpu import profile  # noqa: E402  (the same in-process torch profile)

nn = torch.nn


def by_rule(prof, rule):
    errors = []
    fs = findings(prof, errors=errors)
    assert not [e for e in errors if e["rule"] in ("rebuilt_per_call", "sort_for_topk")], errors
    return [f for f in fs if f.rule == rule]


def assert_gain(f):
    assert f.category == "redundant"
    assert math.isfinite(f.est_gain_pct) and 0 < f.est_gain_pct <= 100


# -- rebuilt_per_call --------------------------------------------------------------------------------------
X = torch.randn(8, 512)


def test_layer_built_in_the_loop_is_found():
    def slow():
        out = []
        for _ in range(8):
            layer = nn.Linear(512, 512)          # fresh random weights every call
            with torch.no_grad():
                out.append(layer(X))
        return out

    [f] = by_rule(profile(slow), "rebuilt_per_call")
    assert_gain(f)
    ev = f.evidence
    assert ev["constructions"] >= 7 and ev["parameter_shapes"] == [[512, 512], [512]]
    assert "aten::uniform_" in f.ops
    # the fix keeps one of the 8 constructions: about 7/8 of their time goes (timings vary on a busy machine)
    assert 0.5 * ev["construction_ns"] < f.est_gain_ns <= ev["construction_ns"]
    assert "once" in f.suggestion


def test_module_with_several_layers_built_per_call_is_found():
    def make():   # several modules, each its own construction run (Linear, LayerNorm: fill_/zero_, Linear)
        return nn.Sequential(nn.Linear(512, 1024), nn.LayerNorm(1024), nn.Linear(1024, 512))

    def slow():
        with torch.no_grad():
            return [make()(X[:2]) for _ in range(6)]

    [f] = by_rule(profile(slow), "rebuilt_per_call")
    assert_gain(f)
    ev = f.evidence
    assert ev["constructions"] >= 5 and ev["groups"] == 3 and ev["runs"] == 3 * ev["constructions"]


def test_model_built_once_and_called_in_a_loop_is_not():
    model = nn.Sequential(*[nn.Linear(512, 512) for _ in range(6)])   # identical blocks, built once

    def fixed():
        with torch.no_grad():
            return [model(X) for _ in range(40)]

    def build_and_run():
        m = nn.Sequential(*[nn.Linear(512, 512) for _ in range(6)])       # built once in the profiled code
        with torch.no_grad():
            return [m(X) for _ in range(10)]

    assert not by_rule(profile(fixed), "rebuilt_per_call")
    assert not by_rule(profile(build_and_run), "rebuilt_per_call")


def test_per_step_randomness_is_not():
    model = nn.Linear(512, 512)
    drop = nn.Dropout(0.5).train()

    def noisy():
        out = []
        for _ in range(30):
            noise = torch.randn(64, 512)                    # diffusion-style noise
            u = torch.empty(64, 512).uniform_()             # sampler noise
            out.append(model(drop(noise) + u))
        return out

    assert not by_rule(profile(noisy), "rebuilt_per_call")


# -- sort_for_topk ---------------------------------------------------------------------------------------
SCORES = torch.randn(200, 2048)


def test_sort_then_slice_is_found():
    def slow():
        return [torch.sort(SCORES, dim=1, descending=True).values[:, :8] for _ in range(4)]

    [f] = by_rule(profile(slow), "sort_for_topk")
    assert_gain(f)
    ev = f.evidence
    assert (ev["n"], ev["k"]) == (2048, 8) and ev["calls"] == 4
    assert "torch.topk(" in f.suggestion and "aten::sort" in f.ops
    assert ev["topk_cost_ratio"] == pytest.approx(topk_cost_ratio(2048, 8))


def test_argsort_of_a_vector_then_head_is_found():
    v = torch.randn(400_000)

    def slow():
        return [torch.argsort(v, descending=True)[:100] for _ in range(3)]

    [f] = by_rule(profile(slow), "sort_for_topk")
    assert_gain(f)
    assert (f.evidence["n"], f.evidence["k"]) == (400_000, 100)


def test_sort_whose_whole_result_is_used_is_not():
    logits = torch.randn(64, 8192)

    def top_p():                       # nucleus sampling needs the whole order (cumsum over it)
        out = []
        for _ in range(4):
            s, idx = torch.sort(logits, dim=-1, descending=True)
            cum = s.softmax(-1).cumsum(-1)
            out.append((cum < 0.9).sum(-1))
        return out

    def half():                        # half of the elements: not k << n
        return [torch.sort(SCORES, dim=1).values[:, :1024] for _ in range(4)]

    assert not by_rule(profile(top_p), "sort_for_topk")
    assert not by_rule(profile(half), "sort_for_topk")


def test_topk_cost_ratio():
    assert 0 < topk_cost_ratio(4096, 10) < math.log2(10) / math.log2(4096)   # expected case under the bound
    assert topk_cost_ratio(4096, 10) < topk_cost_ratio(4096, 500) <= 1.0
    assert topk_cost_ratio(1_000_000, 100) < topk_cost_ratio(4096, 100)
