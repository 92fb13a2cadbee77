"""A checkout of a ref computed at run time: ``actions/checkout`` with ``ref:`` (or ``repository:``) an earlier
step's output (``${{ steps.<id>.outputs.* }}``: the head SHA resolved with ``gh api`` or ``actions/github-script``,
as pytorch/ao ci-failure-issue.yml does in a ``workflow_run`` job), another job's output, or ``${{ env.NAME }}``.

In a ``pull_request_target``, ``workflow_run`` or ``issue_comment`` run (the base repository's secrets) such a
value may be the pull request's head: the entry is ``possible``, never certain, and names the guard
``run-time-checkout-ref`` (GitHub Security Lab "Preventing pwn requests",
https://securitylab.github.com/resources/github-actions-preventing-pwn-requests/; step and job outputs, GitHub
docs "Passing information between jobs",
https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/passing-information-between-jobs).
A variable an ``env:`` sets is what its value is (the head: certain; ``github.sha``, the base of a
``pull_request_target`` run, or a literal: nothing); one no ``env:`` sets is set at run time (``$GITHUB_ENV``):
possible.  Real values on workflows written to ``tmp_path``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphkit.model import EdgeKind, ids
from conftest import workflows_graph

WF = ".github/workflows/pr.yml"
JOB = ids.job("o/r", WF, "build")
HEAD_SHA = "${{ github.event.pull_request.head.sha }}"

RESOLVE = """\
on: {on}
{wf_env}jobs:
  build:
    runs-on: ubuntu-latest
{job_env}    steps:
      - id: pr
        uses: actions/github-script@v7
        with:
          script: |
            const {{ data }} = await github.rest.pulls.get({{owner: context.repo.owner, repo: context.repo.repo,
              pull_number: context.issue.number}});
            core.setOutput('sha', data.head.sha);
      - run: echo "PR_SHA=$(gh pr view --json headRefOid -q .headRefOid)" >> "$GITHUB_ENV"
      - uses: actions/checkout@{version}
{step_env}        with:
          ref: {ref}{extra}
      - run: make && echo ${{{{ secrets.S1 }}}}
"""


def _build(tmp_path: Path, ref: str, on: str = "pull_request_target", version: str = "v3", extra: str = "",
           wf_env: str = "", job_env: str = "", step_env: str = ""):
    return workflows_graph(tmp_path, {WF: RESOLVE.format(on=on, ref=ref, version=version, extra=extra, wf_env=wf_env,
                                                job_env=job_env, step_env=step_env)})


def _entries(graph, jid: str = JOB) -> dict[str, tuple]:
    """actor/event -> (confidence, guards, [(yaml_path, line)]) of the entries into ``jid`` (no org-member)."""
    return {f"{e.source.split(':')[1]}/{e.key}": (e.confidence.value, e.props["guards"],
                                                  [(v.yaml_path, v.line) for v in e.evidence])
            for e in graph.in_edges(jid) if e.kind is EdgeKind.CAN_TRIGGER and e.source.split(":")[1] != "org-member"}


def _codes(graph, jid: str = JOB) -> list[tuple]:
    return [(c.how, c.guard, c.certain, c.evidence.yaml_path, c.evidence.line, c.evidence.detail)
            for c in graph.node(jid).untrusted_code]


def test_a_step_output_resolved_in_a_workflow_run_job_is_possible(tmp_path):
    # the pytorch/ao ci-failure-issue.yml pattern: the head SHA resolved by a step, then checked out
    g = _build(tmp_path, "${{ steps.pr.outputs.sha }}", on="{workflow_run: {workflows: [CI]}}")
    assert _codes(g) == [("checkout", "none", False, "jobs.build.steps[2]", 14, "${{ steps.pr.outputs.sha }}")]
    assert _entries(g) == {"fork-pr/workflow_run": (
        "possible", ["run-time-checkout-ref", "workflow-run-privileged"], [("jobs.build.steps[2]", 14)])}


def test_a_step_output_under_pull_request_target_and_issue_comment(tmp_path):
    g = _build(tmp_path, "${{ fromJSON(steps.pr.outputs.result).head.sha }}")
    assert _entries(g) == {"fork-pr/pull_request_target": (
        "possible", ["run-time-checkout-ref", "pull-request-target-privileged"], [("jobs.build.steps[2]", 14)])}
    g = _build(tmp_path / "comment", "${{ steps.pr.outputs.sha }}", on="issue_comment")
    entries = _entries(g)
    assert entries["comment/issue_comment"][:2] == ("possible", ["issue-comment-privileged", "run-time-checkout-ref"])
    assert entries["fork-pr/issue_comment"][0] == "possible"


@pytest.mark.parametrize("on", ["push", "pull_request", "[push, workflow_dispatch]"])
def test_a_step_output_in_a_run_an_outsider_does_not_start_is_nothing(tmp_path, on):
    # a push or pull_request run holds no outsider's code with the repository's secrets
    g = _build(tmp_path, "${{ steps.pr.outputs.sha }}", on=on)
    assert _codes(g) == [] and _entries(g) == {}


def test_the_checkout_guard_applies_to_a_step_output(tmp_path):
    # actions/checkout@v4 (floating: backported guard) refuses fork code under workflow_run: no entry
    on = "{workflow_run: {workflows: [CI]}}"
    g = _build(tmp_path, "${{ steps.pr.outputs.sha }}", on=on, version="v4")
    assert _codes(g)[0][1:3] == ("checkout-refuses", False)
    assert _entries(g) == {}
    # a writer's same-repository pull request is not refused: the writers' way in names why it is only possible
    (writer,) = [e for e in g.in_edges(JOB) if e.kind is EdgeKind.CAN_TRIGGER]
    assert (writer.source, writer.key, writer.confidence.value, writer.props["guards"],
            [(v.yaml_path, v.line) for v in writer.evidence]) == (
        "untrusted:org-member:o", "write", "possible",
        ["run-time-checkout-ref", "checkout-refuses-fork-code", "org-member-write"], [("jobs.build.steps[2]", 14)])
    g = _build(tmp_path / "optout", "${{ steps.pr.outputs.sha }}", on=on, version="v4",
               extra="\n          allow-unsafe-pr-checkout: true")
    assert _entries(g) == {"fork-pr/workflow_run": (
        "possible", ["run-time-checkout-ref", "checkout-refuses-fork-code", "workflow-run-privileged"],
        [("jobs.build.steps[2]", 14)])}


@pytest.mark.parametrize("where", ["wf_env", "job_env", "step_env"])
def test_env_set_from_the_head_is_certain_at_every_level(tmp_path, where):
    indent = {"wf_env": "", "job_env": "    ", "step_env": "        "}[where]
    g = _build(tmp_path, "${{ env.HEAD }}", **{where: f"{indent}env:\n{indent}  HEAD: {HEAD_SHA}\n"})
    (code,) = _codes(g)
    assert code[:3] == ("checkout", "none", True) and code[5] == "${{ env.HEAD }}"
    assert _entries(g)["fork-pr/pull_request_target"][:2] == ("certain", ["pull-request-target-privileged"])


@pytest.mark.parametrize("value", ["${{ github.sha }}", "main", "${{ github.ref }}", "${{ vars.RELEASE }}"])
def test_env_set_from_the_base_or_a_literal_is_nothing(tmp_path, value):
    g = _build(tmp_path, "${{ env.BASE }}", job_env=f"    env:\n      BASE: '{value}'\n")
    assert _codes(g) == [] and _entries(g) == {}


def test_env_set_at_run_time_or_from_an_output_is_possible(tmp_path):
    # PR_SHA is set in no env: (the run step writes it to $GITHUB_ENV): known only at run time
    g = _build(tmp_path, "${{ env.PR_SHA }}")
    assert _codes(g) == [("checkout", "none", False, "jobs.build.steps[2]", 14, "${{ env.PR_SHA }}")]
    assert _entries(g)["fork-pr/pull_request_target"][:2] == (
        "possible", ["run-time-checkout-ref", "pull-request-target-privileged"])
    # a step env set from an earlier step's output, a step env reading a job env set from the head
    g = _build(tmp_path / "step", "${{ env.SHA }}",
               step_env="        env:\n          SHA: ${{ steps.pr.outputs.sha }}\n")
    assert _codes(g)[0][2] is False
    g = _build(tmp_path / "chain", "${{ env.SHA }}", job_env=f"    env:\n      HEAD: {HEAD_SHA}\n",
               step_env="        env:\n          SHA: ${{ env.HEAD }}\n")
    assert _codes(g)[0][2] is True


def test_a_step_env_shadows_the_jobs(tmp_path):
    g = _build(tmp_path, "${{ env.REF }}", job_env=f"    env:\n      REF: {HEAD_SHA}\n",
               step_env="        env:\n          REF: main\n")
    assert _codes(g) == [] and _entries(g) == {}


def test_another_jobs_output_names_the_run_time_guard(tmp_path):
    wf = RESOLVE.format(on="pull_request_target", ref="${{ needs.sha.outputs.sha }}", version="v3", extra="",
                        wf_env="", job_env="    needs: sha\n", step_env="").replace(
        "jobs:\n", "jobs:\n  sha:\n    runs-on: ubuntu-latest\n    outputs: {sha: x}\n    steps: [{run: 'true'}]\n")
    g = workflows_graph(tmp_path, {WF: wf})
    assert _codes(g)[0][2] is False
    assert _entries(g)["fork-pr/pull_request_target"][:2] == (
        "possible", ["run-time-checkout-ref", "pull-request-target-privileged"])


ACTION = """\
name: checkout
inputs:
  ref: {required: true}
runs:
  using: composite
  steps:
    - uses: actions/checkout@v3
      with:
        ref: ${{ inputs.ref }}
"""


def test_a_step_output_passed_to_a_composite_actions_checkout(tmp_path):
    wf = RESOLVE.format(on="pull_request_target", ref="", version="v3", extra="", wf_env="", job_env="",
                        step_env="").replace("actions/checkout@v3\n        with:\n          ref: \n",
                                             "./.github/actions/co\n        with:\n"
                                             "          ref: ${{ steps.pr.outputs.sha }}\n")
    g = workflows_graph(tmp_path, {WF: wf, ".github/actions/co/action.yml": ACTION})
    (code,) = g.node(JOB).untrusted_code
    assert (code.certain, code.evidence.file, code.evidence.yaml_path) == (
        False, ".github/actions/co/action.yml", "runs.steps[0]")
    assert [(v.yaml_path, v.line, v.detail) for v in code.via] == [
        ("jobs.build.steps[2].with.ref", 16, "${{ steps.pr.outputs.sha }}")]
    assert _entries(g)["fork-pr/pull_request_target"][:2] == (
        "possible", ["run-time-checkout-ref", "pull-request-target-privileged"])


def test_a_step_env_reads_the_jobs_env_for_an_injection_too(tmp_path):
    # a step's env: may read ${{ env.NAME }} (the env context is available there): outsider text goes on through it
    wf = """\
on: issues
jobs:
  build:
    runs-on: ubuntu-latest
    env:
      TITLE: ${{ github.event.issue.title }}
    steps:
      - env:
          T: ${{ env.TITLE }}
        run: echo "${{ env.T }}"
"""
    g = workflows_graph(tmp_path, {WF: wf})
    assert [(c.how, c.events, c.evidence.yaml_path, c.evidence.detail) for c in g.node(JOB).untrusted_code] == [
        ("injection", ("issue_comment", "issues"), "jobs.build.steps[0].run", "${{ env.T }}")]
