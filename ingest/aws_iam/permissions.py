"""What a principal's policies allow, under its permissions boundary and its organization's SCPs and RCPs -- pure.

AWS IAM User Guide "Policy evaluation logic"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html): identity policies
(inline, attached managed policies' **default version**, the groups' policies) allow, an explicit Deny wins, a
permissions boundary intersects, and Organizations SCPs (for the principal's account) and RCPs (for the resource's
account) cap the result (:func:`graphkit.iam.control_policy_decision`).

Self-escalation through policy versions ("Versioning IAM policies",
https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_managed-versioning.html): a principal allowed
``iam:SetDefaultPolicyVersion`` on a managed policy attached to it can make any of that policy's other versions
the one that applies, so those versions' statements count as its own (:func:`gather`); one allowed
``iam:CreatePolicyVersion`` on such a policy can write any permission into it (:func:`self_escalation`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from graphkit.iam import (Grant, Statement, Tri, allowed, allowed_on, and3, control_policy_decision, denied_on, or3,
                          parse_policy, resource_matches)
from graphkit.model import Evidence
from graphkit.iam.variables import Bindings, principal_context
from ingest.aws_iam.actions import mentions_service
from ingest.aws_iam.models import BUILTIN_POLICIES, ManagedPolicy, Organization, Principal, evidence

__all__ = ["Caps", "Permissions", "gather", "managed_statements", "self_escalation"]


_ev = evidence  # file, place (JSON path), detail -> Evidence with its line


@dataclass
class Caps:
    """The organizations' control policies as levels per account: ``scp[account]``, ``rcp[account]`` (account,
    then each parent to the root; a level without any policy of that type is unknown)."""

    scp: dict[str, list[list[Statement] | None]] = field(default_factory=dict)
    rcp: dict[str, list[list[Statement] | None]] = field(default_factory=dict)
    #: account -> the id of the organization an export places it in (``aws:PrincipalOrgID``)
    orgs: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, organizations: Sequence[Organization]) -> Caps:
        """Levels for every member account of every organization export."""
        out = cls()
        for org in organizations:
            if org.id:
                out.orgs.update((a, org.id) for a in org.accounts_in())
            for kind, into in (("scp", out.scp), ("rcp", out.rcp)):
                by_target: dict[str, list[Statement]] = {}
                for pol in org.policies:
                    if pol.policy_type == kind:
                        for t in pol.targets:
                            by_target.setdefault(t, []).extend(pol.statements)
                if not by_target:
                    continue  # this policy type is not enabled (or not exported): no cap
                for account in set(org.accounts) | {c for c in org.parents if c.isdigit()}:
                    if org.member(account):
                        into[account] = [by_target.get(x) for x in org.chain(account)]
        return out

    @staticmethod
    def decide(levels: list[list[Statement] | None] | None, action: str, resource: str) -> Tri:
        """The control-policy decision over ``levels`` (True without levels; an unknown level gives None)."""
        return control_policy_decision(levels or [], action, resource)


@dataclass
class Permissions:
    """A principal's identity statements (own, groups', managed policies') and its permissions boundary.

    ``known``: True when every policy was exported (else None: grants are only ``possible``).  ``where``:
    statement -> (file, place, detail) for evidence.  ``attached``: managed policy ARNs attached to the principal or
    its groups.  ``scp``: the SCP levels of its account (None: no SCP applies); ``caps`` for the RCPs of a
    resource's account.
    """

    arn: str
    account: str
    statements: list[Statement]
    where: dict[int, tuple[str, str, str | None]]
    known: Tri
    boundary: list[Statement] | None
    boundary_known: bool
    attached: list[str] = field(default_factory=list)
    caps: Caps = field(default_factory=Caps)
    #: action -> (statements that may concern its service, the principal's policy-variable bindings), for
    #: :meth:`allows` (read once per principal, asked once per role)
    _relevant: dict[str, tuple[list[Statement], Bindings]] = field(default_factory=dict, repr=False)

    def grants(self, action: str) -> list[Grant]:
        """Where ``action`` is allowed (statements that may concern its service only), capped by SCPs and RCPs;
        policy variables in ``Resource`` read the principal's request context (``${aws:username}`` is a user's
        name, no value for a role: :func:`graphkit.iam.variables.principal_context`)."""
        service = action.split(":", 1)[0]
        rel = [s for s in self.statements if mentions_service(s, service)]
        found = allowed(rel, action, boundary=self.boundary, boundary_known=self.boundary_known,
                        variables=Bindings(*principal_context(self.arn, self.account, self.caps.orgs.get(self.account)))) if rel else []
        out = []
        for g in found:
            c = and3([g.confidence, self.cap(action, g.resource)])
            if c is not False:
                out.append(Grant(action=g.action, resource=g.resource, confidence=c, statement=g.statement))
        return out

    def allows(self, action: str, resource: str) -> Tri:
        """Whether ``action`` is allowed on one ``resource`` (:func:`graphkit.iam.allowed_on`: ``NotResource``
        decided for that resource), capped by SCPs and RCPs."""
        cached = self._relevant.get(action)
        if cached is None:
            service = action.split(":", 1)[0]
            cached = self._relevant[action] = ([s for s in self.statements if mentions_service(s, service)],
                                               Bindings(*principal_context(self.arn, self.account, self.caps.orgs.get(self.account))))
        rel, bindings = cached
        if not rel:
            return False
        ok = allowed_on(rel, action, resource, boundary=self.boundary, boundary_known=self.boundary_known,
                        variables=bindings)
        return False if ok is False else and3([ok, self.cap(action, resource)])

    def denies(self, action: str, resource: str) -> Tri:
        """Whether an explicit Deny of the principal's identity policies or of its permissions boundary cuts
        ``action`` on ``resource`` (:func:`graphkit.iam.denied_on`): it wins over a resource-based policy that
        names the principal, a role trust included (AWS "Policy evaluation logic",
        https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html)."""
        return denied_on([*self.statements, *(self.boundary or [])], action, resource,
                         variables=Bindings(*principal_context(self.arn, self.account, self.caps.orgs.get(self.account))))

    def cap(self, action: str, resource: str) -> Tri:
        """What SCPs of the principal's account and RCPs of the resource's account let through.

        Service-linked roles (``role/aws-service-role/...``) are not restricted by SCPs.
        """
        scp = None if ":role/aws-service-role/" in self.arn else self.caps.scp.get(self.account)
        parts = resource.split(":")
        owner = parts[4] if len(parts) > 4 and parts[4] else self.account
        return and3([Caps.decide(scp, action, resource), Caps.decide(self.caps.rcp.get(owner), action, resource)])

    def evidence(self, g: Grant, detail: str | None) -> Evidence:
        """Evidence of a grant: the file and place of its statement."""
        file, place, how = self.where[id(g.statement)]
        return _ev(file, place, f"{how}: {detail}" if how and detail else how or detail)


def managed_statements(policies: Mapping[str, ManagedPolicy], arn: str,
                       unknown: set[str]) -> tuple[list[Statement], str] | None:
    """(statements, evidence file) of a managed policy; None (and added to ``unknown``) when never exported."""
    pol = policies.get(arn)
    if pol is not None:
        return pol.statements, pol.file
    if arn in BUILTIN_POLICIES:
        return parse_policy(BUILTIN_POLICIES[arn]), "builtin:" + arn
    unknown.add(arn)
    return None


def gather(p: Principal, groups: Sequence[Principal], policies: Mapping[str, ManagedPolicy], unknown: set[str],
           caps: Caps) -> Permissions:
    """``p``'s permissions (``groups``: its groups found in the exports; a user with a group not exported, or a
    policy attached but never exported, makes ``known`` None), then the other versions of attached policies it
    may make default (module docstring)."""
    found: list[tuple[Statement, str, str | None]] = []
    known: Tri = None if p.kind == "user" and len(groups) < len(p.groups) else True
    attached: list[str] = []
    for o in [p, *groups]:
        found += [(s, o.file, None) for _, sts, _ in o.inline for s in sts]
        for arn in o.managed:
            attached.append(arn)
            policy = managed_statements(policies, arn, unknown)
            if policy is None:
                known = None
            else:
                found += [(s, policy[1], None) for s in policy[0]]
    boundary, b_known = None, True
    if p.boundary is not None:
        bound = managed_statements(policies, p.boundary, unknown)
        boundary, b_known = (bound[0], True) if bound is not None else ([], False)
    perms = Permissions(p.arn, p.account, [s for s, _, _ in found], {id(s): (f, s.place, d) for s, f, d in found},
                        known, boundary, b_known, attached, caps)
    _other_versions(perms, policies)
    return perms


def _other_versions(perms: Permissions, policies: Mapping[str, ManagedPolicy]) -> None:
    """Add the non-default versions of attached policies the principal may make default
    (``iam:SetDefaultPolicyVersion`` on them); a conditional or partial grant makes ``known`` None."""
    grants = perms.grants("iam:SetDefaultPolicyVersion")
    for arn in dict.fromkeys(perms.attached):
        pol = policies.get(arn)
        if pol is None or not pol.other_versions:
            continue
        ok = or3(and3([resource_matches(g.resource, arn), g.confidence]) for g in grants)
        if ok is False:
            continue
        if ok is None:
            perms.known = and3([perms.known, None])
        for version, statements in pol.other_versions:
            perms.statements += statements
            perms._relevant.clear()  # noqa: SLF001 - the statements changed
            perms.where.update({id(s): (pol.file, s.place, f"version {version} made default with "
                                        "iam:SetDefaultPolicyVersion") for s in statements})


def self_escalation(perms: Permissions) -> tuple[Tri, list[Evidence]]:
    """Whether the principal can rewrite a managed policy attached to it (``iam:CreatePolicyVersion`` on it, with
    ``--set-as-default``): then it can grant itself anything.  AWS managed policies (``arn:aws:iam::aws:policy/``)
    cannot be changed and do not count."""
    result: Tri = False
    evs: list[Evidence] = []
    own = [a for a in dict.fromkeys(perms.attached) if ":iam::aws:" not in a]  # AWS managed policies are read-only
    for g in perms.grants("iam:CreatePolicyVersion"):
        for arn in own:
            hit = and3([resource_matches(g.resource, arn), g.confidence])
            if hit is not False:
                result = or3([result, hit])
                evs.append(perms.evidence(g, f"iam:CreatePolicyVersion on attached policy {arn}"))
    return result, evs
