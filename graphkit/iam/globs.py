"""Glob patterns as IAM writes them (``*`` any run of characters, ``?`` one character): matching one value, and
comparing two patterns (some common instance; every instance of one covered by the other).

Action names match case-insensitively, resource ARNs and condition values
case-sensitively ("IAM JSON policy elements: Action",
https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_action.html; "Resource",
https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_resource.html).
"""

from __future__ import annotations

import functools
import re

__all__ = ["SEPARATOR", "glob_match", "glob_intersects", "glob_covers"]


#: The separator a *segment* pattern's ``*`` never matches (:func:`glob_match` ``segments``): the ``:`` between the
#: fields of an OIDC ``sub`` claim, which no single field value contains.
SEPARATOR = ":"


@functools.lru_cache(maxsize=8192)
def _glob_re(pattern: str, case: bool, segments: bool = False) -> re.Pattern[str]:
    parts = ["*" if c == "*" else "?" if c == "?" else re.escape(c) for c in pattern]
    star, one = ("[^:]*", "[^:]") if segments else (".*", ".")
    body = "".join(star if p == "*" else one if p == "?" else p for p in parts)
    return re.compile(f"^{body}$", re.S if case else re.S | re.I)


def glob_match(pattern: str, value: str, *, case: bool = True, segments: bool = False) -> bool:
    """Whether ``value`` matches ``pattern`` (``*`` any run of characters, ``?`` one character; with
    ``segments``, neither matches :data:`SEPARATOR`).

    >>> glob_match("repo:acme/*", "repo:acme/app:ref:refs/heads/main"), glob_match("kms:S?gn", "KMS:SIGN", case=False)
    (True, True)
    >>> glob_match("repo:acme/*", "repo:acme/app:ref:refs/heads/main", segments=True)
    False
    """
    return _glob_re(pattern, case, segments).match(value) is not None


def glob_intersects(p: str, q: str, *, q_segments: bool = False) -> bool:
    """Whether some string matches both globs ``p`` and ``q`` (case-sensitive).

    ``q_segments``: a ``*`` or ``?`` of ``q`` stands for text without :data:`SEPARATOR` (an unknown field of an
    OIDC subject, :class:`graphkit.iam.ClaimValue` ``segments``); ``p``'s wildcards match anything.

    >>> glob_intersects("repo:acme/app:*", "repo:acme/*:pull_request"), glob_intersects("a*", "b*")
    (True, False)
    >>> glob_intersects("p:g/p:t:tag:r:*", "p:*:t:branch:r:*"), glob_intersects("p:g/p:t:tag:r:*", "p:*:t:branch:r:*", q_segments=True)
    (True, False)
    """
    return _intersects(p, q, 0, 0, {}, q_segments)


def _intersects(p: str, q: str, i: int, j: int, memo: dict[tuple[int, int], bool], seg: bool = False) -> bool:
    """:func:`glob_intersects` from ``p[i:]``, ``q[j:]`` (``memo``: the states already decided; a module-level
    function, not a closure, so that a call leaves no reference cycle for the collector; ``seg``:
    ``q_segments``)."""
    key = (i, j)
    if key in memo:
        return memo[key]
    if i < len(p) and p[i] == "*":  # p's star matches nothing more, or takes q[j] (a character or q's own star)
        out = _intersects(p, q, i + 1, j, memo, seg) or (j < len(q) and _intersects(p, q, i, j + 1, memo, seg))
    elif j < len(q) and q[j] == "*":
        out = _intersects(p, q, i, j + 1, memo, seg) or (
            i < len(p) and not (seg and p[i] == SEPARATOR) and _intersects(p, q, i + 1, j, memo, seg))
    elif i == len(p) or j == len(q):
        out = i == len(p) and j == len(q)
    else:
        out = _same_char(p[i], q[j], seg) and _intersects(p, q, i + 1, j + 1, memo, seg)
    memo[key] = out
    return out


def _same_char(a: str, b: str, seg: bool) -> bool:
    """Whether one character matches ``a`` of ``p`` and ``b`` of ``q`` (``?`` any; with ``seg`` a ``?`` of ``q``
    not the separator)."""
    if seg and b == "?" and a == SEPARATOR:
        return False
    return a == "?" or b == "?" or a == b


def glob_covers(p: str, q: str) -> bool:
    """Whether every string matching glob ``q`` matches glob ``p`` (sufficient check).

    A wildcard of ``q`` can only be absorbed by a ``*`` of ``p`` (``?`` also by
    ``?``); exact for the claim and ARN shapes graphkit meets.

    >>> glob_covers("repo:acme/*", "repo:acme/app:ref:refs/heads/*"), glob_covers("repo:acme/app:ref:refs/heads/main", "repo:acme/app:ref:refs/heads/*")
    (True, False)
    """
    return _covers(p, q, 0, 0, {})


def _covers(p: str, q: str, i: int, j: int, memo: dict[tuple[int, int], bool]) -> bool:
    """:func:`glob_covers` from ``p[i:]``, ``q[j:]`` (as :func:`_intersects`)."""
    key = (i, j)
    if key in memo:
        return memo[key]
    if i == len(p):
        out = j == len(q)
    elif p[i] == "*":
        out = _covers(p, q, i + 1, j, memo) or (j < len(q) and _covers(p, q, i, j + 1, memo))
    elif j == len(q) or q[j] == "*":
        out = False
    elif p[i] == "?":
        out = _covers(p, q, i + 1, j + 1, memo)
    elif q[j] == "?":
        out = False
    else:
        out = p[i] == q[j] and _covers(p, q, i + 1, j + 1, memo)
    memo[key] = out
    return out
