"""The contraction-order rule: a chain of matrix products, or an einsum, evaluated in an order that does
many times the FLOPs another order does (``A @ B @ v`` computes the n x n x n product ``A @ B`` first
where ``A @ (B @ v)`` needs two matrix-vector products; ``np.einsum`` with three operands loops over
every index at once unless ``optimize`` is set).

Reasoned from the work: the operands' shapes (the Python tracer's line samples, collect/line_arrays.py)
give the work of the order written and of the best order (the classic matrix-chain dynamic programme;
numpy's own ``einsum_path`` for einsums). A product's work is ``max(FLOPs, ridge x bytes)``: a
matrix-vector product is bound by the bytes it reads, not its FLOPs, so an order is never credited
with more than the memory traffic allows. Gain: the line's time scaled by best / written work,
replayed. Lines without samples (another collector, an imported profile) give no finding.
"""

from __future__ import annotations

import re

import numpy as np

from ... import formatting as F
from ..efficiency.roofline import peaks_for
from ..line_arrays import line_arrays
from .arrays import finding_from_lines, where
from .base import pct

ROOF_FRAC = 0.7   # of the measured peak that BLAS products reach (as small_ops' roof_frac)
_FLOPS_RE = {k: re.compile(rf"{k} FLOP count:\s*([0-9.eE+-]+)") for k in ("Naive", "Optimized")}


def _shapes(rec: dict, tokens) -> tuple[list, int] | None:
    """The sampled shapes of the operands ``tokens`` (``name`` or ``name.T``) and their largest itemsize;
    None when one is not a sampled numpy array."""
    ops = {o["name"]: o for o in rec["operands"] if o.get("kind") == "ndarray"}
    shapes, item = [], 1
    for tok in tokens:
        o = ops.get(tok.removesuffix(".T"))
        if o is None or not o.get("shape"):
            return None
        s = tuple(int(x) for x in o["shape"])
        shapes.append(s[::-1] if tok.endswith(".T") else s)
        item = max(item, int(o["nbytes"] // max(int(np.prod(s)), 1)) or 1)
    return shapes, item


def _flat(tree) -> list:
    return [tree] if isinstance(tree, str) else _flat(tree[0]) + _flat(tree[1])


def _work(m: int, k: int, n: int, item: int, ridge: float) -> float:
    """One (m x k) @ (k x n) product: its FLOPs, or its bytes at the ridge when those weigh more."""
    return max(2.0 * m * k * n, ridge * item * (m * k + k * n + m * n))


def _chain_dims(shapes: list) -> list | None:
    """p0..pn of a chain of 2-D matrices (a vector first is a row, last a column); None when it is not one."""
    dims = []
    for i, s in enumerate(shapes):
        if len(s) == 1:
            if 0 < i < len(shapes) - 1:
                return None
            s = (1, s[0]) if i == 0 else (s[0], 1)
        if len(s) != 2:
            return None
        if dims and dims[-1] != s[0]:
            return None
        dims += [s[0], s[1]] if not dims else [s[1]]
    return dims


def _written_work(tree, dims: list, item: int, ridge: float) -> float:
    """Work of the products in the order the tree evaluates them."""
    def walk(t, lo):   # -> (work, next leaf index)
        if isinstance(t, str):
            return 0.0, lo + 1
        wl, mid = walk(t[0], lo)
        wr, hi = walk(t[1], mid)
        return wl + wr + _work(dims[lo], dims[mid], dims[hi], item, ridge), hi
    return walk(tree, 0)[0]


def _best_order(dims: list, names: list, item: float, ridge: float) -> tuple[float, str]:
    """The matrix-chain dynamic programme: the least work, and the order as source text."""
    n = len(dims) - 1
    cost = [[0.0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            cost[i][j], split[i][j] = min(
                (cost[i][k] + cost[k + 1][j] + _work(dims[i], dims[k + 1], dims[j + 1], item, ridge), k)
                for k in range(i, j))

    def text(i, j, top=True):
        if i == j:
            return names[i]
        k = split[i][j]
        s = f"{text(i, k, False)} @ {text(k + 1, j, False)}"
        return s if top else f"({s})"
    return cost[0][n - 1], text(0, n - 1)


def _einsum_flops(subscripts: str, shapes: list, item: int) -> tuple[float, float] | None:
    """(FLOPs on numpy's default path, FLOPs on the optimal path), from ``np.einsum_path`` on views of the
    operands' shapes that hold no memory; None when numpy rejects them."""
    dtype = {2: np.float16, 4: np.float32}.get(item, np.float64)
    views = [np.lib.stride_tricks.as_strided(np.zeros(1, dtype), shape=s, strides=(0,) * len(s)) for s in shapes]
    try:
        _, report = np.einsum_path(subscripts, *views, optimize="optimal" if len(views) <= 4 else "greedy")
    except (ValueError, TypeError):
        return None
    got = {k: r.search(report) for k, r in _FLOPS_RE.items()}
    if not all(got.values()):
        return None
    return float(got["Naive"].group(1)), float(got["Optimized"].group(1))


def _cpu_peaks(ctx):
    """The host CPU's measured peaks (analyze/efficiency), or None where the profile's machine never measured
    itself (then the einsum's gain is its FLOP ratio only)."""
    p = peaks_for(ctx.profile, "cpu")
    return p if p.flops else None


def _dtype_class(item: int) -> str:
    return {2: "fp16", 4: "fp32"}.get(item, "fp64")


def _assess(c: dict, rec: dict, run_ns: float, peaks, ridge: float) -> tuple[float, float, str, float] | None:
    """(the written work, the share of the line's run the best order removes, description, written / best
    FLOPs) of one contraction of a sampled line; None when its operands' shapes are not all known."""
    if c.get("kind") == "matmul":
        names = _flat(c["tree"])
        got = _shapes(rec, names)
        dims = _chain_dims(got[0]) if got else None
        if dims is None:
            return None
        written = _written_work(c["tree"], dims, got[1], ridge)
        best, order = _best_order(dims, names, got[1], ridge)
        shown = " @ ".join(f"{nm} {tuple(s)}" for nm, s in zip(names, got[0]))
        return written, 1.0 - best / max(written, 1.0), (f"{shown} evaluated as written; {order} needs "
                                                         f"{written / max(best, 1.0):,.0f}x less work"), written / max(best, 1.0)
    if c.get("kind") == "einsum":
        got = _shapes(rec, c["operands"])
        flops = _einsum_flops(c["subscripts"], got[0], got[1]) if got else None
        if flops is None:
            return None
        naive, opt = flops
        # the default path loops over every index at once, outside BLAS; the optimal one runs pairwise
        # products on BLAS: at the machine's roof (measured), or at the default path's own rate if faster
        fixed = run_ns * opt / max(naive, 1.0)
        rate = peaks.flops_for(_dtype_class(got[1])) if peaks is not None else float("nan")
        if np.isfinite(rate) and rate > 0:
            nbytes = sum(int(np.prod(s)) for s in got[0]) * got[1]
            bw = peaks.bytes_per_s if np.isfinite(peaks.bytes_per_s) and peaks.bytes_per_s > 0 else float("inf")
            fixed = min(fixed, 1e9 * max(opt / (ROOF_FRAC * rate), nbytes / bw))
        shown = ", ".join(f"{nm} {tuple(s)}" for nm, s in zip(c["operands"], got[0]))
        return naive, max(0.0, 1.0 - fixed / max(run_ns, 1.0)), (
            f"np.einsum('{c['subscripts']}', {shown}) on its default path: {naive:.3g} FLOPs in one loop nest where "
            f"the optimal path needs {opt:.3g} in BLAS products"), naive / max(opt, 1.0)
    return None


def contraction_order(ctx, th):
    """Lines whose matrix-product chain or einsum does ``min_ratio`` times or more the work (or, for an
    einsum, takes that many times the time at the machine's roof) of the best order for the sampled
    shapes. Gain: the line's time less that share, replayed."""
    la = line_arrays(ctx)
    if la.empty or "contractions" not in la:
        return
    flagged, peaks = [], None
    for rec in la.to_dict("records"):
        cs = rec.get("contractions")
        if not isinstance(cs, list) or not cs or not len(rec["rows"]):
            continue
        if peaks is None and any(c.get("kind") == "einsum" for c in cs):
            peaks = _cpu_peaks(ctx)
        ridge = th["ridge_flops_per_byte"]
        run_ns = float(ctx.dur[rec["rows"]].sum()) / len(rec["rows"])
        got = [a for a in (_assess(c, rec, run_ns, peaks, ridge) for c in cs) if a is not None]
        weight = sum(a[0] for a in got)
        frac = sum(a[0] * a[1] for a in got) / weight if got and weight > 0 else 0.0
        if frac < 1.0 - 1.0 / th["min_ratio"]:
            continue
        # FLOPs the result does not need (an order doing min_ratio x the work) are redundant; the same FLOPs
        # run outside BLAS (an einsum's single loop nest) are the machine under-used
        redundant = sum(a[0] for a in got if a[3] >= th["min_ratio"]) >= 0.5 * weight
        flagged.append((rec, frac, "; ".join(a[2] for a in got), redundant))
    for category, redundant in (("redundant", True), ("utilization", False)):
        lines = [f[:3] for f in flagged if f[3] == redundant]
        if lines:
            yield from _finding(ctx, th, category, lines)


def _finding(ctx, th, category: str, flagged: list):
    """One finding for the flagged lines of one kind: an order doing needless FLOPs (redundant) or the
    same FLOPs in one loop nest outside BLAS (utilization)."""
    how = "in a costly order" if category == "redundant" else "outside BLAS"

    def title(first, t):
        return (f"Line {where(first[0]['file_line'])} contracts {how}: {first[2]} "
                f"({F.ns(t)}, {pct(t, ctx.wall):.0f}% of end-to-end)")

    sugg = ("Evaluate the chain in the order that keeps the small dimension: A @ (B @ v) instead of (A @ B) @ v; "
            "np.linalg.multi_dot([A, B, C]) picks the cheapest order itself. For np.einsum pass optimize=True "
            "(or compute the path once with np.einsum_path and pass it), which also runs the pairwise products on "
            "BLAS.")
    yield from finding_from_lines(ctx, th, "contraction_order", category, flagged, title, sugg,
                                  " (each line's time scaled by the best order's work over the written order's, a "
                                  "product's work max(FLOPs, ridge x bytes); an einsum's optimal path at roof_frac of "
                                  "the measured CPU peak)",
                                  {"ridge_flops_per_byte": th["ridge_flops_per_byte"], "min_ratio": th["min_ratio"],
                                   "roof_frac": ROOF_FRAC})
