"""Profiles for the report tests: a hostile one (markup, script, URLs and quotes in every string a profile
can carry) built on the widgets' synthetic profile; the real Ascend sample is the `ascend` fixture (conftest)."""

from __future__ import annotations

import numpy as np

from cann_nb.analyze.finding import Finding
from tests.widgets.synth import synthetic_profile

PWN = "window.__pwned=(window.__pwned||0)+1"
SCRIPT = f"<script>{PWN}</script>"
CLOSE = f"</script><script>{PWN}</script>"
IMG = f'<img src=x onerror="{PWN}">'
JSURL = f"javascript:{PWN}"
QUOTES = f"\"'><svg onload={PWN}>"
COMMENT = "<!-- <b>hidden?</b> -->"
STYLE = "<style>body{display:none}</style>"
HOSTILE = [SCRIPT, CLOSE, IMG, JSURL, QUOTES, COMMENT, STYLE]


def hostile_profile(n: int = 3_000):
    p = synthetic_profile(n, name=SCRIPT)
    ev = p.events
    names = list(ev["name"].cat.categories)
    ops = [c for c in names if c.startswith("aten::")]
    ev["name"] = ev["name"].cat.rename_categories(dict(zip(ops, HOSTILE)))
    ev["shapes"] = ev["shapes"].cat.rename_categories({ev["shapes"].cat.categories[0]: f"[[{IMG}]]"})
    ev["module"] = ev["module"].cat.rename_categories({ev["module"].cat.categories[0]: f"model.{QUOTES}"})
    ev["track"] = ev["track"].cat.rename_categories({"host/thread 2": f"host/thread {COMMENT}"})
    ctr = p.counters
    ctr["metric"] = ctr["metric"].cat.rename_categories({"gpu_util": f"gpu_util {SCRIPT}"})
    p.meta.update({
        "error": CLOSE, "status": "ok", "created": f"2026-01-01 {STYLE}",
        "source": {"kind": "cell", "execution_count": 7, "cell": f"x = '{CLOSE}'\n# {COMMENT}\nprint({IMG!r})"},
        "environment": {"hostname": IMG, "platform": JSURL, "python": QUOTES,
                        "packages": {SCRIPT: CLOSE, "torch": f"2.3 {COMMENT}"}},
        "devices": [{"device": f"cuda:0 {SCRIPT}", "name": QUOTES}],
        "collectors": {f"<b>{SCRIPT}</b>": {"status": IMG, "reason": JSURL, "options": {QUOTES: STYLE}},
                       "plain": "a bare string " + CLOSE},
        "options": {COMMENT: STYLE, "nested": {SCRIPT: [IMG, JSURL]}},
        "dropped": {IMG: 3},
        SCRIPT: {QUOTES: [CLOSE, COMMENT]},
    })
    return p


def hostile_findings(profile):
    ev = profile.events
    ids = ev.loc[ev["name"] == SCRIPT, "id"].to_numpy()[:40]
    return [
        Finding(rule=f"rule {IMG}", category="hotspot", severity="high", title=f"{SCRIPT} dominates {QUOTES}",
                evidence={"method": JSURL, "event_ids": ids.tolist(), CLOSE: COMMENT, "self_ns": 1.5e6},
                ops=(SCRIPT, IMG), suggestion=f"Fuse <b>it</b> via {JSURL} {STYLE}", est_gain_ns=2e5,
                est_gain_pct=5.0, confidence=0.7),
        Finding(rule="idle", category="idle", severity="info", title=f"nothing to fix {COMMENT}",
                evidence={"method": "n/a"}),
    ]


def known_findings(profile):
    """Two findings with evidence events (a plain op's occurrences) for click tests."""
    ev = profile.events
    ids = ev.loc[ev["name"] == "aten::matmul", "id"].to_numpy()[:30]
    launches = ev.loc[ev["name"] == "cudaLaunchKernel", "id"].to_numpy()[:100]
    return [
        Finding(rule="hotspot", category="hotspot", severity="high", title="aten::matmul dominates",
                evidence={"method": "headroom", "event_ids": ids.tolist()}, ops=("aten::matmul",),
                suggestion="Use a larger batch.", est_gain_ns=float(np.int64(5e5)), est_gain_pct=4.0, confidence=0.8),
        Finding(rule="launch_overhead", category="launch_overhead", severity="medium", title="many small launches",
                evidence={"method": "union of flagged time", "event_ids": launches.tolist()},
                ops=("cudaLaunchKernel",), suggestion="Capture with CUDA graphs.", est_gain_ns=1e5,
                est_gain_pct=1.0, confidence=0.5),
    ]
