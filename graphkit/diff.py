"""Snapshot diff: runners, registrations, credentials and caches that appeared, changed or disappeared.

``graphkit diff OLD NEW`` compares two host or inventory snapshots (any file
the ``runners`` ingestor reads: a ``graphkit collect host`` output or an org
inventory, or a saved ``graphkit.graph/v1`` file).  A **new enrollment** (a
runner registration that was not there before, or one re-registered: new
agent id, URL or registration credential) is the high-signal event of runner
persistence (``shared/docs/semantics.md`` §7).

Snapshots are read through the ingestor registry (the core never imports
``ingest``).  Comparison is pure (:func:`diff_graphs`): node ids are stable,
so the same runner, credential or cache has the same id in both; only
declared fields are compared (:data:`TRACKED`), fingerprints included -- a
changed fingerprint means the file was rotated or replaced.  No secret value
is ever part of a snapshot, so none can appear in a diff.

Output contract: ``graphkit.diff/v1`` (:func:`diff_document`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphkit.errors import SCAN_GAP, GraphkitError, InputError
from graphkit.findings import SEVERITY_ORDER, Severity
from graphkit.graph import Graph
from graphkit.model import Credential, Node, NodeKind, Runner

__all__ = ["DIFF_SCHEMA", "TRACKED", "Change", "diff_document", "diff_graphs", "dropped_nodes", "load_snapshot",
           "unread_places"]

DIFF_SCHEMA = "graphkit.diff/v1"

#: Fields compared per node kind (registration fields are compared one by one as ``registration.<field>``).
TRACKED: dict[NodeKind, tuple[str, ...]] = {
    NodeKind.HOST: ("os", "ephemeral"),
    NodeKind.RUNNER: ("scope", "platform", "host", "ephemeral", "runner_group", "labels", "registration"),
    NodeKind.CREDENTIAL: ("credential_type", "host", "path", "fingerprint", "lifetime", "grants", "readable_by"),
    NodeKind.CACHE: ("cache_type", "path"),
}
#: Runner fields whose change means the registration itself was replaced (a new enrollment).
_REENROLL = {"scope", "registration.url", "registration.agent_id", "registration.credential_fingerprint",
             "registration.config_path", "registration.runs_as_root", "registration.user", "registration.service"}
_REGISTRATION_CREDENTIALS = {"runner", "gitlab-runner"}
#: Reasons a host scan's search stopped short (``scan.skip_counts`` of a host snapshot): what lies beyond is unread.
SEARCH_LIMITS = frozenset({"depth limit", "entry limit", "time limit"})


@dataclass(frozen=True)
class Change:
    """One difference between two snapshots.

    ``change``: ``added``, ``removed``, ``changed``, or ``unknown`` (missing from a new snapshot whose scan did
    not read its file).  ``signal``: how much
    it matters (a :class:`~graphkit.findings.Severity`).  ``fields``: for
    ``changed``, ``{field: [old, new]}`` (JSON values).
    """

    change: str
    kind: NodeKind
    id: str
    name: str
    signal: Severity
    message: str
    fields: dict[str, list[Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready ``{change, kind, id, name, signal, message, fields}``."""
        return {"change": self.change, "kind": self.kind.value, "id": self.id, "name": self.name,
                "signal": self.signal.value, "message": self.message, "fields": self.fields}


def load_snapshot(path: str | Path, problems: list[InputError] | None = None) -> Graph:
    """A snapshot file as a graph: a saved graph, else a runner inventory / host snapshot (registry ingestor).

    Parameters
    ----------
    path
        the snapshot file.
    problems
        when a list, a bad entry of the file (a place in it: ``hosts[0].credentials[2].grants[0].target``) is
        appended to it and the rest of the file is used, as ``build`` does (the reader leaves out only the part
        holding the error); when None, the first problem is raised.  A saved graph's own problems
        (``meta.problems``, the places its build left out) are its problems here.

    Raises
    ------
    InputError
        if the file as a whole cannot be used (not a snapshot, invalid JSON or YAML: a problem with no place in
        it), or if a place in it cannot be used and ``problems`` is None.
    GraphFileError
        for a broken saved graph.
    """
    from graphkit import registry

    p = Path(path)
    try:
        head = json.loads(p.read_text(encoding="utf-8")) if p.suffix == ".json" else None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        head = None
    if isinstance(head, dict) and head.get("schema") == "graphkit.graph/v1":
        g = Graph.load(p)
        stored = _stored_problems(g)  # the places its build left out: as a snapshot reader's left-out entries
        if problems is not None:
            problems.extend(stored)
        elif stored:
            raise InputError(stored[0].file, stored[0].place, stored[0].reason + (
                f" (and {len(stored) - 1} more problem(s))" if len(stored) > 1 else ""))
        return g
    result = registry.get("runners").ingest([p])
    # a host whose scan left paths unread is a problem for build; diff reads those gaps from the snapshot itself
    result.problems = [e for e in result.problems if not e.reason.startswith(SCAN_GAP)]
    whole = [e for e in result.problems if not _entry_place(e.place)]
    if problems is not None and not whole:
        problems.extend(result.problems)
    elif result.problems:
        first = (whole or result.problems)[0]
        raise InputError(first.file, first.place, first.reason + (
            f" (and {len(result.problems) - 1} more problem(s))" if len(result.problems) > 1 else ""))
    g = Graph()
    g.update(result.nodes, result.edges)
    return g


#: Sources whose files hold no node :func:`diff_graphs` compares (a workflow, a trust policy, a job history): a
#: file of theirs left out whole hides no runner, host, credential or cache.
_NO_TRACKED_NODES = frozenset({"github-actions", "gitlab-ci", "aws-iam", "github-history"})


def _stored_problems(g: Graph) -> list[InputError]:
    """A saved graph's own problems (``meta.problems``: the places its build left out), as reader problems."""
    return [InputError(p.file, p.place, p.reason) for p in g.meta.problems]


def _whole_files_left_out(g: Graph) -> list[str]:
    """Files a saved graph's build left out whole (a stored problem with no list entry in its place) that may have
    held a compared node: those of every source but :data:`_NO_TRACKED_NODES`'s.  With any, a node missing from
    that graph may be one of them.

    >>> g = Graph()
    >>> g.meta = {"inputs": {"runners": ["inv.yaml"], "github-actions": ["repos"]},
    ...           "problems": [{"file": "inv.yaml", "reason": "not YAML"}, {"file": "repos/w.yml", "reason": "bad"},
    ...                        {"file": "inv.yaml", "place": "runners[2].labels", "reason": "not a list"}]}
    >>> _whole_files_left_out(g)
    ['inv.yaml (the whole file)']
    """
    untracked = [Path(v) for name, values in g.meta.inputs.items() if name in _NO_TRACKED_NODES for v in values]
    return [f"{p.file} (the whole file)" for p in g.meta.problems if _entry_place(p.place) is None
            and not any(Path(p.file) == u or u in Path(p.file).parents for u in untracked)]


#: Top-level lists (and the host lists) whose left-out entry is a node :func:`diff_graphs` compares.
_NODE_LISTS = frozenset({"runners", "hosts", "credentials", "caches"})
_INDEXED = re.compile(r"([A-Za-z_]+)\[\d+\]")


def _entry_place(place: str) -> str | None:
    """The name of the innermost list whose element a reader problem at ``place`` left out (None: no list
    element, the file as a whole).

    >>> _entry_place("hosts[0].credentials[2].grants[0].target"), _entry_place("runners[3].name"), _entry_place("")
    ('grants', 'runners', None)
    """
    found = _INDEXED.findall(place or "")
    return found[-1] if found else None


def dropped_nodes(problems: Iterable[InputError]) -> list[str]:
    """Places of the reader problems that left out a whole node diff compares (a runner, host, credential or
    cache entry), not only a part of one (a grant, a label).

    >>> dropped_nodes([InputError("h.json", "hosts[0].credentials[2].grants[0].target", "bad"),
    ...                InputError("h.json", "runners[1].name", "missing")])
    ['runners[1].name']
    """
    return [p.place for p in problems if _entry_place(p.place) in _NODE_LISTS]


def _value(node: Node, name: str) -> Any:
    v = getattr(node, name)
    if hasattr(v, "model_dump"):
        return v.model_dump(mode="json", exclude_none=True)
    if hasattr(v, "value"):
        return v.value
    if isinstance(v, list):
        return sorted(v)
    return v


def _facts(node: Node) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in TRACKED[node.spec.kind]:
        v = _value(node, name)
        if name == "registration":
            for k, x in (v or {}).items():
                out[f"registration.{k}"] = x
        else:
            out[name] = v
    return out


def _added(node: Node) -> tuple[Severity, str]:
    kind = node.spec.kind
    if isinstance(node, Runner):
        where = f" on {node.host}" if node.host else ""
        root = " running as root" if node.registration and node.registration.runs_as_root else ""
        return Severity.HIGH, f"new runner enrollment {node.scope}/{node.name}{where}{root}"
    if isinstance(node, Credential):
        if node.credential_type in _REGISTRATION_CREDENTIALS:
            return Severity.HIGH, f"new runner registration credential {node.path} on {node.host}"
        if node.credential_type == "literal":  # written in a CI file (graphkit.resolve.literals)
            return Severity.HIGH, f"new {node.literal_kind or 'credential'} written in {node.repository}/{node.path}"
        return Severity.MEDIUM, f"new {node.credential_type} credential {node.path} on {node.host}"
    if kind is NodeKind.CACHE:
        return Severity.LOW, f"new shared cache {node.name}"
    return Severity.INFO, f"new {kind.value} {node.name}"


def _changed(node: Node, fields: dict[str, list[Any]]) -> tuple[Severity, str]:
    names = ", ".join(sorted(fields))
    replaced = {k for k, (before, _) in fields.items() if k in _REENROLL and before is not None}
    if isinstance(node, Runner) and replaced:
        return Severity.HIGH, f"runner {node.scope}/{node.name} re-registered or moved ({names})"
    if fields.get("ephemeral") == [True, False]:  # creates persistence (semantics §2): as a new enrollment
        return Severity.HIGH, (f"{node.spec.kind.value} {node.name} turned persistent (ephemeral: true -> false): "
                               "its future jobs share it")
    if isinstance(node, Credential) and "fingerprint" in fields:
        sev = Severity.HIGH if node.credential_type in _REGISTRATION_CREDENTIALS else Severity.MEDIUM
        return sev, f"{node.credential_type} credential {node.path} rotated or replaced"
    return Severity.LOW, f"{node.spec.kind.value} {node.name} changed ({names})"


def unread_places(path: str | Path) -> dict[str, list[tuple[str, str]]]:
    """What a host snapshot's scan did not read: host name -> ``[(path, reason)]`` (files and folders it skipped,
    e.g. a link out of the scanned root, and paths the scanning user could not read); empty for any other file.
    A registration, credential or cache under one of them is unknown in that snapshot, never gone."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    hosts = doc.get("hosts") if isinstance(doc, dict) else None
    out: dict[str, list[tuple[str, str]]] = {}
    for h in hosts if isinstance(hosts, list) else ():
        scan = h.get("scan") if isinstance(h, dict) else None
        if not isinstance(scan, dict) or not isinstance(h.get("name"), str):
            continue
        places = [(s["path"], str(s.get("reason", "skipped"))) for s in scan.get("skipped") or ()
                  if isinstance(s, dict) and isinstance(s.get("path"), str)]
        places += [(u, "unreadable") for u in scan.get("unreadable") or () if isinstance(u, str)]
        out[h["name"].strip().lower()] = places + _unlisted_limits(scan.get("skip_counts"), places)
    return out


def _unlisted_limits(counts: Any, places: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``[("/", reason)]`` for each search limit a snapshot's ``skip_counts`` counts but its (bounded) ``skipped``
    list names no folder of: the whole host is then partly unread.

    >>> _unlisted_limits({"depth limit": 3, "pseudo filesystem": 2}, [])
    [('/', 'depth limit (3 not listed)')]
    """
    listed = {r for _, r in places}
    return [("/", f"{r} ({n} not listed)") for r, n in sorted((counts if isinstance(counts, dict) else {}).items())
            if r in SEARCH_LIMITS and isinstance(n, int) and n > 0 and r not in listed]


def _where(node: Node) -> tuple[str | None, str | None]:
    """``(host, path)`` a host scan would have read ``node`` from (None: not a file of a host)."""
    reg = getattr(node, "registration", None)
    path = getattr(node, "path", None) or (reg.config_path if reg is not None else None)
    host = getattr(node, "host", None)
    if host is None and node.spec.kind is NodeKind.CACHE and path:  # cache:host:{hostname}:{path}
        host = node.id.split(":", 3)[2] if node.id.startswith("cache:host:") else None
    return (host.strip().lower() if isinstance(host, str) else None), path


def _not_read(node: Node, unread: dict[str, list[tuple[str, str]]]) -> str | None:
    """Why the new scan did not read ``node``'s file (a skipped or unreadable path at or above it), or None.  A
    runner is found by searching the whole host: when the new scan's search stopped at a limit
    (:data:`SEARCH_LIMITS`), a runner missing from it may have moved below that limit, so it is not read either."""
    host, path = _where(node)
    places = unread.get(host or "", ())
    for place, reason in places:
        if path == place or (path or "").startswith(place.rstrip("/") + "/"):
            return f"{place}: {reason}"
    if node.spec.kind is NodeKind.RUNNER:
        for place, reason in places:
            if reason.split(" (")[0] in SEARCH_LIMITS:
                return f"the search stopped at a limit, e.g. {place}: {reason}; the runner may lie there"
    return None


def diff_graphs(old: Graph, new: Graph, unread: dict[str, list[tuple[str, str]]] | None = None,
                left_out: list[str] | None = None, *, unread_old: dict[str, list[tuple[str, str]]] | None = None,
                left_out_old: list[str] | None = None) -> list[Change]:
    """What appeared, changed or disappeared between two snapshots (pure).

    Parameters
    ----------
    old, new : Graph
        the two snapshots.
    unread : dict, optional
        what the new snapshot's scan did not read (:func:`unread_places`): a node missing from ``new`` whose file
        lies there is ``unknown`` (the scan could not see it), never ``removed``; an ``unknown`` node leaving a
        list of another (a credential's ``readable_by``) is no change of it.
    left_out : list of str, optional
        places of entries the new snapshot's reader left out (:func:`dropped_nodes`): with any, a node missing from
        ``new`` is ``unknown`` (it may be one of them), never ``removed``.
    unread_old, left_out_old : optional
        the same for the old snapshot: a node in ``new`` whose place the old scan did not read, or any node in
        ``new`` when the old reader left entries out, may have been there before, so it is ``unknown``, never
        ``added`` (a new enrollment is a high signal; a scan gap in the old snapshot is not one).

    Returns
    -------
    list of Change
        hosts, runners, credentials and caches (:data:`TRACKED`), ordered by
        signal (high first), then kind, then id.  Added runners are ``high``
        (new enrollment), and so are changes that replace a registration
        (:data:`_REENROLL` fields that had a value) and new or changed registration
        credentials; other credentials ``medium``; new caches, other changes and every removal ``low``; a new
        host ``info``.

    Examples
    --------
    >>> from graphkit.model import Evidence, Runner
    >>> a, b = Graph(), Graph()
    >>> _ = b.add_node(Runner(id="runner:evil/x", name="x", scope="evil", host="h1", evidence=[Evidence(file="h.json")]))
    >>> [(c.change, c.id, c.signal.value) for c in diff_graphs(a, b)]
    [('added', 'runner:evil/x', 'high')]
    """
    def index(g: Graph) -> dict[str, Node]:
        return {n.id: n for kind in TRACKED for n in g.nodes(kind) if not n.inferred}

    before, after = index(old), index(new)
    changes: list[Change] = []
    for nid in sorted(after.keys() - before.keys()):
        n = after[nid]
        why = _why_unread(n, unread_old, left_out_old, "old")
        if why is not None:  # it may have been there: the old scan could not see its place
            changes.append(Change("unknown", n.spec.kind, nid, n.name, Severity.MEDIUM,
                                  f"{n.spec.kind.value} {n.name} is in the new scan; the old scan did not read it "
                                  f"({why}), so whether it is new is unknown"))
            continue
        sig, msg = _added(n)
        changes.append(Change("added", n.spec.kind, nid, n.name, sig, msg))
    for nid in sorted(before.keys() - after.keys()):
        n = before[nid]
        why = _why_unread(n, unread, left_out, "new")
        if why is not None:  # a scope that could not be read is unknown, never empty
            changes.append(Change("unknown", n.spec.kind, nid, n.name, Severity.MEDIUM,
                                  f"{n.spec.kind.value} {n.name} was not read by the new scan ({why})"))
            continue
        # every removal is low (README): a runner, credential, host or cache that went may be cleanup, or an
        # attacker clearing a poisoned cache or their traces; a responder lists them, below what was added
        changes.append(Change("removed", n.spec.kind, nid, n.name, Severity.LOW,
                              f"{n.spec.kind.value} {n.name} is gone"))
    unknown = {c.id for c in changes if c.change == "unknown"}
    for nid in sorted(before.keys() & after.keys()):
        a, b = _facts(before[nid]), _facts(after[nid])
        fields = {k: [a.get(k), b.get(k)] for k in sorted(a.keys() | b.keys())
                  if _known(a.get(k), unknown) != _known(b.get(k), unknown)}
        if fields:
            sig, msg = _changed(after[nid], fields)
            changes.append(Change("changed", after[nid].spec.kind, nid, after[nid].name, sig, msg, fields))
    kind_rank = {k: i for i, k in enumerate(NodeKind)}
    return sorted(changes, key=lambda c: (SEVERITY_ORDER[c.signal], kind_rank[c.kind], c.id))


def _why_unread(node: Node, unread: dict[str, list[tuple[str, str]]] | None, left_out: list[str] | None,
                which: str) -> str | None:
    """Why ``which`` ("old"/"new") snapshot's scan may not have seen ``node`` (its place unread, or entries its
    reader left out), or None."""
    why = _not_read(node, unread or {})
    if why is None and left_out:
        more = f" and {len(left_out) - 1} more" if len(left_out) > 1 else ""
        why = f"the {which} snapshot's entries at {left_out[0]}{more} could not be read"
    return why


def _known(value: Any, unknown: set[str]) -> Any:
    """A fact without the nodes the new scan did not read (``readable_by`` naming an ``unknown`` runner): whether
    such a node is still there is unknown, so its leaving a list is no change.

    >>> _known(["runner:a/x", "runner:b/y"], {"runner:a/x"}), _known("x", {"x"})
    (['runner:b/y'], 'x')
    """
    return [x for x in value if x not in unknown] if isinstance(value, list) and unknown else value


def diff_document(changes: Iterable[Change], old: str, new: str) -> dict[str, Any]:
    """``{"schema": "graphkit.diff/v1", "old", "new", "counts": {signal: n}, "changes": [...]}``."""
    items = [c.to_dict() for c in changes]
    counts: dict[str, int] = {}
    for c in items:
        counts[c["signal"]] = counts.get(c["signal"], 0) + 1
    return {"schema": DIFF_SCHEMA, "old": old, "new": new, "counts": counts, "changes": items}


def diff_files(old: str | Path, new: str | Path, problems: list[InputError] | None = None) -> list[Change]:
    """:func:`diff_graphs` of two snapshot files (:func:`load_snapshot`).

    ``problems``: when a list, the bad entries of either file are appended to it and the rest is compared (a
    node the new file's reader may have left out is ``unknown``, never ``removed``; one the old file's reader may
    have left out is ``unknown``, never ``added``); when None, the first is raised.

    Raises
    ------
    GraphkitError
        (``InputError``, ``GraphFileError``) when a snapshot cannot be read at all, or (``problems`` None) in full.
    """
    try:
        theirs: list[InputError] | None = None if problems is None else []
        older = load_snapshot(old, theirs)
        mine: list[InputError] | None = None if problems is None else []
        newer = load_snapshot(new, mine)
        if problems is not None:
            problems.extend([*(theirs or ()), *(mine or ())])
        return diff_graphs(older, newer, unread_places(new), dropped_nodes(mine or ()) + _whole_files_left_out(newer),
                           unread_old=unread_places(old),
                           left_out_old=dropped_nodes(theirs or ()) + _whole_files_left_out(older))
    except OSError as exc:  # pragma: no cover - the ingestor reports unreadable files as problems
        raise GraphkitError(str(exc)) from None
