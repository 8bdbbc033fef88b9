"""Autograd work that a training loop does not need.

``unused_gradients``: gradients that no optimizer uses: parameters left with ``requires_grad=True`` while the optimizer is
given only some of them (a "frozen" backbone under a trained head), so every ``backward()`` runs the
backward of the frozen part and accumulates gradients nobody reads.

Seen from the work: the optimizer's step (torch's ``Optimizer.step#...`` label) touches the trained
parameters, so the shapes of the tensors its ops update are the trained parameters' shapes; an
``AccumulateGrad`` node whose gradient has none of those shapes belongs to a parameter the optimizer never
updates. Within each backward pass (the autograd nodes between two optimizer steps), every node run after
the last node that a trained parameter needs serves only such parameters: freezing them
(``requires_grad_(False)``) removes it. A shape shared by a trained and a frozen parameter counts as
trained, so the estimate leans low.

``recomputed_forward``: layers' forward ops run again inside backward (activation checkpointing).

``repeated_backward``: a layer's backward run more often than its forward within an optimizer step
(one ``backward(retain_graph=True)`` per loss on a shared graph).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd

from ... import formatting as F
from ..timeline import ancestor_flag
from .base import METHOD_CP, covered_ns, make_finding, pct, replay_gain

OPTIMIZER_STEP_RE = re.compile(r"^Optimizer\.step#")
NODE_RE = re.compile(r"^autograd::engine::evaluate_function: ")
ACCUMULATE_RE = re.compile(r"^torch::autograd::AccumulateGrad$")


def _shapes_of(text) -> list[tuple]:
    """The tensor shapes of an op's first input: one shape, or each tensor of a TensorList
    (``_foreach_*`` and fused optimizer ops)."""
    try:
        first = json.loads(text)[0]
    except (TypeError, ValueError, IndexError, KeyError):
        return []
    if not isinstance(first, list) or not first:
        return []
    if all(isinstance(x, list) for x in first):
        return [tuple(x) for x in first if x]
    return [tuple(first)] if all(isinstance(x, int) for x in first) else []


def _trained_shapes(ctx, steps: np.ndarray) -> set:
    """Shapes of the tensors the optimizer's ops update inside its step spans."""
    shapes = ctx.events["shapes"].to_numpy()
    s, e = ctx.start[steps], ctx.end[steps]
    order = np.argsort(s)
    s, e = s[order], e[order]
    ops = np.flatnonzero(ctx.flag(re.compile(r"^aten::")) & ctx.is_host)
    k = np.searchsorted(s, ctx.start[ops], side="right") - 1
    inside = ops[(k >= 0) & (ctx.start[ops] < e[np.maximum(k, 0)])]
    out: set = set()
    for text in set(shapes[inside].tolist()):
        out.update(_shapes_of(text))
    return out


def unused_gradients(ctx, th):
    """Backward work that only serves parameters no optimizer updates. Gain: those autograd nodes
    removed, replayed."""
    if not ctx.n:
        return
    steps = np.flatnonzero(ctx.flag(OPTIMIZER_STEP_RE))
    acc = np.flatnonzero(ctx.flag(ACCUMULATE_RE))
    if not len(steps) or not len(acc):
        return
    trained = _trained_shapes(ctx, steps)
    if not trained:
        return
    shapes = ctx.events["shapes"].to_numpy()
    # each distinct shapes text parsed once
    codes, texts = pd.factorize(pd.Series(shapes[acc]).astype(object).fillna(""))
    parsed = [(_shapes_of(t) or [None])[0] for t in texts]
    frozen_of = np.array([sh is not None and sh not in trained for sh in parsed] + [False], dtype=bool)
    frozen_acc = frozen_of[codes]          # code -1 (no shapes): the appended False
    if not frozen_acc.any():
        return
    # each AccumulateGrad as its autograd node (the evaluate_function span around it)
    parent = ctx.rows_of_parent[acc]
    acc_node = np.where((parent >= 0) & ctx.flag(NODE_RE)[np.maximum(parent, 0)], parent, acc)
    nodes = np.flatnonzero(ctx.flag(NODE_RE))
    nodes = nodes[~ctx.flag(NODE_RE)[np.maximum(ctx.rows_of_parent[nodes], 0)] | (ctx.rows_of_parent[nodes] < 0)]
    step_starts = np.sort(ctx.start[steps])
    pass_of = np.searchsorted(step_starts, ctx.start[nodes], side="right")
    acc_pass = np.searchsorted(step_starts, ctx.start[acc_node], side="right")
    wasted = np.zeros(ctx.n, dtype=bool)
    wasted[acc_node[frozen_acc]] = True
    # per pass, the end of the last node a trained parameter needs; a pass without one is left alone
    # (its other work may serve something else)
    n_pass = len(step_starts) + 1
    after = np.full(n_pass, np.iinfo(np.int64).max)
    has = np.zeros(n_pass, dtype=bool)
    has[acc_pass[~frozen_acc]] = True
    last_needed = np.full(n_pass, np.iinfo(np.int64).min)
    np.maximum.at(last_needed, acc_pass[~frozen_acc], ctx.end[acc_node[~frozen_acc]].astype(np.int64))
    after[has] = last_needed[has]
    frozen_pass = np.zeros(n_pass, dtype=bool)
    frozen_pass[acc_pass[frozen_acc]] = True
    wasted[nodes[frozen_pass[pass_of] & (ctx.start[nodes] >= after[pass_of])]] = True
    rows = np.flatnonzero(wasted)
    got = _removed(ctx, rows, th["min_pct"])
    if got is None:
        return
    t, gain, conf = got
    frozen_shapes = sorted({parsed[c] for c in np.unique(codes[frozen_acc])})
    n_params = int(np.bincount(acc_pass[frozen_acc]).max())      # frozen tensors per backward pass
    elements = int(sum(int(np.prod(s)) for s in frozen_shapes))    # each distinct shape once
    passes = int(len(np.unique(acc_pass)))
    title = (f"Backward computes gradients for parameters no optimizer updates ({n_params} tensors of "
             f"{len(frozen_shapes)} shape(s), e.g. {list(frozen_shapes[-1])}): {F.ns(t)} of backward over {passes} pass(es) "
             f"serves only them ({pct(t, ctx.wall):.0f}% of end-to-end)")
    sugg = ("Freeze what the optimizer does not train: module.requires_grad_(False) on the frozen part (or run it "
            "under torch.no_grad() and feed its output to the trained part); backward then stops at the first "
            "trained layer and no gradients are accumulated for the frozen weights. Giving the optimizer only "
            "some parameters does not freeze the others.")
    evidence = {"frozen_tensors": n_params, "frozen_shapes": [list(s) for s in frozen_shapes][:20],
                "frozen_elements_by_shape": elements,
                "trained_shapes": sorted(list(s) for s in trained)[:20], "wasted_nodes": int(len(rows)),
                "wasted_ns": t, "backward_passes": passes}
    yield make_finding(ctx, "unused_gradients", "redundant", title, evidence=evidence,
                       ops=["torch::autograd::AccumulateGrad"], suggestion=sugg, gain_ns=gain,
                       method=METHOD_CP + " (the nodes serving only untrained parameters removed)",
                       confidence=conf * 0.7, rows=rows, affected_ns=t)


# forward ops of whole layers: backward formulas call their *_backward counterparts, never these, so one
# run inside a backward node is the layer's forward computed again (activation checkpointing)
LAYER_FORWARD_RE = re.compile(r"^aten::(conv[123]d|conv_transpose[123]d|linear|layer_norm|group_norm|batch_norm|"
                              r"instance_norm|rms_norm|embedding|scaled_dot_product_attention|lstm|gru|rnn_tanh|"
                              r"gelu|silu|softmax|log_softmax)$")
BACKWARD_NAME_RE = re.compile(r"(_backward|Backward\d*)$")


def recomputed_forward(ctx, th):
    """Forward layers run again inside backward: activation checkpointing
    (``torch.utils.checkpoint``) recomputes each checkpointed block's forward when its gradients are
    needed, trading compute for memory. Within every backward node that runs a layer's forward op
    (``LAYER_FORWARD_RE``), the recomputed block is its outermost ops that also ran, with the same
    shapes, in the forward pass. Gain: that recomputation removed (checkpointing off), replayed; it
    costs the activations' memory, which the suggestion names."""
    if not ctx.n:
        return
    node = ctx.flag(NODE_RE)
    if not node.any():
        return
    ops = ctx.flag(re.compile(r"^aten::")) & ctx.is_host
    parent = ctx.rows_of_parent
    # outermost aten ops and the backward node (if any) they run in
    rows = np.flatnonzero(ops)
    p = parent[rows]
    rows = rows[(p < 0) | ~ops[np.maximum(p, 0)]]
    owner = _enclosing(ctx, rows, node)
    in_bwd = owner >= 0
    # (imported traces may have no shapes: NaN)
    shapes = pd.Series(ctx.events["shapes"].to_numpy()[rows]).astype(object).fillna("").astype(str)
    key = (pd.Series(ctx.name_code[rows]).astype(str) + "|" + shapes).to_numpy()
    layer = ctx.flag(LAYER_FORWARD_RE)[rows] & in_bwd
    nodes_with_layer = np.unique(owner[layer])
    cand = in_bwd & np.isin(owner, nodes_with_layer) & ~ctx.flag(BACKWARD_NAME_RE)[rows]
    cand &= pd.Series(key).isin(key[~in_bwd]).to_numpy()
    again = rows[cand]
    if not len(again):
        return
    got = _removed(ctx, again, th["min_pct"])
    if got is None:
        return
    t, gain, conf = got
    layers = sorted({str(x) for x in ctx.names(again[ctx.flag(LAYER_FORWARD_RE)[again]])})
    title = (f"Backward runs the forward again: {len(again):,} forward ops ({', '.join(layers[:3])}) recomputed "
             f"inside backward nodes take {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end): activation "
             "checkpointing")
    sugg = ("Checkpointing (torch.utils.checkpoint) saves activation memory by recomputing each block's forward "
            "in backward. If the activations fit in memory without it (see the memory peak), call the blocks "
            "directly; otherwise checkpoint fewer blocks (every other one) or larger ones.")
    evidence = {"recomputed_ops": int(len(again)), "time_ns": t, "layers": layers,
                "backward_nodes": int(len(nodes_with_layer))}
    yield make_finding(ctx, "recomputed_forward", "redundant", title, evidence=evidence, ops=layers[:3],
                       suggestion=sugg, gain_ns=gain, method=METHOD_CP + " (the recomputed forward removed)",
                       confidence=conf * 0.7, rows=again, affected_ns=t)


def _enclosing(ctx, rows: np.ndarray, flag: np.ndarray) -> np.ndarray:
    """Per row, the nearest enclosing row with ``flag`` (-1: none), by walking parents vectorised."""
    out = np.full(len(rows), -1, dtype=np.int64)
    cur = ctx.rows_of_parent[rows].astype(np.int64)
    todo = np.flatnonzero(cur >= 0)
    while len(todo):
        hit = flag[cur[todo]]
        out[todo[hit]] = cur[todo[hit]]
        todo = todo[~hit]
        cur[todo] = ctx.rows_of_parent[cur[todo]]
        todo = todo[cur[todo] >= 0]
    return out


def _removed(ctx, rows: np.ndarray, min_pct: float):
    """(time the rows cover, gain, confidence) of a run without them, or None under ``min_pct``."""
    t = covered_ns(ctx, rows)
    if pct(t, ctx.wall) < min_pct:
        return None
    mask = np.zeros(ctx.n, dtype=bool)
    mask[rows] = True
    gain, conf = replay_gain(ctx, seg_factor=ctx.replay.seg_factor_for(mask, 0.0))
    return t, gain, conf


def _forward_name(node_name: str) -> str:
    """``autograd::engine::evaluate_function: NativeLayerNormBackward0`` -> ``aten::native_layer_norm``:
    the forward op an autograd node differentiates (torch names nodes after their op, CamelCase)."""
    base = re.sub(r"Backward\d*$", "", node_name.split(": ", 1)[-1])
    base = re.sub(r"(\d)D", r"\1d", base)                     # MaxPool2D -> max_pool2d
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", base).lower()
    return "aten::" + snake


def repeated_backward(ctx, th):
    """A layer's backward run more often than its forward between two optimizer steps: ``backward()``
    called once per loss on a shared graph (``retain_graph=True``) walks the shared part once per loss.
    Gradient accumulation runs a forward before each backward, and checkpointing a forward again inside
    it, so neither counts. Per step window and per op, the backward nodes beyond the forward count are the
    repeated work. Gain: those nodes removed (one backward of the summed losses), replayed."""
    steps = np.flatnonzero(ctx.flag(OPTIMIZER_STEP_RE))
    node = ctx.flag(NODE_RE)
    if len(steps) < 2 or not node.any():
        return
    bounds = np.sort(ctx.start[steps])
    window = lambda rows: np.searchsorted(bounds, ctx.start[rows], side="right")  # noqa: E731
    nodes = np.flatnonzero(node)
    nodes = nodes[~node[np.maximum(ctx.rows_of_parent[nodes], 0)] | (ctx.rows_of_parent[nodes] < 0)]
    uniq, inv = np.unique(ctx.names(nodes).astype(str), return_inverse=True)
    fwd_code = np.array([_forward_name(n) for n in uniq], dtype=object)[inv]    # per distinct node name
    ops = np.flatnonzero(ctx.flag(re.compile(r"^aten::")) & ctx.is_host)
    ops = ops[~ancestor_flag(ctx, node)[ops]]     # forward: outside backward nodes, nested ops included
    fwd = pd.DataFrame({"w": window(ops), "name": ctx.names(ops).astype(str)}).value_counts()
    df = pd.DataFrame({"row": nodes, "w": window(nodes), "name": fwd_code, "start": ctx.start[nodes]})
    df = df[(df["w"] > 0) & (df["w"] < len(bounds))]               # whole step windows only
    if not len(df):
        return
    df["forward_calls"] = fwd.reindex(pd.MultiIndex.from_frame(df[["w", "name"]])).fillna(0).to_numpy()
    df = df[df["forward_calls"] > 0].sort_values("start")
    df["nth"] = df.groupby(["w", "name"]).cumcount()
    extra = df.loc[df["nth"] >= df["forward_calls"], "row"].to_numpy()
    if not len(extra):
        return
    got = _removed(ctx, extra, th["min_pct"])
    if got is None:
        return
    t, gain, conf = got
    per_step = df[df["nth"] >= df["forward_calls"]].groupby("w").size()
    names = pd.Series(ctx.names(extra).astype(str)).str.split(": ").str[-1].value_counts()
    title = (f"Backward walks the same layers more than once per optimizer step: {len(extra):,} autograd nodes "
             f"beyond one per forward op ({names.index[0]} and {len(names) - 1} more) take {F.ns(t)} "
             f"({pct(t, ctx.wall):.0f}% of end-to-end)")
    sugg = ("Several backward() calls share one forward graph (retain_graph=True, one call per loss): add the "
            "losses and call backward once, e.g. (loss_a + loss_b + loss_c).backward(); the accumulated "
            "gradients are the same. If the losses must stay separate (different weights per step), "
            "torch.autograd.backward([loss_a, loss_b]) still walks the shared part once.")
    evidence = {"repeated_nodes": int(len(extra)), "time_ns": t, "steps": int(len(per_step)),
                "median_repeated_per_step": float(per_step.median()),
                "by_node": {str(k): int(v) for k, v in names.head(8).items()}}
    yield make_finding(ctx, "repeated_backward", "redundant", title, evidence=evidence,
                       ops=[str(x) for x in names.index[:3]], suggestion=sugg, gain_ns=gain,
                       method=METHOD_CP + " (backward nodes beyond one per forward op removed)",
                       confidence=conf * 0.7, rows=extra, affected_ns=t)
