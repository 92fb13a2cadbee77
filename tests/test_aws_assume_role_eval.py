"""sts:AssumeRole between IAM principals against what AWS documents: an explicit Deny in the caller's own policies
wins over a trust that names it, and a role's session assuming a role (role chaining) lasts at most 1 hour."""

from datetime import datetime, timezone

from graphkit.analysis import blast_radius
from graphkit.analysis.timeline import Issued, classify
from graphkit.iam import denied_on, parse_policy
from graphkit.model import EdgeKind, Lifetime, ids

from test_aws_iam import A, R, graph_of, role, root_trust

B = "444455556666"
CALLER = f"arn:aws:iam::{A}:role/caller"


def trust(principal: object) -> dict:
    return {"Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": principal}]}


def assumes(g, src: str) -> dict[str, tuple[str, str]]:
    return {e.target: (e.confidence.value, e.lifetime.value) for e in g.out_edges(src)
            if e.kind is EdgeKind.ASSUMES_ROLE}


def user(name: str, inline: list | None = None, groups: list[str] | None = None) -> dict:
    return {"UserName": name, "Arn": f"arn:aws:iam::{A}:user/{name}", "GroupList": groups or [],
            "UserPolicyList": [{"PolicyName": "p", "PolicyDocument": {"Statement": inline}}] if inline else [],
            "AttachedManagedPolicies": []}


def test_explicit_deny_in_the_callers_policy_wins_over_a_trust_naming_it():
    """AWS "Policy evaluation logic" (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html):
    a trust naming the caller's ARN (same account) grants without an identity Allow, but "an explicit deny in any
    of these policies overrides the allow".  graphkit skipped the caller's policies when the trust named it, so a
    role denied ``sts:AssumeRole`` by its own policy kept a certain edge."""
    deny_all = [{"Effect": "Deny", "Action": "sts:*", "Resource": "*"}]
    deny_other = [{"Effect": "Deny", "Action": "sts:AssumeRole", "Resource": f"arn:aws:iam::{A}:role/other"}]
    deny_if = [{"Effect": "Deny", "Action": "sts:AssumeRole", "Resource": "*",
                "Condition": {"Bool": {"aws:MultiFactorAuthPresent": "false"}}}]
    for inline, want in ((None, ("certain", "chained_session")), (deny_all, None),
                         (deny_other, ("certain", "chained_session")), (deny_if, ("possible", "chained_session"))):
        g = graph_of({"RoleDetailList": [role("caller", root_trust(), inline), role("target", trust({"AWS": CALLER}))]})
        assert assumes(g, R("caller")) == ({R("target"): want} if want else {}), inline
    # a user named by the trust, denied through the inline policy of its group
    group = {"GroupName": "locked", "Arn": f"arn:aws:iam::{A}:group/locked", "AttachedManagedPolicies": [],
             "GroupPolicyList": [{"PolicyName": "g", "PolicyDocument": {"Statement": deny_all}}]}
    u = ids.cloud_user(f"arn:aws:iam::{A}:user/u")
    named = trust({"AWS": f"arn:aws:iam::{A}:user/u"})
    g = graph_of({"RoleDetailList": [role("target", named)], "UserDetailList": [user("u", groups=["locked"])],
                  "GroupDetailList": [group]})
    assert assumes(g, u) == {}
    g = graph_of({"RoleDetailList": [role("target", named)], "UserDetailList": [user("u")]})
    assert assumes(g, u) == {R("target"): ("certain", "cloud_session")}
    # a trust naming one of the caller's sessions: the session name is chosen (possible), the Deny still cuts
    session = trust({"AWS": f"arn:aws:sts::{A}:assumed-role/caller/ci"})
    g = graph_of({"RoleDetailList": [role("caller", root_trust()), role("target", session)]})
    assert assumes(g, R("caller")) == {R("target"): ("possible", "chained_session")}
    g = graph_of({"RoleDetailList": [role("caller", root_trust(), deny_all), role("target", session)]})
    assert assumes(g, R("caller")) == {}


def test_denied_on():
    st = parse_policy({"Statement": [{"Effect": "Deny", "NotAction": "s3:*", "Resource": f"arn:aws:iam::{A}:role/*"},
                                     {"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "*"}]})
    assert denied_on(st, "sts:AssumeRole", f"arn:aws:iam::{A}:role/x") is True
    assert denied_on(st, "s3:GetObject", f"arn:aws:iam::{A}:role/x") is False
    assert denied_on(st, "sts:AssumeRole", f"arn:aws:iam::{B}:role/x") is False
    assert denied_on(st, "sts:AssumeRole", "*") is None  # some instances only


def test_role_chaining_lasts_at_most_one_hour():
    """AWS "Roles terms and concepts", role chaining
    (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_terms-and-concepts.html#iam-term-role-chaining):
    a role assumed with another role's session credentials gets a session of at most 1 hour, whatever the role's
    MaxSessionDuration.  graphkit gave role -> role edges the 12-hour web-identity session lifetime."""
    allow = [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "*"}]
    target = role("target", root_trust(), [{"Effect": "Allow", "Action": "kms:Sign", "Resource": "*"}])
    target["MaxSessionDuration"] = 43200
    g = graph_of({"RoleDetailList": [role("a", root_trust(), allow), target], "UserDetailList": [user("u", allow)]})
    assert assumes(g, R("a")) == {R("target"): ("certain", "chained_session")}
    u = ids.cloud_user(f"arn:aws:iam::{A}:user/u")
    assert assumes(g, u) == {R("a"): ("certain", "cloud_session"), R("target"): ("certain", "cloud_session")}
    # the blast radius of the user: target directly (cloud_session) beats a -> target (chained)
    br = blast_radius(g, u)
    assert br[R("target")].lifetime is Lifetime.CLOUD_SESSION
    br = blast_radius(g, R("a"))
    assert br[R("target")].lifetime is Lifetime.CHAINED_SESSION
    # a role of an account no export covers (inferred) chains too; that account's root does not
    g = graph_of({"RoleDetailList": [role("x", trust({"AWS": [f"arn:aws:iam::{B}:role/ci", f"arn:aws:iam::{B}:root"]}))]})
    got = {e.source: (e.confidence.value, e.lifetime.value) for e in g.edges(EdgeKind.ASSUMES_ROLE)}
    assert got == {ids.cloud_role("aws", f"arn:aws:iam::{B}:role/ci"): ("possible", "chained_session"),
                   ids.cloud_account(B): ("certain", "cloud_session")}


def test_a_chained_sts_session_expires_after_one_hour():
    """The tokens file: an ``sts_session`` record marked ``chained`` (CloudTrail ``AssumeRole`` by an
    ``AssumedRole`` identity) lasts at most 1 hour even when the role allows 12 and 2 were requested."""
    target = role("target", root_trust())
    target["MaxSessionDuration"] = 43200
    g = graph_of({"RoleDetailList": [target]})
    at = datetime(2026, 12, 1, 10, 0, tzinfo=timezone.utc)
    now = datetime(2026, 12, 1, 11, 30, tzinfo=timezone.utc)
    chained = Issued(kind="sts_session", subject=R("target"), issued_at=at, duration_seconds=7200, chained=True)
    plain = Issued(kind="sts_session", subject=R("target"), issued_at=at, duration_seconds=7200)
    c, p = classify(chained, now=now, graph=g), classify(plain, now=now, graph=g)
    assert (c.status, c.expires_at) == ("expired", datetime(2026, 12, 1, 11, 0, tzinfo=timezone.utc))
    assert c.reason == "expired 2026-12-01T11:00:00Z (the requested duration, at most 1 hour: role chaining): no action needed"
    assert (p.status, p.expires_at) == ("live", datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc))
    short = Issued(kind="sts_session", subject=R("target"), issued_at=at, duration_seconds=900, chained=True)
    assert classify(short, now=now, graph=g).expires_at == datetime(2026, 12, 1, 10, 15, tzinfo=timezone.utc)


def test_principal_type_and_service_keys_of_an_iam_principal():
    """AWS "Global condition context keys"
    (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html): ``aws:PrincipalType``
    (``User``; ``AssumedRole`` for a role's session) and ``aws:PrincipalIsAWSService`` (false for an IAM principal)
    are in every signed request, ``aws:PrincipalServiceName`` only in a service principal's.  graphkit read them as
    unknown keys: every such trust was only possible."""
    allow = [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "*"}]
    u = ids.cloud_user(f"arn:aws:iam::{A}:user/u")

    def edges(condition: dict) -> tuple[dict, dict]:
        t = {"Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "Condition": condition,
                            "Principal": {"AWS": f"arn:aws:iam::{A}:root"}}]}
        g = graph_of({"RoleDetailList": [role("caller", root_trust(), allow), role("target", t)],
                      "UserDetailList": [user("u", allow)]})
        return ({k: v for k, v in assumes(g, R("caller")).items()},
                {k: v for k, v in assumes(g, u).items() if k == R("target")})

    role_only = {"StringEquals": {"aws:PrincipalType": "AssumedRole"}}
    assert edges(role_only) == ({R("target"): ("certain", "chained_session")}, {})
    users_only = {"StringEquals": {"aws:PrincipalType": "User"}}
    assert edges(users_only) == ({}, {R("target"): ("certain", "cloud_session")})
    assert edges({"Bool": {"aws:PrincipalIsAWSService": "true"}}) == ({}, {})
    assert edges({"Bool": {"aws:PrincipalIsAWSService": "false"}, "Null": {"aws:PrincipalServiceName": "true"}}) == (
        {R("target"): ("certain", "chained_session")}, {R("target"): ("certain", "cloud_session")})


def test_a_user_named_in_a_trust_still_needs_its_permissions_boundary_to_allow_assume_role():
    """AWS IAM User Guide "Update a role trust policy"
    (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_update-role-trust-policy.html): "If a user is listed
    as the principal in a role's trust policy but cannot assume the role, check the user's permissions boundary. If
    a permissions boundary is set for the user, then it must allow the sts:AssumeRole action."  graphkit checked the
    boundary of a role named in a trust, not of a user: the user kept a certain edge."""
    bound = f"arn:aws:iam::{A}:policy/bound"

    def graph(boundary_allows: list[str]) -> dict:
        u = user("u", [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}])
        u["PermissionsBoundary"] = {"PermissionsBoundaryType": "Policy", "PermissionsBoundaryArn": bound}
        policy = {"PolicyName": "bound", "Arn": bound, "DefaultVersionId": "v1", "PolicyVersionList": [
            {"VersionId": "v1", "IsDefaultVersion": True,
             "Document": {"Statement": [{"Effect": "Allow", "Action": boundary_allows, "Resource": "*"}]}}]}
        g = graph_of({"RoleDetailList": [role("target", trust({"AWS": f"arn:aws:iam::{A}:user/u"}))],
                      "UserDetailList": [u], "Policies": [policy]})
        return assumes(g, ids.cloud_user(f"arn:aws:iam::{A}:user/u"))

    assert graph(["s3:*"]) == {}
    assert graph(["s3:*", "sts:AssumeRole"]) == {R("target"): ("certain", "cloud_session")}


def test_identity_policy_conditions_on_the_callers_own_keys_are_decided():
    """A condition of the caller's own policy on keys every signed request carries (``aws:PrincipalArn``,
    ``aws:PrincipalAccount``, ``aws:PrincipalType``: AWS "Global condition context keys",
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html) is decided, as in a
    trust; other keys (tags, MFA, source IP) leave it possible.  graphkit made every conditional identity statement
    possible, and a conditional Deny possibly cutting."""
    def edge(inline: list) -> dict:
        g = graph_of({"RoleDetailList": [role("caller", root_trust(), inline), role("target", root_trust())]})
        return assumes(g, R("caller"))

    allow = {"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "*"}
    assert edge([{**allow, "Condition": {"StringEquals": {"aws:PrincipalAccount": A}}}]) == {
        R("target"): ("certain", "chained_session")}
    assert edge([{**allow, "Condition": {"StringEquals": {"aws:PrincipalAccount": B}}}]) == {}
    assert edge([{**allow, "Condition": {"StringEquals": {"aws:PrincipalTag/team": "ci"}}}]) == {
        R("target"): ("possible", "chained_session")}
    deny = {"Effect": "Deny", "Action": "sts:AssumeRole", "Resource": "*"}
    assert edge([allow, {**deny, "Condition": {"ArnNotEquals": {"aws:PrincipalArn": CALLER}}}]) == {
        R("target"): ("certain", "chained_session")}
    assert edge([allow, {**deny, "Condition": {"ArnEquals": {"aws:PrincipalArn": CALLER}}}]) == {}
    assert edge([allow, {**deny, "Condition": {"StringLike": {"aws:userid": "AROA*"}}}]) == {
        R("target"): ("possible", "chained_session")}


def test_configure_aws_credentials_role_chaining_keeps_the_chained_role():
    """configure-aws-credentials ``role-chaining: true`` ("Use existing credentials from the environment to assume
    a new role", https://github.com/aws-actions/configure-aws-credentials#role-chaining) calls ``sts:AssumeRole``
    with the session an earlier step configured; the chained role's trust names that role, not the OIDC provider.
    graphkit read the step as OIDC: once the IAM export was read, the workload role's trust rejected the token and
    the job's only edge to it was removed (listed as denied)."""
    import json

    from graphkit.graph import Graph
    from graphkit.resolve import resolve
    from ingest import aws_iam
    from ingest.github_actions import parse_workflow, to_graph

    wf = """
on: {push: {branches: [main]}}
permissions: {id-token: write}
jobs:
  deploy:
    runs-on: ubuntu-latest
    steps:
      - uses: aws-actions/configure-aws-credentials@v4
        with: {role-to-assume: "arn:aws:iam::%(A)s:role/hub", aws-region: us-east-1}
      - uses: aws-actions/configure-aws-credentials@v4
        with: {role-to-assume: "arn:aws:iam::%(B)s:role/workload", aws-region: us-east-1, role-chaining: true}
""" % {"A": A, "B": B}
    host = "token.actions.githubusercontent.com"
    oidc = {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
        "Principal": {"Federated": f"arn:aws:iam::{A}:oidc-provider/{host}"},
        "Condition": {"StringEquals": {f"{host}:aud": "sts.amazonaws.com",
                                       f"{host}:sub": "repo:acme/app:ref:refs/heads/main"}}}]}
    hub = role("hub", oidc, [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": f"arn:aws:iam::{B}:role/*"}])
    workload = role("workload", trust({"AWS": f"arn:aws:iam::{A}:role/hub"}), acct=B)
    iam = aws_iam.to_graph([aws_iam.parse(json.dumps({"RoleDetailList": [hub]}), "a.json"),
                            aws_iam.parse(json.dumps({"RoleDetailList": [workload]}), "b.json")])
    res = to_graph([parse_workflow(wf, file=".github/workflows/d.yml", repository="acme/app")])
    g = Graph()
    g.update([*res.nodes, *iam.nodes], [*res.edges, *iam.edges])
    g.meta.aws_iam = iam.meta[aws_iam.META_KEY]
    resolve(g)
    job = ids.job("acme/app", ".github/workflows/d.yml", "deploy")
    hub_id, wl = R("hub"), ids.cloud_role("aws", f"arn:aws:iam::{B}:role/workload")
    got = {(e.source, e.target, e.confidence.value, e.lifetime.value) for e in g.edges(EdgeKind.ASSUMES_ROLE)}
    assert got == {(ids.oidc_identity(job), hub_id, "certain", "cloud_session"),
                   (job, wl, "possible", "chained_session"),  # the step: kept, never evaluated as OIDC
                   (hub_id, wl, "certain", "chained_session")}  # the IAM export: the hub's session chains in
    assert g.meta.cloud.denied == []
    br = blast_radius(g, job)
    assert (br[wl].confidence.value, br[wl].lifetime) == ("certain", Lifetime.CHAINED_SESSION)


def test_principal_org_id_is_known_for_the_accounts_of_an_organizations_export():
    """``aws:PrincipalOrgID`` is "included in the request context only if the principal is a member of an
    organization" (AWS "Global condition context keys",
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html#condition-keys-principalorgid):
    with an Organizations export (``describe-organization``'s ``Id``) the accounts it places in the organization
    have it, so the common trust ``"AWS": "*"`` + ``StringEquals aws:PrincipalOrgID`` is decided for them; without
    one it stays possible."""
    allow = [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "*"}]
    t = {"Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": {"AWS": "*"},
                        "Condition": {"StringEquals": {"aws:PrincipalOrgID": "o-abc123"}}}]}
    exports = [{"RoleDetailList": [role("caller", root_trust(), allow), role("target", t)]}]

    def org(org_id: str) -> dict:
        return {"Organization": {"Id": org_id, "MasterAccountId": "999999999999"}, "Accounts": [{"Id": A}],
                "OrganizationPolicies": []}

    assert assumes(graph_of(*exports), R("caller")) == {R("target"): ("possible", "chained_session")}
    assert assumes(graph_of(*exports, org("o-abc123")), R("caller")) == {R("target"): ("certain", "chained_session")}
    assert assumes(graph_of(*exports, org("o-other99")), R("caller")) == {}
    # the management account belongs to its organization too
    mgmt = {"Organization": {"Id": "o-abc123", "MasterAccountId": A}, "Accounts": [], "OrganizationPolicies": []}
    assert assumes(graph_of(*exports, mgmt), R("caller")) == {R("target"): ("certain", "chained_session")}
