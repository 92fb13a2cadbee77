"""What a job's or a step's ``if`` means for an outsider's privileged run: ``ingest/github_actions/conditions.py``
and its use in ``graphkit/resolve/untrusted.py`` (``Job.condition``, ``UntrustedCode.condition``).

Forms from GitHub docs "Evaluate expressions in workflows and actions"
(https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/evaluate-expressions-in-workflows-and-actions),
``jobs.<job_id>.if`` / ``steps[*].if``
(https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idif), the
webhook payloads per event (https://docs.github.com/en/webhooks/webhook-events-and-payloads) and
``CommentAuthorAssociation`` (https://docs.github.com/en/graphql/reference/enums#commentauthorassociation).
Real conditions come from the shared corpus (``../shared/corpus``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from conftest import require

from graphkit.build import build_graph
from graphkit.model import EdgeKind, ids
from ingest.github_actions.conditions import MAX_CHARS, MAX_DEPTH, MAX_TOKENS, parse_condition, verdicts

FIXTURE = Path(__file__).parent / "fixtures" / "rules" / "untrusted-path-to-self-hosted-runner"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "github-actions"
PRIVILEGED = {"pull_request_target": None, "workflow_run": ["completed"], "issue_comment": ["created"]}
FORK, COMMENT, MEMBER = (ids.untrusted(a, "acme") for a in ("fork-pr", "comment", "org-member"))
S, G = "skipped", "gated"
ALL_SKIPPED = [("issue_comment", S, ()), ("pull_request_target", S, ()), ("workflow_run", S, ())]


def said(condition, events=None):
    return [(v.event, v.outcome, v.guards) for v in verdicts(parse_condition(condition), events or PRIVILEGED)]


@pytest.mark.parametrize("condition, expected", [
    # the event: never the privileged fork trigger
    ("github.event_name == 'push'", ALL_SKIPPED),
    ("${{ github.event_name != 'pull_request_target' }}", [("pull_request_target", S, ())]),
    ("contains(fromJSON('[\"push\", \"schedule\"]'), github.event_name)",
     [("issue_comment", S, ()), ("pull_request_target", S, ()), ("workflow_run", S, ())]),
    ("!(github.event_name == 'pull_request_target' || github.event_name == 'workflow_run')",
     [("pull_request_target", S, ()), ("workflow_run", S, ())]),
    ("GitHub.Event_Name == 'PUSH'", ALL_SKIPPED),
    ("startsWith(github.event_name, 'pull_request')", [("issue_comment", S, ()), ("workflow_run", S, ())]),
    # the activity type: the trigger's types narrow the event's; pull_request_target without types runs on
    # opened, synchronize and reopened only (https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#pull_request_target)
    ("github.event.action == 'edited'", ALL_SKIPPED),
    ("github.event.action == 'labeled' && github.event.label.name == 'ok-to-test'", ALL_SKIPPED),
    ("github.event.label.name == 'ok-to-test'", ALL_SKIPPED),
    # a payload object the event lacks is null
    ("github.event.issue.pull_request", [("pull_request_target", S, ()), ("workflow_run", S, ())]),
    # label gates: someone with triage access labels
    ("contains(github.event.pull_request.labels.*.name, 'safe to test')",
     [("issue_comment", S, ()), ("pull_request_target", G, ("label-gate",)), ("workflow_run", S, ())]),
    ("contains(github.event.issue.labels.*.name, 'run-ci')",
     [("issue_comment", G, ("label-gate",)), ("pull_request_target", S, ()), ("workflow_run", S, ())]),
    # an outsider's comment or pull request is not OWNER / MEMBER / COLLABORATOR
    ("github.event.comment.author_association == 'OWNER' || github.event.comment.author_association == 'MEMBER'",
     [("issue_comment", G, ("author-association",)), ("pull_request_target", S, ()), ("workflow_run", S, ())]),
    ("contains(fromJSON('[\"OWNER\", \"MEMBER\", \"COLLABORATOR\"]'), github.event.comment.author_association)",
     [("issue_comment", G, ("author-association",)), ("pull_request_target", S, ()), ("workflow_run", S, ())]),
    ("contains('OWNER,MEMBER,COLLABORATOR', github.event.comment.author_association)",
     [("issue_comment", G, ("author-association",))]),
    ("github.event.pull_request.author_association != 'NONE' && "
     "github.event.pull_request.author_association != 'FIRST_TIME_CONTRIBUTOR'", []),
    ("github.event.pull_request.author_association == 'MEMBER'",
     [("issue_comment", S, ()), ("pull_request_target", G, ("author-association",)), ("workflow_run", S, ())]),
    # the head repository must be this one
    ("github.event.workflow_run.head_repository.full_name == github.repository",
     [("issue_comment", S, ()), ("pull_request_target", S, ()), ("workflow_run", G, ("same-repository-condition",))]),
    ("!github.event.workflow_run.head_repository.fork", [("workflow_run", G, ("same-repository-condition",))]),
    # two guards: either decides
    ("contains(github.event.pull_request.labels.*.name, 'ok') && !github.event.pull_request.head.repo.fork",
     [("issue_comment", S, ()), ("pull_request_target", G, ("same-repository-condition", "label-gate")),
      ("workflow_run", S, ())]),
    # an alternative of two guards: both are named
    ("contains(github.event.pull_request.labels.*.name, 'ok') || "
     "github.event.pull_request.author_association == 'MEMBER'",
     [("issue_comment", S, ()), ("pull_request_target", G, ("label-gate", "author-association")),
      ("workflow_run", S, ())]),
    # the author of the outsider's pull request, issue or comment is the outsider's account (zizmor bot-conditions:
    # user.login, not github.actor; https://docs.github.com/en/webhooks/webhook-events-and-payloads#pull_request)
    ("github.event.pull_request.user.login == 'dependabot[bot]'",
     [("issue_comment", S, ()), ("pull_request_target", G, ("author-login",)), ("workflow_run", S, ())]),
    ("github.event_name == 'push' || github.event.pull_request.user.login == 'bot'",
     [("issue_comment", S, ()), ("pull_request_target", G, ("author-login",)), ("workflow_run", S, ())]),
    ("contains(fromJSON('[\"alice\", \"renovate[bot]\"]'), github.event.comment.user.login)",
     [("issue_comment", G, ("author-login",)), ("pull_request_target", S, ()), ("workflow_run", S, ())]),
    ("github.event.issue.user.login == 'octocat'",
     [("issue_comment", G, ("author-login",)), ("pull_request_target", S, ()), ("workflow_run", S, ())]),
    # the event of the run that triggered workflow_run: an outsider causes no push, dispatch or schedule
    # (graphkit/data/untrusted_guards.json outsider_never_causes)
    ("github.event.workflow_run.event == 'push'", ALL_SKIPPED),
    ("github.event.workflow_run.event != 'pull_request' && github.event.workflow_run.event != 'pull_request_target'"
     " && github.event.workflow_run.event != 'issue_comment'", []),
    ("contains(fromJSON('[\"push\", \"schedule\", \"workflow_dispatch\"]'), github.event.workflow_run.event)",
     ALL_SKIPPED),
    ("github.event.workflow_run.event != 'push'", []),  # true for the outsider's run; null != 'push' elsewhere
    # literals (a YAML boolean is the literal too)
    ("false", [("issue_comment", S, ()), ("pull_request_target", S, ()), ("workflow_run", S, ())]),
    (False, [("issue_comment", S, ()), ("pull_request_target", S, ()), ("workflow_run", S, ())]),
])
def test_documented_forms(condition, expected):
    assert said(condition) == expected


SAME = ("same-repository-condition",)


@pytest.mark.parametrize("condition, repository, expected", [
    # a fork is another repository: its head repository never has the base repository's name
    # (https://docs.github.com/en/pull-requests/collaborating-with-pull-requests/working-with-forks/about-forks);
    # strings compare ignoring case (https://docs.github.com/en/actions/reference/workflows-and-actions/expressions#operators)
    ("github.event.pull_request.head.repo.full_name == 'acme/pub'", "acme/pub",
     [("issue_comment", S, ()), ("pull_request_target", G, SAME), ("workflow_run", S, ())]),
    ("github.event.pull_request.head.repo.full_name == 'ACME/Pub'", "acme/pub",
     [("issue_comment", S, ()), ("pull_request_target", G, SAME), ("workflow_run", S, ())]),
    ("'acme/pub' == github.event.workflow_run.head_repository.full_name", "Acme/Pub",
     [("issue_comment", S, ()), ("pull_request_target", S, ()), ("workflow_run", G, SAME)]),
    # another name may be a fork's (its owner names it): no guard
    ("github.event.pull_request.head.repo.full_name == 'other/repo'", "acme/pub",
     [("issue_comment", S, ()), ("workflow_run", S, ())]),
    ("github.event.pull_request.head.repo.full_name != 'acme/pub'", "acme/pub", []),  # true for a fork
    # the run's repository not known: the literal is not read as this repository
    ("github.event.pull_request.head.repo.full_name == 'acme/pub'", None,
     [("issue_comment", S, ()), ("workflow_run", S, ())]),
])
def test_a_literal_head_repository_is_the_same_repository_guard(condition, repository, expected):
    got = [(v.event, v.outcome, v.guards) for v in verdicts(parse_condition(condition), PRIVILEGED, repository)]
    assert got == expected


PR, IC = {"pull_request_target": None}, {"issue_comment": None}


@pytest.mark.parametrize("condition, events", [
    ("github.repository == 'acme/site'", PRIVILEGED),  # a fork's pull_request_target run is in the base repository
    ("github.repository_owner == 'acme'", PRIVILEGED),
    ("github.actor == 'dependabot[bot]'", PRIVILEGED),  # whoever triggered the latest event
    ("github.triggering_actor != 'octocat'", PRIVILEGED),
    ("always()", PRIVILEGED), ("success()", PRIVILEGED), ("failure() || cancelled()", PRIVILEGED),
    ("true", PRIVILEGED), ("'false'", PRIVILEGED), ("1", PRIVILEGED), ("!false", PRIVILEGED),
    ("x ${{ github.event_name == 'push' }}", PRIVILEGED),  # text around an expression: a non-empty string
    ("${{ github.event_name == 'push' }} ${{ false }}", PRIVILEGED),
    # a login the outsider chooses, or whoever caused the latest event (https://docs.zizmor.sh/audits/#bot-conditions)
    ("contains(github.event.pull_request.user.login, 'bot')", PR),
    ("endsWith(github.event.pull_request.user.login, '[bot]')", PR),
    ("github.event.sender.login == 'dependabot[bot]'", PRIVILEGED),
    ("github.event.pull_request.user.login != 'dependabot[bot]'", PR),
    ("github.event.workflow_run.event == 'pull_request'", {"workflow_run": ["completed"]}),
    ("github.event_name == 'push' || contains(github.event.comment.body, '/test')", IC),
    ("github.event.pull_request.head.repo.full_name != github.repository", PRIVILEGED),
    ("github.event.pull_request.head.repo.owner.login == github.repository_owner", PR),
    ("github.event.action == 'opened' || github.event.action == 'synchronize'", PR),
    ("github.event.label.name != 'hold'", PRIVILEGED),
    ("!contains(github.event.pull_request.labels.*.name, 'skip-ci')", PRIVILEGED),
    ("github.event_name == github.event_name", PRIVILEGED), ("matrix.os == 'linux'", PRIVILEGED),
    ("inputs.deploy", PRIVILEGED), ("hashFiles('x') != ''", PRIVILEGED),
    ("github.event.pull_request.number > 0", PR), ("fromJSON(inputs.events)[0] == 'push'", PRIVILEGED),
    (None, PRIVILEGED), (3, PRIVILEGED), ("", PRIVILEGED),
    ("github.event_name == 'push'", {"push": None, "pull_request": None}),  # no privileged event
])
def test_conditions_that_do_not_protect(condition, events):
    assert said(condition, events) == []


@pytest.mark.parametrize("condition", [
    "a" * (MAX_CHARS + 1),
    "(" * 100_000 + "true" + ")" * 100_000,
    "!" * 100_000 + "false",
    "contains(" * 1000 + "'x'" + ")" * 1000,
    "github" + ".x" * (MAX_TOKENS // 2 + 1),
    "a[" * 1000 + "0" + "]" * 1000,
    "(" * (MAX_DEPTH + 1) + "false" + ")" * (MAX_DEPTH + 1),
    "'unterminated", "github.event_name == 'push' &&", "a @ b", "${{ github.event_name == 'push' }",
    "fromJSON('" + "[" * 10_000 + "')",
])
def test_hostile_conditions_are_unread(condition):
    """Too long, too deep, too many tokens, or outside the grammar: unread (no verdict), never an exception;
    the length cap bounds the work (reading is one pass over at most ``MAX_CHARS`` characters)."""
    tree = parse_condition(condition)
    assert tree is None or verdicts(tree, PRIVILEGED) == []


def test_the_limits_still_read_a_long_real_chain():
    chain = " && ".join(["always()"] * 200 + ["github.event_name == 'push'"])
    assert len(chain) < MAX_CHARS and said(chain)[0] == ("issue_comment", S, ())
    nested = "(" * (MAX_DEPTH - 1) + "github.event_name == 'push'" + ")" * (MAX_DEPTH - 1)
    assert said(nested)[0] == ("issue_comment", S, ())
    assert said("fromJSON('[[[\"push\"]]]')[0] == github.event_name") == []


# ------------------------------------------------------------------------------------------------ build


def _repo(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / "acme__site" / ".github" / "workflows"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.yml").write_text(text)
    return tmp_path / "acme__site"


def _entries(tmp_path: Path, name: str, text: str, actor: str = FORK) -> list[tuple[str, list[str]]]:
    res = build_graph({"github-actions": [_repo(tmp_path, name, text)],
                       "runners": [FIXTURE / "positive" / "inventory.yaml"]})
    assert res.problems == []
    jid = ids.job("acme/site", f".github/workflows/{name}.yml", next(iter(yaml.safe_load(text)["jobs"])))
    return [(e.confidence.value, e.props["guards"]) for e in res.graph.out_edges(actor)
            if e.target == jid and e.kind is EdgeKind.CAN_TRIGGER and e.key != "write"]


PWN = """\
on: {on}
jobs:
  preview:
{job_if}    runs-on: [self-hosted, gpu]
    steps:
      - uses: actions/checkout@v4
{step_if}        with:
          ref: ${{{{ github.event.pull_request.head.sha }}}}
          allow-unsafe-pr-checkout: true
      - run: make preview
"""
PRT = ["checkout-refuses-fork-code", "pull-request-target-privileged"]


def gated(guard: str) -> list[str]:
    """The guards of a gated pull_request_target entry: the checkout's, the if's, then the event's."""
    return [PRT[0], guard, PRT[1]]


def pwn(condition=None, step=None, on="[push, pull_request_target]"):
    return PWN.format(on=on, job_if=f"    if: {json.dumps(condition)}\n" if condition is not None else "",
                      step_if=f"        if: {json.dumps(step)}\n" if step is not None else "")


@pytest.mark.parametrize("job_if, step_if, expected", [
    (None, None, [("certain", PRT)]),
    # the job never runs on the privileged fork trigger
    ("github.event_name == 'push'", None, []),
    ("github.event_name != 'pull_request_target'", None, []),
    ("contains(fromJSON('[\"push\",\"schedule\"]'), github.event_name)", None, []),
    # the step that checks out the head runs only for push
    (None, "github.event_name == 'push'", []),
    # label gate: possible, naming the guard
    ("contains(github.event.pull_request.labels.*.name, 'safe to test')", None, [("possible", gated("label-gate"))]),
    # pull_request_target without types runs on opened, synchronize and reopened: never labeled
    (None, "github.event.label.name == 'safe to test'", []),
    ("github.event.action == 'labeled'", "github.event.label.name == 'ok'", []),
    # trusted author accounts, by the pull request's author (not github.actor, below)
    ("github.event.pull_request.user.login == 'dependabot[bot]'", None, [("possible", gated("author-login"))]),
    # gated by the job, skipped by the step: no entry
    ("contains(github.event.pull_request.labels.*.name, 'ok')", "github.event_name != 'pull_request_target'", []),
    # the head repository named as this one (acme/site), in any case: a fork's is another repository
    ("github.event.pull_request.head.repo.full_name == 'Acme/Site'", None,
     [("possible", gated("same-repository-condition"))]),
    # not a protection: the entry stays certain
    ("github.event.pull_request.head.repo.full_name == 'other/site'", None, [("certain", PRT)]),
    ("github.repository == 'acme/site'", None, [("certain", PRT)]),
    ("github.repository_owner == 'acme'", None, [("certain", PRT)]),
    ("github.event_name == 'push' || github.actor == 'octocat'", None, [("certain", PRT)]),
    ("always()", None, [("certain", PRT)]),
    ("success()", "success()", [("certain", PRT)]),
    ("run ${{ github.event_name == 'push' }}", None, [("certain", PRT)]),
    ("github.actor == 'dependabot[bot]'", "github.actor == 'dependabot[bot]'", [("certain", PRT)]),
])
def test_pull_request_target_entries_read_the_ifs(tmp_path, job_if, step_if, expected):
    """``on: [push, pull_request_target]``, a job checking out the head (opted out of the checkout guard)."""
    assert _entries(tmp_path, "pwn", pwn(job_if, step_if)) == expected


def test_a_skipped_job_keeps_its_writer_entry_and_names_the_if(tmp_path):
    res = build_graph({"github-actions": [_repo(tmp_path, "pwn", pwn("github.event_name == 'push'"))],
                       "runners": [FIXTURE / "positive" / "inventory.yaml"]})
    jid = ids.job("acme/site", ".github/workflows/pwn.yml", "preview")
    job = res.graph.node(jid)
    assert [(v.event, v.outcome, v.evidence.file, v.evidence.yaml_path, v.evidence.line) for v in job.condition] == [
        ("pull_request_target", "skipped", ".github/workflows/pwn.yml", "jobs.preview.if", 4)]
    assert [(e.key, e.props["event"]) for e in res.graph.out_edges(MEMBER) if e.target == jid] == [("write", "push")]


@pytest.mark.parametrize("job_if, step_if, paths", [
    ("contains(github.event.pull_request.labels.*.name, 'ok')", None, ["jobs.preview.steps[0]", "jobs.preview.if"]),
    (None, "contains(github.event.pull_request.labels.*.name, 'ok')",
     ["jobs.preview.steps[0]", "jobs.preview.steps[0].if"]),
    ("always()", None, ["jobs.preview.steps[0]"]),
])
def test_a_gated_entry_carries_the_if_as_evidence(tmp_path, job_if, step_if, paths):
    res = build_graph({"github-actions": [_repo(tmp_path, "pwn", pwn(job_if, step_if))],
                       "runners": [FIXTURE / "positive" / "inventory.yaml"]})
    jid = ids.job("acme/site", ".github/workflows/pwn.yml", "preview")
    edge = next(e for e in res.graph.out_edges(FORK) if e.target == jid)
    assert [(e.file, e.yaml_path) for e in edge.evidence] == [(".github/workflows/pwn.yml", p) for p in paths]


def test_a_step_if_is_the_steps_evidence(tmp_path):
    res = build_graph({"github-actions": [_repo(tmp_path, "pwn", pwn(step="github.event_name == 'push'"))],
                       "runners": [FIXTURE / "positive" / "inventory.yaml"]})
    code = res.graph.node(ids.job("acme/site", ".github/workflows/pwn.yml", "preview")).untrusted_code
    assert [(v.event, v.outcome, v.evidence.yaml_path, v.evidence.line) for c in code for v in c.condition] == [
        ("pull_request_target", "skipped", "jobs.preview.steps[0].if", 7)]


COMMENT_WF = (FIXTURE / "positive" / "repos" / "acme__site" / ".github" / "workflows" / "comment.yml").read_text()


@pytest.mark.parametrize("job_if, expected", [
    (None, ("certain", ["issue-comment-privileged"])),
    ("contains(fromJSON('[\"OWNER\",\"MEMBER\",\"COLLABORATOR\"]'), github.event.comment.author_association)",
     ("possible", ["issue-comment-privileged", "author-association"])),
    ("github.event.issue.pull_request && github.event.comment.author_association == 'MEMBER'",
     ("possible", ["issue-comment-privileged", "author-association"])),
    ("github.event_name == 'push'", None),
    ("github.event.pull_request.head.repo.full_name == github.repository", None),  # no pull_request in the payload
    ("github.event.issue.pull_request && contains(github.event.comment.body, '/rebuild')",
     ("certain", ["issue-comment-privileged"])),
    ("!github.event.pull_request.head.repo.fork", ("certain", ["issue-comment-privileged"])),  # !null is true
])
def test_issue_comment_entries_read_the_job_if(tmp_path, job_if, expected):
    """The positive fixture's ``/rebuild`` job (``gh pr checkout`` on ``issue_comment``) with a job ``if``."""
    assert "  rebuild:\n    runs-on:" in COMMENT_WF
    text = COMMENT_WF if job_if is None else COMMENT_WF.replace(
        "  rebuild:\n", f"  rebuild:\n    if: {json.dumps(job_if)}\n")
    for actor in (COMMENT, FORK):
        assert _entries(tmp_path / actor.replace(":", "_"), "comment", text, actor) == (
            [expected] if expected else [])


# ------------------------------------------------------------------------------------------------ corpus


def _real(path: str, job: str, step: int | None = None) -> str:
    file = CORPUS / path
    require(file.is_file(), "the shared corpus is not beside the checkout", corpus=True)
    jd = yaml.safe_load(file.read_text(encoding="utf-8"))["jobs"][job]
    return jd["if"] if step is None else jd["steps"][step]["if"]


@pytest.mark.parametrize("path, job, step, expected", [
    # deploys on push to main only: never on the privileged fork trigger
    ("pytorch__test-infra/.github/workflows/gha-artifacts-lambda.yml", "deploy", None, []),
    ("pytorch__ao/.github/workflows/build_wheels_linux_x86.yml", "notify", None, []),
    ("pytorch__ao/.github/workflows/doc_build.yml", "upload", None, []),
    # pull request head repository must be this one (a step of grafana's reusable zizmor workflow)
    ("grafana__shared-workflows/.github/workflows/reusable-zizmor.yml", "analysis", 15,
     [("possible", gated("same-repository-condition"))]),
    # not protections
    ("sigstore__cosign/.github/workflows/scorecard-action.yml", "analysis", None, [("certain", PRT)]),
    ("sigstore__sigstore-python/.github/workflows/ci.yml", "test", None, [("certain", PRT)]),
    ("sigstore__sigstore-python/.github/workflows/ci.yml", "test", 6, [("certain", PRT)]),
    ("sigstore__sigstore-python/.github/workflows/ci.yml", "all-tests-pass", None, [("certain", PRT)]),
    ("grafana__shared-workflows/.github/workflows/reusable-zizmor.yml", "grafana-bench", None, [("certain", PRT)]),
    # dispatch, or a pull request whose author is the named account: an outsider's is not
    ("aws-actions__configure-aws-credentials/.github/workflows/tests-integ-release.yml", "oidc", None,
     [("possible", gated("author-login"))]),
    ("pytorch__ao/.github/workflows/doc_build.yml", "doc-preview", None, []),  # pull_request or dispatch
])
def test_real_conditions_on_a_pull_request_target_job(tmp_path, path, job, step, expected):
    """A real ``if`` of the corpus (job-level, or a step's put on the head checkout) on the pull_request_target
    job that checks out the head: the entry is gone, possible with the guard, or unchanged."""
    condition = _real(path, job, step)
    text = pwn(condition) if step is None else pwn(step=condition)
    assert _entries(tmp_path, "pwn", text) == expected


def test_real_privileged_workflows_of_the_corpus():
    """The corpus's own pull_request_target / workflow_run jobs: the aws-actions job runs for a pull request
    only when its author is ``aws-sdk-osds`` (``github.event.pull_request.user.login``: an outsider's pull
    request is theirs, gated ``author-login``); the pytorch/ao triage job runs for "real push-to-main
    failures" (``github.event.workflow_run.event == 'push'``, beside a ``head_branch`` a fork controls): never
    for a run an outsider caused (skipped)."""
    from ingest.github_actions import parse_workflow
    from ingest.github_actions.evidence import Src
    from ingest.github_actions.untrusted import job_condition

    for path, job, expected in [
            ("aws-actions__configure-aws-credentials/.github/workflows/tests-integ-release.yml", "oidc",
             [("pull_request_target", "gated", ("author-login",), "jobs.oidc.if", 10)]),
            ("pytorch__ao/.github/workflows/ci-failure-issue.yml", "triage",
             [("workflow_run", "skipped", (), "jobs.triage.if", 82)])]:
        _real(path, job)
        repo, _, file = path.partition("/")
        wf = parse_workflow((CORPUS / path).read_text(encoding="utf-8"), file=file, repository=repo.replace("__", "/"))
        assert {t.event for t in wf.events} & {"pull_request_target", "workflow_run"}
        assert [(v.event, v.outcome, v.guards, v.evidence.yaml_path, v.evidence.line) for v in job_condition(
            wf.jobs[job], Src(wf.file, wf.repository, wf.lines), f"jobs.{job}", wf.events)] == expected


WORKFLOW_RUN = """\
on:
  workflow_run:
    workflows: [CI]
    types: [completed]
jobs:
  report:
{job_if}    runs-on: [self-hosted, linux]
    steps:
      - uses: actions/download-artifact@v4
        with:
          run-id: ${{{{ github.event.workflow_run.id }}}}
      - run: ./report.sh
"""


@pytest.mark.parametrize("job_if, expected", [
    (None, [("possible", ["workflow-run-privileged"])]),
    ("github.event.workflow_run.conclusion == 'success'", [("possible", ["workflow-run-privileged"])]),
    ("github.event.workflow_run.head_repository.full_name == github.repository",
     [("possible", ["same-repository-condition", "workflow-run-privileged"])]),
    ("github.event.action == 'requested'", []),  # the trigger's types: completed only
    ("github.event.pull_request.head.repo.full_name == github.repository", []),  # no pull_request in the payload
])
def test_workflow_run_entries_read_the_job_if(tmp_path, job_if, expected):
    """A ``workflow_run`` job that downloads the triggering run's artifact (a possible entry, rule 2)."""
    text = WORKFLOW_RUN.format(job_if=f"    if: {json.dumps(job_if)}\n" if job_if else "")
    assert _entries(tmp_path, "report", text) == expected
