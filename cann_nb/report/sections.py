"""The server-rendered parts of the report: header, overview, comparison summary, static findings and
hotspots (shown when scripts cannot run, and in print), run details.

Every value that comes from a profile goes through :func:`e` (``html.escape`` with quotes) and is only
ever placed as element text or inside a quoted attribute; no profile text becomes a URL, a style, an
event handler or markup. Links are in-page anchors (``#timeline``) only.
"""

from __future__ import annotations

import json
import math
from html import escape

from . import facts
from .. import formatting as F
from ..analyze.comparison import labels

TOP_HOTSPOTS = 30
META_STR_LIMIT = 2000
META_LIST_LIMIT = 50


def e(x) -> str:
    return escape("" if x is None else str(x), quote=True)


def _num(x) -> float | None:
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _dl(items, cls: str = "rpt-facts") -> str:
    if not items:
        return ""
    return f'<dl class="{cls}">' + "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in items) + "</dl>"


def _table(header, rows, right=(), cls="rpt-table") -> str:
    right = set(right)
    num = ' class="num"'
    head = "".join(f'<th{num if i in right else ""}>{e(h)}</th>' for i, h in enumerate(header))
    body = "".join("<tr>" + "".join(f'<td{num if i in right else ""}>{e(c)}</td>' for i, c in enumerate(r))
                   + "</tr>" for r in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _pct(x, signed=False) -> str:
    f = _num(x)
    return "–" if f is None else (f"{f:+.1f} %" if signed else f"{f:.1f} %")


# -- header -----------------------------------------------------------------------------------------
def header(profile, title: str, baseline=None) -> str:
    w = facts.what(profile)
    status = w["status"] or "unknown"
    status_cls = {"ok": "ok", "failed": "bad", "interrupted": "warn"}.get(status, "muted")
    where = facts.where(profile)
    host = dict(where).get("host", "")
    kind = {"cell": "notebook cell", "script": "script", "api": "Python API", "import": "imported profile"}.get(
        w["kind"], w["kind"] or "profile")
    recorded = dict(facts.when(profile)).get("recorded", "")
    sub = [kind, f"recorded {recorded}" if recorded else "",
           f"on {host}" if host else "", f"end-to-end {F.ns(profile.wall_ns)}"]
    parts = [
        '<header class="rpt-head" id="top">',
        f'<div class="rpt-kicker">cann_nb {"comparison" if baseline is not None else "profile"} report</div>',
        f'<h1><span class="rpt-title">{e(title)}</span> <span class="rpt-status rpt-{status_cls}">{e(status)}</span></h1>',
        f'<div class="rpt-sub">{e(" · ".join(s for s in sub if s))}</div>',
    ]
    if w["error"]:
        parts.append(f'<div class="rpt-error">error: {e(w["error"])}</div>')
    if baseline is not None:
        parts.append(f'<div class="rpt-sub">compared against baseline <b>{e(labels(baseline, profile)[0])}</b>'
                     f' (end-to-end {e(F.ns(baseline.wall_ns))}, recorded {e(baseline.meta.get("created") or "?")})</div>')
    parts.append('<div class="rpt-head-grid">')
    parts.append('<div><h3>What</h3>' + _dl([("profile", w["name"]), *w["items"]]) + "</div>")
    parts.append('<div><h3>When</h3>' + _dl(facts.when(profile)) + "</div>")
    parts.append('<div><h3>Where</h3>' + _dl(where) + "</div>")
    coll = facts.collectors(profile)
    opts = [(k, v) for k, v in facts.scalar_options(profile)][:10]
    parts.append('<div><h3>Collected with</h3>' + _dl(
        [(c["name"], " · ".join(x for x in (c["status"], c["reason"]) if x)) for c in coll]
        + [(f"option {k}", v) for k, v in opts]) + "</div>")
    parts.append("</div>")
    if w.get("code"):
        parts.append(f'<details class="rpt-code" open><summary>cell source</summary><pre>{e(w["code"])}</pre></details>')
    parts.append("</header>")
    return "".join(parts)


def nav(has_comparison: bool, has_events: bool) -> str:
    links = [("overview", "Overview")]
    if has_comparison:
        links.append(("comparison-summary", "Comparison"))
    if has_events:
        links.append(("timeline", "Timeline"))
    links += [("suggestions", "Suggestions"), ("hotspots", "Hotspots")]
    if has_events:
        links.append(("calltree", "Call tree"))
    links += [("charts", "Memory & utilisation"), ("roofline", "Roofline"), ("details", "Run details")]
    return ('<nav class="rpt-nav" aria-label="sections">'
            + "".join(f'<a href="#{a}">{e(t)}</a>' for a, t in links) + "</nav>")


# -- overview ---------------------------------------------------------------------------------------
def overview(profile, ov: dict, notes: list[str]) -> str:
    """The overview cards and tables: ``ov`` is the ProfileView's overview payload (analyze.api.overview's
    figures, JSON-safe); nothing here computes a figure."""
    devices = ov.get("devices") or {}
    peaks = ov.get("peak_memory") or {}
    shares = ov.get("shares") or {}

    def card(label, value, sub=""):
        return (f'<div class="rpt-card"><div class="rpt-card-label">{e(label)}</div>'
                f'<div class="rpt-card-value">{e(value)}</div><div class="rpt-card-sub">{e(sub)}</div></div>')

    peak_vals = [(d, _num(b)) for d, b in peaks.items() if _num(b) is not None]
    peak_max = max(peak_vals, key=lambda x: x[1]) if peak_vals else None
    busiest = max(((d, v) for d, v in devices.items() if d != "cpu"), key=lambda x: x[1]["busy_ns"], default=None)
    best, best_pct = _num(ov.get("best_gain_ns")), _num(ov.get("best_gain_pct"))
    cards = [
        card("end-to-end", F.ns(ov["wall_ns"]), ov.get("status") or profile.status),
        card("events", f"{ov.get('events', 0):,}",
             f"{ov.get('memory_rows', 0):,} memory rows · {ov.get('counter_rows', 0):,} counter samples"),
        card("peak memory", F.nbytes(peak_max[1]) if peak_max else "–", peak_max[0] if peak_max else "not recorded"),
        card("device utilisation", _pct(busiest[1]["busy_pct"]) if busiest else "–",
             f"{busiest[0]} busy, share of end-to-end" if busiest else "no accelerator in this profile"),
        card("findings", str(ov.get("n_findings", 0)),
             f"largest estimated gain {F.ns(best)}" + (f" ({best_pct:.0f} % of end-to-end)" if best_pct is not None else "")
             if best else ""),
    ]
    rows = [[dev, F.ns(d["busy_ns"]), _pct(d["busy_pct"]), F.ns(d["idle_ns"]), F.ns(d["compute_ns"]),
             F.ns(d["communication_ns"]), F.ns(d["memcpy_ns"])] for dev, d in devices.items()]
    util_rows = [[u["device"], u["measure"], _pct(u["mean_pct"]), _pct(u["max_pct"]) if u["max_pct"] is not None else "–",
                  f"{u['samples']:,}" if u["samples"] else "–"] for u in ov.get("utilization") or []]
    parts = ['<section class="rpt-sec" id="overview"><h2>Overview</h2>',
             '<div class="rpt-cards">' + "".join(cards) + "</div>",
             '<div class="rpt-cols">',
             "<div><h3>Time per device</h3>"
             + (_table(["device", "busy", "busy share", "idle", "compute", "communication", "memcpy"], rows,
                       right=range(1, 7)) if rows else '<p class="rpt-muted">No timed events.</p>')
             + '<p class="rpt-muted rpt-small">busy = compute + communication + memcpy, each instant counted once '
               f"(compute first); {e(shares.get('devices', ''))}.</p></div>",
             "<div><h3>Peak memory</h3>"
             + (_table(["device", "peak"], facts.peak_rows(peaks), right=[1]) if peaks
                else '<p class="rpt-muted">No memory events or RSS samples were recorded.</p>')
             + "<h3>Utilisation</h3>"
             + (_table(["device", "measure", "mean", "max", "samples"], util_rows, right=[2, 3, 4]) if util_rows
                else '<p class="rpt-muted">No utilisation data.</p>') + "</div>",
             "</div>"]
    if notes:
        parts.append('<div class="rpt-notes" id="display-notes"><h3>What this page shows</h3><ul>'
                     + "".join(f"<li>{e(n)}</li>" for n in notes) + "</ul></div>")
    parts.append("</section>")
    return "".join(parts)


# -- comparison -------------------------------------------------------------------------------------
def comparison(cmp) -> str:
    """The comparison's summary: ``cmp`` is the Comparison (analyze.comparison) the diff view shows too."""
    parts = ['<section class="rpt-sec" id="comparison-summary"><h2>Comparison</h2>']
    base, new = cmp.labels
    x = cmp.e2e
    delta = _num(x.get("delta_ns")) or 0.0
    cls = "bad" if delta > 0 else "ok"
    per = " per step" if cmp.settings.get("normalised") else ""
    verdict = x.get("verdict") or ""
    parts.append(
        f'<p class="rpt-verdict"><b>{e(base)}</b> → <b>{e(new)}</b>: '
        f'end-to-end{e(per)} {e(F.ns(x.get("base_ns")))} → {e(F.ns(x.get("new_ns")))} '
        f'<span class="rpt-{cls}">({e(F.ns(delta, signed=True))}, '
        f'{e(_pct(x.get("delta_pct"), signed=True))})</span> · {e(verdict)}</p>')
    b = cmp.buckets("name")
    parts.append('<p class="rpt-muted">ops by name: ' + e(", ".join(f"{v} {k}" for k, v in b.items())) + "</p>")
    for note in cmp.notes:
        parts.append(f'<p class="rpt-muted rpt-small">note: {e(note)}</p>')
    parts.append('<div class="rpt-cols">')
    for bucket in ("slower", "faster", "added", "removed"):
        df = cmp.table("name", bucket).head(10)
        if not len(df):
            continue
        rows = [[r["name"], r["cat"], F.ns(r["base_total_ns"]), F.ns(r["new_total_ns"]),
                 F.ns(r["delta_ns"], signed=True), _pct(r["delta_pct"], True),
                 "–" if _num(r["p_value"]) is None else f"{float(r['p_value']):.3g}"]
                for r in df.to_dict("records")]
        parts.append(f"<div><h3>{e(bucket)} ({b.get(bucket, len(df))})</h3>"
                     + _table(["op", "cat", "baseline", "this", "delta", "delta %", "p"], rows, right=range(2, 7))
                     + "</div>")
    parts.append("</div>")
    fd = cmp.findings or {}
    items = [(k, f) for k in ("resolved", "appeared", "persisted") for f in fd.get(k) or []]
    if items:
        parts.append("<h3>Findings</h3><ul class=\"rpt-list\">" + "".join(
            f'<li><span class="rpt-tag">{e(k)}</span> [{e(f.get("rule"))}] {e(f.get("title"))}</li>'
            for k, f in items[:30]) + "</ul>")
    if len(cmp.memory):
        rows = [[r.device, F.nbytes(r.base_peak_bytes), F.nbytes(r.new_peak_bytes), _pct(r.delta_pct, True)]
                for r in cmp.memory.itertuples()]
        parts.append("<h3>Peak memory</h3>" + _table(["device", "baseline", "this", "delta"], rows, right=[1, 2, 3]))
    parts.append(f'<p class="rpt-muted rpt-small">{e(cmp.settings.get("description", ""))}</p></section>')
    return "".join(parts)


# -- static findings and hotspots (no-script and print) ------------------------------------------------
def _evidence_value(key: str, v) -> str:
    """Evidence values as the suggestion panel shows them: durations, sizes and shares in units."""
    f = _num(v) if not isinstance(v, bool) else None
    if f is not None and key.endswith("ns"):
        return F.ns(f)
    if f is not None and key.endswith("bytes"):
        return F.nbytes(f)
    if f is not None and key.endswith(("pct", "share")):
        return f"{f:.1f} %"
    if f is not None:
        return f"{f:,.0f}" if f == int(f) else f"{f:.4g}"
    if isinstance(v, (dict, list)):
        text = json.dumps(v, default=str)
        return text if len(text) <= 200 else text[:199] + "…"
    return str(v)


def static_findings(findings: list[dict], note: str = "") -> str:
    parts = ['<section class="rpt-sec rpt-fallback" id="findings-static"><h2>Suggestions</h2>']
    if not findings:
        parts.append(f'<p class="rpt-muted">{e(note or "No findings for this profile.")}</p></section>')
        return "".join(parts)
    parts.append('<ol class="rpt-findings">')
    for f in findings:
        gain = _num(f.get("est_gain_ns"))
        pct = _num(f.get("est_gain_pct"))
        gain_txt = "gain unknown" if gain is None else f"saves ~{F.ns(gain)}" + (f" ({pct:.1f} %)" if pct is not None else "")
        ev = f.get("evidence") or {}
        ev_txt = "; ".join(f"{k}: {_evidence_value(k, v)}" for k, v in ev.items())
        parts.append(
            f'<li class="rpt-finding"><div><span class="rpt-sev rpt-sev-{e(f.get("severity"))}">{e(f.get("severity"))}</span> '
            f'<b>{e(f.get("title"))}</b> <span class="rpt-gain">{e(gain_txt)}</span></div>'
            f'<div class="rpt-muted rpt-small">{e(f.get("category"))} · rule {e(f.get("rule"))}'
            + (f' · ops: {e(", ".join(str(o) for o in (f.get("ops") or [])[:8]))}' if f.get("ops") else "") + "</div>"
            + (f'<div class="rpt-suggestion">{e(f.get("suggestion"))}</div>' if f.get("suggestion") else "")
            + (f'<div class="rpt-muted rpt-small">evidence: {e(ev_txt)}</div>' if ev_txt else "")
            + "</li>")
    parts.append("</ol></section>")
    return "".join(parts)


def static_hotspots(tables: dict) -> str:
    t = (tables or {}).get("name")
    parts = ['<section class="rpt-sec rpt-fallback" id="hotspots-static"><h2>Hotspots</h2>']
    if not t or not t.get("data"):
        parts.append('<p class="rpt-muted">No timed operations.</p></section>')
        return "".join(parts)
    d = t["data"]
    n = min(len(d.get("name", [])), TOP_HOTSPOTS)
    rows = [[d["name"][i], d.get("cat", [""] * n)[i], f"{d['count'][i]:,}", F.ns(d["self_ns"][i]),
             F.ns(d["total_ns"][i]), _pct(d.get("share_pct", [None] * n)[i])] for i in range(n)]
    parts.append(f'<p class="rpt-muted rpt-small">top {n} of {t.get("total_rows", n):,} ops by self time</p>'
                 + _table(["op", "cat", "count", "self", "total", "share"], rows, right=range(2, 6)))
    parts.append("</section>")
    return "".join(parts)


# -- run details --------------------------------------------------------------------------------------
def _trim(x, depth: int = 0):
    if depth > 8:
        return "…"
    if isinstance(x, dict):
        return {str(k): _trim(v, depth + 1) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        out = [_trim(v, depth + 1) for v in list(x)[:META_LIST_LIMIT]]
        if len(x) > META_LIST_LIMIT:
            out.append(f"… {len(x) - META_LIST_LIMIT} more")
        return out
    if isinstance(x, str) and len(x) > META_STR_LIMIT:
        return x[:META_STR_LIMIT] + f"… ({len(x):,} characters)"
    return x


def details(profile, baseline=None) -> str:
    coll = facts.collectors(profile)
    parts = ['<section class="rpt-sec" id="details"><h2>Run details</h2>', '<div class="rpt-cols"><div>',
             "<h3>Collectors</h3>" + (_table(["collector", "status", "reason", "options"],
                                             [[c["name"], c["status"], c["reason"], c["options"]] for c in coll])
                                      if coll else '<p class="rpt-muted">none recorded</p>'),
             "</div><div><h3>Options</h3>" + (_dl(facts.options(profile)) or '<p class="rpt-muted">none recorded</p>'),
             "</div></div>"]
    for label, p in (("this profile", profile), ("the baseline", baseline)):
        if p is None:
            continue
        text = json.dumps(_trim(p.meta), indent=1, default=str, ensure_ascii=False)
        parts.append(f'<details class="rpt-meta"><summary>All metadata of {e(label)} ({e(p.name)})</summary>'
                     f"<pre>{e(text)}</pre></details>")
    parts.append("</section>")
    return "".join(parts)


def footer(version: str, generated: str, size_note: str = "") -> str:
    return (f'<footer class="rpt-foot">Written by cann_nb {e(version)} on {e(generated)}. This file is '
            "self-contained: it needs no network, server or other file, and runs only its own inline code "
            f"(Content-Security-Policy). {e(size_note)}</footer>")
