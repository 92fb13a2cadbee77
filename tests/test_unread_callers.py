"""Callers and callees graphkit did not read: the unknown caller of a reusable workflow, and a call of a workflow
that is not in the input.

- A called workflow runs on the caller's runners, and its OIDC token's ``sub`` and ``repository`` are the
  caller's (https://docs.github.com/en/actions/sharing-automations/reusing-workflows,
  https://docs.github.com/en/actions/security-for-github-actions/security-hardening-your-deployments/about-security-hardening-with-openid-connect);
  a runner takes jobs of its own scope only.  So the instance made for an unknown caller, routed to X's runner,
  presents ``repo:X/*`` (``repo:X/R`` for a repository runner), and a trust pinned to another owner rejects it.
- A job calling a workflow that is not in the input has an unknown ``runs-on``: no pool is made up for it, it is
  reported (``called-workflow-not-read``, possible), and a privileged caller is a ``possible`` untrusted entry.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import require

from graphkit.analysis import blast_radius
from graphkit.build import build_graph
from graphkit.findings import run_rules
from graphkit.graph import Graph
from graphkit.model import Confidence, EdgeKind, Job, NodeKind, ids
from graphkit.oidc import JobFacts, Run, token_claims
from graphkit.resolve.routing import caller_scopes, unread_callee

C, P = Confidence.CERTAIN, Confidence.POSSIBLE
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
GRAFANA = CORPUS / "github-actions" / "grafana__shared-workflows"
AO = CORPUS / "github-actions" / "pytorch__ao"
SIGSTORE = [CORPUS / "github-actions" / "sigstore__cosign", CORPUS / "github-actions" / "sigstore__sigstore-python"]
ACCOUNT = "308535385114"
PROVIDER = f"arn:aws:iam::{ACCOUNT}:oidc-provider/token.actions.githubusercontent.com"
ZIZMOR = "job:grafana/shared-workflows/.github/workflows/reusable-zizmor.yml#delete-vulnerable-branch"
GRAFANA_POOL = "runner:inferred:grafana:self-hosted+ubuntu-x64-small"
CLAUDE = "job:pytorch/ao/.github/workflows/claude-code.yml#claude-code"


def _trust(sub: str | None, op: str = "StringEquals") -> dict:
    cond = {op: {"token.actions.githubusercontent.com:sub": sub}} if sub else {
        "StringEquals": {"token.actions.githubusercontent.com:aud": "sts.amazonaws.com"}}
    return {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Federated": PROVIDER},
                                                    "Action": "sts:AssumeRoleWithWebIdentity", "Condition": cond}]}


#: role name -> its trust: pinned to pytorch (as the fresh-user run's export), to grafana, and to nobody
ROLES = {"gha_workflow_claude_code": _trust("repo:pytorch/ao:environment:bedrock"),
         "pr-role": _trust("repo:pytorch/ao:pull_request"),
         "only-test-infra-main": _trust("repo:pytorch/test-infra:ref:refs/heads/main"),
         "grafana-any": _trust("repo:grafana/*", "StringLike"),
         "other-grafana-repo": _trust("repo:grafana/other:ref:refs/heads/main"),
         "no-sub": _trust(None)}


def _iam(tmp: Path) -> Path:
    doc = {"UserDetailList": [], "GroupDetailList": [], "Policies": [], "RoleDetailList": [
        {"Path": "/", "RoleName": name, "RoleId": f"AROA{i:017d}", "Arn": f"arn:aws:iam::{ACCOUNT}:role/{name}",
         "CreateDate": "2024-01-01T00:00:00Z", "AssumeRolePolicyDocument": trust, "RolePolicyList": [],
         "AttachedManagedPolicies": [], "InstanceProfileList": [], "Tags": []}
        for i, (name, trust) in enumerate(ROLES.items())]}
    path = tmp / "iam.json"
    path.write_text(json.dumps(doc))
    return path


def _role(name: str) -> str:
    return ids.cloud_role("aws", f"arn:aws:iam::{ACCOUNT}:role/{name}")


def _roles_from(g: Graph, source: str) -> dict[str, Confidence]:
    reached = blast_radius(g, source)
    return {a.id.rsplit("/", 1)[1]: a.confidence for a in reached.reached if a.id.startswith("cloud_role:aws:")}


@pytest.fixture(scope="module")
def grafana(tmp_path_factory) -> Graph:
    require(GRAFANA.is_dir(), f"corpus not present at {GRAFANA}", corpus=True)
    tmp = tmp_path_factory.mktemp("grafana")
    result = build_graph({"github-actions": [GRAFANA, AO], "aws-iam": [_iam(tmp)]})
    return result.graph


def test_unknown_caller_routed_to_grafana_runner_is_a_grafana_repository(grafana: Graph):
    # the instance of reusable-zizmor.yml for callers not read: routed (runs-on: ${{ inputs.runs-on }}) to the
    # grafana pool only, so its caller is a grafana repository
    assert caller_scopes(grafana, ZIZMOR) == ["grafana/*"]
    assert {e.source for e in grafana.in_edges(ZIZMOR) if e.kind is EdgeKind.RECEIVES_JOB} == {GRAFANA_POOL}
    roles = _roles_from(grafana, GRAFANA_POOL)
    # pinned to pytorch: no path (it was a false "possible" through the "*" sub of the unknown caller)
    assert not {"gha_workflow_claude_code", "pr-role", "only-test-infra-main"} & set(roles)
    # any grafana repository: the unknown caller's repo:grafana/*:* may be one (possible: the path is); no sub:
    # every token
    assert roles["grafana-any"] is P and roles["no-sub"] is P
    assert "other-grafana-repo" in roles  # a grafana repository the unknown caller may be
    edges = {e.target.rsplit("/", 1)[1]: e for e in grafana.out_edges(ZIZMOR.replace("job:", "oidc:", 1))
             if e.kind is EdgeKind.ASSUMES_ROLE}
    assert edges["no-sub"].confidence is C and edges["grafana-any"].confidence is C
    assert edges["other-grafana-repo"].confidence is P
    assert edges["grafana-any"].props["subjects"] == ["repo:grafana/*:*"]


def test_unknown_caller_claims():
    facts = JobFacts("grafana/shared-workflows", (), workflow_path=".github/workflows/r.yml")
    anyone = token_claims(facts, Run("*", "refs/*", caller_unknown=True))
    assert (anyone["sub"], anyone["repository"]) == ("*", "*")
    org = token_claims(facts, Run("environment:prod", "refs/*", "prod", caller_unknown=True, caller="grafana/*"))
    assert (org["sub"], org["repository"], org["environment"]) == (
        "repo:grafana/*:environment:prod", "grafana/*", "prod")
    assert org["job_workflow_ref"] == "grafana/shared-workflows/.github/workflows/r.yml@*"
    new = token_claims(facts, Run("*", "refs/*", caller_unknown=True, caller="grafana@7/app@*"))
    assert (new["sub"], new["repository"]) == ("repo:grafana@7/app@*:*", "grafana/app")


REUSABLE = """\
on:
  workflow_call:
    inputs:
      runner: {type: string, default: self-hosted}
permissions:
  id-token: write
jobs:
  deploy:
    runs-on: ${{ inputs.runner }}
    steps:
      - run: ./deploy.sh
"""


def _minimal(tmp: Path, runners: str, immutable: str = "") -> Graph:
    wf = tmp / "acme__lib" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "deploy.yml").write_text(REUSABLE)
    inv = tmp / "inv.yaml"
    inv.write_text("schema: graphkit.runner-inventory/v1\n" + immutable + "runners:\n" + runners)
    result = build_graph({"github-actions": [tmp / "acme__lib"], "runners": [inv], "aws-iam": [_iam(tmp)]})
    assert result.problems == []
    return result.graph


def test_repository_runner_pins_the_caller_repository(tmp_path):
    # a repository runner of acme/lib takes only acme/lib's jobs: the unknown caller routed there is acme/lib
    g = _minimal(tmp_path, "  - {name: r1, labels: [self-hosted], scope: acme/lib, ephemeral: false}\n")
    job = "job:acme/lib/.github/workflows/deploy.yml#deploy"
    assert caller_scopes(g, job) == ["acme/lib"]
    oidc = job.replace("job:", "oidc:", 1)
    subs = {e.target.rsplit("/", 1)[1]: e.props["subjects"] for e in g.out_edges(oidc)
            if e.kind is EdgeKind.ASSUMES_ROLE}
    assert subs == {"no-sub": ["repo:acme/lib:*"]}


def test_org_runner_with_immutable_subjects(tmp_path):
    g = _minimal(tmp_path, "  - {name: r1, labels: [self-hosted], scope: acme, ephemeral: false}\n",
                 "organizations:\n  - name: acme\n    id: 42\n    oidc_sub_template:\n"
                 "      use_immutable_subject: true\n")
    job = "job:acme/lib/.github/workflows/deploy.yml#deploy"
    assert caller_scopes(g, job) == ["acme/*"]
    (edge,) = [e for e in g.out_edges(job.replace("job:", "oidc:", 1)) if e.kind is EdgeKind.ASSUMES_ROLE]
    assert edge.target == _role("no-sub") and edge.props["subjects"] == ["repo:acme@42/*:*"]


def test_no_routed_runner_keeps_any_caller(tmp_path):
    # no self-hosted runner in the graph for it (a GitHub-hosted default): nothing says who the caller is
    wf = tmp_path / "acme__lib" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "deploy.yml").write_text(REUSABLE.replace("default: self-hosted", "default: ubuntu-latest")
                                   .replace("${{ inputs.runner }}", "ubuntu-latest"))
    g = build_graph({"github-actions": [tmp_path / "acme__lib"], "aws-iam": [_iam(tmp_path)]}).graph
    job = "job:acme/lib/.github/workflows/deploy.yml#deploy"
    assert caller_scopes(g, job) is None
    targets = {e.target.rsplit("/", 1)[1]: e.confidence for e in g.out_edges(job.replace("job:", "oidc:", 1))
               if e.kind is EdgeKind.ASSUMES_ROLE}
    assert targets["gha_workflow_claude_code"] is P and targets["no-sub"] is C


def test_sigstore_callers_of_unread_workflows_get_no_pool():
    require(all(p.is_dir() for p in SIGSTORE), "sigstore corpus not present", corpus=True)
    g = build_graph({"github-actions": SIGSTORE}).graph
    assert [r.id for r in g.nodes(NodeKind.RUNNER)] == []
    callers = {j.id for j in g.nodes(NodeKind.JOB) if isinstance(j, Job) and unread_callee(g, j)}
    assert callers == {"job:sigstore/cosign/.github/workflows/cut-release.yml#cut-release",
                       "job:sigstore/cosign/.github/workflows/depsreview.yml#dependency-review",
                       "job:sigstore/sigstore-python/.github/workflows/release.yml#pin-requirements"}
    assert callers <= set(g.meta.resolve.unresolved_jobs) and g.meta.resolve.inferred_pools == []
    found = run_rules(g)
    assert [f for f in found if f.rule == "untrusted-path-to-self-hosted-runner"] == []
    mine = {f.subject: (f.severity.value, f.confidence) for f in found if f.rule == "called-workflow-not-read"}
    assert mine == {c: ("low", P) for c in callers}


def test_issue_comment_call_of_unread_workflow_is_an_entry(grafana: Graph):
    # pytorch/ao claude-code.yml: issue_comment, uses pytorch/test-infra/.github/workflows/_claude-code.yml (not
    # in the input) with secrets: inherit
    entries = {(e.source, e.confidence) for e in grafana.in_edges(CLAUDE) if e.kind is EdgeKind.CAN_TRIGGER}
    assert ("untrusted:comment:pytorch", P) in entries and ("untrusted:fork-pr:pytorch", P) in entries
    reached = {a.id: a.confidence for a in blast_radius(grafana, "untrusted:comment:pytorch").reached}
    assert reached["secret:all:pytorch/ao"] is P
    assert ids.oidc_identity(CLAUDE) in reached
    found = [f for f in run_rules(grafana) if f.subject == CLAUDE]
    assert {(f.rule, f.severity.value, f.confidence) for f in found} == {
        ("called-workflow-not-read", "medium", P), ("untrusted-code-with-secrets", "high", P)}


def test_issue_comment_minimal(tmp_path):
    repo = tmp_path / "acme__ic" / ".github" / "workflows"
    repo.mkdir(parents=True)
    (repo / "a.yml").write_text("on:\n  issue_comment:\n    types: [created]\njobs:\n  external:\n"
                                "    uses: someorg/unknown/.github/workflows/x.yml@main\n    secrets: inherit\n")
    inv = tmp_path / "inv.yaml"
    inv.write_text("schema: graphkit.runner-inventory/v1\nrepositories:\n  - {full_name: acme/ic, visibility: public}\n")
    g = build_graph({"github-actions": [tmp_path / "acme__ic"], "runners": [inv]}).graph
    job = "job:acme/ic/.github/workflows/a.yml#external"
    (entry,) = [e for e in g.in_edges(job) if e.source == "untrusted:comment:acme"]
    assert entry.confidence is P and "called-workflow-not-read" in entry.props["guards"]
    assert entry.evidence[0].yaml_path == "jobs.external.uses"
    assert [r.id for r in g.nodes(NodeKind.RUNNER)] == []  # no pool made up
    reached = {a.id for a in blast_radius(g, "untrusted:comment:acme").reached}
    assert "secret:all:acme/ic" in reached


def test_job_called_by_the_unknown_callers_instance(tmp_path):
    # outer.yml (workflow_call only) calls inner.yml: the inner job runs for outer's unknown callers too, on the
    # acme runner it is routed to, so its sub is an acme repository's (it was acme/lib's, as if lib called it)
    wf = tmp_path / "acme__lib" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "outer.yml").write_text("on: workflow_call\npermissions:\n  id-token: write\njobs:\n  call:\n"
                                  "    uses: ./.github/workflows/inner.yml\n")
    (wf / "inner.yml").write_text("on: workflow_call\njobs:\n  deploy:\n    runs-on: self-hosted\n"
                                  "    environment: prod\n    permissions:\n      id-token: write\n"
                                  "    steps:\n      - run: ./deploy.sh\n")
    inv = tmp_path / "inv.yaml"
    inv.write_text("schema: graphkit.runner-inventory/v1\nrunners:\n"
                   "  - {name: r1, labels: [self-hosted], scope: acme, ephemeral: false}\n")
    g = build_graph({"github-actions": [tmp_path / "acme__lib"], "runners": [inv], "aws-iam": [_iam(tmp_path)]}).graph
    job = "job:acme/lib/.github/workflows/outer.yml#call>acme/lib/.github/workflows/inner.yml#deploy"
    assert caller_scopes(g, job) == ["acme/*"]
    edges = {e.target: e for e in g.out_edges(ids.oidc_identity(job)) if e.kind is EdgeKind.ASSUMES_ROLE}
    assert set(edges) == {_role("no-sub")}
    assert edges[_role("no-sub")].props["subjects"] == ["repo:acme/*:environment:prod"]
