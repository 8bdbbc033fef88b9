"""Gradients that no optimizer uses: parameters left with ``requires_grad=True`` while the optimizer is
given only some of them (a "frozen" backbone under a trained head), so every ``backward()`` runs the
backward of the frozen part and accumulates gradients nobody reads.

Seen from the work: the optimizer's step (torch's ``Optimizer.step#...`` label) touches the trained
parameters, so the shapes of the tensors its ops update are the trained parameters' shapes; an
``AccumulateGrad`` node whose gradient has none of those shapes belongs to a parameter the optimizer never
updates. Within each backward pass (the autograd nodes between two optimizer steps), every node run after
the last node that a trained parameter needs serves only such parameters: freezing them
(``requires_grad_(False)``) removes it. A shape shared by a trained and a frozen parameter counts as
trained, so the estimate leans low.
"""

from __future__ import annotations

import json
import re

import numpy as np

from ... import formatting as F
from .base import METHOD_CP, make_finding, pct, replay_gain

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
    acc_shape = [(_shapes_of(t) or [None])[0] for t in shapes[acc]]
    frozen_acc = np.array([sh is not None and sh not in trained for sh in acc_shape])
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
    for p in np.unique(acc_pass[frozen_acc]):
        needed = acc_node[(acc_pass == p) & ~frozen_acc]
        if not len(needed):
            continue      # no trained parameter in this pass: its other work may serve something else
        after = int(ctx.end[needed].max())
        wasted[nodes[(pass_of == p) & (ctx.start[nodes] >= after)]] = True
    rows = np.flatnonzero(wasted)
    t = float(ctx.dur[rows].sum())
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    gain, conf = replay_gain(ctx, seg_factor=ctx.replay.seg_factor_for(wasted, 0.0))
    frozen_shapes = sorted({acc_shape[i] for i in np.flatnonzero(frozen_acc)})
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
