"""Host lanes as elementary segments: who owns each instant of each host thread.

Every host thread's time is split at all the boundaries of its events; each piece is owned by the
deepest event covering it (its self time) or by nobody (untracked time: Python, the interpreter, or
anything the collectors did not see). The main lane (the thread that runs the user's code) also gets
its leading and trailing untracked time up to the profile window, so its pieces sum to the wall time.

Vectorised: one lexsort over start/end records. At equal times ends come before starts; among starts
the outer span first; among ends the inner span first. The owner after a start record is the span
that starts; after an end record, that span's parent.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import classify as C

I64 = np.int64

# host owner labels (what a piece of host time is spent on)
HOST_LABELS = ("op", "launch", "sync", "alloc", "runtime", "python", "untracked", "comm")


def ancestor_flag(ctx, flag: np.ndarray) -> np.ndarray:
    """True for events that are flagged or lie inside a flagged event (same track), by climbing parents."""
    out = flag.copy()
    prow = ctx.rows_of_parent
    cur = prow.copy()
    for _ in range(256):
        live = cur >= 0
        if not live.any():
            break
        idx = np.flatnonzero(live)
        out[idx] |= flag[cur[idx]]
        cur[idx] = prow[cur[idx]]
    return out


def outermost(ctx, rows: np.ndarray) -> np.ndarray:
    """The rows none of whose ancestors is among the rows (an op once, not again for its own call of itself)."""
    rows = np.asarray(rows, dtype=np.int64)
    mask = np.zeros(ctx.n, dtype=bool)
    mask[rows] = True
    has_flagged_anc = np.zeros(len(rows), dtype=bool)
    cur = ctx.rows_of_parent[rows]
    for _ in range(128):
        live = cur >= 0
        if not live.any():
            break
        has_flagged_anc[live] |= mask[cur[live]]
        cur = np.where(live, ctx.rows_of_parent[np.maximum(cur, 0)], -1)
    return rows[~has_flagged_anc]


def level_order(ctx) -> tuple[np.ndarray, np.ndarray]:
    """(host rows sorted by thread, parent and start; each row's place in that order, -1 for device rows):
    siblings are neighbours, so the calls before or after one are a slice."""
    def order():
        level = np.flatnonzero(ctx.is_host)
        level = level[np.lexsort((ctx.start[level], ctx.rows_of_parent[level], ctx.track_code[level]))]
        at = np.full(ctx.n, -1, dtype=I64)
        at[level] = np.arange(len(level))
        return level, at
    return ctx.memo("timeline.level_order", order)


def next_at_level(ctx, row: int, k: int) -> np.ndarray:
    """The up to ``k`` host events that start after ``row`` under the same parent on the same thread, in start
    order: the calls a Python expression makes next (``inv(a) @ b``: the inverse, then the product)."""
    level, at = level_order(ctx)
    i = at[row]
    if i < 0:
        return np.empty(0, dtype=I64)
    nxt = level[i + 1: i + 1 + k]
    same = (ctx.rows_of_parent[nxt] == ctx.rows_of_parent[row]) & (ctx.track_code[nxt] == ctx.track_code[row])
    return nxt[: int(np.argmin(same)) if not same.all() else len(nxt)]


def enclosing_flag(ctx, rows: np.ndarray) -> np.ndarray:
    """True for ``rows`` and every event enclosing them (ancestor_flag's other direction: climbs up)."""
    out = np.zeros(ctx.n, dtype=bool)
    cur = np.unique(rows)
    for _ in range(256):
        cur = cur[(cur >= 0) & ~out[np.maximum(cur, 0)]]
        if not len(cur):
            break
        out[cur] = True
        cur = np.unique(ctx.rows_of_parent[cur])
    return out


def nearest_ancestor(ctx, rows: np.ndarray, target: np.ndarray, through: np.ndarray | None = None,
                     max_levels: int = 256) -> np.ndarray:
    """For each of ``rows``: its nearest proper ancestor flagged in ``target``, -1 when there is none within
    ``max_levels``; when ``through`` is given, the climb passes only ancestors flagged in it (and stops, -1,
    at one that is not)."""
    prow = ctx.rows_of_parent
    out = np.full(len(rows), -1, dtype=I64)
    cur = prow[rows]
    for _ in range(max_levels):
        live = (cur >= 0) & (out < 0)
        if not live.any():
            break
        at = np.maximum(cur, 0)
        hit = live & target[at]
        out[hit] = cur[hit]
        go = live & ~hit if through is None else live & ~hit & through[at]
        cur = np.where(go, prow[at], -1)
    return out


def _rows_of_parent(ctx) -> np.ndarray:
    p = ctx.parent
    out = np.full(ctx.n, -1, dtype=I64)
    has = p >= 0
    if has.any():
        r = ctx.pos.get_indexer(p[has])
        out[np.flatnonzero(has)] = r
    return out


def host_segments(ctx) -> pd.DataFrame:
    """Elementary pieces of every host lane: ``lane, start, end, owner`` (row position, -1 untracked),
    sorted by lane then time. Lanes are track codes."""
    sel = ctx.is_host & (ctx.dur > 0)
    sel &= ctx.role != C.R["step"]
    rows = np.flatnonzero(sel)
    lane_main = ctx.main_track
    lo, hi = ctx.window
    if not len(rows):
        if lane_main >= 0 or ctx.wall > 0:
            return pd.DataFrame({"lane": np.array([max(lane_main, -1)], I64), "start": np.array([lo], I64),
                                 "end": np.array([hi], I64), "owner": np.array([-1], I64)})
        return pd.DataFrame({"lane": np.empty(0, I64), "start": np.empty(0, I64), "end": np.empty(0, I64),
                             "owner": np.empty(0, I64)})
    prow = ctx.rows_of_parent[rows]
    in_set = np.zeros(ctx.n, dtype=bool)
    in_set[rows] = True
    prow = np.where((prow >= 0) & in_set[np.maximum(prow, 0)], prow, -1)
    lane = ctx.track_code[rows].astype(I64)
    s, e, d = ctx.start[rows], ctx.end[rows], ctx.dur[rows]
    depth = ctx.events["depth"].to_numpy()[rows].astype(I64)
    n = len(rows)
    t = np.concatenate([s, e])
    ln = np.concatenate([lane, lane])
    kind = np.concatenate([np.ones(n, I64), np.zeros(n, I64)])
    tie = np.concatenate([-d, -depth])
    owner = np.concatenate([rows, prow])
    order = np.lexsort((tie, kind, t, ln))
    t, ln, owner = t[order], ln[order], owner[order]
    same_lane_next = np.append(ln[1:] == ln[:-1], False)
    seg_s = t[:-1][same_lane_next[:-1]]
    seg_e = t[1:][same_lane_next[:-1]]
    seg_o = owner[:-1][same_lane_next[:-1]]
    seg_l = ln[:-1][same_lane_next[:-1]]
    # leading / trailing untracked time of the main lane, up to the window
    extra_l, extra_s, extra_e = [], [], []
    if lane_main >= 0:
        on = ln == lane_main
        if on.any():
            first, last = t[on].min(), t[on].max()
            if first > lo:
                extra_l.append(lane_main); extra_s.append(lo); extra_e.append(first)
            if hi > last:
                extra_l.append(lane_main); extra_s.append(last); extra_e.append(hi)
    if extra_l:
        seg_l = np.concatenate([seg_l, np.asarray(extra_l, I64)])
        seg_s = np.concatenate([seg_s, np.asarray(extra_s, I64)])
        seg_e = np.concatenate([seg_e, np.asarray(extra_e, I64)])
        seg_o = np.concatenate([seg_o, np.full(len(extra_l), -1, I64)])
    keep = seg_e > seg_s
    out = pd.DataFrame({"lane": seg_l[keep], "start": seg_s[keep], "end": seg_e[keep], "owner": seg_o[keep]})
    if lane_main >= 0:
        # the main lane is clipped to the window (its pieces then sum to the wall time)
        m = out["lane"].to_numpy() == lane_main
        st = out["start"].to_numpy().copy()
        en = out["end"].to_numpy().copy()
        st[m] = np.clip(st[m], lo, hi)
        en[m] = np.clip(en[m], lo, hi)
        out["start"], out["end"] = st, en
        out = out[out["end"] > out["start"]]
    return out.sort_values(["lane", "start"], kind="stable").reset_index(drop=True)


_ROLE_LABEL = {C.R["op"]: "op", C.R["launch"]: "launch", C.R["sync"]: "sync", C.R["alloc"]: "alloc",
               C.R["runtime"]: "runtime", C.R["python"]: "python", C.R["host_comm"]: "comm"}
_ROLE_LABEL_CODE = np.array([HOST_LABELS.index(_ROLE_LABEL.get(i, "untracked")) for i in range(len(C.ROLES))],
                            dtype=np.int8)
UNTRACKED = HOST_LABELS.index("untracked")


def owner_label_codes(ctx, owner: np.ndarray) -> np.ndarray:
    """Index into HOST_LABELS per piece from its owner's role (untracked for -1 and annotations)."""
    owner = np.asarray(owner, dtype=I64)
    lab = np.full(len(owner), UNTRACKED, dtype=np.int8)
    has = owner >= 0
    lab[has] = _ROLE_LABEL_CODE[ctx.role[owner[has]]]
    return lab


def owner_labels(ctx, owner: np.ndarray) -> np.ndarray:
    """Label per piece from its owner's role (untracked for -1, annotations and Python-less gaps)."""
    return np.asarray(HOST_LABELS, dtype=object)[owner_label_codes(ctx, owner)]


def host_breakdown(profile, lane: str | int | None = None) -> pd.DataFrame:
    """Where a host thread's time goes, by self time of what owns it: framework ops, kernel launches,
    syncs (waiting for the device), allocator calls, other runtime, Python functions, untracked.
    One row per label with ``dur_ns`` and ``pct`` (of the lane's covered time; for the main lane,
    of the wall time). Defaults to the main lane."""
    from .context import context
    ctx = context(profile)
    seg = ctx.host_segments
    if lane is None:
        code = ctx.main_track
    elif isinstance(lane, str):
        hit = np.flatnonzero(ctx.track_cats == lane)
        code = int(hit[0]) if len(hit) else -2
    else:
        code = int(lane)
    seg = seg[seg["lane"] == code]
    lab = owner_label_codes(ctx, seg["owner"].to_numpy())
    dur = (seg["end"] - seg["start"]).to_numpy()
    agg = np.bincount(lab, weights=dur, minlength=len(HOST_LABELS)) if len(dur) else np.zeros(len(HOST_LABELS))
    out = pd.DataFrame({"label": list(HOST_LABELS)})
    out["dur_ns"] = agg.astype("int64")
    total = int(out["dur_ns"].sum())
    out["pct"] = 100.0 * out["dur_ns"] / total if total else 0.0
    out.attrs["lane"] = str(ctx.track_cats[code]) if code >= 0 else None
    return out
