"""The always-available notebook output: a text/plain summary and a static, escaped HTML table.

This survives nbconvert, GitHub's renderer and a kernel restart, so it stays beside any widget.
Every string that comes from a profile goes through ``html.escape``.
"""

from __future__ import annotations

from html import escape

from ..analyze.hotspots import hotspots
from ..analyze.memory import peak_memory

TOP = 10


def fmt_ns(ns) -> str:
    ns = float(ns)
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if abs(ns) >= scale:
            return f"{ns / scale:.3f} {unit}" if unit != "s" else f"{ns / scale:.3f} s"
    return f"{ns:.0f} ns"


def fmt_bytes(n) -> str:
    n = float(n)
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(n) >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:.0f} B"


def _facts(profile) -> dict:
    meta = profile.meta
    collectors = meta.get("collectors", {})
    used = [n for n, c in collectors.items() if c.get("status") == "ok"]
    missing = {n: c.get("reason", "") for n, c in collectors.items() if c.get("status") != "ok"}
    return {
        "name": profile.name,
        "status": profile.status,
        "error": meta.get("error"),
        "wall": fmt_ns(profile.wall_ns),
        "events": len(profile.events),
        "used": used,
        "missing": missing,
        "stored": meta.get("stored_at"),
        "peaks": _memo(profile, "peak_memory", lambda: peak_memory(profile.memory, profile.counters)),
        "dropped": meta.get("dropped") or {},
        "repeat": meta.get("options", {}).get("repeat"),
    }


def _top(profile):
    return _memo(profile, ("hotspots", TOP), lambda: hotspots(profile.events, top=TOP))


def _memo(profile, key, fn):
    """Once per profile: the text and the HTML summary (and the advisor) share these."""
    from ..analyze.context import context

    return context(profile).memo(("static",) + (key if isinstance(key, tuple) else (key,)), fn)


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
    if f["peaks"]:
        lines.append("  peak memory: " + ", ".join(f"{d} {fmt_bytes(b)}" for d, b in f["peaks"].items()))
    if f["stored"]:
        lines.append(f"  stored: {f['stored']}")
    top = _top(profile)
    if len(top):
        width = min(max(len(str(n)) for n in top["name"]), 60)
        lines.append(f"  {'top ops by self time':<{width}}  {'cat':<7} {'count':>7} {'self':>12} {'total':>12} {'share':>6}")
        for row in top.itertuples(index=False):
            name = str(row.name)
            name = name if len(name) <= width else name[: width - 1] + "…"
            lines.append(f"  {name:<{width}}  {row.cat:<7} {row.count:>7,} {fmt_ns(row.self_ns):>12} "
                         f"{fmt_ns(row.total_ns):>12} {row.share_pct:>5.1f}%")
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
    if f["peaks"]:
        parts.append("<div>peak memory: " + e(", ".join(f"{d} {fmt_bytes(b)}" for d, b in f["peaks"].items()))
                     + "</div>")
    if f["stored"]:
        parts.append(f"<div>stored: <code>{e(str(f['stored']))}</code></div>")
    top = _top(profile)
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
                f'<td style="text-align:right;padding:2px 8px">{e(fmt_ns(row.self_ns))}</td>'
                f'<td style="text-align:right;padding:2px 8px">{e(fmt_ns(row.total_ns))}</td>'
                f'<td style="text-align:right;padding:2px 8px">{row.share_pct:.1f}%</td>'
                "</tr>")
        parts.append("</tbody></table>")
    else:
        parts.append("<div>no timed operations were recorded</div>")
    parts.append("</div>")
    return "".join(parts)
