"""anywidget views of a Profile (front-end source in js/, bundled into cann_nb/static/widget.js).

    from cann_nb.widgets import ProfileView, show
    ProfileView(profile)            # tabbed: Overview, Timeline, Hotspots, Call tree, Suggestions, Memory
    show(profile)                   # the same, with text/plain + static text/html fallbacks

Each view is also constructible alone: TimelineView, HotspotTable, SuggestionPanel, CallTreeView,
ChartsView, DiffView(before, after). ``charts`` has the bokeh figures as plain functions.
"""

from __future__ import annotations

from ._bundle import bundle_available
from .display import display_bundle, show
from .views import (CallTreeView, ChartsView, DiffView, HotspotTable, ProfileView, SuggestionPanel,
                    TimelineView)

__all__ = ["ProfileView", "TimelineView", "HotspotTable", "SuggestionPanel", "CallTreeView", "ChartsView",
           "DiffView", "display_bundle", "show", "bundle_available"]
