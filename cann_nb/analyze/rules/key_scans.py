"""``scans_per_key``: one large tensor compared against key after key (``rows = events[user_id == u]`` in a
``Dataset.__getitem__``, ``x[labels == c]`` per class): each comparison reads the whole tensor to find a
few of its elements, and the mask it makes is scanned again to select them. Grouping once (``argsort`` and
the offsets of each key, ``unique_consecutive``, ``torch.bucketize``) costs about one sort, after which each
key's rows are a slice.

Read from value numbering (collect/torch_values.py): calls of a comparison op on the same value of their
first tensor (``value_operand``) with different other arguments (``value_sig``). The op that takes the mask
next (the indexing or ``nonzero`` after it, whose inputs have the tensor's shape) belongs to the same scan.
Gain: those scans brought down to a sort's worth of passes, log2(n) for n elements, replayed.

The numpy form (``np.where(ids == key)[0]`` per key) is read from the Python tracer's line samples: a
line comparing the same large array (collect/source_facts.py: the names a comparison reads) run after run,
each run making a mask of it.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ... import formatting as F
from ..line_arrays import line_arrays
from ..timeline import next_at_level
from .arrays import finding_from_lines, where
from .base import METHOD_CP, covered_ns, make_finding, pct, top_names
from .compute import _factor_gain, _parse_list

COMPARE_RE = re.compile(r"^aten::(eq|ne|lt|le|gt|ge|isin)$")
# what selects with a mask: the scan over the mask that finds the key's elements
SELECT_RE = re.compile(r"^aten::(index|nonzero|masked_select|where|argwhere|masked_fill|masked_scatter|"
                       r"index_put_|_index_put_impl_)$")


def _size(shape) -> int:
    return int(np.prod(shape)) if isinstance(shape, list) and shape and all(type(d) is int for d in shape) else 0


def _elements(shapes: str) -> int:
    """Elements of an op's first input (0 when its shape is not recorded)."""
    got = _parse_list(shapes)
    return _size(got[0]) if got else 0


def _reads(shapes: str, n: int) -> bool:
    """Whether an op has an input of n elements or of n rows (``x[mask]``: torch records no shapes for the
    tensor list of indices)."""
    todo = list(_parse_list(shapes))
    if todo and isinstance(todo[0], list) and todo[0] and todo[0][0] == n:
        return True
    while todo:
        s = todo.pop()
        if _size(s) == n:
            return True
        if isinstance(s, list):
            todo.extend(x for x in s if isinstance(x, list))
    return False


def scans_per_key(ctx, th):
    """A comparison op run on the same large tensor with ``min_keys`` different keys or more, or a numpy
    line comparing the same large array on ``min_keys`` runs or more. Gain: the comparisons and the
    selections that take their masks, at log2(n) of their calls."""
    yield from _tensor_scans(ctx, th)
    yield from _array_scans(ctx, th)


def _array_scans(ctx, th):
    """The numpy form, from the Python tracer's line samples (collect/line_arrays.py): a line run
    ``min_keys`` times or more that compares an array of ``min_elements`` or more against something else
    (``np.where(ids == key)``, ``a[labels == c]``), the same array object on its sampled runs, making a
    temporary of at least one byte per element (the mask) each run. Gain: the lines at log2(n) of their
    runs (a sort, then ``np.searchsorted`` or the offsets of each key), replayed."""
    la = line_arrays(ctx)
    if la.empty:
        return
    flagged = []
    for rec in la.to_dict("records"):
        runs = len(rec["rows"])
        if runs < th["min_keys"]:
            continue
        big = [o for o in rec["operands"] if o.get("compared") and o.get("same_object") and o.get("role") == "in"
               and o.get("kind") == "ndarray" and math.prod(o["shape"]) >= th["min_elements"]]
        if not big:
            continue
        o = max(big, key=lambda x: math.prod(x["shape"]))
        n = math.prod(o["shape"])
        made = rec.get("temporaries_bytes")
        if not isinstance(made, (int, float)) or made < n:   # no whole-array mask made: not a scan of it
            continue
        flagged.append((rec, 1.0 - min(1.0, math.log2(n) / runs),
                        f"{o['name']} {tuple(o['shape'])} compared again on each of {runs:,} runs"))
    if not flagged:
        return

    def title(first, t):
        return (f"Line {where(first[0]['file_line'])} scans the same array for one key at a time ({first[2]}): "
                f"{F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end)")

    sugg = ("Each comparison reads the whole array and makes a mask of it to find a few elements. Look all keys up "
            "at once: on sorted ids, pos = np.searchsorted(ids, keys) (np.argsort first when they are not sorted: "
            "order = np.argsort(ids); pos = order[np.searchsorted(ids[order], keys)]); for the rows of every key, "
            "sort once and split at the offsets (np.unique(ids, return_index=True)), or a dict from id to position "
            "built once.")
    yield from finding_from_lines(ctx, th, "scans_per_key", "redundant", flagged, title, sugg,
                                  " (each line at log2(n) of its runs: one sort, then binary searches)", {})


def _tensor_scans(ctx, th):
    if "value_operand" not in ctx.events or not ctx.n:
        return
    operand = ctx.events["value_operand"].to_numpy()
    rows = np.flatnonzero(ctx.flag(COMPARE_RE) & ctx.is_host & (operand != 0))
    if len(rows) < th["min_keys"]:
        return
    sig = ctx.events["value_sig"].to_numpy()
    shapes = ctx.events["shapes"].astype(str).to_numpy()
    select = ctx.flag(SELECT_RE)
    flagged, groups = [], []
    for op in np.unique(operand[rows]):
        mine = rows[operand[rows] == op]
        keys = len(np.unique(sig[mine]))
        n = _elements(shapes[mine[0]])
        if keys < th["min_keys"] or n < th["min_elements"]:
            continue
        # the selection that takes each mask next (same parent, same thread), when it reads n elements
        took = []
        for r in mine:
            nxt = next_at_level(ctx, int(r), 1)
            if len(nxt) and select[nxt[0]] and _reads(shapes[nxt[0]], n):
                took.append(int(nxt[0]))
        scan = np.concatenate([mine, np.asarray(took, dtype=np.int64)])
        keep = min(1.0, math.log2(n) / len(mine))
        flagged.append((scan, keep))
        groups.append({"op": str(ctx.names(mine[:1])[0]), "elements": n, "calls": int(len(mine)),
                       "keys": int(keys), "selections": len(took), "time_ns": covered_ns(ctx, scan),
                       "kept_share": keep})
    if not flagged:
        return
    gone = np.concatenate([s for s, _ in flagged])
    factor = np.ones(ctx.n)
    for scan, keep in flagged:
        factor[scan] = keep
    t = covered_ns(ctx, gone)
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    gain, conf = _factor_gain(ctx, gone, factor)
    top = max(groups, key=lambda g: g["time_ns"])
    title = (f"{top['op']} scans the same {top['elements']:,}-element tensor for {top['keys']:,} different keys "
             f"({top['calls']:,} calls, each then selected by a mask): {F.ns(t)} ({pct(t, ctx.wall):.0f}% of "
             f"end-to-end)")
    sugg = ("Each key's comparison reads the whole tensor to find a few of its elements. Group once instead: "
            "order = torch.argsort(ids, stable=True); counts = torch.bincount(ids); offsets = counts.cumsum(0) - "
            "counts, then key k's rows are rows[order[offsets[k]:offsets[k] + counts[k]]] (precompute them in "
            "the Dataset's __init__); or torch.unique_consecutive on sorted ids, index_add_/scatter_reduce for "
            "per-key sums.")
    yield make_finding(ctx, "scans_per_key", "redundant", title,
                       evidence={"groups": groups, "time_ns": t},
                       ops=top_names(ctx, gone, 3), suggestion=sugg, gain_ns=gain,
                       method=METHOD_CP + " (each tensor's scans at log2(n) of their calls: one sort)",
                       confidence=conf * 0.7, rows=gone, affected_ns=t)
