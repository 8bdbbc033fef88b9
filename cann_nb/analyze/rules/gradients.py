"""The numeric-gradient rule: an optimiser estimating the gradient of the user's function by finite
differences (``scipy.optimize.minimize(f, x0)`` with no ``jac``: BFGS, L-BFGS-B, CG, SLSQP...), which
evaluates the function once more per parameter for every gradient.

Reasoned from the work: the trace gives each finite-difference pass (scipy's ``approx_derivative`` or
``approx_fprime``) and the user's evaluations inside it, n (2-point, f(x) reused) or 2n (3-point) for n parameters.
An analytic gradient (``jac=``, by hand or by automatic differentiation) costs a small multiple of one
evaluation whatever n is: reverse-mode differentiation bounds it by a few evaluations ("cheap gradient
principle", Griewank & Walther, Evaluating Derivatives, 2008, ch. 4: at most ~4-5x; ``GRADIENT_COST`` = 3
evaluations assumed here). Gain: each pass replayed at that cost.
"""

from __future__ import annotations

import re

import numpy as np

from ... import formatting as F
from ..python_spans import call_kinds, user_frames
from ..timeline import nearest_ancestor, outermost
from .base import METHOD_CP, covered_spans_ns, make_finding, pct
from .compute import _factor_gain

FD_RE = re.compile(r"(^|\.)(approx_derivative|approx_fprime|_approx_fprime_helper)$")
GRADIENT_COST = 3.0   # evaluations an analytic gradient costs (see the module docstring)


def numeric_gradient(ctx, th):
    """Finite-difference gradient passes over the user's function, ``min_evals`` evaluations per pass or
    more. Gain: each pass at ``GRADIENT_COST`` typical evaluations."""
    if "call_kind" not in ctx.events or not ctx.n:
        return
    fd = ctx.flag(FD_RE) & call_kinds(ctx)["py"]
    if not fd.any():
        return
    passes = outermost(ctx, np.flatnonzero(fd))
    user = user_frames(ctx) & call_kinds(ctx)["py"]
    evals = np.flatnonzero(user)
    is_pass = np.zeros(ctx.n, dtype=bool)
    is_pass[passes] = True
    owner = nearest_ancestor(ctx, evals, is_pass, through=~user)
    evals, owner = evals[owner >= 0], owner[owner >= 0]
    if not len(evals):
        return
    per_pass = np.bincount(np.searchsorted(passes, owner), minlength=len(passes))
    keep = per_pass >= th["min_evals"]
    passes, per_pass = passes[keep], per_pass[keep]
    if not len(passes):
        return
    evals = evals[np.isin(owner, passes)]
    typical = float(np.median(ctx.dur[evals]))
    t = covered_spans_ns(ctx, ctx.start[passes], ctx.end[passes])
    if pct(t, ctx.wall) < th["min_pct"]:
        return
    factor = np.ones(ctx.n)
    factor[passes] = np.minimum(1.0, GRADIENT_COST * typical / np.maximum(ctx.dur[passes].astype(float), 1.0))
    gain, conf = _factor_gain(ctx, passes, factor)
    fn = str(ctx.names(evals[:1])[0])
    title = (f"The gradient of {fn} is estimated by finite differences: {len(passes):,} passes of about "
             f"{int(np.median(per_pass)):,} evaluations each (one or two per parameter), {F.ns(t)} "
             f"({pct(t, ctx.wall):.0f}% of end-to-end)")
    yield make_finding(
        ctx, "numeric_gradient", "redundant", title,
        evidence={"function": fn, "passes": int(len(passes)), "evaluations": int(len(evals)),
                  "evaluations_per_pass": float(np.median(per_pass)), "typical_evaluation_ns": typical,
                  "gradient_cost_evaluations": GRADIENT_COST, "time_ns": int(t),
                  "routine": str(ctx.names(passes[:1])[0])},
        ops=[fn, str(ctx.names(passes[:1])[0])],
        suggestion=("Give the optimiser the gradient: minimize(f, x0, jac=grad) with the gradient written out "
                    "(vectorised numpy), or jac=True with f returning (value, gradient), or derive it "
                    "automatically (jax.grad, torch.func.grad, autograd); it costs a few evaluations instead of "
                    "one per parameter."),
        gain_ns=gain, method=METHOD_CP + f" (each pass at {GRADIENT_COST:g} typical evaluations: an analytic "
        "gradient's cost)", confidence=conf * 0.6, rows=passes, affected_ns=t)
