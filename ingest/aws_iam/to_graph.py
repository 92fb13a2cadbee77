"""Every parsed IAM file -> nodes, edges and facts -- **pure, no I/O**.

All files at once, so that role chains cross accounts.  Steps, in order
(each a function below):

1. :func:`_policy_nodes`: ``CloudPolicy`` per managed policy (default version).
2. :func:`_principal_nodes`: ``CloudRole``/``CloudUser``/``CloudGroup`` with
   structural ``has_policy`` (``key="boundary"`` for a permissions boundary)
   and ``in_group`` edges; a policy attached but absent from every export
   is an inferred node.
3. :func:`_file_nodes`: OIDC providers and standalone policy documents.
4. :func:`_reach_edges`: per role or user, the sensitive-action edges of
   :data:`~ingest.aws_iam.actions.SENSITIVE_ACTIONS` and ``administers``
   the account.
5. :func:`_assume_role_edges`: traversable role -> role (and user -> role)
   ``assumes_role`` through ``sts:AssumeRole``.
6. :func:`_trust_provider_edges`: ``trusts_provider`` to the OIDC providers
   trust policies name.

Semantics: only the **default version** of a managed policy applies; a
permissions boundary intersects; an explicit Deny wins (AWS IAM User Guide
"Policy evaluation logic",
https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html).
Conditions of identity policies depend on the request and make an edge
``possible``.  A managed policy attached but absent from every export is
unknown: it adds no edge and is listed in ``meta["aws_iam"]["unknown_policies"]``
(except ``AdministratorAccess``, whose content is fixed).  Job -> role
edges (OIDC trust) are added by :mod:`graphkit.cloud` after every ingestor ran.
"""

from __future__ import annotations

import json

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from graphkit.errors import InputError
from graphkit.graph import GraphBuilder
from graphkit.iam import (Grant, Tri, allowed_on, and3, not3, oidc_trust_issues, or3, principal_trust,
                          resource_matches, session_of)
from graphkit.ingestor import IngestResult
from graphkit.model import (CloudAccount, CloudGroup, CloudPolicy, CloudRole, CloudUser, EdgeKind, Evidence, Lifetime,
                            Node, OIDCProvider, ids)
from ingest.aws_iam.actions import (CREATE_COMPUTE, ESCALATION_ACTIONS, SENSITIVE_ACTIONS, ActionClass, actions_of,
                                    mentions_service, target_node)
from ingest.aws_iam.models import (BUILTIN_POLICIES, ManagedPolicy, ParsedFile, Principal, account_of, evidence,
                                   lines_of, statement_lines)
from ingest._yaml import line_of
from ingest.aws_iam.permissions import Caps, Permissions, gather, self_escalation

__all__ = ["META_KEY", "to_graph", "principal_id"]

#: Key of this source's facts in ``IngestResult.meta`` / ``graph.meta``.
META_KEY = "aws_iam"


def to_graph(parsed: Sequence[ParsedFile]) -> IngestResult:
    """Turn every parsed file into nodes, edges and facts (pure).

    Returns
    -------
    IngestResult
        ``graph``: the nodes and edges; ``problems``: granted resources that
        cannot be part of a node id (file and statement place);
        ``meta[META_KEY]``: ``{"accounts": [...], "unknown_policies": [...],
        "files": [...], "counts": {...}}``.  Every evidence item has the line of its place in its file
        (:attr:`ParsedFile.lines`).
    """
    with lines_of(parsed):
        return _to_graph(parsed)


def _to_graph(parsed: Sequence[ParsedFile]) -> IngestResult:
    index = _Index.of(parsed)
    b = _Build(index)
    b.problems += index.conflicts
    _policy_nodes(b)
    _principal_nodes(b)
    _file_nodes(b, parsed)
    callers = {p.arn: _reach_edges(b, p) for p in index.principals.values() if p.kind != "group"}
    _assume_role_edges(b, callers)
    _foreign_trust_edges(b)
    _trust_provider_edges(b)
    return IngestResult(graph=b.graph, problems=b.problems, meta={META_KEY: _meta(parsed, index, b.unknown)})


def principal_id(p: Principal) -> str:
    """The node id of a role, user or group (:mod:`graphkit.model.ids`)."""
    if p.kind == "role":
        return ids.cloud_role("aws", p.arn)
    return ids.cloud_user(p.arn) if p.kind == "user" else ids.cloud_group(p.arn)


_ev = evidence  # file, place (JSON path), detail -> Evidence with its line


# --------------------------------------------------------------------------- shared state


def _canonical(document: Any) -> str:
    return json.dumps(document, sort_keys=True, default=str)


def _redefinition(first: ManagedPolicy | None, pol: ManagedPolicy) -> InputError | None:
    """A problem when ``pol`` defines an AWS managed policy differently from its published definition
    (:data:`BUILTIN_POLICIES`) or the same version differently from the first export of it; None otherwise
    (customer managed policies: the first export wins, as before)."""
    published = BUILTIN_POLICIES.get(pol.arn)
    if published is not None and _canonical(pol.document) != _canonical(published):
        return InputError(pol.file, pol.place, f"redefines the AWS managed policy {pol.arn} differently from its "
                                               "published definition; the published definition is used")
    if first is not None and pol.account == "aws" and pol.default_version == first.default_version \
            and _canonical(pol.document) != _canonical(first.document):
        # a version of an AWS managed policy never changes; a later version (an export of another date) may differ
        # (https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_managed-vs-inline.html#aws-managed-policies)
        return InputError(pol.file, pol.place, f"defines version {pol.default_version} of the AWS managed policy "
                                               f"{pol.arn} differently from {first.file}; the first definition is used")
    return None


@dataclass
class _Index:
    """Every file merged: managed policies and principals by ARN, groups by (account, name), access keys."""

    policies: dict[str, ManagedPolicy]
    principals: dict[str, Principal]
    access_keys: dict[str, int]
    groups: dict[tuple[str, str], Principal]
    caps: Caps = field(default_factory=Caps)
    #: exports that define an already-defined policy ARN differently (the first definition is used)
    conflicts: list[InputError] = field(default_factory=list)

    @classmethod
    def of(cls, parsed: Sequence[ParsedFile]) -> _Index:
        """The first export of a policy wins (an AWS managed policy of :data:`BUILTIN_POLICIES` is its published
        definition); a principal's full entry wins over a bare ``get-role`` one.

        A policy ARN is defined in one place: an export that defines it differently (e.g. a file redefining
        ``arn:aws:iam::aws:policy/AdministratorAccess`` with ``Resource: null``, which would strip admin reach
        from every account) is a problem in :attr:`conflicts`, never a silent override (issue 18).
        """
        policies: dict[str, ManagedPolicy] = {}
        principals: dict[str, Principal] = {}
        keys: dict[str, int] = {}
        conflicts: list[InputError] = []
        for pf in parsed:
            for pol in pf.policies:
                conflict = _redefinition(policies.get(pol.arn), pol)
                if conflict is not None:
                    conflicts.append(conflict)
                else:
                    policies.setdefault(pol.arn, pol)
            for pr in pf.principals:
                prev = principals.get(pr.arn)
                if prev is None or (prev.kind == "role" and not prev.inline and not prev.managed):
                    principals[pr.arn] = pr
            keys.update(pf.access_keys)
        groups = {(p.account, p.name): p for p in principals.values() if p.kind == "group"}
        caps = Caps.of([pf.organization for pf in parsed if pf.organization is not None])
        return cls(policies, principals, keys, groups, caps, conflicts)

    @property
    def roles_with_trust(self) -> list[Principal]:
        """Roles whose trust policy has statements."""
        return [p for p in self.principals.values() if p.kind == "role" and p.trust]


@dataclass
class _Build:
    """The graph being built, its problems, and the managed policies found attached but never exported."""

    index: _Index
    graph: GraphBuilder = field(default_factory=GraphBuilder)
    problems: list[InputError] = field(default_factory=list)
    unknown: set[str] = field(default_factory=set)

    def edge(self, kind: EdgeKind, source: str, target: str, evidence: list[Evidence], confidence: Tri, *,
             key: str = "", lifetime: Lifetime | None = None, **props: Any) -> None:
        """An edge, ``certain`` when ``confidence`` is True, else ``possible``; ``props`` as given; ``lifetime``
        None: the kind's."""
        self.graph.edge(kind, source, target, evidence, key=key, possible=confidence is not True, lifetime=lifetime,
                        props=props)


# --------------------------------------------------------------------------- steps 1-3: nodes


def _policy_nodes(b: _Build) -> None:
    for pol in b.index.policies.values():
        b.graph.node(CloudPolicy(id=ids.cloud_policy(pol.arn), name=pol.name, arn=pol.arn,
                                 account=pol.account or None, default_version=pol.default_version,
                                 versions=pol.versions, document=pol.document, evidence=[_ev(pol.file, pol.place)]))


def _sessions_revoked_before(p: Principal) -> str | None:
    """The latest ``aws:TokenIssueTime`` of an inline Deny-all ``DateLessThan`` (the console's "Revoke active
    sessions", https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html), or None."""
    found: list[str] = []
    for _, sts, _ in p.inline:
        for st in sts:
            if st.effect.lower() != "deny" or "*" not in st.actions or "*" not in st.resources:
                continue
            for op, keys in st.conditions.items():
                if op.lower() == "datelessthan":
                    found += [v for k, vals in keys.items() if k.lower() == "aws:tokenissuetime" for v in vals]
    return max(found) if found else None


def _principal_node(p: Principal, access_keys: dict[str, int]) -> Node:
    pev = [_ev(p.file, p.place)]
    if p.kind == "role":
        issues = oidc_trust_issues(p.trust or [])
        return CloudRole(id=principal_id(p), name=p.name, provider="aws", identifier=p.arn, account=p.account,
                         trust="known" if p.trust is not None else "unknown", trust_policy=p.trust_document, permissions_boundary=p.boundary,
                         instance_profiles=p.instance_profiles, broad_trust=any(i.broad for i in issues),
                         max_session_seconds=p.max_session, sessions_revoked_before=_sessions_revoked_before(p),
                         statement_lines=statement_lines(p.file, p.trust),
                         evidence=pev)
    if p.kind == "user":
        return CloudUser(id=principal_id(p), name=p.name, arn=p.arn, account=p.account, groups=p.groups,
                         permissions_boundary=p.boundary, access_keys=access_keys.get(p.arn), evidence=pev)
    return CloudGroup(id=principal_id(p), name=p.name, arn=p.arn, account=p.account, evidence=pev)


def _principal_nodes(b: _Build) -> None:
    """Principals, their attached (and boundary) policies, and group membership."""
    for p in b.index.principals.values():
        src = b.graph.node(_principal_node(p, b.index.access_keys))
        pev = [_ev(p.file, p.place)]
        for arn in p.managed + ([p.boundary] if p.boundary else []):
            pid = ids.cloud_policy(arn)
            if arn not in b.index.policies:
                b.graph.node(CloudPolicy(id=pid, name=arn.rsplit("/", 1)[-1], arn=arn, account=account_of(arn) or None,
                                         document=BUILTIN_POLICIES.get(arn), inferred=True, evidence=pev))
            b.edge(EdgeKind.HAS_POLICY, src, pid, pev, True,
                   key="boundary" if arn == p.boundary and arn not in p.managed else "")
        for g in p.groups:
            grp = b.index.groups.get((p.account, g))
            if grp is not None:
                b.edge(EdgeKind.IN_GROUP, src, principal_id(grp), pev, True)


def _file_nodes(b: _Build, parsed: Sequence[ParsedFile]) -> None:
    """OIDC providers and standalone policy documents (Terraform templates, CloudFormation role trusts)."""
    for pf in parsed:
        for prov in pf.providers:
            b.graph.node(OIDCProvider(id=ids.oidc_provider(prov.arn), name=prov.url, arn=prov.arn,
                                      account=prov.account, url=prov.url, client_ids=prov.client_ids,
                                      evidence=[_ev(prov.file, prov.place)]))
        for doc in pf.documents:
            b.graph.node(CloudPolicy(id=ids.cloud_policy_file(doc.id_path or doc.file, doc.resource), name=doc.name,
                                     document=doc.document, policy_type=doc.policy_type,  # type: ignore[arg-type]
                                     placeholders=doc.placeholders, evidence=[_ev(doc.file, doc.place)],
                                     statement_lines=statement_lines(doc.file, doc.statements)))


# --------------------------------------------------------------------------- step 4: what a principal reaches


def _permissions(b: _Build, p: Principal) -> Permissions:
    """``p``'s permissions (:func:`ingest.aws_iam.permissions.gather`), capped by its organization's policies."""
    groups = [b.index.groups[(p.account, g)] for g in p.groups if (p.account, g) in b.index.groups]
    return gather(p, groups, b.index.policies, b.unknown, b.index.caps)


def _reach_edges(b: _Build, p: Principal) -> tuple[list[Grant], Permissions]:
    """Sensitive-action and admin edges of a role or user; returns its ``sts:AssumeRole`` grants (step 5)."""
    perms = _permissions(b, p)
    for cls in SENSITIVE_ACTIONS:
        _sensitive_edges(b, p, perms, cls)
    _admin_edge(b, p, perms)
    return perms.grants("sts:AssumeRole"), perms


def _sensitive_edges(b: _Build, p: Principal, perms: Permissions, cls: ActionClass) -> None:
    """One edge per target reached by an action of ``cls``: the best confidence, every action and statement."""
    found: dict[str, tuple[Tri, list[Evidence], set[str]]] = {}
    for action in actions_of(cls):
        for g in perms.grants(action):
            evs = [perms.evidence(g, g.statement.sid)]
            try:
                tgt = target_node(cls, g.resource, p.account, evs)
            except ids.IdError as exc:
                b.problems.append(InputError(evs[0].file, g.statement.place, f"resource {g.resource!r}: {exc}"))
                continue
            conf = and3([g.confidence, perms.known])
            prev = found.get(tgt.id)
            if prev is None:
                b.graph.node(tgt)
                found[tgt.id] = (conf, evs, {action})
            else:
                best = True if True in (prev[0], conf) else None
                found[tgt.id] = (best, prev[1] + [e for e in evs if e not in prev[1]], prev[2] | {action})
    for tid, (conf, evs, acts) in found.items():
        b.edge(cls.edge, principal_id(p), tid, evs, conf, category=cls.category, actions=sorted(acts)[:10],
               via="identity policy")


def _admin_edge(b: _Build, p: Principal, perms: Permissions) -> None:
    """``administers`` the account: IAM escalation on the account's resources, or PassRole + compute creation."""
    admin, admin_ev = _escalation(p, perms)
    if admin is not True:
        via_compute = _pass_role_compute(perms)
        if via_compute:
            admin = None if admin is False else admin
            admin_ev += via_compute
    if admin is not False and p.account.isdigit():
        aid = b.graph.node(CloudAccount(id=ids.cloud_account(p.account), name=f"AWS account {p.account}",
                                        account=p.account, evidence=admin_ev[:1]))
        b.edge(EdgeKind.ADMINISTERS, principal_id(p), aid, admin_ev[:5], and3([admin, perms.known]))


def _escalation(p: Principal, perms: Permissions) -> tuple[Tri, list[Evidence]]:
    """Whether an IAM escalation action is allowed on every IAM resource of the account (first action decided), or
    ``iam:CreatePolicyVersion`` on a policy attached to the principal itself."""
    admin, evs = self_escalation(perms)
    if admin is True:
        return admin, evs
    for action in ESCALATION_ACTIONS:
        for g in perms.grants(action):
            if resource_matches(g.resource, f"arn:{p.arn.split(':', 2)[1]}:iam::{p.account}:*") is True:
                admin = or3([admin, g.confidence])
                evs.append(perms.evidence(g, f"{action} on {g.resource}"))
        if admin is True:
            break
    return admin, evs


def _pass_role_compute(perms: Permissions) -> list[Evidence]:
    """Evidence of ``iam:PassRole`` with a compute creation action (empty when not both)."""
    passes = perms.grants("iam:PassRole")
    if not passes:
        return []
    for action in CREATE_COMPUTE:
        comp = perms.grants(action)
        if comp:
            return [perms.evidence(g, f"{g.action} on {g.resource}") for g in (passes[0], comp[0])]
    return []


# --------------------------------------------------------------------------- steps 5-6: trust


def _assume_role_edges(b: _Build, callers: dict[str, tuple[list[Grant], Permissions]]) -> None:
    """Role -> role (and user -> role) through ``sts:AssumeRole``: the trust, and when it delegates to the
    caller's account (or crosses accounts) the caller's identity policy too."""
    roles = b.index.roles_with_trust
    trusting = _TrustedPrincipals(roles)
    for caller in b.index.principals.values():
        if caller.kind == "group":
            continue
        grants, perms = callers[caller.arn]
        for i in trusting.candidates(caller):
            role = roles[i]
            if role.arn != caller.arn:
                _assume_role_edge(b, caller, role, grants, perms)


class _TrustedPrincipals:
    """Which trusts may let a caller in, by the ``AWS`` principals they name (a filter, not a decision): a
    principal lets in only the caller of that ARN, of that account's root or bare id, or everyone (``*`` alone;
    ``*`` and ``?`` inside a principal are no wildcards, and a ``NotPrincipal`` statement takes no part:
    :func:`graphkit.iam.principal_trust`); a trust with no statement naming the caller so rejects it, so the
    caller x role pairs left out are never evaluated."""

    def __init__(self, roles: list[Principal]) -> None:
        self.exact: dict[str, set[int]] = {}
        self.always: set[int] = set()
        for i, role in enumerate(roles):
            for st in role.trust or []:
                if st.not_principals:
                    continue
                for value in [*st.principals.get("AWS", ()), *st.principals.get("*", ())]:
                    session = session_of(value)
                    if value == "*":
                        self.always.add(i)
                    elif session is not None:  # a session of a role: that role, whatever its path
                        self.exact.setdefault(":".join(("session", *session)), set()).add(i)
                    else:
                        self.exact.setdefault(value, set()).add(i)

    def candidates(self, caller: Principal) -> list[int]:
        """Positions (in the roles given) of the trusts that may let ``caller`` in, in order."""
        partition = caller.arn.split(":", 2)[1] if caller.arn.startswith("arn:") else "aws"
        out = set(self.always)
        session = f"session:{partition}:{caller.account}:{caller.arn.rsplit('/', 1)[-1]}" if caller.kind == "role" else ""
        for key in (caller.arn, f"arn:{partition}:iam::{caller.account}:root", caller.account, session):
            out |= self.exact.get(key, set())
        return sorted(out)


def _assume_role_edge(b: _Build, caller: Principal, role: Principal, grants: list[Grant],
                      perms: Permissions) -> None:
    res, needs, match = principal_trust(role.trust or [], caller.arn, caller.account, role.account,
                                        caller_org=b.index.caps.orgs.get(caller.account))
    if res is False:
        return
    res = and3([res, perms.cap("sts:AssumeRole", role.arn)])  # SCPs of the caller's account, RCPs of the role's
    if res is False:
        return
    evs = [_ev(role.file, st.place, st.sid) for st in match.allows]
    if needs:
        ident = perms.allows("sts:AssumeRole", role.arn) if grants else False
        if ident is False:
            return
        res = and3([res, ident])
        evs += [perms.evidence(g, g.statement.sid) for g in grants
                if resource_matches(g.resource, role.arn) is not False][:2]
    else:  # the trust names the caller (or one of its sessions): no identity Allow needed, an explicit Deny cuts
        res = and3([res, not3(perms.denies("sts:AssumeRole", role.arn))])
        if res is not False and any(caller.arn in st.principals.get("AWS", ()) for st in match.allows):
            res = and3([res, _boundary_allows(perms, role.arn)])
        if res is False:
            return
    b.edge(EdgeKind.ASSUMES_ROLE, principal_id(caller), principal_id(role), evs or [_ev(role.file, role.place)], res,
           lifetime=_session_lifetime(caller.kind), via="sts:AssumeRole")


def _session_lifetime(caller_kind: str) -> Lifetime | None:
    """The lifetime of the session ``sts:AssumeRole`` gives a caller of that kind: a role's session assuming a role
    is role chaining, at most 1 hour whatever the target's MaxSessionDuration (AWS IAM User Guide "Roles terms and
    concepts", role chaining,
    https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_terms-and-concepts.html#iam-term-role-chaining; STS
    "AssumeRole", DurationSeconds,
    https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html); a user's (or an account's) session
    lasts up to the role's maximum (None: the edge kind's lifetime)."""
    return Lifetime.CHAINED_SESSION if caller_kind == "role" else None


def _boundary_allows(perms: Permissions, role_arn: str) -> Tri:
    """Whether the caller's permissions boundary lets it call ``sts:AssumeRole`` on ``role_arn`` (True without
    one; None when set but not exported).  A trust naming the caller's ARN grants without its identity policy, but
    for a role "an implicit deny in a permissions boundary does limit the permissions granted to the ARN of the
    underlying IAM role" by a resource-based policy (AWS IAM User Guide "Policy evaluation logic", identity-based
    and resource-based policies,
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html; verified in
    https://github.com/benkehoe/permissions-boundary-test), and for a user named in a role trust "If a permissions
    boundary is set for the user, then it must allow the sts:AssumeRole action" (AWS IAM User Guide "Update a role
    trust policy", https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_update-role-trust-policy.html); a
    trust naming one of a role's sessions is not limited."""
    if perms.boundary is None and perms.boundary_known:
        return True
    if not perms.boundary_known:
        return None
    return allowed_on(perms.boundary or [], "sts:AssumeRole", role_arn)


def _foreign_trust_edges(b: _Build) -> None:
    """A trust naming a principal of an account no export covers: a node of that account -> the role.

    ``arn:aws:iam::ACCOUNT:root`` (or the bare id) delegates to that account: its ``cloud_account`` node (whoever
    administers it can assume the role); a role or user ARN there becomes an inferred ``cloud_role`` /
    ``cloud_user``.  The edge is ``possible`` unless the account node is trusted unconditionally: the other
    account's identity policies are not known (AWS "Cross account resource access",
    https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies-cross-account-resource-access.html).
    """
    ingested = {p.account for p in b.index.principals.values()}
    for role in b.index.roles_with_trust:
        partition = role.arn.split(":", 2)[1]
        for st in role.trust or []:
            if st.effect != "Allow" or st.not_principals:
                continue
            for value in st.principals.get("AWS", ()):
                account = value if value.isdigit() and len(value) == 12 else (account_of(value) or _root_account(value))
                if not account.isdigit() or account in ingested:
                    continue
                try:
                    source = _foreign_node(b, value, account, partition, _ev(role.file, st.place, st.sid))
                except ids.IdError as exc:
                    b.problems.append(InputError(role.file, f"{st.place}.Principal.AWS", str(exc)))
                    continue
                res, _, _ = principal_trust([st], value if ":root" not in value else f"arn:{partition}:iam::"
                                            f"{account}:root", account, role.account,
                                            caller_org=b.index.caps.orgs.get(account))
                if res is not False:
                    b.edge(EdgeKind.ASSUMES_ROLE, source, principal_id(role), [_ev(role.file, st.place, st.sid)],
                           res if source == ids.cloud_account(account) else None, via="sts:AssumeRole",
                           lifetime=_session_lifetime("role" if ":role/" in value else "other"), foreign=True)


def _root_account(value: str) -> str:
    """The account of ``arn:PARTITION:iam::ACCOUNT:root`` (empty for another value)."""
    parts = value.split(":")
    return parts[4] if len(parts) == 6 and value.startswith("arn:") and parts[5] == "root" else ""


def _foreign_node(b: _Build, value: str, account: str, partition: str, ev: Evidence) -> str:
    """The node of a trusted principal in a foreign account (its account, or an inferred role or user)."""
    if ":role/" in value:
        return b.graph.node(CloudRole(id=ids.cloud_role("aws", value), name=value.rsplit("/", 1)[-1], provider="aws",
                                      identifier=value, account=account, inferred=True, evidence=[ev]))
    if ":user/" in value:
        return b.graph.node(CloudUser(id=ids.cloud_user(value), name=value.rsplit("/", 1)[-1], arn=value,
                                      account=account, inferred=True, evidence=[ev]))
    return b.graph.node(CloudAccount(id=ids.cloud_account(account), name=f"AWS account {account} (not ingested)",
                                     account=account, evidence=[ev]))


def _trust_provider_edges(b: _Build) -> None:
    """``trusts_provider`` to every OIDC provider a trust statement names (inferred when not exported)."""
    for role in b.index.roles_with_trust:
        for st in role.trust or []:
            for fed in st.principals.get("Federated", ()):
                if ":oidc-provider/" not in fed:
                    continue
                evs = [_ev(role.file, st.place)]
                host = fed.split("oidc-provider/", 1)[1]
                try:
                    pid = b.graph.node(OIDCProvider(id=ids.oidc_provider(fed), name=host, arn=fed,
                                                    account=account_of(fed) or None, url="https://" + host,
                                                    inferred=True, evidence=evs))
                except ids.IdError as exc:
                    b.problems.append(InputError(role.file, f"{st.place}.Principal.Federated", str(exc)))
                    continue
                b.edge(EdgeKind.TRUSTS_PROVIDER, principal_id(role), pid, evs, True)


def _meta(parsed: Sequence[ParsedFile], index: _Index, unknown: set[str]) -> dict[str, Any]:
    principals = index.principals.values()
    return {"accounts": sorted({p.account for p in principals if p.account.isdigit()}),
            "unknown_policies": sorted(unknown),
            "files": [pf.file for pf in parsed],
            "control_policies": _control_meta(parsed),
            "duplicate_keys": [{"file": pf.file, "place": place, "key": key,
                                "line": line_of(pf.lines, f"{place}.{key}" if place else key)} for pf in parsed
                               for place, key in pf.duplicates],
            "counts": {"roles": sum(p.kind == "role" for p in principals),
                       "users": sum(p.kind == "user" for p in principals),
                       "groups": sum(p.kind == "group" for p in principals),
                       "policies": len(index.policies),
                       "documents": sum(len(pf.documents) for pf in parsed),
                       "control_policies": sum(len(pf.organization.policies) for pf in parsed if pf.organization)}}


def _control_meta(parsed: Sequence[ParsedFile]) -> dict[str, dict[str, list[list[dict[str, Any]] | None]]]:
    """``{"scp"|"rcp": {account: [level [document] or None]}}`` for :mod:`graphkit.cloud` (RCPs cap OIDC trust
    too); None: a level without an exported policy of that type (unknown)."""
    out: dict[str, dict[str, list[list[dict[str, Any]] | None]]] = {}
    for pf in parsed:
        org = pf.organization
        if org is None:
            continue
        for kind in ("scp", "rcp"):
            by_target: dict[str, list[dict[str, Any]]] = {}
            for pol in org.policies:
                if pol.policy_type == kind:
                    for t in pol.targets:
                        by_target.setdefault(t, []).append(pol.document)
            for account in sorted(set(org.accounts) | {c for c in org.parents if c.isdigit()}):
                if by_target and org.member(account):
                    out.setdefault(kind, {})[account] = [by_target.get(x) for x in org.chain(account)]
    return out
