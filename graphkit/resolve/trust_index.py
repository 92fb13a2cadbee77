"""An index of web-identity trust policies by the literal prefixes of their claim conditions: which roles a token
may be accepted by, without evaluating every identity against every trust (issue 19: the identity x trust cross
product was 180,000 evaluations at 10^5 edges, a third of the build).

The index is a sound filter, never a decision: a role it leaves out is one whose trust evaluates ``False`` for
the token (:func:`graphkit.iam.web_identity_trust`); the roles it returns are evaluated as before.  Why it is
sound (``graphkit.iam.conditions``): a trust is ``False`` when every ``Allow`` statement for
``sts:AssumeRoleWithWebIdentity`` is; a statement is ``False`` when one of its keys is; a positive string or ARN
operator (``StringEquals``, ``StringLike``, ``ArnLike``..., without a set qualifier or ``IfExists``) on a key
present in the request is ``False`` unless some policy value and some request value are *compatible*; on a key
known absent it is ``False``.  Every way a policy value ``pv`` and a request value ``rv`` can match (equality,
``pv`` glob-matches ``rv``, ``rv`` a pattern covering or intersecting ``pv``, case-insensitively for the
``IgnoreCase`` operators) needs their texts to agree up to the first wildcard (``*`` or ``?``) of either: the
lower-cased literal prefix of one is a prefix of the other's.  A value the requester chooses (``aud``) matches
any policy literal, and a key neither present nor known absent is unknown: both keep the statement.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence

from graphkit.iam import Statement
from graphkit.iam.conditions import ClaimValue, split_operator
from graphkit.iam.evaluate import action_matches

__all__ = ["TrustIndex", "literal_prefix"]

_ACTION = "sts:AssumeRoleWithWebIdentity"
_POSITIVE = frozenset({"StringEquals", "StringEqualsIgnoreCase", "StringLike", "ArnEquals", "ArnLike"})

#: one request context of a token: (condition key -> values, predicate of the keys known absent, sub)
RequestContext = tuple[Mapping[str, Sequence[ClaimValue]], Callable[[str], bool], str]


def literal_prefix(text: str) -> str:
    """``text`` lower-cased up to its first wildcard (``*`` or ``?``) or policy variable (``${``: any text may be
    substituted there, :mod:`graphkit.iam.variables`).

    >>> literal_prefix("repo:Acme/*:ref:refs/heads/main"), literal_prefix("*"), literal_prefix("repo:${x:repository}:*")
    ('repo:acme/', '', 'repo:')
    """
    cut = len(text)
    for wildcard in ("*", "?", "${"):
        at = text.find(wildcard)
        if at != -1 and at < cut:
            cut = at
    return text[:cut].lower()


def _required_key(st: Statement) -> tuple[str, tuple[str, ...]] | None:
    """``(lower-cased key, literal prefixes of its values)`` of one positive string condition of ``st`` (the
    ``...:sub`` key when there is one), or None when no condition can rule the statement out alone."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for op, block in st.conditions.items():
        qual, base, if_exists = split_operator(op)
        if qual is not None or if_exists or base not in _POSITIVE:
            continue
        for key, values in block.items():
            found.append((key.lower(), tuple(literal_prefix(v) for v in values)))
    if not found:
        return None
    return next((f for f in found if f[0].endswith(":sub")), found[0])


class _Prefixes:
    """Role ids under literal prefixes, queried by a request value's literal prefix ``q``: the ids of every
    prefix ``p`` compatible with ``q`` (``p`` a prefix of ``q``, or ``q`` a prefix of ``p``)."""

    def __init__(self) -> None:
        self.ids: dict[str, set[str]] = {}
        self.sorted: list[str] = []

    def add(self, prefix: str, rid: str) -> None:
        self.ids.setdefault(prefix, set()).add(rid)

    def freeze(self) -> None:
        self.sorted = sorted(self.ids)

    def compatible(self, q: str, out: set[str]) -> None:
        ids = self.ids
        for i in range(len(q) + 1):
            hit = ids.get(q[:i])
            if hit:
                out.update(hit)
        at = bisect.bisect_left(self.sorted, q)
        keys = self.sorted
        while at < len(keys) and keys[at].startswith(q):
            out.update(ids[keys[at]])
            at += 1


class TrustIndex:
    """The web-identity trusts of some roles, indexed for :meth:`candidates`.

    Parameters
    ----------
    trusts
        role id -> its parsed trust statements.
    """

    def __init__(self, trusts: Mapping[str, Sequence[Statement]]) -> None:
        self.always: set[str] = set()  # a statement no single condition rules out: evaluated for every token
        self._by_key: dict[str, _Prefixes] = {}
        for rid, statements in trusts.items():
            for st in statements:
                if st.effect == "Deny" or not self._acts(st):
                    continue
                req = _required_key(st)
                if req is None:
                    self.always.add(rid)
                    continue
                key, prefixes = req
                index = self._by_key.setdefault(key, _Prefixes())
                for p in prefixes:
                    index.add(p, rid)
        for index in self._by_key.values():
            index.freeze()

    @staticmethod
    def _acts(st: Statement) -> bool:
        """Whether ``st`` applies to ``AssumeRoleWithWebIdentity`` (as :func:`graphkit.iam.trust._trust` reads)."""
        if st.actions:
            return action_matches(st.actions, _ACTION)
        return bool(st.not_actions) and not action_matches(st.not_actions, _ACTION)

    def candidates(self, contexts: Iterable[RequestContext]) -> set[str]:
        """Role ids whose trust may accept one of ``contexts`` (``graphkit.oidc.claim_variants``' runs, all
        variants flattened); every role left out rejects all of them."""
        out = set(self.always)
        for ctx, known, _ in contexts:
            lowered = {k.lower(): v for k, v in ctx.items()}
            for key, index in self._by_key.items():
                values = lowered.get(key)
                if values is None:
                    if not known(key):  # unknown key: the statement is undecided, never False
                        out.update(rid for ids in index.ids.values() for rid in ids)
                    continue
                for r in values:
                    if r.chosen:
                        out.update(rid for ids in index.ids.values() for rid in ids)
                    else:
                        index.compatible(literal_prefix(r.text), out)
        return out
