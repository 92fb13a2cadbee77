"""OIDC trust evaluation end to end: workflow text + IAM export -> job -> role edges (issue cases 1-6)."""

import json

import pytest

from graphkit.findings import run_rules
from graphkit.graph import Graph
from graphkit.model import Confidence, EdgeKind, NodeKind, ids
from graphkit.resolve import resolve
from ingest import aws_iam
from ingest.github_actions import parse_workflow, to_graph

ACCT = "111122223333"
PROVIDER = f"arn:aws:iam::{ACCT}:oidc-provider/token.actions.githubusercontent.com"
ROLE = ids.cloud_role("aws", f"arn:aws:iam::{ACCT}:role/r")
SUB, AUD = "token.actions.githubusercontent.com:sub", "token.actions.githubusercontent.com:aud"

PUSH_MAIN_PROD = """
on: {push: {branches: [main]}}
permissions: {id-token: write}
jobs:
  deploy:
    runs-on: ubuntu-latest
    environment: prod
    steps: [{run: "true"}]
"""
PUSH_MAIN = PUSH_MAIN_PROD.replace("    environment: prod\n", "")
PR_PROD = PUSH_MAIN_PROD.replace("{push: {branches: [main]}}", "[pull_request]")
PR = PR_PROD.replace("    environment: prod\n", "")
ANY_BRANCH = PUSH_MAIN.replace("{push: {branches: [main]}}", "[push, workflow_dispatch]")
NO_ID_TOKEN = PUSH_MAIN.replace("permissions: {id-token: write}", "permissions: {contents: read}")


def export(condition: dict | None, *, effect: str = "Allow", extra: list | None = None) -> dict:
    st = {"Sid": "GitHub", "Effect": effect, "Action": "sts:AssumeRoleWithWebIdentity",
          "Principal": {"Federated": PROVIDER}}
    if condition is not None:
        st["Condition"] = condition
    return {"RoleDetailList": [{"RoleName": "r", "Arn": f"arn:aws:iam::{ACCT}:role/r", "RoleId": "AROAR",
                                "AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": [st, *(extra or [])]},
                                "RolePolicyList": [], "AttachedManagedPolicies": [], "InstanceProfileList": []}],
            "UserDetailList": [], "GroupDetailList": [], "Policies": []}


def build(trust: dict, *workflows: tuple[str, str]) -> Graph:
    """Workflows ``(repository, text)`` (each ``.github/workflows/w.yml``) and one IAM export, resolved."""
    res = to_graph([parse_workflow(text, file=".github/workflows/w.yml", repository=repo) for repo, text in workflows])
    iam = aws_iam.to_graph([aws_iam.parse(json.dumps(trust), "iam.json")])
    g = Graph()
    g.update([*res.nodes, *iam.nodes], [*res.edges, *iam.edges])
    g.meta.aws_iam = iam.meta[aws_iam.META_KEY]
    resolve(g)
    return g


def reach(g: Graph) -> dict[str, str]:
    """repository of the job -> confidence of its OIDC -> role edge (jobs without an edge absent)."""
    out = {}
    for e in g.edges(EdgeKind.ASSUMES_ROLE):
        if e.target == ROLE and ids.kind_of(e.source) is NodeKind.OIDC_IDENTITY:
            out[g.node(e.source).repository] = e.confidence.value
    return out


def test_case1_org_wildcard_reaches_every_acme_job():
    g = build(export({"StringLike": {SUB: "repo:acme/*"}, "StringEquals": {AUD: "sts.amazonaws.com"}}),
              ("acme/app", PUSH_MAIN), ("acme/api", PR), ("acme/web", PUSH_MAIN_PROD), ("acme/any", ANY_BRANCH),
              ("other/x", PUSH_MAIN), ("acme/noid", NO_ID_TOKEN))
    assert reach(g) == {"acme/app": "certain", "acme/api": "certain", "acme/web": "certain", "acme/any": "certain"}
    assert g.node(ROLE).broad_trust is True
    assert {f.rule for f in run_rules(g, only=["oidc-trust-broad-sub"])} == {"oidc-trust-broad-sub"}


def test_case2_environment_replaces_ref_in_sub():
    trust = export({"StringEquals": {SUB: "repo:acme/app:ref:refs/heads/main", AUD: "sts.amazonaws.com"}})
    assert reach(build(trust, ("acme/app", PUSH_MAIN_PROD))) == {}
    assert reach(build(trust, ("acme/app", PUSH_MAIN))) == {"acme/app": "certain"}
    assert build(trust, ("acme/app", PUSH_MAIN)).node(ROLE).broad_trust is False


def test_case3_environment_sub_matches_push_and_pull_request_jobs():
    trust = export({"StringLike": {SUB: "repo:acme/app:environment:prod"}, "StringEquals": {AUD: "sts.amazonaws.com"}})
    assert reach(build(trust, ("acme/app", PUSH_MAIN_PROD))) == {"acme/app": "certain"}
    assert reach(build(trust, ("acme/app", PR_PROD))) == {"acme/app": "certain"}
    assert reach(build(trust, ("acme/app", PR))) == {}


def test_case4_aud_only_trust_is_assumable_from_anywhere_and_critical():
    g = build(export({"StringEquals": {AUD: "sts.amazonaws.com"}}), ("evil/fork", PR), ("acme/app", PUSH_MAIN))
    assert reach(g) == {"evil/fork": "certain", "acme/app": "certain"}
    found = run_rules(g, only=["oidc-trust-without-sub"])
    assert [(f.severity.value, f.subject) for f in found] == [("critical", ROLE)]
    assert found[0].evidence[0].yaml_path == "RoleDetailList[0].AssumeRolePolicyDocument.Statement[0]"
    # stable id: rebuilding gives the same id
    again = run_rules(build(export({"StringEquals": {AUD: "sts.amazonaws.com"}}), ("acme/app", PR)),
                      only=["oidc-trust-without-sub"])
    assert again[0].id == found[0].id


def test_case5_star_is_literal_under_string_equals():
    eq = export({"StringEquals": {SUB: "repo:acme/app:*", AUD: "sts.amazonaws.com"}})
    like = export({"StringLike": {SUB: "repo:acme/app:*"}, "StringEquals": {AUD: "sts.amazonaws.com"}})
    assert reach(build(eq, ("acme/app", PUSH_MAIN), ("acme/app2", PR))) == {}
    assert reach(build(like, ("acme/app", PUSH_MAIN))) == {"acme/app": "certain"}
    assert [f.properties["code"] for f in run_rules(build(like, ("acme/app", PR)), only=["oidc-trust-broad-sub"])] \
        == ["any-context"]


def test_case6_for_all_values_is_true_when_key_absent_and_is_a_finding():
    g = build(export({"ForAllValues:StringLike": {SUB: "repo:acme/app:*"}, "StringEquals": {AUD: "sts.amazonaws.com"}}),
              ("acme/app", PUSH_MAIN), ("other/x", PR))
    assert reach(g) == {"acme/app": "certain"}  # the key is present: evaluated as StringLike
    found = run_rules(g, only=["oidc-trust-set-operator"])
    assert [(f.severity.value, f.properties["operator"]) for f in found] == [("high", "ForAllValues:StringLike")]


def test_unknown_branch_makes_exact_branch_trust_possible():
    trust = export({"StringEquals": {SUB: "repo:acme/app:ref:refs/heads/release", AUD: "sts.amazonaws.com"}})
    assert reach(build(trust, ("acme/app", ANY_BRANCH))) == {"acme/app": "possible"}
    assert reach(build(trust, ("acme/app", PUSH_MAIN))) == {}


def test_explicit_deny_wins_and_provider_must_be_the_roles_account():
    deny = {"Effect": "Deny", "Action": "sts:AssumeRoleWithWebIdentity", "Principal": {"Federated": PROVIDER},
            "Condition": {"StringLike": {SUB: "repo:acme/app:pull_request"}}}
    g = build(export({"StringLike": {SUB: "repo:acme/*"}}, extra=[deny]), ("acme/app", PR), ("acme/api", PR))
    assert reach(g) == {"acme/api": "certain"}
    other = export({"StringLike": {SUB: "repo:acme/*"}})
    other["RoleDetailList"][0]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"]["Federated"] = \
        "arn:aws:iam::999999999999:oidc-provider/token.actions.githubusercontent.com"
    assert reach(build(other, ("acme/app", PR))) == {}


def test_named_role_not_ingested_stays_possible_then_resolves():
    wf = PUSH_MAIN_PROD.replace('steps: [{run: "true"}]', f"""steps:
      - uses: aws-actions/configure-aws-credentials@v4
        with: {{role-to-assume: "arn:aws:iam::{ACCT}:role/r", aws-region: eu-west-1}}""")
    res = to_graph([parse_workflow(wf, file=".github/workflows/w.yml", repository="acme/app")])
    g = Graph()
    g.update(res.nodes, res.edges)
    resolve(g)
    assert g.node(ROLE).trust == "unknown"
    assert reach(g) == {"acme/app": "possible"}
    # the export says the trust accepts only another environment: the named edge is removed
    g2 = build(export({"StringEquals": {SUB: "repo:acme/app:environment:staging"}}), ("acme/app", wf))
    assert g2.node(ROLE).trust == "known" and reach(g2) == {}
    oidc = ids.oidc_identity(ids.job("acme/app", ".github/workflows/w.yml", "deploy"))
    assert oidc == "oidc:acme/app/.github/workflows/w.yml#deploy"
    assert g2.meta.cloud.denied == [f"{oidc} -> {ROLE}"]
    g3 = build(export({"StringEquals": {SUB: "repo:acme/app:environment:prod"}}), ("acme/app", wf))
    edge = next(e for e in g3.edges(EdgeKind.ASSUMES_ROLE) if e.target == ROLE)
    assert edge.confidence is Confidence.CERTAIN and edge.props["named"] is True
    assert {ev.file for ev in edge.evidence} == {".github/workflows/w.yml", "iam.json"}
    resolve(g3)  # idempotent
    assert reach(g3) == {"acme/app": "certain"}


def test_pattern_role_resolves_when_its_account_is_ingested():
    wf = PUSH_MAIN.replace('steps: [{run: "true"}]', f"""steps:
      - uses: aws-actions/configure-aws-credentials@v4
        with: {{role-to-assume: "arn:aws:iam::{ACCT}:role/${{{{ vars.ROLE }}}}", aws-region: eu-west-1}}""")
    g = build(export({"StringLike": {SUB: "repo:acme/app:*"}}), ("acme/app", wf))
    pattern = ids.cloud_role("aws", f"arn:aws:iam::{ACCT}:role/*")
    assert pattern in g and not any(e.target == pattern for e in g.edges(EdgeKind.ASSUMES_ROLE))
    assert g.meta.cloud.resolved_patterns == [f"{pattern} -> arn:aws:iam::{ACCT}:role/r"]
    assert reach(g) == {"acme/app": "certain"}


@pytest.mark.parametrize("template,expected", [
    ({"acme": {"include_claim_keys": ["repository_owner", "context"]}, "acme/app": {"use_default": False}}, {}),
    ({"acme": {"include_claim_keys": ["repository_owner", "context"]}}, {"acme/app": "certain"}),
])
def test_custom_sub_template_changes_the_claim(template, expected):
    g = build(export({"StringLike": {SUB: "repo:acme/app:*"}}), ("acme/app", PUSH_MAIN))
    g.meta.runner_inventory = {"oidc_sub_templates": template}
    for e in list(g.edges(EdgeKind.ASSUMES_ROLE)):
        g.nx.remove_edge(e.source, e.target, e.nx_key)
    resolve(g)
    assert reach(g) == expected
