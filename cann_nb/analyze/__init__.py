"""Pure functions on Profile tables that return DataFrames, and the advisor. Never plots, never prints.

Entry points (see api.py): ``analyze(profile)`` (DESIGN.md's ``analyze --json`` object),
``findings(profile)`` (advisor Findings sorted by estimated gain), ``analyses(profile)`` (every
analysis). Rules: ``analyze.rules`` (``rule`` decorator, ``register``). Custom metrics are registered with
``cann_nb.add_custom_metric`` (collect/custom_metrics.py); ``analyze()`` reports them under ``"metrics"``.
"""

from .api import analyses, analyze, findings, json_safe, summary
from .rules.base import register, rule, unregister

__all__ = ["analyze", "findings", "analyses", "summary", "json_safe", "rule", "register", "unregister"]
