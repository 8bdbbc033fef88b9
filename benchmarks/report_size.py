"""HTML report size and open time: what the file weighs, what it is made of, how long it takes to write
and to open offline in headless Chromium (Debian's, software rendering, network blocked), and whether the
timeline stays interactive.

Profiles: synthetic ones (tests/widgets/synth.py: two host threads with nested ops and launches, two
CUDA streams, memory and counters) of 100k and 1M events, the real imported Ascend sample
(msinsight .../text/level1/rank0_ascend_pt) and, with ``--trace PATH``, an imported Kineto trace.
Each report is the full one (the advisor's findings included), written with ``write_report``.

  write s        report_html + write (advisor, hotspots, charts, encoding, recompression)
  MB             file size; parts: state (timeline columns, tables, charts, findings), BokehJS, bundle, rest
  zlib 1 / 6     the timeline columns as shipped (zlib level 1, as the live widget) and at level 6
  ready ms       navigation start -> the report view rendered (parse, import, decode, first timeline frame)
  charts ms      navigation start -> the three bokeh charts drawn
  frame ms       one timeline redraw over 90 zoom/pan steps (median / p95 / max); < 16 ms keeps 60 fps

    python benchmarks/report_size.py [--sizes 100000,1000000] [--trace PATH] [--keep DIR]
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import statistics
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.widgets import ARGS, INTERACT_JS, _pct  # noqa: E402
from cann_nb.report import write_report  # noqa: E402
from cann_nb.widgets import bundle_available  # noqa: E402
from tests.widgets.synth import synthetic_profile  # noqa: E402

ASCEND = ROOT.parent / "shared/data/real/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt"


def parts(html: str) -> dict:
    """Bytes of each part of the page."""
    def block(pattern):
        m = re.search(pattern, html, re.S)
        return len(m.group(1).encode()) if m else 0

    state = block(r'<script type="application/json" id="cann-nb-state">(.*?)</script>')
    esm = block(r'<script type="text/plain" id="cann-nb-esm">(.*?)</script>')
    bokeh = max((len(s.encode()) for s in re.findall(r"<script>(.*?)</script>", html, re.S)), default=0)
    total = len(html.encode())
    return {"state": state, "bundle": esm, "bokehjs": bokeh, "rest": total - state - esm - bokeh, "total": total}


def timeline_levels(html: str) -> tuple[int, int]:
    """Compressed bytes of the timeline columns as shipped (zlib level 1) and at level 6 (what a slower,
    harder compression would save)."""
    m = re.search(r'<script type="application/json" id="cann-nb-state">(.*?)</script>', html, re.S)
    st = json.loads(m.group(1))
    l1 = l6 = 0
    for col in list(st["timeline"]["cols"].values()) + list(st["timeline"]["flows"].values()):
        raw = zlib.decompress(base64.b64decode(col["z"]))
        l1 += len(base64.b64decode(col["z"]))
        l6 += len(zlib.compress(raw, 6))
    return l1, l6


# when the view set data-ready / data-charts, in ms from navigation start (not Playwright's polling)
MARKS_JS = """
window.__marks = {};
new MutationObserver((records) => {
  for (const r of records) {
    const k = r.attributeName.replace('data-', '');
    if (!(k in window.__marks)) window.__marks[k] = performance.now();
  }
}).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-ready', 'data-charts'] });
"""


def open_in_chromium(browser, path: Path) -> dict:
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    requests = []

    def route(r):
        requests.append(r.request.url)
        r.continue_() if r.request.url.startswith(("file:", "blob:", "data:")) else r.abort()

    ctx.route("**/*", route)
    page = ctx.new_page()
    page.add_init_script(MARKS_JS)
    page.goto(path.as_uri(), timeout=120_000)
    page.wait_for_selector(".cnb-root[data-ready='1']", timeout=120_000)
    page.wait_for_selector(".cnb-root[data-charts='1']", timeout=120_000)
    marks = page.evaluate("() => window.__marks")
    row = {"ready_ms": marks["ready"], "charts_ms": marks["charts"],
           "first_draw_ms": float(page.evaluate("() => document.querySelector('#timeline .cnb-timeline').__cnbStats.firstDrawAt"))}
    page.evaluate("() => document.querySelector('#timeline').scrollIntoView()")
    page.wait_for_timeout(300)
    res = page.evaluate(INTERACT_JS.replace("document.querySelector('.cnb-tl-canvas')",
                                            "document.querySelector('#timeline .cnb-tl-canvas')")
                        .replace("document.querySelector('.cnb-timeline')",
                                 "document.querySelector('#timeline .cnb-timeline')"))
    draw_ms = page.evaluate("() => document.querySelector('#timeline .cnb-timeline').__cnbStats.frameMs")
    draw_ms = draw_ms[-res["draws"]:] if res["draws"] else res["wall"]
    row.update(frame_median_ms=statistics.median(draw_ms), frame_p95_ms=_pct(draw_ms, 0.95), frame_max_ms=max(draw_ms),
               status=page.inner_text("#timeline .cnb-tl-status"),
               offsite_requests=[u for u in requests if not u.startswith(("file:", "blob:", "data:"))])
    ctx.close()
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--trace", help="also an imported Kineto trace (path)")
    ap.add_argument("--keep", help="keep the reports in this directory")
    args = ap.parse_args(argv)
    if not bundle_available():
        sys.exit("the widget bundle is not built: npm ci && npm run build")
    from playwright.sync_api import sync_playwright

    profiles = [(f"synthetic {int(n) // 1000}k", lambda n=int(n): synthetic_profile(n)) for n in args.sizes.split(",")]
    if ASCEND.is_dir():
        from cann_nb.ingest.ascend import read_ascend

        profiles.append(("Ascend rank0_ascend_pt (level1, text)", lambda: read_ascend(ASCEND)))
    if args.trace:
        from cann_nb.ingest.kineto import read_kineto

        profiles.append((f"Kineto {Path(args.trace).name}", lambda: read_kineto(args.trace)))
    rows = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        out_dir = Path(args.keep or tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
        for label, make in profiles:
            prof = make()
            path = out_dir / (re.sub(r"\W+", "_", label).strip("_") + ".html")
            t = time.perf_counter()
            write_report(prof, path)
            row = {"profile": label, "events": len(prof.events), "write_s": time.perf_counter() - t}
            html = path.read_text(encoding="utf-8")
            row.update(parts(html))
            row["tl_l1"], row["tl_l6"] = timeline_levels(html)
            row.update(open_in_chromium(browser, path))
            rows.append(row)
            print({k: v for k, v in row.items()}, file=sys.stderr)
        browser.close()
    mb = lambda b: b / 2**20  # noqa: E731
    lines = ["| profile | events | write (s) | file MB | state / BokehJS / bundle / rest (MB) | timeline columns "
             "zlib 1 / 6 (MB) | ready (ms) | charts (ms) | frame median / p95 / max (ms) |", "|" + "---|" * 9]
    for r in rows:
        lines.append(f"| {r['profile']} | {r['events']:,} | {r['write_s']:.1f} | {mb(r['total']):.2f} "
                     f"| {mb(r['state']):.2f} / {mb(r['bokehjs']):.2f} / {mb(r['bundle']):.2f} / {mb(r['rest']):.2f} "
                     f"| {mb(r['tl_l1']):.2f} / {mb(r['tl_l6']):.2f} | {r['ready_ms']:.0f} | {r['charts_ms']:.0f} "
                     f"| {r['frame_median_ms']:.1f} / {r['frame_p95_ms']:.1f} / {r['frame_max_ms']:.1f} |")
    print("\n".join(lines))
    for r in rows:
        print(f"- {r['profile']}: timeline status: {r['status']}; requests off the page: {r['offsite_requests'] or 'none'}")


if __name__ == "__main__":
    main()
