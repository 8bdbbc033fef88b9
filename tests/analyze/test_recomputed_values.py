"""recomputed_values (analyze/rules/same_values.py) on real torch.profiler runs with the default options:
work repeated on unchanged values is found with the calls a reuse removes; loops whose repeats are
the surrounding code's own (a timing loop, recorded steps) and loops over new values are left alone."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cann_nb.analyze import findings  # noqa: E402
from cann_nb.analyze.rules.same_values import _range_min  # noqa: E402
from cann_nb.collect.base import CollectOptions  # noqa: E402
from cann_nb.collect.session import CollectionSession  # noqa: E402


def profile(fn, steps: int = 0):
    fn()   # warm-up
    sess = CollectionSession("values", ("torch",), CollectOptions())
    sess.start()
    try:
        if steps:
            for _ in range(steps):
                sess.mark_step()
                fn()
        else:
            fn()
    finally:
        sess.stop()
    return sess.finish()


def found(prof):
    errors = []
    fs = findings(prof, errors=errors)
    assert not errors
    return [f for f in fs if f.rule == "recomputed_values"]


torch.manual_seed(0)
CATALOGUE, W = torch.randn(2000, 256), torch.randn(256, 256) / 16
QUERIES = torch.randn(12, 256)
QUERY_LIST = list(torch.randn(12, 256).unbind())   # views of one storage, made before the profile


def encode(x):
    return torch.nn.functional.normalize(torch.tanh(x @ W), dim=-1)


def per_query():
    return [int((encode(CATALOGUE) @ encode(q[None])[0]).argmax()) for q in QUERIES]


def per_query_of_a_list():
    return [int((encode(CATALOGUE) @ encode(q[None])[0]).argmax()) for q in QUERY_LIST]


def encoded_once():
    emb = encode(CATALOGUE)
    return [int((emb @ encode(q[None])[0]).argmax()) for q in QUERIES]


def test_a_catalogue_encoded_for_every_query_is_found_and_encoded_once_is_not():
    (f,) = found(profile(per_query))
    assert f.category == "redundant" and "recomputed on values it already had: 12 calls where 1 would do" in f.title
    groups = {g["name"]: g for g in f.evidence["groups"]}
    for op in ("aten::matmul", "aten::tanh"):   # the catalogue's encoding; each query's own work runs once
        assert (groups[op]["calls"], groups[op]["kept"], groups[op]["removable"]) == (12, 1, 11)
    assert f.evidence["value_numbering"]["status"] == "complete"
    assert 50 < f.est_gain_pct <= 100     # the catalogue's encoding is nearly all the work
    assert len(found(profile(per_query_of_a_list))) == 1
    assert found(profile(encoded_once)) == []


def test_repeats_of_the_whole_loop_are_the_loops_own():
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.Linear(512, 256))
    x = torch.randn(64, 256)

    def timing_loop():
        with torch.no_grad():
            for _ in range(6):
                model(x)

    def accumulating_loop():
        acc = torch.zeros(64, 256)
        with torch.no_grad():
            for _ in range(6):
                acc += model(x)   # the accumulator differs each time; no new data enters the loop

    batches = list(torch.randn(6 * 64, 256).split(64))   # made before the profile: alike but for offsets

    def over_batches():
        with torch.no_grad():
            for b in batches:
                model(b)

    w, b = torch.randn(256), torch.randn(256)

    def normalising_loop():   # Python numbers make the tail's values unknown; the first pass reads w, b
        for _ in range(8):
            mean = x.mean(-1, keepdim=True)
            var = ((x - mean) ** 2).mean(-1, keepdim=True)
            (x - mean) / torch.sqrt(var + 1e-5) * w + b

    qkv, proj = torch.nn.Linear(256, 3 * 256), torch.nn.Linear(256, 256)

    def attention_loop():   # q, k, v: three parts of one result, alike but for offsets (not new data)
        acc = torch.zeros(64, 256)
        with torch.no_grad():
            for _ in range(6):
                q, k, v = qkv(x).view(64, 3, 4, 64).permute(1, 2, 0, 3).unbind(0)
                acc += proj(torch.nn.functional.scaled_dot_product_attention(q, k, v).transpose(0, 1).reshape(64, 256))

    assert found(profile(timing_loop)) == [] and found(profile(accumulating_loop)) == []
    assert found(profile(normalising_loop)) == [] and found(profile(attention_loop)) == []
    assert found(profile(over_batches)) == []
    # the same thing once per recorded step: repeated by design, not counted across steps
    assert found(profile(lambda: model(x).sum(), steps=6)) == []


def test_a_mask_rebuilt_in_every_layer_is_needed_once():
    layers = [torch.nn.Linear(64, 64) for _ in range(4)]
    x = torch.randn(1, 64)

    def forward():
        h = x
        for lin in layers:   # the same causal mask built again in each layer
            mask = torch.triu(torch.ones(1500, 1500), diagonal=1).bool()
            h = lin(h) + mask[:1, :64].float().sum()
        return h

    def twice():
        with torch.no_grad():
            for _ in range(3):
                forward()

    (f,) = found(profile(twice))
    triu = [g for g in f.evidence["groups"] if g["name"] == "aten::triu"]
    assert triu and triu[0]["calls"] == 12 and triu[0]["kept"] == 1   # built from literals: once is enough
    assert not any(g["name"] == "aten::linear" for g in f.evidence["groups"])   # the forwards are the loop's


CLOUDS = torch.randn(6, 256, 3)
EDGE_LAYERS = [torch.nn.Linear(16, 16) for _ in range(4)]


def knn(xyz):
    return torch.cdist(xyz, xyz).topk(8, dim=1, largest=False).indices


def edge_layers(per_layer: bool):
    with torch.no_grad():
        for i in range(len(CLOUDS)):
            xyz = CLOUDS[i]
            idx = knn(xyz)
            h = torch.ones(256, 16)
            for lin in EDGE_LAYERS:   # each layer's own weights and activations around the same graph
                idx = knn(xyz) if per_layer else idx
                h = torch.relu(lin(h[idx].amax(1)))


def test_a_graph_of_fixed_points_rebuilt_in_every_layer_is_needed_once_per_cloud():
    # no new data enters between the layers, but the work around the graph moves on (other weights, other
    # activations): not a loop replaying itself
    (f,) = found(profile(lambda: edge_layers(per_layer=True)))
    groups = {g["name"]: g for g in f.evidence["groups"]}
    assert (groups["aten::cdist"]["calls"], groups["aten::cdist"]["kept"]) == (5, 1)   # one cloud's graph
    assert f.evidence["removable_calls"] >= 2 * 6 * 4   # cdist and topk, four of five per cloud
    assert not any(g["name"] == "aten::linear" for g in f.evidence["groups"])
    assert found(profile(lambda: edge_layers(per_layer=False))) == []


def test_a_weight_transformed_in_every_forward_is_found_even_in_a_timing_loop():
    base, lora_a, lora_b = torch.randn(512, 512), torch.randn(16, 512) * 0.01, torch.randn(512, 16) * 0.01
    x = torch.randn(4, 512)

    def serve(merged=None):
        acc = torch.zeros(4, 512)
        with torch.no_grad():
            for _ in range(12):   # the same batch every time: the forward's repeats are the loop's own
                w = merged if merged is not None else base + 2.0 * (lora_b @ lora_a)
                acc += torch.nn.functional.linear(x, w)
        return acc

    (f,) = found(profile(serve))
    groups = {g["name"]: g for g in f.evidence["groups"]}
    assert (groups["aten::matmul"]["calls"], groups["aten::matmul"]["kept"]) == (12, 1)
    assert "aten::add" in groups and "aten::linear" not in groups   # the merge, not the forward on the batch
    merged = base + 2.0 * (lora_b @ lora_a)
    assert found(profile(lambda: serve(merged))) == []

    layer = torch.nn.Linear(512, 512)
    opt = torch.optim.SGD(layer.parameters(), lr=0.01)

    def train():   # the weights change every step: their transform is new work each time
        for _ in range(6):
            opt.zero_grad()
            torch.nn.functional.linear(x, layer.weight * 0.5).sum().backward()
            opt.step()

    assert found(profile(train)) == []


def test_range_min_matches_a_direct_minimum():
    rng = np.random.default_rng(1)
    v = rng.integers(0, 100, 257)
    lo = rng.integers(0, 257, 500)
    hi = np.minimum(lo + rng.integers(0, 257, 500), 256)
    assert (_range_min(v, lo, hi) == [v[a:b + 1].min() for a, b in zip(lo, hi)]).all()
