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

