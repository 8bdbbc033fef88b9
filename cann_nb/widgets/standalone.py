"""A widget as one self-contained HTML page: the same ESM bundle, its state inlined, a read-only model.

No kernel, no network, no external file: the bundle is imported from a Blob URL, binary columns travel
base64-encoded in a JSON script tag, and BokehJS is inlined when the view has charts. A
Content-Security-Policy allows only the page's own inline scripts (by SHA-256) and the Blob-URL module.
The HTML report (cann_nb/report) builds on :func:`widget_state` and :func:`page_html`; the browser tests
use :func:`standalone_html`.
"""

from __future__ import annotations

import base64
import hashlib
import json
from html import escape

from . import _bundle

# Scripts: only the page's own inline scripts, by hash (see :func:`page_html`), and the bundle imported from
# the Blob URL the page itself creates. Data blocks (application/json, text/plain) are never executed.
CSP_BASE = ("default-src 'none'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; "
            "base-uri 'none'; form-action 'none'")

# traits that only matter to a live widget manager
_SKIP = {"_esm", "_css", "_anywidget_id", "_dom_classes", "layout", "tabbable", "tooltip", "comm",
         "_model_module", "_model_module_version", "_model_name", "_view_module", "_view_module_version",
         "_view_name", "_view_count", "keys", "log"}


def _jsonable_state(x):
    if isinstance(x, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(x)).decode("ascii")  # js/data.js decodes base64 strings
    if isinstance(x, dict):
        return {k: _jsonable_state(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable_state(v) for v in x]
    return x


def widget_state(widget) -> dict:
    """The widget's synced state as plain JSON (binary buffers as base64 strings)."""
    state = widget.get_state()
    return {k: _jsonable_state(v) for k, v in state.items() if k not in _SKIP}


def script_json(obj) -> str:
    """JSON safe inside <script type="application/json">: no '<', '>' or '&' survive unescaped."""
    return (json.dumps(obj, separators=(",", ":"), allow_nan=False)
            .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def script_text(code: str) -> str:
    """JavaScript made safe to inline in a <script> element (no early '</script', no '<!--')."""
    return code.replace("</script", "<\\/script").replace("</SCRIPT", "<\\/SCRIPT").replace("<!--", "<\\!--")


# Imports the bundle from a Blob URL and renders the state's view with the read-only model (js/host.js).
BOOT = """
const esm = document.getElementById("cann-nb-esm").textContent;
const url = URL.createObjectURL(new Blob([esm], { type: "text/javascript" }));
const mod = await import(url);
const state = JSON.parse(document.getElementById("cann-nb-state").textContent);
const el = document.getElementById("cann-nb-view");
if (mod.renderStatic) await mod.renderStatic(mod.default, state, el);
else await mod.default.render({ model: { get: (k) => state[k], set() {}, on() {}, off() {}, save_changes() {}, send() {} }, el });
"""

DEFAULT_STYLE = "body{margin:12px;font-family:system-ui,sans-serif}"


def script_hash(code: str) -> str:
    """The CSP source expression that allows exactly this inline script text."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode("ascii") + "'"


def csp_for(scripts) -> str:
    """A Content-Security-Policy allowing these inline scripts (by hash) and Blob-URL modules, nothing else."""
    return CSP_BASE + "; script-src " + " ".join([*(script_hash(c) for c in scripts), "blob:"])


def page_html(state: dict, *, title: str, include_bokehjs: bool = False, style: str = DEFAULT_STYLE,
              before: str = "", after: str = "", body_attrs: str = "") -> str:
    """The offline page around a widget state: bundle, state, optional BokehJS, bootstrap, hashed CSP.

    ``style`` (CSS), ``before``/``after`` (HTML placed around the view's mount point) and ``body_attrs``
    are trusted markup: callers escape any profile text in them (the HTML report does).
    """
    esm = _bundle.bundle_esm()
    inline = [script_text(_bundle.bokehjs_source())] if include_bokehjs else []
    boot = BOOT
    scripts = "".join(f"<script>{code}</script>\n" for code in inline)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp_for([*inline, boot])}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>{style}</style>
</head><body{body_attrs}>
{before}<div id="cann-nb-view"></div>{after}
<script type="application/json" id="cann-nb-state">{script_json(state)}</script>
<script type="text/plain" id="cann-nb-esm">{script_text(esm)}</script>
{scripts}<script type="module">{boot}</script>
</body></html>
"""


def standalone_html(widget, *, title: str | None = None, include_bokehjs: bool | None = None) -> str:
    """One HTML page that renders ``widget`` offline with the bundle and a read-only model."""
    state = widget_state(widget)
    if include_bokehjs is None:
        include_bokehjs = bool(state.get("charts"))
    return page_html(state, title=title or f"cann_nb {state.get('_view', 'view')}", include_bokehjs=include_bokehjs)
