"""Outsider text under discussion, discussion_comment, gollum and review events; a step's env shadowing a tainted
workflow variable; jobs that need a job that never runs (the fresh user's re-check of session 28, items 2, 5, 6).

- Untrusted contexts by their ending (https://docs.github.com/en/actions/concepts/security/script-injections):
  ``github.event.discussion.title``/``.body``, ``github.event.comment.body`` (discussion_comment),
  ``github.event.pages.*.page_name`` (gollum), ``github.event.review.body`` (pull_request_review).
- Step env overrides job and workflow env (https://docs.github.com/en/actions/reference/workflows-and-actions/variables).
- "If a job fails or is skipped, all jobs that need it are skipped unless the jobs use a conditional expression that
  causes the job to continue" (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idneeds).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphkit.build import build_graph
from graphkit.model import EdgeKind, ids

INVENTORY = """\
schema: graphkit.runner-inventory/v1
organizations:
  - name: o
    runner_groups:
      - name: Default
        visibility: all
        allows_public_repositories: true
repositories:
  - full_name: o/r
    visibility: {visibility}
    default_branch: main
    secrets: [S1]
    secrets_complete: true
runners:
  - name: sh1
    labels: [self-hosted, linux]
    scope: o
    runner_group: Default
    ephemeral: false
"""


def _build(tmp_path: Path, text: str, visibility: str = "public"):
    folder = tmp_path / "repos" / "o__r" / ".github" / "workflows"
    folder.mkdir(parents=True)
    (folder / "w.yml").write_text(text)
    inv = tmp_path / "inv.yaml"
    inv.write_text(INVENTORY.format(visibility=visibility))
    res = build_graph({"github-actions": [tmp_path / "repos"], "runners": [inv]})
    assert res.problems == []
    return res.graph


def _entries(graph, job: str) -> dict[str, list]:
    """actor/event -> [confidence, guards] of the outsider entries into ``job`` (the writer's left out)."""
    jid = ids.job("o/r", ".github/workflows/w.yml", job)
    return {f"{e.source.split(':')[1]}/{e.key}": [e.confidence.value, e.props["guards"]]
            for e in graph.in_edges(jid) if e.kind is EdgeKind.CAN_TRIGGER and e.key != "write"}


STEP = """\
on: {on}
jobs:
  j:
{job_if}    runs-on: [self-hosted]
    steps:
      - run: {run}
        env: {{T: "${{{{ secrets.S1 }}}}"}}
"""


@pytest.mark.parametrize("on, run, expected", [
    ("{discussion: {types: [created]}}", 'echo "${{ github.event.discussion.title }}"',
     {"comment/discussion": ["certain", ["discussion-privileged", "script-injection"]]}),
    ("[discussion_comment]", 'echo "${{ github.event.comment.body }}"',
     {"comment/discussion_comment": ["certain", ["discussion-privileged", "script-injection"]]}),
    ("[discussion_comment]", "echo '${{ github.event.discussion.body }}'",
     {"comment/discussion_comment": ["certain", ["discussion-privileged", "script-injection"]]}),
    # by default only collaborators edit a wiki: possible
    ("[gollum]", 'echo "${{ github.event.pages[0].page_name }}"',
     {"comment/gollum": ["possible", ["gollum-wiki-editors", "script-injection"]]}),
    ("[gollum]", "echo ${{ toJSON(github.event.pages.*.title) }}",
     {"comment/gollum": ["possible", ["gollum-wiki-editors", "script-injection"]]}),
    # a page's sha is not text the editor chose
    ("[gollum]", "echo ${{ github.event.pages[0].sha }}", {}),
    # a same-repository pull request's review runs with secrets: possible (one must be open)
    ("[pull_request_review]", 'echo "${{ github.event.review.body }}"',
     {"comment/pull_request_review": ["possible", ["review-same-repository", "script-injection"]]}),
    # the discussion's title is null under issue_comment: no entry there
    ("[issue_comment]", 'echo "${{ github.event.discussion.title }}"', {}),
])
def test_outsider_text_events(tmp_path, on, run, expected):
    g = _build(tmp_path, STEP.format(on=on, run=run, job_if=""))
    assert _entries(g, "j") == expected


def test_discussion_on_a_private_repository_is_possible(tmp_path):
    g = _build(tmp_path, STEP.format(on="[discussion]", run='echo "${{ github.event.discussion.body }}"', job_if=""),
               visibility="private")
    assert _entries(g, "j") == {"comment/discussion": ["possible", ["discussion-privileged", "script-injection"]]}


@pytest.mark.parametrize("job_if, expected", [
    # the discussion's author must be a member: an outsider's discussion is skipped, the entry is gated
    ("github.event.discussion.author_association == 'MEMBER'",
     {"comment/discussion": ["possible", ["discussion-privileged", "script-injection", "author-association"]]}),
    # no pull request in a discussion's payload: false for every discussion run
    ("github.event.pull_request.head.repo.full_name == github.repository", {}),
])
def test_a_job_if_under_discussion(tmp_path, job_if, expected):
    g = _build(tmp_path, STEP.format(on="[discussion]", run='echo "${{ github.event.discussion.title }}"',
                                     job_if=f"    if: {job_if}\n"))
    assert _entries(g, "j") == expected


def test_a_step_env_shadows_a_tainted_workflow_variable(tmp_path):
    text = """\
on: {issues: {types: [opened]}}
env:
  TITLE: ${{ github.event.issue.title }}
jobs:
  step_shadow:
    runs-on: [self-hosted]
    steps:
      - run: echo "${{ env.TITLE }}"
        env: {TITLE: fixed}
      - run: echo "${{ env.title }}"
        env: {Title: fixed}
  other_step:
    runs-on: [self-hosted]
    steps:
      - run: echo ok
        env: {TITLE: fixed}
      - run: echo "${{ env.TITLE }}"
"""
    g = _build(tmp_path, text)
    job = g.node(ids.job("o/r", ".github/workflows/w.yml", "step_shadow"))
    assert job.untrusted_code == []
    assert _entries(g, "step_shadow") == {}
    # another step's env does not shadow it for the next step
    other = g.node(ids.job("o/r", ".github/workflows/w.yml", "other_step"))
    assert [(c.how, c.evidence.yaml_path) for c in other.untrusted_code] == [("injection", "jobs.other_step.steps[1].run")]


NEEDS = """\
on: pull_request_target
jobs:
  never:
    if: false
    runs-on: [self-hosted]
    steps: [{run: echo}]
  dep:
    needs: never
    runs-on: [self-hosted]
    steps:
      - run: echo "${{ github.event.pull_request.title }}"
        env: {T: "${{ secrets.S1 }}"}
  chained:
    needs: [dep]
    if: github.event.action == 'opened'
    runs-on: [self-hosted]
    steps:
      - run: echo "${{ github.event.pull_request.title }}"
  succ:
    needs: never
    if: success() && true
    runs-on: [self-hosted]
    steps:
      - run: echo "${{ github.event.pull_request.title }}"
  always:
    needs: [Never]
    if: always()
    runs-on: [self-hosted]
    steps:
      - run: echo "${{ github.event.pull_request.title }}"
  notcancelled:
    needs: dep
    if: ${{ !cancelled() }}
    runs-on: [self-hosted]
    steps:
      - run: echo "${{ github.event.pull_request.title }}"
  afteralways:
    needs: always
    runs-on: [self-hosted]
    steps:
      - run: echo "${{ github.event.pull_request.title }}"
  firstalways:
    needs: never
    if: ${{ always() && needs.never.result == 'skipped' }}
    runs-on: [self-hosted]
    steps:
      - run: echo "${{ github.event.pull_request.title }}"
"""


def test_jobs_needing_a_job_that_never_runs(tmp_path):
    g = _build(tmp_path, NEEDS)
    jobs = {k: g.node(ids.job("o/r", ".github/workflows/w.yml", k))
            for k in ("never", "dep", "chained", "succ", "always", "notcancelled", "afteralways", "firstalways")}
    skipped = {k: (j.never_runs.yaml_path, j.never_runs.detail) for k, j in jobs.items() if j.never_runs is not None}
    assert skipped == {"never": ("jobs.never.if", "false"),
                       "dep": ("jobs.dep.needs", "needs never, which never runs"),
                       "chained": ("jobs.chained.needs", "needs dep, which never runs"),
                       "succ": ("jobs.succ.needs", "needs never, which never runs")}
    entered = {k for k in jobs if _entries(g, k)}
    assert entered == {"always", "notcancelled", "afteralways", "firstalways"}  # a status function first too
    assert not [e for e in g.out_edges(jobs["dep"].id) if e.kind is EdgeKind.READS_SECRET]


@pytest.mark.parametrize("on, job_if, expected", [
    # the reviewer's association is the outsider's: gated
    ("[pull_request_review]", "github.event.review.author_association == 'MEMBER'",
     {"comment/pull_request_review": ["possible", ["review-same-repository", "script-injection",
                                                   "author-association"]]}),
    ("[pull_request_review_comment]", "github.event.comment.user.login == 'trusted-bot'",
     {"comment/pull_request_review_comment": ["possible", ["review-same-repository", "script-injection",
                                                           "author-login"]]}),
    # only on a fork's pull request, whose review runs get no secrets: no entry
    ("[pull_request_review]", "github.event.pull_request.head.repo.full_name != github.repository", {}),
    ("[pull_request_review]", "github.event.pull_request.head.repo.fork", {}),
    # on a same-repository pull request: the entry as it is (the head repository is this one)
    ("[pull_request_review]", "github.event.pull_request.head.repo.full_name == github.repository",
     {"comment/pull_request_review": ["possible", ["review-same-repository", "script-injection"]]}),
    # the pull request's author is not the reviewer: not a guard under a review event
    ("[pull_request_review]", "github.event.pull_request.author_association == 'MEMBER'",
     {"comment/pull_request_review": ["possible", ["review-same-repository", "script-injection"]]}),
    ("[pull_request_review]", "github.event_name == 'pull_request'", {}),
    ("{pull_request_review: {types: [dismissed]}}", "github.event.action == 'submitted'", {}),
])
def test_a_job_if_under_review_events(tmp_path, on, job_if, expected):
    """The job ``if`` of a review run on a same-repository pull request is the branch's, not the reviewer's
    (https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#pull_request_review)."""
    text = 'echo "${{ github.event.review.body }}" "${{ github.event.comment.body }}"'
    g = _build(tmp_path, STEP.format(on=on, run=text, job_if=f"    if: {job_if}\n"))
    assert _entries(g, "j") == expected


@pytest.mark.parametrize("event", ["pull_request_review", "pull_request_review_comment"])
def test_a_forks_review_run_reaches_runners_not_the_job(tmp_path, event):
    """A fork's review runs get a read-only token and no secrets, like pull_request: the fork's code reaches the
    runners (rule 1), never the job's secrets, whatever it checks out."""
    text = STEP.format(on=f"[{event}]", run="echo ok", job_if="").replace(
        "      - run: echo ok\n", "      - uses: actions/checkout@v3\n        with: {ref: '${{ github.event.pull_request.head.sha }}'}\n"
        "      - run: echo ok\n")
    g = _build(tmp_path, text)
    assert _entries(g, "j") == {}
    fork = [(e.target, e.confidence.value, e.props["guards"]) for e in g.out_edges(ids.untrusted("fork-pr", "o"))]
    assert fork == [(ids.runner("o", "sh1"), "certain", ["fork-pr-approval-public", "fork-pr-no-secrets"])]
