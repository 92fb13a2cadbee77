"""``aws-trust-any-principal``: a role trust allowing ``sts:AssumeRole`` to any AWS principal with no condition
(https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html#principal-anonymous)."""

from __future__ import annotations

import json

import pytest

from graphkit.build import build_graph
from graphkit.findings import run_rules

RULE = "aws-trust-any-principal"


def _role(name: str, statements: list[dict]) -> dict:
    return {"Path": "/", "RoleName": name, "RoleId": f"AROA{name.upper()}", "Arn": f"arn:aws:iam::111122223333:role/{name}",
            "AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": statements},
            "InstanceProfileList": [], "RolePolicyList": [], "AttachedManagedPolicies": []}


def _findings(tmp_path, statements: list[dict]):
    path = tmp_path / "iam.json"
    path.write_text(json.dumps({"RoleDetailList": [_role("t", statements)], "UserDetailList": [],
                                "GroupDetailList": [], "Policies": []}, indent=1))
    res = build_graph({"aws-iam": [path]})
    assert res.problems == []
    return [(f.severity.value, f.subject, f.evidence[0].yaml_path, f.evidence[0].line)
            for f in run_rules(res.graph, only=[RULE])]


ROLE = "cloud_role:aws:arn:aws:iam::111122223333:role/t"


@pytest.mark.parametrize("principal", ["*", {"AWS": "*"}, {"AWS": ["arn:aws:iam::444455556666:root", "*"]}])
def test_any_principal_without_condition_is_critical(tmp_path, principal):
    found = _findings(tmp_path, [{"Effect": "Allow", "Principal": principal, "Action": ["sts:AssumeRole",
                                                                                         "sts:TagSession"]}])
    assert [f[:3] for f in found] == [("critical", ROLE, "RoleDetailList[0].AssumeRolePolicyDocument.Statement[0]")]
    assert found[0][3] is not None and found[0][3] > 1


@pytest.mark.parametrize("statements", [
    # a condition narrows it (AWS: a wildcard principal only with a Condition)
    [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole",
      "Condition": {"StringEquals": {"aws:PrincipalOrgID": "o-abc123"}}}],
    # one account's root: delegated to that account's identity policies
    [{"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::444455556666:root"}, "Action": "sts:AssumeRole"}],
    # a wildcard principal for another action only
    [{"Effect": "Allow", "Principal": "*", "Action": "sts:AssumeRoleWithWebIdentity",
      "Condition": {"StringEquals": {"token.actions.githubusercontent.com:sub": "repo:acme/app:ref:refs/heads/main"}}}],
    [{"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}],
    # an unconditional Deny for everyone wins
    [{"Effect": "Allow", "Principal": "*", "Action": "sts:*"},
     {"Effect": "Deny", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}],
])
def test_narrowed_or_other_trusts_are_not_flagged(tmp_path, statements):
    assert _findings(tmp_path, statements) == []
