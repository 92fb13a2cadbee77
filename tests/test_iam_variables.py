"""IAM policy variables: where AWS substitutes them, escapes, defaults, keys without value or unknown.

AWS IAM User Guide "IAM policy elements: Variables and tags"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html) and "Condition operators"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html).
"""

import json
import urllib.parse
from pathlib import Path

import pytest

from graphkit.iam import ClaimValue as CV
from graphkit.iam import (allowed, control_policy_decision, evaluate_conditions, parse_policy, principal_trust,
                          resource_hit, web_identity_trust)
from graphkit.iam.variables import STAR, Bindings, Var, principal_context, template
from graphkit.oidc import JobFacts, Run, claim_variants
from graphkit.resolve.trust_index import TrustIndex

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "aws-iam"
corpus = pytest.mark.requires(CORPUS.is_dir(), reason="shared corpus not present", corpus=True)
GH = "token.actions.githubusercontent.com"
SUB, REPO, ENV = f"{GH}:sub", f"{GH}:repository", f"{GH}:environment"
A = "111122223333"
PROVIDER = f"arn:aws:iam::{A}:oidc-provider/{GH}"
V12, V08 = "2012-10-17", "2008-10-17"


def trust(condition: dict, version: str | None = V12, principal: str = PROVIDER) -> list:
    doc = {"Statement": [{"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
                          "Principal": {"Federated": principal}, "Condition": condition}]}
    if version:
        doc["Version"] = version
    return parse_policy(doc)


def job(repository: str = "acme/app", run: Run = Run("ref:refs/heads/main", "refs/heads/main")) -> list:
    """The request contexts of one GitHub job (graphkit's own builder: the claims STS evaluates)."""
    facts = JobFacts(repository, (run,), workflow_path=".github/workflows/deploy.yml", workflow="Deploy")
    return [c for runs in claim_variants(facts) for c in runs]


def accepts(statements: list, contexts: list) -> bool | None:
    out = {web_identity_trust(statements, A, ctx, known_keys=known).result for ctx, known, _ in contexts}
    return out.pop() if len(out) == 1 else None


# --------------------------------------------------------------------------- parsing the ${...} forms


def test_template_forms():
    assert template("repo:${Token.Actions.GitHubUserContent.com:Repository}:*") == (
        "repo:", Var(f"{GH}:repository"), ":*")                                     # key names case-insensitive
    assert template("${aws:PrincipalTag/team, 'company-wide'}") == (Var("aws:principaltag/team", "company-wide"),)
    assert template("a${*}b${?}c${$}d") == (f"a{STAR}b\ue001c$d",)                 # specials: text, no variable
    assert template("${*}") == (STAR,)
    assert template("cost-${unclosed") is None and template("plain") is None


# --------------------------------------------------------------------------- trust conditions (GitHub OIDC)


def test_sub_built_from_the_repository_claim():
    st = trust({"StringLike": {SUB: "repo:${token.actions.githubusercontent.com:repository}:ref:refs/heads/main"}})
    assert accepts(st, job("acme/app")) is True
    # the same policy value meets other claims: the memo must not answer from the first request
    assert accepts(st, job("acme/app", Run("pull_request", "refs/pull/*/merge"))) is False
    assert accepts(st, job("acme/other")) is True
    feature = job("acme/app", Run("ref:refs/heads/*", "refs/heads/*"))  # any branch: only main matches
    assert accepts(st, feature) is None


def test_variables_need_the_2012_policy_language():
    # "If you don't include the Version element ... variables like ${aws:username} are treated as literal strings"
    cond = {"StringLike": {SUB: "repo:${token.actions.githubusercontent.com:repository}:*"}}
    assert accepts(trust(cond), job()) is True
    assert accepts(trust(cond, version=None), job()) is False
    assert accepts(trust(cond, version=V08), job()) is False


def test_escapes_are_literal_characters():
    st = trust({"StringLike": {SUB: "repo:acme/${*}:*"}})   # the repository named "*", not any repository
    assert accepts(st, job("acme/app")) is False
    assert evaluate_conditions(st[0].conditions, {SUB: [CV("repo:acme/*:pull_request")]}, variables=True) is True
    eq = {"StringEquals": {SUB: ("a${?}b${$}",)}}
    assert evaluate_conditions(eq, {SUB: [CV("a?b$")]}, variables=True) is True
    assert evaluate_conditions(eq, {SUB: [CV("axb$")]}, variables=True) is False
    # the escaped character against a request pattern (unknown text): possible, never certain
    assert evaluate_conditions(eq, {SUB: [CV("a*", pattern=True)]}, variables=True) is None


def test_key_without_value_matches_nothing_negated_operators_hold():
    # no environment claim without an environment: known absent ("There is no equal or like value")
    like = trust({"StringLike": {SUB: "repo:acme/app:environment:${token.actions.githubusercontent.com:environment}"}})
    assert accepts(like, job()) is False
    not_like = trust({"StringNotLike": {SUB: "repo:acme/app:environment:${token.actions.githubusercontent.com:environment}"}})
    assert accepts(not_like, job()) is True
    with_env = job("acme/app", Run("environment:prod", "refs/heads/main", "prod"))
    assert accepts(like, with_env) is True and accepts(not_like, with_env) is False
    # repository_owner is a GitHub claim STS does not evaluate: absent, so its default applies
    dflt = trust({"StringEquals": {SUB: "repo:${token.actions.githubusercontent.com:repository_owner, 'acme'}/app:ref:refs/heads/main"}})
    assert accepts(dflt, job("acme/app")) is True and accepts(dflt, job("evil/app")) is False


def test_unknown_key_is_possible_not_decided():
    # aws:PrincipalTag is not in a web identity request graphkit models: unknown, never a certain answer ...
    st = trust({"StringLike": {SUB: "repo:acme/${aws:PrincipalTag/repo}:*"}})
    assert accepts(st, job("acme/app")) is None
    neg = trust({"StringNotLike": {SUB: "repo:acme/${aws:PrincipalTag/repo}:*"}})
    assert accepts(neg, job("acme/app")) is None
    # ... unless no value it could take matches: then the answer is certain
    assert accepts(st, job("evil/app")) is False and accepts(neg, job("evil/app")) is True
    # a multivalued key cannot be a variable: unknown
    cond = {"StringEquals": {"k": ("${aws:CalledVia}",)}}
    assert evaluate_conditions(cond, {"k": [CV("x")], "aws:calledvia": [CV("x"), CV("y")]}, variables=True) is None


def test_if_exists_and_null_are_about_the_condition_key():
    cond = {"StringLikeIfExists": {SUB: ("repo:acme/app:environment:${token.actions.githubusercontent.com:environment}",)}}
    ctx = {SUB: [CV("repo:acme/app:ref:refs/heads/main")]}
    assert evaluate_conditions(cond, {}, variables=True) is True          # key absent: IfExists holds
    assert evaluate_conditions(cond, ctx, variables=True) is False        # key present, variable without value
    # Null does not take variables: "${...}" is text, and "true" asks for the key to be absent
    null = {"Null": {SUB: ("${aws:username}",)}}
    assert evaluate_conditions(null, ctx, variables=True) is True
    assert evaluate_conditions(null, {}, variables=True) is False


def test_other_operators_do_not_substitute_and_bool_is_undecided():
    num = {"NumericEquals": {"k": ("${n}",)}}
    assert evaluate_conditions(num, {"k": [CV("1")], "n": [CV("1")]}, variables=True) is None
    # the variables page says Bool does not take variables, the operators page says it does: decide only when
    # both readings agree
    b = {"Bool": {"aws:SecureTransport": ("${aws:ViaAWSService}",)}}
    ctx = {"aws:securetransport": [CV("true")]}
    assert evaluate_conditions(b, {**ctx, "aws:viaawsservice": [CV("true")]}, variables=True) is None
    assert evaluate_conditions(b, {**ctx, "aws:viaawsservice": [CV("false")]}, variables=True) is False
    assert evaluate_conditions({"Bool": {"aws:SecureTransport": ("true",)}}, ctx, variables=True) is True


def test_principal_is_never_substituted():
    st = trust({"StringLike": {SUB: "repo:acme/*"}},
               principal=f"arn:aws:iam::${{aws:PrincipalAccount}}:oidc-provider/{GH}")
    assert accepts(st, job()) is False


def test_gitlab_claims_sts_does_not_evaluate_are_absent():
    host = "gitlab.com"
    st = parse_policy({"Version": V12, "Statement": {
        "Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
        "Principal": {"Federated": f"arn:aws:iam::{A}:oidc-provider/{host}"},
        "Condition": {"StringLike": {f"{host}:sub": f"project_path:acme/app:ref_type:branch:ref:${{{host}:ref}}"}}}})
    ctx = {f"{host}:sub": [CV("project_path:acme/app:ref_type:branch:ref:main")]}

    def known(key: str) -> bool:  # graphkit.resolve.gitlab_oidc: every HOST: key but sub and aud is absent
        return key.startswith(f"{host}:")

    assert web_identity_trust(st, A, ctx, known_keys=known, provider_host=host).result is False


def test_trust_index_keeps_a_trust_whose_sub_holds_a_variable():
    st = trust({"StringLike": {SUB: "repo:${token.actions.githubusercontent.com:repository}:ref:refs/heads/main"}})
    assert TrustIndex({"role:x": st}).candidates(job("acme/app")) == {"role:x"}
    assert accepts(st, job("acme/app")) is True


def test_rcp_with_a_variable_reads_the_tokens_claims():
    rcp = parse_policy({"Version": V12, "Statement": [
        {"Effect": "Allow", "Action": "*", "Resource": "*"},
        {"Effect": "Deny", "Action": "sts:AssumeRoleWithWebIdentity", "Resource": "*",
         "Condition": {"StringNotLike": {SUB: "repo:${token.actions.githubusercontent.com:repository}:ref:refs/heads/main"}}}]})
    role = f"arn:aws:iam::{A}:role/deploy"
    main, pr = job("acme/app")[0], job("acme/app", Run("pull_request", "refs/pull/*/merge"))[0]
    assert control_policy_decision([rcp], "sts:AssumeRoleWithWebIdentity", role, context=main[0],
                                   known_keys=main[1]) is True
    assert control_policy_decision([rcp], "sts:AssumeRoleWithWebIdentity", role, context=pr[0],
                                   known_keys=pr[1]) is False


# --------------------------------------------------------------------------- AssumeRole by IAM principals


def test_assume_role_context_of_the_caller():
    t = parse_policy({"Version": V12, "Statement": {
        "Effect": "Allow", "Action": "sts:AssumeRole", "Principal": {"AWS": f"arn:aws:iam::{A}:root"},
        "Condition": {"ArnLike": {"aws:PrincipalArn": "arn:aws:iam::${aws:PrincipalAccount}:role/ci-*"}}}})
    assert principal_trust(t, f"arn:aws:iam::{A}:role/ci-build", A, A)[0] is True
    assert principal_trust(t, f"arn:aws:iam::{A}:role/web", A, A)[0] is False
    assert principal_trust(t, f"arn:aws:iam::{A}:root", A, A)[0] is None   # some principal of the account
    own = parse_policy({"Version": V12, "Statement": {
        "Effect": "Allow", "Action": "sts:AssumeRole", "Principal": {"AWS": f"arn:aws:iam::{A}:root"},
        "Condition": {"StringEquals": {"aws:PrincipalTag/team": "${aws:username}"}}}})
    # a role has no aws:username ("not present"): StringEquals cannot match, whatever its (unknown) tags
    assert principal_trust(own, f"arn:aws:iam::{A}:role/ci", A, A)[0] is False
    assert principal_trust(own, f"arn:aws:iam::{A}:user/alice", A, A)[0] is None


# --------------------------------------------------------------------------- Resource and NotResource


def grants(statements: list, action: str, principal: str) -> list:
    env = Bindings(*principal_context(principal, A))
    return [(g.resource, g.confidence) for g in allowed(statements, action, variables=env)]


SELF = {"Version": V12, "Statement": [{"Effect": "Allow", "Action": ["iam:CreateAccessKey", "s3:GetObject"],
                                        "Resource": [f"arn:aws:iam::{A}:user/${{aws:username}}",
                                                     "arn:aws:s3:::home/${aws:username}/*",
                                                     "arn:aws:s3:::team-${aws:PrincipalTag/team, 'company-wide'}/*"]}]}


def test_resource_variables_user_role_default_and_unknown():
    st = parse_policy(SELF)
    alice = f"arn:aws:iam::{A}:user/dev/alice"
    assert grants(st, "iam:CreateAccessKey", alice)[0] == (f"arn:aws:iam::{A}:user/alice", True)
    assert grants(st, "s3:GetObject", alice)[1] == ("arn:aws:s3:::home/alice/*", True)
    # a role has no aws:username: those entries match no resource; the tag is unknown: any team, possible
    assert grants(st, "s3:GetObject", f"arn:aws:iam::{A}:role/ci") == [("arn:aws:s3:::team-*/*", None)]
    # without a context every key is unknown: possible grants, never certain ones
    assert [(g.resource, g.confidence) for g in allowed(st, "iam:CreateAccessKey")] == [
        (f"arn:aws:iam::{A}:user/*", None), ("arn:aws:s3:::home/*/*", None), ("arn:aws:s3:::team-*/*", None)]
    # the 2008 language: text
    old = parse_policy({**SELF, "Version": V08})
    assert grants(old, "iam:CreateAccessKey", alice)[0] == (f"arn:aws:iam::{A}:user/${{aws:username}}", True)


def test_resource_default_escape_and_the_fifth_colon():
    st = parse_policy({"Version": V12, "Statement": [
        {"Effect": "Allow", "Action": "s3:GetObject", "Resource": [
            "arn:aws:s3:::team-${aws:PrincipalTag/team, 'company-wide'}/*",
            "arn:aws:s3:::literal/${*}",
            "arn:aws:${aws:PrincipalAccount}:s3:::b/*"]}]})  # before the fifth colon: text
    known_absent = Bindings(*principal_context(f"arn:aws:iam::{A}:role/ci", A))
    known_absent.is_known = lambda k: True  # every key absent but those of the context: the default applies
    out = [(g.resource, g.confidence) for g in allowed(st, "s3:GetObject", variables=known_absent)]
    assert out == [("arn:aws:s3:::team-company-wide/*", True), (f"arn:aws:s3:::literal/{STAR}", True),
                   ("arn:aws:${aws:PrincipalAccount}:s3:::b/*", True)]
    lit = st[0]
    assert resource_hit(lit, "arn:aws:s3:::literal/*", variables=known_absent) is None  # some object key, maybe "*"
    assert resource_hit(lit, "arn:aws:s3:::literal/x", variables=known_absent) is False


def test_deny_and_not_resource_with_a_variable_without_value():
    doc = {"Version": V12, "Statement": [
        {"Effect": "Allow", "Action": "s3:*", "Resource": "*"},
        {"Effect": "Deny", "Action": "s3:*", "Resource": "arn:aws:s3:::home/${aws:username}/*"}]}
    st = parse_policy(doc)
    bob = f"arn:aws:iam::{A}:user/bob"
    # a user: the Deny covers their own home only, so "*" is cut there: possible
    assert grants(st, "s3:GetObject", bob) == [("*", None)]
    # a role: the Deny's resource has no value and matches nothing: the Allow stands
    assert grants(st, "s3:GetObject", f"arn:aws:iam::{A}:role/ci") == [("*", True)]
    nr = parse_policy({"Version": V12, "Statement": {
        "Effect": "Deny", "Action": "s3:*", "NotResource": "arn:aws:s3:::home/${aws:username}/*"}})[0]
    role_env = Bindings(*principal_context(f"arn:aws:iam::{A}:role/ci", A))
    bob_env = Bindings(*principal_context(bob, A))
    assert resource_hit(nr, "arn:aws:s3:::home/x/y", variables=role_env) is True   # nothing excluded
    assert resource_hit(nr, "arn:aws:s3:::home/bob/y", variables=bob_env) is False


# --------------------------------------------------------------------------- the real exports


@corpus
def test_corpus_cloudmapper_self_service_policy_grants_oneself_only():
    export = json.loads((CORPUS / "duo-labs__cloudmapper/account-data/demo/us-east-1/"
                                   "iam-get-account-authorization-details.json").read_text())
    pol = next(p for p in export["Policies"] if p["PolicyName"] == "BAD_MFA_POLICY")
    raw = next(v for v in pol["PolicyVersionList"] if v["IsDefaultVersion"])["Document"]
    doc = json.loads(urllib.parse.unquote(raw)) if isinstance(raw, str) else raw
    st = parse_policy(doc)
    acct = "123456789012"

    def g(action: str, principal: str) -> list:
        env = Bindings(*principal_context(principal, acct))
        return [(x.resource, x.confidence) for x in allowed(st, action, variables=env)]

    assert g("iam:CreateAccessKey", f"arn:aws:iam::{acct}:user/alice") == [(f"arn:aws:iam::{acct}:user/alice", True)]
    assert g("iam:CreateAccessKey", f"arn:aws:iam::{acct}:role/r") == []
    assert g("iam:CreateVirtualMFADevice", f"arn:aws:iam::{acct}:user/alice") == [
        (f"arn:aws:iam::{acct}:mfa/alice", True), (f"arn:aws:iam::{acct}:user/alice", True)]


def test_trust_review_reads_a_variable_as_any_value_of_the_request():
    """``repo:${...:repository}:*`` names no repository: every repository's token matches itself."""
    from graphkit.iam import oidc_trust_issues

    def issues(condition: dict, version: str = V12) -> list:
        cond = {**condition, "StringEquals": {**condition.get("StringEquals", {}), f"{GH}:aud": "sts.amazonaws.com"}}
        return [(i.code, i.broad, i.value) for i in oidc_trust_issues(trust(cond, version=version))]

    own = "repo:${token.actions.githubusercontent.com:repository}:ref:refs/heads/main"
    assert issues({"StringEquals": {SUB: own}}) == [("wildcard-owner", True, own)]
    assert accepts(trust({"StringEquals": {SUB: own}}), job("evil/fork")) is True   # the review is right
    assert issues({"StringEquals": {SUB: own}}, version=V08) == []                    # text: one odd repository
    assert issues({"StringLike": {SUB: "repo:acme/app:ref:refs/heads/${*}"}}) == []   # a literal '*' branch


def test_build_links_jobs_through_a_trust_whose_sub_is_built_from_claims():
    """End to end (workflows + IAM export -> resolve): the trust index must not drop a trust whose ``sub`` holds a
    variable, and the edge follows the token's own claims."""
    from graphkit.graph import Graph
    from graphkit.model import EdgeKind, ids
    from graphkit.resolve import resolve
    from ingest import aws_iam
    from ingest.github_actions import parse_workflow
    from ingest.github_actions import to_graph as gha_graph

    arn = f"arn:aws:iam::{A}:role/ci"
    sub = "repo:${token.actions.githubusercontent.com:repository_owner_id, 'none'}/*"  # absent claim -> default

    def reached(sub_value: str, op: str = "StringLike", version: str = V12) -> dict:
        doc = {"Version": version, "Statement": [{
            "Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity", "Principal": {"Federated": PROVIDER},
            "Condition": {"StringEquals": {f"{GH}:aud": "sts.amazonaws.com"}}}]}
        doc["Statement"][0]["Condition"].setdefault(op, {})[SUB] = sub_value
        export = {"RoleDetailList": [{"RoleName": "ci", "Arn": arn, "AssumeRolePolicyDocument": doc}]}
        wf = "on: [push]\npermissions: {id-token: write}\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps: [{run: x}]\n"
        res = gha_graph([parse_workflow(wf, file=".github/workflows/w.yml", repository=r) for r in ("acme/app", "evil/x")])
        iam = aws_iam.to_graph([aws_iam.parse(json.dumps(export), "e.json")])
        g = Graph()
        g.update([*res.nodes, *iam.nodes], [*res.edges, *iam.edges])
        g.meta.aws_iam = iam.meta[aws_iam.META_KEY]
        resolve(g)
        role = ids.cloud_role("aws", arn)
        return {g.node(e.source).repository: e.confidence.value for e in g.edges(EdgeKind.ASSUMES_ROLE)
                if e.target == role}

    # every repository matches its own repository claim: both jobs, for certain
    assert reached("repo:${token.actions.githubusercontent.com:repository}:*") == {"acme/app": "certain",
                                                                                   "evil/x": "certain"}
    # the workflow claim of an unnamed workflow is its path: "repo:acme/.github/workflows/w.yml" is no subject
    assert reached("repo:acme/${token.actions.githubusercontent.com:workflow}") == {}
    assert reached("repo:acme/*") == {"acme/app": "certain"}
    # repository_owner_id is unknown here (no inventory ids): any value, or none and then the default -> possible
    # for both, never certain and never dropped
    assert reached(sub) == {"acme/app": "possible", "evil/x": "possible"}
    # the 2008 language: the variable is text, no job's sub is "repo:${...}:*"
    assert reached("repo:${token.actions.githubusercontent.com:repository}:*", version=V08) == {}
    # StringEquals: the trailing '*' is literal, so only a sub ending in '*' would match -- none does
    assert reached("repo:${token.actions.githubusercontent.com:repository}:*", "StringEquals") == {}
