"""AWS IAM ingest: real exports, policy templates, CloudFormation, reach edges, issue cases 7-9, the example."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphkit.analysis import revocation_plan
from graphkit.build import build_graph
from graphkit.cli import app
from graphkit.errors import InputError
from graphkit.findings import run_rules
from graphkit.graph import Graph
from graphkit.iam import ClaimValue, web_identity_trust
from graphkit.model import EdgeKind, NodeKind, RevocationAction, ids
from graphkit.resolve import resolve
from ingest import aws_iam

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "aws-iam"
corpus = pytest.mark.requires(CORPUS.is_dir(), reason="shared corpus not present", corpus=True)
A = "111122223333"


def graph_of(*exports: dict) -> Graph:
    parsed = [aws_iam.parse(json.dumps(e), f"acct{i}.json") for i, e in enumerate(exports)]
    res = aws_iam.to_graph(parsed)
    assert res.problems == []
    g = Graph()
    g.update(res.nodes, res.edges)
    g.meta.aws_iam = res.meta[aws_iam.META_KEY]
    resolve(g)
    return g


def role(name: str, trust: dict, inline: list | None = None, managed: list[str] | None = None, acct: str = A) -> dict:
    return {"RoleName": name, "Arn": f"arn:aws:iam::{acct}:role/{name}", "AssumeRolePolicyDocument": trust,
            "RolePolicyList": [{"PolicyName": "p", "PolicyDocument": {"Statement": inline}}] if inline else [],
            "AttachedManagedPolicies": [{"PolicyName": m.rsplit("/", 1)[1], "PolicyArn": m} for m in managed or []]}


def root_trust(acct: str = A) -> dict:
    return {"Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": {"AWS": f"arn:aws:iam::{acct}:root"}}]}


def out_edges(g: Graph, src: str, kind: EdgeKind) -> dict[str, str]:
    return {e.target: e.confidence.value for e in g.out_edges(src) if e.kind is kind}


KEY = f"arn:aws:kms:eu-west-1:{A}:key/k"
KMS_KEY = ids.signing_key("aws-kms", KEY)
ACCOUNT = ids.cloud_account(A)


def R(name: str) -> str:
    """Id of role ``name`` of account ``A``."""
    return ids.cloud_role("aws", f"arn:aws:iam::{A}:role/{name}")


def test_case7_explicit_deny_of_kms_sign_removes_the_signing_edge():
    allow = [{"Effect": "Allow", "Action": "kms:*", "Resource": KEY}]
    deny = allow + [{"Effect": "Deny", "Action": "kms:Sign", "Resource": "*"}]
    g = graph_of({"RoleDetailList": [role("signer", root_trust(), allow), role("denied", root_trust(), deny)]})
    assert out_edges(g, R("signer"), EdgeKind.SIGNS_WITH) == {KMS_KEY: "certain"}
    assert out_edges(g, R("denied"), EdgeKind.SIGNS_WITH) == {}


def test_case8_only_the_default_policy_version_applies():
    pol = f"arn:aws:iam::{A}:policy/upload"
    versions = [{"VersionId": "v2", "IsDefaultVersion": True,
                 "Document": {"Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]}},
                {"VersionId": "v1", "IsDefaultVersion": False,
                 "Document": {"Statement": [{"Effect": "Allow", "Action": "s3:PutObject", "Resource": "*"}]}}]
    g = graph_of({"RoleDetailList": [role("r", root_trust(), managed=[pol])],
                  "Policies": [{"PolicyName": "upload", "Arn": pol, "DefaultVersionId": "v2",
                                "PolicyVersionList": versions}]})
    assert out_edges(g, R("r"), EdgeKind.PUBLISHES_TO) == {}
    node = g.node(ids.cloud_policy(pol))
    assert (node.default_version, node.versions) == ("v2", 2)
    assert out_edges(g, R("r"), EdgeKind.HAS_POLICY) == {ids.cloud_policy(pol): "certain"}


def test_case9_role_chain_through_account_root_trust():
    a = role("a", root_trust(), [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": f"arn:aws:iam::{A}:role/b"}])
    b = role("b", root_trust(), [{"Effect": "Allow", "Action": "kms:Sign", "Resource": KEY}])
    c = role("c", root_trust())  # trusts the account too, but nothing lets a call it
    g = graph_of({"RoleDetailList": [a, b, c]})
    assert out_edges(g, R("a"), EdgeKind.ASSUMES_ROLE) == {R("b"): "certain"}
    from graphkit.analysis import blast_radius
    br = blast_radius(g, R("a"))
    assert KMS_KEY in br and R("c") not in br
    # cross-account: the trust names the caller's account, and the caller's policy allows it
    x = role("x", root_trust(A), [{"Effect": "Allow", "Action": "kms:Sign", "Resource": "*"}], acct="444455556666")
    g2 = graph_of({"RoleDetailList": [a]}, {"RoleDetailList": [x]})
    assert out_edges(g2, R("a"), EdgeKind.ASSUMES_ROLE) == {}  # a may only assume role/b
    a2 = role("a", root_trust(), [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "*"}])
    g3 = graph_of({"RoleDetailList": [a2]}, {"RoleDetailList": [x]})
    assert out_edges(g3, R("a"), EdgeKind.ASSUMES_ROLE) == {
        "cloud_role:aws:arn:aws:iam::444455556666:role/x": "certain"}


def test_sensitive_action_classes_and_admin():
    inline = [{"Effect": "Allow", "Action": ["ecr:PutImage", "codeartifact:Publish*", "lambda:UpdateFunctionCode",
                                               "ecs:UpdateService", "ssm:SendCommand", "secretsmanager:GetSecretValue",
                                               "ssm:GetParameters", "signer:StartSigningJob", "cloudformation:UpdateStack",
                                               "eks:UpdateClusterConfig"],
               "Resource": "*"},
              {"Effect": "Allow", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::releases/*"}]
    g = graph_of({"RoleDetailList": [role("wide", root_trust(), inline),
                                     role("passer", root_trust(), [{"Effect": "Allow", "Action": ["iam:PassRole",
                                          "ec2:RunInstances"], "Resource": "*"}]),
                                     role("admin", root_trust(), managed=["arn:aws:iam::aws:policy/AdministratorAccess"])]})
    kinds = {}
    for e in g.out_edges(R("wide")):
        kinds.setdefault(e.kind.value, set()).add(e.target)
    assert kinds["publishes_to"] == {"target:registry:111122223333.dkr.ecr.*.amazonaws.com/*",
                                     "target:package_index:codeartifact:111122223333:*", "target:bucket:s3://releases"}
    assert kinds["deploys_to"] == {"target:function:aws:111122223333:*", "target:cluster:ecs:111122223333:*",
                                   "target:other:ssm-command:111122223333:*",
                                   "target:other:cloudformation:111122223333:*", "target:cluster:eks:111122223333:*"}
    assert kinds["reads_secret"] == {"cloud_secret:aws:arn:aws:secretsmanager:*:111122223333:secret:*",
                                     "cloud_secret:aws:arn:aws:ssm:*:111122223333:parameter/*"}
    assert kinds["signs_with"] == {"signing_key:aws-signer:arn:aws:signer:*:111122223333:/signing-profiles/*"}
    assert "administers" not in kinds
    assert out_edges(g, R("passer"), EdgeKind.ADMINISTERS) == {ACCOUNT: "possible"}
    assert out_edges(g, R("admin"), EdgeKind.ADMINISTERS) == {ACCOUNT: "certain"}
    assert g.node(ACCOUNT).criticality.value == "critical"


def test_users_groups_boundary_and_unknown_policy():
    group_pol = f"arn:aws:iam::{A}:policy/g"
    export = {
        "UserDetailList": [{"UserName": "u", "Arn": f"arn:aws:iam::{A}:user/u", "GroupList": ["devs"],
                            "PermissionsBoundary": {"PermissionsBoundaryType": "Policy",
                                                    "PermissionsBoundaryArn": f"arn:aws:iam::{A}:policy/missing"}},
                           {"UserName": "v", "Arn": f"arn:aws:iam::{A}:user/v", "GroupList": ["devs"]}],
        "GroupDetailList": [{"GroupName": "devs", "Arn": f"arn:aws:iam::{A}:group/devs",
                             "AttachedManagedPolicies": [{"PolicyName": "g", "PolicyArn": group_pol}]}],
        "Policies": [{"PolicyName": "g", "Arn": group_pol, "DefaultVersionId": "v1", "PolicyVersionList": [
            {"VersionId": "v1", "IsDefaultVersion": True,
             "Document": {"Statement": {"Effect": "Allow", "Action": "kms:Sign", "Resource": KEY}}}]}]}
    g = graph_of(export)
    u, v = ids.cloud_user(f"arn:aws:iam::{A}:user/u"), ids.cloud_user(f"arn:aws:iam::{A}:user/v")
    assert out_edges(g, v, EdgeKind.SIGNS_WITH) == {KMS_KEY: "certain"}
    assert out_edges(g, u, EdgeKind.SIGNS_WITH) == {KMS_KEY: "possible"}  # boundary unknown
    assert out_edges(g, u, EdgeKind.IN_GROUP) == {ids.cloud_group(f"arn:aws:iam::{A}:group/devs"): "certain"}
    assert g.meta.aws_iam.unknown_policies == [f"arn:aws:iam::{A}:policy/missing"]
    assert g.node(u).spec.revoked_by is RevocationAction.ROTATE_ACCESS_KEYS


def test_malformed_file_and_entries_are_named():
    with pytest.raises(InputError) as exc:
        aws_iam.parse("{not json", "bad.json")
    assert exc.value.file == "bad.json" and exc.value.place.startswith("line ")
    pf = aws_iam.parse(json.dumps({"RoleDetailList": [
        role("ok", root_trust()),
        {"RoleName": "broken", "Arn": f"arn:aws:iam::{A}:role/broken",
         "AssumeRolePolicyDocument": {"Statement": [{"Effect": "Permit"}]}}]}), "x.json")
    # a bad trust statement costs only the trust: the role stays, its trust unknown (issue 18)
    assert [(p.name, p.trust) for p in pf.principals] == [("ok", pf.principals[0].trust), ("broken", None)]
    assert [(p.file, p.place) for p in pf.problems] == [("x.json", "RoleDetailList[1].AssumeRolePolicyDocument."
                                                                   "Statement[0].Effect")]
    with pytest.raises(InputError, match="not a recognised IAM document"):
        aws_iam.parse('{"Account": "1"}', "sts.json")


def test_values_that_cannot_be_node_ids_are_problems_naming_the_place():
    attached = role("attached", root_trust())
    attached["AttachedManagedPolicies"] = [{"PolicyName": "x", "PolicyArn": "AdministratorAccess"}]  # not an ARN
    reader = role("reader", root_trust(), [{"Effect": "Allow", "Action": "secretsmanager:GetSecretValue",
                                            "Resource": "prod-db-password"},  # not an ARN either
                                           {"Effect": "Allow", "Action": "kms:Sign", "Resource": KEY}])
    pf = aws_iam.parse(json.dumps({"RoleDetailList": [attached, reader],
                                   "Policies": [{"PolicyName": "p", "Arn": "p", "PolicyVersionList": []}]}), "x.json")
    # the bad attachment costs only itself (issue 18): "attached" stays, without that policy
    assert [(p.name, p.managed) for p in pf.principals] == [("attached", []), ("reader", [])]
    assert [(p.file, p.place) for p in pf.problems] == [
        ("x.json", "Policies[0].Arn"), ("x.json", "RoleDetailList[0].AttachedManagedPolicies[0].PolicyArn")]
    res = aws_iam.to_graph([pf])
    assert [(p.file, p.place) for p in res.problems] == [
        ("x.json", "RoleDetailList[1].RolePolicyList[0].PolicyDocument.Statement[0]")]
    assert "prod-db-password" in res.problems[0].reason
    assert {e.target for e in res.edges if e.source == R("reader")} == {KMS_KEY}  # the rest of the role is read


#: A GitHub OIDC trust as AWS documents it ("Configuring a role for GitHub OIDC identity provider",
#: https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_create_for-idp_oidc.html#idp_oidc_Create_GitHub)
GH = f"arn:aws:iam::{A}:oidc-provider/token.actions.githubusercontent.com"
OIDC_TRUST = {"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Principal": {"Federated": GH}, "Action": "sts:AssumeRoleWithWebIdentity",
    "Condition": {"StringEquals": {"token.actions.githubusercontent.com:aud": "sts.amazonaws.com"},
                  "StringLike": {"token.actions.githubusercontent.com:sub": "repo:acme/infra:*"}}}]}


def _cli_build(tmp_path, export: dict) -> tuple[object, Graph]:
    (tmp_path / "iam.json").write_text(json.dumps(export))
    out = tmp_path / "g.json"
    run = CliRunner().invoke(app, ["build", "--aws-iam", str(tmp_path / "iam.json"), "-o", str(out)])
    return run, Graph.load(out)


def test_a_top_level_list_of_another_type_costs_only_that_list(tmp_path):
    """Issue 18 (fresh-user test): ``"UserDetailList": "nope"`` dropped the whole export, the OIDC role too."""
    pf = aws_iam.parse(json.dumps({"UserDetailList": "nope", "Policies": 3.14,
                                   "RoleDetailList": [role("deploy", OIDC_TRUST)]}), "iam.json")
    assert [p.name for p in pf.principals] == ["deploy"] and pf.principals[0].trust
    assert [(p.file, p.place, p.reason) for p in pf.problems] == [
        ("iam.json", "UserDetailList", "left out: expected a list, got string"),
        ("iam.json", "Policies", "left out: expected a list, got float")]
    run, g = _cli_build(tmp_path, {"UserDetailList": "nope", "RoleDetailList": [role("deploy", OIDC_TRUST)]})
    assert "UserDetailList" in run.output
    assert g.node(R("deploy")).trust == "known"
    assert {e.target for e in g.out_edges(R("deploy")) if e.kind is EdgeKind.TRUSTS_PROVIDER} == {
        ids.oidc_provider(GH)}


def test_a_bad_part_of_a_role_costs_only_that_part():
    """Issue 18: an inline policy with ``"Action": 7`` lost the role and its trust (0 nodes).  A bad inline policy,
    attachment or instance-profile list costs only itself; a bad trust document leaves the trust unknown."""
    bad_inline = role("deploy", OIDC_TRUST, [{"Effect": "Allow", "Action": 7, "Resource": "*"}],
                      managed=["arn:aws:iam::aws:policy/ReadOnlyAccess"])
    bad_inline["RolePolicyList"].append({"PolicyName": "ok", "PolicyDocument": {"Statement": [
        {"Effect": "Allow", "Action": "kms:Sign", "Resource": KEY}]}})
    bad_inline["AttachedManagedPolicies"].insert(0, {"PolicyName": "x"})  # no PolicyArn
    bad_trust = role("other", {"Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
                                              "Principal": {"AWS": f"arn:aws:iam::{A}:root"}},
                                             {"Effect": "Allow", "Action": "sts:AssumeRole", "Sid": ["x"]}]})
    pf = aws_iam.parse(json.dumps({"RoleDetailList": [bad_inline, bad_trust]}), "iam.json")
    deploy, other = pf.principals
    assert [name for name, _, _ in deploy.inline] == ["ok"] and deploy.trust
    assert deploy.managed == ["arn:aws:iam::aws:policy/ReadOnlyAccess"]
    assert other.trust is None and other.trust_document is None
    assert [(p.file, p.place) for p in pf.problems] == [
        ("iam.json", "RoleDetailList[0].RolePolicyList[0].PolicyDocument.Statement[0].Action"),
        ("iam.json", "RoleDetailList[0].AttachedManagedPolicies[0]"),
        ("iam.json", "RoleDetailList[1].AssumeRolePolicyDocument.Statement[1].Sid")]
    assert [p.reason.split(":")[0] for p in pf.problems] == ["role deploy", "role deploy",
                                                             "trust of role other unknown"]
    assert pf.problems[0].reason.startswith("role deploy: left out: ")  # that inline policy is dropped
    res = aws_iam.to_graph([pf])
    roles = {n.id: n for n in res.nodes if n.spec.kind is NodeKind.CLOUD_ROLE}
    assert roles[R("deploy")].trust == "known" and roles[R("other")].trust == "unknown"  # unknown, never narrower
    assert KMS_KEY in {e.target for e in res.edges if e.source == R("deploy")}
    assert ids.oidc_provider(GH) in {e.target for e in res.edges if e.source == R("deploy")}


def test_a_bad_default_managed_policy_version_makes_that_policy_unknown():
    """Issue 18: a managed policy whose default version cannot be read is left out with a problem; the role
    attaching it keeps it as an unknown policy (``meta unknown_policies``), the rest of the export is read."""
    arn = f"arn:aws:iam::{A}:policy/p"
    pf = aws_iam.parse(json.dumps({"RoleDetailList": [role("deploy", OIDC_TRUST, managed=[arn])], "Policies": [
        {"PolicyName": "p", "Arn": arn, "DefaultVersionId": "v1", "PolicyVersionList": [
            {"VersionId": "v1", "IsDefaultVersion": True, "Document": {"Statement": [{"Effect": "Allow",
                                                                                     "Action": 7}]}}]}]}), "iam.json")
    assert [p.name for p in pf.principals] == ["deploy"] and pf.policies == []
    assert [(p.file, p.place) for p in pf.problems] == [
        ("iam.json", "Policies[0].PolicyVersionList[0].Document.Statement[0].Action")]
    res = aws_iam.to_graph([pf])
    assert res.meta[aws_iam.META_KEY]["unknown_policies"] == [arn]


def test_ingestor_reports_bad_files_and_reads_the_others(tmp_path):
    (tmp_path / "good.json").write_text(json.dumps({"RoleDetailList": [role("ok", root_trust())]}))
    (tmp_path / "bad.json").write_text("[1, 2")
    res = aws_iam.INGESTOR.ingest([tmp_path / "good.json", tmp_path / "bad.json"])
    assert [p.file for p in res.problems] == [str(tmp_path / "bad.json")]
    assert [n.id for n in res.nodes if n.spec.kind is NodeKind.CLOUD_ROLE] == [R("ok")]


@corpus
def test_corpus_cloudsplaining_example_counts_and_named_edges():
    res = build_graph({"aws-iam": [CORPUS / "salesforce__cloudsplaining/examples/files/example.json"]})
    g = res.graph
    assert res.problems == []
    assert g.meta.aws_iam.counts == {"roles": 78, "users": 44, "groups": 5, "policies": 84, "documents": 0,
                                     "control_policies": 0}
    counts = g.counts()
    assert {k: counts["nodes"][k] for k in ("cloud_role", "cloud_user", "cloud_group", "cloud_policy")} == {
        "cloud_role": 79, "cloud_user": 44, "cloud_group": 5, "cloud_policy": 84}  # +1: foreign stacksets admin role
    assert {k: counts["edges"][k] for k in ("administers", "assumes_role", "in_group", "has_policy")} == {
        "administers": 62, "assumes_role": 56, "in_group": 6, "has_policy": 106}
    # 40 of them: 40 roles trust the session elad@codsec.io of the SSO role AWSReservedSSO_AdministratorAccess_...
    # (path aws-reserved/sso.amazonaws.com/): possible for that role (AWS "Principal", role session principals)
    sso = ids.cloud_role("aws", "arn:aws:iam::200611803367:role/aws-reserved/sso.amazonaws.com/"
                                "AWSReservedSSO_AdministratorAccess_dc6414f7f2ab04fc")
    assert sorted(out_edges(g, sso, EdgeKind.ASSUMES_ROLE).values()).count("possible") == 40
    acct = "cloud_account:aws:200611803367"
    # issue 10: iam:CreatePolicyVersion on the policy attached to oneself (cloudsplaining's "exploitable resource
    # constraint" fixture) is an escalation (AWS "Versioning IAM policies")
    fn2 = ids.cloud_role("aws", "arn:aws:iam::200611803367:role/fn2-exploitableResourceConstraint-role")
    assert out_edges(g, fn2, EdgeKind.ADMINISTERS) == {acct: "certain"}
    # the management account (not exported) that OrganizationAccountAccessRole trusts is a node of its own
    assert out_edges(g, ids.cloud_account("072528804237"), EdgeKind.ASSUMES_ROLE) == {
        ids.cloud_role("aws", "arn:aws:iam::200611803367:role/OrganizationAccountAccessRole"): "certain"}
    arn = "cloud_user:aws:arn:aws:iam::200611803367:user/"
    assert out_edges(g, arn + "privesc4-CreateAccessKey-user", EdgeKind.ADMINISTERS) == {acct: "certain"}
    sso = "cloud_role:aws:arn:aws:iam::200611803367:role/aws-reserved/sso.amazonaws.com/" \
          "AWSReservedSSO_AdministratorAccess_dc6414f7f2ab04fc"
    assert out_edges(g, sso, EdgeKind.ADMINISTERS) == {acct: "certain"}
    assert g.node("cloud_role:aws:arn:aws:iam::200611803367:role/privesc-high-priv-service-role").instance_profiles \
        == ["arn:aws:iam::200611803367:instance-profile/privesc-high-priv-service-profile"]
    pol = g.node("cloud_policy:aws:arn:aws:iam::aws:policy/AWSCodeCommitPowerUser")
    assert (pol.default_version, pol.versions) == ("v11", 2)


@corpus
def test_corpus_every_export_template_and_cloudformation_reads_cleanly():
    res = build_graph({"aws-iam": [CORPUS]})
    assert res.problems == []
    meta = res.graph.meta.aws_iam
    assert meta.counts == {"roles": 84, "users": 47, "groups": 8, "policies": 87, "documents": 22,
                           "control_policies": 0}
    assert sorted(Path(f).name for f in meta.ignored) == ["secretsmanager-list-secrets.json",
                                                            "sts-get-caller-identity.json"]
    docs = {ids.parse(n.id).parts["path"]: n for n in res.graph.nodes(NodeKind.CLOUD_POLICY)
            if ids.parse(n.id).form == "file"}
    templates = {path: d for path, d in docs.items() if "pytorch__test-infra" in path}
    assert len(templates) == 21 and sum(bool(d.placeholders) for d in templates.values()) == 17
    assert {Path(path).name for path, d in templates.items() if d.policy_type == "trust"} == {
        "instance-role-trust-policy.json", "assume-role-for-account.json"}
    found = {(f.rule, f.properties["code"]) for f in run_rules(res.graph) if f.rule.startswith("oidc-trust")}
    assert found == {("oidc-trust-broad-sub", "org-wide"), ("oidc-trust-audience", "no-aud")}
    mapper = "cloud_user:aws:arn:aws:iam::aws:user/USER"
    assert out_edges(res.graph, mapper, EdgeKind.PUBLISHES_TO) == {"target:bucket:s3://*": "certain"}


@corpus
def test_corpus_cloudformation_trust_is_evaluated():
    path = CORPUS / "aws-actions__configure-aws-credentials/examples/federated-setup/github-actions-oidc-federation-and-role.yml"
    pf = aws_iam.parse(path.read_text(), str(path), parameters={"GitHubOrganization": "acme", "RoleName": "ci"})
    doc = next(d for d in pf.documents if d.policy_type == "trust")
    assert doc.placeholders == ["AWS::AccountId"]
    sub = "token.actions.githubusercontent.com:sub"

    def can(claim: str) -> bool | None:
        return web_identity_trust(doc.statements, "${AWS::AccountId}", {sub: [ClaimValue(claim, "*" in claim)]}).result

    assert can("repo:acme/app:ref:refs/heads/main") is True
    assert can("repo:acme/app:ref:refs/heads/*") is True
    assert can("repo:acme/app:pull_request") is False
    assert can("repo:other/app:ref:refs/heads/main") is False
    assert [p.url for p in pf.providers] == ["https://token.actions.githubusercontent.com"]


def test_example_chain_and_plan_rank_the_trust_fix_first():
    ex = ROOT / "examples/acme"
    res = build_graph({"github-actions": [ex / "repos"], "runners": [ex / "inventory.yaml"],
                       "aws-iam": [ex / "aws-iam.json"]})
    g = res.graph
    assert res.problems == []
    release = R("acme-release")
    key = ids.signing_key("aws-kms", f"arn:aws:kms:eu-west-1:{A}:key/0d1e2f30-release-signing")
    from graphkit.analysis import blast_radius
    br = blast_radius(g, "runner:acme/build-01-a")
    path = [(h.kind.value, h.target) for h in br[key].path]
    assert path == [("receives_job", "job:acme/infra/.github/workflows/deploy.yml#deploy"),
                    ("mints_oidc", "oidc:acme/infra/.github/workflows/deploy.yml#deploy"),
                    ("assumes_role", release), ("signs_with", key)]
    assert br[key].confidence.value == "certain"
    prod = br["target:cluster:eks:111122223333:acme-production"]
    assert [h.target for h in prod.path][-2:] == [R("acme-infra-deployer"),
                                                  "target:cluster:eks:111122223333:acme-production"]
    assert ACCOUNT in br  # infra-deployer -> acme-deploy-admin (role chain) -> admin
    plan = revocation_plan(g, "runner:acme/build-01-a")
    # the autoscaler's token on build-01 can register runners: it goes first (semantics §8), then the trust
    registrar = plan.steps[0]
    assert (registrar.action, registrar.subject_id) == (RevocationAction.ROTATE_CREDENTIAL,
                                                         "credential:build-01:/etc/runner-autoscaler/env")
    first = plan.steps[1]
    assert (first.action, first.subject_id, first.phase) == (RevocationAction.NARROW_TRUST_POLICY, release, "contain")
    assert key in first.cuts
    # narrow the trust first, then revoke the sessions it already issued, then rotate keys (semantics §5)
    second = plan.steps[2]
    assert (second.action, second.subject_id, second.residual_weight) == (
        RevocationAction.REVOKE_ROLE_SESSIONS, release, first.residual_weight)
    # the access key of the ci user is long-lived; the docker and aws files on the host are rotated in contain
    actions = [s.action for s in plan.steps[1:]]
    assert actions.index(RevocationAction.NARROW_TRUST_POLICY) < actions.index(RevocationAction.ROTATE_CREDENTIAL)
    doc = json.loads(CliRunner().invoke(app, ["blast-radius", "--github-actions", str(ex / "repos"), "--runners",
                                              str(ex / "inventory.yaml"), "--aws-iam", str(ex / "aws-iam.json"),
                                              "--from", "runner:acme/build-01-a", "--format", "json"]).stdout)
    assert (doc["revocations"][1]["action"], doc["revocations"][1]["target"]) == ("narrow_trust_policy", release)
    found = CliRunner().invoke(app, ["findings", "--aws-iam", str(ex / "aws-iam.json"), "--format", "json"])
    rules = {f["rule"]: f["subject"] for f in json.loads(found.stdout)["findings"]}
    assert rules == {"oidc-trust-broad-sub": release}


def test_host_access_key_and_instance_profile_reach_the_iam_principals():
    from ingest import runner_inventory
    inv = f"""
schema: graphkit.runner-inventory/v1
hosts:
  - name: h
    credentials:
      - {{credential_type: aws, path: ~/.aws/credentials, grants: [{{access: assumes_role, target: "cloud_user:aws:arn:aws:iam::{A}:user/ci"}}]}}
      - {{credential_type: aws-imds, path: imds, lifetime: per_job, grants: [{{access: assumes_role, target: "cloud_role:aws:arn:aws:iam::{A}:instance-profile/runner"}}]}}
"""
    part = runner_inventory.to_graph([runner_inventory.parse(inv, "inv.yaml")])
    nodes, edges = part.nodes, part.edges
    r = role("runner", root_trust(), [{"Effect": "Allow", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::b/*"}])
    r["InstanceProfileList"] = [{"Arn": f"arn:aws:iam::{A}:instance-profile/runner"}]
    user = {"UserName": "ci", "Arn": f"arn:aws:iam::{A}:user/ci",
            "UserPolicyList": [{"PolicyName": "p", "PolicyDocument": {"Statement": [
                {"Effect": "Allow", "Action": "kms:Sign", "Resource": KEY}]}}]}
    iam = aws_iam.to_graph([aws_iam.parse(json.dumps({"RoleDetailList": [r], "UserDetailList": [user]}), "iam.json")])
    g = Graph()
    g.update([*nodes, *iam.nodes], [*edges, *iam.edges])
    resolve(g)
    before = g.to_dict()
    resolve(g)
    assert g.to_dict() == before  # idempotent
    key_edge = next(e for e in g.in_edges(ids.cloud_user(f"arn:aws:iam::{A}:user/ci")))
    assert (key_edge.kind, key_edge.revoked_by) == (EdgeKind.AUTHENTICATES_AS, RevocationAction.ROTATE_ACCESS_KEYS)
    assert out_edges(g, ids.cloud_role("aws", f"arn:aws:iam::{A}:instance-profile/runner"), EdgeKind.ASSUMES_ROLE) == {
        R("runner"): "certain"}
    plan = revocation_plan(g, "host:h")
    got = [(s.action.value, s.phase) for s in plan.steps]
    assert got[0] == ("rotate_credential", "contain")  # the key file on disk, then the user's keys at AWS
    assert got.index(("rotate_access_keys", "rotate")) > got.index(("reimage_host", "contain"))


def test_document_ids_do_not_depend_on_the_working_directory(tmp_path, monkeypatch):
    # issue 10 known gap: cloud_policy:file: / oidc_provider ids embedded the path as given
    from graphkit.build import build_graph

    folder = tmp_path / "iam" / "trusts"
    folder.mkdir(parents=True)
    (folder / "ci.json").write_text(json.dumps({"Statement": {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}}))
    (folder / "cfn.yaml").write_text("Resources:\n  Gh:\n    Type: AWS::IAM::OIDCProvider\n    Properties:\n"
                                     "      Url: https://token.actions.githubusercontent.com\n")
    found = []
    for cwd, arg in ((tmp_path, "iam"), (folder, ".."), (folder, str(tmp_path / "iam"))):
        monkeypatch.chdir(cwd)
        g = build_graph({"aws-iam": [arg]}).graph
        found.append(sorted(n.id for n in g.nodes() if n.id.startswith(("cloud_policy:file:", "oidc_provider:"))))
    assert found[0] == found[1] == found[2]
    assert found[0][0] == "cloud_policy:file:iam/trusts/ci.json"
    assert found[0][1].endswith("@iam/trusts/cfn.yaml")


def test_terraform_template_that_is_not_json_is_reported_with_the_way_to_render_it():
    # Terraform "Strings and Templates" (https://developer.hashicorp.com/terraform/language/expressions/strings):
    # %{ if } directives make a file that is neither JSON nor YAML until rendered
    text = ('{"Statement": [%{ for r in repos ~}{"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity", '
            '"Principal": {"Federated": "${provider}"}}%{ endfor ~}]}')
    with pytest.raises(InputError) as exc:
        aws_iam.parse(text, "trust.json.tpl")
    assert exc.value.file == "trust.json.tpl" and "Terraform template" in exc.value.reason
    assert "terraform show -json" in exc.value.reason
    # a template that is JSON (only ${...} placeholders) is still read, placeholders kept
    ok = aws_iam.parse('{"Statement": {"Effect": "Allow", "Action": "s3:*", "Resource": "arn:aws:s3:::${b}/*"}}', "p.json")
    assert ok.documents[0].placeholders == ["b"]


def test_duplicate_keys_are_found_in_embedded_and_plain_documents():
    enc = "%7B%22Statement%22%3A%7B%22Effect%22%3A%22Allow%22%2C%22Effect%22%3A%22Deny%22%2C%22Action%22%3A%22s3%3A%2A%22%7D%7D"
    doc = {"RoleDetailList": [{"RoleName": "r", "Arn": f"arn:aws:iam::{A}:role/r", "AssumeRolePolicyDocument": enc}]}
    assert aws_iam.parse(json.dumps(doc), "iam.json").duplicates == [
        ("RoleDetailList[0].AssumeRolePolicyDocument.Statement", "Effect")]
    assert aws_iam.parse('{"Statement": [], "Statement": {"Effect": "Allow", "Action": "s3:*"}}', "p.json").duplicates \
        == [("", "Statement")]


# --------------------------------------------------------------------------- issue 10: Organizations, versions

FULL = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}


def org_export(*policies: tuple[str, str, dict, list[str]], management: str = "999999999999") -> dict:
    """An Organizations export (ingest/aws_iam/organizations.py) from the CLI outputs: root r-1 > ou-1 > account A.

    ``policies``: ``(name, SERVICE_CONTROL_POLICY | RESOURCE_CONTROL_POLICY, document, target ids)``; AWS CLI
    describe-policy (https://docs.aws.amazon.com/cli/latest/reference/organizations/describe-policy.html) and
    list-targets-for-policy (https://docs.aws.amazon.com/cli/latest/reference/organizations/list-targets-for-policy.html).
    """
    return {"Organization": {"Id": "o-1", "MasterAccountId": management},
            "Accounts": [{"Id": A}, {"Id": management}],
            "Parents": {A: [{"Id": "ou-1", "Type": "ORGANIZATIONAL_UNIT"}], "ou-1": [{"Id": "r-1", "Type": "ROOT"}],
                        management: [{"Id": "r-1", "Type": "ROOT"}]},
            "OrganizationPolicies": [
                {"Policy": {"PolicySummary": {"Id": f"p-{name}", "Name": name, "Type": kind},
                            "Content": json.dumps(doc)},
                 "Targets": [{"TargetId": t, "Type": "ACCOUNT" if t.isdigit() else "ORGANIZATIONAL_UNIT"} for t in targets]}
                for name, kind, doc, targets in policies]}


SCP = "SERVICE_CONTROL_POLICY"
EVERYWHERE = ("FullAWSAccess", SCP, FULL, ["r-1", "ou-1", A])


def test_scps_cap_what_member_account_principals_can_do():
    # AWS Organizations "SCP evaluation"
    # (https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_scps_evaluation.html)
    signer = {"RoleDetailList": [role("signer", root_trust(), [{"Effect": "Allow", "Action": ["kms:Sign", "s3:PutObject"],
                                                                 "Resource": "*"}])]}
    no_org = graph_of(signer)
    assert any(e.kind is EdgeKind.SIGNS_WITH for e in no_org.out_edges(R("signer")))
    deny_kms = ("deny-kms", SCP, {"Statement": {"Effect": "Deny", "Action": "kms:*", "Resource": "*"}}, ["ou-1"])
    g = graph_of(signer, org_export(EVERYWHERE, deny_kms))
    kinds = {e.kind for e in g.out_edges(R("signer"))}
    assert EdgeKind.SIGNS_WITH not in kinds and EdgeKind.PUBLISHES_TO in kinds
    # an allow-list SCP on the OU: every level must allow
    only_s3 = ("only-s3", SCP, {"Statement": {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}}, ["ou-1"])
    g = graph_of(signer, org_export(("full-root", SCP, FULL, ["r-1", A]), only_s3))
    assert {e.kind for e in g.out_edges(R("signer"))} == {EdgeKind.PUBLISHES_TO}
    # a level whose SCPs were not exported: unknown, the edges become possible
    g = graph_of(signer, org_export(("full", SCP, FULL, ["r-1", A])))
    assert {e.confidence.value for e in g.out_edges(R("signer")) if e.kind is EdgeKind.SIGNS_WITH} == {"possible"}
    # the management account is never restricted
    g = graph_of(signer, org_export(EVERYWHERE, deny_kms, management=A))
    assert EdgeKind.SIGNS_WITH in {e.kind for e in g.out_edges(R("signer"))}


def test_rcp_caps_oidc_trust_with_the_tokens_claims():
    # AWS Organizations "Resource control policies"
    # (https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_rcps.html); the claims
    # are condition keys of RCPs too (AWS announcement 2026-01)
    from graphkit.resolve import resolve
    from ingest.github_actions import parse_workflow
    from ingest.github_actions import to_graph as gha_graph

    prov = f"arn:aws:iam::{A}:oidc-provider/token.actions.githubusercontent.com"
    trust = {"Statement": [{"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity", "Principal": {"Federated": prov},
                            "Condition": {"StringEquals": {"token.actions.githubusercontent.com:aud": "sts.amazonaws.com"}}}]}
    rcp = ("only-acme", "RESOURCE_CONTROL_POLICY", {"Statement": [
        {"Effect": "Allow", "Action": "*", "Resource": "*", "Principal": "*"},
        {"Effect": "Deny", "Action": "sts:AssumeRoleWithWebIdentity", "Resource": "*", "Principal": "*",
         "Condition": {"StringNotLike": {"token.actions.githubusercontent.com:repository": "acme/*"}}}]},
           ["r-1", "ou-1", A])
    wf = "on: [pull_request]\npermissions: {id-token: write}\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps: [{run: x}]\n"

    def reached(*exports):
        res = gha_graph([parse_workflow(wf, file=".github/workflows/w.yml", repository=r) for r in ("acme/app", "evil/x")])
        iam = aws_iam.to_graph([aws_iam.parse(json.dumps(e), f"e{i}.json") for i, e in enumerate(exports)])
        g = Graph()
        g.update([*res.nodes, *iam.nodes], [*res.edges, *iam.edges])
        g.meta.aws_iam = iam.meta[aws_iam.META_KEY]
        resolve(g)
        return sorted(g.node(e.source).repository for e in g.edges(EdgeKind.ASSUMES_ROLE) if e.target == R("ci"))

    export = {"RoleDetailList": [role("ci", trust)]}
    assert reached(export) == ["acme/app", "evil/x"]
    assert reached(export, org_export(EVERYWHERE, rcp)) == ["acme/app"]


def test_set_default_policy_version_on_an_attached_policy_reads_the_other_versions():
    # AWS "Versioning IAM policies"
    # (https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_managed-versioning.html): any version
    # can be made the default; non-default versions are read, not dropped
    pol = f"arn:aws:iam::{A}:policy/ci"
    v1 = {"Statement": [{"Effect": "Allow", "Action": "iam:SetDefaultPolicyVersion", "Resource": pol}]}
    v2 = {"Statement": [{"Effect": "Allow", "Action": "kms:Sign", "Resource": KEY}]}

    def export(first: dict) -> dict:
        return {"RoleDetailList": [role("ci", root_trust(), managed=[pol])],
                "Policies": [{"PolicyName": "ci", "Arn": pol, "DefaultVersionId": "v1", "PolicyVersionList": [
                    {"VersionId": "v1", "IsDefaultVersion": True, "Document": first},
                    {"VersionId": "v2", "IsDefaultVersion": False, "Document": v2}]}]}

    g = graph_of(export(v1))
    assert out_edges(g, R("ci"), EdgeKind.SIGNS_WITH) == {KMS_KEY: "certain"}
    edge = next(e for e in g.out_edges(R("ci")) if e.kind is EdgeKind.SIGNS_WITH)
    assert "iam:SetDefaultPolicyVersion" in edge.evidence[0].detail
    assert out_edges(graph_of(export({"Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]})),
                     R("ci"), EdgeKind.SIGNS_WITH) == {}
    # iam:CreatePolicyVersion on the attached policy: it can write anything into it
    cpv = {"Statement": [{"Effect": "Allow", "Action": "iam:CreatePolicyVersion", "Resource": pol}]}
    assert out_edges(graph_of(export(cpv)), R("ci"), EdgeKind.ADMINISTERS) == {ACCOUNT: "certain"}


def test_a_trust_naming_a_foreign_account_becomes_a_node_of_that_account():
    # AWS "Cross account resource access"
    # (https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies-cross-account-resource-access.html)
    other = "444455556666"
    trust = {"Statement": [
        {"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": {"AWS": f"arn:aws:iam::{other}:root"}},
        {"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": {"AWS": f"arn:aws:iam::{other}:role/deployer"},
         "Condition": {"StringEquals": {"sts:ExternalId": "x"}}}]}
    g = graph_of({"RoleDetailList": [role("shared", trust), role("mine", root_trust())]})
    foreign_role = ids.cloud_role("aws", f"arn:aws:iam::{other}:role/deployer")
    assert out_edges(g, ids.cloud_account(other), EdgeKind.ASSUMES_ROLE) == {R("shared"): "certain"}
    assert out_edges(g, foreign_role, EdgeKind.ASSUMES_ROLE) == {R("shared"): "possible"}
    assert g.node(foreign_role).inferred and g.node(foreign_role).account == other
    # a principal of an ingested account is evaluated as before, never as foreign
    assert ids.cloud_account(A) not in g or not out_edges(g, ids.cloud_account(A), EdgeKind.ASSUMES_ROLE)


# --------------------------------------------------------------------------- evidence lines


def _line_text(path: Path, line: int) -> str:
    return path.read_text(encoding="utf-8").splitlines()[line - 1]


@corpus
def test_json_lines_equal_the_yaml_loaders_on_every_corpus_json_file():
    """The JSON line map (one regex pass) is the YAML loader's line map of the same document (the YAML C loader
    reads these JSON files as YAML, marks included), file by file, on every JSON file of the shared corpus."""
    from ingest._json_lines import json_lines
    from ingest._yaml import load_yaml
    files = sorted(p for p in CORPUS.parent.rglob("*.json") if p.is_file())
    assert len(files) >= 40
    for p in files:
        text = p.read_text(encoding="utf-8")
        json.loads(text)
        assert json_lines(text) == load_yaml(text, file=str(p))[1], p


def test_json_lines_of_escaped_and_repeated_keys():
    """An escaped key is decoded as the decoder does; of a key held twice, the last one's line (its value won)."""
    from ingest._json_lines import json_lines
    text = '{"a\\u002eb": [1,\n  {"k": "x", "k": "y"},\n  "s\\"]"\n, {}],\n "c": {"d": [[]]}}'
    assert json.loads(text)["a.b"][1] == {"k": "y"}
    assert json_lines(text) == {"": 1, "a.b": 1, "a.b[1]": 2, "a.b[1].k": 2, "a.b[2]": 3, "a.b[3]": 4, "c": 5,
                                "c.d": 5, "c.d[0]": 5}
    two = '{"k": {"x": 1},\n "k": {"y": 2}}'
    assert json_lines(two)["k"] == 2


@corpus
def test_every_evidence_of_an_iam_export_has_the_line_of_its_place():
    """get-account-authorization-details from the corpus: every evidence item of every node and edge has a line,
    and that line holds what the place names (a key's line holds the key; a statement's, its opening brace)."""
    path = CORPUS / "salesforce__cloudsplaining/test/files/example-authz-details.json"
    g = build_graph({"aws-iam": [path]}).graph
    evs = [e for n in g.nodes() for e in n.evidence] + [e for x in g.edges() for e in x.evidence]
    from_file = [e for e in evs if e.file == str(path)]
    assert len(from_file) >= 100 and all(e.line is not None for e in from_file)
    for e in from_file:
        last = e.yaml_path.rsplit(".", 1)[-1]
        text = _line_text(path, e.line)
        if last.endswith("]"):  # an item: where it starts
            assert text.strip() in ("{", "[") or text.strip().startswith(("{", '"')), (e, text)
        else:
            assert f'"{last}"' in text, (e, text)
    ev = next(e for e in from_file if e.yaml_path == "RoleDetailList[2].RolePolicyList[0].PolicyDocument.Statement[0]")
    assert ev.line == 293


@corpus
def test_cloudformation_trust_evidence_has_the_statements_line():
    """The corpus template's role trust: the finding on its statement and the policy node name line 59
    (``- Effect: Allow`` under ``AssumeRolePolicyDocument.Statement``), the document line 57."""
    path = CORPUS / "aws-actions__configure-aws-credentials/examples/federated-setup/github-actions-oidc-federation-and-role.yml"
    g = build_graph({"aws-iam": [path]}).graph
    (policy,) = [n for n in g.nodes() if n.spec.kind is NodeKind.CLOUD_POLICY]
    assert [(e.yaml_path, e.line) for e in policy.evidence] == [
        ("Resources.RoleGithubActions.Properties.AssumeRolePolicyDocument", 57)]
    assert policy.statement_lines == [59]
    found = [f for f in run_rules(g) if f.rule == "oidc-trust-broad-sub"]
    assert found and {(e.yaml_path, e.line) for f in found for e in f.evidence} == {
        ("Resources.RoleGithubActions.Properties.AssumeRolePolicyDocument.Statement[0]", 59)}
    assert _line_text(path, 59).strip() == "- Effect: Allow"


# --------------------------------------------------------------------------- condition value types


@pytest.mark.parametrize("values, where, got", [
    ([1, {"a": 2}], "[1]", "an object"),
    ([["repo:acme/app:*"]], "[0]", "a list"),
    ({"repo": "acme/app"}, "", "an object"),
    (None, "", "null"),
])
def test_a_trust_condition_value_of_another_type_is_a_problem_and_the_trust_unknown(tmp_path, values, where, got):
    """AWS refuses a policy whose condition values are not strings, numbers or Booleans (IAM policy grammar): such
    a trust is a problem naming the file and the place (never the value), and the role's trust is unknown, never
    known (it used to be known, the values stringified: ``"{'a': 2}"``)."""
    sub = "token.actions.githubusercontent.com:sub"
    trust = {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
        "Principal": {"Federated": f"arn:aws:iam::{A}:oidc-provider/token.actions.githubusercontent.com"},
        "Condition": {"StringEquals": {sub: values, f"{sub.split(':')[0]}:aud": "sts.amazonaws.com"}}}]}
    path = tmp_path / "iam.json"
    path.write_text(json.dumps({"RoleDetailList": [role("deployer", trust, [
        {"Effect": "Allow", "Action": "kms:Sign", "Resource": KEY}])]}))
    res = build_graph({"aws-iam": [path]})
    (problem,) = res.problems
    assert KMS_KEY in set(res.graph.nx.successors(R("deployer")))  # its permissions kept
    assert (problem.file, problem.place) == (
        str(path), f"RoleDetailList[0].AssumeRolePolicyDocument.Statement[0].Condition.StringEquals.{sub}{where}")
    # the role stays with its permission edges, its trust unknown: the problem says that, not "left out"
    assert problem.reason == (f"trust of role deployer unknown: a condition value is a string, number or Boolean, "
                              f"got {got}")
    node = res.graph.node(R("deployer"))
    assert (node.trust, node.trust_policy) == ("unknown", None)
    ok = json.loads(json.dumps(trust))
    ok["Statement"][0]["Condition"]["StringEquals"][sub] = ["repo:acme/app:ref:refs/heads/main", 7, True]
    path.write_text(json.dumps({"RoleDetailList": [role("deployer", ok)]}))
    res = build_graph({"aws-iam": [path]})
    assert res.problems == [] and res.graph.node(R("deployer")).trust == "known"
