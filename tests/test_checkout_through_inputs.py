"""A checkout of the pull request's code through inputs: ``actions/checkout`` with ``ref: ${{ inputs.ref }}`` (or
``repository:``) in a reusable workflow or a local composite action, called from a ``pull_request_target``,
``workflow_run`` or ``issue_comment`` job that passes the pull request's head.

- A called workflow's jobs run in the caller's run, with its ``github`` context and the secrets it passes; its
  ``inputs`` are what the calling job's ``with:`` passes, else the input's ``default``, which reads the
  caller's ``github`` context (GitHub docs "Reusing workflows",
  https://docs.github.com/en/actions/sharing-automations/reusing-workflows; context availability,
  https://docs.github.com/en/actions/reference/workflows-and-actions/contexts#context-availability).
- A composite action's steps run in the caller's job with the inputs its ``uses:`` step passes
  (https://docs.github.com/en/actions/reference/workflows-and-actions/metadata-syntax#inputs).

So the called checkout runs the outsider's code with the job's secrets, exactly as if the caller had checked it
out itself (GitHub Security Lab "Preventing pwn requests",
https://securitylab.github.com/resources/github-actions-preventing-pwn-requests/).  The entry's evidence is the
checkout step, then each ``with:`` the head went through; the checkout guard of ``actions/checkout`` (refusing
fork code under ``pull_request_target`` / ``workflow_run`` since 2026-06-18) and each ``if`` apply as to a
checkout written in the caller.  Real values on workflows written to ``tmp_path``.
"""

from __future__ import annotations

import pytest

from graphkit.model import EdgeKind, ids
from conftest import workflows_graph

WF = ".github/workflows/{}.yml"
CALLER_WF, BUILD_WF = WF.format("pr"), WF.format("build")


def _entries(graph, jid: str, members: bool = False) -> dict[str, tuple]:
    """actor/event -> (confidence, guards, [(file, yaml_path, line)]) of the entries into ``jid``."""
    return {f"{e.source.split(':')[1]}/{e.key}": (e.confidence.value, e.props["guards"],
                                                  [(v.file, v.yaml_path, v.line) for v in e.evidence])
            for e in graph.in_edges(jid) if e.kind is EdgeKind.CAN_TRIGGER
            and (members or e.source.split(":")[1] != "org-member")}


CALLER = """\
on: {on}
jobs:
  call:
    uses: ./.github/workflows/build.yml
    with:
      ref: {ref}
    secrets: inherit
"""
BUILD = """\
on:
  workflow_call:
    inputs:
      ref: {{type: string, required: false{default}}}
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@{version}
        with:
          ref: ${{{{ inputs.ref }}}}{extra}
      - run: make && echo ${{{{ secrets.S1 }}}}
"""
CALL = ids.job("o/r", CALLER_WF, "call")
CALLED = ids.job("o/r", BUILD_WF, "build", caller=CALL)
HEAD_SHA = "${{ github.event.pull_request.head.sha }}"


def _reusable(tmp_path, on="pull_request_target", ref=HEAD_SHA, version="v3", extra="", default=""):
    return workflows_graph(tmp_path, {CALLER_WF: CALLER.format(on=on, ref=ref),
                             BUILD_WF: BUILD.format(version=version, extra=extra, default=default)})


def test_a_reusable_workflow_checking_out_the_head_its_caller_passes(tmp_path):
    g = _reusable(tmp_path)
    (code,) = g.node(CALLED).untrusted_code
    assert (code.how, code.guard, code.certain, code.evidence.file, code.evidence.yaml_path, code.evidence.line,
            code.evidence.detail) == ("checkout", "none", True, BUILD_WF, "jobs.build.steps[0]", 9,
                                      "${{ inputs.ref }}")
    assert [(v.file, v.yaml_path, v.line, v.detail) for v in code.via] == [
        (CALLER_WF, "jobs.call.with.ref", 6, HEAD_SHA)]
    assert _entries(g, CALLED) == {"fork-pr/pull_request_target": (
        "certain", ["pull-request-target-privileged"], [(BUILD_WF, "jobs.build.steps[0]", 9),
                                                        (CALLER_WF, "jobs.call.with.ref", 6)])}
    assert "secret:o/r:S1" in {e.target for e in g.out_edges(CALLED) if e.kind is EdgeKind.READS_SECRET}
    # the instance for a caller graphkit did not read passes nothing known; the calling job checks out nothing
    assert g.node(ids.job("o/r", BUILD_WF, "build")).untrusted_code == []
    assert _entries(g, CALL) == {}


@pytest.mark.parametrize("version, extra, expected", [
    # actions/checkout v1-v3 never had the fork guard: the path is certain
    ("v2", "", ("certain", ["pull-request-target-privileged"])),
    # a floating @v4 refuses fork code since the 2026-07-16 backport: no outsider entry
    ("v4", "", None),
    ("v4", "\n          allow-unsafe-pr-checkout: true",
     ("certain", ["checkout-refuses-fork-code", "pull-request-target-privileged"])),
    # a v6 patch pin after the backport may or may not have it
    ("v6.0.3", "", ("possible", ["checkout-refuses-fork-code", "pull-request-target-privileged"]))])
def test_the_checkout_guard_applies_to_the_called_checkout(tmp_path, version, extra, expected):
    g = _reusable(tmp_path, version=version, extra=extra)
    entry = _entries(g, CALLED).get("fork-pr/pull_request_target")
    assert (entry[:2] if entry else None) == expected
    if version == "v4" and not extra:  # a writer's same-repository pull request is still checked out
        assert _entries(g, CALLED, members=True)["org-member/write"] == (
            "possible", ["checkout-refuses-fork-code", "org-member-write"],
            [(BUILD_WF, "jobs.build.steps[0]", 9), (CALLER_WF, "jobs.call.with.ref", 6)])


def test_a_repository_input_and_a_workflow_run_caller(tmp_path):
    caller = CALLER.format(on="{workflow_run: {workflows: [ci]}}", ref="${{ github.event.workflow_run.head_sha }}") \
        .replace("    secrets:", "      repo: ${{ github.event.workflow_run.head_repository.full_name }}\n    secrets:")
    build = BUILD.format(version="v3", extra="\n          repository: ${{ inputs.repo }}", default="") \
        .replace("      ref: {type: string, required: false}\n",
                 "      ref: {type: string, required: false}\n      repo: {type: string}\n")
    g = workflows_graph(tmp_path, {CALLER_WF: caller, BUILD_WF: build})
    (code,) = g.node(CALLED).untrusted_code
    assert (code.evidence.detail, [(v.yaml_path, v.line) for v in code.via]) == (
        "${{ inputs.ref }} ${{ inputs.repo }}", [("jobs.call.with.ref", 6), ("jobs.call.with.repo", 7)])
    # the triggering workflow ci is not read: an outsider may start it; the visibility is unknown (fork gate)
    assert _entries(g, CALLED)["fork-pr/workflow_run"][:2] == ("possible", ["workflow-run-privileged"])


def test_an_issue_comment_caller_passing_the_pull_request_ref(tmp_path):
    g = _reusable(tmp_path, on="issue_comment", ref="refs/pull/${{ github.event.issue.number }}/head")
    (code,) = g.node(CALLED).untrusted_code
    assert [(v.yaml_path, v.detail) for v in code.via] == [
        ("jobs.call.with.ref", "refs/pull/${{ github.event.issue.number }}/head")]
    entries = _entries(g, CALLED)
    assert sorted(entries) == ["comment/issue_comment", "fork-pr/issue_comment"]
    assert entries["comment/issue_comment"][:2] == ("possible", ["issue-comment-privileged"])


@pytest.mark.parametrize("ref", ["main", "${{ github.sha }}", "${{ github.event.pull_request.base.sha }}"])
def test_a_caller_passing_no_pull_request_code_is_no_entry(tmp_path, ref):
    g = _reusable(tmp_path, ref=ref)
    assert g.node(CALLED).untrusted_code == [] and _entries(g, CALLED) == {}


NEEDS_CALLER = """\
on: {on}
jobs:
  sha:
    runs-on: ubuntu-latest
    outputs:
      sha: ${{{{ steps.s.outputs.sha }}}}
    steps:
      - id: s
        run: echo "sha=$(gh pr view --json headRefOid -q .headRefOid)" >> "$GITHUB_OUTPUT"
  call:
    needs: sha
    uses: ./.github/workflows/build.yml
    with:
      ref: ${{{{ needs.sha.outputs.sha }}}}
    secrets: inherit
"""


def test_another_jobs_output_is_possible_never_certain(tmp_path):
    g = workflows_graph(tmp_path, {CALLER_WF: NEEDS_CALLER.format(on="pull_request_target"),
                          BUILD_WF: BUILD.format(version="v3", extra="", default="")})
    (code,) = g.node(CALLED).untrusted_code
    assert (code.certain, [(v.yaml_path, v.detail) for v in code.via]) == (
        False, [("jobs.call.with.ref", "${{ needs.sha.outputs.sha }}")])
    assert _entries(g, CALLED) == {"fork-pr/pull_request_target": (
        "possible", ["run-time-checkout-ref", "pull-request-target-privileged"],
        [(BUILD_WF, "jobs.build.steps[0]", 9), (CALLER_WF, "jobs.call.with.ref", 14)])}


def test_another_jobs_output_in_a_run_without_a_pull_request_is_nothing(tmp_path):
    # push and pull_request runs: no outsider's code with the repository's secrets
    g = workflows_graph(tmp_path, {CALLER_WF: NEEDS_CALLER.format(on="[push, pull_request]"),
                          BUILD_WF: BUILD.format(version="v3", extra="", default="")})
    assert g.node(CALLED).untrusted_code == []


def test_the_inputs_default_is_evaluated_in_the_callers_run(tmp_path):
    caller = CALLER.format(on="pull_request_target", ref="").replace("    with:\n      ref: \n", "")
    g = workflows_graph(tmp_path, {CALLER_WF: caller, BUILD_WF: BUILD.format(
        version="v3", extra="", default=", default: '${{ github.head_ref }}'")})
    (code,) = g.node(CALLED).untrusted_code
    assert [(v.file, v.yaml_path, v.line, v.detail) for v in code.via] == [
        (CALLER_WF, "jobs.call.uses", 4, "./.github/workflows/build.yml"),
        (BUILD_WF, "on.workflow_call.inputs.ref.default", 4, "${{ github.head_ref }}")]
    assert _entries(g, CALLED)["fork-pr/pull_request_target"][0] == "certain"
    # a value the caller passes replaces the default
    g = workflows_graph(tmp_path / "passed", {CALLER_WF: CALLER.format(on="pull_request_target", ref="main"),
                                     BUILD_WF: BUILD.format(version="v3", extra="",
                                                            default=", default: '${{ github.head_ref }}'")})
    assert g.node(CALLED).untrusted_code == []


def test_the_callers_if_gates_the_called_checkout(tmp_path):
    caller = CALLER.format(on="pull_request_target", ref=HEAD_SHA).replace(
        "    uses:", "    if: github.event.pull_request.head.repo.full_name == github.repository\n    uses:")
    g = workflows_graph(tmp_path, {CALLER_WF: caller, BUILD_WF: BUILD.format(version="v3", extra="", default="")})
    assert _entries(g, CALLED) == {"fork-pr/pull_request_target": (
        "possible", ["same-repository-condition", "pull-request-target-privileged"],
        [(BUILD_WF, "jobs.build.steps[0]", 9), (CALLER_WF, "jobs.call.with.ref", 7), (CALLER_WF, "jobs.call.if", 4)])}


MID = """\
on:
  workflow_call:
    inputs:
      sha: {type: string}
jobs:
  mid:
    uses: ./.github/workflows/build.yml
    with:
      ref: ${{ inputs.sha }}
"""


def test_nested_reusable_workflows(tmp_path):
    caller = CALLER.format(on="pull_request_target", ref=HEAD_SHA).replace(
        "./.github/workflows/build.yml\n    with:\n      ref:", "./.github/workflows/mid.yml\n    with:\n      sha:")
    g = workflows_graph(tmp_path, {CALLER_WF: caller, WF.format("mid"): MID,
                          BUILD_WF: BUILD.format(version="v3", extra="", default="")})
    leaf = ids.job("o/r", BUILD_WF, "build", caller=ids.job("o/r", WF.format("mid"), "mid", caller=CALL))
    (code,) = g.node(leaf).untrusted_code
    assert [(v.file, v.yaml_path, v.detail) for v in code.via] == [
        (CALLER_WF, "jobs.call.with.sha", HEAD_SHA), (WF.format("mid"), "jobs.mid.with.ref", "${{ inputs.sha }}")]
    assert _entries(g, leaf)["fork-pr/pull_request_target"][0] == "certain"


OUTER = """\
name: outer
inputs:
  ref: {description: r}
runs:
  using: composite
  steps:
    - uses: ./.github/actions/inner
      with:
        ref: ${{ inputs.ref }}
"""
INNER = """\
name: inner
inputs:
  ref: {description: r}
  repo: {description: r, default: "${{ github.event.pull_request.head.repo.full_name }}"}
runs:
  using: composite
  steps:
    - uses: actions/checkout@v3
      with:
        ref: ${{ inputs.ref }}
    - uses: actions/checkout@v3
      with:
        repository: ${{ inputs.repo }}
        path: fork
"""
COMPOSITE_CALLER = """\
on: pull_request_target
jobs:
  t:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v3
      - uses: ./.github/actions/outer
        with:
          ref: ${{ github.head_ref }}
      - run: echo ${{ secrets.S1 }}
"""


def test_nested_composite_actions_and_an_actions_default(tmp_path):
    g = workflows_graph(tmp_path, {CALLER_WF: COMPOSITE_CALLER, ".github/actions/outer/action.yml": OUTER,
                          ".github/actions/inner/action.yml": INNER})
    jid = ids.job("o/r", CALLER_WF, "t")
    assert [(c.how, c.certain, c.evidence.file, c.evidence.yaml_path, [(v.file, v.yaml_path) for v in c.via])
            for c in g.node(jid).untrusted_code] == [
        # the head branch went through the caller's with:, then outer's
        ("checkout", True, ".github/actions/inner/action.yml", "runs.steps[0]",
         [(CALLER_WF, "jobs.t.steps[1].with.ref"), (".github/actions/outer/action.yml", "runs.steps[0].with.ref")]),
        # inner's default, evaluated in the caller's run (via: the uses: steps, then the default)
        ("checkout", True, ".github/actions/inner/action.yml", "runs.steps[1]",
         [(CALLER_WF, "jobs.t.steps[1].uses"), (".github/actions/outer/action.yml", "runs.steps[0].uses"),
          (".github/actions/inner/action.yml", "inputs.repo.default")])]
    assert _entries(g, jid)["fork-pr/pull_request_target"] == (
        "certain", ["pull-request-target-privileged"],
        [(".github/actions/inner/action.yml", "runs.steps[0]", 8), (CALLER_WF, "jobs.t.steps[1].with.ref", 9),
         (".github/actions/outer/action.yml", "runs.steps[0].with.ref", 9)])


@pytest.mark.parametrize("ref, hows", [(HEAD_SHA, ["checkout"]),  # a SHA is no text an outsider chose
                                       ("${{ github.head_ref }}", ["checkout", "injection"])])  # a branch name is
def test_an_input_naming_the_head_is_an_injection_only_when_it_holds_text(tmp_path, ref, hows):
    build = BUILD.format(version="v3", extra="", default="").replace("make &&", 'make "${{ inputs.ref }}" &&')
    g = workflows_graph(tmp_path, {CALLER_WF: CALLER.format(on="pull_request_target", ref=ref), BUILD_WF: build})
    assert [c.how for c in g.node(CALLED).untrusted_code] == hows


def test_a_checkout_of_another_jobs_output_written_in_the_job(tmp_path):
    wf = NEEDS_CALLER.format(on="pull_request_target").replace("""    uses: ./.github/workflows/build.yml
    with:
      ref: ${{ needs.sha.outputs.sha }}
    secrets: inherit
""", """    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v3
        with: {ref: "${{ needs.sha.outputs.sha }}"}
""")
    g = workflows_graph(tmp_path, {CALLER_WF: wf})
    (code,) = g.node(CALL).untrusted_code
    assert (code.certain, code.via, code.evidence.yaml_path) == (False, (), "jobs.call.steps[0]")
    assert _entries(g, CALL)["fork-pr/pull_request_target"][0] == "possible"
