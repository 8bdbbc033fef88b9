"""Widget speed in headless Chromium (Debian's, software rendering): time to first draw, frame time while
zooming and panning, bytes shipped per event, and the Python-side preparation.

Profiles: synthetic ones of 100k and 1M events (tests/widgets/synth.py: two host threads with nested ops
and launches, two CUDA streams, memory and counters), plus, with ``--trace PATH``, an imported Kineto
trace. Each is rendered as the offline page (the same bundle and state a notebook gets, with a read-only
model), so the time includes decoding the state, decompressing the columns and indexing.

  first draw (page)    navigation start -> first timeline frame drawn (parse + import + decode + draw)
  first draw (render)  render() called -> first frame drawn (what a notebook user waits after the
                       comm message arrived)
  frame (draw) ms      cost of one timeline redraw, over 90 zoom/pan steps from the full view down to
                       ~1/2000 of it and back (median, p95, max); < 16 ms keeps 60 fps
  bytes/event          zlib-compressed column bytes shipped per event (raw typed arrays in brackets)

    python benchmarks/widgets.py [--sizes 100000,1000000] [--trace PATH] [--markdown]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cann_nb.widgets import ProfileView, TimelineView, bundle_available  # noqa: E402
from cann_nb.widgets.standalone import standalone_html  # noqa: E402
from tests.widgets.synth import synthetic_profile  # noqa: E402

ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic", "--disable-dev-shm-usage"]

# 90 steps: zoom in 40 x 0.82 around the middle, pan 20 x, zoom out 30 x
INTERACT_JS = """
async () => {
  const c = document.querySelector('.cnb-tl-canvas');
  const tl = document.querySelector('.cnb-timeline');
  const r = c.getBoundingClientRect();
  const x = r.left + 180 + (r.width - 180) * 0.5, y = r.top + 60;
  const frame = () => new Promise(res => requestAnimationFrame(res));
  const wall = [];
  const step = async (dx, dy, shift) => {
    const t = performance.now();
    c.dispatchEvent(new WheelEvent('wheel', {deltaX: dx, deltaY: dy, shiftKey: shift, clientX: x, clientY: y, bubbles: true, cancelable: true}));
    await frame();
    wall.push(performance.now() - t);
  };
  const before = Number(tl.dataset.draws);
  for (let i = 0; i < 40; i++) await step(0, -100, false);
  for (let i = 0; i < 20; i++) await step(0, (i % 2 ? -1 : 1) * 400, true);
  for (let i = 0; i < 30; i++) await step(0, 135, false);
  return { draws: Number(tl.dataset.draws) - before, wall };
}
"""


def _pct(xs, q):
    xs = sorted(xs)
    return xs[min(int(q * len(xs)), len(xs) - 1)]


def measure(label, prof, browser, tmpdir, with_profile_view=True):
    row = {"profile": label, "events": len(prof.events)}
    t = time.perf_counter()
    view = TimelineView(prof)
    row["py_timeline_s"] = time.perf_counter() - t
    if with_profile_view:
        t = time.perf_counter()
        ProfileView(prof, charts=True)
        row["py_profileview_s"] = time.perf_counter() - t
    p = view.timeline
    cols = list(p["cols"].values()) + list(p["flows"].values())
    row["bytes_per_event"] = sum(len(c["z"]) for c in cols) / max(p["n"], 1)
    row["raw_bytes_per_event"] = sum(c["n"] * int(c["dtype"][1]) for c in cols) / max(p["n"], 1)
    html = standalone_html(view)
    path = Path(tmpdir) / f"{label}.html"
    path.write_text(html, encoding="utf-8")
    row["page_mb"] = len(html) / 1e6
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "blob:", "data:")) else r.abort())
    page = ctx.new_page()
    page.goto(path.as_uri())
    page.wait_for_function("() => Number((document.querySelector('.cnb-timeline') || {dataset: {}}).dataset.draws || 0) >= 1",
                           timeout=120_000)
    row["first_draw_render_ms"] = float(page.evaluate("() => document.querySelector('.cnb-timeline').dataset.firstDrawMs"))
    # performance.now() is measured from navigation start: page load + import + decode + first draw
    row["first_draw_page_ms"] = float(page.evaluate("() => document.querySelector('.cnb-timeline').__cnbStats.firstDrawAt"))
    page.wait_for_timeout(300)
    res = page.evaluate(INTERACT_JS)
    draw_ms = page.evaluate("() => document.querySelector('.cnb-timeline').__cnbStats.frameMs")
    draw_ms = draw_ms[-res["draws"]:] if res["draws"] else res["wall"]
    row["frame_median_ms"] = statistics.median(draw_ms)
    row["frame_p95_ms"] = _pct(draw_ms, 0.95)
    row["frame_max_ms"] = max(draw_ms)
    row["step_wall_median_ms"] = statistics.median(res["wall"])
    ctx.close()
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--trace", help="also an imported Kineto trace (path)")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    if not bundle_available():
        sys.exit("the widget bundle is not built: npm ci && npm run build")
    from playwright.sync_api import sync_playwright

    profiles = [(f"synthetic {int(n) // 1000}k", lambda n=int(n): synthetic_profile(n)) for n in args.sizes.split(",")]
    if args.trace:
        from cann_nb.ingest.kineto import read_kineto

        profiles.append((f"kineto {Path(args.trace).name}", lambda: read_kineto(args.trace)))
    rows = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
        for label, make in profiles:
            prof = make()
            row = measure(label, prof, browser, tmp)
            rows.append(row)
            print(row, file=sys.stderr)
        browser.close()
    head = ("| profile | events | first draw, page (ms) | first draw, render (ms) | frame median / p95 / max (ms) "
            "| bytes/event shipped (raw) | page MB | Python: TimelineView / ProfileView (s) |")
    lines = [head, "|" + "---|" * 8]
    for r in rows:
        lines.append(f"| {r['profile']} | {r['events']:,} | {r['first_draw_page_ms']:.0f} | {r['first_draw_render_ms']:.0f} "
                     f"| {r['frame_median_ms']:.1f} / {r['frame_p95_ms']:.1f} / {r['frame_max_ms']:.1f} "
                     f"| {r['bytes_per_event']:.1f} ({r['raw_bytes_per_event']:.1f}) | {r['page_mb']:.1f} "
                     f"| {r['py_timeline_s']:.2f} / {r.get('py_profileview_s', float('nan')):.2f} |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
