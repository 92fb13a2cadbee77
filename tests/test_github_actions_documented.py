"""GitHub Actions forms where graphkit disagreed with what GitHub documents, each found in a public bug report of
a tool in this field, with the smallest workflow that shows it (real shapes) and the values GitHub's docs give.

- YAML merge keys (``<<``): GitHub reads anchors and aliases, not merge keys
  (https://docs.github.com/en/actions/reference/workflows-and-actions/reusing-workflow-configurations#yaml-anchors-and-aliases;
  https://github.com/actions/runner/issues/1182, https://github.com/Cotal-AI/Cotal/issues/1396).
- ``pull_request_target`` ``types: [labeled]`` without an ``if`` is behind a label; without ``types`` it never
  runs on ``labeled`` (https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#pull_request_target).
- ``github.event.workflow_run.event == 'push'`` is never an outsider's run (pytorch/ao ``ci-failure-issue.yml``).
- A ``workflow_run`` of workflows that run only on push/dispatch/schedule is no fork entry
  (https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#workflow_run;
  https://github.com/github/codeql/issues/19834).
- An environment that may be empty reads its secrets ``possible``.
- ``artifact-metadata`` is a documented GITHUB_TOKEN scope.
- Script injection (``${{ github.event.issue.title }}`` in ``run:``), ``issues`` as a privileged event
  (https://docs.github.com/en/actions/reference/security/secure-use#understanding-the-risk-of-script-injections).
- ``secrets: inherit`` across organizations (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idsecretsinherit).
- ``github.event.pull_request.merged`` and ``.user.login`` guards (zizmor ``bot-conditions``,
  https://github.com/zizmorcore/zizmor/issues/170; neovim/neovim#40410).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from graphkit.build import build_graph
from graphkit.errors import InputError
from graphkit.model import EdgeKind, ids
from ingest.github_actions import parse_workflow
from ingest.github_actions.parse import MERGE_KEY_REASON
from ingest.github_actions.permissions import parse_permissions, possible_repository_writes, repository_writes

MERGED_JOB = """\
on:
  pull_request_target:
jobs:
  a: &base
    runs-on: [self-hosted, linux]
    steps:
      - run: make
  b:
    <<: *base
    runs-on: [self-hosted, gpu]
"""


@pytest.mark.parametrize("text, line", [
    (MERGED_JOB, 9),
    # a merge key in a step's env (the shape of the Cotal and smcleod.net reports)
    ("on: push\nenv: &common\n  A: '1'\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: env\n"
     "        env:\n          <<: *common\n          B: '2'\n", 10),
    # a merge of an inline mapping (no alias) and a list of aliases
    ("on: push\njobs:\n  a:\n    <<: {runs-on: ubuntu-latest}\n    steps: [{run: x}]\n", 4),
    ("on:\n  push: &p {branches: [main]}\n  pull_request:\n    <<: [*p]\njobs:\n  a:\n    runs-on: ubuntu-latest\n"
     "    steps: [{run: x}]\n", 4),
])
def test_a_merge_key_makes_the_workflow_invalid(text, line):
    with pytest.raises(InputError) as exc:
        parse_workflow(text, file=".github/workflows/ci.yml", repository="acme/app")
    assert (exc.value.file, exc.value.place) == (".github/workflows/ci.yml", f"line {line}")
    assert exc.value.reason == "invalid YAML: " + MERGE_KEY_REASON


def test_anchors_and_aliases_without_merge_keys_are_read():
    text = ("on:\n  push:\n    paths: &paths [src/**]\n  pull_request:\n    paths: *paths\njobs:\n  a: &job\n"
            "    runs-on: [self-hosted, linux]\n    steps:\n      - run: make <<EOF\n  b: *job\n  c:\n"
            "    runs-on: ubuntu-latest\n    env: {'<<': quoted}\n    steps: [{run: x}]\n")
    wf = parse_workflow(text, file=".github/workflows/ci.yml", repository="acme/app")
    assert [(t.event, t.paths) for t in wf.events] == [("push", ("src/**",)), ("pull_request", ("src/**",))]
    assert {k: j.runs_on for k, j in wf.jobs.items()} == {"a": ["self-hosted", "linux"],
                                                          "b": ["self-hosted", "linux"], "c": "ubuntu-latest"}
    assert wf.jobs["c"].env == {"<<": "quoted"} and wf.jobs["a"].steps[0].run == "make <<EOF"


# ------------------------------------------------------------------------------------------------ entries


FIXTURE = Path(__file__).parent / "fixtures" / "rules" / "untrusted-path-to-self-hosted-runner"
FORK = ids.untrusted("fork-pr", "acme")


def _fork_entries(tmp_path: Path, text: str, job: str = "preview") -> list[tuple[str, list[str], list[str]]]:
    """(confidence, guards, evidence YAML paths) of the fork-pr entries into ``job`` of ``text``
    (acme/site ``.github/workflows/pwn.yml``), the writer's own entry left out."""
    folder = tmp_path / "acme__site" / ".github" / "workflows"
    folder.mkdir(parents=True)
    (folder / "pwn.yml").write_text(text)
    res = build_graph({"github-actions": [tmp_path / "acme__site"],
                       "runners": [FIXTURE / "positive" / "inventory.yaml"]})
    assert res.problems == []
    jid = ids.job("acme/site", ".github/workflows/pwn.yml", job)
    return [(e.confidence.value, e.props["guards"], [v.yaml_path for v in e.evidence])
            for e in res.graph.out_edges(FORK) if e.target == jid and e.kind is EdgeKind.CAN_TRIGGER]


LABELED = """\
on:
  pull_request_target:
    types: {types}
jobs:
  preview:
    runs-on: [self-hosted, gpu]
    steps:
      - uses: actions/checkout@v3
        with:
          ref: ${{{{ github.event.pull_request.head.sha }}}}
      - run: make preview
"""


@pytest.mark.parametrize("types, expected", [
    # only a labelling (triage access) starts it: the ok-to-test pattern without an if
    # (https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#pull_request_target)
    ("[labeled]", [("possible", ["label-gate", "pull-request-target-privileged"], ["jobs.preview.steps[0]",
                                                                                  "on.pull_request_target"])]),
    ("[labeled, unlabeled]", [("possible", ["label-gate", "pull-request-target-privileged"],
                               ["jobs.preview.steps[0]", "on.pull_request_target"])]),
    # the author's own push (synchronize) starts it too: no gate
    ("[labeled, synchronize]", [("certain", ["pull-request-target-privileged"], ["jobs.preview.steps[0]"])]),
    ("[closed]", [("certain", ["pull-request-target-privileged"], ["jobs.preview.steps[0]"])]),
])
def test_a_labeled_only_pull_request_target_is_label_gated(tmp_path, types, expected):
    """actions/checkout v3 has no fork guard: the head checkout is an entry, gated only by the trigger's types."""
    assert _fork_entries(tmp_path, LABELED.format(types=types)) == expected


ARTIFACT = """\
on:
  workflow_run:
    workflows: [CI]
    types: [completed]
jobs:
  preview:
    if: {job_if}
    runs-on: [self-hosted, linux]
    steps:
      - uses: actions/download-artifact@v4
        with:
          run-id: ${{{{ github.event.workflow_run.id }}}}
      - run: ./deploy-preview.sh
"""


@pytest.mark.parametrize("job_if, expected", [
    # push-to-main failures only (the pytorch/ao ci-failure-issue.yml shape): an outsider pushes nothing
    ("github.event.workflow_run.event == 'push' && github.event.workflow_run.head_branch == 'main'", []),
    ("github.event.workflow_run.event == 'schedule' || github.event.workflow_run.event == 'workflow_dispatch'", []),
    # a fork's pull_request run: the artifact is the fork's (possible: what the job does with it is not read)
    ("github.event.workflow_run.event == 'pull_request'",
     [("possible", ["workflow-run-privileged"], ["jobs.preview.steps[0]"])]),
])
def test_workflow_run_event_of_the_triggering_run(tmp_path, job_if, expected):
    assert _fork_entries(tmp_path, ARTIFACT.format(job_if=job_if)) == expected


# ------------------------------------------------------------------------------------------------ environment


EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "acme"
PUBLISH = "job:acme/app/.github/workflows/release.yml#publish"


def _publish_reads(tmp_path: Path, environment: str, repo_secrets: str = "[PYPI_API_TOKEN, CODECOV_TOKEN]"):
    """The example's release job with ``environment:`` replaced; acme/app's repository secrets replaced."""
    root = tmp_path / "acme"
    shutil.copytree(EXAMPLE, root)
    release = root / "repos/acme__app/.github/workflows/release.yml"
    text = release.read_text(encoding="utf-8")
    assert "    environment: production\n" in text
    release.write_text(text.replace("    environment: production\n", f"    environment: {environment}\n"))
    inventory = root / "inventory.yaml"
    text = inventory.read_text(encoding="utf-8")
    assert text.count("    secrets: [PYPI_API_TOKEN, CODECOV_TOKEN]\n") == 1
    inventory.write_text(text.replace("    secrets: [PYPI_API_TOKEN, CODECOV_TOKEN]\n", f"    secrets: {repo_secrets}\n"))
    g = build_graph({"github-actions": [root / "repos"], "runners": [inventory],
                     "aws-iam": [root / "aws-iam.json"]}).graph
    return g.node(PUBLISH), {e.target: e.confidence.value for e in g.out_edges(PUBLISH)
                             if e.kind is EdgeKind.READS_SECRET and e.target.startswith(("secret:env", "secret:repo"))}


MAYBE_EMPTY = "${{ github.ref == 'refs/heads/main' && 'production' || '' }}"


@pytest.mark.parametrize("environment, repo_secrets, optional, expected", [
    # the named environment in every run: its secrets shadow the repository's, certain
    ("production", "[PYPI_API_TOKEN, COSIGN_PASSWORD]", False,
     {"secret:env:acme/app:production:COSIGN_PRIVATE_KEY": "certain",
      "secret:env:acme/app:production:COSIGN_PASSWORD": "certain", "secret:repo:acme/app:PYPI_API_TOKEN": "certain"}),
    # the name or nothing (the pytorch/test-infra 'pytorchbot-env' shape): a run without an environment gets no
    # environment secret, and the repository's COSIGN_PASSWORD instead
    (MAYBE_EMPTY, "[PYPI_API_TOKEN, COSIGN_PASSWORD]", True,
     {"secret:env:acme/app:production:COSIGN_PRIVATE_KEY": "possible",
      "secret:env:acme/app:production:COSIGN_PASSWORD": "possible",
      "secret:repo:acme/app:COSIGN_PASSWORD": "possible", "secret:repo:acme/app:PYPI_API_TOKEN": "certain"}),
    (MAYBE_EMPTY, "[PYPI_API_TOKEN]", True,
     {"secret:env:acme/app:production:COSIGN_PRIVATE_KEY": "possible",
      "secret:env:acme/app:production:COSIGN_PASSWORD": "possible", "secret:repo:acme/app:PYPI_API_TOKEN": "certain"}),
])
def test_an_environment_that_may_be_empty_reads_its_secrets_possible(tmp_path, environment, repo_secrets, optional,
                                                                     expected):
    job, reads = _publish_reads(tmp_path, environment, repo_secrets)
    assert (job.environment, job.environment_optional) == ("production", optional)
    assert reads == expected


# ------------------------------------------------------------------------------------------------ workflow_run upstream

MEMBER = ids.untrusted("org-member", "acme")
UPSTREAM = """\
{name}on: {on}
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: make dist
      - uses: actions/upload-artifact@v4
        with: {{name: dist, path: dist}}
"""
PUBLISH_WF = """\
on:
  workflow_run:
    workflows: {workflows}
    types: [completed]
jobs:
  publish:
    runs-on: [self-hosted, linux]
    steps:
      - uses: actions/download-artifact@v4
        with:
          run-id: ${{{{ github.event.workflow_run.id }}}}
      - run: ./publish.sh
        env:
          TOKEN: ${{{{ secrets.PYPI_TOKEN }}}}
"""


def _publish_entries(tmp_path: Path, upstream: dict[str, str], workflows: str) -> dict[str, list[str]]:
    folder = tmp_path / "acme__app" / ".github" / "workflows"
    folder.mkdir(parents=True)
    for file, text in upstream.items():
        (folder / file).write_text(text)
    (folder / "publish.yml").write_text(PUBLISH_WF.format(workflows=workflows))
    res = build_graph({"github-actions": [tmp_path / "acme__app"]})
    jid = ids.job("acme/app", ".github/workflows/publish.yml", "publish")
    return {e.source: e.props["guards"] for e in res.graph.in_edges(jid) if e.kind is EdgeKind.CAN_TRIGGER}


RELEASE = UPSTREAM.format(name="name: Release build\n", on="{push: {branches: [main]}, workflow_dispatch: null}")
TESTS = UPSTREAM.format(name="name: Tests\n", on="[push, pull_request]")
NIGHTLY = UPSTREAM.format(name="", on="{schedule: [{cron: '0 3 * * *'}]}")
WRITERS = {MEMBER: ["workflow-run-privileged", "workflow-run-writers-only", "org-member-write"]}
FORKS = {FORK: ["workflow-run-privileged"], MEMBER: ["workflow-run-privileged", "org-member-write"]}


@pytest.mark.parametrize("upstream, workflows, expected", [
    # the triggering workflow runs on push and dispatch only: its artifact is a writer's
    ({"release.yml": RELEASE}, "['Release build']", WRITERS),
    ({"release.yml": RELEASE}, "['Release*']", WRITERS),  # a filter pattern
    ({"nightly.yml": NIGHTLY}, "[.github/workflows/nightly.yml]", WRITERS),  # no name: its path
    # one of them runs on a fork's pull_request: the fork's artifact (the CodeQL / Security Lab shape)
    ({"release.yml": RELEASE, "tests.yml": TESTS}, "['Release build', Tests]", FORKS),
    ({"release.yml": RELEASE, "tests.yml": TESTS}, "['*']", FORKS),
    # a name no read workflow has: unknown, the entry stays
    ({"release.yml": RELEASE}, "['Release build', Deploy]", FORKS),
    ({"release.yml": RELEASE}, "[Build]", FORKS),
])
def test_workflow_run_of_workflows_only_writers_start(tmp_path, upstream, workflows, expected):
    assert _publish_entries(tmp_path, upstream, workflows) == expected


CHAIN = """\
name: Package
on:
  workflow_run:
    workflows: [{upstream}]
    types: [completed]
jobs:
  package:
    runs-on: ubuntu-latest
    steps: [{{run: make package}}]
"""


@pytest.mark.parametrize("upstream, expected", [
    ("'Release build'", WRITERS),  # Release build (push) -> Package -> publish
    ("Tests", FORKS),  # Tests (a fork's pull_request) -> Package -> publish
])
def test_a_workflow_run_chain_is_followed(tmp_path, upstream, expected):
    files = {"release.yml": RELEASE, "tests.yml": TESTS, "package.yml": CHAIN.format(upstream=upstream)}
    assert _publish_entries(tmp_path, files, "[Package]") == expected


# ------------------------------------------------------------------------------------------------ checkout forms

CHECKOUT_RUN = """\
on:
  workflow_run:
    workflows: [CI]
    types: [completed]
jobs:
  preview:
    runs-on: [self-hosted, linux]
    steps:
      - uses: actions/checkout@v3
        with:
{with_args}      - run: npm ci && npm run deploy-preview
"""


@pytest.mark.parametrize("with_args, expected", [
    # head_commit.id is the head SHA of the triggering run (webhook payload workflow_run.head_commit)
    ("          ref: ${{ github.event.workflow_run.head_commit.id }}\n",
     [("certain", ["workflow-run-privileged"], ["jobs.preview.steps[0]"])]),
    ("          repository: ${{ github.event.workflow_run.head_repository.full_name }}\n"
     "          ref: ${{ github.event.workflow_run.head_branch }}\n",
     [("certain", ["workflow-run-privileged"], ["jobs.preview.steps[0]"])]),
    # the default branch of the base repository: no fork code
    ("          ref: ${{ github.event.repository.default_branch }}\n", []),
])
def test_workflow_run_checkout_forms(tmp_path, with_args, expected):
    """actions/checkout v3 (no fork guard) in a workflow_run job; CI is not in the input (unknown upstream)."""
    assert _fork_entries(tmp_path, CHECKOUT_RUN.format(with_args=with_args)) == expected


# ------------------------------------------------------------------------------------------------ permissions


def test_artifact_metadata_is_a_documented_scope():
    """``artifact-metadata: read|write|none`` (GitHub docs "Controlling permissions for GITHUB_TOKEN"): a
    documented scope that changes no code and starts no run.  Before, it was an undocumented scope, hence a
    possible repository write, and ``write-all`` / ``read-all`` left it out."""
    block = parse_permissions({"artifact-metadata": "write", "attestations": "write"}, file="w.yml",
                              path="permissions")
    assert (block["artifact-metadata"], block["contents"]) == ("write", "none")
    assert repository_writes(block) == [] and possible_repository_writes(block) == []
    assert parse_permissions("write-all", file="w.yml", path="permissions")["artifact-metadata"] == "write"
    assert parse_permissions("read-all", file="w.yml", path="permissions")["artifact-metadata"] == "read"
    assert parse_permissions({}, file="w.yml", path="permissions")["artifact-metadata"] == "none"


# ------------------------------------------------------------------------------------------------ script injection

COMMENT = ids.untrusted("comment", "acme")
INJECT = """\
on: {on}
jobs:
  preview:
{job_if}    runs-on: [self-hosted, gpu]
    steps:
      - uses: actions/checkout@v4
      - {step}
"""


def _injection_entries(tmp_path: Path, on: str, step: str, job_if: str = "") -> dict[str, list]:
    folder = tmp_path / "acme__site" / ".github" / "workflows"
    folder.mkdir(parents=True)
    (folder / "pwn.yml").write_text(INJECT.format(on=on, step=step, job_if=f"    if: {job_if}\n" if job_if else ""))
    res = build_graph({"github-actions": [tmp_path / "acme__site"],
                       "runners": [FIXTURE / "positive" / "inventory.yaml"]})
    assert res.problems == []
    jid = ids.job("acme/site", ".github/workflows/pwn.yml", "preview")
    return {f"{e.source.split(':')[1]}/{e.key}": [e.confidence.value, e.props["guards"], e.evidence[0].yaml_path]
            for e in res.graph.in_edges(jid) if e.kind is EdgeKind.CAN_TRIGGER and e.key != "write"
            and not e.source.endswith(("org-member:acme",))}


@pytest.mark.parametrize("on, step, expected", [
    # the documented example: an issue (or a pull request) title written into a run script
    ("{issues: {types: [opened]}}", 'run: echo "${{ github.event.issue.title }}"',
     {"comment/issues": ["certain", ["issues-privileged", "script-injection"], "jobs.preview.steps[1].run"]}),
    ("[issue_comment]", "run: ./ci.sh '${{ github.event.comment.body }}'",
     {"comment/issue_comment": ["certain", ["issue-comment-privileged", "script-injection"],
                                "jobs.preview.steps[1].run"],
      "fork-pr/issue_comment": ["certain", ["issue-comment-privileged", "script-injection"],
                                "jobs.preview.steps[1].run"]}),
    ("[pull_request_target]", "run: git push origin HEAD:${{ github.head_ref }}",
     {"fork-pr/pull_request_target": ["certain", ["script-injection", "pull-request-target-privileged"],
                                      "jobs.preview.steps[1].run"]}),
    # actions/github-script: the script is JavaScript the expression is pasted into
    ("[pull_request_target]", "{uses: actions/github-script@v7, with: {script: "
     "'console.log(\"${{ github.event.pull_request.title }}\")'}}",
     {"fork-pr/pull_request_target": ["certain", ["script-injection", "pull-request-target-privileged"],
                                      "jobs.preview.steps[1].with.script"]}),
    ("{workflow_run: {workflows: [CI], types: [completed]}}", "run: echo ${{ github.event.workflow_run.head_branch }}",
     {"fork-pr/workflow_run": ["certain", ["script-injection", "workflow-run-privileged"],
                               "jobs.preview.steps[1].run"]}),
    # the documented mitigation: through env, quoted as a shell variable
    ("[issue_comment, issues]", "{run: 'echo \"$BODY\"', env: {BODY: '${{ github.event.comment.body }}'}}", {}),
    # ... but ${{ env.BODY }} substitutes the value into the script like any expression
    ("[issue_comment]", "{run: 'echo \"${{ env.BODY }}\"', env: {BODY: '${{ github.event.comment.body }}'}}",
     {f"{a}/issue_comment": ["certain", ["issue-comment-privileged", "script-injection"], "jobs.preview.steps[1].run"]
      for a in ("comment", "fork-pr")}),
    # text the payload of that event does not carry: the pull request's title under issues is empty
    ("[issues]", "run: echo ${{ github.event.pull_request.title }}", {}),
    # numbers and SHAs are not text an outsider writes
    ("[pull_request_target]", "run: echo ${{ github.event.pull_request.number }} ${{ github.event.pull_request.head.sha }}",
     {}),
])
def test_script_injection_entries(tmp_path, on, step, expected):
    assert _injection_entries(tmp_path, on, step) == expected


def test_a_job_if_gates_an_injection(tmp_path):
    """The comment must come from a member: the entry is possible, naming the guard (conditions module)."""
    found = _injection_entries(tmp_path, "[issue_comment]", "run: echo ${{ github.event.issue.body }}",
                               job_if="github.event.comment.author_association == 'MEMBER'")
    assert found == {f"{a}/issue_comment": ["possible", ["issue-comment-privileged", "script-injection",
                                                         "author-association"], "jobs.preview.steps[1].run"]
                     for a in ("comment", "fork-pr")}


# ------------------------------------------------------------------------------------------------ secrets: inherit

CALLER = """\
on: push
jobs:
  ext:
    uses: other/lib/.github/workflows/publish.yml@main
    secrets: inherit
  int:
    uses: acme/lib/.github/workflows/publish.yml@main
    secrets: inherit
  named:
    uses: other/lib/.github/workflows/publish.yml@main
    secrets:
      NPM_TOKEN: ${{ secrets.NPM_TOKEN }}
"""
CALLEE = """\
on: workflow_call
jobs:
  pub:
    runs-on: ubuntu-latest
    steps:
      - run: npm publish
        env:
          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}
"""


def test_secrets_inherit_passes_within_one_organization(tmp_path):
    """``secrets: inherit`` passes the caller's secrets to a workflow of its organization (certain); to another
    organization's only within one enterprise, not read (possible); an explicit ``secrets:`` mapping passes the
    names it lists to any workflow (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idsecretsinherit)."""
    for repo, text in (("acme__app", CALLER), ("other__lib", CALLEE), ("acme__lib", CALLEE)):
        folder = tmp_path / repo / ".github" / "workflows"
        folder.mkdir(parents=True)
        (folder / ("ci.yml" if repo == "acme__app" else "publish.yml")).write_text(text)
    g = build_graph({"github-actions": [tmp_path]}).graph
    caller = "job:acme/app/.github/workflows/ci.yml#"
    reads = {e.source.removeprefix(caller): e.confidence.value for e in g.edges()
             if e.kind is EdgeKind.READS_SECRET and e.target == "secret:acme/app:NPM_TOKEN"}
    assert reads == {"ext>other/lib/.github/workflows/publish.yml#pub": "possible",
                     "int>acme/lib/.github/workflows/publish.yml#pub": "certain",
                     "named>other/lib/.github/workflows/publish.yml#pub": "certain",
                     "named": "certain"}  # the calling job's secrets: mapping reads it


BACKPORT = """\
on:
  pull_request_target:
    types: [closed, labeled]
jobs:
  preview:
    if: {job_if}
    runs-on: [self-hosted, gpu]
    steps:
      - uses: actions/checkout@v3
        with:
          ref: ${{{{ github.event.pull_request.head.sha }}}}
      - run: ./backport.sh
"""


@pytest.mark.parametrize("job_if, expected", [
    # the backport pattern (neovim/neovim#40410): runs once a writer merged the pull request
    ("github.event.pull_request.merged == true",
     [("possible", ["pull-request-merged", "pull-request-target-privileged"],
       ["jobs.preview.steps[0]", "jobs.preview.if"])]),
    ("github.event.pull_request.merged && contains(github.event.pull_request.labels.*.name, 'backport')",
     [("possible", ["label-gate", "pull-request-merged", "pull-request-target-privileged"],
       ["jobs.preview.steps[0]", "jobs.preview.if"])]),
    # closing one's own pull request is the outsider's action: no guard
    ("github.event.action == 'closed'", [("certain", ["pull-request-target-privileged"], ["jobs.preview.steps[0]"])]),
])
def test_a_merged_pull_request_is_a_writers_act(tmp_path, job_if, expected):
    assert _fork_entries(tmp_path, BACKPORT.format(job_if=json.dumps(job_if))) == expected


def test_an_injection_through_workflow_env(tmp_path):
    """``env:`` at workflow level holding a pull request title, written as ``${{ env.TITLE }}`` in a script."""
    text = ("on: pull_request_target\nenv:\n  TITLE: ${{ github.event.pull_request.title }}\njobs:\n  preview:\n"
            "    runs-on: ubuntu-latest\n    steps:\n      - run: echo \"${{ env.TITLE }}\"\n"
            "      - run: echo \"$TITLE\"\n")
    folder = tmp_path / "acme__site" / ".github" / "workflows"
    folder.mkdir(parents=True)
    (folder / "pwn.yml").write_text(text)
    g = build_graph({"github-actions": [tmp_path / "acme__site"]}).graph
    job = g.node(ids.job("acme/site", ".github/workflows/pwn.yml", "preview"))
    assert [(c.how, c.events, c.evidence.yaml_path, c.evidence.detail) for c in job.untrusted_code] == [
        ("injection", ("pull_request_target",), "jobs.preview.steps[0].run", "${{ env.TITLE }}")]
