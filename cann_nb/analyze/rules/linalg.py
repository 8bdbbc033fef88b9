"""Linear-algebra calls that do more work than the matrix needs, from the Python tracer's line samples
(collect/line_arrays.py: the operands' shapes, and whether a matrix given to a general eigensolver is
symmetric):

* ``symmetric_eig``: ``np.linalg.eig``/``eigvals`` on a symmetric (Hermitian) matrix: the general
  solver reduces to Hessenberg form and iterates in complex arithmetic where ``eigh``/``eigvalsh``
  reduce to tridiagonal form;
* ``inverse_product``: ``inv(A) @ b``: the inverse costs three times the LU factorisation that
  ``solve(A, b)`` needs (and is less accurate), a pseudo-inverse (an SVD) some thirty times; seen on a traced
  line, or from a framework's trace (a torch inverse op whose result a matrix product takes).

* ``svd_guard``: ``np.linalg.cond`` or ``matrix_rank`` (an SVD) called over and over, typically to guard a
  solve or a factorisation that costs a fraction of it: the SVD does ~12n^3 FLOPs against LU's 2n^3/3.

Gains reason from LAPACK's FLOP counts (Golub & Van Loan, Matrix Computations, 4th ed.: the QR
algorithm ~10n^3 for eigenvalues, ~25n^3 with eigenvectors; symmetric tridiagonal reduction 4n^3/3, ~9n^3
with eigenvectors; LU 2n^3/3, inverse 2n^3): a line's time scaled by the needed FLOPs over the done ones.
"""

from __future__ import annotations

import re

import numpy as np

from ... import formatting as F
from ..line_arrays import line_arrays
from ..timeline import next_at_level, outermost
from .arrays import finding_from_lines, where
from .base import METHOD_CP, covered_ns, make_finding, pct

# n^3 coefficients of LAPACK's FLOP counts (Golub & Van Loan): general vs symmetric eigensolvers
GENERAL = {"eig": 25.0, "eigvals": 10.0}
SYMMETRIC = {"eig": 9.0, "eigvals": 4.0 / 3.0}
SYMMETRIC_NAME = {"eig": "eigh", "eigvals": "eigvalsh"}


def _contractions(ctx, kind: str):
    """(line record, contraction, its operands' sampled descriptions) for each sampled call of a kind."""
    la = line_arrays(ctx)
    if la.empty or "contractions" not in la:
        return
    for rec in la.to_dict("records"):
        if not len(rec["rows"]):
            continue
        ops = {o["name"]: o for o in rec["operands"] if o.get("kind") == "ndarray"}
        for c in rec.get("contractions") or []:
            if c.get("kind") == kind:
                yield rec, c, [ops.get(t.removesuffix(".T")) for t in c["operands"]]


def symmetric_eig(ctx, th):
    """General eigensolver calls on symmetric matrices of ``min_n`` rows or more. Gain: each line's time
    scaled by the symmetric solver's FLOPs over the general one's."""
    flagged = []
    for rec, c, (a,) in _contractions(ctx, "eig"):
        if a is None or not a.get("symmetric") or a["shape"][0] < th["min_n"]:
            continue
        fn = c["fn"]
        flagged.append((rec, 1.0 - SYMMETRIC[fn] / GENERAL[fn],
                        f"np.linalg.{fn}({c['operands'][0]}) on a symmetric {a['shape'][0]} x {a['shape'][1]} "
                        f"{a['dtype']} matrix: {SYMMETRIC_NAME[fn]} needs ~{SYMMETRIC[fn]:.2g}n^3 FLOPs where {fn} "
                        f"does ~{GENERAL[fn]:.0f}n^3"))
    if not flagged:
        return

    def title(first, t):
        return f"Line {where(first[0]['file_line'])} calls a general eigensolver: {first[2]} ({F.ns(t)}, {pct(t, ctx.wall):.0f}% of end-to-end)"

    sugg = ("Use the symmetric (Hermitian) solver: np.linalg.eigh / eigvalsh (scipy.linalg.eigh, torch.linalg.eigh): "
            "real eigenvalues in ascending order, orthonormal eigenvectors, several times fewer FLOPs; "
            "scipy.linalg.eigh(subset_by_index=...) when only a few eigenpairs are needed.")
    yield from finding_from_lines(ctx, th, "symmetric_eig", "hotspot", flagged, title, sugg,
                                  " (each line's time scaled by the symmetric solver's FLOPs over the general one's)",
                                  {"flops_n3": {"general": GENERAL, "symmetric": SYMMETRIC}})


# n^3 coefficients of what an inverse costs (Golub & Van Loan): LU-based inversion 2n^3; the pseudo-inverse an
# SVD with both factors (Golub-Reinsch, 4m^2 n + 8m n^2 + 9n^3 = 21n^3 for a square matrix) and V S^+ U^T (2n^3)
INVERSE_N3 = {"inv": 2.0, "pinv": 23.0}
LU_N3 = 2.0 / 3.0
INVERSE_OP_RE = re.compile(r"^aten::(linalg_inv|linalg_inv_ex|inverse|linalg_pinv|pinverse)$")
PRODUCT_LOOKAHEAD = 4   # ops after the inverse, at its level, where the product it feeds may start


def _solve_share(kind: str, n: int, k: int) -> float:
    """The share of an inverse-and-product's FLOPs that solving saves (LU 2n^3/3 + 2n^2 k)."""
    done = INVERSE_N3[kind] * n ** 3 + 2.0 * n * n * k
    return 1.0 - (LU_N3 * n ** 3 + 2.0 * n * n * k) / done


def _op_inverses(ctx, th) -> list[tuple[int, float, str]]:
    """Framework inverse ops (torch.linalg.inv/pinv of a square matrix of ``min_n`` rows or more) whose result
    a matrix product takes as its left operand within the next ``PRODUCT_LOOKAHEAD`` ops at their level:
    (row, share of its time solving saves, description)."""
    from .compute import MATMUL_RE, _parse_list
    rows = np.flatnonzero(ctx.flag(INVERSE_OP_RE) & ctx.is_host)
    if not len(rows):
        return []
    mm = ctx.flag(MATMUL_RE)
    shapes = ctx.events["shapes"].astype(str).to_numpy()
    names = ctx.names(rows).astype(str)
    out = []
    for r, name in zip(rows, names):
        shp = _parse_list(shapes[r])
        a = shp[0] if shp and isinstance(shp[0], list) else None
        if not a or len(a) != 2 or a[0] != a[1] or a[0] < th["min_n"]:
            continue
        for j in next_at_level(ctx, r, PRODUCT_LOOKAHEAD):
            ops = _parse_list(shapes[j]) if mm[j] else []
            if ops and ops[0] == a:
                b = ops[1] if len(ops) > 1 and isinstance(ops[1], list) else []
                kind = "pinv" if "pinv" in name or "pinverse" in name else "inv"
                k = b[-1] if len(b) >= 2 else 1
                out.append((int(r), _solve_share(kind, a[0], k),
                            f"{name} of a {a[0]} x {a[0]} matrix, then {ctx.names([j])[0]}"))
                break
    return out


def inverse_product(ctx, th):
    """``inv(A) @ b`` with A of ``min_n`` rows or more: on a traced line (numpy, scipy), or a framework's inverse
    op (torch.linalg.inv, pinv) whose result a matrix product takes. Gain: each line's time (each inverse op's)
    scaled by solve's FLOPs (LU 2n^3/3 + 2n^2 k) over the inverse's and the product's (2n^3 + 2n^2 k; an
    SVD-based pseudo-inverse 23n^3 + 2n^2 k)."""
    ops = _op_inverses(ctx, th)
    if ops:
        yield from _ops_finding(ctx, th, ops)
        return
    flagged = []
    for rec, c, (a, b) in _contractions(ctx, "inv_product"):
        if a is None or b is None or len(a["shape"]) != 2 or a["shape"][0] < th["min_n"]:
            continue
        n = a["shape"][0]
        k = b["shape"][-1] if len(b["shape"]) >= 2 else 1
        done, needed = INVERSE_N3["inv"] * n ** 3 + 2.0 * n * n * k, LU_N3 * n ** 3 + 2.0 * n * n * k
        flagged.append((rec, _solve_share("inv", n, k),
                        f"inv({c['operands'][0]}) @ {c['operands'][1]} with a {n} x {n} matrix: {done:.3g} FLOPs "
                        f"where solve needs {needed:.3g}"))
    if not flagged:
        return

    def title(first, t):
        return f"Line {where(first[0]['file_line'])} inverts a matrix to solve with it: {first[2]} ({F.ns(t)}, {pct(t, ctx.wall):.0f}% of end-to-end)"

    yield from finding_from_lines(ctx, th, "inverse_product", "hotspot", flagged, title, SOLVE_SUGGESTION,
                                  " (each line's time scaled by solve's FLOPs over the inverse's and the product's)",
                                  {"flops": "inv 2n^3 + product 2n^2 k; solve 2n^3/3 + 2n^2 k"})


SOLVE_SUGGESTION = ("Solve instead of inverting: np.linalg.solve(A, b) (torch.linalg.solve); for a symmetric positive "
                    "definite matrix (X^T X + lambda I) a Cholesky factor and cho_solve (torch.linalg.cholesky + "
                    "torch.cholesky_solve); for a matrix reused across many right-hand sides factor it once "
                    "(scipy.linalg.lu_factor / cho_factor, torch.linalg.lu_factor) and solve per right-hand side; "
                    "lstsq where the system is not square.")


def _ops_finding(ctx, th, ops: list[tuple[int, float, str]]):
    from .compute import _factor_gain
    rows = np.array([r for r, _, _ in ops], dtype=np.int64)
    t = covered_ns(ctx, rows)
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    factor = np.ones(ctx.n)
    for r, share, _ in ops:
        factor[r] = 1.0 - share
    gain, conf = _factor_gain(ctx, rows, factor)
    first = max(ops, key=lambda x: ctx.dur[x[0]])
    title = (f"A matrix is inverted to solve with it {len(ops):,} time(s): {first[2]} ({F.ns(t)}, "
             f"{pct(t, ctx.wall):.0f}% of end-to-end)")
    yield make_finding(ctx, "inverse_product", "hotspot", title,
                       evidence={"inverses": len(ops), "time_ns": t, "example": first[2],
                                 "flops_n3": {"inverse": INVERSE_N3, "lu_solve": LU_N3}},
                       ops=sorted({str(n) for n in ctx.names(rows)}), suggestion=SOLVE_SUGGESTION, gain_ns=gain,
                       method=METHOD_CP + " (each inverse op at solve's share of its FLOPs)", confidence=conf * 0.6,
                       rows=rows, affected_ns=t)


# condition and rank checks done by a full SVD (numpy's default p=None/2-norm; torch's linalg ops)
SVD_GUARD_RE = re.compile(r"^(numpy\.linalg(\._linalg|\.linalg)?\.(cond|matrix_rank)|aten::linalg_(cond|matrix_rank))$")


def svd_guard(ctx, th):
    """Condition numbers or ranks computed by a full SVD ``min_calls`` times or more (a check before every
    solve): the SVD does ~12n^3 FLOPs (Golub & Van Loan), the LU of a solve 2n^3/3. Gain: the checks
    removed, replayed (a solve's result says whether the matrix was singular: ``np.isfinite(x).all()``, a
    LinAlgError, or the residual)."""
    rows = np.flatnonzero(ctx.flag(SVD_GUARD_RE) & ctx.is_host)
    if not len(rows):
        return
    rows = outermost(ctx, rows)
    if len(rows) < th["min_calls"]:
        return
    t = covered_ns(ctx, rows)
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    from .compute import _factor_gain
    gain, conf = _factor_gain(ctx, rows, np.zeros(ctx.n))
    names = sorted({str(n) for n in ctx.names(rows)})
    title = (f"{', '.join(names)} called {len(rows):,} times, {F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end): "
             "each a full SVD, several times the solve or factorisation it usually guards")
    sugg = ("np.linalg.cond (2-norm) and matrix_rank compute an SVD, ~12n^3 FLOPs against the 2n^3/3 of the LU "
            "np.linalg.solve does. To guard a solve, check its result instead (np.isfinite(x).all(), the "
            "residual, or catch np.linalg.LinAlgError); for an estimate from the LU factors you already have, "
            "scipy.linalg.lu_factor then scipy.linalg.lapack.dgecon; or check once per matrix, not per call.")
    yield make_finding(ctx, "svd_guard", "hotspot", title,
                       evidence={"calls": int(len(rows)), "time_ns": t, "functions": names},
                       ops=names, suggestion=sugg, gain_ns=gain, method=METHOD_CP + " (the SVD checks removed)",
                       confidence=conf * 0.6, rows=rows, affected_ns=t)


def _square(o: dict | None) -> int:
    """The order of a square matrix operand (dense or sparse), 0 for anything else."""
    if o is None or o.get("kind") not in ("ndarray", "sparse") or len(o.get("shape") or ()) != 2:
        return 0
    n, m = o["shape"]
    return int(n) if n == m else 0


def refactorised_matrix(ctx, th):
    """A solve in a loop (``spsolve(A, rhs)``, ``np.linalg.solve(A, b)``, ``lstsq``) whose matrix was the same on
    the line's two sampled runs while its right-hand side changed: every call factorises the unchanged matrix
    again (LU, Cholesky, QR/SVD), the bulk of a solve's work, where factorising once and solving per
    right-hand side would do. A factorisation's share of a dense solve: LU's 2n^3/3 FLOPs against the
    triangular solves' 2n^2 k for k right-hand sides; of a sparse one ``sparse_factor_share``. Gain: that
    share of every run but the first."""
    la = line_arrays(ctx)
    if la.empty or "contractions" not in la:
        return
    flagged = []
    for rec in la.to_dict("records"):
        runs = len(rec["rows"])
        if runs < th["min_runs"] or rec.get("same_work"):
            continue   # (the same right-hand side too: the whole line repeats, recomputed_lines' case)
        ops = {o["name"]: o for o in rec["operands"]}
        for c in rec.get("contractions") or []:
            if c.get("kind") != "solve":
                continue
            matrix, rhs = c["operands"]
            if matrix not in rec["same_inputs"] or rhs in rec["same_inputs"]:
                continue
            a, b = ops.get(matrix), ops.get(rhs)
            n = _square(a)
            if n < th["min_n"]:
                continue
            if a["kind"] == "sparse":
                share, how = th["sparse_factor_share"], "sparse LU"
            else:
                k = int(b["shape"][1]) if b is not None and len(b.get("shape") or ()) == 2 else 1
                share, how = n / (n + 3.0 * k), f"~{n / (n + 3.0 * k):.0%} of the FLOPs"
            flagged.append((rec, share * (runs - 1) / runs,
                            f"{c['fn']}({matrix}, {rhs or '...'}) with the same {n} x {n} "
                            f"{'sparse ' if a['kind'] == 'sparse' else ''}matrix on every run ({how} in its "
                            f"factorisation), {runs:,} runs"))
            break
    if not flagged:
        return

    def title(first, t):
        return (f"Line {where(first[0]['file_line'])} factorises an unchanged matrix on every solve: {first[2]}; "
                f"{F.ns(t)} ({pct(t, ctx.wall):.0f}% of end-to-end)")

    sugg = ("Factorise the matrix once, outside the loop, and solve with the factors for each new right-hand side: "
            "scipy.sparse.linalg.splu(A) (or factorized(A)) then lu.solve(b) for sparse matrices; "
            "scipy.linalg.lu_factor / lu_solve, or cho_factor / cho_solve for a symmetric positive definite matrix, "
            "for dense ones; for least squares, a QR (scipy.linalg.qr) or np.linalg.pinv(A) computed once. If all "
            "right-hand sides are known up front, solve them in one call with a matrix B of columns.")
    yield from finding_from_lines(ctx, th, "refactorised_matrix", "redundant", flagged, title, sugg,
                                  " (each line's runs but the first at the factorisation's share of their time)",
                                  {"sparse_factor_share": th["sparse_factor_share"]})
