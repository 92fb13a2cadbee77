"""The one error hierarchy.  Only the CLI turns these into messages and exit codes."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

__all__ = ["GraphkitError", "InputError", "LimitExceeded", "GraphFileError", "UnknownNodeError", "shown_place",
           "shown_reason"]


class GraphkitError(Exception):
    """Base of every graphkit error."""


class InputError(GraphkitError):
    """One input file (or one place in it) could not be used.

    Attributes: ``file`` (path as given), ``place`` (YAML/JSON path or
    ``line N``, may be empty), ``reason``.  Parsers raise it; ingestors also
    collect instances as the non-fatal problems of a partial build.
    """

    def __init__(self, file: str, place: str, reason: str) -> None:
        place, reason = shown_place(place), shown_reason(reason)
        self.file, self.place, self.reason = file, place, reason
        super().__init__(f"{file}{': ' + place if place else ''}: {reason}")

    def as_dict(self) -> dict[str, str]:
        """``{"file", "place", "reason"}``."""
        return {"file": self.file, "place": self.place, "reason": self.reason}


class LimitExceeded(GraphkitError):
    """A value of the input is past a limit of :mod:`graphkit.limits` (e.g.
    :class:`graphkit.model.ids.IdTooLong`): the input's fault, never a defect, even where a source did not expect
    it (:func:`graphkit.ingestor.unexpected` reports it as what it is)."""


def _cap() -> int:
    from graphkit import limits  # imported here: graphkit.limits imports this module
    return limits.latest().max_identifier_chars


def _redacted(text: str) -> str:
    """``text`` with every literal credential (a token-shaped key or value, a URL's userinfo) written ``***``
    (:func:`graphkit.redact.redact_text`): a problem names the place, never a secret found there."""
    from graphkit.redact import redact_text

    return redact_text(text) if text else text


def shown_reason(reason: str) -> str:
    """``reason`` with every literal credential written ``***`` and every run of more than ``max_identifier_chars``
    non-blank characters (an over-long value a message quotes) written ``<N characters>``: a problem never carries
    a secret or an over-long value (it may be a secret).

    >>> shown_reason("bad Arn 'arn:aws:iam::1:role/x'")
    "bad Arn 'arn:aws:iam::1:role/x'"
    >>> shown_reason("bad Arn " + "x" * 5000)
    'bad Arn <5000 characters>'
    >>> shown_reason("bad url https://bot:hunter2hunter2@example.test/x")
    'bad url https://***@example.test/x'
    """
    reason = _redacted(reason)
    cap = _cap()
    if len(reason) <= cap:
        return reason
    return re.sub(r"\S{%d,}" % (cap + 1), lambda m: f"<{len(m.group())} characters>", reason)


def shown_place(place: str) -> str:
    """``place`` (a YAML/JSON path, keys joined by ``.``) as a problem shows it: a key longer than the
    ``max_identifier_chars`` limit (:mod:`graphkit.limits`), e.g. a GitLab job named by 1 MB of text, is written
    ``<key of N characters>``, and a place still longer than the limit ``<place of N characters>``: a problem
    never quotes an over-long value (it may be a secret) and stays small.

    >>> shown_place("jobs.build.runs-on")
    'jobs.build.runs-on'
    >>> shown_place("x" * 5000 + ".script")
    '<key of 5000 characters>.script'
    """
    place = _redacted(place)
    cap = _cap()
    if len(place) <= cap:
        return place
    place = ".".join(k if len(k) <= cap else f"<key of {len(k)} characters>" for k in place.split("."))
    return place if len(place) <= cap else f"<place of {len(place)} characters>"


class GraphFileError(GraphkitError):
    """A saved graph file could not be read."""

    def __init__(self, file: str, reason: str) -> None:
        self.file, self.reason = file, reason
        super().__init__(f"{file}: {reason}")


class UnknownEdgeError(GraphkitError, KeyError):
    """An edge (kind, source, target and key when given) is not in the graph."""


class UnknownNodeError(GraphkitError, KeyError):
    """A node id (or, with ``what``, another name such as a repository's ``owner/name``) is not in the graph;
    ``suggestions`` holds close ones of ``known``."""

    def __init__(self, node_id: str, known: Iterable[str], *, what: str = "node with id") -> None:
        known = list(known)
        self.node_id = node_id
        self.suggestions = closest(node_id, known)
        if not self.suggestions:
            low = node_id.lower()
            self.suggestions = sorted(k for k in known if low in k.lower())[:5]
        hint = f"; did you mean: {', '.join(self.suggestions)}" if self.suggestions else ""
        super().__init__(f"no {what} {node_id!r}{hint}")

    def __str__(self) -> str:  # KeyError would repr() the message
        return self.args[0]


def closest(name: str, known: Iterable[str], n: int = 5, cutoff: float = 0.5) -> list[str]:
    """The ``n`` names of ``known`` closest to ``name`` (:class:`difflib.SequenceMatcher` ratio of the lower-cased
    texts, at least ``cutoff``), closest first, then by name: ``runner:acme/BUILD-01-A`` suggests
    ``runner:acme/build-01-a`` before ``runner:acme/build-01-b``.

    >>> closest("runner:acme/BUILD-01-A", ["runner:acme/build-01-b", "runner:acme/build-01-a", "x"])
    ['runner:acme/build-01-a', 'runner:acme/build-01-b']
    """
    import heapq

    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(name.lower())
    scored = []
    for k in known:
        matcher.set_seq1(k.lower())
        if matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff:
            ratio = matcher.ratio()
            if ratio >= cutoff:
                scored.append((-ratio, k))
    return [k for _, k in heapq.nsmallest(n, scored)]
