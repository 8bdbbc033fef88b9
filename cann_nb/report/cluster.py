"""A group of ranks -> one self-contained HTML report: the cluster's answer server-rendered and escaped
(findings, stragglers with the test, the per-rank table, collectives' skew, how it was computed), and the
interactive cluster view (js/cluster.js: rank x step heatmap, stacked per-rank bars, stragglers outlined)
around it, on the widgets' offline page (``widgets.standalone.page_html``: hashed CSP, no network).

Every figure comes from the ``ClusterResult`` (analyze/cluster); this file formats and escapes, nothing
more. Trace text (group, device and collective names, finding text) only ever lands as escaped element
text here, or in the view's JSON state, where js/cluster.js sets it as text.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

from .. import formatting as F
from .sections import e, footer, static_findings

CSS_PATH = Path(__file__).with_name("report.css")
RANK_HEAD = ["rank", "device", "wall", "busy", "compute", "communication", "memcpy", "idle", "comm wait",
             "active", "step p50", "steps", "events"]
TOP_COLLECTIVES = 50


def as_cluster(what, store=None):
    """The ClusterResult ``what`` names (a ClusterResult, a ProfileGroup, a stored group's name or
    directory, a folder of ranks: ``cann_nb.cluster``'s forms), or None when it names one profile."""
    from ..analyze.cluster import ClusterResult
    from ..frontends.cluster import cluster, names_group

    if isinstance(what, ClusterResult):
        return what
    return cluster(what, store=store) if names_group(what, store) else None


def cluster_report_html(res, *, title: str | None = None) -> str:
    """The report of ``res`` (a ClusterResult) as one HTML string."""
    from .. import __version__ as version
    from ..widgets.cluster_view import ClusterView
    from ..widgets.standalone import page_html, widget_state

    state = widget_state(ClusterView(res))
    state.pop("render_stats", None)
    title = title or f"cluster {res.group.get('name') or ''}".strip()
    before = [header(res, title), nav(), findings(res), stragglers(res),
              '<section class="rpt-sec" id="view"><h2>Rank x step and per-rank time</h2>'
              '<p class="rpt-muted rpt-small">The heatmap shows each rank\'s step time (or comm wait) per step; the '
              "bars split each rank's wall time into its busiest device's compute, communication, memcpy and idle "
              "time, with its comm wait beside them. Stragglers are outlined in red. Hover for the figures.</p>",
              '<div class="rpt-wait">Loading the interactive view… If this message stays, JavaScript is off or '
              "blocked here: the tables on this page are static and complete.</div>"]
    generated = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    after = ["</section>", ranks(res), collectives(res), method(res), footer(version, generated)]
    return page_html(state, title=f"{title} · cann_nb report", include_bokehjs=False,
                     style=CSS_PATH.read_text(encoding="utf-8"),
                     before='<div class="rpt-page">' + "".join(before), after="".join(after) + "</div>")


def header(res, title: str) -> str:
    g = res.group
    slow = res.straggler_ranks
    cards = [("ranks", f"{len(res.ranks):,}", f"world size {g.get('world_size')}" if g.get("world_size") else ""),
             ("events", f"{g.get('events', 0):,}", "across every rank"),
             ("stragglers", ", ".join(f"rank {r}" for r in slow) if slow else "none",
              "robust z-score test, below"),
             ("collectives", f"{len(res.collectives):,}", "matched across ranks"),
             ("engine", str(g.get("engine") or ""), ", ".join(g.get("workers") or []))]
    card = ('<div class="rpt-card"><div class="rpt-card-label">{}</div><div class="rpt-card-value">{}</div>'
            '<div class="rpt-card-sub">{}</div></div>')
    return ('<header class="rpt-head" id="top"><div class="rpt-kicker">cann_nb cluster report</div>'
            f'<h1><span class="rpt-title">{e(title)}</span></h1>'
            + (f'<div class="rpt-sub">stored at {e(g.get("path"))}</div>' if g.get("path") else "")
            + '<div class="rpt-cards">' + "".join(card.format(e(a), e(b), e(c)) for a, b, c in cards) + "</div>"
            + "</header>")


def nav() -> str:
    links = [("findings", "Findings"), ("stragglers", "Stragglers"), ("view", "Rank x step"),
             ("ranks", "Per rank"), ("collectives", "Collectives"), ("method", "How")]
    return ('<nav class="rpt-nav" aria-label="sections">'
            + "".join(f'<a href="#{a}">{e(t)}</a>' for a, t in links) + "</nav>")


def findings(res) -> str:
    html = static_findings([f.to_dict() for f in res.findings],
                           "No findings: no rank stands out from the others." if len(res.ranks) else "No ranks.")
    # the profile report's static list is a fallback for its interactive panel (hidden once that runs, and
    # #suggestions is hidden in print): here it is the only one
    return html.replace('class="rpt-sec rpt-fallback" id="findings-static"><h2>Suggestions</h2>',
                        'class="rpt-sec" id="findings"><h2>Findings</h2>', 1)


def stragglers(res) -> str:
    parts = ['<section class="rpt-sec" id="stragglers"><h2>Stragglers</h2>']
    if len(res.stragglers):
        rows = [[s["rank"], str(s["reason"]).replace("_", " "), s["metric"], F.ns(s["value"]), F.ns(s["median"]),
                 f"{s['score']:.1f}"] for s in res.stragglers.to_dict("records")]
        parts.append(_table(["rank", "reason", "metric", "value", "median rank", "robust z"], rows, right={3, 4, 5},
                            marked=[True] * len(rows)))
    else:
        parts.append('<p class="rpt-muted">No straggler: no rank\'s active time stands out from the others.</p>')
    parts.append(f'<p class="rpt-muted rpt-small">test: {e(res.group.get("straggler_test"))}</p></section>')
    return "".join(parts)


def ranks(res) -> str:
    slow = set(res.straggler_ranks)
    df = res.ranks.sort_values("rank", kind="stable")

    def opt(r, key, fmt):
        return fmt(r[key]) if key in r and r[key] is not None else "–"

    rows, marked = [], []
    for r in df.to_dict("records"):
        rows.append([r["rank"], r.get("device") or "–", F.ns(r["wall_ns"]), F.ns(r["busy_ns"]), F.ns(r["compute_ns"]),
                     F.ns(r["communication_ns"]), F.ns(r["memcpy_ns"]), F.ns(r["idle_ns"]), F.ns(r["comm_wait_ns"]),
                     opt(r, "active_ns", F.ns), F.ns(r["step_p50_ns"]), opt(r, "steps", "{:,}".format),
                     opt(r, "events", "{:,}".format)])
        marked.append(r["rank"] in slow)
    return ('<section class="rpt-sec" id="ranks"><h2>Per rank</h2>'
            '<p class="rpt-muted rpt-small">Each rank\'s busiest device, with analyze\'s definitions: busy = compute + '
            "communication + memcpy (each instant counted once), idle = wall - busy; comm wait = time in collectives "
            "before the last rank arrived; active = wall - comm wait. Stragglers are highlighted.</p>"
            + '<div class="rpt-scroll">' + _table(RANK_HEAD, rows, right=set(range(2, 13)), marked=marked) + "</div></section>")


def collectives(res) -> str:
    parts = ['<section class="rpt-sec" id="collectives"><h2>Collectives</h2>']
    c = res.collectives
    if not len(c):
        parts.append('<p class="rpt-muted">No collective was matched across ranks.</p></section>')
        return "".join(parts)
    top = c.head(TOP_COLLECTIVES)
    rows = [[r["name"], f"{r['count']:,}", F.ns(r["skew_p50_ns"]), F.ns(r["skew_max_ns"]), r["last_rank"],
             F.ns(r["wait_ns"]) if "wait_ns" in r else "–"] for r in top.to_dict("records")]
    more = f" (top {len(top)} of {len(c):,})" if len(c) > len(top) else ""
    parts.append(f'<p class="rpt-muted rpt-small">Most waited-for first{e(more)}. Skew of one call = last arrival - '
                 "first arrival across ranks; last rank = the rank that arrived last most often; total wait = every "
                 "rank's time in it before the last one arrived.</p>"
                 + _table(["collective", "calls", "skew p50", "skew max", "last rank", "total wait"], rows,
                          right={1, 2, 3, 4, 5}))
    parts.append("</section>")
    return "".join(parts)


def method(res) -> str:
    g = res.group
    items = [("engine", g.get("engine")), ("workers", ", ".join(g.get("workers") or []) or "this process"),
             ("clocks", g.get("clocks")), ("matching", g.get("matching")), ("straggler test", g.get("straggler_test"))]
    return ('<section class="rpt-sec" id="method"><h2>How this was computed</h2><dl class="rpt-facts">'
            + "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in items if v) + "</dl></section>")


def _table(header, rows, right=(), marked=None) -> str:
    """An escaped table; rows whose ``marked`` entry is true carry ``rpt-straggler`` (highlighted)."""
    marked = marked or [False] * len(rows)
    num = ' class="num"'
    head = "".join(f'<th{num if i in right else ""}>{e(h)}</th>' for i, h in enumerate(header))
    body = "".join(('<tr class="rpt-straggler">' if m else "<tr>")
                   + "".join(f'<td{num if i in right else ""}>{e(c)}</td>' for i, c in enumerate(r)) + "</tr>"
                   for r, m in zip(rows, marked))
    return f'<table class="rpt-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
