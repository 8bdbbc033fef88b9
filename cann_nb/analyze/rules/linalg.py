"""Linear-algebra calls that do more work than the matrix needs, from the Python tracer's line samples
(collect/line_arrays.py: the operands' shapes, and whether a matrix given to a general eigensolver is
symmetric):

* ``symmetric_eig``: ``np.linalg.eig``/``eigvals`` on a symmetric (Hermitian) matrix: the general
  solver reduces to Hessenberg form and iterates in complex arithmetic where ``eigh``/``eigvalsh``
  reduce to tridiagonal form;
* ``inverse_product``: ``inv(A) @ b``: the inverse costs three times the LU factorisation that
  ``solve(A, b)`` needs (and is less accurate).

Gains reason from LAPACK's FLOP counts (Golub & Van Loan, Matrix Computations, 4th ed.: the QR
algorithm ~10n^3 for eigenvalues, ~25n^3 with eigenvectors; symmetric tridiagonal reduction 4n^3/3, ~9n^3
with eigenvectors; LU 2n^3/3, inverse 2n^3): a line's time scaled by the needed FLOPs over the done ones.
"""

from __future__ import annotations

from ... import formatting as F
from ..line_arrays import line_arrays
from .arrays import finding_from_lines, where
from .base import pct

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


def inverse_product(ctx, th):
    """``inv(A) @ b`` with A of ``min_n`` rows or more. Gain: each line's time scaled by solve's FLOPs
    (LU 2n^3/3 + 2n^2 k) over the inverse's and the product's (2n^3 + 2n^2 k)."""
    flagged = []
    for rec, c, (a, b) in _contractions(ctx, "inv_product"):
        if a is None or b is None or len(a["shape"]) != 2 or a["shape"][0] < th["min_n"]:
            continue
        n = a["shape"][0]
        k = b["shape"][-1] if len(b["shape"]) >= 2 else 1
        done, needed = 2.0 * n ** 3 + 2.0 * n * n * k, 2.0 * n ** 3 / 3 + 2.0 * n * n * k
        flagged.append((rec, 1.0 - needed / done,
                        f"inv({c['operands'][0]}) @ {c['operands'][1]} with a {n} x {n} matrix: {done:.3g} FLOPs "
                        f"where solve needs {needed:.3g}"))
    if not flagged:
        return

    def title(first, t):
        return f"Line {where(first[0]['file_line'])} inverts a matrix to solve with it: {first[2]} ({F.ns(t)}, {pct(t, ctx.wall):.0f}% of end-to-end)"

    sugg = ("Solve instead of inverting: np.linalg.solve(A, b) (torch.linalg.solve); for a matrix reused across "
            "many right-hand sides factor it once (scipy.linalg.lu_factor / cho_factor for a symmetric positive "
            "definite one) and lu_solve / cho_solve per right-hand side.")
    yield from finding_from_lines(ctx, th, "inverse_product", "hotspot", flagged, title, sugg,
                                  " (each line's time scaled by solve's FLOPs over the inverse's and the product's)",
                                  {"flops": "inv 2n^3 + product 2n^2 k; solve 2n^3/3 + 2n^2 k"})
