"""Untrusted entry points (issue 11, section 2): ``graphkit/resolve/untrusted.py``,
``ingest/github_actions/untrusted.py``, the ``untrusted-path-to-self-hosted-runner`` rule and ``--org``.

Fixtures written from GitHub docs "Approving workflow runs from forks"
(https://docs.github.com/en/actions/how-tos/manage-workflow-runs/approve-runs-from-forks), "Events that trigger
workflows" (pull_request from forks, pull_request_target, workflow_run, issue_comment), the changelog of
2025-11-07 (pull_request_target from the default branch, 2025-12-08) and of 2026-06-18 (actions/checkout refuses
fork code under pull_request_target / workflow_run).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import require
from typer.testing import CliRunner

from graphkit.build import build_graph
from graphkit.cli import app
from graphkit.findings import FindingOptions, run_rules
from graphkit.model import EdgeKind, Evidence, Trigger, ids
from graphkit.resolve.untrusted import guards
from ingest.github_actions import parse_workflow
from ingest.github_actions.evidence import Src
from ingest.github_actions.untrusted import job_condition, untrusted_code

FIXTURE = Path(__file__).parent / "fixtures" / "rules" / "untrusted-path-to-self-hosted-runner"
WF = ".github/workflows/{}.yml"


def build(kind: str):
    folder = FIXTURE / kind
    res = build_graph({"github-actions": [folder / "repos"], "runners": [folder / "inventory.yaml"]})
    assert res.problems == []
    return res.graph


def job(name: str, key: str) -> str:
    return ids.job("acme/site", WF.format(name), key)


def can_trigger(g) -> set[tuple[str, str, str]]:
    return {(e.source, e.target, e.confidence.value) for e in g.edges(EdgeKind.CAN_TRIGGER)}


FORK, COMMENT, MEMBER = (ids.untrusted(a, "acme") for a in ("fork-pr", "comment", "org-member"))
BUILD, GPU = ids.runner("acme", "build-1"), ids.runner("acme", "gpu-1")


def test_entry_points_of_a_public_repository():
    g = build("positive")
    assert can_trigger(g) == {
        # fork pull_request run: on the runner it routes to, and (runs-on rewritten) on any other the repo can use
        (FORK, BUILD, "certain"), (FORK, GPU, "possible"),
        # pull_request_target builds the head, opted out of the checkout guard: the job itself
        (FORK, job("pwn", "preview"), "certain"),
        # issue_comment + gh pr checkout: whoever comments, and the pull request's author
        (COMMENT, job("comment", "rebuild"), "certain"), (FORK, job("comment", "rebuild"), "certain"),
        # writers: every push / pull_request / workflow_dispatch job
        (MEMBER, job("pr", "test"), "possible"),
        # rule 5: a writer can open the same pull request as an outsider (from a branch, not approval-gated)
        (MEMBER, BUILD, "certain"), (MEMBER, GPU, "possible"), (MEMBER, job("pwn", "preview"), "certain"),
        (MEMBER, job("comment", "rebuild"), "certain"),
        # rule 8: a writer pushes a workflow whose runs-on names any runner the repository can use
        (MEMBER, BUILD, "possible"),
    }
    edge = next(e for e in g.out_edges(FORK) if e.target == job("pwn", "preview"))
    assert edge.props["guards"] == ["checkout-refuses-fork-code", "pull-request-target-privileged"]
    assert edge.evidence[0].yaml_path == "jobs.preview.steps[0]"


def test_guards_close_the_entries():
    g = build("negative")  # private, fork workflows off; checkout refuses; comment job builds no PR code
    assert can_trigger(g) == {
        (MEMBER, job("pr", "test"), "possible"),
        # the checkout guard refuses forks only: a writer's same-repository pull request runs its head (rule 4)
        (MEMBER, job("pwn", "preview"), "possible"),
        # rule 8: a writer pushes a workflow whose runs-on names any runner the repository can use
        (MEMBER, BUILD, "possible"), (MEMBER, GPU, "possible"),
    }
    edge = next(e for e in g.out_edges(MEMBER) if e.target == job("pwn", "preview"))
    assert (edge.key, edge.props["event"], edge.props["guards"]) == (
        "write", "pull_request_target", ["checkout-refuses-fork-code", "org-member-write"])
    assert edge.evidence[0].yaml_path == "jobs.preview.steps[0]"


def test_findings_name_each_path_onto_a_self_hosted_runner():
    found = [f for f in run_rules(build("positive"), FindingOptions())
             if f.rule == "untrusted-path-to-self-hosted-runner"]
    got = {(f.related[0], f.subject, f.severity.value, f.confidence.value, tuple(f.properties["path"]))
           for f in found}
    assert got == {
        (FORK, BUILD, "critical", "certain", (FORK, BUILD)),
        (FORK, GPU, "high", "possible", (FORK, GPU)),  # ephemeral; both paths possible: the shorter is named
        (COMMENT, BUILD, "critical", "certain", (COMMENT, job("comment", "rebuild"), BUILD)),
    }


@pytest.mark.parametrize("uses, extra, guard", [
    ("actions/checkout@v4", "", "checkout-refuses"),
    ("actions/checkout@v7", "\n          allow-unsafe-pr-checkout: true", "opted-out"),
    ("actions/checkout@v3", "", "none"),
    ("actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683", "", "unknown"),
    # pinned to a minor or patch release of v4-v6 published before the 2026-07-16 backport: no guard
    # (https://github.com/actions/checkout/releases; the backport reaches floating major tags only)
    ("actions/checkout@v4.2.2", "", "none"),
    ("actions/checkout@v4.3.0", "", "none"),
    ("actions/checkout@v4.3", "", "none"),
    ("actions/checkout@v5.0.0", "", "none"),
    ("actions/checkout@v6.0.1", "", "none"),
    ("actions/checkout@v6.0.2", "", "none"),
    # a later v4-v6 release may be the backport: unknown
    ("actions/checkout@v4.4.0", "", "unknown"),
    ("actions/checkout@v6.0.3", "", "unknown"),
    # v7 shipped the guard: every v7 release has it; floating majors of v4+ got the backport
    ("actions/checkout@v7.0.1", "", "checkout-refuses"),
    ("actions/checkout@v7.1", "", "checkout-refuses"),
    ("actions/checkout@v5", "", "checkout-refuses"),
    ("actions/checkout@v6", "", "checkout-refuses"),
    ("actions/checkout@v7.0.1", "\n          allow-unsafe-pr-checkout: true", "opted-out"),
    # a release without the guard has nothing to opt out of
    ("actions/checkout@v4.2.2", "\n          allow-unsafe-pr-checkout: true", "none"),
    ("actions/checkout@v3", "\n          allow-unsafe-pr-checkout: true", "none"),
    ("actions/checkout@v2.4.0", "", "none"),
    ("actions/checkout@main", "", "unknown"),
    # the opt-out as an expression: ${{ true }} is the opt-out; another expression may evaluate to true
    # (https://docs.github.com/en/actions/reference/workflows-and-actions/expressions)
    ("actions/checkout@v4", "\n          allow-unsafe-pr-checkout: ${{ true }}", "opted-out"),
    ("actions/checkout@v7", "\n          allow-unsafe-pr-checkout: ${{ TRUE }}", "opted-out"),
    ("actions/checkout@v4", "\n          allow-unsafe-pr-checkout: ${{ inputs.x || true }}", "unknown"),
    ("actions/checkout@v7.0.1", "\n          allow-unsafe-pr-checkout: ${{ vars.UNSAFE }}", "unknown"),
    ("actions/checkout@v4.2.2", "\n          allow-unsafe-pr-checkout: ${{ vars.UNSAFE }}", "none"),
    ("actions/checkout@v4", "\n          allow-unsafe-pr-checkout: false", "checkout-refuses"),
])
def test_checkout_guard_per_version(uses, extra, guard):
    text = (f"on: pull_request_target\njobs:\n  t:\n    runs-on: x\n    steps:\n      - uses: {uses}\n"
            f"        with:\n          ref: refs/pull/${{{{ github.event.number }}}}/merge{extra}\n")
    wf = parse_workflow(text, file=".github/workflows/t.yml", repository="acme/site")
    found = untrusted_code(wf.jobs["t"], Src(wf.file, wf.repository, wf.lines))
    assert [(u.how, u.guard) for u in found] == [("checkout", guard)]


@pytest.mark.parametrize("opt_out, confidence", [("${{ true }}", "certain"), ("${{ inputs.x || true }}", "possible"),
                                                 ("false", None)])
def test_an_opt_out_written_as_an_expression_keeps_the_entry(tmp_path, opt_out, confidence):
    """The negative fixture's pull_request_target job (head checkout with a floating ``@v4``, guarded) with
    ``allow-unsafe-pr-checkout`` set by an expression: a constant ``${{ true }}`` opts out (certain entry); an
    expression that may be true may open it (possible), never hides it; ``false`` keeps the guard (no entry)."""
    folder = tmp_path / "acme__site" / ".github" / "workflows"
    folder.mkdir(parents=True)
    text = (FIXTURE / "negative" / "repos" / "acme__site" / ".github" / "workflows" / "pwn.yml").read_text()
    head = "          ref: ${{ github.event.pull_request.head.sha }}\n"
    assert "actions/checkout@v4\n" in text and head in text
    (folder / "pwn.yml").write_text(text.replace(head, f"{head}          allow-unsafe-pr-checkout: {opt_out}\n"))
    res = build_graph({"github-actions": [tmp_path / "acme__site"],
                       "runners": [FIXTURE / "positive" / "inventory.yaml"]})
    assert res.problems == []
    edges = [e for e in res.graph.out_edges(FORK) if e.target == job("pwn", "preview")]
    assert [e.confidence.value for e in edges] == ([confidence] if confidence else [])


@pytest.mark.parametrize("ref, confidence", [("v4.2.2", "certain"), ("v6.0.1", "certain"),
                                             ("11bd71901bbe5b1630ceea73d27597364c9af683", "possible"),
                                             ("v6.0.3", "possible"), ("v7.0.1", None), ("v4", None)])
def test_a_pinned_checkout_before_the_backport_is_a_certain_entry(tmp_path, ref, confidence):
    """The negative fixture's pull_request_target job (head checkout, no opt-out) with ``actions/checkout``
    pinned: a pre-backport v4-v6 release lets the fork's code run with the job's secrets (certain); a commit pin
    or a later release may (possible); v7 releases and floating majors refuse (no entry)."""
    folder = tmp_path / "acme__site" / ".github" / "workflows"
    folder.mkdir(parents=True)
    text = (FIXTURE / "negative" / "repos" / "acme__site" / ".github" / "workflows" / "pwn.yml").read_text()
    assert "actions/checkout@v4\n" in text
    (folder / "pwn.yml").write_text(text.replace("actions/checkout@v4\n", f"actions/checkout@{ref}\n"))
    res = build_graph({"github-actions": [tmp_path / "acme__site"],
                       "runners": [FIXTURE / "positive" / "inventory.yaml"]})
    assert res.problems == []
    edges = [e for e in res.graph.out_edges(FORK) if e.target == job("pwn", "preview")]
    assert [e.confidence.value for e in edges] == ([confidence] if confidence else [])


@pytest.mark.parametrize("ref, guards", [
    # pins released before the 2026-07-16 backport never have the checkout guard
    # (graphkit/data/untrusted_guards.json, https://github.com/actions/checkout/releases): it is not named
    ("v4.1.1", ["pull-request-target-privileged"]), ("v4.2.2", ["pull-request-target-privileged"]),
    ("v5.0.0", ["pull-request-target-privileged"]), ("v3", ["pull-request-target-privileged"]),
    # a commit pin or a later release may have it: the guard decided the possible edge
    ("v6.0.3", ["checkout-refuses-fork-code", "pull-request-target-privileged"]),
])
def test_an_edge_names_the_checkout_guard_only_where_the_release_may_have_it(tmp_path, ref, guards):
    folder = tmp_path / "acme__site" / ".github" / "workflows"
    folder.mkdir(parents=True)
    text = (FIXTURE / "negative" / "repos" / "acme__site" / ".github" / "workflows" / "pwn.yml").read_text()
    (folder / "pwn.yml").write_text(text.replace("actions/checkout@v4\n", f"actions/checkout@{ref}\n"))
    res = build_graph({"github-actions": [tmp_path / "acme__site"],
                       "runners": [FIXTURE / "positive" / "inventory.yaml"]})
    edges = [e for e in res.graph.out_edges(FORK) if e.target == job("pwn", "preview")]
    assert [e.props["guards"] for e in edges] == [guards]


def test_workflow_run_artifact_and_script_forms():
    text = """\
on:
  workflow_run:
    workflows: [CI]
    types: [completed]
jobs:
  t:
    runs-on: x
    steps:
      - uses: actions/download-artifact@v4
        with:
          run-id: ${{ github.event.workflow_run.id }}
      - run: git fetch origin pull/42/head:pr && git checkout pr
      - uses: actions/checkout@v4
"""
    wf = parse_workflow(text, file=".github/workflows/t.yml", repository="acme/site")
    found = untrusted_code(wf.jobs["t"], Src(wf.file, wf.repository, wf.lines))
    assert [(u.how, u.evidence.yaml_path) for u in found] == [("artifact", "jobs.t.steps[0]"),
                                                              ("script", "jobs.t.steps[1].run")]


def test_every_guard_has_a_source_and_a_date():
    for g in guards().values():
        assert g.source.startswith("https://") and re.fullmatch(r"\d{4}-\d{2}-\d{2}", g.date), g
    assert guards()["checkout-refuses-fork-code"].date == "2026-06-18"
    assert guards()["pull-request-target-privileged"].date == "2025-12-08"


def test_blast_radius_from_untrusted_fork_pr_with_org(tmp_path):
    folder = FIXTURE / "positive"
    runner = CliRunner()
    args = ["blast-radius", "--github-actions", str(folder / "repos"), "--runners", str(folder / "inventory.yaml"),
            "--from", "untrusted:fork-pr", "--org", "ACME", "--format", "json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["source"] == [FORK]
    reached = {r["id"] for r in doc["reached"]}
    assert {BUILD, GPU, job("pwn", "preview"), job("comment", "rebuild")} <= reached
    res = runner.invoke(app, args[:-4] + ["--format", "json"])  # no --org: every owner's fork-pr node
    assert res.exit_code == 0, res.output and json.loads(res.stdout)["source"] == [FORK]


def test_required_reviewers_hold_privileged_entries(tmp_path):
    """GitHub docs "Deployments and environments", required reviewers: the job waits for approval."""
    inv = tmp_path / "inventory.yaml"
    inv.write_text((FIXTURE / "positive" / "inventory.yaml").read_text().replace(
        "  - {full_name: acme/site, visibility: public, default_branch: main}",
        "  - full_name: acme/site\n    visibility: public\n    default_branch: main\n    environments:\n"
        "      - {name: preview, protection_rules: [{type: required_reviewers, reviewers: [acme/docs]}]}"))
    wfdir = tmp_path / "acme__site" / ".github" / "workflows"
    wfdir.mkdir(parents=True)
    text = (FIXTURE / "positive" / "repos" / "acme__site" / ".github" / "workflows" / "pwn.yml").read_text()
    (wfdir / "pwn.yml").write_text(text.replace("    runs-on: [self-hosted, gpu]\n",
                                                "    runs-on: [self-hosted, gpu]\n    environment: preview\n"))
    res = build_graph({"github-actions": [tmp_path / "acme__site"], "runners": [inv]})
    assert res.problems == []
    edge = next(e for e in res.graph.out_edges(FORK) if e.target == job("pwn", "preview"))
    assert edge.confidence.value == "possible"
    assert edge.props["guards"][-1] == "environment-required-reviewers"


@pytest.mark.parametrize("condition, confidence, guarded", [
    ("github.event.pull_request.head.repo.full_name == github.repository", "possible", True),
    ("${{ !github.event.pull_request.head.repo.fork && github.actor != 'dependabot[bot]' }}", "possible", True),
    ("(github.repository == github.event.pull_request.head.repo.full_name) && always()", "possible", True),
    # an alternative decided false for the fork's pull_request_target run (push): the guard alone decides
    ("github.event.pull_request.head.repo.full_name == github.repository || github.event_name == 'push'",
     "possible", True),
    # a conjunct decided false for it: the job never runs for a pull_request_target event, the workflow's only
    # one (Job.never_runs: no verdicts, no entry)
    ("github.event.pull_request.head.repo.full_name == github.repository && github.event_name == 'push'",
     None, False),
    # not a guard: an alternative that may hold, a string template (always true), another condition
    ("github.event.pull_request.head.repo.full_name == github.repository || contains(github.event.pull_request.body,"
     " 'x')", "certain", False),
    ("${{ github.event.pull_request.head.repo.fork == false }} && true", "certain", False),
    ("github.event.pull_request.head.repo.full_name != github.repository", "certain", False),
])
def test_a_job_if_that_requires_the_same_repository_makes_the_entry_possible(tmp_path, condition, confidence,
                                                                            guarded):
    """The negative fixture's pull_request_target job (head checkout) pinned to v4.2.2 (no checkout guard: a
    certain entry) with a job ``if``: requiring the head repository to be this one (GitHub Security Lab's guard
    against pwn requests) keeps a fork's run out; the condition is read, not run, so the entry stays ``possible``
    and names the guard; a condition false for the event leaves no entry; any other ``if`` leaves it certain."""
    folder = tmp_path / "acme__site" / ".github" / "workflows"
    folder.mkdir(parents=True)
    text = (FIXTURE / "negative" / "repos" / "acme__site" / ".github" / "workflows" / "pwn.yml").read_text()
    assert "  preview:\n    runs-on:" in text and "actions/checkout@v4\n" in text
    text = text.replace("actions/checkout@v4\n", "actions/checkout@v4.2.2\n")
    (folder / "pwn.yml").write_text(text.replace("  preview:\n", f"  preview:\n    if: {json.dumps(condition)}\n"))
    res = build_graph({"github-actions": [tmp_path / "acme__site"],
                       "runners": [FIXTURE / "positive" / "inventory.yaml"]})
    assert res.problems == []
    pwn = res.graph.node(job("pwn", "preview"))
    said = [(v.event, v.outcome, v.guards, v.evidence.yaml_path, v.evidence.line) for v in pwn.condition]
    if guarded:
        assert said == [("pull_request_target", "gated", ("same-repository-condition",), "jobs.preview.if", 5)]
    else:
        assert said == []
    assert (pwn.never_runs.detail[:70] if pwn.never_runs else None) == (
        None if confidence else "false for every event that starts the workflow (pull_request_target): ")
    edges = [e for e in res.graph.out_edges(FORK) if e.target == job("pwn", "preview")]
    assert [e.confidence.value for e in edges] == ([confidence] if confidence else [])
    assert not edges or ("same-repository-condition" in edges[0].props["guards"]) is guarded


def test_same_repository_condition_on_a_real_workflow():
    """grafana/shared-workflows' test-login-to-gar.yaml (the shared corpus): its job ``test`` runs only when the
    pull request's head repository is this one ("Don't run for forks"), at line 34: read for a fork's
    pull_request_target run it is gated by that guard; under issue_comment (no pull request in the payload) the
    comparison is false."""
    wf_file = (Path(__file__).resolve().parents[2] / "shared" / "corpus" / "github-actions" / "grafana__shared-workflows"
               / ".github" / "workflows" / "test-login-to-gar.yaml")
    require(wf_file.is_file(), "the shared corpus is not beside the checkout", corpus=True)
    wf = parse_workflow(wf_file.read_text(encoding="utf-8"), file=".github/workflows/test-login-to-gar.yaml",
                        repository="grafana/shared-workflows")
    src = Src(wf.file, wf.repository, wf.lines)
    privileged = [Trigger(event=e, evidence=Evidence(file="t")) for e in ("pull_request_target", "issue_comment")]
    found = job_condition(wf.jobs["test"], src, "jobs.test", privileged)
    assert [(v.event, v.outcome, v.guards, v.evidence.yaml_path, v.evidence.line) for v in found] == [
        ("issue_comment", "skipped", (), "jobs.test.if", 34),
        ("pull_request_target", "gated", ("same-repository-condition",), "jobs.test.if", 34)]
    assert job_condition(wf.jobs["test"], src, "jobs.test", wf.events) == ()  # its own triggers: not privileged
