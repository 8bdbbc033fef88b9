"""The notebook output of a profile: text/plain and static text/html beside the interactive view."""

from __future__ import annotations

from html import escape

from .static import summary_html, summary_text
from . import _bundle

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def display_bundle(profile, findings=None, **kwargs) -> dict:
    """A mimebundle: ``text/plain`` and the escaped static ``text/html`` summary always, plus the
    ProfileView widget when the front-end bundle is built (otherwise the HTML says how to build it).

    Front ends that cannot run widgets (GitHub, nbconvert, a notebook reopened without its kernel)
    show the text/html; JupyterLab, Notebook 7 and VS Code show the widget.
    """
    text, html = summary_text(profile), summary_html(profile)
    if not _bundle.bundle_available():
        note = f'<div class="cann-nb-missing-bundle" style="font:12px system-ui,sans-serif;color:#9a6700">' \
               f"{escape(_bundle.MISSING_MESSAGE)}</div>"
        return {"text/plain": text, "text/html": note + html}
    from .views import ProfileView

    kwargs.setdefault("charts", "lazy")     # the view shows ~0.25 s sooner; charts come when their tab opens
    view = ProfileView(profile, findings, **kwargs)
    return {"text/plain": text, "text/html": html,
            WIDGET_MIME: {"version_major": 2, "version_minor": 0, "model_id": view.model_id}}


def show(profile, findings=None, **kwargs) -> None:
    """Display a profile's tabbed view (with its text and HTML fallbacks) in the current notebook."""
    from IPython.display import display

    display(display_bundle(profile, findings, **kwargs), raw=True)
