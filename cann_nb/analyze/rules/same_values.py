"""``recomputed_values``: ops run again on inputs holding values they already had -- a fixed catalogue
re-encoded for every query, a mask or position table rebuilt in every layer, a weight's transform inside
the loop. It reads the calls' value signatures (collect/torch_values.py: value numbering over torch's
recorded inputs), not names or durations, so it needs no list of "constant" ops and no fitted threshold.

Which calls are removable (each call's ``value_kind`` says what its inputs were):

* a value computed from literals alone (a mask from ``ones``/``triu``, a position table from ``arange``)
  is needed once, wherever it runs: every later call is removable;
* a value computed from data is repeated needlessly when the work around it ran on new data more often:
  around it means the calls from its second occurrence to its last that read data just entered (a
  query, a batch, a random draw); their smallest count ``r`` is how often the surrounding code itself ran
  (a per-query loop repeats the catalogue's encoding 60 times while each query's own work runs once:
  r = 1, 59 removable). New data must come in between at least two pairs of its consecutive
  occurrences: otherwise the loop repeats its own inputs -- a timing loop ``for _ in range(5): acc +=
  model(x)``, whose first pass alone reads its inputs for the first time -- and its repeats are its own.

Repeats of data across recorded steps (``--repeat``, ``cann_nb.step()``) are by design and not counted.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ... import formatting as F
from ...model import VALUE_CONSTANT as CONSTANT, VALUE_NEW as NEW
from ..steps import steps as recorded_steps
from .base import METHOD_CP, covered_ns, make_finding, pct, top_names
from .compute import _factor_gain

I64 = np.int64
# repeats with no new data between them are a loop's own (a timing loop over one input) unless most calls
# between them compute something seen nowhere else: then the code around them moved on and they did not
NEW_WORK_SHARE = 0.5
NEW_WORK_CALLS = 2   # ... and at least this many per repeat: an accumulator's update alone (acc += f(x)) is not
# ops that return a view of their input (no new values computed)
VIEW_RE = re.compile(r"^aten::(select|slice|narrow|view|_unsafe_view|_reshape_alias|reshape|t|transpose|permute|"
                     r"expand|expand_as|unsqueeze|squeeze|as_strided|alias|detach|flatten|unflatten|diagonal|"
                     r"split|split_with_sizes|chunk|unbind|tensor_split|numpy_T|mT|mH|T|adjoint|view_as|"
                     r"movedim|swapaxes|lift_fresh)$")


def _range_min(values: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """min(values[lo[i] : hi[i] + 1]) for every i: a sparse table, O(n log n) once, O(1) per query."""
    table = [values]
    k = 1
    while 2 * k <= len(values):
        prev = table[-1]
        table.append(np.minimum(prev[:-k], prev[k:]))
        k *= 2
    width = hi - lo + 1
    level = np.floor(np.log2(width)).astype(I64)
    out = np.empty(len(lo), dtype=values.dtype)
    for j in np.unique(level):
        sel = level == j
        t = table[j]
        out[sel] = np.minimum(t[lo[sel]], t[hi[sel] - (1 << j) + 1])
    return out


def removable_calls(ctx) -> pd.DataFrame:
    """``_removable_calls``, once per analysis (recomputed_values and redundant_recompute both read it)."""
    return ctx.memo("removable_calls", lambda: _removable_calls(ctx))


def _removable_calls(ctx) -> pd.DataFrame:
    """One row per numbered call whose signature repeats needlessly: ``row``, ``sig``, ``calls`` (of that
    signature), ``kept`` (how many a reuse keeps), ``constant`` (computed from literals alone) -- the
    occurrences after the first ``kept`` are the removable ones (``removable`` True)."""
    empty = pd.DataFrame({"row": np.zeros(0, I64), "sig": np.zeros(0, I64), "calls": np.zeros(0, I64),
                          "kept": np.zeros(0, I64), "constant": np.zeros(0, bool), "removable": np.zeros(0, bool)})
    if "value_sig" not in ctx.events or "value_kind" not in ctx.events or not ctx.n:
        return empty
    sig = ctx.events["value_sig"].to_numpy()
    rows = np.flatnonzero((sig != 0) & ctx.is_host)
    if len(rows) < 2:
        return empty
    rows = rows[np.argsort(ctx.start[rows], kind="stable")]
    kind = ctx.events["value_kind"].to_numpy()[rows]
    st = recorded_steps(ctx.profile, infer=False)
    step = np.full(len(rows), -1, dtype=I64)
    if len(st) >= 2:   # repeats across the user's own steps are by design: a data signature counts per step
        k = np.searchsorted(st["start_ns"].to_numpy(), ctx.start[rows], side="right") - 1
        inside = (k >= 0) & (ctx.start[rows] < st["end_ns"].to_numpy()[np.maximum(k, 0)])
        step = np.where(inside & (kind != CONSTANT), k, -1)
    key = pd.MultiIndex.from_arrays([step, sig[rows]]).factorize()[0]
    count = np.bincount(key)
    if count.max() < 2:
        return empty
    pos = np.arange(len(rows))
    rank = pd.Series(pos).groupby(key).cumcount().to_numpy()
    view = ctx.flag(VIEW_RE)[rows]   # a view computes nothing: repeating one is no waste to report
    second = np.full(len(count), len(rows), dtype=I64)
    last = np.full(len(count), -1, dtype=I64)
    second[key[rank == 1]] = pos[rank == 1]
    np.maximum.at(last, key, pos)
    constant = np.zeros(len(count), dtype=bool)
    constant[key[kind == CONSTANT]] = True
    # how often the code around a signature ran on new data: the least count among the calls from its
    # second occurrence to its last that read data just entered; that new data must come in between at
    # least two pairs of consecutive occurrences (a loop's first pass alone, reading its inputs once, is
    # not a stream of new data); otherwise the loop repeats its own inputs and every repeat is its own
    new = (kind == NEW).astype(I64)
    seen_new = np.cumsum(new)
    order = np.lexsort((pos, key))
    k_sorted, p_sorted = key[order], pos[order]
    follows = np.r_[False, k_sorted[1:] == k_sorted[:-1]]
    came = np.zeros(len(order), dtype=bool)
    came[1:] = seen_new[p_sorted[1:]] - seen_new[p_sorted[:-1]] > 0
    gaps_with_new = np.bincount(k_sorted, weights=(follows & came), minlength=len(count))
    never = np.iinfo(I64).max
    kept = count.copy()
    data = np.flatnonzero((count >= 2) & ~constant & (gaps_with_new >= 2))
    if len(data):
        around = _range_min(np.where(kind == NEW, count[key], never), second[data], last[data])
        kept[data] = np.where(around < never, np.minimum(around, count[data]), count[data])
    # no new data between its repeats, but new work around them (each layer's own weights and activations
    # around the same kNN graph of fixed coordinates): not a loop replaying itself, whose other calls repeat
    # as it does (a timing loop; one accumulating its result), so once is enough
    first = np.zeros(len(count), dtype=I64)
    first[key[rank == 0]] = pos[rank == 0]
    unique = np.r_[0, np.cumsum(count[key] == 1)]
    between = np.maximum(last - first + 1 - count, 1)
    fresh = unique[np.maximum(last, 0)] - unique[first + 1]
    new_work = (fresh / between >= NEW_WORK_SHARE) & (fresh >= NEW_WORK_CALLS * (count - 1))
    kept[(count >= 2) & ~constant & (gaps_with_new < 2) & new_work] = 1
    kept[constant] = 1   # computed from literals alone: once is enough, wherever it runs
    out = pd.DataFrame({"row": rows, "sig": sig[rows], "calls": count[key], "kept": kept[key],
                        "constant": constant[key], "removable": rank >= kept[key]})
    return out[~view & (out["calls"] > out["kept"]).to_numpy()].reset_index(drop=True)


def recomputed_values(ctx, th):
    """Calls computing again what an earlier call computed from the same values. Gain: replay with the
    removable calls (and their device work) gone: reuse the first result."""
    calls = removable_calls(ctx)
    gone = calls.loc[calls["removable"], "row"].to_numpy()
    if not len(gone):
        return
    t = covered_ns(ctx, gone)
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    factor = np.ones(ctx.n)
    factor[gone] = 0.0
    gain, conf = _factor_gain(ctx, gone, factor)
    names = ctx.names(calls["row"].to_numpy()).astype(str)
    at = calls["row"].to_numpy()
    calls = calls.assign(name=names, removable_ns=np.where(calls["removable"], ctx.dur[at], 0),
                         shapes=ctx.events["shapes"].astype(str).to_numpy()[at])
    g = (calls.groupby("sig", sort=False)
         .agg(name=("name", "first"), shapes=("shapes", "first"), calls=("calls", "first"), kept=("kept", "first"),
              removable_ns=("removable_ns", "sum"))
         .sort_values("removable_ns", ascending=False))
    g["removable"] = g["calls"] - g["kept"]
    top = g.iloc[0]
    title = (f"{top['name']} recomputed on values it already had: {int(top['calls'])} calls where "
             f"{int(top['kept'])} would do; {int(len(gone))} removable calls take {F.ns(t)} "
             f"({pct(t, ctx.wall):.0f}% of end-to-end)")
    numbering = {k: v for k, v in ((ctx.meta.get("collectors") or {}).get("torch") or {}).items()
                 if k == "value_numbering"}
    yield make_finding(
        ctx, "recomputed_values", "redundant", title,
        evidence={"removable_calls": int(len(gone)), "time_ns": t, **numbering,
                  "groups": g.head(10).reset_index(drop=True).to_dict("records")},
        ops=top_names(ctx, gone, 3),
        suggestion=("These calls get inputs holding the same values as earlier calls and so compute the same "
                    "result again: compute it once and reuse it -- hoist it out of the loop, precompute a fixed "
                    "catalogue's embeddings, build masks and position tables once (register_buffer), cache "
                    "what a function derives from its weights (functools.lru_cache on a key you control)."),
        gain_ns=gain, method=METHOD_CP + " (the removable calls gone: the first result reused)",
        confidence=conf * 0.8, rows=gone, affected_ns=t)
