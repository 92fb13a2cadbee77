"""``graphkit.iam.globs``' pattern comparisons (module-level memoised recursion, no closure: no reference cycle per
call) equal the closure-based reference they replaced, on random patterns over a small alphabet."""

from __future__ import annotations

import functools
import random

from graphkit.iam.globs import glob_covers, glob_intersects


def reference_intersects(p: str, q: str) -> bool:
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


def reference_covers(p: str, q: str) -> bool:
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


def test_pattern_comparisons_equal_the_reference():
    rng = random.Random(19)
    outcomes = set()
    for _ in range(20_000):
        p = "".join(rng.choice("ab*?") for _ in range(rng.randint(0, 7)))
        q = "".join(rng.choice("ab*?") for _ in range(rng.randint(0, 7)))
        got = (glob_intersects(p, q), glob_covers(p, q))
        assert got == (reference_intersects(p, q), reference_covers(p, q)), (p, q)
        outcomes.add(got)
    assert outcomes == {(True, True), (True, False), (False, False)}
