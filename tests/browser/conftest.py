"""Playwright driving Debian's Chromium (never a downloaded browser), network blocked.

Screenshots of every test land in build/test-artifacts/browser/. Without chromium, playwright or the
built bundle these tests skip locally and fail under CI=true.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "build" / "test-artifacts" / "browser"
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
                 "--disable-dev-shm-usage"]


def chromium_path() -> str | None:
    for cand in ("/usr/bin/chromium", shutil.which("chromium") or ""):
        if cand and os.path.exists(cand):
            return cand
    return None


def need(reason: str):
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    """Chromium for one test module. Module scope on purpose: Playwright's sync API keeps an asyncio
    loop marked as running while it is open, which would break later tests that run event loops."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        need("playwright is not installed (pip install playwright; never `playwright install`)")
    exe = chromium_path()
    if not exe:
        need("Chromium is not installed: `sudo apt-get install chromium` (Debian; .ci/browsers does it as root). "
             "Browser tests skip without it, and fail under CI=true")
    from cann_nb.widgets import bundle_available

    if not bundle_available():
        need("the widget bundle is not built (npm ci && npm run build)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


def new_page(browser, allow=("file:", "data:", "blob:"), viewport=(1280, 900)):
    """A page in a fresh context whose every request outside ``allow`` is aborted and recorded."""
    ctx = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    requests, blocked = [], []

    def route(r):
        url = r.request.url
        requests.append(url)
        if url.startswith(allow):
            r.continue_()
        else:
            blocked.append(url)
            r.abort()

    ctx.route("**/*", route)
    page = ctx.new_page()
    page.dialogs, page.errors, page.requests, page.blocked = [], [], requests, blocked
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return ctx, page


@pytest.fixture
def page(browser, request):
    ctx, pg = new_page(browser)
    yield pg
    try:
        pg.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    finally:
        ctx.close()


# Canvas pixel statistics, computed in the page: how much of the plot area is drawn, how many colours,
# how many pixels carry the highlight colour (#ff6a00) or the flow-arrow accent (#0969da).
PIXELS_JS = """
([sel, left]) => {
  const c = document.querySelector(sel);
  if (!c || !c.width) return null;
  const dpr = c.width / c.getBoundingClientRect().width;
  const x0 = Math.round(left * dpr);
  const d = c.getContext('2d').getImageData(x0, 0, c.width - x0, c.height).data;
  let drawn = 0, hl = 0, accent = 0;
  const colors = new Set();
  for (let i = 0; i < d.length; i += 4) {
    const r = d[i], g = d[i + 1], b = d[i + 2];
    if (!(r > 240 && g > 240 && b > 240)) drawn++;
    if (Math.abs(r - 255) < 12 && Math.abs(g - 106) < 24 && b < 40) hl++;
    if (r < 30 && Math.abs(g - 105) < 25 && Math.abs(b - 218) < 25) accent++;
    colors.add((r >> 4) << 8 | (g >> 4) << 4 | (b >> 4));
  }
  let hash = 0;
  for (let i = 0; i < d.length; i += 97) hash = (hash * 31 + d[i]) | 0;
  return { drawn, total: d.length / 4, share: drawn / (d.length / 4), colors: colors.size, hl, accent, hash };
}
"""
