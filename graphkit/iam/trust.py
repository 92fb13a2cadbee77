"""Trust policies: who may assume a role (``sts:AssumeRole``, ``sts:AssumeRoleWithWebIdentity``), and a review of
GitHub OIDC trusts for over-broad ``sub``/``aud`` conditions (input of the ``oidc-trust-*`` rules).

AWS IAM User Guide "Policy evaluation logic"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html): OR across Allow
statements, an explicit Deny wins; "Create a role for OpenID Connect federation"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_create_for-idp_oidc.html).  The claims a GitHub job
presents: GitHub "OpenID Connect reference"
(https://docs.github.com/en/actions/security-for-github-actions/security-hardening-your-deployments/about-security-hardening-with-openid-connect),
built by :mod:`graphkit.oidc` (the one place ``sub`` claims are written).

Policy variables in condition values (``"repo:${token.actions.githubusercontent.com:repository}:*"``) are
substituted from the same request context as the condition keys: the token's claims for
``AssumeRoleWithWebIdentity``, the caller's ``aws:PrincipalArn`` / ``aws:PrincipalAccount`` / ``aws:username``
for ``AssumeRole`` (:mod:`graphkit.iam.variables`, AWS "IAM policy elements: Variables and tags",
https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html).  ``Principal`` values are
never substituted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from graphkit.iam.conditions import GITHUB_ISSUER_HOST, ClaimValue, evaluate_conditions, split_operator
from graphkit.iam.evaluate import action_matches
from graphkit.iam.globs import glob_covers, glob_match
from graphkit.iam.policy import Statement
from graphkit.iam.tri import Tri, and3, not3, or3
from graphkit.iam.variables import literal, principal_context, template

__all__ = ["github_provider_arn", "TrustMatch", "web_identity_trust", "principal_trust", "statements_text",
           "TrustIssue", "oidc_trust_issues", "CALLER_PINS", "principal_names", "gitlab_trust_issues", "GITLAB_COM",
           "session_of"]


def principal_names(value: str, wanted: str) -> bool:
    """Whether one ``Principal`` value names ``wanted`` (an ARN, an account id): the same text, or ``*`` alone.

    ``*`` and ``?`` inside a principal are not wildcards: "You can't use a wildcard to match part of a principal
    name or ARN" (AWS IAM User Guide "AWS JSON policy elements: Principal",
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html; IAM refuses such a
    trust policy, "Invalid principal in policy"), so ``arn:aws:iam::*:root`` or ``.../role/deploy-*`` names no one.

    >>> principal_names("*", "arn:aws:iam::1:role/a"), principal_names("arn:aws:iam::*:role/a", "arn:aws:iam::1:role/a")
    (True, False)
    """
    return value == "*" or value == wanted


def github_provider_arn(account: str, partition: str = "aws") -> str:
    """ARN of the GitHub Actions OIDC provider in ``account``.

    >>> github_provider_arn("111122223333")
    'arn:aws:iam::111122223333:oidc-provider/token.actions.githubusercontent.com'
    """
    return f"arn:{partition}:iam::{account}:oidc-provider/{GITHUB_ISSUER_HOST}"


@dataclass(frozen=True)
class TrustMatch:
    """Outcome of a trust evaluation: ``result`` and the statements that decided it."""

    result: Tri
    allows: tuple[Statement, ...] = ()
    denies: tuple[Statement, ...] = ()


def _trust(statements: Sequence[Statement], action: str, principal_ok: Callable[[Statement], Tri],
           context: Mapping[str, Sequence[ClaimValue]],
           known_keys: Iterable[str] | Callable[[str], bool] | None) -> TrustMatch:
    """OR of the Allow statements for ``action`` whose principal and conditions hold, unless a Deny does.

    A statement with ``NotPrincipal`` takes no part, Allow or Deny: "You cannot use the NotPrincipal element in
    an IAM identity-based policy nor in an IAM role trust policy", and with Allow it "is not supported" (AWS IAM
    User Guide "AWS JSON policy elements: NotPrincipal",
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notprincipal.html; IAM refuses
    such a trust, so one read from a template or an export never lets anyone in).
    """
    allow: list[Tri] = []
    deny: list[Tri] = []
    allow_st: list[Statement] = []
    deny_st: list[Statement] = []
    for st in statements:
        acts = action_matches(st.actions, action) if st.actions else (
            not action_matches(st.not_actions, action) if st.not_actions else False)
        if not acts:
            continue
        p = principal_ok(st)
        if p is False:
            continue
        r = and3([p, evaluate_conditions(st.conditions, context, known_keys=known_keys, variables=st.variables)])
        if st.effect == "Deny":
            deny.append(r)
            if r is not False:
                deny_st.append(st)
        else:
            allow.append(r)
            if r is not False:
                allow_st.append(st)
    result = and3([or3(allow), not3(or3(deny))])
    return TrustMatch(result, tuple(allow_st), tuple(deny_st))


def web_identity_trust(statements: Sequence[Statement], account: str, claims: Mapping[str, Sequence[ClaimValue]],
                       *, known_keys: Iterable[str] | Callable[[str], bool] | None = None,
                       provider_host: str = GITHUB_ISSUER_HOST,
                       partition: str = "aws") -> TrustMatch:
    """Whether a trust policy lets a GitHub job (its ``claims``) call ``sts:AssumeRoleWithWebIdentity``.

    Parameters
    ----------
    statements : sequence of Statement
        The role's trust policy.
    account : str
        The role's account: the federated principal must be that account's
        ``oidc-provider/token.actions.githubusercontent.com`` (or ``*``).
    claims : mapping
        Condition keys (``token.actions.githubusercontent.com:sub``, ``:aud``...)
        -> request values, as built by :func:`graphkit.oidc.claim_variants`.
    known_keys : iterable of str, or callable, optional
        Keys known absent when missing from ``claims`` (or a predicate); other
        missing keys are unknown (``None``).
    provider_host, partition : str
        The issuer host (``token.actions.SUBDOMAIN.ghe.com`` for GitHub
        Enterprise Cloud with data residency) and the role's ARN partition
        (``aws``, ``aws-us-gov``, ``aws-cn``; AWS "IAM identifiers",
        https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-arns).

    Returns
    -------
    TrustMatch
        ``result``: OR across Allow statements, explicit Deny wins (AWS
        "Policy evaluation logic"); the statements that matched.

    Examples
    --------
    >>> from graphkit.iam import parse_policy
    >>> trust = parse_policy({"Statement": [{"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
    ...     "Principal": {"Federated": github_provider_arn("1")},
    ...     "Condition": {"StringLike": {"token.actions.githubusercontent.com:sub": "repo:acme/*"}}}]})
    >>> sub = "token.actions.githubusercontent.com:sub"
    >>> web_identity_trust(trust, "1", {sub: [ClaimValue("repo:acme/app:ref:refs/heads/*", pattern=True)]}).result
    True
    >>> web_identity_trust(trust, "2", {sub: [ClaimValue("repo:acme/app:pull_request")]}).result
    False
    """
    provider = f"arn:{partition}:iam::{account}:oidc-provider/{provider_host}"

    def principal_ok(st: Statement) -> Tri:
        if st.not_principals:
            return False  # not supported in a role trust policy (:func:`_trust`)
        fed = list(st.principals.get("Federated", ())) + list(st.principals.get("*", ()))
        return any(principal_names(f, provider) for f in fed)

    return _trust(statements, "sts:AssumeRoleWithWebIdentity", principal_ok, claims, known_keys)


def principal_trust(statements: Sequence[Statement], caller_arn: str, caller_account: str,
                    role_account: str, *, caller_org: str | None = None) -> tuple[Tri, bool, TrustMatch]:
    """Whether a trust policy lets an IAM principal call ``sts:AssumeRole``.

    Returns
    -------
    (result, needs_identity_allow, match)
        ``needs_identity_allow`` is True when the trust delegates to the
        caller's account (``arn:aws:iam::ACCOUNT:root``, a bare account id or
        ``*``) or the caller is in another account: then the caller's identity
        policy must also allow ``sts:AssumeRole`` on the role (AWS "Policy
        evaluation logic", cross-account and resource-based policies).
        Conditions are evaluated against the caller's request context as graphkit
        knows it (:func:`graphkit.iam.variables.principal_context`:
        ``aws:PrincipalArn``, ``aws:PrincipalAccount``, ``aws:username``, also for
        policy variables; ``aws:PrincipalOrgID`` when ``caller_org``, the caller account's organization, is
        known); on other keys (MFA, source IP, external id) they give ``None``.

    Examples
    --------
    >>> from graphkit.iam import parse_policy
    >>> t = parse_policy({"Statement": {"Effect": "Allow", "Action": "sts:AssumeRole",
    ...                                 "Principal": {"AWS": "arn:aws:iam::1:root"}}})
    >>> principal_trust(t, "arn:aws:iam::1:role/a", "1", "1")[:2]
    (True, True)
    """
    delegated = [False]
    partition = caller_arn.split(":", 2)[1] if caller_arn.startswith("arn:") else "aws"

    def principal_ok(st: Statement) -> Tri:
        if st.not_principals:
            return False  # not supported in a role trust policy (:func:`_trust`)
        res: Tri = False
        for p in list(st.principals.get("AWS", ())) + list(st.principals.get("*", ())):
            if p == caller_arn:
                res = True
            elif p in (f"arn:{partition}:iam::{caller_account}:root", caller_account, "*"):
                res = True
                delegated[0] = True
            elif res is False and (session := session_of(p)) is not None and session == _role_key(caller_arn):
                res = None  # one session name of the caller role: whoever assumes it names the session
        return res

    context, known = principal_context(caller_arn, caller_account, caller_org)
    match = _trust(statements, "sts:AssumeRole", principal_ok, context, known)
    needs = delegated[0] or caller_account != role_account
    return match.result, needs, match


def session_of(principal: str) -> tuple[str, str, str] | None:
    """``(partition, account, role name)`` of an assumed-role session principal
    ``arn:PARTITION:sts::ACCOUNT:assumed-role/ROLE-NAME/SESSION-NAME`` (AWS "AWS JSON policy elements: Principal",
    role session principals,
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html#principal-sessions:
    the role's name without its path); None for another principal.

    It names the sessions of that role with that session name: a caller acting as the role matches when its
    session has that name, which whoever calls ``sts:AssumeRole`` chooses (``RoleSessionName``) -- ``possible``.

    >>> session_of("arn:aws:sts::111122223333:assumed-role/deploy/ci"), session_of("arn:aws:iam::1:role/deploy")
    (('aws', '111122223333', 'deploy'), None)
    """
    parts = principal.split(":", 5)
    if len(parts) < 6 or parts[0] != "arn" or parts[2] != "sts" or not parts[5].startswith("assumed-role/"):
        return None
    name, sep, session = parts[5].removeprefix("assumed-role/").partition("/")
    return (parts[1], parts[4], name) if name and sep and session else None


def _role_key(arn: str) -> tuple[str, str, str] | None:
    """``(partition, account, role name)`` of an IAM role ARN (its path left out), else None."""
    parts = arn.split(":", 5)
    if len(parts) < 6 or parts[2] != "iam" or not parts[5].startswith("role/"):
        return None
    return parts[1], parts[4], parts[5].rsplit("/", 1)[-1]


def statements_text(statements: Iterable[Statement]) -> Iterator[str]:
    """Short ``Sid``/place labels of statements (for evidence details)."""
    for st in statements:
        yield st.sid or st.place


# --------------------------------------------------------------------------- trust review


@dataclass(frozen=True)
class TrustIssue:
    """A weakness of a GitHub OIDC trust statement (input of the ``oidc-trust-*`` rules).

    ``code``: ``no-sub`` (no condition pins the calling repository: any repository on github.com),
    ``workflow-ref-only`` (only the called workflow is pinned, ``job_workflow_ref``: any repository that can call
    it), ``wildcard-owner`` (a wildcard anywhere in the owner part of the trusted ``sub``), ``org-wide``
    (``repo:ORG/*``), ``any-context`` (``repo:ORG/REPO:*``: any branch, pull request or environment),
    ``any-branch`` (``...:ref:refs/heads/*``), ``any-environment`` (``...:environment:*``: a job naming an
    environment that does not exist creates it, without protection rules -- GitHub "Managing environments for
    deployment",
    https://docs.github.com/en/actions/managing-workflow-runs-and-deployments/managing-deployments/managing-environments-for-deployment),
    ``set-operator`` (``ForAllValues:`` / ``ForAnyValue:`` on the
    single-valued ``sub``/``aud``), ``no-aud``, ``wrong-aud``.  ``broad``: the trust accepts claims of more
    than one branch, PR or environment (a door any push opens).  ``value``: the condition value concerned
    (identity field of the finding).  ``platform``: ``github``, or ``gitlab`` for a GitLab ID token trust
    (:func:`gitlab_trust_issues`).
    """

    code: str
    statement: Statement
    value: str = ""
    operator: str = ""
    broad: bool = False
    platform: str = "github"


#: Claims that pin the calling repository (its name, id, owner id or enterprise), besides ``sub``: with one of
#: them a trust without ``sub`` is not open to every repository (AWS STS evaluates them since 2026-01,
#: :data:`graphkit.oidc.STS_CLAIMS`).
CALLER_PINS = ("repository", "repository_id", "repository_owner_id", "enterprise_id")


def _github_hosts(st: Statement) -> list[str]:
    """Issuer hosts of the GitHub OIDC providers an Allow statement for ``AssumeRoleWithWebIdentity`` trusts
    (``Federated: "*"`` counts as github.com); empty when it is not such a statement."""
    if st.effect != "Allow":
        return []
    acts = action_matches(st.actions, "sts:AssumeRoleWithWebIdentity") if st.actions else bool(st.not_actions)
    if not acts:
        return []
    from graphkit.oidc import is_github_issuer  # oidc imports this package's ClaimValue: import at call time

    fed = list(st.principals.get("Federated", ())) + list(st.principals.get("*", ()))
    hosts = [GITHUB_ISSUER_HOST if f == "*" else f.split("oidc-provider/", 1)[1] for f in fed
             if f == "*" or ("oidc-provider/" in f and is_github_issuer(f.split("oidc-provider/", 1)[1]))]
    return list(dict.fromkeys(hosts))


def oidc_trust_issues(statements: Sequence[Statement], *, audience: str = "sts.amazonaws.com",
                      gitlab_hosts: Iterable[str] = ("gitlab.com",)) -> list[TrustIssue]:
    """Review the GitHub OIDC statements of a trust policy (GitHub "OpenID Connect reference", AWS "Condition
    operators"); GitHub Enterprise Cloud issuers (``token.actions.SUBDOMAIN.ghe.com``) included; and its GitLab ID
    token statements for the instances ``gitlab_hosts`` (:func:`gitlab_trust_issues`).

    Returns
    -------
    list of TrustIssue
        In statement order; empty when the trust has no GitHub or GitLab OIDC statement.

    Examples
    --------
    >>> from graphkit.iam import parse_policy
    >>> t = parse_policy({"Statement": {"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
    ...     "Principal": {"Federated": "arn:aws:iam::1:oidc-provider/token.actions.githubusercontent.com"},
    ...     "Condition": {"StringLike": {"token.actions.githubusercontent.com:sub": "repo:acme/*"}}}})
    >>> [(i.code, i.broad) for i in oidc_trust_issues(t)]
    [('org-wide', True), ('no-aud', False)]
    """
    out: list[TrustIssue] = []
    for st in statements:
        for host in _github_hosts(st):
            out += _statement_issues(st, host.lower(), audience)
        out += gitlab_trust_issues([st], gitlab_hosts)
    return out


#: Issuer host of GitLab.com ID tokens (GitLab "OpenID Connect (OIDC) authentication using ID tokens",
#: https://docs.gitlab.com/ci/secrets/id_token_authentication/); a self-managed instance issues from its own URL.
GITLAB_COM = "gitlab.com"


def gitlab_trust_issues(statements: Sequence[Statement], hosts: Iterable[str] = (GITLAB_COM,)) -> list[TrustIssue]:
    """Review the GitLab ID token statements of a trust policy (Allow ``sts:AssumeRoleWithWebIdentity`` for
    ``Federated`` ``oidc-provider/HOST``, ``HOST`` among ``hosts``): the ``sub`` is
    ``project_path:GROUP/PROJECT:ref_type:branch|tag:ref:NAME`` (GitLab "Token payload",
    https://docs.gitlab.com/ci/secrets/id_token_authentication/#token-payload), the condition GitLab's AWS guide
    pins ("Configure OpenID Connect in AWS", https://docs.gitlab.com/ci/cloud_services/aws/); AWS STS evaluates
    only ``sub`` and ``aud`` of a GitLab token (``graphkit/data/gitlab_oidc_claims.json``), and every project of
    the instance gets tokens of its issuer, so without ``sub`` any of them is let in.  Codes as :class:`TrustIssue`,
    ``platform`` ``gitlab``: ``no-sub`` (any project of the instance), ``wildcard-owner`` (a wildcard in the
    top-level group), ``org-wide`` (``project_path:GROUP/*``), ``any-context`` (``project_path:G/P:*``),
    ``any-branch`` (``...:ref_type:branch:ref:*``), ``set-operator``.  A statement no token satisfies (a positive
    condition on another claim, absent for STS) raises none.

    >>> from graphkit.iam import parse_policy
    >>> t = parse_policy({"Statement": {"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
    ...     "Principal": {"Federated": "arn:aws:iam::1:oidc-provider/gitlab.com"},
    ...     "Condition": {"StringLike": {"gitlab.com:sub": "project_path:acme/*"}}}})
    >>> [(i.code, i.platform) for i in gitlab_trust_issues(t)]
    [('org-wide', 'gitlab')]
    """
    wanted = {h.lower() for h in hosts}
    out: list[TrustIssue] = []
    for st in statements:
        if st.effect != "Allow" or not (action_matches(st.actions, "sts:AssumeRoleWithWebIdentity") if st.actions
                                        else bool(st.not_actions)):
            continue
        fed = list(st.principals.get("Federated", ()))
        for host in dict.fromkeys(f.split("oidc-provider/", 1)[1].lower() for f in fed if "oidc-provider/" in f):
            if host in wanted:
                out += _gitlab_statement_issues(st, host)
    return out


def _gitlab_statement_issues(st: Statement, host: str) -> list[TrustIssue]:
    prefix = f"{host}:"
    ctx = {f"{prefix}sub": [ClaimValue("*", pattern=True)], f"{prefix}aud": [ClaimValue("*", pattern=True, chosen=True)]}
    if evaluate_conditions(st.conditions, ctx, known_keys=lambda k: k.startswith(prefix),
                           variables=st.variables) is False:
        return []
    issues, found = _claim_conditions(st, host)
    out = [replace(i, platform="gitlab") for i in issues]
    subs = found.get("sub", [])
    if not subs:
        out.append(TrustIssue("no-sub", st, broad=True, platform="gitlab"))
    for op, value, orig in subs:
        code = _gitlab_breadth(value, "Like" in op)
        if code is not None:
            out.append(TrustIssue(code, st, orig, op, broad=True, platform="gitlab"))
    return out


def _gitlab_breadth(value: str, like: bool) -> str | None:
    """The issue code of a trusted GitLab ``sub`` (``*``/``?`` are wildcards under ``Like`` operators only).

    >>> [_gitlab_breadth(v, True) for v in ("*", "project_path:*", "project_path:acme*/app:*", "project_path:acme/*",
    ...   "project_path:acme/app:*", "project_path:acme/app:ref_type:branch:ref:*", "project_path:acme/app:ref_type:branch:ref:main")]
    ['wildcard-owner', 'wildcard-owner', 'wildcard-owner', 'org-wide', 'any-context', 'any-branch', None]
    """
    if not like:
        return None
    if not value.startswith("project_path:"):
        return "wildcard-owner" if value[:1] in "*?" else None
    path, _, rest = value.removeprefix("project_path:").partition(":")
    group, _, project = path.partition("/")
    if not group or any(c in group for c in "*?"):
        return "wildcard-owner"
    if not project or any(c in project for c in "*?") or (not rest and path.endswith("*")):
        return "org-wide"
    if not rest or rest.startswith(("*", "?")) or rest in ("ref_type:*", "ref_type:*:ref:*"):
        return "any-context"
    if glob_covers(value, f"project_path:{path}:ref_type:branch:ref:*"):
        return "any-branch"
    return None


def _never_holds(st: Statement, host: str, audience: str) -> bool:
    """Whether no GitHub token of ``host`` can satisfy the statement's conditions: evaluated for a token whose
    every claim AWS STS reads is any value (with and without ``environment``), every other ``{host}:`` key absent
    (:data:`graphkit.oidc.STS_CLAIMS`) -- a condition such as ``StringEquals {host}:repository_owner``, a claim STS
    does not evaluate, is false for every token (configure-aws-credentials issue 306), so the statement lets no one
    in and is no over-broad trust.  Keys outside ``{host}:`` are unknown: such a statement is reviewed."""
    from graphkit.oidc import STS_CLAIMS, is_ghes_issuer  # oidc imports this package's ClaimValue: at call time

    prefix = f"{host}:"
    claims = ("sub",) if is_ghes_issuer(host) else STS_CLAIMS
    base = {f"{prefix}{c}": [ClaimValue("*", pattern=True)] for c in claims if c != "aud"}
    base[f"{prefix}aud"] = [ClaimValue(audience, chosen=True)]
    known = lambda key: key.startswith(prefix)  # noqa: E731
    no_env = {k: v for k, v in base.items() if k != f"{prefix}environment"}
    return all(evaluate_conditions(st.conditions, ctx, known_keys=known, variables=st.variables) is False
               for ctx in (base, no_env))


def _statement_issues(st: Statement, host: str, audience: str) -> list[TrustIssue]:
    """Issues of one GitHub OIDC statement: set operators, then ``sub`` (or what pins the caller), then ``aud``;
    none for a statement no GitHub token satisfies (:func:`_never_holds`)."""
    if _never_holds(st, host, audience):
        return []
    out, found = _claim_conditions(st, host)
    subs, auds = found.get("sub", []), found.get("aud", [])
    from graphkit.oidc import is_ghes_issuer

    pins = () if is_ghes_issuer(host) else CALLER_PINS  # STS reads only sub and aud of a GHES token
    if not subs and not any(found.get(c) for c in pins):
        jwr = [orig for _, v, orig in found.get("job_workflow_ref", []) if v.strip("*")]
        out.append(TrustIssue("workflow-ref-only", st, ",".join(jwr), broad=True) if jwr
                   else TrustIssue("no-sub", st, broad=True))
    for op, value, orig in subs:
        like = "Like" in op  # StringEquals: '*' is literal (matches nothing broader)
        code = _custom_breadth(value, like) if _is_custom(value) else _sub_breadth(value) if like else None
        if code is not None:
            out.append(TrustIssue(code, st, orig, op, broad=True))
    if not auds:
        out.append(TrustIssue("no-aud", st))
    elif not any(glob_match(v, audience) if "Like" in op else v == audience for op, v, _ in auds):
        out.append(TrustIssue("wrong-aud", st, ",".join(orig for _, _, orig in auds)))
    return out


def _review_form(st: Statement, op: str, value: str) -> tuple[str, str]:
    """``(operator, value)`` as the review reads them: a policy variable stands for a value of the request -- the
    caller's own claims (``repo:${...:repository}:*`` accepts every repository's token) or a key graphkit does not
    know -- so it reads as ``*`` under a ``Like`` operator (the ``*`` and ``?`` an ``Equals`` operator wrote stay
literal), and ``${*}``/``${?}`` stay literal characters (AWS "IAM
    policy elements: Variables and tags",
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html)."""
    pieces = template(value) if st.variables else None
    if pieces is None:
        return op, value
    like = "Like" in op
    text = "".join((p if like else literal(p)) if isinstance(p, str) else "*" for p in pieces)
    return (op.replace("Equals", "Like") if any(not isinstance(p, str) for p in pieces) else op), text


def _claim_conditions(st: Statement, host: str) -> tuple[list[TrustIssue], dict[str, list[tuple[str, str, str]]]]:
    """``(set-operator issues, claim -> (operator, value, value as written) of its positive conditions)`` for
    ``host``'s keys (operator and value as :func:`_review_form` reads them)."""
    issues: list[TrustIssue] = []
    found: dict[str, list[tuple[str, str, str]]] = {}
    prefix = f"{host}:"
    for op, block in st.conditions.items():
        qual, base, _ = split_operator(op)
        for key, values in block.items():
            k = key.lower()
            if not k.startswith(prefix):
                continue
            claim = k[len(prefix):]
            if qual in ("ForAllValues", "ForAnyValue") and claim in ("sub", "aud"):
                issues.append(TrustIssue("set-operator", st, key, op, broad=qual == "ForAllValues"))
            if "Not" in base or base == "Null" or (qual == "ForAllValues" and claim not in ("sub", "aud")):
                continue
            found.setdefault(claim, []).extend((*_review_form(st, op, v), v) for v in values)
    return issues, found


#: Claim keys a customised ``sub`` can hold (``include_claim_keys``; GitHub "OpenID Connect reference",
#: https://docs.github.com/en/actions/reference/security/oidc#customizing-the-subject-claims-for-an-organization-or-repository),
#: besides ``repo`` and ``context``.
_CUSTOM_KEYS = frozenset({
    "actor", "actor_id", "base_ref", "enterprise", "enterprise_id", "environment", "event_name", "head_ref",
    "job_workflow_ref", "job_workflow_sha", "ref", "ref_protected", "ref_type", "repository", "repository_id",
    "repository_owner", "repository_owner_id", "repository_visibility", "run_attempt", "run_id", "run_number",
    "runner_environment", "sha", "workflow", "workflow_ref", "workflow_sha"})
#: claims that pin one repository, and those that pin its owner (an organization or enterprise)
_REPO_PINS = ("repository_id", "repository", "repo")
_OWNER_PINS = ("repository_owner", "repository_owner_id", "enterprise", "enterprise_id")


def _is_custom(value: str) -> bool:
    """Whether a trusted ``sub`` is written in a customised template: it starts with a claim key other than ``repo``
    (``repository_owner:acme``, ``repository_id:42:...``), or the ``context`` of a pull request
    (``pull_request:repository_owner:acme``)."""
    first = value.partition(":")[0]
    return first in _CUSTOM_KEYS or (first == "pull_request" and ":" in value)


def _custom_breadth(value: str, like: bool) -> str | None:
    """The issue code of a trusted ``sub`` in a customised template (``key:value`` pairs, GitHub "OpenID Connect
    reference"): ``wildcard-owner`` when nothing pins the owner (no literal ``repository_owner``/``_id``,
    ``enterprise``/``_id``, repository or repository id), ``org-wide`` when the owner is pinned but no repository
    (``repository_owner:acme`` -- exact or not, every repository of the owner presents it), ``any-context`` when a
    repository is pinned and a ``*`` ends the pattern (``Like`` operators); else None.  Under an ``Equals`` operator
    ``*`` and ``?`` are literal.

    >>> [_custom_breadth(v, True) for v in ("repository_owner:acme", "repository_owner_id:12:*", "repository_id:7:*",
    ...                                     "repository_owner:acme*", "repository_visibility:private:*",
    ...                                     "repository_id:7:environment:prod")]
    ['org-wide', 'org-wide', 'any-context', 'wildcard-owner', 'wildcard-owner', None]
    >>> _custom_breadth("repository_owner:acme:context:ref:refs/heads/main", False)
    'org-wide'
    """
    tokens = value.split(":")
    pairs = [(tokens[i], tokens[i + 1]) for i in range(len(tokens) - 1) if tokens[i] in _CUSTOM_KEYS | {"repo"}]

    def literal(v: str) -> bool:
        return bool(v) and not (like and ("*" in v or "?" in v))

    repo = any(k in _REPO_PINS and literal(v) for k, v in pairs)
    owner = repo or any(k in _OWNER_PINS and literal(v) for k, v in pairs) or any(
        k in ("repo", "repository") and literal(v.partition("/")[0]) for k, v in pairs)
    if not owner:
        return "wildcard-owner"
    if not repo:
        return "org-wide"
    return "any-context" if like and value.endswith("*") else None


def _sub_breadth(value: str) -> str | None:
    """The issue code of a ``StringLike`` sub pattern that accepts more than one branch, PR or environment.

    A wildcard anywhere in the owner part (``repo:acme*/...``, ``repo:*/app:...``) lets other owners' repositories
    match: ``wildcard-owner`` whatever follows.

    >>> [_sub_breadth(v) for v in ("repo:*", "repo:acme/*", "repo:acme/app:*", "repo:acme/app:ref:refs/heads/*",
    ...                            "repo:acme/app:environment:prod", "repo:*/app:ref:refs/heads/main", "repo:acme*/app:*")]
    ['wildcard-owner', 'org-wide', 'any-context', 'any-branch', None, 'wildcard-owner', 'wildcard-owner']
    >>> _sub_breadth("repo:acme/app:environment:*"), _sub_breadth("repo:acme/app:environment:prod-*")
    ('any-environment', None)
    """
    from graphkit import oidc  # oidc imports this package's ClaimValue: import at call time

    parts = oidc.subject_pattern(value)
    if parts is None or any(c in parts.owner for c in "*?"):
        return "wildcard-owner"
    repo, context = parts.name, parts.context
    if repo == "*" or (repo.startswith("*") and not context):
        return "org-wide"
    if context in ("*", "") and repo.endswith("*"):
        return "org-wide"
    if context == "*" or context.startswith("*"):
        return "any-context"
    if glob_covers(value, oidc.any_branch_subject(parts.repository)):
        return "any-branch"
    if glob_covers(value, oidc.subject(parts.repository, "environment:*")):
        return "any-environment"
    return None
