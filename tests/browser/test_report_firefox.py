"""The HTML report in Debian's Firefox (firefox-esr), offline: in a network namespace with only loopback
(``unshare -n``) where available, and with every proxy pointed at a closed port in any case.

Playwright drives only its own patched Firefox, which this project never downloads, so this module
carries a small WebDriver BiDi client (websocket-client): launch headless Firefox with a fresh
profile, navigate, poll a readiness expression, evaluate probes, record every request the page made and
save a screenshot. It runs as a subprocess so that it can be started inside the namespace:

    python -m tests.browser.test_report_firefox FILE.html OUT.json [--shot OUT.png] [--probe NAME=JS ...]

The test skips when firefox-esr is not installed (``apt-get install firefox-esr``).
"""

from __future__ import annotations

import argparse
import base64
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# prefs: no network (proxies to a closed port, no prefetch/telemetry/updates), quiet start
PREFS = {
    "network.proxy.type": 1, "network.proxy.http": "127.0.0.1", "network.proxy.http_port": 9,
    "network.proxy.ssl": "127.0.0.1", "network.proxy.ssl_port": 9, "network.proxy.share_proxy_settings": True,
    "network.proxy.allow_hijacking_localhost": True, "network.proxy.no_proxies_on": "",
    "network.dns.disablePrefetch": True, "network.prefetch-next": False, "network.http.speculative-parallel-limit": 0,
    "browser.shell.checkDefaultBrowser": False, "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.enabled": False, "app.update.enabled": False, "browser.startup.page": 0,
    "remote.prefs.recommended": True,
}


def firefox_path() -> str | None:
    return shutil.which("firefox-esr") or shutil.which("firefox")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Bidi:
    def __init__(self, url: str, timeout: float = 30):
        import websocket

        deadline = time.time() + timeout
        while True:
            try:
                self.ws = websocket.create_connection(url, timeout=timeout, suppress_origin=True)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        self.next_id = 0
        self.events: list[dict] = []

    def call(self, method: str, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if msg.get("type") == "error" or "error" in msg:
                    raise RuntimeError(f"{method}: {msg.get('error')}: {msg.get('message')}")
                return msg["result"]
            if msg.get("type") == "event":
                self.events.append(msg)

    def evaluate(self, ctx: str, expression: str):
        r = self.call("script.evaluate", expression=expression, target={"context": ctx}, awaitPromise=True,
                      resultOwnership="none")
        if r.get("type") == "exception":
            raise RuntimeError(r["exceptionDetails"].get("text"))
        return _value(r["result"])


def _value(v):
    t = v.get("type")
    if t in ("string", "number", "boolean"):
        return v.get("value")
    if t in ("undefined", "null"):
        return None
    if t == "array":
        return [_value(x) for x in v.get("value", [])]
    if t == "object":
        return {k if isinstance(k, str) else _value(k): _value(x) for k, x in v.get("value", [])}
    return v.get("value")


def run(page: Path, ready: str, probes: dict, shot: Path | None, timeout: float = 60) -> dict:
    exe = firefox_path()
    if not exe:
        raise RuntimeError("firefox-esr is not installed")
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="cnb-ff-") as prof:
        (Path(prof) / "user.js").write_text("".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n"
                                                    for k, v in PREFS.items()))
        proc = subprocess.Popen([exe, "--headless", "--no-remote", "--profile", prof, "--remote-debugging-port",
                                 str(port), "--window-size=1400,1000"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        out = {"firefox": subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()}
        try:
            b = Bidi(f"ws://127.0.0.1:{port}/session")
            b.call("session.new", capabilities={"alwaysMatch": {"acceptInsecureCerts": False}})
            b.call("session.subscribe", events=["network.beforeRequestSent", "log.entryAdded"])
            ctx = b.call("browsingContext.getTree")["contexts"][0]["context"]
            t0 = time.time()
            b.call("browsingContext.navigate", context=ctx, url=page.resolve().as_uri(), wait="complete")
            deadline = time.time() + timeout
            while not b.evaluate(ctx, f"Boolean({ready})"):
                if time.time() > deadline:
                    out["timed_out"] = True
                    break
                time.sleep(0.1)
            out["ready_s"] = round(time.time() - t0, 3)
            out["probes"] = {k: b.evaluate(ctx, js) for k, js in probes.items()}
            if shot:
                data = b.call("browsingContext.captureScreenshot", context=ctx, origin="document")["data"]
                shot.write_bytes(base64.b64decode(data))
            out["requests"] = [e["params"]["request"]["url"] for e in b.events
                               if e.get("method") == "network.beforeRequestSent"]
            out["log"] = [f"{e['params'].get('level')}: {e['params'].get('text')}" for e in b.events
                          if e.get("method") == "log.entryAdded"]
            try:
                b.call("session.end")
            except Exception:  # noqa: BLE001 - the browser is closed below anyway
                pass
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("out")
    ap.add_argument("--shot", default=None)
    ap.add_argument("--ready", default="document.querySelector('.cnb-root[data-ready=\"1\"]')")
    ap.add_argument("--probe", action="append", default=[], metavar="NAME=JS")
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args(argv)
    probes = dict(p.split("=", 1) for p in a.probe)
    result = run(Path(a.page), a.ready, probes, Path(a.shot) if a.shot else None, a.timeout)
    Path(a.out).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())


# -- the test -----------------------------------------------------------------------------------------
def _offline_prefix() -> list[str]:
    """`unshare -n` with loopback up, when this machine allows network namespaces."""
    if not shutil.which("unshare") or not shutil.which("ip"):
        return []
    ok = subprocess.run(["unshare", "-n", "sh", "-c", "ip link set lo up"], capture_output=True).returncode == 0
    return ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$0" "$@"'] if ok else []


def _until(value: str, done: str, timeout_ms: int = 20_000) -> str:
    """A probe that resolves to `value` once `done(value)` holds, or to the last value after the timeout."""
    return (f"new Promise(r => {{ const t0 = Date.now(); const f = () => {{ const v = {value}; "
            f"({done})(v) || Date.now() - t0 > {timeout_ms} ? r(v) : setTimeout(f, 50); }}; f(); }})")


FINDING_CLICK = ("(document.querySelector('#suggestions .cnb-finding[data-index=\"0\"]').click(), " +
                 _until("document.querySelector('#timeline .cnb-timeline').dataset.highlight", "h => Number(h) > 0",
                        5_000) + ")")


def test_report_opens_offline_in_firefox(tmp_path):
    if not firefox_path():
        pytest.skip("firefox-esr is not installed (apt-get install firefox-esr)")
    pytest.importorskip("websocket", reason="websocket-client is needed to drive Firefox over WebDriver BiDi")
    from cann_nb.report import write_report
    from cann_nb.widgets import bundle_available
    from tests.report.profiles import HOSTILE, hostile_findings, hostile_profile
    from tests.widgets.synth import synthetic_profile

    if not bundle_available():
        pytest.skip("the widget bundle is not built (npm ci && npm run build)")
    prof = hostile_profile()
    page = write_report(prof, tmp_path / "hostile.html", against=synthetic_profile(2_000, name="base", seed=3),
                        findings=hostile_findings(prof))
    out, shot = tmp_path / "ff.json", ROOT / "build" / "test-artifacts" / "browser" / "report-firefox.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    probes = {
        # every timeline draws on its own animation frame, after the page says ready (CI caught both the
        # main and the comparison's timelines still unset at 'ready'): wait for all three, 20 s at most
        "draws": _until("[...document.querySelectorAll('.cnb-timeline')].map(t => t.dataset.draws)",
                        "d => d.length === 3 && d.every(Boolean)"),
        "charts": "new Promise(r => { const f = () => document.querySelector('.cnb-root').dataset.charts ? "
                  "r([...document.querySelectorAll('#charts .cnb-charts[data-rendered] .cnb-chart')]"
                  ".filter(c => c.firstElementChild).length) : setTimeout(f, 100); f(); })",
        "highlight": FINDING_CLICK,
        "text": "document.body.innerText",
        "pwned": "window.__pwned",
        "injected": "document.querySelectorAll('img, [onerror], [onload]').length",
    }
    cmd = [*_offline_prefix(), sys.executable, "-m", "tests.browser.test_report_firefox", str(page), str(out),
           "--shot", str(shot), *[a for k, js in probes.items() for a in ("--probe", f"{k}={js}")]]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads(out.read_text())
    print(res["firefox"], "ready in", res["ready_s"], "s")
    assert not res.get("timed_out"), res
    p = res["probes"]
    assert len(p["draws"]) == 3 and all(d is not None and int(d) >= 1 for d in p["draws"]), p["draws"]
    assert p["charts"] >= 3
    assert int(p["highlight"]) == 40  # the first finding's evidence events
    for s in HOSTILE:
        if s.startswith("<!--") or s.startswith("<style"):
            continue  # (their text is shown where innerText does not look: canvas labels, closed <details>)
        assert s in p["text"], s
    assert p["pwned"] is None and p["injected"] == 0
    assert all(u.startswith(("file:", "blob:", "data:")) for u in res["requests"]), res["requests"]
