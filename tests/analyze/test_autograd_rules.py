"""unused_gradients on real CPU training profiles (torch collector, default shapes): a backbone left with
requires_grad=True while the optimizer trains only the head is found, with the backbone's backward as
the gain; the same loop with the backbone frozen, and a model trained whole, are not."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from cann_nb.analyze.rules import findings  # noqa: E402
from cann_nb.analyze.rules.autograd import _shapes_of  # noqa: E402

from .test_torch_cpu import profile  # noqa: E402  (the same in-process torch profile)

nn = torch.nn


def train(freeze: bool, whole: bool = False, optimizer=torch.optim.SGD):
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1),
                             nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten())
    head = nn.Linear(64, 5)
    if freeze:
        backbone.requires_grad_(False)
    params = list(backbone.parameters()) + list(head.parameters()) if whole else head.parameters()
    opt = optimizer(params, lr=0.01)
    x, y = torch.randn(32, 3, 24, 24), torch.randint(0, 5, (32,))

    def run():
        for _ in range(6):
            loss = nn.functional.cross_entropy(head(backbone(x)), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return run


def rule(prof):
    errors = []
    # the logic, not the share threshold, is under test here (shares move with the machine's load)
    fs = findings(prof, errors=errors, overrides={"unused_gradients": {"min_pct": 0.0}})
    assert not [e for e in errors if e["rule"] == "unused_gradients"], errors
    return [f for f in fs if f.rule == "unused_gradients"]


def adam_foreach(params, lr):
    return torch.optim.Adam(params, lr=lr, foreach=True)   # multi-tensor ops: TensorList shapes


@pytest.mark.parametrize("optimizer", [torch.optim.SGD, adam_foreach])
def test_backward_through_an_untrained_backbone_is_found(optimizer):
    (f,) = rule(profile(train(freeze=False, optimizer=optimizer)))
    ev = f.evidence
    assert f.category == "redundant"
    assert sorted(map(tuple, ev["trained_shapes"])) == [(5,), (5, 64)]
    assert (16, 3, 3, 3) in map(tuple, ev["frozen_shapes"]) and ev["backward_passes"] == 6
    assert math.isfinite(f.est_gain_pct) and 0 < f.est_gain_pct <= 100
    assert "requires_grad_(False)" in f.suggestion


@pytest.mark.parametrize("freeze, whole", [(True, False), (False, True)])
def test_a_frozen_backbone_or_a_model_trained_whole_is_not(freeze, whole):
    assert rule(profile(train(freeze=freeze, whole=whole))) == []


def test_shapes_of_reads_a_tensor_or_a_tensor_list():
    assert _shapes_of("[[10,1024],[]]") == [(10, 1024)]
    assert _shapes_of("[[[10,1024],[10]],[[10,1024],[10]]]") == [(10, 1024), (10,)]
    assert _shapes_of("[[],[]]") == [] and _shapes_of(None) == [] and _shapes_of("not json") == []


def blocks(checkpointed: bool):
    from torch.utils.checkpoint import checkpoint

    torch.manual_seed(0)
    layers = nn.ModuleList(nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.GroupNorm(2, 8), nn.ReLU())
                           for _ in range(3))
    head = nn.Linear(8, 3)
    opt = torch.optim.SGD(list(layers.parameters()) + list(head.parameters()), lr=0.01)
    x, y = torch.randn(16, 8, 16, 16), torch.randint(0, 3, (16,))

    def run():
        for _ in range(4):
            h = x
            for block in layers:
                h = checkpoint(block, h, use_reentrant=False) if checkpointed else block(h)
            loss = nn.functional.cross_entropy(head(h.mean((2, 3))), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return run


def recomputed(prof):
    errors = []
    fs = findings(prof, errors=errors, overrides={"recomputed_forward": {"min_pct": 0.0}})
    assert not [e for e in errors if e["rule"] == "recomputed_forward"], errors
    return [f for f in fs if f.rule == "recomputed_forward"]


def test_checkpointed_blocks_recomputed_in_backward_are_found():
    (f,) = recomputed(profile(blocks(checkpointed=True)))
    assert f.category == "redundant"
    assert {"aten::conv2d", "aten::group_norm"} <= set(f.evidence["layers"])
    # three blocks x four steps: each block's conv, group norm and relu run again
    assert f.evidence["recomputed_ops"] >= 3 * 4 * 2
    assert math.isfinite(f.est_gain_pct) and 0 < f.est_gain_pct <= 100


def test_blocks_without_checkpointing_are_not():
    assert recomputed(profile(blocks(checkpointed=False))) == []


def multitask(mode: str):
    """A shared trunk and two heads; ``mode``: one backward per loss on the shared graph (retain_graph),
    one backward of the summed losses, or gradient accumulation (a forward and a backward per micro-batch)."""
    torch.manual_seed(0)
    trunk = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
    head_a, head_b = nn.Linear(64, 4), nn.Linear(64, 1)
    params = list(trunk.parameters()) + list(head_a.parameters()) + list(head_b.parameters())
    opt = torch.optim.SGD(params, lr=0.01)
    x, ya, yb = torch.randn(64, 32), torch.randint(0, 4, (64,)), torch.randn(64, 1)

    def losses(xs, ys_a, ys_b):
        z = trunk(xs)
        return nn.functional.cross_entropy(head_a(z), ys_a), nn.functional.mse_loss(head_b(z), ys_b)

    def run():
        for _ in range(6):
            opt.zero_grad()
            if mode == "per_loss":
                la, lb = losses(x, ya, yb)
                la.backward(retain_graph=True)
                lb.backward()
            elif mode == "summed":
                la, lb = losses(x, ya, yb)
                (la + lb).backward()
            else:
                for part in range(4):
                    s = slice(16 * part, 16 * part + 16)
                    la, lb = losses(x[s], ya[s], yb[s])
                    (la + lb).backward()
            opt.step()
    return run


def repeated(prof):
    errors = []
    fs = findings(prof, errors=errors, overrides={"repeated_backward": {"min_pct": 0.0}})
    assert not [e for e in errors if e["rule"] == "repeated_backward"], errors
    return [f for f in fs if f.rule == "repeated_backward"]


def test_one_backward_per_loss_on_a_shared_graph_is_found():
    (f,) = repeated(profile(multitask("per_loss")))
    assert f.category == "redundant"
    # the trunk's two linears and two relus walked twice: 4 layers (+ their transposes) once more per step
    assert {"AddmmBackward0", "ReluBackward0"} <= set(f.evidence["by_node"])
    assert f.evidence["median_repeated_per_step"] >= 4
    assert math.isfinite(f.est_gain_pct) and 0 < f.est_gain_pct <= 100
    assert "backward once" in f.suggestion


@pytest.mark.parametrize("mode", ["summed", "accumulate"])
def test_a_summed_loss_or_gradient_accumulation_is_not(mode):
    assert repeated(profile(multitask(mode))) == []


def test_forward_name_of_an_autograd_node():
    from cann_nb.analyze.rules.autograd import _forward_name
    assert _forward_name("autograd::engine::evaluate_function: NativeLayerNormBackward0") == "aten::native_layer_norm"
    assert _forward_name("autograd::engine::evaluate_function: AddmmBackward0") == "aten::addmm"
    assert _forward_name("autograd::engine::evaluate_function: MaxPool2DWithIndicesBackward0") == \
        "aten::max_pool2d_with_indices"


def test_a_training_steps_activations_and_gradients_are_not_large_temporaries():
    # big activations allocated afresh every step: autograd keeps them for backward, in place cannot apply
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 512))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(512, 512)

    def run():
        for _ in range(6):
            loss = model(x).square().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    fs = findings(profile(run), overrides={"large_temporaries": {"min_pct": 0.0}})
    assert [f for f in fs if f.rule == "large_temporaries"] == []
