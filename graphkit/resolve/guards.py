"""The documented rules about untrusted and writers' runs (``graphkit/data/untrusted_guards.json``), read once.

Shared by :mod:`graphkit.resolve.untrusted` (outsiders' entry points) and :mod:`graphkit.resolve.writers` (what
whoever writes a repository runs); edges carry the ids of the rules that decided them (prop ``guards``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from typing import NamedTuple

from graphkit.model import IfVerdict

__all__ = ["Guard", "guards", "if_verdict", "named", "outsider_never_causes"]


class Guard(NamedTuple):
    """One documented rule about untrusted runs: ``id``, ``rule`` (what it says), ``source`` (URL), ``date``
    (when it took effect or was last checked, ``YYYY-MM-DD``)."""

    id: str
    rule: str
    source: str
    date: str


def _data() -> dict:
    return json.loads(resources.files("graphkit.data").joinpath("untrusted_guards.json").read_text("utf-8"))


@lru_cache(maxsize=1)
def guards() -> dict[str, Guard]:
    """The rules of ``graphkit/data/untrusted_guards.json`` by id."""
    return {g["id"]: Guard(**g) for g in _data()["guards"]}


@lru_cache(maxsize=1)
def outsider_never_causes() -> frozenset[str]:
    """The events an outsider's activity never causes a run of (``outsider_never_causes`` of
    ``graphkit/data/untrusted_guards.json``: write access, a dispatch or the schedule)."""
    return frozenset(_data()["outsider_never_causes"]["events"])


def named(*names: str) -> list[str]:
    """``names`` as a list, each the id of a rule of the data file (asserted: a typo is a bug, not a guard)."""
    known = guards()
    assert all(n in known for n in names), names
    return list(names)


def if_verdict(verdicts: Sequence[IfVerdict], event: str) -> IfVerdict | None:
    """What an ``if`` means for an outsider's run of ``event`` (:class:`~graphkit.model.IfVerdict`), if said."""
    return next((v for v in verdicts if v.event == event), None)
