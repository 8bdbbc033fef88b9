"""The always-available notebook output: a text/plain summary and a static, escaped HTML table.

This survives nbconvert, GitHub's renderer and a kernel restart, so it stays beside any widget.
Every string that comes from a profile goes through ``html.escape``.
"""

from __future__ import annotations

from html import escape

from .. import formatting as F
from ..analyze.api import SHARES, overview
from ..analyze.comparison import BUCKETS, VIEW_KEYS, verdict_text
from ..model import budget_note, left_out

TOP = 10


def _facts(profile) -> dict:
    meta = profile.meta
    collectors = meta.get("collectors", {})
    used = [n for n, c in collectors.items() if isinstance(c, dict) and c.get("status") == "ok"]
    missing = {n: c.get("reason", "") for n, c in collectors.items() if isinstance(c, dict) and c.get("status") != "ok"}
    ov = overview(profile, top_ops=TOP)
    return {
        "name": profile.name,
        "status": profile.status,
        "error": meta.get("error"),
        "wall": F.ns(ov["wall_ns"]),
        "events": len(profile.events),
        "used": used,
        "missing": missing,
        "stored": _stored(meta),
        "peaks": ov["peak_memory_bytes"],
        "dropped": left_out(meta)[0],
        "skipped": left_out(meta)[1],
        "budget": budget_note(meta),
        "top": ov["top_ops"],
    }


def _stored(meta: dict) -> str | None:
    """Where the profile is stored, with its version when its name was reused (version 2 and on)."""
    at, version = meta.get("stored_at"), meta.get("version")
    if not at:
        return None
    return f"{at} (version {version})" if isinstance(version, int) and version > 1 else str(at)


def summary_text(profile) -> str:
    f = _facts(profile)
    head = f"cann_nb profile {f['name']!r}: {f['status']}, {f['wall']} wall, {f['events']:,} events"
    if f["used"]:
        head += f" ({', '.join(f['used'])})"
    lines = [head]
    if f["error"]:
        lines.append(f"  error: {f['error']}")
    for name, reason in f["missing"].items():
        lines.append(f"  collector {name}: {reason}")
    if f["dropped"]:
        lines.append("  dropped events (buffer full): " + ", ".join(f"{k} {v:,}" for k, v in f["dropped"].items()))
    if f["budget"]:
        lines.append(f"  truncated: {f['budget']}")
    if f["skipped"]:
        lines.append("  not imported, on purpose: " + ", ".join(f"{k} {v:,}" for k, v in f["skipped"].items()))
    if f["peaks"]:
        lines.append("  peak memory: " + ", ".join(f"{d} {F.nbytes(b)}" for d, b in f["peaks"].items()))
    if f["stored"]:
        lines.append(f"  stored: {f['stored']}")
    top = f["top"]
    if len(top):
        # F.table sizes each column to its widest cell, header included (short op names misaligned it)
        rows = [[F.clip(row.name, 60), str(row.cat), f"{row.count:,}", F.ns(row.self_ns), F.ns(row.total_ns),
                 f"{row.share_pct:.1f}%"] for row in top.itertuples(index=False)]
        lines.append(F.table(rows, ["top ops by self time", "cat", "count", "self", "total", "share"],
                             right={2, 3, 4, 5}, indent="  "))
        lines.append(f"  ({SHARES['hotspots']})")
    else:
        lines.append("  no timed operations were recorded")
    return "\n".join(lines)


def summary_html(profile) -> str:
    f = _facts(profile)
    e = escape
    status_color = {"ok": "#1a7f37", "failed": "#cf222e", "interrupted": "#9a6700"}.get(f["status"], "#57606a")
    parts = [
        '<div class="cann-nb-summary" style="font-family:system-ui,sans-serif;font-size:13px">',
        f'<div><b>cann_nb profile {e(repr(f["name"]))}</b> '
        f'<span style="color:{status_color}">{e(f["status"])}</span> · {e(f["wall"])} wall · '
        f'{f["events"]:,} events' + (f' · {e(", ".join(f["used"]))}' if f["used"] else "") + "</div>",
    ]
    if f["error"]:
        parts.append(f'<div style="color:#cf222e">error: {e(str(f["error"]))}</div>')
    for name, reason in f["missing"].items():
        parts.append(f"<div>collector {e(name)}: {e(str(reason))}</div>")
    if f["dropped"]:
        parts.append("<div>dropped events (buffer full): "
                     + e(", ".join(f"{k} {v:,}" for k, v in f["dropped"].items())) + "</div>")
    if f["budget"]:
        parts.append(f'<div style="color:#9a6700">truncated: {e(f["budget"])}</div>')
    if f["skipped"]:
        parts.append("<div>not imported, on purpose: "
                     + e(", ".join(f"{k} {v:,}" for k, v in f["skipped"].items())) + "</div>")
    if f["peaks"]:
        parts.append("<div>peak memory: " + e(", ".join(f"{d} {F.nbytes(b)}" for d, b in f["peaks"].items()))
                     + "</div>")
    if f["stored"]:
        parts.append(f"<div>stored: <code>{e(str(f['stored']))}</code></div>")
    top = f["top"]
    if len(top):
        parts.append('<table style="border-collapse:collapse;margin-top:4px"><thead><tr>'
                     + "".join(f'<th style="text-align:{a};padding:2px 8px">{h}</th>' for h, a in (
                         ("op", "left"), ("cat", "left"), ("count", "right"), ("self", "right"),
                         ("total", "right"), ("share", "right")))
                     + "</tr></thead><tbody>")
        for row in top.itertuples(index=False):
            parts.append(
                "<tr>"
                f'<td style="text-align:left;padding:2px 8px;font-family:monospace">{e(str(row.name))}</td>'
                f'<td style="padding:2px 8px">{e(str(row.cat))}</td>'
                f'<td style="text-align:right;padding:2px 8px">{row.count:,}</td>'
                f'<td style="text-align:right;padding:2px 8px">{e(F.ns(row.self_ns))}</td>'
                f'<td style="text-align:right;padding:2px 8px">{e(F.ns(row.total_ns))}</td>'
                f'<td style="text-align:right;padding:2px 8px">{row.share_pct:.1f}%</td>'
                "</tr>")
        parts.append(f'</tbody></table><div style="color:#57606a;font-size:11px">{e(SHARES["hotspots"])}</div>')
    else:
        parts.append("<div>no timed operations were recorded</div>")
    parts.append("</div>")
    return "".join(parts)


def comparison_text(cmp, top: int = 10, by: str = "name") -> str:
    """A Comparison as text: the end-to-end change, steps, buckets, notes, memory, devices, findings and
    the slower/faster/added/removed ops (``cann-nb compare`` prints this)."""
    b, n = cmp.labels
    s = cmp.settings
    lines = [f"cann_nb compare {b!r} -> {n!r}  (delta = new - base: + is slower / larger)"]
    e = cmp.e2e
    per = " per step" if s.get("normalised") else ""
    lines.append(f"  end-to-end{per}: {F.ns(e['base_ns'])} -> {F.ns(e['new_ns'])}  "
                 f"({F.ns(e['delta_ns'], True)}, {F.pct(e['delta_pct'])}, {F.ratio(e['ratio'])})  "
                 f"{verdict_text(e, s)}")
    st = cmp.steps
    if st["base"]["n"] or st["new"]["n"]:
        lines.append(f"  steps: {st['base']['n']} vs {st['new']['n']}; median step "
                     f"{F.ns(st['base'].get('median_ns'))} -> {F.ns(st['new'].get('median_ns'))}"
                     + (f" ({F.pct(st.get('delta_pct'))}{_noise_text(st, e)})" if st.get("delta_pct") is not None
                        else ""))
    counts = cmp.buckets(by)
    lines.append(f"  ops by {by}: " + ", ".join(f"{counts[k]} {k}" for k in BUCKETS))
    for note in cmp.notes:
        lines.append(f"  note: {note}")
    if len(cmp.memory):
        parts = [f"{r.device} {F.nbytes(r.base_peak_bytes)} -> {F.nbytes(r.new_peak_bytes)} "
                 f"({F.pct(r.delta_pct)})" for r in cmp.memory.itertuples()]
        lines.append("  peak memory: " + "; ".join(parts))
    if len(cmp.devices):
        busy = cmp.devices[cmp.devices["metric"] == "busy_ns"]
        parts = [f"{r.device} {F.ns(r.base_ns)} -> {F.ns(r.new_ns)}" for r in busy.itertuples()]
        if parts:
            lines.append("  busy time per device: " + "; ".join(parts))
    fd = cmp.findings
    lines.append(f"  findings: {len(fd['resolved'])} resolved, {len(fd['appeared'])} appeared, "
                 f"{len(fd['persisted'])} persisted")
    for f in fd["resolved"][:5]:
        lines.append(f"    resolved: [{f['rule']}] {F.clip(f['title'], 90)}")
    for f in fd["appeared"][:5]:
        lines.append(f"    appeared: [{f['rule']}] {F.clip(f['title'], 90)}")
    df = cmp.tables[by]
    keys = VIEW_KEYS[by]
    for bucket in ("slower", "faster", "added", "removed"):
        part = df[df["bucket"] == bucket].head(top)
        if not len(part):
            continue
        rows = []
        for r in part.to_dict("records"):
            key = " ".join(str(r[k]) for k in keys if str(r[k]))
            rows.append([F.clip(key or "(none)", 56), r["cat"], f"{r['base_count']:g}", f"{r['new_count']:g}",
                         F.ns(r["base_total_ns"]), F.ns(r["new_total_ns"]), F.ns(r["delta_ns"], True),
                         F.pct(r["delta_pct"]), F.ratio(r["ratio"]), F.pvalue(r["p_value"])])
        lines.append(f"  {bucket} ({counts[bucket]}{', top ' + str(top) if counts[bucket] > top else ''}):")
        lines.append(F.table(rows, [by, "cat", "base n", "new n", "base total", "new total", "delta",
                                    "delta %", "new/base", "p"], right={2, 3, 4, 5, 6, 7, 8, 9}, indent="    "))
    lines.append("  significance: " + s["description"])
    for rec in cmp.recorded:
        lines.append(f"  track record: {rec['rule']} predicted {F.ns(rec['predicted_gain_ns'])}, "
                     f"realised {F.ns(rec['realised_ns'])}")
    return "\n".join(lines)


def _noise_text(steps: dict, e2e: dict) -> str:
    """', noise ±x %' beside a step change, or that the change is within the noise (not a result)."""
    noise = steps.get("noise_pct")
    if noise is None:
        return ""
    if e2e.get("significant") is False or abs(steps.get("delta_pct") or 0.0) <= noise:
        return f", within the run-to-run noise of ±{F.pct(noise, signed=False)}: not a measured change"
    return f", noise ±{F.pct(noise, signed=False)}"


def comparison_html(cmp) -> str:
    return ('<div class="cann-nb-compare"><pre style="font-size:12px">' + escape(comparison_text(cmp))
            + "</pre></div>")


# -- a cluster (many ranks) -------------------------------------------------------------------------
CLUSTER_RANKS = 16   # rank rows in the summaries: the slowest (by active time) first


def _cluster_rank_rows(res, top: int) -> tuple[list[list[str]], list[int], int]:
    ranks = res.ranks.sort_values(["active_ns", "rank"], ascending=[False, True], kind="stable").head(top)
    slow = set(res.straggler_ranks)
    rows = [[str(r["rank"]) + (" *" if r["rank"] in slow else ""), str(r.get("device") or "-"), F.ns(r["wall_ns"]),
             F.ns(r["busy_ns"]), F.ns(r["compute_ns"]), F.ns(r["communication_ns"]), F.ns(r["memcpy_ns"]),
             F.ns(r["idle_ns"]), F.ns(r["comm_wait_ns"]), F.ns(r["step_p50_ns"])]
            for r in ranks.to_dict("records")]
    return rows, [int(r) for r in ranks["rank"]], len(res.ranks) - len(rows)


CLUSTER_HEAD = ["rank", "device", "wall", "busy", "compute", "communication", "memcpy", "idle", "comm wait",
                "step p50"]


def cluster_text(res, top: int = CLUSTER_RANKS) -> str:
    """A ClusterResult as text (``cann-nb cluster`` prints this): the ranks, slowest first, stragglers
    (marked *), the most-waited-for collectives and the findings."""
    g = res.group
    lines = [f"cann_nb cluster {g.get('name')!r}: {len(res.ranks)} ranks, {g.get('events', 0):,} events, "
             f"engine {g.get('engine')}"]
    rows, _, more = _cluster_rank_rows(res, top)
    lines.append("  ranks, slowest first (active = wall - comm wait; * straggler; figures of each rank's busiest device)")
    lines.append(F.table(rows, CLUSTER_HEAD, right=set(range(2, 10)), indent="    "))
    if more:
        lines.append(f"    ... {more} more ranks")
    if len(res.stragglers):
        lines.append("  stragglers:")
        for s in res.stragglers.to_dict("records"):
            lines.append(f"    rank {s['rank']}: {s['reason'].replace('_', ' ')}; active {F.ns(s['value'])} vs median "
                         f"{F.ns(s['median'])} (robust z {s['score']:.1f})")
    else:
        lines.append("  no stragglers")
    lines.append(f"  test: {g.get('straggler_test')}")
    if len(res.collectives):
        crow = [[F.clip(str(c["name"]), 56), f"{c['count']:,}", F.ns(c["skew_p50_ns"]), F.ns(c["skew_max_ns"]),
                 str(c["last_rank"]), F.ns(c["wait_ns"])] for c in res.collectives.head(10).to_dict("records")]
        lines.append("  collectives, most waited-for first (skew = last arrival - first arrival)")
        lines.append(F.table(crow, ["collective", "calls", "skew p50", "skew max", "last rank", "total wait"],
                             right={1, 2, 3, 4, 5}, indent="    "))
    else:
        lines.append("  no collectives matched across ranks")
    for i, f in enumerate(res.findings, 1):
        lines.append(f"  {i:2d}. [{f.severity}] {f.title}")
        lines.append(f"      -> {F.clip(f.suggestion, 160)}")
    return "\n".join(lines)


def cluster_html(res, top: int = CLUSTER_RANKS) -> str:
    """The same as static, escaped HTML: the rank table with stragglers highlighted, then the rest as text."""
    e = escape
    rows, order, more = _cluster_rank_rows(res, top)
    slow = set(res.straggler_ranks)
    cell = 'style="text-align:{};padding:2px 8px"'
    parts = ['<div class="cann-nb-cluster" style="font-family:system-ui,sans-serif;font-size:13px">',
             f"<div><b>cann_nb cluster {e(repr(res.group.get('name')))}</b> · {len(res.ranks)} ranks · "
             f"{len(slow)} straggler{'s' if len(slow) != 1 else ''}</div>",
             '<table style="border-collapse:collapse;margin-top:4px"><thead><tr>'
             + "".join(f"<th {cell.format('left' if i < 2 else 'right')}>{e(h)}</th>" for i, h in enumerate(CLUSTER_HEAD))
             + "</tr></thead><tbody>"]
    for rank, row in zip(order, rows):
        bg = ' style="background:#ffebe9"' if rank in slow else ""
        parts.append(f"<tr{bg}>" + "".join(f"<td {cell.format('left' if i < 2 else 'right')}>{e(v)}</td>"
                                            for i, v in enumerate(row)) + "</tr>")
    parts.append("</tbody></table>")
    if more:
        parts.append(f"<div>… {more} more ranks</div>")
    rest = cluster_text(res, top).split("\n")
    start = next((i for i, line in enumerate(rest) if line.startswith("  stragglers") or line.startswith("  no stragglers")),
                 len(rest))
    parts.append('<pre style="font-size:12px">' + e("\n".join(rest[start:])) + "</pre></div>")
    return "".join(parts)
