"""Each job records the events and refs it runs on (issue 10): ``ingest/github_actions/triggers.py`` and
``graphkit/refs.py``.

Written from GitHub docs "Workflow syntax for GitHub Actions" (``on``, ``on.<event>.branches``, filter pattern
cheat sheet: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#on) and "Events
that trigger workflows" (``GITHUB_REF`` per event:
https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphkit.model import Confidence, Evidence, Job, NodeKind, Trigger
from graphkit.refs import (BranchPolicy, RefSet, environment_access, job_refs, matches, refs_within,
                           trigger_refs)
from ingest.github_actions import INGESTOR, parse_workflow, to_graph

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "github-actions"
C, P = Confidence.CERTAIN, Confidence.POSSIBLE
EV = Evidence(file="ci.yml")

MAPPING = """\
on:
  push:
    branches: [main, 'release/**', '!release/**-rc']
    paths-ignore: ['docs/**']
  pull_request:
    types: [opened, synchronize]
    branches: main
  schedule:
    - cron: '0 3 * * 1'
  workflow_dispatch:
jobs:
  a:
    runs-on: ubuntu-latest
    steps: [{run: make}]
"""


def events(text: str):
    return parse_workflow(text, file=".github/workflows/ci.yml", repository="acme/app")


def test_mapping_form_keeps_filters_types_schedules_and_lines():
    wf = events(MAPPING)
    got = {t.event: t for t in wf.events}
    assert list(got) == ["push", "pull_request", "schedule", "workflow_dispatch"]
    assert got["push"].branches == ("main", "release/**", "!release/**-rc")
    assert got["push"].paths_ignore == ("docs/**",) and got["push"].tags is None
    assert got["pull_request"].types == ("opened", "synchronize")
    assert got["pull_request"].branches == ("main",)  # a lone pattern is one pattern
    assert got["schedule"].schedules == ("0 3 * * 1",)
    assert got["workflow_dispatch"].branches is None
    assert [got[e].evidence.line for e in ("push", "pull_request", "schedule", "workflow_dispatch")] == [2, 5, 8, 10]
    assert got["push"].evidence.yaml_path == "on.push" and wf.problems == ()


@pytest.mark.parametrize("on, expected", [
    ("on: push", ["push"]),
    ("on: [push, pull_request_target]", ["push", "pull_request_target"]),
    ("'on':\n  workflow_call:\n  merge_group:", ["workflow_call", "merge_group"]),
])
def test_string_list_and_mapping_forms(on, expected):
    wf = events(on + "\njobs:\n  a:\n    runs-on: x\n")
    assert [t.event for t in wf.events] == expected


def test_branches_with_branches_ignore_is_a_problem_naming_the_line():
    # "You cannot use both the branches and branches-ignore filters for the same event in a workflow."
    wf = events("on:\n  push:\n    branches: [main]\n    branches-ignore: [dev]\njobs:\n  a:\n    runs-on: x\n")
    assert [(p.place, p.reason.endswith("(line 4)")) for p in wf.problems] == [("on.push.branches-ignore", True)]
    assert wf.events[0].branches is None and wf.events[0].branches_ignore is None  # read as absent: any branch


def test_jobs_carry_their_runs_triggers_and_called_jobs_the_callers():
    caller = events("on:\n  push:\n    tags: ['v*']\njobs:\n  call:\n    uses: ./.github/workflows/lib.yml\n")
    callee = parse_workflow("on: workflow_call\njobs:\n  b:\n    runs-on: x\n", file=".github/workflows/lib.yml",
                            repository="acme/app")
    res = to_graph([caller, callee])
    jobs = {n.id: n for n in res.nodes if isinstance(n, Job)}
    called = next(j for j in jobs.values() if j.job_key == "b")
    assert called.caller is not None
    assert [(t.event, t.tags) for t in called.triggers] == [("push", ("v*",))]  # the caller's run
    assert [r.patterns for r in job_refs(called, "main")] == [("refs/tags/v*",)]


def test_uncalled_reusable_workflow_may_run_on_any_ref():
    res = to_graph([parse_workflow("on: workflow_call\njobs:\n  b:\n    runs-on: x\n",
                                   file=".github/workflows/lib.yml", repository="acme/app")])
    job = next(n for n in res.nodes if isinstance(n, Job))
    assert [r.patterns for r in job_refs(job, "main")] == [("refs/**",)]


# ----------------------------------------------------------------------------- refs per event


def refs(event: str, default: str | None = "main", **filters) -> tuple[str, ...]:
    return trigger_refs(Trigger(event=event, evidence=EV, **filters), default).patterns


def test_push_filters_decide_branches_and_tags():
    # "If you define only tags/tags-ignore or only branches/branches-ignore, the workflow won't run for events
    # affecting the undefined Git ref. If you define neither ... the workflow will run for ... either."
    assert refs("push", branches=("main",)) == ("refs/heads/main",)
    assert refs("push", tags=("v*",)) == ("refs/tags/v*",)
    assert refs("push") == ("refs/heads/**", "refs/tags/**")
    assert refs("push", branches_ignore=("dev",)) == ("refs/heads/**", "!refs/heads/dev")
    assert refs("push", paths=("src/**",)) == ("refs/heads/**", "refs/tags/**")  # paths never restrict the ref


def test_event_refs_follow_github_ref_table():
    assert refs("pull_request", branches=("main",)) == ("refs/pull/*/merge",)  # branches filter the base
    assert refs("pull_request_target", default="trunk") == ("refs/heads/trunk",)  # dated 2025-12-08
    assert refs("schedule", default="trunk") == ("refs/heads/trunk",)
    assert refs("workflow_run", default="trunk") == ("refs/heads/trunk",)
    assert refs("issue_comment", default="trunk") == ("refs/heads/trunk",)
    assert refs("workflow_dispatch") == ("refs/heads/**", "refs/tags/**")
    assert refs("release") == ("refs/tags/**",)
    assert refs("merge_group", branches=("main",)) == ("refs/heads/gh-readonly-queue/main/**",)
    assert refs("no_such_event") == ("refs/**",)
    unknown_default = trigger_refs(Trigger(event="schedule", evidence=EV), None)
    assert unknown_default.patterns == ("refs/heads/**",) and unknown_default.default_unknown


def test_filter_pattern_cheat_sheet():
    # https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#patterns-to-match-branches-and-tags
    assert matches("refs/heads/feature/x", ["refs/heads/feature/*"])
    assert not matches("refs/heads/feature/x/y", ["refs/heads/feature/*"])
    assert matches("refs/heads/feature/x/y", ["refs/heads/feature/**"])
    assert matches("refs/tags/v2", ["refs/tags/v[12]"]) and not matches("refs/tags/v3", ["refs/tags/v[12]"])
    assert matches("refs/tags/v1.10.1", ["refs/tags/v[0-9]+.[0-9]+.[0-9]+"])
    assert matches("refs/heads/mona", ["refs/heads/mona?"]) and matches("refs/heads/mon", ["refs/heads/mona?"])
    assert not matches("refs/heads/release/1-rc", ["refs/heads/release/**", "!refs/heads/release/**-rc"])
    assert matches("refs/heads/a+b", ["refs/heads/a\\+b"]) and not matches("refs/heads/aab", ["refs/heads/a\\+b"])


def test_refs_within_is_certain_possible_or_none():
    main = RefSet("push", ("refs/heads/main",), EV)
    dispatch = RefSet("workflow_dispatch", ("refs/heads/**", "refs/tags/**"), EV)
    assert refs_within([main], ["refs/heads/main", "refs/heads/release/*"]) is C
    assert refs_within([main, dispatch], ["refs/heads/main"]) is P
    assert refs_within([RefSet("push", ("refs/tags/v*",), EV)], ["refs/heads/**"]) is None
    assert refs_within([], ["refs/**"]) is None


# ----------------------------------------------------------------------------- real files


corpus = pytest.mark.requires(CORPUS.is_dir(), reason="corpus not present", corpus=True)


@corpus
@pytest.mark.corpus
def test_corpus_triggers():
    res = INGESTOR.ingest([CORPUS / "sigstore__cosign", CORPUS / "aws-actions__configure-aws-credentials"])
    jobs = [n for n in res.nodes if isinstance(n, Job)]
    # cosign conformance.yml: push and pull_request, both on main
    conf = next(j for j in jobs if j.workflow_path.endswith("conformance.yml") and j.job_key == "conformance")
    assert [(t.event, t.branches) for t in conf.triggers] == [("push", ("main",)), ("pull_request", ("main",))]
    assert [r.patterns for r in job_refs(conf, "main")] == [("refs/heads/main",), ("refs/pull/*/merge",)]
    # configure-aws-credentials tests-integ-release.yml: pull_request_target runs on the default
    # branch
    integ = next(j for j in jobs if j.workflow_path.endswith("tests-integ-release.yml"))
    assert [t.event for t in integ.triggers] == ["pull_request_target", "workflow_dispatch"]
    assert job_refs(integ, "main")[0].patterns == ("refs/heads/main",)
    assert all(j.triggers for j in jobs if j.kind == NodeKind.JOB.value)


def test_environment_access_per_policy_kind():
    # GitHub docs "Deployments and environments", deployment branches and tags; changelog 2023-08-10 (tags never
    # deploy under "protected branches only"); (dated 2025-12-08) pull_request is evaluated on its merge ref.
    from graphkit.model import BranchPolicy

    main = RefSet("push", ("refs/heads/main",), EV)
    tag = RefSet("push", ("refs/tags/v1.*",), EV)
    pr = RefSet("pull_request", ("refs/pull/*/merge",), EV)
    protected = BranchPolicy(protected_branches=True)
    assert environment_access([main], None) is C  # no restriction
    assert environment_access([main], protected, ["main"]) is C
    assert environment_access([main], protected, None) is P  # protection rules not known
    assert environment_access([tag], protected, None) is None
    assert environment_access([tag], BranchPolicy(tags=("v*",))) is C
    assert environment_access([main], BranchPolicy(branches=("release/*",))) is None
    assert environment_access([main], BranchPolicy(branches=None)) is P  # selected names not read
    assert environment_access([pr], BranchPolicy(branches=("main",))) is P
    assert environment_access([], BranchPolicy(branches=("main",))) is P  # events unknown: never dropped
    # File.fnmatch: `*` does not cross `/` ("release/*/*" is how the docs allow one more level)
    sub = RefSet("push", ("refs/heads/release/a/b",), EV)
    assert environment_access([sub], BranchPolicy(branches=("release/*",))) is None
    assert environment_access([sub], BranchPolicy(branches=("release/*/*",))) is C
