"""Literal credentials of a CI file and their removal from what is built of it (shared by the CI sources).

:func:`literal_credentials` finds them (:func:`graphkit.redact.find_credentials`) with their place;
:func:`scrub` replaces their values in every node and edge of a built graph.  Used by ``github_actions`` and
``gitlab_ci``: a value written in a workflow or a ``.gitlab-ci.yml`` is never stored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from graphkit.graph import GraphBuilder
from graphkit.model import Evidence, LiteralCredential, Workflow
from graphkit.redact import REDACTED, CredentialMatch, find_credentials, fingerprint

__all__ = ["SCRUB_MIN", "literal_credentials", "redact_values", "scrub", "value_fingerprint"]


def literal_credentials(text: str, file: str, repository: str,
                        lines: Mapping[str, int]) -> tuple[tuple[LiteralCredential, ...], frozenset[str]]:
    """Credentials written literally in a workflow or action file's ``text`` (run scripts, ``env``, ``with``...),
    each at its line and the deepest YAML path starting on or before it, and their values (for :func:`scrub`
    only: never stored).

    >>> [(c.kind, c.evidence.line, c.evidence.yaml_path) for c in literal_credentials(
    ...     "env:\\n  T: ghp_" + "A1b2" * 9 + "\\n", "ci.yml", "acme/app", {"": 1, "env": 1, "env.T": 2})[0]]
    [('GitHub Token', 2, 'env.T')]
    """
    found = find_credentials(text)
    if not found:
        return (), frozenset()
    by_line = sorted((ln, len(p), p) for p, ln in lines.items())
    out = []
    for m in found:
        before = [p for ln, _, p in by_line if ln <= m.line]
        out.append(LiteralCredential(kind=m.kind, fingerprint=value_fingerprint(text, m), evidence=Evidence(
            file=file, repository=repository, line=m.line, yaml_path=(before[-1] if before else None) or None)))
    return tuple(out), frozenset(text[m.start:m.end] for m in found)


def value_fingerprint(text: str, match: CredentialMatch) -> str:
    """The keyed fingerprint of the secret value of ``match`` in ``text``: a URL's password, never its user name
    (``https://oauth2:VALUE@host`` and ``https://ci:VALUE@host`` are the value ``VALUE`` written bare: one value
    to rotate, one finding); any other match's whole text (``match.fingerprint``).  RFC 3986 section 3.2.1:
    userinfo is ``user:password`` (https://www.rfc-editor.org/rfc/rfc3986#section-3.2.1).

    >>> t = "a: https://oauth2:hunter2hunter2@example.test/x"
    >>> value_fingerprint(t, find_credentials(t)[0]) == fingerprint(b"hunter2hunter2")
    True
    """
    found = text[match.start:match.end]
    if match.kind == "URL credential" and text.endswith("://", 0, match.start) and ":" in found:
        return fingerprint(found.split(":", 1)[1].encode("utf-8", "replace"))
    return match.fingerprint


#: Shortest value :func:`scrub` replaces (shorter ones would hit ordinary text).
SCRUB_MIN = 6


def scrub(out: GraphBuilder, values: Iterable[str]) -> GraphBuilder:
    """``out`` with every occurrence of ``values`` (literal credentials of the files; also lower-cased, as ids
    lower-case some names) in any node or edge field replaced by :data:`graphkit.redact.REDACTED` and the value's
    keyed fingerprint (:func:`graphkit.redact.fingerprint`): a matrix value, an input default or an environment
    URL that holds one is never stored, and two ids that differ by the credential they hold (two jobs keyed by
    two token-shaped names) stay two ids.  ``out`` itself when no node or edge holds one.

    >>> b = GraphBuilder(); _ = b.node(Workflow(id="workflow:a/b/w.yml", name="x-SECRET123", repository="a/b", path="w.yml"))
    >>> [n.name for n in scrub(b, {"SECRET123"}).nodes.values()] == [f"x-***{fingerprint(b'SECRET123')}"]
    True
    """
    vals = sorted({v for s in values if len(s) >= SCRUB_MIN for v in (s, s.lower())}, key=len, reverse=True)
    if not vals:
        return out
    rx = re.compile("|".join(map(re.escape, vals)))
    dirty = [n for n in out.nodes.values() if rx.search(n.model_dump_json(exclude_unset=True))]
    dirty_edges = [e for e in out.edges.values() if rx.search(e.model_dump_json(exclude_unset=True))]
    if not dirty and not dirty_edges:
        return out
    marks = {v: REDACTED + fingerprint(v.encode("utf-8", "replace")) for v in vals}

    def mark(m: re.Match[str]) -> str:
        return marks[m.group(0)]

    fresh = GraphBuilder()
    for n in out.nodes.values():
        text = n.model_dump_json(exclude_unset=True)
        fresh.node(type(n).model_validate_json(rx.sub(mark, text)) if rx.search(text) else n)
    for e in out.edges.values():
        text = e.model_dump_json(exclude_unset=True)
        fresh.add_edge(type(e).model_validate_json(rx.sub(mark, text)) if rx.search(text) else e)
    return fresh


def redact_values(text: str, values: Iterable[str]) -> str:
    """``text`` with every occurrence of ``values`` (as :func:`scrub` picks them) replaced by ``***``.

    >>> redact_values("bad extends https://u:s3cr3tPassw0rd@x", {"s3cr3tPassw0rd"})
    'bad extends https://u:***@x'
    """
    vals = sorted({v for s in values if len(s) >= SCRUB_MIN for v in (s, s.lower())}, key=len, reverse=True)
    return re.sub("|".join(map(re.escape, vals)), REDACTED, text) if vals else text
