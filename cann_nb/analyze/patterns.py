"""Pattern mining: frequent consecutive op sequences (n-grams) on the host's top-level ops and on each
device stream, elementwise chains (fusion candidates) and known unfused idioms.

n-grams are counted with a rolling polynomial hash of the name codes over a sliding window (one
vectorised pass per length), then reduced to *closed* patterns: a pattern is dropped when a longer
one containing it occurs (almost) as often. For each pattern: occurrences, total span (first start
to last end of each occurrence), total execution (sum of its ops' durations) and the exec/span ratio
(msprof-analyze's host-bound test: < 0.4 means the ops are mostly waiting on the host).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from . import classify as C
from .context import context

I64 = np.int64
U64 = np.uint64
CANDIDATES_PER_LEN = 100  # most time-consuming n-grams kept per length before the closed-pattern filter

ELEMENTWISE_RE = re.compile(
    r"^(aten::)?(add|sub|mul|div|rsub|neg|abs|exp|exp2|expm1|log|log1p|log2|sqrt|rsqrt|pow|square|reciprocal|"
    r"relu|relu6|leaky_relu|gelu|silu|sigmoid|tanh|hardtanh|hardswish|hardsigmoid|elu|selu|softplus|mish|"
    r"clamp|clamp_min|clamp_max|clip|where|maximum|minimum|sin|cos|erf|floor|ceil|round|sign|lerp|"
    r"addcmul|addcdiv|fill|masked_fill|threshold|logical_\w+|bitwise_\w+|eq|ne|lt|le|gt|ge)_?$"
    r"|elementwise|vectorized_elementwise|unrolled_elementwise", re.I)

# known unfused idioms -> fused API (msprof-analyze affinity API / PATTERN_DICT, torch equivalents)
IDIOMS = (
    {"id": "silu", "pattern": r"sigmoid > mul", "fused": "torch.nn.functional.silu (x * sigmoid(x))"},
    {"id": "gelu_tanh", "pattern": r"(mul > )?pow > mul > add > mul > tanh > add > mul",
     "fused": "torch.nn.functional.gelu(x, approximate='tanh')"},
    {"id": "rms_norm", "pattern": r"pow > mean > add > rsqrt > mul( > mul)?",
     "fused": "torch.nn.functional.rms_norm / torch_npu.npu_rms_norm"},
    {"id": "layer_norm_manual", "pattern": r"mean > sub > pow > mean > add > (sqrt > div|rsqrt > mul)",
     "fused": "torch.nn.functional.layer_norm"},
    {"id": "softmax_manual", "pattern": r"(max|amax) > sub > exp > sum > div",
     "fused": "torch.softmax"},
    {"id": "scaled_masked_softmax", "pattern": r"(mul > )?masked_fill_? > softmax|softmax > mul > masked_fill",
     "fused": "torch_npu.npu_scaled_masked_softmax / F.scaled_dot_product_attention"},
    # scores scaled after the product, or the query scaled before it (nn.MultiheadAttention's slow path when
    # need_weights=True: q * scale, bmm, softmax, bmm)
    {"id": "attention_unfused", "pattern": r"(bmm|matmul|mm) > (div|mul) > (\w+ > )?softmax > (\w+ > )?(bmm|matmul|mm)|"
                                           r"(div|mul) > (\w+ > )?(bmm|baddbmm|matmul|mm) > (\w+ > )?softmax > "
                                           r"(\w+ > )?(bmm|matmul|mm)",
     "fused": "torch.nn.functional.scaled_dot_product_attention / torch_npu.npu_fusion_attention"},
    {"id": "confusion_transpose", "pattern": r"(permute|transpose) > contiguous > (reshape|view)",
     "fused": "torch_npu.npu_confusion_transpose, or keep the layout and drop .contiguous()"},
    {"id": "swiglu", "pattern": r"silu > mul|chunk > silu > mul", "fused": "torch_npu.npu_swiglu"},
    {"id": "bias_dropout_add", "pattern": r"add > dropout > add", "fused": "a fused bias-dropout-add kernel"},
    {"id": "addmm", "pattern": r"^mm > add|matmul > add$", "fused": "torch.addmm / nn.Linear with bias"},
)


def _short(name: str) -> str:
    n = name.split("::")[-1]
    return n[:-1] if n.endswith("_") and not n.endswith("__") else n


def _is_repetition(tokens: list) -> bool:
    """True when the pattern is a shorter pattern repeated (A>B>A>B, A>A>A): report the unit instead."""
    n = len(tokens)
    for p in range(1, n // 2 + 1):
        if n % p == 0 and tokens == tokens[:p] * (n // p):
            return True
    return False


def op_sequence(ctx, level: str = "host") -> pd.DataFrame:
    """The sequences to mine: ``host`` = the outermost framework ops of the main lane (what the user's
    Python called), in time order; ``device`` = each stream's tasks. Columns ``seq`` (lane), ``row``."""
    if level == "host":
        is_op = ctx.role == C.R["op"]
        rows = np.flatnonzero(is_op & (ctx.track_code == ctx.main_track))
        prow = ctx.rows_of_parent[rows]
        parent_is_op = np.zeros(len(rows), dtype=bool)
        ok = prow >= 0
        parent_is_op[ok] = is_op[prow[ok]]
        rows = rows[~parent_is_op]
        rows = rows[np.argsort(ctx.start[rows], kind="stable")]
        return pd.DataFrame({"seq": np.zeros(len(rows), I64), "row": rows})
    rows = np.flatnonzero(ctx.is_device_task)
    rows = rows[np.lexsort((ctx.start[rows], ctx.track_code[rows]))]
    return pd.DataFrame({"seq": ctx.track_code[rows].astype(I64), "row": rows})


MINE_MAX_LEN, MINE_MIN_COUNT, MINE_TOP = 12, 2, 300  # the one mining pass per level that views filter


def frequent_sequences(profile, level: str = "host", min_len: int = 2, max_len: int = 8, min_count: int = 5,
                       top: int = 20) -> pd.DataFrame:
    ctx = context(profile)
    if max_len <= MINE_MAX_LEN and min_count >= MINE_MIN_COUNT and top <= MINE_TOP:
        # filter the shared pass (closed patterns of the shared pass, then the view's limits)
        fs = ctx.memo(("frequent_sequences", level),
                      lambda: _frequent_sequences(ctx, level, 2, MINE_MAX_LEN, MINE_MIN_COUNT, MINE_TOP))
        fs = fs[(fs["n"] >= min_len) & (fs["n"] <= max_len) & (fs["count"] >= min_count)]
        return fs.head(top).reset_index(drop=True).copy()
    return _frequent_sequences(ctx, level, min_len, max_len, min_count, top)


def _frequent_sequences(ctx, level, min_len, max_len, min_count, top) -> pd.DataFrame:
    """Closed frequent n-grams: ``pattern`` (names joined by ' > '), ``n, count, span_ns, exec_ns,
    exec_ratio, share_pct`` (span over the wall time), ``first_row`` (an occurrence, for drill-down),
    ``rows`` (first rows of up to 20 occurrences). Sorted by span."""
    seq = op_sequence(ctx, level)
    cols = ["pattern", "n", "count", "span_ns", "exec_ns", "exec_ratio", "share_pct", "first_row", "rows"]
    rows = seq["row"].to_numpy()
    if len(rows) < min_len * 2:
        return pd.DataFrame(columns=cols)
    lane = seq["seq"].to_numpy()
    codes = ctx.name_code[rows].astype(np.int64) + 1
    s, e, d = ctx.start[rows], ctx.end[rows], ctx.dur[rows]
    cum_d = np.concatenate([[0], np.cumsum(d)])
    found = []
    P = U64(1_000_003)
    with np.errstate(over="ignore"):
        h = codes.astype(U64)
        for n in range(1, max_len + 1):
            if n > 1:
                # extend every window by one element: h_i(n) = h_i(n-1) * P + code_{i+n-1}
                h = h[:-1] * P + codes[n - 1:].astype(U64)
            if n < min_len:
                continue
            m = len(h)
            if m < min_count:
                break
            same_lane = lane[: m] == lane[n - 1: n - 1 + m]
            hh = h[same_lane]
            start_idx = np.flatnonzero(same_lane)
            if not len(hh):
                break
            # one stable (radix) sort: equal hashes end up together, in start order
            order = np.argsort(hh, kind="stable")
            hs = hh[order]
            newkey = np.ones(len(hs), dtype=bool)
            newkey[1:] = hs[1:] != hs[:-1]
            inv_sorted = np.cumsum(newkey) - 1
            cnt = np.bincount(inv_sorted)
            keep = cnt >= min_count
            if not keep.any():
                break
            sel = keep[inv_sorted]
            idx = start_idx[order[sel]]
            key = inv_sorted[sel]
            # non-overlapping occurrences: drop one that starts inside the previous one of its key
            same = np.zeros(len(idx), dtype=bool)
            same[1:] = key[1:] == key[:-1]
            overlap = same.copy()
            overlap[1:] &= idx[1:] - idx[:-1] < n
            idx, key = idx[~overlap], key[~overlap]
            if not len(idx):
                continue
            span = e[idx + n - 1] - s[idx]
            ex = cum_d[idx + n] - cum_d[idx]
            # idx/key are sorted by (key, idx): aggregate with bincount, first = group start
            k_cnt = np.bincount(key, minlength=len(cnt))
            k_span = np.bincount(key, weights=span, minlength=len(cnt))
            k_exec = np.bincount(key, weights=ex, minlength=len(cnt))
            present = np.flatnonzero(k_cnt >= min_count)
            if not len(present):
                continue
            best = present[np.argsort(-k_span[present], kind="stable")[:CANDIDATES_PER_LEN]]
            grp_start = np.searchsorted(key, best, side="left")
            grp_end = np.searchsorted(key, best, side="right")
            starts = [idx[a:b] for a, b in zip(grp_start, grp_end)]
            found.append((k_cnt[best], k_span[best], k_exec[best], idx[grp_start], starts, n))
    if not found:
        return pd.DataFrame(columns=cols)
    # one frame for every length's candidates (a frame per length cost more than the mining on small profiles)
    starts = [st for f in found for st in f[4]]
    out = pd.DataFrame({
        "count": np.concatenate([f[0] for f in found]),
        "span_ns": np.concatenate([f[1] for f in found]).astype(np.int64),
        "exec_ns": np.concatenate([f[2] for f in found]).astype(np.int64),
        "first": np.concatenate([f[3] for f in found]),
        "rows": [rows[x[:20]].tolist() for x in starts],
        "starts": starts,
        "n": np.concatenate([np.full(len(f[0]), f[5], dtype=np.int64) for f in found]),
    })
    # candidates are compared as tuples of short-name ids (the strings are made for the survivors only)
    short = [_short(str(nm)) for nm in ctx.name_cats]
    sid_of: dict = {}
    sid = np.array([sid_of.setdefault(x, len(sid_of)) for x in short] or [0], dtype=np.int64)
    short_of_sid = list(sid_of)
    firsts, ns = out["first"].to_numpy(), out["n"].to_numpy()
    keys = pd.Series([tuple(sid[codes[i:i + n] - 1].tolist()) for i, n in zip(firsts, ns)], dtype=object)
    out["first_row"] = rows[firsts]
    out["_key"] = keys.to_numpy()
    out = out[~keys.duplicated().to_numpy()]
    # single-op "patterns" (n=1) only when min_len asked for them; drop periodic repeats (A>A>A)
    out = out[[len(t) == 1 or not _is_repetition(t) for t in out["_key"]]]
    # rotations of one loop body (A>B>C, B>C>A...) are one pattern: keep the most frequent
    rot = [min(t[i:] + t[:i] for i in range(len(t))) for t in out["_key"]]
    out = out.assign(_rot=rot).sort_values("count", ascending=False, kind="stable")
    out = out[~out["_rot"].duplicated()].drop(columns="_rot")
    # closed patterns: drop one contained in a longer pattern that occurs at least 90 % as often
    out = out.sort_values(["n", "count"], ascending=[False, False]).reset_index(drop=True)
    keep = np.ones(len(out), dtype=bool)
    pats = out["_key"].tolist()
    cnts = out["count"].to_numpy()
    where = {p: i for i, p in enumerate(pats)}
    for j, toks in enumerate(pats):  # longest first: mark the sub-patterns it subsumes
        if not keep[j]:
            continue
        for a in range(len(toks)):
            for b in range(a + 1, len(toks) + 1):
                if b - a == len(toks):
                    continue
                i = where.get(toks[a:b])
                if i is not None and i != j and cnts[j] >= 0.9 * cnts[i]:
                    keep[i] = False
    out = out[keep]
    out["pattern"] = [" > ".join(short_of_sid[k] for k in t) for t in out["_key"]]
    wall = max(ctx.wall, 1)
    out["exec_ratio"] = out["exec_ns"] / out["span_ns"].clip(lower=1)
    out["share_pct"] = 100.0 * out["span_ns"] / wall
    out = out.sort_values("span_ns", ascending=False).head(top).reset_index(drop=True)
    # every row of every occurrence (for what-ifs on the pattern)
    out["all_rows"] = [rows[(st[:, None] + np.arange(n)[None, :]).ravel()] for st, n in zip(out["starts"], out["n"])]
    return out[cols + ["all_rows"]]


def elementwise_chains(profile, level: str = "host", min_len: int = 3, min_count: int = 3, max_len: int = 12,
                       top: int = 10) -> pd.DataFrame:
    """Runs of elementwise ops inside the frequent sequences (fusion candidates: each op reads and
    writes the whole tensor). Columns ``pattern, n, count, exec_ns, span_ns, max_op_ns`` (sum over
    occurrences of the chain's largest op), ``rows`` (first rows of up to 20 occurrences), ``all_rows``."""
    cols = ["pattern", "n", "count", "exec_ns", "span_ns", "max_op_ns", "rows", "all_rows"]
    fs = frequent_sequences(profile, level=level, min_len=2, max_len=max_len, min_count=min_count, top=300)
    if not len(fs):
        return pd.DataFrame(columns=cols)
    ctx = context(profile)
    chains: dict[str, list] = {}
    seen: set = set()
    for text, n, all_rows in zip(fs["pattern"], fs["n"], fs["all_rows"]):
        toks = text.split(" > ")
        ew = [bool(ELEMENTWISE_RE.search(t)) for t in toks]
        grid = np.asarray(all_rows, dtype=I64).reshape(-1, n)
        i = 0
        while i < n:
            if not ew[i]:
                i += 1
                continue
            j = i
            while j + 1 < n and ew[j + 1]:
                j += 1
            if j - i + 1 >= min_len:
                key = " > ".join(toks[i:j + 1])
                for occ in grid[:, i:j + 1]:
                    if int(occ[0]) not in seen:
                        seen.add(int(occ[0]))
                        chains.setdefault(key, []).append(occ)
            i = j + 1
    out = []
    for key, occ in chains.items():
        if len(occ) < min_count:
            continue
        g = np.vstack(occ)
        d = ctx.dur[g]
        out.append({"pattern": key, "n": g.shape[1], "count": len(occ), "exec_ns": int(d.sum()),
                    "span_ns": int((ctx.end[g[:, -1]] - ctx.start[g[:, 0]]).sum()), "max_op_ns": int(d.max(axis=1).sum()),
                    "rows": g[:20, 0].tolist(), "all_rows": g.ravel()})
    if not out:
        return pd.DataFrame(columns=cols)
    return pd.DataFrame(out, columns=cols).sort_values("exec_ns", ascending=False).head(top).reset_index(drop=True)


def idioms(profile, level: str = "host", min_count: int = 2) -> pd.DataFrame:
    """Known unfused idioms found in the frequent op sequences: ``idiom, fused, count, exec_ns, span_ns,
    rows`` (first rows of up to 20 occurrences), ``occurrences`` (the rows of each occurrence)."""
    ctx = context(profile)
    return ctx.memo(("idioms", level, min_count), lambda: _idioms(profile, ctx, level, min_count)).copy()


def _idioms(profile, ctx, level, min_count) -> pd.DataFrame:
    cols = ["idiom", "fused", "count", "exec_ns", "span_ns", "rows", "occurrences"]
    fs = frequent_sequences(profile, level=level, min_len=2, max_len=12, min_count=min_count, top=300)
    if not len(fs):
        return pd.DataFrame(columns=cols)
    out = []
    for idiom in IDIOMS:
        pat = re.compile(r"(?:(?<= > )|^)(?:" + idiom["pattern"] + r")(?= > |$)")
        occ, seen = [], set()
        for text, n, all_rows in zip(fs["pattern"], fs["n"], fs["all_rows"]):
            names = text.split(" > ")
            offsets = np.cumsum([0] + [len(x) + 3 for x in names[:-1]])
            grid = np.asarray(all_rows, dtype=I64).reshape(-1, n)
            for m in pat.finditer(text):
                a = int(np.searchsorted(offsets, m.start(), side="right") - 1)
                b = int(np.searchsorted(offsets, m.end() - 1, side="right") - 1)
                for r in grid[:, a:b + 1]:
                    if int(r[0]) not in seen:
                        seen.add(int(r[0]))
                        occ.append(r)
        if len(occ) < min_count:
            continue
        first = np.array([o[0] for o in occ])
        last = np.array([o[-1] for o in occ])
        out.append({"idiom": idiom["id"], "fused": idiom["fused"], "count": len(occ),
                    "exec_ns": int(sum(int(ctx.dur[o].sum()) for o in occ)),
                    "span_ns": int((ctx.end[last] - ctx.start[first]).sum()), "rows": first[:20].tolist(),
                    "occurrences": occ})
    return pd.DataFrame(out, columns=cols)
