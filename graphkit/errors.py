"""The one error hierarchy.  Only the CLI turns these into messages and exit codes."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

__all__ = ["SCAN_GAP", "GraphkitError", "InputError", "LimitExceeded", "GraphFileError", "UnknownNodeError", "shown_place",
           "shown_reason", "validation_path", "validation_place", "validation_problems", "validation_reason", "validation_summary"]


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


#: The part of a pydantic ``ValidationError``'s text that quotes the value (``[type=..., input_value='...',
#: input_type=str]``), and its documentation line.
_PYDANTIC_INPUT = re.compile(r" ?\[type=[^,\]]*, input_value=.*?, input_type=[\w.]+\]|\n? *For further information "
                             r"visit https://errors\.pydantic\.dev/\S*", re.S)


def shown_reason(reason: str) -> str:
    """``reason`` with every literal credential written ``***`` and every run of more than ``max_identifier_chars``
    non-blank characters (an over-long value a message quotes) written ``<N characters>``: a problem never carries
    a secret or an over-long value (it may be a secret).  A pydantic error's text quoted whole (``{exc}``) loses
    its ``input_value=...`` (see :func:`validation_reason` for the way to word one).

    >>> shown_reason("bad Arn 'arn:aws:iam::1:role/x'")
    "bad Arn 'arn:aws:iam::1:role/x'"
    >>> shown_reason("bad Arn " + "x" * 5000)
    'bad Arn <5000 characters>'
    >>> shown_reason("bad url https://bot:hunter2hunter2@example.test/x")
    'bad url https://***@example.test/x'
    >>> shown_reason("a\\n  Input should be a valid integer [type=int_parsing, input_value='s3cr3t', input_type=str]")
    'a\\n  Input should be a valid integer'
    """
    if "input_value=" in reason or "errors.pydantic.dev" in reason:
        reason = _PYDANTIC_INPUT.sub("", reason)
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


# --------------------------------------------------------------------------- pydantic validation errors
# Every pydantic ``ValidationError`` graphkit turns into a problem or a message goes through these: the place is
# the error's location, the reason its message, both redacted (shown_place, shown_reason); the error's ``input``
# (the value, maybe a secret) and ``str(exc)`` (which quotes it) are never used.


def _no_branch(part: Any) -> bool:
    return False


def validation_path(loc: Sequence[Any], prefix: str = "", branch: Callable[[Any], bool] = _no_branch) -> str:
    """A pydantic error location (``("runners", 3, "labels")``) as the YAML/JSON path it names under ``prefix``
    (``runners[3].labels``), as written in the file (to look up its line; a problem shows
    :func:`validation_place`).  ``schema_`` is written ``schema`` (its alias); ``branch(part)`` true drops a
    union branch tag.

    >>> validation_path(("tokens", 0, "issued_at"))
    'tokens[0].issued_at'
    >>> validation_path(("status",), "scopes[1]")
    'scopes[1].status'
    """
    out = prefix
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not branch(part):
            out += ("." if out else "") + ("schema" if part == "schema_" else str(part))
    return out


def validation_place(loc: Sequence[Any], prefix: str = "", branch: Callable[[Any], bool] = _no_branch) -> str:
    """:func:`validation_path` as a problem shows it (:func:`shown_place`: a token-shaped key is ``***``).

    >>> validation_place(("tokens", 0, "ghp_" + "A1b2" * 9))
    'tokens[0].***'
    """
    return shown_place(validation_path(loc, prefix, branch))


def validation_reason(error: Any) -> str:
    """The reason of one pydantic error (an item of ``exc.errors()``): ``required field missing`` or its message,
    never its input value, written as a problem shows it (:func:`shown_reason`)."""
    return shown_reason("required field missing" if error["type"] == "missing" else str(error["msg"]))


def validation_problems(file: str, exc: Any, prefix: str = "") -> list[InputError]:
    """One :class:`InputError` per error of a pydantic ``ValidationError`` ``exc`` (place under ``prefix`` and
    reason, see :func:`validation_place` and :func:`validation_reason`; never the value)."""
    return [InputError(file, validation_place(tuple(e["loc"]), prefix), validation_reason(e))
            for e in exc.errors(include_url=False)]


def validation_summary(exc: Any) -> str:
    """A pydantic ``ValidationError`` in one line: its first error's place and reason, and how many more
    (``nodes[0].kind: Input should be ... (and 2 more)``; never the value).

    >>> from pydantic import TypeAdapter, ValidationError
    >>> try:
    ...     TypeAdapter(dict[str, int]).validate_python({"ghp_" + "A1b2" * 9: "x", "b": "y"})
    ... except ValidationError as exc:
    ...     validation_summary(exc)
    '***: Input should be a valid integer, unable to parse string as an integer (and 1 more)'
    """
    errors = exc.errors(include_url=False)
    if not errors:
        return "invalid value"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{validation_place(tuple(errors[0]['loc'])) or 'value'}: {validation_reason(errors[0])}{more}"


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


#: How the problem of a host snapshot whose scan left paths unread begins (the runner inventory reader makes it
#: for ``build``; ``graphkit diff`` reads those gaps from the snapshot itself and leaves the problem out).
SCAN_GAP = "the scan of this host did not search or read"
