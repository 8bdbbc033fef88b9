"""The advisor: rules from rules/table.py (plus user-registered ones) -> Findings sorted by gain.

    from cann_nb.analyze.rules import findings, rule, make_finding
    findings(profile)                       # list[Finding], largest estimated gain first
    findings(profile, overrides={"small_ops": {"min_pct": 20}}, only=["syncs"])

User rules: ``@rule("id", "category", thresholds={...})`` on ``fn(ctx, th)`` yielding Findings built
with ``make_finding(ctx, ...)``; ``ctx`` is analyze.context.Context (arrays, joins, replay).
"""

from __future__ import annotations

import math

from ..context import context
from ..finding import Finding, findings_frame
from .base import Rule, make_finding, register, registered, replay_gain, rule, run_rules, unregister
from .table import RULES

__all__ = ["findings", "rules_table", "Rule", "rule", "register", "unregister", "make_finding", "replay_gain",
           "RULES", "findings_frame"]


def all_rules() -> list[Rule]:
    return list(RULES) + registered()


def rules_table():
    """The rules as a DataFrame: id, category, title, thresholds, source, gain, needs."""
    import pandas as pd
    return pd.DataFrame([r.describe() for r in all_rules()])


def findings(profile, overrides: dict | None = None, only=None, errors: list | None = None) -> list[Finding]:
    """Run the advisor on a Profile: every rule the data supports, Findings sorted by estimated gain
    (unknown gains last, then by the time at stake)."""
    ctx = context(profile)
    rules = all_rules()
    if only is not None:
        only = set(only)
        rules = [r for r in rules if r.id in only]
    if overrides is None and only is None:
        # the default run is cached per profile (and per set of registered rules)
        key = ("findings", tuple((r.id, id(r.fn)) for r in rules))
        out, errs = ctx.memo(key, lambda: _run(ctx, rules))
        if errors is not None:
            errors.extend(errs)
        return list(out)
    out = run_rules(ctx, rules, overrides, errors)
    return _sorted(out)


def _run(ctx, rules):
    errs: list = []
    return _sorted(run_rules(ctx, rules, None, errs)), errs


MIN_GAIN_PCT = 0.5  # a finding whose estimated gain is below this is not worth a user's time: dropped


def _sorted(out):
    out = [f for f in out if not (f.est_gain_pct is not None and math.isfinite(f.est_gain_pct)
                                  and f.est_gain_pct < MIN_GAIN_PCT)]

    def key(f: Finding):
        g = f.est_gain_ns
        known = g is not None and math.isfinite(g)
        stake = (f.evidence or {}).get("affected_ns") or 0.0
        return (0 if known else 1, -(g if known else 0.0), -float(stake))

    return sorted(out, key=key)
