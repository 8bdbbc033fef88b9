"""Take the README's screenshots: the inline view and an HTML report, in headless Debian Chromium.

    python docs/screenshots.py            # writes docs/img/*.png (commit them; each stays under 300 KB)

The inline view is the notebook widget itself (the same ESM bundle and state), rendered offline by
``cann_nb.widgets.standalone.standalone_html`` as the browser tests do; the profile is a real
collection of the naive Transformer encoder of notebooks/02 (its model cell is executed from the
notebook, so the picture shows that notebook's first profile). The report is ``write_report`` of the
real Ascend 910B sample (rank 1 against rank 0) when the shared sample data is present, else of the
same CPU profile. Needs: playwright (pip), Debian's chromium (apt), the built widget bundle.
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMG = ROOT / "docs" / "img"
MAX_BYTES = 300_000
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
                 "--disable-dev-shm-usage", "--hide-scrollbars"]
SHOTS = {  # file -> what it shows (the README uses these names)
    "inline-timeline.png": "the inline view, Timeline tab: naive Transformer encoder on CPU",
    "inline-suggestions.png": "the inline view, Suggestions tab: the advisor's findings on the same profile",
    "report.png": "an HTML report opened from disk",
}


def transformer_profile(workdir: Path):
    """Profile the first version of notebook 02's encoder (3 steps, shapes recorded)."""
    os.environ.setdefault("KINETO_LOG_LEVEL", "99")
    import torch

    import cann_nb

    nb = json.loads((ROOT / "notebooks" / "02-optimize-a-transformer.ipynb").read_text(encoding="utf-8"))
    ns: dict = {}
    for cell in nb["cells"]:  # the notebook's code up to its model cell (magics left out)
        src = "".join(cell["source"])
        if cell["cell_type"] != "code" or src.lstrip().startswith("%"):
            continue
        exec(compile(src, "notebooks/02-optimize-a-transformer.ipynb", "exec"), ns)
        if "class Encoder" in src:
            break
    model, version, requests, classify = ns["model"], ns["version"], ns["requests"], ns["classify"]
    classify(model, version, requests)  # warm up
    prof = cann_nb.Profiler(output_path=workdir, name="transformer_v0", shapes=True)
    with prof:
        for _ in range(3):
            prof.step()
            classify(model, version, requests)
    return prof.profile


def real_ascend():
    from cann_nb.ingest.ascend import read_ascend

    base = Path(os.environ.get("CANN_NB_REAL_DATA") or ROOT.parent / "shared" / "data" / "real")
    level1 = base / "msinsight/test/data/pytorch/text/level1"
    if not (level1 / "rank0_ascend_pt").is_dir():
        return None
    return read_ascend(level1 / "rank0_ascend_pt"), read_ascend(level1 / "rank1_ascend_pt")


def save_png(png: bytes, path: Path) -> None:
    """Write the screenshot; quantise to a palette if it is over MAX_BYTES (UI pictures lose nothing visible)."""
    if len(png) > MAX_BYTES:
        from PIL import Image

        img = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
        buf = io.BytesIO()
        img.save(buf, format="PNG", optimize=True)
        png = buf.getvalue()
    if len(png) > MAX_BYTES:
        raise SystemExit(f"{path.name}: {len(png):,} bytes, over the {MAX_BYTES:,} budget")
    path.write_bytes(png)
    print(f"{path}: {len(png) / 1000:.0f} kB")


def settle(page) -> None:
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="Take the README's screenshots (docs/img/*.png).")
    ap.add_argument("--out", type=Path, default=IMG, help="output folder (default docs/img)")
    out = ap.parse_args(argv).out
    from playwright.sync_api import sync_playwright

    from cann_nb.report import write_report
    from cann_nb.widgets import ProfileView, bundle_available
    from cann_nb.widgets.standalone import standalone_html

    exe = "/usr/bin/chromium"
    if not Path(exe).exists():
        raise SystemExit("Debian chromium is not installed (apt-get install chromium)")
    if not bundle_available():
        raise SystemExit("the widget bundle is not built (npm ci && npm run build)")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        profile = transformer_profile(tmp / "store")
        pages = {}
        for tab in ("timeline", "suggestions"):
            pages[tab] = tmp / f"view-{tab}.html"
            pages[tab].write_text(standalone_html(ProfileView(profile, tab=tab, charts=False)), encoding="utf-8")
        ascend = real_ascend()
        report = tmp / "report.html"
        if ascend is not None:
            write_report(ascend[1], report, against=ascend[0], title="Ascend 910B, rank 1 vs rank 0")
        else:
            write_report(profile, report)

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
            ctx = browser.new_context(viewport={"width": 1280, "height": 760}, device_scale_factor=1)
            ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:", "blob:"))
                      else r.abort())
            page = ctx.new_page()
            for tab, name in (("timeline", "inline-timeline.png"), ("suggestions", "inline-suggestions.png")):
                page.goto(pages[tab].as_uri())
                page.wait_for_selector(".cnb-root[data-ready='1']", timeout=30_000)
                page.wait_for_function("() => Number((document.querySelector('.cnb-timeline') || {dataset: {}})"
                                       ".dataset.draws || 0) >= 1", timeout=30_000)
                if tab == "suggestions":  # show a finding's evidence on the timeline
                    first = page.locator(".cnb-finding:visible").first
                    if first.count():
                        first.click(timeout=5_000)
                settle(page)
                page.wait_for_timeout(300)
                root = page.locator(".cnb-root").bounding_box()
                height = min(int(root["y"] + root["height"]) + 12, 760)
                save_png(page.screenshot(clip={"x": 0, "y": 0, "width": 1280, "height": height}), out / name)
            page.set_viewport_size({"width": 1280, "height": 900})
            page.goto(report.as_uri())
            page.wait_for_selector(".cnb-root[data-ready='1']", timeout=30_000)
            page.wait_for_selector(".cnb-root[data-charts='1']", timeout=30_000)
            settle(page)
            page.wait_for_timeout(500)
            save_png(page.screenshot(full_page=False), out / "report.png")
            browser.close()
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
