"""A step whose ``if`` is false for every event that starts its workflow never runs: it is no way in and reads
nothing.

GitHub skips a step whose ``jobs.<job_id>.steps[*].if`` is false
(https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idstepsif);
``github.event_name`` is the event that started the run, the caller's in a called workflow (GitHub docs "Reusing
workflows": the ``github`` context of a called workflow is the caller's,
https://docs.github.com/en/actions/sharing-automations/reusing-workflows).  ``if: github.event_name == 'push'``
in a workflow only ``pull_request_target`` and ``issues`` start is false in every run: the step's script
injection, its checkout of the pull request and its secret do not count (the job-level reading,
``ingest/github_actions/skipped.py`` ``never_runs``).  A status function other than ``always()``, or anything not
decided, keeps the step.  Real values on workflows written to ``tmp_path``.
"""

from __future__ import annotations

import pytest

from graphkit.model import EdgeKind, ids
from conftest import workflows_graph

WF = ".github/workflows/{}.yml"

STEPS = """\
on: {on}
jobs:
  t:
    runs-on: ubuntu-latest
    steps:
      - run: echo ${{{{ secrets.LIVE }}}}
      - if: {cond}
        run: echo "${{{{ github.event.issue.title }}}}" ${{{{ secrets.DEAD }}}}
      - if: {cond}
        uses: actions/checkout@v3
        with:
          ref: ${{{{ github.event.pull_request.head.sha }}}}
"""


def _secrets(g, jid):
    return sorted(e.target for e in g.out_edges(jid) if e.kind is EdgeKind.READS_SECRET)


def _outside(g, jid):
    return sorted((e.source, e.key, e.confidence.value) for e in g.in_edges(jid)
                  if e.kind is EdgeKind.CAN_TRIGGER and ":org-member:" not in e.source)


JOB = ids.job("o/r", WF.format("pr"), "t")


@pytest.mark.parametrize("cond", ["github.event_name == 'push'", "${{ github.event_name == 'schedule' }}",
                                  "github.event_name == 'push' && github.ref == 'refs/heads/main'",
                                  "always() && github.event_name == 'push'"])
def test_a_step_false_for_every_event_counts_for_nothing(tmp_path, cond):
    g = workflows_graph(tmp_path, {WF.format("pr"): STEPS.format(on="[pull_request_target, issues]", cond=cond)})
    job = g.node(JOB)
    assert job.never_runs is None and job.untrusted_code == []
    assert _secrets(g, JOB) == ["secret:o/r:LIVE"]
    assert _outside(g, JOB) == []


@pytest.mark.parametrize("cond", ["failure() || github.event_name == 'push'", "always()", "cancelled()",
                                  "success()", "github.actor == 'octocat'", "github.event_name != 'push'"])
def test_a_status_function_or_an_undecided_if_keeps_the_step(tmp_path, cond):
    g = workflows_graph(tmp_path, {WF.format("pr"): STEPS.format(on="[pull_request_target, issues]", cond=cond)})
    assert [(c.how, c.evidence.yaml_path) for c in g.node(JOB).untrusted_code] == [
        ("injection", "jobs.t.steps[1].run"), ("checkout", "jobs.t.steps[2]")]
    assert _secrets(g, JOB) == ["secret:o/r:DEAD", "secret:o/r:LIVE"]
    assert ("untrusted:fork-pr:o", "pull_request_target") in {e[:2] for e in _outside(g, JOB)}


def test_a_step_true_for_one_of_the_events_is_kept_and_gated_per_event(tmp_path):
    # push starts the workflow too: the step runs on push; for pull_request_target its if says skipped
    g = workflows_graph(tmp_path, {WF.format("pr"): STEPS.format(on="[pull_request_target, push]",
                                                        cond="github.event_name == 'push'")})
    codes = g.node(JOB).untrusted_code
    assert [(c.how, [(v.event, v.outcome) for v in c.condition]) for c in codes] == [
        ("injection", [("pull_request_target", "skipped")]), ("checkout", [("pull_request_target", "skipped")])]
    assert _secrets(g, JOB) == ["secret:o/r:DEAD", "secret:o/r:LIVE"]
    assert _outside(g, JOB) == []


ACTION = """\
name: build
inputs:
  title: {description: t}
runs:
  using: composite
  steps:
    - if: github.event_name == 'push'
      run: echo "${{ inputs.title }}"
      shell: bash
    - if: github.event_name == 'push'
      uses: actions/checkout@v3
      with: {ref: "${{ github.head_ref }}"}
    - run: echo "${{ github.event.pull_request.title }}"
      shell: bash
"""
COMPOSITE_CALLER = """\
on: pull_request_target
jobs:
  t:
    runs-on: ubuntu-latest
    steps:
      - uses: ./.github/actions/build
        with:
          title: ${{ github.event.pull_request.title }}
"""


def test_composite_action_steps_false_for_every_event(tmp_path):
    g = workflows_graph(tmp_path, {WF.format("pr"): COMPOSITE_CALLER, ".github/actions/build/action.yml": ACTION})
    # the third step runs: it alone is an entry (its via: the uses: step)
    assert [(c.how, c.evidence.file, c.evidence.yaml_path, [v.yaml_path for v in c.via])
            for c in g.node(JOB).untrusted_code] == [
        ("injection", ".github/actions/build/action.yml", "runs.steps[2].run", ["jobs.t.steps[0].uses"])]


REUSABLE = """\
on: workflow_call
jobs:
  inner:
    runs-on: ubuntu-latest
    steps:
      - if: github.event_name == 'push'
        run: echo "${{ github.event.pull_request.title }}" ${{ secrets.DEAD }}
      - run: echo ${{ secrets.LIVE }}
"""
REUSABLE_CALLER = """\
on: pull_request_target
jobs:
  call:
    uses: ./.github/workflows/reuse.yml
    secrets: inherit
"""


def test_a_called_workflows_step_reads_the_callers_events(tmp_path):
    g = workflows_graph(tmp_path, {WF.format("pr"): REUSABLE_CALLER, WF.format("reuse"): REUSABLE})
    called = ids.job("o/r", WF.format("reuse"), "inner", caller=ids.job("o/r", WF.format("pr"), "call"))
    assert g.node(called).untrusted_code == []
    assert _secrets(g, called) == ["secret:o/r:LIVE"]
    # the instance for a caller graphkit did not read: its event is unknown, the step may run
    unknown = ids.job("o/r", WF.format("reuse"), "inner")
    assert [c.evidence.yaml_path for c in g.node(unknown).untrusted_code] == ["jobs.inner.steps[0].run"]
    assert _secrets(g, unknown) == ["secret:*/*:DEAD", "secret:*/*:LIVE"]
