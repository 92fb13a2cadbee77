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

__all__ = ["glob_match", "glob_intersects", "glob_covers"]


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


def glob_intersects(p: str, q: str) -> bool:
    """Whether some string matches both globs ``p`` and ``q`` (case-sensitive).

    >>> glob_intersects("repo:acme/app:*", "repo:acme/*:pull_request"), glob_intersects("a*", "b*")
    (True, False)
    """
    return _intersects(p, q, 0, 0, {})


def _intersects(p: str, q: str, i: int, j: int, memo: dict[tuple[int, int], bool]) -> bool:
    """:func:`glob_intersects` from ``p[i:]``, ``q[j:]`` (``memo``: the states already decided; a module-level
    function, not a closure, so that a call leaves no reference cycle for the collector)."""
    key = (i, j)
    if key in memo:
        return memo[key]
    if i == len(p) and j == len(q):
        out = True
    elif i < len(p) and p[i] == "*":
        out = _intersects(p, q, i + 1, j, memo) or (j < len(q) and (
            _intersects(p, q, i, j + 1, memo) if q[j] != "*" else
            (_intersects(p, q, i, j + 1, memo) or _intersects(p, q, i + 1, j, memo))))
    elif j < len(q) and q[j] == "*":
        out = _intersects(p, q, i, j + 1, memo) or (i < len(p) and _intersects(p, q, i + 1, j, memo))
    elif i == len(p) or j == len(q):
        out = False
    else:
        out = (p[i] == "?" or q[j] == "?" or p[i] == q[j]) and _intersects(p, q, i + 1, j + 1, memo)
    memo[key] = out
    return out


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
