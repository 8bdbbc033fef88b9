"""What every rule uses: the Rule record, the registry, Finding construction and gain methods."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np

from ..finding import CATEGORIES, Finding

MAX_EVENT_IDS = 50        # event ids kept in a finding's evidence for drill-down
# severity from the share of end-to-end time at stake (msprof-analyze get_priority_by_time_ratio)
HIGH_PCT, MEDIUM_PCT = 5.0, 3.0

METHOD_CP = "critical-path what-if"
METHOD_HEADROOM = "headroom"
METHOD_UNION = "union of flagged time"


@dataclass(frozen=True)
class Rule:
    """One advisor rule: ``fn(ctx, th)`` yields Findings; ``th`` is this rule's thresholds."""

    id: str
    category: str
    title: str
    fn: Callable
    thresholds: dict = field(default_factory=dict)
    source: str = ""
    gain: str = ""            # the gain method the rule uses
    needs: tuple = ()         # data it needs: "device", "memory", "shapes", "steps", "ascend", ...

    def __post_init__(self):
        if self.category not in CATEGORIES:
            raise ValueError(f"rule {self.id}: category {self.category!r} is not one of {CATEGORIES}")

    def describe(self) -> dict:
        return {"id": self.id, "category": self.category, "title": self.title, "thresholds": dict(self.thresholds),
                "source": self.source, "gain": self.gain, "needs": list(self.needs)}


_REGISTRY: dict[str, Rule] = {}


def register(rule: Rule, replace: bool = False) -> Rule:
    """Add a rule to the advisor (users' rules run with the built-in ones)."""
    if rule.id in _REGISTRY and not replace:
        raise ValueError(f"a rule with id {rule.id!r} is already registered (pass replace=True)")
    _REGISTRY[rule.id] = rule
    return rule


def unregister(rule_id: str) -> None:
    _REGISTRY.pop(rule_id, None)


def rule(id: str, category: str, title: str = "", thresholds: dict | None = None, source: str = "user",
         gain: str = "", needs: tuple = ()):
    """Decorator form of ``register`` for user rules::

        @rule("my_rule", "hotspot", thresholds={"min_pct": 10})
        def my_rule(ctx, th):
            ...
            yield make_finding(ctx, "my_rule", "hotspot", ...)
    """
    def deco(fn):
        register(Rule(id, category, title or id, fn, dict(thresholds or {}), source, gain, tuple(needs)))
        return fn
    return deco


def registered() -> list[Rule]:
    return list(_REGISTRY.values())


# -- findings -----------------------------------------------------------------------------------------
def severity(pct: float) -> str:
    if pct is None or not math.isfinite(pct):
        return "info"
    if pct >= HIGH_PCT:
        return "high"
    if pct >= MEDIUM_PCT:
        return "medium"
    return "low"


def event_ids(ctx, rows, limit: int = MAX_EVENT_IDS) -> list[int]:
    rows = np.asarray(rows, dtype=np.int64)
    rows = rows[(rows >= 0) & (rows < ctx.n)]
    if not len(rows):
        return []
    # the longest first: they are the ones worth looking at
    order = np.argsort(-ctx.dur[rows], kind="stable")[:limit]
    return [int(x) for x in ctx.id[rows[order]]]


def _clean(v):
    """JSON-friendly evidence values: numpy scalars to Python, NaN to None."""
    if isinstance(v, dict):
        return {str(k): _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    if isinstance(v, np.ndarray):
        return [_clean(x) for x in v.tolist()]
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return f if math.isfinite(f) else None
    if isinstance(v, np.bool_):
        return bool(v)
    return v


def make_finding(ctx, rule_id: str, category: str, title: str, *, evidence: dict | None = None, ops=(),
                 suggestion: str = "", gain_ns: float = math.nan, method: str | None = None,
                 confidence: float = math.nan, rows=None, affected_ns: float | None = None) -> Finding:
    """A Finding with the gain as % of the wall time without the profiler's own time (what the user
    gets; analyze/recording_cost.py), severity from the time at stake (the gain, or the affected time
    when the gain is unknown), and the evidence rows as event ids."""
    wall = ctx.wall_without_recording
    ev = dict(evidence or {})
    if method:
        ev["method"] = method
    elif not math.isfinite(gain_ns):
        ev.setdefault("method", "none: the profile does not support an estimate")
    if rows is not None:
        ev["event_ids"] = event_ids(ctx, rows)
    g = float(gain_ns) if gain_ns is not None else math.nan
    if math.isfinite(g):
        g = max(0.0, min(g, float(wall)))
    pct = 100.0 * g / wall if math.isfinite(g) else math.nan
    at_stake = pct if math.isfinite(pct) else (100.0 * affected_ns / wall if affected_ns else math.nan)
    if affected_ns is not None:
        ev.setdefault("affected_ns", float(affected_ns))
    ev.setdefault("wall_ns", int(ctx.wall))
    if ctx.recording_ns > 0:
        from ..recording_cost import describe
        ev.setdefault("recording", describe(ctx, ctx.recording_ns))
    return Finding(rule=rule_id, category=category, severity=severity(at_stake), title=title, evidence=_clean(ev),
                   ops=tuple(str(o) for o in ops), suggestion=suggestion, est_gain_ns=g, est_gain_pct=pct,
                   confidence=float(confidence) if confidence is not None else math.nan)


def replay_gain(ctx, **changes) -> tuple[float, float]:
    """(gain_ns, confidence) of a what-if on the replay model; confidence drops with the model's
    distance from the recorded run."""
    rep = ctx.replay
    g = rep.gain(**changes)
    fid = rep.fidelity
    conf = 0.8 if not math.isfinite(fid) else max(0.2, 0.9 - 2.0 * abs(1.0 - fid))
    return g, conf


def pct(part: float, whole: float) -> float:
    return 100.0 * float(part) / float(whole) if whole else 0.0


def covered_ns(ctx, rows) -> int:
    """Time the rows' spans cover inside the analysed window: overlapping and nested spans (threads,
    streams, an op and its children) merged, so a share of end-to-end built on it is at most 100 %."""
    rows = np.asarray(rows, dtype=np.int64)
    return covered_spans_ns(ctx, ctx.start[rows], ctx.end[rows])


def covered_spans_ns(ctx, start, end) -> int:
    """``covered_ns`` of arbitrary spans (runs, regions)."""
    from ..intervals import clip, union
    if not len(start):
        return 0
    lo, hi = ctx.window
    s, e = clip(start, end, lo, hi)
    us, ue = union(s, e)
    return int((ue - us).sum())


def top_names(ctx, rows, k: int = 5, weight=None) -> list[str]:
    """The k names with the most time among rows."""
    rows = np.asarray(rows, dtype=np.int64)
    if not len(rows):
        return []
    w = ctx.dur[rows] if weight is None else np.asarray(weight)
    codes = ctx.name_code[rows]
    tot = np.bincount(np.maximum(codes, 0), weights=w)
    order = np.argsort(-tot)[:k]
    return [str(ctx.name_cats[c]) for c in order if tot[c] > 0]


def run_rules(ctx, rules: Iterable[Rule], overrides: dict | None = None, errors: list | None = None) -> list[Finding]:
    out: list[Finding] = []
    for r in rules:
        th = dict(r.thresholds)
        if overrides and r.id in overrides:
            th.update(overrides[r.id])
        try:
            got = r.fn(ctx, th)
            if got is None:
                continue
            if isinstance(got, Finding):
                got = [got]
            for f in got:
                if isinstance(f, Finding):
                    out.append(f)
        except Exception as exc:  # one broken rule must not hide the others' findings
            if errors is not None:
                errors.append({"rule": r.id, "error": f"{type(exc).__name__}: {exc}"})
    return out
