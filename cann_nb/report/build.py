"""One profile (or a comparison) -> one self-contained HTML file.

The page is the widgets' offline page (``widgets.standalone.page_html``: the same ESM bundle imported
from a Blob URL, the state in a JSON data block, a read-only model, BokehJS inline, a CSP that allows
only the page's own scripts by hash) with the bundle's ``report`` view (js/report.js) inside
server-rendered, escaped sections (sections.py). Data: the ProfileView payloads as they are (typed
columns, zlib level 1, base64 in JSON; levels 6-9 would save only 5-8 % at 1M events for 2-14 s more).
"""

from __future__ import annotations

import copy
import datetime as _dt
import os
import tempfile
from pathlib import Path

from . import facts, sections

CSS_PATH = Path(__file__).with_name("report.css")


def _subjects(profile, against, store):
    """(profile, baseline or None, Comparison or None) from any accepted way of naming them (each side:
    what ``ingest.load.resolve`` takes)."""
    from ..analyze.comparison import Comparison
    from ..ingest.load import resolve

    cmp = None
    if isinstance(profile, Comparison):
        cmp, profile, against = profile, profile.new, profile.base
    elif isinstance(profile, (tuple, list)) and len(profile) == 2 and against is None:
        against, profile = profile  # (base, new), as `cann-nb report NEW --baseline BASE` passes it
    profile = resolve(profile, store)
    baseline = resolve(against, store) if against is not None else None
    return profile, baseline, cmp


def _for_widgets(profile):
    """The profile as the widget payload builders expect its meta: ``collectors`` maps each name to a dict
    (DESIGN.md); some importers write a bare string there. A shallow copy, tables shared, when needed."""
    coll = profile.meta.get("collectors")
    if not isinstance(coll, dict) or all(isinstance(c, dict) for c in coll.values()):
        return profile
    shown = copy.copy(profile)
    shown.meta = {**profile.meta, "collectors": {k: c if isinstance(c, dict) else {"status": "ok", "format": str(c)}
                                                 for k, c in coll.items()}}
    return shown


def report_state(profile, comparison=None, *, findings=None, max_events: int | None = None) -> tuple[dict, str]:
    """(the ``report`` view's state, the advisor's note): the ProfileView's payloads, plus the diff view's
    when the report compares (``comparison``: ``analyze.comparison.compare(baseline, profile)``)."""
    from ..widgets._encode import DEFAULT_MAX_EVENTS, encode_events
    from ..widgets._tables import diff_payload
    from ..widgets.standalone import _jsonable_state, widget_state
    from ..widgets.views import ProfileView, default_findings

    max_events = max_events or DEFAULT_MAX_EVENTS
    note = ""
    if findings is None:
        findings, note = default_findings(profile)
    view = ProfileView(_for_widgets(profile), findings, max_events=max_events, charts=True)
    state = widget_state(view)
    state["_view"] = "report"
    state["findings_note"] = note or state.get("findings_note", "")
    for unused in ("render_stats", "tab"):
        state.pop(unused, None)
    if comparison is not None:
        baseline = comparison.base
        state["diff"] = diff_payload(comparison)
        enc = encode_events(baseline.events, baseline.memory, baseline.counters, max_events=max(max_events // 2, 1))
        state["baseline"] = _jsonable_state(enc.payload)
    return state, note


def report_html(profile, *, against=None, title: str | None = None, findings=None, max_events: int | None = None,
                store=None) -> str:
    """The report as one HTML string. ``profile``: a Profile, a path or a store name (or a Comparison, or a
    ``(baseline, profile)`` pair); ``against``: the baseline to compare with (same forms)."""
    from .. import __version__ as version
    from ..analyze.comparison import compare, labels
    from ..widgets.standalone import page_html
    from .cluster import as_cluster, cluster_report_html

    group = as_cluster(profile, store) if against is None else None
    if group is not None:   # a group of ranks (or its ClusterResult): the cluster report
        return cluster_report_html(group, title=title)
    profile, baseline, cmp = _subjects(profile, against, store)
    if baseline is not None and cmp is None:
        cmp = compare(baseline, profile)
    state, note = report_state(profile, cmp, findings=findings, max_events=max_events)
    title = title or (" vs ".join(reversed(labels(baseline, profile))) if baseline is not None
                      else str(profile.name or "profile"))
    notes = facts.display_notes(profile, state, state.get("baseline"))
    has_events = bool((state.get("timeline") or {}).get("n"))
    parts = [sections.header(profile, title, baseline), sections.nav(baseline is not None, has_events),
             sections.overview(profile, state["overview"], notes)]
    if cmp is not None:
        parts.append(sections.comparison(cmp))
    parts += [sections.static_findings(state.get("findings") or [], note), sections.static_hotspots(state.get("tables")),
              '<div class="rpt-wait">Loading the interactive view (timeline, tables, charts)… If this message stays, '
              "JavaScript is off or blocked here: the overview, suggestions and hotspots above are static and "
              "complete.</div>"]
    generated = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    after = sections.details(profile, baseline) + sections.footer(version, generated)
    return page_html(state, title=f"{title} · cann_nb report", include_bokehjs=True,
                     style=CSS_PATH.read_text(encoding="utf-8"),
                     before='<div class="rpt-page">' + "".join(parts), after=after + "</div>")


def write_report(profile, path, *, against=None, title: str | None = None, **kwargs) -> Path:
    """Write the report to ``path`` (atomically: a partial file never replaces a good one); return the path."""
    html = report_html(profile, against=against, title=title, **kwargs)
    path = Path(path).expanduser()
    if path.suffix == "":
        path = path.with_suffix(".html")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".report-", suffix=".html", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(html)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would make a shared report unreadable to others
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
