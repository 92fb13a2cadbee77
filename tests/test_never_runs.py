"""A job (or step) whose ``if`` is false in every run never runs: it reaches nothing.

GitHub skips a job whose ``jobs.<job_id>.if`` is false, and a step whose ``jobs.<job_id>.steps[*].if`` is false
(https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idif); the ``if``
is read as an expression with or without ``${{ }}``, text around ``${{ }}`` makes a non-empty string (true)
(https://docs.github.com/en/actions/reference/workflows-and-actions/expressions).  One false whatever the run
(``ingest/github_actions/conditions.py`` ``always_false``) makes ``Job.never_runs``: the node stays, with the
evidence of its ``if``; no runner receives it, it has no token, OIDC identity, environment, secret or call, and
no outsider triggers it.  Real values on workflows written to ``tmp_path``, with the runner inventory of the
``untrusted-path-to-self-hosted-runner`` fixture (acme/site public, ``build-1`` serves ``self-hosted, linux``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from graphkit.build import build_graph
from graphkit.model import EdgeKind, ids
from ingest.github_actions.conditions import always_false, parse_condition

INVENTORY = Path(__file__).parent / "fixtures" / "rules" / "untrusted-path-to-self-hosted-runner" / "positive" \
    / "inventory.yaml"
WF = "job:acme/site/.github/workflows/ci.yml#"
RUNTIME = {EdgeKind.RECEIVES_JOB, EdgeKind.READS_SECRET, EdgeKind.MINTS_OIDC, EdgeKind.HAS_TOKEN,
           EdgeKind.DEPLOYS_TO, EdgeKind.CALLS_WORKFLOW, EdgeKind.CAN_TRIGGER}

CI = """\
on: [push, pull_request_target]
permissions:
  id-token: write
  contents: write
jobs:
  build:
    if: {cond}
    runs-on: [self-hosted, linux]
    environment: prod
    steps:
      - uses: actions/checkout@v4
        with:
          ref: ${{{{ github.event.pull_request.head.sha }}}}
      - run: make && echo ${{{{ secrets.BUILD_SECRET }}}}
  call:
    if: {cond}
    uses: ./.github/workflows/reuse.yml
    secrets: inherit
  steps:
    runs-on: [self-hosted, linux]
    steps:
      - run: echo ${{{{ secrets.LIVE_SECRET }}}}
      - if: {cond}
        run: echo ${{{{ secrets.DEAD_SECRET }}}}
"""
REUSE = """\
on: workflow_call
jobs:
  inner:
    runs-on: [self-hosted, linux]
    steps:
      - run: echo ${{ secrets.INNER_SECRET }}
"""


def _graph(tmp_path: Path, cond: str):
    wf = tmp_path / "repos" / "acme__site" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "ci.yml").write_text(CI.format(cond=cond), encoding="utf-8")
    (wf / "reuse.yml").write_text(REUSE, encoding="utf-8")
    shutil.copy(INVENTORY, tmp_path / "inventory.yaml")
    return build_graph({"github-actions": [tmp_path / "repos"], "runners": [tmp_path / "inventory.yaml"]}).graph


def _edges(g, jid):
    return sorted((e.kind.value, e.target if e.source == jid else e.source)
                  for e in [*g.out_edges(jid), *g.in_edges(jid)] if e.kind in RUNTIME)


def _secrets(g, jid):
    return sorted(e.target for e in g.out_edges(jid) if e.kind is EdgeKind.READS_SECRET)


@pytest.mark.parametrize("cond", ["false", "${{ false }}", "0", "'${{ false }}'", "false && github.x == 'y'",
                                  "${{ false && github.event_name == 'push' }}  ", "'!always()'"])
def test_a_job_false_in_every_run_reaches_nothing(tmp_path, cond):
    g = _graph(tmp_path, cond)
    for key in ("build", "call"):
        job = g.node(WF + key)
        assert job.never_runs is not None and job.never_runs.yaml_path == f"jobs.{key}.if"
        assert job.never_runs.file == ".github/workflows/ci.yml" and job.never_runs.line == (7 if key == "build"
                                                                                            else 16)
        assert (job.runs_on, job.secret_refs, job.environment, job.untrusted_code) == ([], [], None, [])
        assert _edges(g, WF + key) == []
    assert [e.source for e in g.in_edges(WF + "build") if e.kind is EdgeKind.HAS_JOB] == \
        ["workflow:acme/site/.github/workflows/ci.yml"]
    assert ids.github_token(WF + "build") not in g and ids.oidc_identity(WF + "build") not in g
    # the call job calls nothing: the callee's jobs are instantiated only for an unknown caller
    assert not any(n.startswith(WF + "call>") for n in g.nx)
    assert _secrets(g, WF + "steps") == ["secret:acme/site:LIVE_SECRET"]


@pytest.mark.parametrize("cond", ["github.ref == 'refs/heads/main'", "false || github.x", "x ${{ false }}",
                                  "failure()", "${{ false }} || always()", "'${{ false }} '", "' ${{ false }}'"])
def test_a_condition_not_false_in_every_run_changes_nothing(tmp_path, cond):
    g = _graph(tmp_path, cond)
    build = g.node(WF + "build")
    assert build.never_runs is None
    edges = _edges(g, WF + "build")
    assert ("receives_job", "runner:acme/build-1") in edges
    assert ("mints_oidc", ids.oidc_identity(WF + "build")) in edges
    assert ("has_token", ids.github_token(WF + "build")) in edges
    assert ("deploys_to", ids.environment("acme/site", "prod")) in edges
    assert ("can_trigger", ids.untrusted("org-member", "acme")) in edges
    assert _secrets(g, WF + "build") == ["secret:acme/site:BUILD_SECRET"]
    assert g.node(WF + "call").never_runs is None
    assert _secrets(g, WF + "call>acme/site/.github/workflows/reuse.yml#inner") == \
        ["secret:acme/site:INNER_SECRET"]
    assert _secrets(g, WF + "steps") == ["secret:acme/site:DEAD_SECRET",
                                         "secret:acme/site:LIVE_SECRET"]


@pytest.mark.parametrize("value, expected", [
    (False, True), ("false", True), ("${{ false }}", True), (0, True), ("0", True), ("''", True), ("null", True),
    ("!true", True), ("false && github.x == 'y'", True), ("github.x == 'y' && false", True),
    ("startsWith('abc', 'z')", True), ("contains(fromJSON('[1, 2]'), 3)", True), ("always() && false", True),
    ("1 == 2", True), ("'a' != 'A'", True),
    (True, False), ("github.ref == 'refs/heads/main'", False), ("false || github.x", False),
    ("success()", False), ("!failure()", False), ("cancelled() && false || always()", False),
    ("x ${{ false }}", False), ("'false'", False), ("github.x > 1", False), (None, False), ("", False),
    ("false &&", False), ("${{ false }} ", False), (" ${{ false }}", False), ("${{ false }}\n", False)])
def test_always_false(value, expected):
    assert always_false(parse_condition(value)) is expected


# --------------------------------------------------------------------------- false for every event of the run
# A job whose if is false for every event that starts its workflow never runs; a called workflow's github context
# (github.event_name) is the caller's: https://docs.github.com/en/actions/sharing-automations/reusing-workflows

EVENTS = """\
on: {on}
jobs:
  gated:
    if: github.event_name == 'push'
    runs-on: [self-hosted, linux]
    steps:
      - run: echo ${{{{ secrets.GATED_SECRET }}}}
  after:
    needs: gated
    runs-on: [self-hosted, linux]
    steps:
      - run: echo ${{{{ secrets.AFTER_SECRET }}}}
  always_after:
    needs: [gated]
    if: always()
    runs-on: [self-hosted, linux]
    steps:
      - run: echo ${{{{ secrets.ALWAYS_SECRET }}}}
  call:
    uses: ./.github/workflows/reuse.yml
    secrets: inherit
"""
REUSE_PR = REUSE.replace("  inner:\n", "  inner:\n    if: ${{ github.event_name == 'pull_request' }}\n")


def _events_graph(tmp_path: Path, on: str):
    wf = tmp_path / "repos" / "acme__site" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "ci.yml").write_text(EVENTS.format(on=on), encoding="utf-8")
    (wf / "reuse.yml").write_text(REUSE_PR, encoding="utf-8")
    shutil.copy(INVENTORY, tmp_path / "inventory.yaml")
    return build_graph({"github-actions": [tmp_path / "repos"], "runners": [tmp_path / "inventory.yaml"]}).graph


INNER = WF + "call>acme/site/.github/workflows/reuse.yml#inner"
UNKNOWN_CALLER = "job:acme/site/.github/workflows/reuse.yml#inner"


def test_a_job_false_for_every_event_of_its_workflow_reaches_nothing(tmp_path):
    g = _events_graph(tmp_path, "[pull_request_target, schedule]")
    gated, after = g.node(WF + "gated"), g.node(WF + "after")
    assert (gated.never_runs.yaml_path, gated.never_runs.line, gated.never_runs.detail) == (
        "jobs.gated.if", 4, "false for every event that starts the workflow (pull_request_target, schedule): "
        "github.event_name == 'push'")
    assert (after.never_runs.yaml_path, after.never_runs.detail) == ("jobs.after.needs", "needs gated, which never runs")
    assert _edges(g, WF + "gated") == [] and _edges(g, WF + "after") == []
    assert g.node(WF + "always_after").never_runs is None
    assert _secrets(g, WF + "always_after") == ["secret:acme/site:ALWAYS_SECRET"]
    assert ("receives_job", "runner:acme/build-1") in _edges(g, WF + "always_after")
    # the called job's if reads the caller's event: pull_request_target and schedule, never pull_request
    assert g.node(INNER).never_runs.detail == ("false for every event that starts the workflow (pull_request_target, "
                                               "schedule): ${{ github.event_name == 'pull_request' }}")
    assert _edges(g, INNER) == []
    # the instance of a caller graphkit did not read: its event is unknown, the job may run
    assert g.node(UNKNOWN_CALLER).never_runs is None
    assert _secrets(g, UNKNOWN_CALLER) == ["secret:acme/*:INNER_SECRET"]  # the unknown caller's secret


@pytest.mark.parametrize("on, inner_runs", [("[push]", False), ("[pull_request_target, push]", False),
                                             ("[pull_request, workflow_call]", True)])
def test_a_job_true_for_some_event_or_an_unknown_one_is_kept(tmp_path, on, inner_runs):
    g = _events_graph(tmp_path, on)
    assert g.node(WF + "gated").never_runs is None
    assert _secrets(g, WF + "after") == ["secret:acme/site:AFTER_SECRET"]
    # pull_request among the caller's events: the called job may run (workflow_call alone would leave it unknown)
    assert (g.node(INNER).never_runs is None) is inner_runs
