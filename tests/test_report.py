"""The HTML report: content, escaping, self-containedness, and a real render in headless Chromium.

Chromium (Debian package ``chromium``; ``.ci/run`` installs it) is driven over
the DevTools protocol through a pipe (``--remote-debugging-pipe``: commands on
fd 3, replies and events on fd 4, JSON messages ending in NUL), so no Python
browser package and no network port are needed.  The test collects console
errors, uncaught exceptions and error log entries, checks that both plots
rendered (plotly's SVG with drawn points and lines), and saves a screenshot
under the test's temp dir.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import queue
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import require

from graphkit.analysis import blast_radius, revocation_plan
from graphkit.build import build_graph
from graphkit.cli import app
from graphkit.model import NodeKind
from graphkit.report import (BLAST_RADIUS_DIV, REVOCATION_CURVE_DIV, blast_radius_figure, kind_layers, report_html,
                             revocation_curve_figure, write_report)

ROOT = Path(__file__).resolve().parents[1]
REPOS = str(ROOT / "examples/acme/repos")
INVENTORY = str(ROOT / "examples/acme/inventory.yaml")
SOURCE = "runner:acme/build-01-a"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
                  "--disable-extensions", "--disable-default-apps", "--hide-scrollbars", "--mute-audio",
                  "--enable-logging=stderr", "--v=0"]


@pytest.fixture(scope="module")
def graph():
    return build_graph({"github-actions": [REPOS], "runners": [INVENTORY]}).graph


@pytest.fixture(scope="module")
def report_file(graph, tmp_path_factory) -> Path:
    return write_report(graph, SOURCE, tmp_path_factory.mktemp("report") / "report.html")


# --------------------------------------------------------------------------- static checks


def test_report_is_self_contained(report_file):
    from plotly.offline import get_plotlyjs

    text = report_file.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    plotly_js = get_plotlyjs()
    assert plotly_js in text  # plotly.js is embedded inline, once
    ours = text.replace(plotly_js, "")
    # no external script, stylesheet, image or frame (the browser test also checks what is requested)
    assert not re.search(r"<(script|link|img|iframe|embed|object)[^>]+(src|href|data)=", ours, flags=re.I)
    assert "cdn." not in ours and "@import" not in ours
    assert f'id="{BLAST_RADIUS_DIV}"' in text and f'id="{REVOCATION_CURVE_DIV}"' in text
    for table in ("gk-reached", "gk-plan", "gk-choke"):
        assert f'id="{table}"' in text


def test_report_tables_hold_reached_assets_paths_and_plan(graph, report_file):
    text = report_file.read_text(encoding="utf-8")
    radius = blast_radius(graph, SOURCE)
    plan = revocation_plan(graph, SOURCE)
    reached = text.split('id="gk-reached"', 1)[1].split("</table>", 1)[0]
    assert reached.count("<tr>") == len(radius) + 1
    assert "signing_key:cosign:acme/app:COSIGN_PRIVATE_KEY" in reached
    assert "receives_job" in reached and "release.yml:33" in reached  # path and evidence
    planned = text.split('id="gk-plan"', 1)[1].split("</table>", 1)[0]
    assert planned.count("<tr>") == len(plan.steps) + 1
    assert "remove_runner_registration" in planned


def test_report_findings_section_lists_touching_findings(graph):
    from graphkit.findings import Finding, Severity
    from graphkit.model import Evidence

    f = Finding(id="GK-00000000000000aa", rule="demo-rule", title="Demo", severity=Severity.HIGH,
                message="persistent runner <b>shared</b>", subject=SOURCE,
                evidence=[Evidence(file="inventory.yaml", line=3)])
    other = Finding(id="GK-00000000000000bb", rule="demo-rule", title="Demo", severity=Severity.LOW,
                    message="unrelated", subject="repo:nobody/else")
    text = report_html(graph, SOURCE, findings=[f, other])
    section = text.split('id="gk-findings"', 1)[1].split("</table>", 1)[0]
    assert "GK-00000000000000aa" in section and "GK-00000000000000bb" not in section
    assert "&lt;b&gt;shared&lt;/b&gt;" in section  # escaped


def test_report_escapes_input_derived_text(graph):
    from graphkit.whatif import _copy

    g = _copy(graph)
    node = g.node("job:acme/docs/.github/workflows/docs.yml#build")
    g.nx.nodes[node.id]["node"] = node.model_copy(update={"name": "</script><script>alert(1)</script>"})
    text = report_html(g, SOURCE, findings=[])
    assert "<script>alert(1)" not in text


def test_layers_follow_the_model():
    layers = kind_layers()
    assert set(layers) == set(NodeKind)
    order = [NodeKind.RUNNER, NodeKind.JOB, NodeKind.OIDC_IDENTITY, NodeKind.CLOUD_ROLE, NodeKind.SIGNING_KEY]
    assert [layers[k] for k in order] == sorted(layers[k] for k in order)
    assert len({layers[k] for k in order}) == len(order)


def test_figures_mark_critical_and_possible(graph):
    radius = blast_radius(graph, SOURCE)
    fig = blast_radius_figure(graph, radius)
    nodes = {t.name: t for t in fig.data if t.mode == "markers+text"}
    assert "source" in nodes and {"signing_key", "job", "secret"} <= set(nodes)
    assert "star" in nodes["signing_key"].marker.symbol
    hover = " ".join(nodes["secret"].hovertext)
    assert "confidence: possible" in hover and "lifetime: until_rotated" in hover and "evidence:" in hover
    plan = revocation_plan(graph, SOURCE)
    curve = revocation_curve_figure(plan)
    assert list(curve.data[0].y) == [plan.initial_weight] + [s.residual_weight for s in plan.steps]
    # the autoscaler's token (it re-registers runners) comes first, then the compromised registration
    assert "rotate_credential" in curve.layout.xaxis.ticktext[1]
    assert any("remove_runner_registration" in t for t in curve.layout.xaxis.ticktext[2:])


def test_cli_report(tmp_path):
    out = tmp_path / "r.html"
    g = tmp_path / "g.json"
    runner = CliRunner()
    assert runner.invoke(app, ["build", "--github-actions", REPOS, "--runners", INVENTORY, "-o", str(g)]).exit_code == 0
    res = runner.invoke(app, ["report", "--graph", str(g), "--from", SOURCE, "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert out.stat().st_size > 1_000_000 and str(out) in res.output
    res = runner.invoke(app, ["report", "--graph", str(g), "--from", "runner:acme/nope", "-o", str(out)])
    assert res.exit_code == 2 and "did you mean" in res.output


# --------------------------------------------------------------------------- headless Chromium


class DevTools:
    """A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe``."""

    def __init__(self, binary: str, profile: Path, log: Path) -> None:
        to_chrome_r, to_chrome_w = os.pipe()
        from_chrome_r, from_chrome_w = os.pipe()

        def remap() -> None:  # in the child: its fd 3 reads our commands, its fd 4 writes replies
            a = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self._log = open(log, "wb")
        self.proc = subprocess.Popen([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                                      "--remote-debugging-pipe", "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
                                     preexec_fn=remap, close_fds=False)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._w = os.fdopen(to_chrome_w, "wb", buffering=0)
        self._r = os.fdopen(from_chrome_r, "rb", buffering=0)
        self._next = 0
        self._replies: dict[int, queue.Queue] = {}
        self.events: list[dict] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buf = b""
        while True:
            chunk = self._r.read(65536)
            if not chunk:
                return
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    with self._lock:
                        q = self._replies.get(msg["id"])
                    if q is not None:
                        q.put(msg)
                else:
                    self.events.append(msg)

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 30) -> dict:
        with self._lock:
            self._next += 1
            mid = self._next
            q: queue.Queue = queue.Queue()
            self._replies[mid] = q
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self._w.write(json.dumps(msg).encode() + b"\0")
        reply = q.get(timeout=timeout)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait_event(self, method: str, timeout: float = 30) -> dict:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for ev in list(self.events):
                if ev.get("method") == method:
                    return ev
            time.sleep(0.05)
        raise TimeoutError(method)

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except Exception:  # noqa: BLE001 - best effort, then kill
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._log.close()


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    require(path, "chromium not installed (apt-get install -y chromium; .ci/run installs it)")
    return path  # type: ignore[return-value]


_PLOT_STATE = """(() => {
  const out = {plotly: typeof window.Plotly === 'object' && !!window.Plotly.newPlot, plots: {}};
  for (const id of %s) {
    const div = document.getElementById(id);
    if (!div) { out.plots[id] = null; continue; }
    const svg = div.querySelector('svg.main-svg');
    const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
    out.plots[id] = {
      svgs: div.querySelectorAll('svg.main-svg').length,
      width: box.width, height: box.height,
      traces: div.querySelectorAll('g.scatterlayer g.trace').length,
      points: div.querySelectorAll('g.scatterlayer path.point').length,
      lines: [...div.querySelectorAll('g.scatterlayer path.js-line')].filter(p => (p.getAttribute('d') || '').length > 10).length,
      texts: div.querySelectorAll('g.scatterlayer text').length,
      ticks: div.querySelectorAll('g.xtick text').length,
    };
  }
  return JSON.stringify(out);
})()"""


def test_report_renders_in_headless_chromium(report_file, tmp_path):
    binary = _chromium()
    browser = DevTools(binary, tmp_path / "profile", tmp_path / "chromium.log")
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            browser.send(f"{domain}.enable", session=session)
        browser.send("Emulation.setDeviceMetricsOverride",
                      {"width": 1700, "height": 2000, "deviceScaleFactor": 1, "mobile": False}, session=session)
        browser.send("Page.navigate", {"url": report_file.as_uri()}, session=session)
        browser.wait_event("Page.loadEventFired", timeout=60)
        ids = json.dumps([BLAST_RADIUS_DIV, REVOCATION_CURVE_DIV])
        state: dict = {}
        end = time.monotonic() + 30
        while time.monotonic() < end:
            res = browser.send("Runtime.evaluate", {"expression": _PLOT_STATE % ids, "returnByValue": True},
                               session=session)
            state = json.loads(res["result"]["value"])
            if all(p and p["points"] for p in state["plots"].values()):
                break
            time.sleep(0.2)
        time.sleep(0.5)  # let late console messages arrive
        shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
        png = tmp_path / "report.png"
        png.write_bytes(base64.b64decode(shot["data"]))
        if os.environ.get("GRAPHKIT_SCREENSHOT"):  # keep a copy to look at
            shutil.copy(png, os.environ["GRAPHKIT_SCREENSHOT"])
    finally:
        browser.close()

    errors = []
    for ev in browser.events:
        params = ev.get("params", {})
        if ev.get("method") == "Runtime.exceptionThrown":
            errors.append(params["exceptionDetails"].get("exception", {}).get("description")
                          or params["exceptionDetails"].get("text"))
        elif ev.get("method") == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            errors.append(" ".join(str(a.get("value", a.get("description"))) for a in params.get("args", [])))
        elif ev.get("method") == "Log.entryAdded" and params["entry"]["level"] == "error":
            errors.append(params["entry"]["text"] + " " + params["entry"].get("url", ""))
    assert errors == [], errors
    requested = {ev["params"]["request"]["url"].split(":", 1)[0] for ev in browser.events
                 if ev.get("method") == "Network.requestWillBeSent"}
    assert requested <= {"file", "data", "about", "blob"}, requested  # nothing from the network

    assert state["plotly"], state
    graph_plot, curve = state["plots"][BLAST_RADIUS_DIV], state["plots"][REVOCATION_CURVE_DIV]
    for plot in (graph_plot, curve):
        assert plot and plot["svgs"] >= 1 and plot["width"] > 400 and plot["height"] > 300, state
    # 42 reached + 1 source markers, plus edge midpoints; edges drawn as lines; labels shown
    assert graph_plot["points"] >= 43 and graph_plot["lines"] >= 2 and graph_plot["texts"] >= 43, state
    assert curve["points"] >= 3 and curve["lines"] >= 1 and curve["ticks"] >= 3, state

    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000
