"""Where the front-end bundle lives, and what the widgets show when it is missing.

``npm run build`` writes ``cann_nb/static/widget.js`` (one ESM file, CSS included). It is not committed;
wheels and sdists carry it as a hatch artifact. A fresh clone without the build gets a tiny stand-in
module that tells the user what to run, so the notebook never shows a blank box or a JS error.
"""

from __future__ import annotations

import json
import warnings
from functools import lru_cache
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "static"
BUNDLE = STATIC / "widget.js"

MISSING_MESSAGE = (
    "cann_nb: the interactive view is unavailable because the front-end bundle "
    "(cann_nb/static/widget.js) is missing. In a source checkout run `npm ci && npm run build` "
    "(Node 18+), or install cann_nb from a wheel. The static summary is still shown as text/html."
)

# Renders the message with textContent only; also exports the same names as the real bundle.
_FALLBACK_ESM = """
const MESSAGE = %s;
function render({ model, el }) {
  const box = document.createElement("div");
  box.className = "cann-nb-missing-bundle";
  box.style.cssText = "font:13px system-ui,sans-serif;padding:8px 10px;border:1px solid #d4a72c;background:#fff8c5;color:#3b2300;border-radius:4px";
  box.textContent = MESSAGE;
  el.appendChild(box);
}
export default { render };
"""

_warned = False


def bundle_available() -> bool:
    return BUNDLE.is_file() and BUNDLE.stat().st_size > 0


@lru_cache(maxsize=4)
def _read(path: str, mtime_ns: int, size: int) -> str:  # cache key includes mtime: a rebuild is picked up
    return Path(path).read_text(encoding="utf-8")


def bundle_esm() -> str:
    """The widget ESM source: the built bundle, or the stand-in that explains how to build it."""
    global _warned
    if bundle_available():
        st = BUNDLE.stat()
        return _read(str(BUNDLE), st.st_mtime_ns, st.st_size)
    if not _warned:
        warnings.warn(MISSING_MESSAGE, RuntimeWarning, stacklevel=3)
        _warned = True
    return fallback_esm()


def fallback_esm() -> str:
    return _FALLBACK_ESM % json.dumps(MISSING_MESSAGE)


@lru_cache(maxsize=1)
def bokehjs_source() -> str:
    """BokehJS (core only; the charts use the canvas backend) for offline, inline loading."""
    from bokeh.resources import Resources

    return "\n".join(Resources(mode="inline", components=["bokeh"]).js_raw)


def bokeh_version() -> str:
    import bokeh

    return bokeh.__version__
