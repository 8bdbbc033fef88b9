"""The anywidget classes. Each is a thin holder of typed traits; the drawing is in js/ (one ESM bundle
whose ``render`` picks the view from ``_view``). Binary columns travel as bytes inside the ``timeline``
dict (ipywidgets moves them as binary buffers, not JSON).

The wire format of the data traits and the custom messages is in ``_protocol.py``.

Traits written by the front end (read them from Python, link them with ``traitlets.link``):
``selected_id`` (event id of the selected event, -1 none), ``viewport`` ([t0_ns, t1_ns] after the user
stops zooming), ``search``, ``selected_op`` (the hotspot row clicked), ``selected_finding`` (index),
``render_stats`` (time to first draw, last frame times; for tests and benchmarks).
"""

from __future__ import annotations

import anywidget
import numpy as np
import pandas as pd
import traitlets as t

from ..analyze.api import findings as advise, overview
from . import _bundle
from ._encode import DEFAULT_MAX_EVENTS, column, encode_events
from ._protocol import BokehJSReply, ChartsRequest
from .static import comparison_html, comparison_text, summary_html, summary_text
from ._tables import diff_payload, findings_payload, hotspot_tables, overview_payload


class _View(anywidget.AnyWidget):
    """Common base: the bundle as ESM (or the stand-in that says it is missing) and the fallbacks."""

    _view = t.Unicode("").tag(sync=True)
    bundle_ok = t.Bool(True).tag(sync=True)
    render_stats = t.Dict().tag(sync=True)
    # marks the static summary displayed just before this view (display.show_summary): hidden once rendered
    summary_token = t.Unicode("").tag(sync=True)

    def __init__(self, **kwargs):
        self._esm = _bundle.bundle_esm()
        super().__init__(bundle_ok=_bundle.bundle_available(), **kwargs)
        self._profile_for_repr = None

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        profile = self._profile_for_repr
        if profile is not None and data is not None:
            data = dict(data)
            data["text/plain"] = summary_text(profile)
            data["text/html"] = summary_html(profile)
            return (data, bundle[1]) if isinstance(bundle, tuple) else data
        return bundle


class _TimelineMixin:
    """Shared by every view that carries events: id <-> row mapping and Python-side highlighting."""

    def _init_events(self, profile, max_events: int):
        self._encoded = encode_events(profile.events, profile.memory, profile.counters, max_events=max_events)
        self._profile_for_repr = profile
        self.observe(self._row_to_id, "selected_row")
        self.observe(self._id_to_row, "selected_id")
        return self._encoded.payload

    def highlight(self, event_ids) -> None:
        """Highlight these events (ids) on the timeline; an empty list clears the highlight."""
        rows = self._encoded.rows_for_ids(event_ids)
        self.highlight_rows = {"rows": column(rows, "u4"), "seq": int(self.highlight_rows.get("seq", 0)) + 1}

    def select(self, event_id: int) -> None:
        """Select an event by id (the front end shows its details and scrolls to it)."""
        self.selected_id = int(event_id)

    def zoom_to(self, start_ns: int, end_ns: int) -> None:
        self.viewport = [int(start_ns), int(end_ns)]

    def _row_to_id(self, change):
        row = change["new"]
        new = int(self._encoded.ids[row]) if 0 <= row < len(self._encoded.ids) else -1
        if new != self.selected_id:
            self.selected_id = new

    def _id_to_row(self, change):
        rows = self._encoded.rows_for_ids([change["new"]]) if change["new"] >= 0 else np.zeros(0)
        row = int(rows[0]) if len(rows) else -1
        if row != self.selected_row:
            self.selected_row = row


def _event_traits() -> dict:
    """Fresh trait instances for each class that shows events (trait objects are not shared)."""
    return dict(
        timeline=t.Dict().tag(sync=True),
        selected_row=t.Int(-1).tag(sync=True),
        selected_id=t.Int(-1),
        viewport=t.List(t.Float(), default_value=[]).tag(sync=True),
        search=t.Unicode("").tag(sync=True),
        highlight_rows=t.Dict().tag(sync=True),
        highlight_op=t.Unicode("").tag(sync=True),
    )


class TimelineView(_TimelineMixin, _View):
    """Lanes per host thread and device stream (grouped by device) with counter lanes; zoom, pan, search,
    hover and click details with the parent chain and launched device tasks."""

    _view = t.Unicode("timeline").tag(sync=True)
    locals().update(_event_traits())

    def __init__(self, profile, *, max_events: int = DEFAULT_MAX_EVENTS, **kwargs):
        super().__init__(**kwargs)
        self.timeline = self._init_events(profile, max_events)


class CallTreeView(_TimelineMixin, _View):
    """Icicle of the call hierarchy (module -> op -> child ops -> device tasks), total and self time."""

    _view = t.Unicode("calltree").tag(sync=True)
    locals().update(_event_traits())

    def __init__(self, profile, *, max_events: int = DEFAULT_MAX_EVENTS, **kwargs):
        super().__init__(**kwargs)
        self.timeline = self._init_events(profile, max_events)


class HotspotTable(_View):
    """Sortable, filterable hotspot table grouped by op, op+shapes or module; ``selected_op`` is the
    name of the clicked row."""

    _view = t.Unicode("hotspots").tag(sync=True)
    tables = t.Dict().tag(sync=True)
    group_by = t.Unicode("name").tag(sync=True)
    selected_op = t.Unicode("").tag(sync=True)

    def __init__(self, profile, **kwargs):
        super().__init__(**kwargs)
        self._profile_for_repr = profile
        self.tables = hotspot_tables(profile)


def _findings_traits(findings, encoded):
    records, offsets, rows = findings_payload(findings, encoded.rows_for_ids)
    return records, {"offsets": column(offsets, "u4"), "rows": column(rows, "u4")}


def default_findings(profile):
    """(findings, note): the advisor's findings and what failed. A rule that raises is listed by the
    advisor while the others still report; the advisor failing as a whole must not cost the user the
    view, so its error (type and message, not hidden) becomes the panel's note."""
    errors: list = []
    try:
        found = advise(profile, errors=errors)
    except Exception as exc:  # noqa: BLE001 - shown in the panel instead of breaking the view
        return None, f"The advisor failed on this profile: {type(exc).__name__}: {exc}"
    from ..analyze.rules.coverage import skipped_note, skipped_rules

    note = "" if not errors else "Rules that failed on this profile: " + "; ".join(map(str, errors))
    skipped = skipped_note(skipped_rules(profile))   # silence from a rule that could not run is not health
    return found, " ".join(n for n in (note, skipped) if n)


class SuggestionPanel(_TimelineMixin, _View):
    """The advisor's findings by estimated gain; a click highlights the evidence events and ops."""

    _view = t.Unicode("findings").tag(sync=True)
    locals().update(_event_traits())
    findings = t.List().tag(sync=True)
    evidence = t.Dict().tag(sync=True)
    findings_note = t.Unicode("").tag(sync=True)
    selected_finding = t.Int(-1).tag(sync=True)

    def __init__(self, profile, findings=None, *, with_timeline: bool = True,
                 max_events: int = DEFAULT_MAX_EVENTS, **kwargs):
        super().__init__(**kwargs)
        payload = self._init_events(profile, max_events)
        if findings is None:
            findings, self.findings_note = default_findings(profile)
        self.findings, self.evidence = _findings_traits(findings, self._encoded)
        if with_timeline:
            self.timeline = payload


class ChartsView(_View):
    """Bokeh charts: breakdown per device, memory over time with the peak, utilisation over time.
    BokehJS comes from the kernel on first use (inline, no CDN)."""

    _view = t.Unicode("charts").tag(sync=True)
    charts = t.Dict().tag(sync=True)
    charts_lazy = t.Bool(False).tag(sync=True)    # charts are made when the front end asks (its tab opens)
    bokeh_version = t.Unicode("").tag(sync=True)

    def __init__(self, profile, *, which=("breakdown", "memory", "utilization"), **kwargs):
        super().__init__(**kwargs)
        self._profile_for_repr = profile
        self._init_charts(profile, which)

    def _init_charts(self, profile, which=("breakdown", "memory", "utilization", "roofline", "mfu"), devices=None,
                     lazy=False):
        self._chart_source = (profile, devices, tuple(which))
        self.charts_lazy = bool(lazy)
        if not lazy:
            self._add_charts(which)
        self.bokeh_version = _bundle.bokeh_version()
        self.on_msg(self._on_custom_msg)

    def _add_charts(self, which) -> None:
        from .charts import chart_items

        profile, devices, allowed = self._chart_source
        want = [k for k in which if k in allowed and k not in self.charts]
        if want:
            self.charts = {**self.charts, **chart_items(profile, devices, want)}

    def _on_custom_msg(self, widget, content, buffers):
        if not isinstance(content, dict):
            return
        if content.get("type") == "bokehjs?":  # BokehJSRequest
            reply: BokehJSReply = {"type": "bokehjs", "version": _bundle.bokeh_version()}
            self.send(reply, [_bundle.bokehjs_source().encode("utf-8")])
        elif content.get("type") == "charts?":   # ChartsRequest (handlers are on only where _init_charts ran)
            request: ChartsRequest = content
            which = [k for k in request.get("which") or [] if isinstance(k, str)]
            self._add_charts(which)


class ProfileView(_TimelineMixin, ChartsView):
    """Everything about one profile in one tabbed view: Overview, Timeline, Hotspots, Call tree,
    Suggestions, Memory. The views inside are linked in the browser (no kernel round trip), so they
    stay interactive while other cells run and in exported reports."""

    _view = t.Unicode("profile").tag(sync=True)
    locals().update(_event_traits())
    tables = t.Dict().tag(sync=True)
    group_by = t.Unicode("name").tag(sync=True)
    selected_op = t.Unicode("").tag(sync=True)
    findings = t.List().tag(sync=True)
    evidence = t.Dict().tag(sync=True)
    findings_note = t.Unicode("").tag(sync=True)
    selected_finding = t.Int(-1).tag(sync=True)
    overview = t.Dict().tag(sync=True)
    tab = t.Unicode("overview").tag(sync=True)

    def __init__(self, profile, findings=None, *, max_events: int = DEFAULT_MAX_EVENTS, charts: bool | str = True,
                 tab: str = "overview", **kwargs):
        """``charts``: True (made now), "lazy" (made when their tab first shows: the view appears
        ~0.25 s sooner; needs the kernel then) or False (none)."""
        _View.__init__(self, tab=tab, **kwargs)
        self.timeline = self._init_events(profile, max_events)
        self.tables = hotspot_tables(profile)
        if findings is None:
            findings, self.findings_note = default_findings(profile)
        elif isinstance(findings, pd.DataFrame):
            findings = findings.to_dict("records")
        self.findings, self.evidence = _findings_traits(findings, self._encoded)
        ov = overview(profile, findings)
        self.overview = overview_payload(profile, ov, self.findings)
        if charts:
            self._init_charts(profile, devices=ov["devices"], lazy=charts == "lazy")


class DiffView(_View):
    """A comparison (``cann_nb.compare(base, new)``) side by side: the end-to-end change, per-op delta
    bars (as the Comparison computed them), added/removed ops, and both timelines on one shared time
    scale; clicking an op highlights it in both timelines (``highlight_op``)."""

    _view = t.Unicode("diff").tag(sync=True)
    diff = t.Dict().tag(sync=True)
    timeline = t.Dict().tag(sync=True)
    timeline_b = t.Dict().tag(sync=True)
    highlight_op = t.Unicode("").tag(sync=True)

    def __init__(self, comparison, *, max_events: int = DEFAULT_MAX_EVENTS // 2, **kwargs):
        super().__init__(**kwargs)
        self.comparison = comparison
        base, new = comparison.base, comparison.new
        self.diff = diff_payload(comparison)
        self.timeline = encode_events(base.events, base.memory, base.counters, max_events=max_events).payload
        self.timeline_b = encode_events(new.events, new.memory, new.counters, max_events=max_events).payload

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        data = {**data, "text/plain": comparison_text(self.comparison), "text/html": comparison_html(self.comparison)}
        return (data, bundle[1]) if isinstance(bundle, tuple) else data
