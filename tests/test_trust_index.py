"""The trust index (``graphkit.resolve.trust_index``) is a sound filter: every role it leaves out rejects the token
(the full evaluation, :func:`graphkit.iam.web_identity_trust`, says ``False``), on random trusts and tokens and on
the synthetic org; and it does leave roles out (a filter that keeps everything would pass the first test)."""

from __future__ import annotations

import random

import pytest

from graphkit.iam import parse_policy, web_identity_trust
from graphkit.oidc import JobFacts, Run, claim_variants
from graphkit.resolve.trust_index import TrustIndex, literal_prefix

HOST = "token.actions.githubusercontent.com"
OPS = ["StringEquals", "StringLike", "StringNotLike", "StringNotEquals", "StringEqualsIgnoreCase", "ArnLike",
       "ForAnyValue:StringLike", "ForAllValues:StringLike", "StringLikeIfExists", "Null", "Bool", "NumericEquals"]
KEYS = [f"{HOST}:sub", f"{HOST}:SUB", f"{HOST}:aud", f"{HOST}:repository", f"{HOST}:job_workflow_ref",
        f"{HOST}:repository_id", "aws:SourceIp", "token.actions.other.ghe.com:sub"]
PIECES = ["repo:", "Acme", "acme", "/", "app", "api", ":", "ref:refs/heads/", "main", "pull_request", "environment:",
          "prod", "*", "?", "sts.amazonaws.com", "true", ""]


def _value(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 6)))


def _statement(rng: random.Random) -> dict:
    st: dict = {"Effect": rng.choice(["Allow", "Allow", "Allow", "Deny"]),
                rng.choice(["Action", "Action", "NotAction"]): rng.choice(
                    ["sts:AssumeRoleWithWebIdentity", "sts:AssumeRole", "sts:*", "*", "sts:AssumeRoleWith?ebIdentity"]),
                "Principal": rng.choice([{"Federated": f"arn:aws:iam::1:oidc-provider/{HOST}"}, "*",
                                         {"Federated": "arn:aws:iam::2:oidc-provider/*"}])}
    cond: dict = {}
    for _ in range(rng.randint(0, 3)):
        op, key = rng.choice(OPS), rng.choice(KEYS)
        cond.setdefault(op, {})[key] = [_value(rng) for _ in range(rng.randint(1, 3))]
    if cond:
        st["Condition"] = cond
    return st


def _facts(rng: random.Random) -> JobFacts:
    repo = rng.choice(["acme/app", "Acme/api", "acme/*", "other/app"])
    runs = tuple(rng.choice([Run("pull_request", "refs/pull/*/merge"), Run("ref:refs/heads/main", "refs/heads/main"),
                             Run("ref:refs/heads/*", "refs/heads/*"), Run("environment:prod", "refs/heads/*", "prod"),
                             Run("*", "refs/*", None, caller_unknown=True)]) for _ in range(rng.randint(1, 3)))
    return JobFacts(repo, runs, workflow_path=".github/workflows/ci.yml", immutable=rng.choice([False, True, None]),
                    owner_id=rng.choice([None, "1"]), repository_id=rng.choice([None, "2"]),
                    called_ref=rng.choice([None, "acme/app/.github/workflows/r.yml@*"]))


def _rejects(statements, variants) -> bool:
    return all(web_identity_trust(statements, "1", ctx, known_keys=known).result is False
               for runs in variants for ctx, known, _ in runs)


@pytest.mark.parametrize("seed", range(6))
def test_left_out_roles_reject_the_token(seed):
    rng = random.Random(seed)
    trusts = {f"r{i}": parse_policy({"Statement": [_statement(rng) for _ in range(rng.randint(1, 3))]})
              for i in range(120)}
    index = TrustIndex(trusts)
    left_out = 0
    for _ in range(40):
        variants = claim_variants(_facts(rng))
        kept = index.candidates(c for runs in variants for c in runs)
        for rid, statements in trusts.items():
            if rid not in kept:
                left_out += 1
                assert _rejects(statements, variants), (rid, statements)
    assert left_out > 0


def test_a_narrow_trust_is_left_out_for_another_repository():
    trust = parse_policy({"Statement": {"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
                                        "Principal": {"Federated": f"arn:aws:iam::1:oidc-provider/{HOST}"},
                                        "Condition": {"StringLike": {f"{HOST}:sub": "repo:acme/app:*"},
                                                      "StringEquals": {f"{HOST}:aud": "sts.amazonaws.com"}}}})
    index = TrustIndex({"narrow": trust, "open": parse_policy({"Statement": {
        "Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity", "Principal": "*"}})})
    other = claim_variants(JobFacts("acme/api", (Run("pull_request", "refs/pull/*/merge"),)))
    same = claim_variants(JobFacts("acme/app", (Run("pull_request", "refs/pull/*/merge"),)))
    assert index.candidates(c for runs in other for c in runs) == {"open"}
    assert index.candidates(c for runs in same for c in runs) == {"open", "narrow"}
    assert literal_prefix("repo:ACME/a?p:*") == "repo:acme/a"


def test_the_synthetic_org_links_the_same_roles_as_the_cross_product(tmp_path):
    """Every OIDC identity x role pair of a small synthetic org: the index keeps every pair the full evaluation
    does not reject (what ``graphkit.cloud`` evaluated before the index)."""
    from graphkit import cloud, synth
    from graphkit.build import build_graph
    from graphkit.model import CloudRole, NodeKind, OIDCIdentity
    synth.write(synth.generate(12, seed=3), tmp_path)
    graph = build_graph({"github-actions": [tmp_path / "repos"], "runners": [tmp_path / "inventory.yaml"],
                         "aws-iam": [tmp_path / "aws-iam.json"]}).graph
    roles = [r for r in graph.nodes(NodeKind.CLOUD_ROLE) if isinstance(r, CloudRole) and r.trust == "known"]
    trusts = {r.id: st for r in roles if (st := cloud._statements(r))}
    index = TrustIndex(trusts)
    templates = graph.meta.inventory.oidc_sub_templates
    pairs = kept = 0
    for o in graph.nodes(NodeKind.OIDC_IDENTITY):
        assert isinstance(o, OIDCIdentity)
        facts = cloud._job_facts(graph, o, templates)
        variants = claim_variants(facts)
        candidates = index.candidates(c for runs in variants for c in runs)
        for rid, statements in trusts.items():
            pairs += 1
            result = cloud._evaluate(facts, graph.node(rid), statements, None, variants)[0]
            if result is not False:
                assert rid in candidates, (o.id, rid)
            kept += rid in candidates
    assert 0 < kept < pairs


def test_aws_principal_filter_leaves_out_only_rejecting_trusts():
    """``ingest.aws_iam.to_graph._TrustedPrincipals``: a role it leaves out for a caller is one whose trust
    rejects that caller (:func:`graphkit.iam.principal_trust` says False), on random trusts and callers."""
    from graphkit.iam import principal_trust
    from ingest.aws_iam.models import Principal
    from ingest.aws_iam.to_graph import _TrustedPrincipals

    rng = random.Random(7)
    arns = [f"arn:{part}:iam::{acct}:{kind}/{name}" for part in ("aws", "aws-cn") for acct in ("111122223333", "444455556666")
            for kind, name in (("role", "a"), ("role", "b"), ("user", "u"))]
    values = [*arns, "arn:aws:iam::111122223333:root", "arn:aws-cn:iam::444455556666:root", "111122223333", "*",
              "arn:aws:iam::111122223333:role/*", "arn:aws:iam::*:user/u", "arn:aws:iam::4444?5556666:role/a"]

    def trust():
        sts = []
        for _ in range(rng.randint(1, 3)):
            st = {"Effect": rng.choice(["Allow", "Allow", "Deny"]), "Action": rng.choice(["sts:AssumeRole", "sts:*"])}
            if rng.random() < 0.1:
                st["NotPrincipal"] = {"AWS": rng.choice(values)}
            elif rng.random() < 0.1:
                st["Principal"] = "*"
            else:
                st["Principal"] = {"AWS": rng.sample(values, rng.randint(1, 2))}
            sts.append(st)
        return parse_policy({"Statement": sts})

    roles = [Principal(kind="role", arn=f"arn:aws:iam::111122223333:role/r{i}", name=f"r{i}", account="111122223333",
                       file="iam.json", place=f"RoleDetailList[{i}]", trust=trust()) for i in range(80)]
    index = _TrustedPrincipals(roles)
    left_out = 0
    for arn in arns:
        caller = Principal(kind=arn.split(":")[5].split("/")[0], arn=arn, name="x", account=arn.split(":")[4],
                           file="iam.json", place="x")
        kept = set(index.candidates(caller))
        for i, role in enumerate(roles):
            if i not in kept:
                left_out += 1
                assert principal_trust(role.trust, caller.arn, caller.account, role.account)[0] is False
    assert left_out > 0
