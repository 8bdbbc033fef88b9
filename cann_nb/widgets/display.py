"""The notebook output of a profile or a comparison: text/plain and static text/html beside the
interactive view. These are the renderers cann_nb/__init__.py registers for Profile and Comparison, so
a Profile or a Comparison that is a cell's last value shows its view (one mimebundle).

``show`` (the profiled cell's output) writes two outputs instead: the static summary, then the view,
which hides that summary once it has rendered. An export of a notebook saved with widget state
(nbconvert, GitHub) then still shows the summary, where the one bundle would show only the widget."""

from __future__ import annotations

import uuid
from html import escape

from . import _bundle
from .static import comparison_html, comparison_text, summary_html, summary_text

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def _with_widget(text: str, html: str, make_view) -> dict:
    """``text/plain`` and the escaped static ``text/html`` always, plus the widget when the front-end
    bundle is built (otherwise the HTML says how to build it). Front ends that cannot run widgets
    (GitHub, nbconvert, a notebook reopened without its kernel) show the text/html; JupyterLab,
    Notebook 7 and VS Code show the widget."""
    if not _bundle.bundle_available():
        return {"text/plain": text, "text/html": _missing_bundle_note() + html}
    view = make_view()
    return {"text/plain": text, "text/html": html,
            WIDGET_MIME: {"version_major": 2, "version_minor": 0, "model_id": view.model_id}}


def _missing_bundle_note() -> str:
    return (f'<div class="cann-nb-missing-bundle" style="font:12px system-ui,sans-serif;color:#9a6700">'
            f"{escape(_bundle.MISSING_MESSAGE)}</div>")


def display_bundle(profile, findings=None, **kwargs) -> dict:
    """A profile's mimebundle: its ProfileView with the text and HTML fallbacks."""
    from .views import ProfileView

    kwargs.setdefault("charts", "lazy")     # the view shows ~0.25 s sooner; charts come when their tab opens
    return _with_widget(summary_text(profile), summary_html(profile),
                        lambda: ProfileView(profile, findings, **kwargs))


def comparison_bundle(cmp, **kwargs) -> dict:
    """A comparison's mimebundle: its DiffView with the text and HTML fallbacks."""
    from .views import DiffView

    return _with_widget(comparison_text(cmp), comparison_html(cmp), lambda: DiffView(cmp, **kwargs))


def cluster_bundle(res, **kwargs) -> dict:
    """A cluster analysis' mimebundle: its ClusterView with the text and HTML fallbacks."""
    from .cluster_view import ClusterView
    from .static import cluster_html, cluster_text

    return _with_widget(cluster_text(res), cluster_html(res), lambda: ClusterView(res, **kwargs))


def show(profile, findings=None, **kwargs) -> None:
    """Display a profile in the current notebook as two outputs: its static summary, then its view
    (see ``show_parts``)."""
    show_parts(profile, make_view(profile, findings, **kwargs))


def make_view(profile, findings=None, **kwargs):
    """The ProfileView of ``profile``, None without the front-end bundle."""
    if not _bundle.bundle_available():
        return None
    from .views import ProfileView

    kwargs.setdefault("charts", "lazy")     # the view shows ~0.25 s sooner; charts come when their tab opens
    return ProfileView(profile, findings, **kwargs)


def show_parts(profile, view) -> None:
    """Display the static summary (text/plain + escaped text/html, marked ``data-cnb-summary=TOKEN``) as
    an output of its own, then ``view`` with a one-line text/plain pointer; the view hides the summary
    marked with its ``summary_token`` once it renders. Without the front-end bundle, the note saying how
    to build it comes second; a view that could not be built (None) leaves the summary alone.

    Two outputs, not the widget's fallback: nbconvert picks the widget mime over text/html whenever the
    notebook was saved with widget state (nbclient and JupyterLab save it), and that widget then needs
    a CDN, so an exported notebook would show nothing where the profile was."""
    from IPython.display import display

    token = uuid.uuid4().hex
    html = f'<div data-cnb-summary="{token}">{summary_html(profile)}</div>'
    display({"text/plain": summary_text(profile), "text/html": html}, raw=True)
    if view is None:
        if not _bundle.bundle_available():
            display({"text/html": _missing_bundle_note()}, raw=True)
        return
    view.summary_token = token
    pointer = f"cann_nb: the interactive view of {profile.name!r} shows in JupyterLab, Notebook 7 or VS Code"
    display({"text/plain": pointer,
             WIDGET_MIME: {"version_major": 2, "version_minor": 0, "model_id": view.model_id}}, raw=True)
