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


def _single(base: str, values: Sequence[str], req: ClaimValue) -> Tri:
    """A string/ARN operator (negated ones as NOR) against one request value."""
    negated = "Not" in base
    m = or3(_string_match(base.replace("Not", "") if negated else base, v, req) for v in values)
    return not3(m) if negated else m


def _chosen(base: str, values: Sequence[str], req: ClaimValue) -> Tri:
    """A value the requester picks: a literal the policy names, the value given, or something else."""
    cands = [ClaimValue(v) for v in values if "*" not in v and "?" not in v] + [ClaimValue(req.text),
                                                                               ClaimValue("\x00other")]
    return or3(_single(base, values, c) for c in cands)


def _one_key(op: str, values: Sequence[str], request: Sequence[ClaimValue] | None) -> Tri:
    """Evaluate ``op`` for one key: ``request`` None = key absent, else its value(s)."""
    qual, base, if_exists = split_operator(op)
    if base == "Null":
        return _null(values, request)
    if request is None:
        return _absent(qual, base, if_exists)
    if base not in _STRING_OPS:
        if base == "Bool" and all(not r.pattern and not r.chosen for r in request):
            return or3(r.text.lower() == v.lower() for r in request for v in values)
        return None  # numeric, date, IP operators on claims graphkit does not model
    results = [_chosen(base, values, r) if r.chosen else _single(base, values, r) for r in request]
    if qual == "ForAllValues":
        return and3(results)
    return or3(results)  # ForAnyValue, or a single-valued key (one request value)


_MISS = object()
#: (operator, policy values, request values) -> :func:`_one_key`'s answer (a pure function): the same few
#: conditions (``aud``, an org-wide ``sub`` pattern) meet the same claims for thousands of jobs and roles
_ONE_KEY: dict[tuple, Tri] = {}


def _one_key_memo(op: str, values: Sequence[str], request: Sequence[ClaimValue] | None) -> Tri:
    """:func:`_one_key`, remembered (values that cannot be hashed are evaluated each time)."""
    key = (op, values, None if request is None else tuple(request))
    try:
        hit = _ONE_KEY.get(key, _MISS)
    except TypeError:
        return _one_key(op, values, request)
    if hit is _MISS:
        if len(_ONE_KEY) >= 100_000:
            _ONE_KEY.clear()
        hit = _ONE_KEY[key] = _one_key(op, values, request)
    return hit


def evaluate_conditions(conditions: Mapping[str, Mapping[str, Sequence[str]]],
                        context: Mapping[str, Sequence[ClaimValue] | None],
                        *, known_keys: Iterable[str] | Callable[[str], bool] | None = None) -> Tri:
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
            if k in ctx:
                results.append(_one_key_memo(op, values, ctx[k]))
            elif is_known(k):
                results.append(_one_key_memo(op, values, None))
            else:
                results.append(None)
    return and3(results)


