"""Condition blocks against a request context: operators, keys, and request values that may be patterns.

AWS IAM User Guide "IAM JSON policy elements: Condition operators"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html):
values of one key are ORed (NOR for negated operators), keys and operators of
one block are ANDed; a key absent from the request makes a condition false,
except negated operators (true), ``...IfExists`` (true), ``Null`` and
``ForAllValues:`` (true); ``ForAnyValue:`` is false on an absent key.
``StringEquals`` is exact and case-sensitive, ``StringLike`` supports ``*``
and ``?``.  Set operators: "Single-valued vs. multivalued context keys"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-single-vs-multi-valued-context-keys.html).

Policy variables (``${key}``, ``${key, 'default'}``, ``${*}``) in the values of string and ARN operators are
substituted from the request context when the statement's policy language has them
(:mod:`graphkit.iam.variables`, AWS "IAM policy elements: Variables and tags",
https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html).

Request values may be **patterns** (:class:`ClaimValue`): a claim such as
``repo:acme/app:ref:refs/heads/*`` stands for every branch name.  A
condition that holds for every instance is ``True``; for some but not all,
``None``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from graphkit.iam.globs import glob_covers, glob_intersects, glob_match
from graphkit.iam.tri import Tri, and3, not3, or3
from graphkit.iam.variables import QMARK, STAR, Resolved, bind, literal, resolve, template, variables_of

__all__ = ["GITHUB_ISSUER_HOST", "SINGLE_VALUED_KEYS", "ClaimValue", "split_operator", "evaluate_conditions"]

#: Issuer host of GitHub Actions OIDC tokens (GitHub "OpenID Connect reference",
#: https://docs.github.com/en/actions/reference/security/oidc); condition keys are ``{host}:{claim}``.
GITHUB_ISSUER_HOST = "token.actions.githubusercontent.com"
#: Condition keys AWS documents as single-valued (a set operator on them is a mistake).
SINGLE_VALUED_KEYS = frozenset({f"{GITHUB_ISSUER_HOST}:sub", f"{GITHUB_ISSUER_HOST}:aud"})


@dataclass(frozen=True)
class ClaimValue:
    """A request value: ``text``, and whether its ``*`` stand for unknown text (``pattern``).

    ``chosen``: the requester picks the value freely (the OIDC ``aud``: any job
    with ``id-token: write`` can ask for any audience), so a condition on it
    holds if some value satisfies it.

    ``segments``: each ``*`` (``?``) of the pattern stands for one field value, text without ``:``
    (:data:`graphkit.iam.globs.SEPARATOR`): an unknown project path, owner, repository, branch or tag in an OIDC
    ``sub`` such as ``project_path:*:ref_type:branch:ref:*``, which can then not match a trust pinned to
    ``...:ref_type:tag:ref:*`` (:func:`graphkit.oidc.subject_value`).
    """

    text: str
    pattern: bool = False
    chosen: bool = False
    segments: bool = False


def _string_match(op: str, policy_value: str, req: ClaimValue) -> Tri:
    """Positive match of one policy value against one request value (``StringEquals``/``StringLike``...;
    ``ArnEquals``/``ArnLike`` per ARN component, :func:`_arn_match`)."""
    if op.startswith("Arn"):
        return _arn_match(policy_value, req, lambda pv, rq: _string_match("StringLike", pv, rq))
    ignore = op.endswith("IgnoreCase")
    pv, rv = (policy_value.lower(), req.text.lower()) if ignore else (policy_value, req.text)
    like = _like(op)
    if not req.pattern:
        return glob_match(pv, rv) if like else pv == rv
    if like:
        if glob_covers(pv, rv):
            return True
        return None if glob_intersects(pv, rv, q_segments=req.segments) else False
    if "*" not in rv and "?" not in rv:
        return pv == rv
    # exact operator against a pattern: possible when the literal is an instance of the pattern
    return None if glob_match(rv, pv, segments=req.segments) else False


_STRING_OPS = {"StringEquals", "StringNotEquals", "StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase",
               "StringLike", "StringNotLike", "ArnEquals", "ArnNotEquals", "ArnLike", "ArnNotLike"}


def split_operator(op: str) -> tuple[str | None, str, bool]:
    """``(set qualifier, base operator, IfExists)`` of a condition operator.

    >>> split_operator("ForAllValues:StringLikeIfExists")
    ('ForAllValues', 'StringLike', True)
    """
    qual = None
    if ":" in op:
        qual, op = op.split(":", 1)
    if_exists = op.endswith("IfExists")
    return qual, op[: -len("IfExists")] if if_exists else op, if_exists


def _null(values: Sequence[str], request: Sequence[ClaimValue] | None) -> Tri:
    """``Null``: ``"true"`` asks for the key to be absent, ``"false"`` present."""
    want_absent = [v.lower() == "true" for v in values]
    if request is None:
        return or3(want_absent)
    return or3(not w for w in want_absent)


def _absent(qual: str | None, base: str, if_exists: bool) -> Tri:
    """Any operator but ``Null`` on a key absent from the request."""
    if if_exists or qual == "ForAllValues":
        return True
    if qual == "ForAnyValue":
        return False
    return "Not" in base


def _like(op: str) -> bool:
    """Whether ``*``/``?`` in the policy values of ``op`` are wildcards: the ``...Like`` operators and every ARN
    operator (AWS "Condition operators", ARN condition operators: ``ArnEquals`` and ``ArnLike`` alike check each
    colon-delimited component separately, and each "can include multi-character match wildcards (*) or
    single-character match wildcards (?)",
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html#Conditions_ARN)."""
    return op.startswith(("StringLike", "StringNotLike", "Arn"))


def _arn_match(policy_arn: str, req: ClaimValue, component: Callable[[str, ClaimValue], Tri]) -> Tri:
    """Positive match of an ARN operator: the six colon-delimited components (``arn``, partition, service,
    region, account, resource: the resource keeps its own colons) matched separately with ``component``, so a
    wildcard never spans a colon before the resource (AWS "Condition operators", ARN condition operators, see
    :func:`_like`).  A policy value or a literal request value with fewer than six components is not an ARN and
    matches nothing; a request pattern with fewer (its ``*`` may span components) gives at most "possible"."""
    parts = policy_arn.split(":", 5)
    got = req.text.split(":", 5)
    if len(parts) < 6:
        return False
    if len(got) < 6:
        if not req.pattern:
            return False
        whole = component(policy_arn, req)
        return None if whole is True else whole
    return and3(component(p, ClaimValue(g, pattern=req.pattern, segments=req.segments)) for p, g in zip(parts, got))


def _resolved_match(op: str, res: Resolved, req: ClaimValue) -> Tri:
    """Positive match of one substituted policy value (:class:`~graphkit.iam.variables.Resolved`) against one
    request value: a value without value matches nothing ("There is no equal or like value"); unknown text put in
    makes a match only possible."""
    if res.none:
        return False
    if op.startswith("Arn"):
        return _arn_match(res.glob, req, lambda g, rq: _resolved_match("StringLike", Resolved(g, res.certain), rq))
    g, r = res.glob, (req.text if req.pattern else literal(req.text))
    if op.endswith("IgnoreCase"):
        g, r = g.lower(), r.lower()
    if not req.pattern:
        m: Tri = glob_match(g, r)
    elif glob_covers(g, r):
        m = True
    else:
        m = None if glob_intersects(g, r, q_segments=req.segments) else False
    return None if m is True and not res.certain else m


def _match(op: str, value: str, res: Resolved | None, req: ClaimValue) -> Tri:
    return _string_match(op, value, req) if res is None else _resolved_match(op, res, req)


def _single(base: str, values: Sequence[str], req: ClaimValue, resolved: Sequence[Resolved | None] = ()) -> Tri:
    """A string/ARN operator (negated ones as NOR) against one request value (``resolved``: the values after
    substitution, None for a value without variable)."""
    negated = "Not" in base
    op = base.replace("Not", "") if negated else base
    m = or3(_match(op, v, resolved[i] if resolved else None, req) for i, v in enumerate(values))
    return not3(m) if negated else m


def _chosen(base: str, values: Sequence[str], req: ClaimValue, resolved: Sequence[Resolved | None] = ()) -> Tri:
    """A value the requester picks: a literal the policy names, the value given, or something else."""
    texts = [v for i, v in enumerate(values) if resolved[i] is None] if resolved else list(values)
    texts += [r.glob.replace(STAR, "*").replace(QMARK, "?") for r in resolved
              if r is not None and not r.none and r.certain and "*" not in r.glob and "?" not in r.glob]
    cands = [ClaimValue(v) for v in texts if "*" not in v and "?" not in v] + [ClaimValue(req.text),
                                                                              ClaimValue("\x00other")]
    return or3(_single(base, values, c, resolved) for c in cands)


def _substituted(base: str, values: Sequence[str], env: tuple | None) -> tuple[Resolved | None, ...]:
    """``values`` after substitution of the bindings ``env`` (None for a value without variable); ``()`` when no
    substitution applies."""
    if env is None:
        return ()
    bindings = dict(env)
    wild = _like(base)
    return tuple(None if (t := template(v)) is None else resolve(t, bindings, wildcards=wild) for v in values)


def _bool(values: Sequence[str], request: Sequence[ClaimValue], env: tuple | None) -> Tri:
    """``Bool``: case-insensitive ``true``/``false``.  With a variable in a value the two AWS pages disagree on
    whether it is substituted (:mod:`graphkit.iam.variables`): decided only when both readings agree."""
    if not all(not r.pattern and not r.chosen for r in request):
        return None
    plain = or3(r.text.lower() == v.lower() for r in request for v in values)
    subst = _substituted("Bool", values, env)
    if not subst:
        return plain
    other = or3(_match("StringEqualsIgnoreCase", v, subst[i], r) for r in request for i, v in enumerate(values))
    return plain if other == plain else None


def _one_key(op: str, values: Sequence[str], request: Sequence[ClaimValue] | None, env: tuple | None = None) -> Tri:
    """Evaluate ``op`` for one key: ``request`` None = key absent, else its value(s); ``env``: the bindings of the
    policy variables in ``values`` (None: none substituted).  ``...IfExists``, ``Null`` and an absent key are about
    the condition key, whatever the variables (AWS "Condition operators")."""
    qual, base, if_exists = split_operator(op)
    if base == "Null":
        return _null(values, request)
    if request is None:
        return _absent(qual, base, if_exists)
    if base not in _STRING_OPS:
        if base == "Bool":
            return _bool(values, request, env)
        return None  # numeric, date, IP operators on claims graphkit does not model
    subst = _substituted(base, values, env)
    results = [_chosen(base, values, r, subst) if r.chosen else _single(base, values, r, subst) for r in request]
    if qual == "ForAllValues":
        return and3(results)
    return or3(results)  # ForAnyValue, or a single-valued key (one request value)


_MISS = object()
#: (operator, policy values, request values, variable bindings) -> :func:`_one_key`'s answer (a pure function of
#: them): the same few conditions (``aud``, an org-wide ``sub`` pattern) meet the same claims for thousands of jobs
#: and roles; the bindings of the variables the values hold are part of the key, so a substitution is never
#: answered from another request's values
_ONE_KEY: dict[tuple, Tri] = {}


def _one_key_memo(op: str, values: Sequence[str], request: Sequence[ClaimValue] | None,
                  env: tuple | None = None) -> Tri:
    """:func:`_one_key`, remembered (values that cannot be hashed are evaluated each time)."""
    key = (op, values, None if request is None else tuple(request), env)
    try:
        hit = _ONE_KEY.get(key, _MISS)
    except TypeError:
        return _one_key(op, values, request, env)
    if hit is _MISS:
        if len(_ONE_KEY) >= 100_000:
            _ONE_KEY.clear()
        hit = _ONE_KEY[key] = _one_key(op, values, request, env)
    return hit


#: Any value of a key graphkit does not know.
_ANY = (ClaimValue("*", pattern=True),)


def _unknown_key(op: str, values: Sequence[str], env: tuple) -> Tri:
    """A condition key graphkit does not know, compared with substituted values: the answer when the key is absent
    and when it has any value, if both agree (a variable without value matches nothing whatever the key holds),
    else None."""
    absent = _one_key_memo(op, values, None, env)
    return absent if absent is not None and _one_key_memo(op, values, _ANY, env) == absent else None


def _bindings(op: str, values: Sequence[str], ctx: Mapping[str, Sequence[ClaimValue] | None],
              is_known: Callable[[str], bool]) -> tuple | None:
    """The bindings of the policy variables in ``values`` when ``op`` substitutes them (string, ARN and -- pages
    disagree -- ``Bool`` operators), else None (the values are literal)."""
    if not any("${" in v for v in values):  # the common case, first: no split of the operator
        return None
    _, base, _ = split_operator(op)
    if (base not in _STRING_OPS and base != "Bool") or not any(template(v) for v in values):
        return None
    return bind(variables_of(values), ctx, is_known)  # () for escapes alone: still substituted


def evaluate_conditions(conditions: Mapping[str, Mapping[str, Sequence[str]]],
                        context: Mapping[str, Sequence[ClaimValue] | None],
                        *, known_keys: Iterable[str] | Callable[[str], bool] | None = None,
                        variables: bool = False) -> Tri:
    """Evaluate a statement's ``Condition`` block against a request context.

    Parameters
    ----------
    conditions : mapping
        ``{operator: {key: [values]}}`` as in :attr:`Statement.conditions`.
    context : mapping
        condition key -> list of :class:`ClaimValue` (several only for
        multi-valued keys); a key mapped to ``None`` or missing is *absent*.
    known_keys : iterable of str, or callable, optional
        keys whose absence is known (or a predicate over lower-cased keys); a
        key that is neither in ``context`` nor here is *unknown* and its
        conditions evaluate to ``None``.  Default: every key not in
        ``context`` is known absent.

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
    >>> repo = "token.actions.githubusercontent.com:repository"
    >>> evaluate_conditions({"StringLike": {sub: ["repo:${" + repo + "}:*"]}},
    ...                     {sub: [ClaimValue("repo:acme/app:pull_request")], repo: [ClaimValue("acme/app")]}, variables=True)
    True
    """
    if known_keys is None or callable(known_keys):
        is_known = known_keys or (lambda _k: True)
    else:
        names = {k.lower() for k in known_keys}
        is_known = names.__contains__
    ctx = {k.lower(): v for k, v in context.items()}
    results: list[Tri] = []
    for op, block in conditions.items():
        for key, values in block.items():
            k = key.lower()
            env = _bindings(op, values, ctx, is_known) if variables else None
            if k in ctx:
                results.append(_one_key_memo(op, values, ctx[k], env))
            elif is_known(k):
                results.append(_one_key_memo(op, values, None, env))
            else:
                results.append(None if env is None else _unknown_key(op, values, env))
    return and3(results)


