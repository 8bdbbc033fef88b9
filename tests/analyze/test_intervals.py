"""Interval primitives against brute force on a bitmap of nanoseconds."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from cann_nb.analyze import intervals as I

T = 60


def bitmap(s, e, lo=0, hi=T):
    m = np.zeros(hi - lo, dtype=bool)
    for a, b in zip(s, e):
        m[max(a, lo) - lo:max(min(b, hi), lo) - lo] = True
    return m


def spans(min_size=0, max_size=12):
    return st.lists(st.tuples(st.integers(0, T - 1), st.integers(0, 20)), min_size=min_size, max_size=max_size).map(
        lambda xs: (np.array([a for a, _ in xs], dtype=np.int64),
                    np.array([min(a + d, T) for a, d in xs], dtype=np.int64)))


@settings(max_examples=150, deadline=None)
@given(spans())
def test_union_matches_bitmap(se):
    s, e = se
    us, ue = I.union(s, e)
    assert (ue > us).all()
    assert (us[1:] > ue[:-1]).all()  # disjoint, not touching
    assert np.array_equal(bitmap(us, ue), bitmap(s, e))
    assert I.length(s, e) == bitmap(s, e).sum()


@settings(max_examples=100, deadline=None)
@given(spans(), st.lists(st.integers(0, 3), min_size=12, max_size=12))
def test_grouped_union(se, groups):
    s, e = se
    g = np.array(groups[: len(s)], dtype=np.int64)
    ug, us, ue = I.union(s, e, g)
    for k in range(4):
        sel = g == k
        assert np.array_equal(bitmap(us[ug == k], ue[ug == k]), bitmap(s[sel], e[sel]))


@settings(max_examples=150, deadline=None)
@given(spans(), spans())
def test_set_algebra(a, b):
    ma, mb = bitmap(*a), bitmap(*b)
    assert np.array_equal(bitmap(*I.intersect(*a, *b)), ma & mb)
    assert np.array_equal(bitmap(*I.subtract(*a, *b)), ma & ~mb)
    assert I.overlap_length(*a, *b) == (ma & mb).sum()
    us, ue = I.union(*b)
    cov = I.covered_within(a[0], a[1], us, ue)
    for x, y, c in zip(a[0], a[1], cov):
        assert c == mb[x:y].sum()


@settings(max_examples=100, deadline=None)
@given(spans(min_size=1))
def test_gaps_are_the_complement(se):
    s, e = se
    g = I.gaps(s, e, lo=0, hi=T, edges=True)
    if (e > s).any():
        assert np.array_equal(bitmap(g["start"], g["end"]), ~bitmap(s, e))
    assert (g["dur"] > 0).all()


@settings(max_examples=100, deadline=None)
@given(spans(), st.lists(st.sampled_from("abc"), min_size=12, max_size=12))
def test_exclusive_sums_to_window_and_respects_priority(se, labels):
    s, e = se
    lab = np.array(labels[: len(s)])
    out = I.exclusive(s, e, lab, ["a", "b", "c"], 0, T)
    assert sum(out.values()) == T
    ma, mb, mc = (bitmap(s[lab == k], e[lab == k]) for k in "abc")
    assert out["a"] == ma.sum()
    assert out["b"] == (mb & ~ma).sum()
    assert out["c"] == (mc & ~ma & ~mb).sum()
    assert out["idle"] == (~(ma | mb | mc)).sum()


@settings(max_examples=100, deadline=None)
@given(spans(), st.lists(st.integers(0, 2), min_size=12, max_size=12))
def test_sweep_masks(se, labels):
    s, e = se
    lab = np.array(labels[: len(s)], dtype=np.int64)
    out = I.sweep(s, e, lab, 3, lo=0, hi=T)
    m = [bitmap(s[lab == k], e[lab == k]) for k in range(3)]
    code = m[0].astype(int) | (m[1].astype(int) << 1) | (m[2].astype(int) << 2)
    expect = pd.Series(1, index=code).groupby(level=0).sum()
    got = out.set_index("mask")["dur"]
    assert got.sum() == T
    for k, v in expect.items():
        assert got.get(k, 0) == v


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 9), st.integers(0, 1)), min_size=1, max_size=20))
def test_max_plus_scan_matches_loop(rows):
    r = np.array([a for a, _, _ in rows], dtype=np.int64)
    d = np.array([b for _, b, _ in rows], dtype=np.int64)
    g = np.sort(np.array([c for _, _, c in rows], dtype=np.int64))
    got = I.max_plus_scan(r, d, g)
    expect = []
    prev = None
    for i in range(len(r)):
        if i == 0 or g[i] != g[i - 1]:
            prev = -10 ** 9
        prev = max(prev, r[i]) + d[i]
        expect.append(prev)
    assert got.tolist() == expect
    prev, expect1 = -10 ** 9, []
    for i in range(len(r)):
        prev = max(prev, r[i]) + d[i]
        expect1.append(prev)
    assert I.max_plus_scan(r, d).tolist() == expect1


def test_empty_inputs():
    z = np.empty(0, dtype=np.int64)
    assert I.length(z, z) == 0
    assert len(I.union(z, z)[0]) == 0
    assert I.overlap_length(z, z, [0], [5]) == 0
    assert I.exclusive(z, z, np.empty(0, dtype=object), ["a"], 0, 10) == {"a": 0, "idle": 10}
    assert len(I.gaps(z, z)) == 0
