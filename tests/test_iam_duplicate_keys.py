"""A JSON object of an IAM document holding a key twice (RFC 8259 section 4: which value a reader keeps is
unpredictable, https://www.rfc-editor.org/rfc/rfc8259#section-4): a trust policy is unknown and evaluated over
every reading (edges only possible, never narrower), an identity policy's grants are those of every reading
(possible), and the finding names the line."""

from __future__ import annotations

from graphkit.build import build_graph
from graphkit.findings import run_rules
from graphkit.model import EdgeKind

A = "123456789012"
HOST = "token.actions.githubusercontent.com"
PROVIDER = f"arn:aws:iam::{A}:oidc-provider/{HOST}"
WF = ("on: {push: {branches: [main]}}\npermissions: {id-token: write}\njobs:\n  d:\n    runs-on: ubuntu-latest\n"
      "    steps:\n      - run: echo\n")


def _role(name: str, condition_text: str) -> str:
    return (f'{{"Path": "/", "RoleName": "{name}", "RoleId": "AROA{name.upper()}", "Arn": "arn:aws:iam::{A}:role/{name}",\n'
            ' "AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": [{"Effect": "Allow",\n'
            f'   "Principal": {{"Federated": "{PROVIDER}"}}, "Action": "sts:AssumeRoleWithWebIdentity",\n'
            f'   "Condition": {condition_text}}}]}},\n'
            ' "RolePolicyList": [], "AttachedManagedPolicies": [], "InstanceProfileList": []}')


def _build(tmp_path, iam_text: str):
    repo = tmp_path / "repos" / "t__app" / ".github" / "workflows"
    repo.mkdir(parents=True)
    (repo / "d.yml").write_text(WF)
    (tmp_path / "iam.json").write_text(iam_text)
    return build_graph({"github-actions": [tmp_path / "repos"], "aws-iam": [tmp_path / "iam.json"]})


def _assumers(g) -> dict[str, str]:
    return {e.target.rsplit("/", 1)[1]: e.confidence.value for e in g.edges(EdgeKind.ASSUMES_ROLE)
            if e.source.startswith("oidc:")}


def test_a_duplicated_condition_block_leaves_the_trust_unknown_never_narrower(tmp_path):
    # the last block (repo:zzz/none:*) alone would shut t/app out; the first (repo:t/*) lets it in
    rev = _role("duprev", f'{{"StringLike": {{"{HOST}:sub": "repo:t/*"}},\n'
                          f'                 "StringLike": {{"{HOST}:sub": "repo:zzz/none:*"}}}}')
    # the last block (aud) alone would let every job in, certainly; the first pins another repository
    pin = _role("duppin", f'{{"StringEquals": {{"{HOST}:sub": "repo:zzz/none:ref:refs/heads/main"}},\n'
                          f'                 "StringEquals": {{"{HOST}:aud": "sts.amazonaws.com"}}}}')
    res = _build(tmp_path, '{"RoleDetailList": [' + rev + ",\n" + pin + "]}")
    roles = {n.name: n for n in res.graph.nodes() if n.kind == "cloud_role"}
    assert {k: r.trust for k, r in roles.items()} == {"duprev": "unknown", "duppin": "unknown"}
    # the trust kept is every reading's statements
    assert [s["Condition"] for s in roles["duprev"].trust_policy["Statement"]] == [
        {"StringLike": {f"{HOST}:sub": "repo:t/*"}}, {"StringLike": {f"{HOST}:sub": "repo:zzz/none:*"}}]
    assert _assumers(res.graph) == {"duprev": "possible", "duppin": "possible"}
    places = sorted(p.place for p in res.problems)
    assert places == ["RoleDetailList[0].AssumeRolePolicyDocument.Statement[0].Condition.StringLike",
                      "RoleDetailList[1].AssumeRolePolicyDocument.Statement[0].Condition.StringEquals"]
    found = [f for f in run_rules(res.graph) if f.rule == "iam-policy-duplicate-key"]
    assert sorted((f.evidence[0].line, f.evidence[0].yaml_path) for f in found) == [
        (5, "RoleDetailList[0].AssumeRolePolicyDocument.Statement[0].Condition.StringLike"),
        (11, "RoleDetailList[1].AssumeRolePolicyDocument.Statement[0].Condition.StringEquals")]


def test_a_duplicated_effect_in_an_identity_policy_keeps_the_grant_possible(tmp_path):
    role = ('{"Path": "/", "RoleName": "target", "RoleId": "AROAT", "Arn": "arn:aws:iam::%s:role/target",'
            ' "AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": [{"Effect": "Allow",'
            ' "Principal": {"AWS": "arn:aws:iam::%s:root"}, "Action": "sts:AssumeRole"}]},'
            ' "RolePolicyList": [], "AttachedManagedPolicies": [], "InstanceProfileList": []}' % (A, A))

    def user(name: str, effects: str) -> str:
        return ('{"Path": "/", "UserName": "%s", "UserId": "AIDA%s", "Arn": "arn:aws:iam::%s:user/%s",'
                ' "GroupList": [], "AttachedManagedPolicies": [], "UserPolicyList": [{"PolicyName": "p",'
                ' "PolicyDocument": {"Version": "2012-10-17", "Statement": [{%s, "Action": "sts:AssumeRole",'
                ' "Resource": "arn:aws:iam::%s:role/target"}]}}]}' % (name, name.upper(), A, name, effects, A))

    text = ('{"RoleDetailList": [' + role + '], "UserDetailList": [' + user("twice", '"Effect": "Allow", "Effect": "Deny"')
            + ", " + user("once", '"Effect": "Allow"') + ", " + user("denied", '"Effect": "Deny"') + "]}")
    res = _build(tmp_path, text)
    got = {e.source.rsplit("/", 1)[1]: e.confidence.value for e in res.graph.edges(EdgeKind.ASSUMES_ROLE)
           if e.source.startswith("cloud_user:")}
    # last-wins alone (Deny) would cut it; AWS may apply the Allow
    assert got == {"twice": "possible", "once": "certain"}
    assert [p.place for p in res.problems] == ["UserDetailList[0].UserPolicyList[0].PolicyDocument"]
