"""Hostile names stay inert: stored verbatim, shown escaped on a real terminal, inert in the HTML report
(checked in headless Chromium), escaped in SARIF, and sent to Neo4j only as parameters.

Names come from whoever can push a workflow or write an inventory: job names and keys, runner names and
labels, runner groups, environments, cache paths.  Each hostile value below is planted in several of them.
The terminal checks follow ECMA-48 (ESC/CSI/OSC control functions) and Unicode TR #9 (bidi overrides, the
"Trojan Source" CVE-2021-42574).
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
import yaml

from graphkit.build import build_graph
from graphkit.findings import run_rules
from graphkit.graph import Graph
from graphkit.model import NodeKind, ids
from graphkit.redact import fingerprint

#: Hostile values, by what they try.
HOSTILE = {
    "quote": "q\"uo'te`whoami`${x}{{7*7}}",
    "newline": "line1\nforged | row | here",
    "cypher": "x'}) MATCH (n) DETACH DELETE n //",
    "html": "</script><script>window.__pwned=1</script><img src=x onerror=window.__pwned=2>",
    "ansi": "esc\x1b]0;pwned-title\x07\x1b[2J\x1b[31mred\x9b2J",
    "rtl": "abc\u202etxt.exe",
    "long": "L" * 10_000,
}
LABELS = ["self-hosted", HOSTILE["quote"], HOSTILE["html"], HOSTILE["ansi"], HOSTILE["rtl"]]
SOURCE = "runner:acme/plain"
HOSTILE_RUNNER = "r" + HOSTILE["ansi"]


def write_inputs(root: Path) -> dict[str, list[Path]]:
    """A checkout whose workflow carries every hostile value (workflow name, job names and keys, environments,
    labels) and an inventory with hostile runner, group and cache names."""
    wf = root / "repos" / "acme__app" / ".github" / "workflows"
    wf.mkdir(parents=True)
    jobs: dict[str, dict] = {f"job-{k}": {"name": v, "runs-on": LABELS, "environment": v if k != "long" else "prod",
                                          "steps": [{"run": "echo ${{ secrets.TOKEN }}"}]} for k, v in HOSTILE.items()}
    jobs[HOSTILE["quote"]] = {"runs-on": LABELS, "steps": [{"run": "make"}]}
    (wf / "ci.yml").write_text(yaml.safe_dump({"name": HOSTILE["html"] + HOSTILE["ansi"], "on": "push",
                                               "jobs": jobs}, allow_unicode=True), encoding="utf-8")
    inv = {"schema": "graphkit.runner-inventory/v1",
           "organizations": [{"name": "acme", "runner_groups": [{"name": HOSTILE["html"], "visibility": "all"}]}],
           "repositories": [{"full_name": "acme/app", "visibility": "private"}],
           "hosts": [{"name": "build-1", "caches": [{"path": "/opt/" + HOSTILE["ansi"], "kind": "toolcache"}]}],
           "runners": [{"name": n, "labels": LABELS, "scope": "acme", "runner_group": HOSTILE["html"],
                        "ephemeral": False, "host": "build-1"} for n in (HOSTILE_RUNNER, "plain")]}
    (root / "inv.json").write_text(json.dumps(inv), encoding="utf-8")
    # an ARC scale set (issue 15): its name, labels and runner group are free text in the manifest
    ars = {"apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
           "metadata": {"name": "arc", "namespace": "ci"},
           "spec": {"githubConfigUrl": "https://github.com/acme", "githubConfigSecret": "arc-app",
                    "runnerScaleSetName": "s" + HOSTILE["ansi"], "runnerScaleSetLabels": LABELS[1:],
                    "runnerGroup": HOSTILE["html"],
                    "template": {"spec": {"containers": [{"name": HOSTILE["rtl"], "securityContext": {"privileged": True}}]}}}}
    (root / "k8s").mkdir()
    (root / "k8s" / "arc.yaml").write_text(yaml.safe_dump(ars, allow_unicode=True), encoding="utf-8")
    return {"github-actions": [root / "repos"], "runners": [root / "inv.json"], "k8s": [root / "k8s"],
            "github-history": [write_history(root / "snapshot")]}


def write_history(root: Path) -> Path:
    """A job history (GitHub REST shapes, https://docs.github.com/en/rest/actions/workflow-jobs) whose actor,
    event, branch and job names are hostile: one run of a hostile-named job and one unjoinable hostile job, both
    on the source runner, and a registration of the hostile runner in the audit log."""
    repo = root / "history" / "acme" / "app"
    (repo / "jobs").mkdir(parents=True)
    (root / "audit-log").mkdir()
    run = {"id": 1, "path": ".github/workflows/ci.yml", "event": HOSTILE["newline"], "head_branch": HOSTILE["rtl"],
           "actor": {"login": HOSTILE["ansi"]}, "run_started_at": "2026-11-30T09:00:00Z"}
    (repo / "runs.json").write_text(json.dumps({"total_count": 1, "workflow_runs": [run]}), encoding="utf-8")
    jobs = [{"id": 10 + i, "run_id": 1, "name": name, "runner_name": "plain", "runner_group_name": HOSTILE["html"],
             "labels": ["self-hosted"], "started_at": "2026-11-30T09:01:00Z", "completed_at": "2026-11-30T09:02:00Z"}
            for i, name in enumerate((HOSTILE["html"], HOSTILE["ansi"] + HOSTILE["cypher"]))]
    (repo / "jobs" / "1.json").write_text(json.dumps({"total_count": 2, "jobs": jobs}), encoding="utf-8")
    event = {"action": "org.register_self_hosted_runner", "actor": HOSTILE["html"], "org": "acme",
             "runner_name": HOSTILE_RUNNER, "actor_location": {"country_code": HOSTILE["rtl"]},
             "@timestamp": 1796000000000}
    (root / "audit-log" / "acme.json").write_text(json.dumps([event]), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> tuple[Path, Graph]:
    """``(folder, graph)``: the inputs built and saved as ``folder/g.json``."""
    root = tmp_path_factory.mktemp("hostile")
    result = build_graph(write_inputs(root))
    # a job key GitHub refuses (it allows a letter or _, then letters, digits, - or _) is a named problem at its
    # line, never a job: https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_id
    [problem] = [p.as_dict() for p in result.problems]
    assert problem["place"] == f"jobs.{HOSTILE['quote']}" and problem["file"].endswith("ci.yml")
    assert problem["reason"].endswith("job skipped (line 53)") and "GitHub refuses the workflow file" in problem["reason"]
    result.graph.save(root / "g.json")
    return root, result.graph


def test_names_are_stored_verbatim(hostile):
    root, graph = hostile
    jobs = {n.job_key: n.name for n in graph.nodes(NodeKind.JOB)}
    assert {jobs[f"job-{k}"] for k in HOSTILE} == set(HOSTILE.values())
    assert HOSTILE["quote"] not in jobs  # a job key GitHub refuses is a problem (the fixture), never a job
    arc = [n for n in graph.nodes(NodeKind.RUNNER) if n.name == "s" + HOSTILE["ansi"]]  # an ARC scale set
    assert len(arc) == 1 and HOSTILE["html"] in arc[0].labels and arc[0].pods.escapes == [
        f"spec.template.spec.containers[0].securityContext.privileged: privileged container {HOSTILE['rtl']}"]
    loaded = Graph.load(root / "g.json")
    assert {n.id: n.name for n in loaded.nodes()} == {n.id: n.name for n in graph.nodes()}
    runner = graph.node(ids.runner("acme", HOSTILE_RUNNER))
    assert runner.name == HOSTILE_RUNNER and set(runner.labels) == set(LABELS)


# --------------------------------------------------------------------------- terminal (a real pty)


def run_on_pty(args: list[str], cwd: Path, columns: int = 200) -> str:
    """Run ``graphkit ARGS`` with stdout and stderr on a pseudo-terminal of ``columns`` columns; its output."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 60, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR", "TERM")}
    env["TERM"] = "xterm-256color"
    # the checkout under test, not whichever one the environment has installed
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[1]), env.get("PYTHONPATH")]))
    proc = subprocess.Popen([sys.executable, "-m", "graphkit.cli", *args], cwd=cwd, stdin=slave, stdout=slave,
                            stderr=slave, env=env, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    proc.wait(timeout=120)
    return b"".join(chunks).decode("utf-8", "replace")


#: What a terminal would obey: OSC (retitle), clear screen, BEL, one-byte CSI, bidi override.
OBEYED = ("\x1b]", "\x1b[2J", "\x07", "\x9b", "\u202e")


def assert_inert(text: str) -> None:
    for seq in OBEYED:
        assert seq not in text, f"{seq!r} reached the terminal"
    forged = [line for line in text.splitlines() if line.strip().startswith("forged")]
    assert forged == [], f"a newline in a name forged a line: {forged}"


@pytest.mark.parametrize("args", [
    ["nodes", "--graph", "g.json"],
    ["nodes", "--graph", "g.json", "--format", "json"],
    ["blast-radius", "--graph", "g.json", "--from", SOURCE],
    ["blast-radius", "--graph", "g.json", "--from", SOURCE, "--format", "json"],
    ["blast-radius", "--graph", "g.json", "--from", SOURCE, "--format", "runbook"],
    ["findings", "--graph", "g.json"],
    ["findings", "--graph", "g.json", "--format", "sarif"],
], ids=lambda a: "-".join(a[:1] + a[3:][-1:]))
def test_terminal_shows_names_escaped_on_a_pty(hostile, args):
    root, _ = hostile
    text = run_on_pty(args, root)
    assert_inert(text)
    if "runbook" in args:  # the runbook writes controls as spaces: inert, and the name still shown
        assert "pwned-title" in text
    elif "json" not in args and "sarif" not in args:
        assert "\\x1b]0;pwned-title\\x07" in text, text[:3000]  # shown, as escapes
        if args[0] == "nodes":  # a name is cut at 300 characters on the terminal, with its length
            assert "L" * 10_000 not in text and "(name of 10000 characters, cut)" in text
        assert "\\u202e" in text or args[0] == "findings", text[:3000]
        assert "exposed by: " in text or args[0] != "blast-radius", text[:3000]  # hostile history names too
    else:
        # JSON escapes the name; SARIF's message also escapes its brackets (the runner id percent-encodes it)
        assert ("\\u001b]0;pwned-title\\u0007" in text or "\\\\x1b]0;pwned-title" in text
                or "\\\\x1b\\\\]0;pwned-title" in text), text[:3000]


def test_problem_lines_and_errors_are_escaped_on_a_pty(tmp_path):
    bad = tmp_path / ("inv\x1b]0;pwned-title\x07\u202e.yaml")
    bad.write_text("schema: graphkit.runner-inventory/v1\nrunners: 3\n", encoding="utf-8")
    text = run_on_pty(["build", "--runners", str(bad), "-o", str(tmp_path / "g.json")], tmp_path)
    assert_inert(text)
    assert "pwned-title" in text  # the file is named, escaped


def test_unknown_source_suggestion_is_escaped_on_a_pty(hostile):
    root, _ = hostile
    text = run_on_pty(["blast-radius", "--graph", "g.json", "--from", "runner:acme/resc"], root)
    assert_inert(text)


# --------------------------------------------------------------------------- SARIF


def test_sarif_messages_escape_links_and_controls(hostile):
    from graphkit.export import sarif_document

    _, graph = hostile
    found = run_rules(graph)
    doc = json.loads(json.dumps(sarif_document(found)))
    texts = [r["message"]["text"] for run in doc["runs"] for r in run["results"]]
    mine = [t for t in texts if "pwned-title" in t]
    assert mine, "a finding names the hostile runner"
    for t in texts:
        assert not any(c in t for c in OBEYED) and "\n" not in t
        # plain text (SARIF 3.11): brackets as written, escaped only where ``](`` could close an embedded link
        # (3.11.6), so no hostile name forms one
        assert "[" not in t.replace("\\[", "") if "](" in t else "\\[" not in t
    finding = next(f for f in found if "pwned-title" in f.message)
    assert HOSTILE["ansi"] in finding.message  # the finding itself keeps the name verbatim


# --------------------------------------------------------------------------- HTML report in Chromium


def test_html_report_runs_no_planted_script_in_chromium(hostile, tmp_path):
    from graphkit.report import write_report
    from test_report import DevTools, _chromium

    _, graph = hostile
    report = tmp_path / "report.html"
    write_report(graph, [SOURCE], report)
    binary = _chromium()
    browser = DevTools(binary, tmp_path / "profile", tmp_path / "chromium.log")
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime"):
            browser.send(f"{domain}.enable", session=session)
        browser.send("Page.navigate", {"url": report.as_uri()}, session=session)
        browser.wait_event("Page.loadEventFired", timeout=60)
        time.sleep(1.0)  # plotly draws after load: hover texts and labels are in the DOM by then
        probe = ("JSON.stringify({pwned: window.__pwned === undefined ? null : window.__pwned, "
                 "text: document.body.innerText, svg: [...document.querySelectorAll('svg text')]"
                 ".map(t => t.textContent).join('\\n'), imgs: document.querySelectorAll('img').length})")
        state = json.loads(browser.send("Runtime.evaluate", {"expression": probe, "returnByValue": True},
                                        session=session)["result"]["value"])
    finally:
        browser.close()
    dialogs = [e for e in browser.events if e.get("method") == "Page.javascriptDialogOpening"]
    assert state["pwned"] is None and dialogs == [] and state["imgs"] == 0, state["pwned"]
    assert "</script><script>window.__pwned=1</script>" in state["text"]  # shown as text
    assert "\u202e" not in state["text"] + state["svg"] and "abc\\u202etxt.exe" in state["text"]  # no reordering


# --------------------------------------------------------------------------- Neo4j


def test_neo4j_receives_names_only_as_parameters(hostile, bolt):
    from graphkit.neo4j.connection import connect
    from graphkit.neo4j.sync import sync_graph
    from neo4j_helpers import settings, wipe

    _, graph = hostile
    s = settings(bolt)
    with connect(s) as driver:
        wipe(driver, s.database)
        sync_graph(driver, graph, database=s.database)
        with driver.session(database=s.database) as session:
            rows = session.run("MATCH (j:Job) RETURN j.job_key AS key, j.name AS name").data()
            total = session.run("MATCH (n) WHERE n.id IS NOT NULL RETURN count(n) AS n").single()["n"]
        wipe(driver, s.database)
    assert {r["key"]: r["name"] for r in rows} == {n.job_key: n.name for n in graph.nodes(NodeKind.JOB)}
    assert total >= len(list(graph.nodes()))  # nothing was deleted by a name


def test_token_shaped_names_are_marked_alike_in_every_source_and_still_route(tmp_path):
    """A token pasted where a name belongs (a runner's name, labels and host in an inventory, an ARC scale set's
    name in a manifest, the ``runs-on`` labels asking for them) is stored nowhere: each source marks it as
    ``***`` and the keyed fingerprint of the value (:func:`graphkit.redact.mark_tokens`, in the model), so the
    workflow's label still meets the inventory's and the scale set's, certain (newuser-s29 defects 6 and 7)."""
    tok = "ghp_" + "HOSTILE" + "7" * 29  # built here: no tracked file holds a token-shaped string
    mark = "***" + fingerprint(tok.encode())
    wf = tmp_path / "repos" / "acme__app" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "ci.yml").write_text(yaml.safe_dump({"on": "push", "jobs": {
        "a": {"runs-on": ["self-hosted", f"lbl-{tok}"], "steps": [{"run": "make"}]},
        "b": {"runs-on": f"arc-{tok}", "steps": [{"run": "make"}]}}}), encoding="utf-8")
    inv = {"schema": "graphkit.runner-inventory/v1",
           "organizations": [{"name": "acme", "runner_groups": [{"name": "Default", "visibility": "all"}]}],
           "repositories": [{"full_name": "acme/app", "visibility": "private"}],
           "hosts": [{"name": f"h-{tok}", "caches": [{"path": f"/opt/{tok}/cache", "kind": "toolcache"}]}],
           "runners": [{"name": f"r-{tok}", "labels": ["self-hosted", f"lbl-{tok}"], "scope": "acme",
                        "runner_group": "Default", "ephemeral": False, "host": f"h-{tok}"}]}
    (tmp_path / "inv.json").write_text(json.dumps(inv), encoding="utf-8")
    (tmp_path / "k8s").mkdir()
    (tmp_path / "k8s" / "arc.yaml").write_text(yaml.safe_dump({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "metadata": {"name": "arc", "namespace": "ci"},
        "spec": {"githubConfigUrl": "https://github.com/acme", "githubConfigSecret": "arc-app",
                 "runnerScaleSetName": f"arc-{tok}", "runnerGroup": "Default", "template": {"spec": {"containers": [{"name": "runner"}]}}}}),
        encoding="utf-8")
    result = build_graph({"github-actions": [tmp_path / "repos"], "runners": [tmp_path / "inv.json"],
                          "k8s": [tmp_path / "k8s"]})
    g = result.graph
    g.save(tmp_path / "g.json")
    assert "hostile7" not in (tmp_path / "g.json").read_text(encoding="utf-8").lower()
    routed = {(e.source, e.target.rsplit("#", 1)[1], e.confidence.value) for e in g.edges()
              if e.kind.value == "receives_job"}
    arc = next(n for n in g.nodes(NodeKind.RUNNER) if n.name == f"arc-{mark}")
    rid = ids.runner("acme", f"r-{tok}")  # made from the raw name: the id the graph holds
    assert rid == ids.runner("acme", f"r-{mark}") and mark in rid
    # the scale set takes its name's jobs possible, as under a plain name (its registration is not observed)
    assert routed == {(rid, "a", "certain"), (arc.id, "b", "possible")}
    assert not [n.id for n in g.nodes(NodeKind.RUNNER) if n.inferred]
    runner = g.node(rid)
    folded = "***" + fingerprint(tok.lower().encode())  # labels are case-insensitive: fingerprinted lower-cased
    assert runner.labels == ["self-hosted", f"lbl-{folded}"] and runner.host == f"h-{mark}"
    assert g.node(ids.host(f"h-{tok}")).name == f"h-{mark}"
    assert ids.cache_host(f"h-{tok}", f"/opt/{tok}/cache") in {n.id for n in g.nodes(NodeKind.CACHE)}
    assert mark in ids.cache_host(f"h-{tok}", f"/opt/{tok}/cache")


def test_token_shaped_labels_that_differ_only_in_case_still_route(tmp_path):
    """GitHub runner labels are case-insensitive ("Labels are case-insensitive",
    https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/using-labels-with-self-hosted-runners):
    a token-shaped label is fingerprinted case-folded on both sides (:func:`graphkit.redact.mark_tokens` ``fold``),
    so ``runs-on`` spelled in another case, even all upper-case (``LBL-GHP_...``, which the token format alone
    does not match), still reaches the runner certain, no job is queued forever, and no output holds the token
    (newuser2-s29 defect 1)."""
    tok = "ghp_" + "QQQQrrrrSSSSttttUUUUvvvvWWWWxxxx5678"
    wf = tmp_path / "repos" / "acme__app" / ".github" / "workflows"
    wf.mkdir(parents=True)
    jobs = {"exact": f"lbl-{tok}", "lower": f"lbl-{tok.lower()}", "upper": f"LBL-{tok.upper()}", "control": "LBL-PLAIN"}
    (wf / "w.yml").write_text(yaml.safe_dump({"on": "push", "jobs": {
        k: {"runs-on": ["self-hosted", v], "steps": [{"run": "make"}]} for k, v in jobs.items()}}), encoding="utf-8")
    inv = {"schema": "graphkit.runner-inventory/v1",
           "organizations": [{"name": "acme", "runners_complete": True,
                              "runner_groups": [{"name": "Default", "visibility": "all"}]}],
           "repositories": [{"full_name": "acme/app", "visibility": "private"}],
           "runners": [{"name": "r1", "labels": ["self-hosted", "Linux", "lbl-plain", f"lbl-{tok}"], "scope": "acme",
                        "runner_group": "Default", "ephemeral": False}]}
    (tmp_path / "inv.json").write_text(json.dumps(inv), encoding="utf-8")
    g = build_graph({"github-actions": [tmp_path / "repos"], "runners": [tmp_path / "inv.json"]}).graph
    routed = {(e.source, e.target.rsplit("#", 1)[1], e.confidence.value) for e in g.edges()
              if e.kind.value == "receives_job"}
    assert routed == {("runner:acme/r1", k, "certain") for k in jobs}
    assert not [n.id for n in g.nodes(NodeKind.RUNNER) if n.inferred]
    assert [f.subject for f in run_rules(g) if f.rule == "runs-on-queued-forever"] == []
    folded = "***" + fingerprint(tok.lower().encode())
    assert g.node("runner:acme/r1").labels == ["self-hosted", "Linux", "lbl-plain", f"lbl-{folded}"]
    labels = {n.job_key: n.runs_on[0].labels for n in g.nodes(NodeKind.JOB)}
    assert labels["upper"] == ("self-hosted", f"LBL-{folded}") and labels["lower"] == ("self-hosted", f"lbl-{folded}")
    g.save(tmp_path / "g.json")
    assert "qqqqrrrr" not in (tmp_path / "g.json").read_text(encoding="utf-8").lower()
    # an excerpt quoting the upper-cased value (an environment name, a label) is marked alike
    from graphkit.model import Evidence
    assert Evidence(file="w.yml", detail=f"environment: PROD-{tok.upper()}").detail == f"environment: PROD-{folded}"
