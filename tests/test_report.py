"""The HTML report: content, escaping, self-containedness, and a real render in headless Chromium.

Chromium (Debian package ``chromium``; ``.ci/run`` installs it) is driven over
the DevTools protocol through a pipe (``--remote-debugging-pipe``: commands on
fd 3, replies and events on fd 4, JSON messages ending in NUL), so no Python
browser package and no network port are needed.  The browser tests render the
report at 1 source (the README Quickstart graph) and at 25 sources (the corpus
workflows with a generated 25-runner inventory, ``tests/report_scale.py``),
assert on the DOM (element counts, folded groups, focus, no legend over the
headers, no label over another, no two arcs of one layer on one line), collect
console errors, uncaught exceptions, error log entries and requests, and save
PNG screenshots to ``$GRAPHKIT_ARTIFACTS`` (the CI artifact dir) or
``tests/artifacts/`` (gitignored).
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
    # the README Quickstart's inputs, IAM included
    return build_graph({"github-actions": [REPOS], "runners": [INVENTORY],
                        "aws-iam": [str(ROOT / "examples/acme/aws-iam.json")]}).graph


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
        # a cold start of Debian's chromium (its launcher script, then D-Bus lookups that time out on a machine
        # without a bus) has taken 30 s on a loaded CI machine: wait for the browser once, generously
        self.send("Browser.getVersion", timeout=180)

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


def artifacts_dir() -> Path:
    """Where the screenshots go: ``$GRAPHKIT_ARTIFACTS`` (the CI artifact dir) or ``tests/artifacts/`` (gitignored)."""
    path = Path(os.environ.get("GRAPHKIT_ARTIFACTS") or ROOT / "tests" / "artifacts")
    path.mkdir(parents=True, exist_ok=True)
    return path


class Page:
    """One tab of headless Chromium on a file: evaluate scripts, take screenshots, collect errors and requests."""

    def __init__(self, browser: DevTools, file: Path, width: int, height: int) -> None:
        self.browser = browser
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            browser.send(f"{domain}.enable", session=self.session)
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=self.session)
        browser.send("Page.navigate", {"url": file.as_uri()}, session=self.session)
        browser.wait_event("Page.loadEventFired", timeout=60)

    def eval(self, expression: str):
        res = self.browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True},
                                session=self.session)
        assert "exceptionDetails" not in res, res
        return res["result"].get("value")

    def wait(self, expression: str, timeout: float = 30) -> None:
        end = time.monotonic() + timeout
        while not self.eval(expression):
            assert time.monotonic() < end, f"timed out waiting for {expression}"
            time.sleep(0.2)

    def screenshot(self, path: Path, selector: str | None = None) -> Path:
        """A PNG of the page, or of the element matching ``selector`` (whole, beyond the viewport)."""
        params: dict = {"format": "png", "captureBeyondViewport": selector is not None}
        if selector:
            box = json.loads(self.eval(f"JSON.stringify((() => {{ const r = document.querySelector({json.dumps(selector)})"
                                       ".getBoundingClientRect(); return {x: r.x + scrollX, y: r.y + scrollY, "
                                       "width: r.width, height: r.height}; })())"))
            params["clip"] = {**box, "scale": 1}
        path.write_bytes(base64.b64decode(self.browser.send("Page.captureScreenshot", params,
                                                            session=self.session)["data"]))
        return path


def browser_errors(browser: DevTools) -> list[str]:
    """Uncaught exceptions, console errors and error log entries of every tab."""
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
    return errors


def requested_schemes(browser: DevTools) -> set[str]:
    """URL schemes of every request of every tab so far."""
    return {ev["params"]["request"]["url"].split(":", 1)[0] for ev in browser.events
            if ev.get("method") == "Network.requestWillBeSent"}


#: What the blast-radius view drew: counts, folded groups, boxes of the legend, headers and labels, and the
#: intra-layer edges that share a stretch of line (sampled along each path).
_VIEW_STATE = """(() => {
  const v = document.getElementById(%s);
  const q = s => [...v.querySelectorAll(s)];
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const hit = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
  const labels = q('g.gk-node text.gk-label, g.gk-group text.gk-label, g.gk-handle text.gk-label').map(box);
  let labelOverlaps = 0;
  for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++)
    if (hit(labels[i], labels[j])) labelOverlaps++;
  const intra = q('path.gk-edge.gk-intra').map(p => {
    const n = p.getTotalLength(), pts = [];
    for (let k = 1; k < 20; k++) { const t = p.getPointAtLength(n * k / 20); pts.push([t.x, t.y]); }
    return pts;
  });
  let shared = 0;
  for (let i = 0; i < intra.length; i++) for (let j = i + 1; j < intra.length; j++) {
    const near = intra[i].filter(a => intra[j].some(b => Math.hypot(a[0] - b[0], a[1] - b[1]) < 2)).length;
    if (near >= 6) shared++;
  }
  const headers = q('text.gk-header').map(box), legend = box(document.getElementById('gk-legend'));
  const curve = document.getElementById(%s);
  return JSON.stringify({
    svg: q('svg.gk-svg').length, nodes: q('g.gk-node').length, sources: q('g.gk-source').length,
    groups: q('g.gk-group').length, collapsed: q('g.gk-group[data-collapsed="true"]').length,
    folded: q('g.gk-group').reduce((s, g) => s + Number(g.dataset.count), 0), handles: q('g.gk-handle').length,
    edges: q('path.gk-edge').length, chain: q('path.gk-edge.gk-chain').length, intra: intra.length,
    rogue: q('g.gk-rogue').map(g => g.dataset.id), headers: headers.length,
    legendOverHeaders: headers.filter(h => hit(h, legend)).length, labelOverlaps, sharedIntra: shared,
    legendKeys: document.querySelectorAll('#gk-legend .gk-key').length,
    focus: v.dataset.focus, shown: document.getElementById('gk-shown').textContent,
    curvePoints: curve ? curve.querySelectorAll('g.scatterlayer path.point').length : 0,
    curveTicks: curve ? curve.querySelectorAll('g.xtick text').length : 0,
  });
})()"""


def view_state(page: Page) -> dict:
    return json.loads(page.eval(_VIEW_STATE % (json.dumps(BLAST_RADIUS_DIV), json.dumps(REVOCATION_CURVE_DIV))))


def _focus(page: Page, index: int) -> None:
    page.eval(f"(() => {{ const s = document.getElementById('gk-focus'); s.value = '{index}'; "
              "s.dispatchEvent(new Event('change')); return true; })()")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    b = DevTools(_chromium(), tmp_path_factory.mktemp("profile"), tmp_path_factory.mktemp("log") / "chromium.log")
    yield b
    b.close()


def _open(browser: DevTools, file: Path) -> Page:
    page = Page(browser, file, 1700, 1100)
    page.wait(f"document.querySelectorAll('#{BLAST_RADIUS_DIV} g.gk-node').length > 0 && "
              f"document.querySelectorAll('#{REVOCATION_CURVE_DIV} g.scatterlayer path.point').length > 0")
    return page


def _readable(state: dict) -> None:
    """What every rendering must hold: no legend over a header, no label over another, no two arcs of one
    layer on one line, a legend, the curve."""
    assert state["svg"] == 1 and state["headers"] >= 3 and state["legendKeys"] >= 8, state
    assert state["legendOverHeaders"] == 0 and state["labelOverlaps"] == 0 and state["sharedIntra"] == 0, state
    assert state["curvePoints"] >= 3 and state["curveTicks"] >= 3, state


def test_report_renders_one_source_in_headless_chromium(browser, graph, report_file):
    page = _open(browser, report_file)
    state = view_state(page)
    page.screenshot(artifacts_dir() / "report-1-source.png", ".gk-controls ~ .gk-view")
    page.screenshot(artifacts_dir() / "report-1-source-page.png")
    radius = blast_radius(graph, SOURCE)
    _readable(state)
    # a small radius is drawn unfolded: every reached node and the source
    assert state["nodes"] == len(radius) + 1 and state["collapsed"] == 0 and state["sources"] == 1, state
    assert state["chain"] >= 2 and state["edges"] > len(radius), state  # build-01's caches to the release job
    assert state["rogue"] == []
    # folding a group: its handle folds it
    page.eval("document.querySelector('g.gk-handle').dispatchEvent(new MouseEvent('click')) || true")
    folded = view_state(page)
    assert folded["collapsed"] == 1 and folded["nodes"] + folded["folded"] == len(radius) + 1, folded
    assert browser_errors(browser) == []
    assert requested_schemes(browser) <= {"file", "data", "about", "blob"}  # nothing from the network


@pytest.fixture(scope="module")
def scale(tmp_path_factory):
    from report_scale import CORPUS, build_scale, scale_sources

    require((CORPUS / "github-actions").is_dir(), f"corpus not present at {CORPUS}", corpus=True)
    result = build_scale(tmp_path_factory.mktemp("scale"))
    sources = scale_sources(result)
    path = write_report(result.graph, sources, tmp_path_factory.mktemp("report25") / "report.html")
    return result.graph, sources, path


def test_report_renders_25_sources_from_the_corpus_in_headless_chromium(browser, scale):
    graph, sources, path = scale
    assert len(sources) == 25
    radius = blast_radius(graph, sources)
    assert len(radius) + len(sources) >= 150
    page = _open(browser, path)
    state = view_state(page)
    page.screenshot(artifacts_dir() / "report-25-sources.png", ".gk-controls ~ .gk-view")
    page.screenshot(artifacts_dir() / "report-25-sources-page.png")
    page.screenshot(artifacts_dir() / "report-25-sources-curve.png", f"#{REVOCATION_CURVE_DIV}")
    _readable(state)
    # folded by kind and owner: far fewer items than nodes, every node still counted once
    assert state["collapsed"] >= 5 and state["nodes"] + state["folded"] == len(radius) + len(sources), state
    assert state["nodes"] + state["groups"] < (len(radius) + len(sources)) / 2, state
    assert sorted(state["rogue"]) == ["runner:evil-corp/pt-build-01-x", "runner:pytorch/pt-shadow"], state
    assert state["chain"] >= 1, state
    # a click on a folded group expands it in place
    before = state
    page.eval("document.querySelector('g.gk-group').dispatchEvent(new MouseEvent('click')) || true")
    after = view_state(page)
    assert after["collapsed"] == before["collapsed"] - 1 and after["handles"] == before["handles"] + 1, after
    assert after["nodes"] + after["folded"] == before["nodes"] + before["folded"], after
    # focus on one source: only its own blast radius
    i = sources.index("runner:pytorch/pt-00")
    _focus(page, i)
    focused = view_state(page)
    page.screenshot(artifacts_dir() / "report-25-sources-focus.png", ".gk-controls ~ .gk-view")
    assert focused["focus"] == "runner:pytorch/pt-00", focused
    assert page.eval("document.querySelector('g.gk-focused').dataset.id") == "runner:pytorch/pt-00"
    assert focused["nodes"] + focused["folded"] == len(blast_radius(graph, sources[i])) + 1, focused
    _readable(focused)
    assert browser_errors(browser) == []
    assert requested_schemes(browser) <= {"file", "data", "about", "blob"}  # nothing from the network
