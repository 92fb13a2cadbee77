"""Script injection through inputs: outsider text passed in a caller's ``with:`` to a local composite action or to
a reusable workflow, and written into a script as ``${{ inputs.NAME }}``.

- A composite action's steps run in the caller's job; the caller's ``with:`` sets ``inputs``, and an expression in
  ``run:`` is substituted before the shell runs (GitHub docs "Metadata syntax", ``inputs``,
  https://docs.github.com/en/actions/reference/workflows-and-actions/metadata-syntax#inputs; "Understanding the
  risk of script injections",
  https://docs.github.com/en/actions/reference/security/secure-use#understanding-the-risk-of-script-injections).
- A reusable workflow's job runs in the caller's run with the inputs from ``jobs.<job_id>.with``
  (https://docs.github.com/en/actions/reference/workflows-and-actions/contexts#inputs-context); a ``boolean`` or
  ``number`` input holds no text
  (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#onworkflow_callinputsinput_idtype).

The entry is the script that expands the text, in the job that runs it; its evidence names the script and every
``with:`` the text went through.
"""

from __future__ import annotations

from graphkit.model import EdgeKind, ids
from conftest import workflows_graph

WF = ".github/workflows/{}.yml"
GREET = ".github/actions/greet/action.yml"


def _entries(graph, jid: str) -> dict[str, tuple]:
    """actor/event -> (confidence, guards, [(file, yaml_path, line)]) of the outsider entries into ``jid``."""
    return {f"{e.source.split(':')[1]}/{e.key}": (e.confidence.value, e.props["guards"],
                                                  [(v.file, v.yaml_path, v.line) for v in e.evidence])
            for e in graph.in_edges(jid) if e.kind is EdgeKind.CAN_TRIGGER and e.source.split(":")[1] != "org-member"}


CALLER = """\
on: {on}
jobs:
  greet:
    runs-on: ubuntu-latest
    steps:
      - uses: ./.github/actions/greet
{step_if}        with:
          title: ${{{{ github.event.pull_request.title }}}}
          number: ${{{{ github.event.pull_request.number }}}}
        env:
          TOKEN: ${{{{ secrets.S1 }}}}
"""

ACTION = """\
name: greet
inputs:
  title: {{description: the title}}
  number: {{description: the number}}
runs:
  using: composite
  steps:
    - run: echo "${{{{ inputs.number }}}}"
      shell: bash
{steps}"""

JOB = ids.job("o/r", WF.format("pr"), "greet")
PRT = ["script-injection", "pull-request-target-privileged"]


def test_a_composite_run_step_writing_a_tainted_input(tmp_path):
    g = workflows_graph(tmp_path, {WF.format("pr"): CALLER.format(on="pull_request_target", step_if=""),
                          GREET: ACTION.format(steps='    - run: echo "${{ inputs.title }}"\n      shell: bash\n')})
    (code,) = g.node(JOB).untrusted_code
    assert (code.how, code.events, code.evidence.file, code.evidence.yaml_path, code.evidence.detail) == (
        "injection", ("pull_request_target",), GREET, "runs.steps[1].run", "${{ inputs.title }}")
    assert [(v.file, v.yaml_path, v.line, v.detail) for v in code.via] == [
        (WF.format("pr"), "jobs.greet.steps[0].with.title", 8, "${{ github.event.pull_request.title }}")]
    assert _entries(g, JOB) == {"fork-pr/pull_request_target": (
        "certain", PRT, [(GREET, "runs.steps[1].run", 10), (WF.format("pr"), "jobs.greet.steps[0].with.title", 8)])}


def test_composite_forms_github_script_and_env(tmp_path):
    steps = """\
    - run: echo "$T"
      shell: bash
      env: {T: "${{ inputs.title }}"}
    - run: echo "${{ env.T }}"
      shell: bash
      env: {T: "${{ inputs.title }}"}
    - uses: actions/github-script@v7
      with:
        script: console.log("${{ inputs.title }}")
"""
    g = workflows_graph(tmp_path, {WF.format("pr"): CALLER.format(on="pull_request_target", step_if=""),
                          GREET: ACTION.format(steps=steps)})
    # the shell variable is the documented mitigation; ${{ env.T }} and the script are substituted first
    assert [(c.evidence.yaml_path, c.evidence.detail, [v.yaml_path for v in c.via])
            for c in g.node(JOB).untrusted_code] == [
        ("runs.steps[2].run", "${{ env.T }}", ["jobs.greet.steps[0].with.title"]),
        ("runs.steps[3].with.script", "${{ inputs.title }}", ["jobs.greet.steps[0].with.title"])]


def test_a_composite_under_pull_request_is_no_entry_into_the_job(tmp_path):
    # a fork's pull_request run has no secrets and runs the fork's own workflow: no job entry
    g = workflows_graph(tmp_path, {WF.format("pr"): CALLER.format(on="pull_request", step_if=""),
                          GREET: ACTION.format(steps='    - run: echo "${{ inputs.title }}"\n      shell: bash\n')})
    assert _entries(g, JOB) == {}


def test_the_caller_steps_if_gates_the_composite_steps(tmp_path):
    cond = "        if: github.event.pull_request.head.repo.full_name == github.repository\n"
    g = workflows_graph(tmp_path, {WF.format("pr"): CALLER.format(on="pull_request_target", step_if=cond),
                          GREET: ACTION.format(steps='    - run: echo "${{ inputs.title }}"\n      shell: bash\n')})
    assert _entries(g, JOB) == {"fork-pr/pull_request_target": (
        "possible", ["script-injection", "same-repository-condition", "pull-request-target-privileged"],
        [(GREET, "runs.steps[1].run", 10), (WF.format("pr"), "jobs.greet.steps[0].with.title", 9),
         (WF.format("pr"), "jobs.greet.steps[0].if", 7)])}


def test_nested_composites_a_default_and_the_actions_own_text(tmp_path):
    outer = """\
name: outer
inputs:
  title: {description: t}
  body: {description: b, default: "${{ github.event.issue.body }}"}
runs:
  using: composite
  steps:
    - uses: ./.github/actions/inner
      with:
        text: ${{ inputs.title }}
    - run: echo "${{ inputs.body }}" "${{ github.event.issue.title }}"
      shell: bash
"""
    inner = """\
name: inner
inputs:
  text: {description: t}
runs:
  using: composite
  steps:
    - run: echo "${{ inputs.text }}"
      shell: bash
"""
    caller = """\
on: {issues: {types: [opened]}}
jobs:
  triage:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: ./.github/actions/outer
        with:
          title: ${{ github.event.issue.title }}
"""
    g = workflows_graph(tmp_path, {WF.format("issue"): caller, ".github/actions/outer/action.yml": outer,
                          ".github/actions/inner/action.yml": inner})
    jid = ids.job("o/r", WF.format("issue"), "triage")
    assert [(c.evidence.file, c.evidence.yaml_path, c.events, [(v.file, v.yaml_path) for v in c.via])
            for c in g.node(jid).untrusted_code] == [
        # outer's run writes the default (evaluated in the caller's run), then the title passed in
        (".github/actions/outer/action.yml", "runs.steps[1].run", ("issue_comment", "issues"),
         [(WF.format("issue"), "jobs.triage.steps[1].uses"),
          (".github/actions/outer/action.yml", "inputs.body.default")]),
        # inner's run writes the title through two with: (the caller's, then outer's)
        (".github/actions/inner/action.yml", "runs.steps[0].run", ("issue_comment", "issues"),
         [(WF.format("issue"), "jobs.triage.steps[1].with.title"),
          (".github/actions/outer/action.yml", "runs.steps[0].with.text")])]
    # possible: the repository's visibility is not known (a private one's issues are opened by readers only)
    assert _entries(g, jid)["comment/issues"][:2] == ("possible", ["issues-privileged", "script-injection"])


def test_a_remote_action_that_is_not_read_says_nothing(tmp_path):
    caller = CALLER.format(on="pull_request_target", step_if="").replace("./.github/actions/greet", "acme/greet@v1")
    g = workflows_graph(tmp_path, {WF.format("pr"): caller})
    assert g.node(JOB).untrusted_code == []
    assert _entries(g, JOB) == {}


REUSABLE_CALLER = """\
on: pull_request_target
jobs:
  call:
    uses: ./.github/workflows/lint.yml
    with:
      title: ${{ github.event.pull_request.title }}
      flag: ${{ github.event.pull_request.title }}
      count: ${{ github.event.pull_request.title }}
    secrets: inherit
"""
REUSABLE = """\
on:
  workflow_call:
    inputs:
      title: {type: string, required: true}
      flag: {type: boolean}
      count: {type: number}
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: echo "${{ inputs.flag }}" "${{ inputs.count }}"
      - run: echo "${{ inputs.title }}" ${{ secrets.S1 }}
"""


def test_a_reusable_workflow_writing_a_tainted_input(tmp_path):
    g = workflows_graph(tmp_path, {WF.format("pr"): REUSABLE_CALLER, WF.format("lint"): REUSABLE})
    called = ids.job("o/r", WF.format("lint"), "lint", caller=ids.job("o/r", WF.format("pr"), "call"))
    # the called job runs in the caller's run with its secrets: the entry is there; boolean and number inputs
    # hold no text
    assert _entries(g, called) == {"fork-pr/pull_request_target": (
        "certain", PRT, [(WF.format("lint"), "jobs.lint.steps[1].run", 12),
                         (WF.format("pr"), "jobs.call.with.title", 6)])}
    assert any(e.kind is EdgeKind.READS_SECRET for e in g.out_edges(called))
    # the instance for an unknown caller has no tainted input, the caller job runs no script
    assert _entries(g, ids.job("o/r", WF.format("lint"), "lint")) == {}
    assert _entries(g, ids.job("o/r", WF.format("pr"), "call")) == {}


def test_a_tainted_input_passed_on_to_a_composite_in_a_called_workflow(tmp_path):
    reusable = REUSABLE.replace('      - run: echo "${{ inputs.title }}" ${{ secrets.S1 }}\n',
                                "      - uses: ./.github/actions/greet\n        with: {title: '${{ inputs.title }}'}\n")
    g = workflows_graph(tmp_path, {WF.format("pr"): REUSABLE_CALLER, WF.format("lint"): reusable,
                          GREET: ACTION.format(steps='    - run: echo "${{ inputs.title }}"\n      shell: bash\n')})
    called = ids.job("o/r", WF.format("lint"), "lint", caller=ids.job("o/r", WF.format("pr"), "call"))
    assert _entries(g, called)["fork-pr/pull_request_target"][2] == [
        (GREET, "runs.steps[1].run", 10), (WF.format("pr"), "jobs.call.with.title", 6),
        (WF.format("lint"), "jobs.lint.steps[1].with.title", 13)]


def test_the_callers_if_gates_the_called_job(tmp_path):
    same = REUSABLE_CALLER.replace("    uses: ./.github/workflows/lint.yml\n",
                                   "    if: github.event.pull_request.head.repo.full_name == github.repository\n"
                                   "    uses: ./.github/workflows/lint.yml\n")
    g = workflows_graph(tmp_path, {WF.format("pr"): same, WF.format("lint"): REUSABLE})
    called = ids.job("o/r", WF.format("lint"), "lint", caller=ids.job("o/r", WF.format("pr"), "call"))
    assert [(v.event, v.outcome, v.guards, v.evidence.yaml_path) for v in g.node(called).condition] == [
        ("pull_request_target", "gated", ("same-repository-condition",), "jobs.call.if")]
    assert _entries(g, called) == {"fork-pr/pull_request_target": (
        "possible", ["script-injection", "same-repository-condition", "pull-request-target-privileged"],
        [(WF.format("lint"), "jobs.lint.steps[1].run", 12), (WF.format("pr"), "jobs.call.with.title", 7),
         (WF.format("pr"), "jobs.call.if", 4)])}


def test_a_caller_if_false_for_the_event_closes_the_called_job(tmp_path):
    # the workflow also runs on push, where the caller runs: the called job exists, but no pull_request_target
    # run reaches it
    push_only = REUSABLE_CALLER.replace("    uses: ./.github/workflows/lint.yml\n",
                                        "    if: github.event_name == 'push'\n    uses: ./.github/workflows/lint.yml\n")
    push_only = push_only.replace("on: pull_request_target\n", "on: [pull_request_target, push]\n")
    g = workflows_graph(tmp_path, {WF.format("pr"): push_only, WF.format("lint"): REUSABLE})
    called = ids.job("o/r", WF.format("lint"), "lint", caller=ids.job("o/r", WF.format("pr"), "call"))
    assert [c.evidence.yaml_path for c in g.node(called).untrusted_code] == ["jobs.lint.steps[1].run"]
    assert _entries(g, called) == {}


def test_a_caller_that_never_runs_calls_nothing(tmp_path):
    # pull_request_target alone starts the workflow and the caller's if wants push: the caller never runs
    push_only = REUSABLE_CALLER.replace("    uses: ./.github/workflows/lint.yml\n",
                                        "    if: github.event_name == 'push'\n    uses: ./.github/workflows/lint.yml\n")
    g = workflows_graph(tmp_path, {WF.format("pr"): push_only, WF.format("lint"): REUSABLE})
    caller = ids.job("o/r", WF.format("pr"), "call")
    assert g.node(caller).never_runs
    assert ids.job("o/r", WF.format("lint"), "lint", caller=caller) not in g
