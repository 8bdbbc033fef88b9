"""Parent/depth of timed spans from interval containment, vectorised (no per-event Python).

Spans on one track are assumed well nested (a child lies inside its parent), which holds for the
host-side call stacks that profilers record. With a partial overlap the later span is treated as the
earlier one's child while they overlap, which is the best that containment can say.

Method: sort spans of a track by (start asc, duration desc). For span i (in sorted order), its depth is
the number of earlier spans still open at its start: ``i - #{spans ended at or before start_i}``
(one searchsorted). Its parent is the nearest earlier span at depth-1, found per depth level with
another searchsorted. Zero-length spans are given half a nanosecond so that a span ending exactly when
another starts is not its parent, while an instant inside a span is its child.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def nest(track, start_ns, dur_ns, ids) -> tuple[np.ndarray, np.ndarray]:
    """Return (parent_id, depth) arrays aligned with the inputs; parent is -1 for roots."""
    start = np.asarray(start_ns, dtype=np.int64)
    dur = np.asarray(dur_ns, dtype=np.int64)
    ids = np.asarray(ids, dtype=np.int64)
    n = len(start)
    parent = np.full(n, -1, dtype=np.int64)
    depth = np.zeros(n, dtype=np.int32)
    if n == 0:
        return parent, depth
    track_codes = pd.Categorical(track).codes.astype(np.int64) if not isinstance(track, np.ndarray) \
        or track.dtype == object else np.asarray(track, dtype=np.int64)
    # doubled time so that zero-length spans can end half a unit after they start
    s2 = start * 2
    e2 = (start + dur) * 2 + (dur == 0)
    order = np.lexsort((-dur, start, track_codes))
    t_sorted, s_sorted, e_sorted = track_codes[order], s2[order], e2[order]
    # boundaries of each track's block in sorted order
    bounds = np.flatnonzero(np.diff(t_sorted)) + 1
    block_start = np.concatenate(([0], bounds))
    block_end = np.concatenate((bounds, [n]))
    depth_sorted = np.empty(n, dtype=np.int64)
    for lo, hi in zip(block_start, block_end):
        ends = np.sort(e_sorted[lo:hi])
        closed = np.searchsorted(ends, s_sorted[lo:hi], side="right")
        depth_sorted[lo:hi] = np.arange(hi - lo) - closed
    np.maximum(depth_sorted, 0, out=depth_sorted)
    # parent: the nearest earlier span (same track) at depth - 1
    parent_sorted = np.full(n, -1, dtype=np.int64)
    # a global position key makes "earlier in the same track" a plain searchsorted per depth level
    pos = np.arange(n)
    for d in range(1, int(depth_sorted.max()) + 1):
        child = pos[depth_sorted == d]
        cand = pos[depth_sorted == d - 1]
        if not len(child) or not len(cand):
            continue
        k = np.searchsorted(cand, child, side="left") - 1
        ok = k >= 0
        k = np.where(ok, k, 0)
        p = cand[k]
        ok &= t_sorted[p] == t_sorted[child]
        parent_sorted[child[ok]] = p[ok]
    has = parent_sorted >= 0
    parent_ids = np.full(n, -1, dtype=np.int64)
    parent_ids[has] = ids[order][parent_sorted[has]]
    parent[order] = parent_ids
    depth[order] = depth_sorted.astype(np.int32)
    return parent, depth
