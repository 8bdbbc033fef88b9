"""The notebook output of a profile or a comparison: text/plain and static text/html beside the
interactive view. These are the renderers cann_nb/__init__.py registers for Profile and Comparison, so
a Profile or a Comparison that is a cell's last value shows its view."""

from __future__ import annotations

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
        note = f'<div class="cann-nb-missing-bundle" style="font:12px system-ui,sans-serif;color:#9a6700">' \
               f"{escape(_bundle.MISSING_MESSAGE)}</div>"
        return {"text/plain": text, "text/html": note + html}
    view = make_view()
    return {"text/plain": text, "text/html": html,
            WIDGET_MIME: {"version_major": 2, "version_minor": 0, "model_id": view.model_id}}


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


def show(profile, findings=None, **kwargs) -> None:
    """Display a profile's tabbed view (with its text and HTML fallbacks) in the current notebook."""
    from IPython.display import display

    display(display_bundle(profile, findings, **kwargs), raw=True)
