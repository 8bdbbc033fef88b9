import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cann_nb.ingest.nesting import nest


def brute_force(track, start, dur):
    """Reference: the parent is the shortest earlier-sorted span on the same track that contains the span."""
    n = len(start)
    order = sorted(range(n), key=lambda i: (track[i], start[i], -dur[i]))
    rank = {i: r for r, i in enumerate(order)}
    parent = [-1] * n
    for i in range(n):
        best = None
        for j in range(n):
            if j == i or track[j] != track[i] or rank[j] > rank[i]:
                continue
            ends_j = start[j] + dur[j] + (0.5 if dur[j] == 0 else 0)
            ends_i = start[i] + dur[i] + (0.5 if dur[i] == 0 else 0)
            if start[j] <= start[i] and ends_i <= ends_j and start[i] < ends_j:
                if best is None or rank[j] > rank[best]:
                    best = j
        parent[i] = best if best is not None else -1
    return parent


def test_small_tree():
    track = np.array(["t"] * 6, dtype=object)
    start = [0, 10, 20, 50, 100, 60]
    dur = [100, 40, 5, 30, 10, 0]
    parent, depth = nest(track, start, dur, np.arange(6))
    assert parent.tolist() == [-1, 0, 1, 0, -1, 3]     # 'e' touches a's end: not its child
    assert depth.tolist() == [0, 1, 2, 1, 0, 2]


def laminar(spans):
    """Keep the spans that nest in or are disjoint from every span kept before (per track)."""
    kept = []
    for t, s, d in spans:
        e = s + d
        if all(t != t2 or e <= s2 or s >= s2 + d2 or (s2 <= s and e <= s2 + d2) or (s <= s2 and s2 + d2 <= e)
               for t2, s2, d2 in kept):
            kept.append((t, s, d))
    return kept


spans_strategy = st.lists(st.tuples(st.sampled_from("ab"), st.integers(0, 200), st.integers(0, 60)),
                          max_size=40).map(laminar)


@settings(max_examples=200, deadline=None)
@given(spans_strategy)
def test_matches_brute_force_on_random_nested_trees(spans):
    if not spans:
        return
    # drop exact duplicates: their order is arbitrary for both methods
    spans = list(dict.fromkeys(spans))
    track = np.array([s[0] for s in spans], dtype=object)
    start = [s[1] for s in spans]
    dur = [s[2] for s in spans]
    parent, _ = nest(track, start, dur, np.arange(len(spans)))
    assert parent.tolist() == brute_force(list(track), start, dur)
