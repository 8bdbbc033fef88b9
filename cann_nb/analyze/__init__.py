"""Pure functions on Profile tables that return DataFrames, and the advisor. Never plots, never prints.

Entry points (see api.py): ``analyze(profile)`` (DESIGN.md's ``analyze --json`` object),
``findings(profile)`` (advisor Findings sorted by estimated gain), ``analyses(profile)`` (every
analysis). Rules: ``analyze.rules`` (``rule`` decorator, ``register``, ``add_custom_metric``).
"""

from .api import analyses, analyze, findings, json_safe, summary
from .rules.base import add_custom_metric, register, remove_custom_metric, rule, unregister

__all__ = ["analyze", "findings", "analyses", "summary", "json_safe", "add_custom_metric", "remove_custom_metric",
           "rule", "register", "unregister"]
