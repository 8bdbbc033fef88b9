"""The widget models: traits, typed/binary state, linking helpers, fallbacks and escaping."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from ipywidgets.widgets.widget import _remove_buffers

from cann_nb.widgets import (CallTreeView, ChartsView, DiffView, HotspotTable, ProfileView, SuggestionPanel,
                             TimelineView, display_bundle)
from cann_nb.analyze.comparison import compare
from cann_nb.widgets import _bundle
from cann_nb.widgets.display import WIDGET_MIME

from .synth import HOSTILE, synthetic_findings, synthetic_profile


@pytest.fixture(scope="module")
def prof():
    return synthetic_profile(10_000)


def _json_part(widget):
    state, _paths, buffers = _remove_buffers(widget.get_state())
    return json.dumps(state), buffers


def test_profile_view_state_is_binary_not_per_event_json(prof):
    v = ProfileView(prof, synthetic_findings(prof), charts=False)
    text, buffers = _json_part(v)
    assert v._view == "profile"
    # the columns went out as buffers; the JSON part holds tables and dictionaries, not 10k events
    assert sum(len(b) for b in buffers) > 10_000
    js = json.loads(text)
    assert "timeline" in js and js["timeline"]["n"] == len(prof.events)
    assert len(text) - len(_bundle.bundle_esm()) < 200_000
    assert not re.search(r'"start_ns"\s*:\s*\[', text)


def test_each_view_constructs_alone(prof):
    for view in (TimelineView(prof), HotspotTable(prof), SuggestionPanel(prof, synthetic_findings(prof)),
                 CallTreeView(prof), ChartsView(prof), DiffView(compare(prof, synthetic_profile(5_000, seed=3)))):
        bundle = view._repr_mimebundle_()
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        assert WIDGET_MIME in data and "text/plain" in data
        assert view._view


def test_mimebundle_keeps_text_and_escaped_html(prof):
    data = display_bundle(prof, charts=False)
    assert set(data) == {"text/plain", "text/html", WIDGET_MIME}
    assert "cann_nb profile 'synthetic'" in data["text/plain"]
    assert HOSTILE not in data["text/html"] and "<table" in data["text/html"]
    assert data[WIDGET_MIME]["model_id"]


def test_missing_bundle_says_so_and_keeps_static_html(prof, monkeypatch, tmp_path):
    monkeypatch.setattr(_bundle, "BUNDLE", tmp_path / "nope" / "widget.js")
    assert not _bundle.bundle_available()
    data = display_bundle(prof)
    assert WIDGET_MIME not in data
    assert "npm ci &amp;&amp; npm run build" in data["text/html"] and "<table" in data["text/html"]
    with pytest.warns(RuntimeWarning) if not _bundle._warned else _nullcontext():
        v = TimelineView(prof)
    assert "npm ci && npm run build" in v._esm and "export default" in v._esm
    assert v.bundle_ok is False


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def test_selection_ids_and_rows_stay_in_step(prof):
    v = TimelineView(prof)
    target = int(prof.events["id"].iloc[1234])
    v.select(target)
    assert v.selected_row >= 0 and int(v._encoded.ids[v.selected_row]) == target
    v.selected_row = 7  # as the front end would
    assert v.selected_id == int(v._encoded.ids[7])
    v.selected_row = -1
    assert v.selected_id == -1


def test_highlight_from_python_sends_rows(prof):
    from cann_nb.widgets._encode import decode

    v = TimelineView(prof)
    ids = prof.events["id"].to_numpy()[:25]
    v.highlight(ids)
    rows = decode(v.highlight_rows["rows"])
    assert sorted(v._encoded.ids[rows]) == sorted(ids)
    v.zoom_to(100, 5000)
    assert v.viewport == [100.0, 5000.0]


def test_findings_sorted_by_gain_with_evidence_rows(prof):
    from cann_nb.analyze.finding import findings_frame
    from cann_nb.widgets._encode import decode

    fs = synthetic_findings(prof)
    for given in (fs, findings_frame(fs)):
        v = SuggestionPanel(prof, given)
        gains = [f["est_gain_ns"] for f in v.findings]
        assert gains[0] == 9.9e5 and gains[1] == 1.5e5 and gains[2] is None
        offsets, rows = decode(v.evidence["offsets"]), decode(v.evidence["rows"])
        first = v._encoded.ids[rows[offsets[0]:offsets[1]]]
        names = prof.events.set_index("id").loc[first, "name"].astype(str)
        assert len(first) == 50 and set(names) == {HOSTILE}
        assert "event_ids" in v.findings[0]["evidence"]  # replaced by a count, not 50 ids of JSON
        json.dumps(v.findings)


def test_default_findings_come_from_the_advisor_or_say_why_not(prof, monkeypatch):
    v = SuggestionPanel(prof)
    assert v.findings or "advisor" in v.findings_note
    import cann_nb.analyze.rules as rules

    def broken(profile, **kwargs):
        raise ValueError("boom")

    monkeypatch.setattr(rules, "findings", broken)  # the advisor as a whole raising
    v = SuggestionPanel(prof)
    assert v.findings == [] and "advisor failed" in v.findings_note and "boom" in v.findings_note


def test_charts_are_bokeh_items_and_bokehjs_comes_from_the_kernel(prof):
    v = ChartsView(prof)
    assert set(v.charts) == {"breakdown", "memory", "utilization"}
    text = json.dumps(v.charts)
    assert "cdn.bokeh.org" not in text and "https://" not in text
    sent = []
    v.send = lambda content, buffers=None: sent.append((content, buffers))
    v._on_custom_msg(v, {"type": "bokehjs?"}, [])
    assert sent and sent[0][0]["type"] == "bokehjs"
    code = sent[0][1][0].decode()
    assert len(code) > 100_000 and "Bokeh" in code


def test_lazy_charts_are_made_when_the_front_end_asks(prof):
    from cann_nb.widgets.display import display_bundle

    v = ProfileView(prof, [], charts="lazy")
    assert v.charts_lazy and v.charts == {}
    v._on_custom_msg(v, {"type": "charts?", "which": ["breakdown"]}, [])
    assert set(v.charts) == {"breakdown"}
    v._on_custom_msg(v, {"type": "charts?", "which": ["memory", "utilization", "<script>", 3]}, [])
    assert set(v.charts) == {"breakdown", "memory", "utilization"}
    assert all({"doc", "root_id"} <= set(item) for item in v.charts.values())      # bokeh json_items
    # the notebook display is lazy; a report (and ProfileView's default) makes them at once
    assert not ProfileView(prof, []).charts_lazy and set(ProfileView(prof, []).charts) == {
        "breakdown", "memory", "utilization", "roofline", "mfu"}
    bundle = display_bundle(prof, [])
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_diff_view_shows_the_comparison(prof):
    other = synthetic_profile(12_000, seed=5, scale=1.5)
    cmp = compare(prof, other)
    d = DiffView(cmp).diff
    assert d["e2e"]["base_ns"] == cmp.e2e["base_ns"] and d["e2e"]["delta_ns"] == cmp.e2e["delta_ns"]
    assert d["buckets"] == cmp.buckets("name") and d["total_rows"] == len(cmp.ops)
    shipped = pd.DataFrame(d["data"])
    expected = cmp.ops.head(len(shipped))
    assert shipped["name"].tolist() == expected["name"].tolist()          # the Comparison's order
    assert shipped["delta_ns"].tolist() == pytest.approx(expected["delta_ns"].tolist())
    assert shipped["bucket"].tolist() == expected["bucket"].tolist()


def test_diff_added_and_removed_ops(prof):
    other = prof.copy()
    ev = other.events
    ev["name"] = ev["name"].cat.rename_categories({"aten::gelu": "aten::fast_gelu"})
    d = DiffView(compare(prof, other)).diff
    bucket = dict(zip(d["data"]["name"], d["data"]["bucket"]))
    assert bucket["aten::fast_gelu"] == "added" and bucket["aten::gelu"] == "removed"
    assert d["buckets"]["added"] == 1 and d["buckets"]["removed"] == 1


def test_module_grouping_table(prof):
    t = HotspotTable(prof).tables
    assert set(t) == {"name", "name+shapes", "module"}
    assert set(t["module"]["data"]["module"]) == {"model.encoder.0", "model.encoder.1", "model.head"}
    assert np.isclose(sum(x for x, c in zip(t["name"]["data"]["share_pct"], t["name"]["data"]["cat"])
                          if c != "kernel"), 100.0)
