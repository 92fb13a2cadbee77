"""Three-valued (Kleene) logic: ``True`` (decided), ``False`` (decided), ``None`` (depends on an unknown).

Graph confidence follows: ``True`` -> ``certain``, ``None`` -> ``possible``,
``False`` -> no edge.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["Tri", "and3", "or3", "not3"]

#: Three-valued truth: True, False, or None (unknown).
Tri = bool | None


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

