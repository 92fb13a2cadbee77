"""GitHub OIDC claims against AWS condition semantics: condition key names are case-insensitive, values
case-sensitive; GitHub owner and repository names are case-insensitive but the token carries GitHub's spelling,
which graphkit knows only from an inventory (or a spelling with capitals)."""

import json

from graphkit.graph import Graph
from graphkit.model import EdgeKind, ids
from graphkit.resolve import resolve
from ingest import aws_iam
from ingest.github_actions import parse_workflow, to_graph

A = "111122223333"
HOST = "token.actions.githubusercontent.com"
PROVIDER = f"arn:aws:iam::{A}:oidc-provider/{HOST}"
ROLE = ids.cloud_role("aws", f"arn:aws:iam::{A}:role/deploy")
WORKFLOW = """
on: {push: {branches: [main]}}
permissions: {id-token: write}
jobs:
  deploy:
    runs-on: ubuntu-latest
    steps: [{run: echo}]
"""


def edges(repository: str, condition: dict, names: dict[str, str] | None = None) -> dict[str, str]:
    """``job -> deploy`` edges of a workflow of ``repository`` against a trust with ``condition``; ``names``: the
    inventory's repository spellings."""
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
                                                     "Principal": {"Federated": PROVIDER}, "Condition": condition}]}
    export = {"RoleDetailList": [{"RoleName": "deploy", "Arn": f"arn:aws:iam::{A}:role/deploy",
                                  "AssumeRolePolicyDocument": trust}]}
    iam = aws_iam.to_graph([aws_iam.parse(json.dumps(export), "iam.json")])
    res = to_graph([parse_workflow(WORKFLOW, file=".github/workflows/w.yml", repository=repository)])
    g = Graph()
    g.update([*res.nodes, *iam.nodes], [*res.edges, *iam.edges])
    g.meta.aws_iam = iam.meta[aws_iam.META_KEY]
    if names is not None:
        g.meta.runner_inventory = {"repository_names": names}
    resolve(g)
    return {e.source.rsplit("#", 1)[-1]: e.confidence.value for e in g.edges(EdgeKind.ASSUMES_ROLE) if e.target == ROLE}


AUD = {f"{HOST}:aud": "sts.amazonaws.com"}


def test_condition_keys_are_case_insensitive():
    """AWS "IAM JSON policy elements: Condition": "Condition key names are not case-sensitive"
    (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition.html)."""
    upper = {"StringEquals": {f"{HOST.upper()}:AUD": "sts.amazonaws.com",
                              f"Token.Actions.GitHubUserContent.com:Sub": "repo:acme/app:ref:refs/heads/main"}}
    assert edges("acme/app", upper) == {"deploy": "certain"}
    other = {"StringEquals": {f"{HOST.upper()}:AUD": "sts.amazonaws.com",
                              f"{HOST.upper()}:SUB": "repo:acme/app:ref:refs/heads/dev"}}
    assert edges("acme/app", other) == {}


def test_values_are_case_sensitive_where_the_spelling_is_known():
    """``StringEquals``/``StringLike`` compare case-sensitively (AWS "Condition operators", string condition
    operators,
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html#Conditions_String);
    the token's ``sub`` carries GitHub's spelling of OWNER/REPO (GitHub "OpenID Connect reference",
    https://docs.github.com/en/actions/reference/security/oidc).  The inventory's spelling is GitHub's: it decides,
    whatever the checkout says; a spelling with capitals is taken as GitHub's too."""
    lower = {"StringEquals": {**AUD, f"{HOST}:sub": "repo:acme/app:ref:refs/heads/main"}}
    capital = {"StringEquals": {**AUD, f"{HOST}:sub": "repo:Acme/App:ref:refs/heads/main"}}
    like = {"StringEquals": AUD, "StringLike": {f"{HOST}:sub": "repo:Acme/*"}}
    ignore = {"StringEquals": AUD, "StringEqualsIgnoreCase": {f"{HOST}:sub": "repo:ACME/APP:ref:refs/heads/main"}}
    known = {"acme/app": "Acme/App"}
    assert edges("acme/app", capital, known) == {"deploy": "certain"}  # the checkout's lower case is not GitHub's
    assert edges("acme/app", lower, known) == {}
    assert edges("acme/app", like, known) == {"deploy": "certain"}
    assert edges("acme/app", ignore, known) == {"deploy": "certain"}
    assert edges("acme/app", lower, {"acme/app": "acme/app"}) == {"deploy": "certain"}
    assert edges("acme/app", capital, {"acme/app": "acme/app"}) == {}
    assert edges("Acme/App", lower) == {}  # capitals: not a lower-cased copy
    assert edges("Acme/App", capital) == {"deploy": "certain"}
    repository = {"StringEquals": {**AUD, f"{HOST}:repository": "acme/app"}}
    assert edges("acme/app", repository, known) == {}


def test_a_lower_case_spelling_of_unknown_origin_makes_a_case_only_difference_possible():
    """A checkout's ``owner__name`` folder or remote may be a lower-cased copy of GitHub's spelling: a trust that
    accepts (or, negated, excludes) the token only in another spelling of OWNER/REPO decides nothing for certain."""
    assert edges("acme/app", {"StringEquals": {**AUD, f"{HOST}:sub": "repo:Acme/App:ref:refs/heads/main"}}) == {
        "deploy": "possible"}
    assert edges("acme/app", {"StringEquals": AUD, "StringLike": {f"{HOST}:sub": "repo:ACME/*"}}) == {
        "deploy": "possible"}
    assert edges("acme/app", {"StringEquals": AUD, "StringNotLike": {f"{HOST}:sub": "repo:Acme/*"}}) == {
        "deploy": "possible"}
    assert edges("acme/app", {"StringEquals": {**AUD, f"{HOST}:repository": "Acme/App"}}) == {"deploy": "possible"}
    # the same spelling: decided; another branch or another owner in any case: rejected
    assert edges("acme/app", {"StringEquals": {**AUD, f"{HOST}:sub": "repo:acme/app:ref:refs/heads/main"}}) == {
        "deploy": "certain"}
    assert edges("acme/app", {"StringEquals": {**AUD, f"{HOST}:sub": "repo:Acme/App:ref:refs/heads/dev"}}) == {}
    assert edges("acme/app", {"StringEquals": {**AUD, f"{HOST}:sub": "repo:Acmex/App:ref:refs/heads/main"}}) == {}
