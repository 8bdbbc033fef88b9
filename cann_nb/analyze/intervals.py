"""Interval primitives every analysis is built from, vectorised (numpy; no per-interval Python).

An interval set is a pair of int64 arrays ``(start, end)`` with ``end >= start``. A *merged* set is
sorted, non-overlapping and non-touching. Grouped variants take an integer ``group`` array (a stream,
a device, an epoch...) and work on each group independently in one pass.

- ``union``            merge intervals (per group)
- ``length``           total covered time of a merged set
- ``gaps``             the holes between merged intervals (per group), optionally inside a window
- ``intersect`` / ``subtract``   set algebra on two merged sets
- ``overlap_length``   covered time of the intersection of two arbitrary sets
- ``sweep``            bit-mask sweep line: time spent in every combination of labels
- ``exclusive``        fixed-priority attribution: each instant goes to the highest-priority active
                       label, so the labels plus "idle" sum exactly to the window
- ``max_plus_scan``    completion times of an in-order queue (the device stream recurrence)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

I64 = np.int64


def _as_i64(a) -> np.ndarray:
    return np.asarray(a, dtype=I64)


def clip(start, end, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """Clip intervals to [lo, hi]; intervals outside become empty (start == end) at the border."""
    s = np.clip(_as_i64(start), lo, hi)
    e = np.clip(_as_i64(end), lo, hi)
    return s, np.maximum(e, s)


def union(start, end, group=None):
    """Merge overlapping or touching intervals.

    Returns ``(start, end)`` sorted, or ``(group, start, end)`` sorted by group then start when
    ``group`` is given. Empty intervals (end == start) are dropped.
    """
    s = _as_i64(start)
    e = _as_i64(end)
    keep = e > s
    if group is None:
        s, e = s[keep], e[keep]
        if not len(s):
            return s, e
        order = np.argsort(s, kind="stable")
        s, e = s[order], e[order]
        run_end = np.maximum.accumulate(e)
        new = np.empty(len(s), dtype=bool)
        new[0] = True
        new[1:] = s[1:] > run_end[:-1]
        idx = np.flatnonzero(new)
        last = np.append(idx[1:], len(s)) - 1
        return s[idx], run_end[last]
    g = _as_i64(group)[keep]
    s, e = s[keep], e[keep]
    if not len(s):
        return g, s, e
    order = np.lexsort((s, g))
    g, s, e = g[order], s[order], e[order]
    first_of_group = np.empty(len(s), dtype=bool)
    first_of_group[0] = True
    first_of_group[1:] = g[1:] != g[:-1]
    run_end = _group_cummax(e, g, first_of_group)
    new = first_of_group.copy()
    new[1:] |= s[1:] > run_end[:-1]
    idx = np.flatnonzero(new)
    last = np.append(idx[1:], len(s)) - 1
    return g[idx], s[idx], run_end[last]


def _group_cummax(values: np.ndarray, group: np.ndarray, first_of_group: np.ndarray) -> np.ndarray:
    """Running max that restarts at each group (rows sorted by group)."""
    if first_of_group.sum() == 1:
        return np.maximum.accumulate(values)
    # shift each group above all earlier ones, run one global accumulate, shift back
    lo = values.min()
    span = int(values.max() - lo) + 1
    gid = np.cumsum(first_of_group) - 1
    if span * (int(gid[-1]) + 1) < 2 ** 62:
        shifted = (values - lo) + gid.astype(I64) * span
        return np.maximum.accumulate(shifted) - gid.astype(I64) * span + lo
    return pd.Series(values).groupby(gid).cummax().to_numpy()


def length(start, end, group=None):
    """Covered time of a set (merged first). Per group (a Series indexed by group) when group given."""
    if group is None:
        s, e = union(start, end)
        return int((e - s).sum())
    g, s, e = union(start, end, group)
    return pd.Series(e - s).groupby(g).sum()


def gaps(start, end, group=None, lo: int | None = None, hi: int | None = None,
         edges: bool = False) -> pd.DataFrame:
    """Holes between the merged intervals: columns ``group, start, end, dur``.

    With ``edges=True`` and a window ``[lo, hi]``, the hole before the first and after the last
    interval of each group are included (a group with no interval at all is not reported).
    """
    if group is None:
        s, e = union(start, end)
        g = np.zeros(len(s), dtype=I64)
    else:
        g, s, e = union(start, end, group)
    if lo is not None or hi is not None:
        lo_ = int(s.min()) if lo is None and len(s) else (lo or 0)
        hi_ = int(e.max()) if hi is None and len(e) else (hi or 0)
        s, e = clip(s, e, lo_, hi_)
        keep = e > s
        g, s, e = g[keep], s[keep], e[keep]
    if not len(s):
        return pd.DataFrame({"group": np.empty(0, I64), "start": np.empty(0, I64), "end": np.empty(0, I64),
                             "dur": np.empty(0, I64)})
    same = g[1:] == g[:-1]
    gs, ge, gg = e[:-1][same], s[1:][same], g[1:][same]
    if edges and lo is not None and hi is not None:
        first = np.ones(len(s), dtype=bool)
        first[1:] = ~same
        last = np.ones(len(s), dtype=bool)
        last[:-1] = ~same
        gg = np.concatenate([g[first], gg, g[last]])
        gs = np.concatenate([np.full(first.sum(), lo, dtype=I64), gs, e[last]])
        ge = np.concatenate([s[first], ge, np.full(last.sum(), hi, dtype=I64)])
    out = pd.DataFrame({"group": gg, "start": gs, "end": ge, "dur": ge - gs})
    out = out[out["dur"] > 0]
    return out.sort_values(["group", "start"], kind="stable").reset_index(drop=True)


def intersect(a_start, a_end, b_start, b_end) -> tuple[np.ndarray, np.ndarray]:
    """Intersection of two sets (each merged first); returns a merged set."""
    a_s, a_e = union(a_start, a_end)
    b_s, b_e = union(b_start, b_end)
    if not len(a_s) or not len(b_s):
        return np.empty(0, I64), np.empty(0, I64)
    # coverage count sweep: +1/-1 at the boundaries of both merged sets; covered where count == 2
    t = np.concatenate([a_s, a_e, b_s, b_e])
    d = np.concatenate([np.ones(len(a_s), I64), -np.ones(len(a_e), I64), np.ones(len(b_s), I64),
                        -np.ones(len(b_e), I64)])
    order = np.lexsort((d, t))  # at equal times, ends (-1) first: touching intervals do not intersect
    t, d = t[order], d[order]
    c = np.cumsum(d)
    on = np.flatnonzero(c == 2)
    return union(t[on], t[on + 1])


def subtract(a_start, a_end, b_start, b_end) -> tuple[np.ndarray, np.ndarray]:
    """Set difference A \\ B (each merged first); returns a merged set."""
    a_s, a_e = union(a_start, a_end)
    b_s, b_e = union(b_start, b_end)
    if not len(a_s) or not len(b_s):
        return a_s, a_e
    t = np.concatenate([a_s, a_e, b_s, b_e])
    da = np.concatenate([np.ones(len(a_s), I64), -np.ones(len(a_e), I64), np.zeros(len(b_s) + len(b_e), I64)])
    db = np.concatenate([np.zeros(len(a_s) + len(a_e), I64), np.ones(len(b_s), I64), -np.ones(len(b_e), I64)])
    order = np.argsort(t, kind="stable")
    t, ca, cb = t[order], np.cumsum(da[order]), np.cumsum(db[order])
    # the state after the last boundary at each distinct time
    last = np.append(t[1:] != t[:-1], True)
    t, ca, cb = t[last], ca[last], cb[last]
    on = np.flatnonzero((ca[:-1] > 0) & (cb[:-1] == 0))
    return union(t[on], t[on + 1])


def overlap_length(a_start, a_end, b_start, b_end) -> int:
    s, e = intersect(a_start, a_end, b_start, b_end)
    return int((e - s).sum())


def covered_within(start, end, ms, me) -> np.ndarray:
    """For each interval, how much of it is covered by the merged set (ms, me) (sorted, disjoint)."""
    s = _as_i64(start)
    e = _as_i64(end)
    ms = _as_i64(ms)
    me = _as_i64(me)
    if not len(ms) or not len(s):
        return np.zeros(len(s), dtype=I64)
    # cumulative covered time up to t: F(t) = sum of full intervals before + partial
    cum = np.concatenate([[0], np.cumsum(me - ms)])

    def F(t):
        k = np.searchsorted(ms, t, side="right")  # intervals starting at or before t
        prev = np.maximum(k - 1, 0)
        partial = np.where(k > 0, np.clip(t - ms[prev], 0, me[prev] - ms[prev]), 0)
        return cum[np.maximum(k - 1, 0)] * (k > 0) + partial

    return F(e) - F(s)


def sweep(start, end, label, n_labels: int | None = None, lo: int | None = None, hi: int | None = None
          ) -> pd.DataFrame:
    """Bit-mask sweep line: for every combination of active labels, the time spent in it.

    ``label`` is a small int (0..n_labels-1, at most 62). Overlaps among intervals of the same label
    are counted once. Returns ``mask, dur`` rows (mask 0 = nothing active, only when a window is given),
    and ``segments`` (start/end/mask arrays) in ``.attrs``.
    """
    s = _as_i64(start)
    e = _as_i64(end)
    lab = _as_i64(label)
    if n_labels is None:
        n_labels = int(lab.max()) + 1 if len(lab) else 0
    if n_labels > 62:
        raise ValueError("sweep supports at most 62 labels")
    keep = e > s
    s, e, lab = s[keep], e[keep], lab[keep]
    if lo is not None and hi is not None:
        s, e = clip(s, e, lo, hi)
        keep = e > s
        s, e, lab = s[keep], e[keep], lab[keep]
    # overlaps within a label count once: merge per label first (fewer boundaries to sweep)
    lab, s, e = union(s, e, lab)
    t = np.concatenate([s, e])
    if lo is not None and hi is not None:
        t = np.concatenate([t, [lo, hi]])
    if not len(t):
        return pd.DataFrame({"mask": np.empty(0, I64), "dur": np.empty(0, I64)})
    times = np.unique(t)
    mask = np.zeros(len(times) - 1, dtype=I64) if len(times) > 1 else np.zeros(0, I64)
    for k in range(n_labels):
        sel = lab == k
        if not sel.any():
            continue
        m = len(times) + 1
        cnt = (np.bincount(np.searchsorted(times, s[sel]), minlength=m)
               - np.bincount(np.searchsorted(times, e[sel]), minlength=m))
        active = np.cumsum(cnt)[: len(times) - 1] > 0
        mask |= active.astype(I64) << k
    seg_s, seg_e = times[:-1], times[1:]
    if lo is None or hi is None:
        # outside a window, "nothing active" between groups of intervals is not meaningful
        sel = mask != 0
        seg_s, seg_e, mask = seg_s[sel], seg_e[sel], mask[sel]
    dur = seg_e - seg_s
    out = pd.Series(dur).groupby(mask).sum().rename_axis("mask").reset_index(name="dur")
    out.attrs["segments"] = (seg_s, seg_e, mask)
    return out


def exclusive(start, end, label, priority, lo: int, hi: int) -> dict:
    """Fixed-priority exclusive attribution inside [lo, hi].

    ``priority`` lists labels, highest first; every instant of the window goes to the first label in
    that list with an interval covering it, or to ``"idle"``. The values sum exactly to ``hi - lo``.
    Labels not in ``priority`` are ignored.
    """
    s, e = clip(start, end, lo, hi)
    lab = np.asarray(label)
    out: dict = {}
    cov_s = np.empty(0, I64)
    cov_e = np.empty(0, I64)
    for p in priority:
        sel = lab == p
        us, ue = union(s[sel], e[sel])
        if len(cov_s):
            xs, xe = subtract(us, ue, cov_s, cov_e)
        else:
            xs, xe = us, ue
        out[p] = int((xe - xs).sum())
        cov_s, cov_e = union(np.concatenate([cov_s, us]), np.concatenate([cov_e, ue]))
    out["idle"] = int(hi - lo) - sum(out.values())
    return out


def max_plus_scan(release, dur, group=None, first_of_group=None) -> np.ndarray:
    """End times of tasks run in order on a queue: ``end_i = max(end_{i-1}, release_i) + dur_i``.

    Rows must be in queue order (grouped contiguously when ``group`` is given; each group starts
    with an empty queue). Closed form: ``end_i = D_i + cummax_j<=i(release_j - D_{j-1})`` with
    ``D`` the running sum of durations, so it is one cumsum and one cummax.
    """
    r = _as_i64(release)
    d = _as_i64(dur)
    if not len(r):
        return r.copy()
    if group is None:
        D = np.cumsum(d)
        return D + np.maximum.accumulate(r - (D - d))
    g = _as_i64(group)
    if first_of_group is None:
        first_of_group = np.ones(len(g), dtype=bool)
        first_of_group[1:] = g[1:] != g[:-1]
    D = np.cumsum(d)
    base = np.maximum.accumulate(np.where(first_of_group, np.arange(len(d)), 0))
    D_before_group = (D - d)[base]
    Dg = D - D_before_group  # running sum restarted per group
    key = r - (Dg - d)
    return Dg + _group_cummax(key, g, first_of_group)
