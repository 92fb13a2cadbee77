"""Sync a graphkit graph into Neo4j: idempotent upserts, then stale-data removal scoped to complete sources.

Steps of :func:`sync_graph`, every statement generated from the model by
:func:`graphkit.neo4j.statements.statements`:

1. a uniqueness constraint on ``id`` for every label and an index on the
   common label ``Graphkit`` (``IF NOT EXISTS``); nodes written by an older
   graphkit get the common label;
2. nodes, two statements per node kind (create the missing ones, set
   properties; see :mod:`graphkit.neo4j.statements`), in batches of
   ``UNWIND $rows``, each node with its kind's label and ``Graphkit``;
3. relationships, one statement per (source kind, edge kind, target kind),
   each row's MERGE written from the endpoint with fewer relationships of its
   type (:func:`from_target`: ArcadeDB walks the first node's);
4. stale-data removal: what carries an older update tag and came only from
   sources read **completely** in this sync is deleted; anything that a
   partially read source (a skipped file, a 403) may still hold stays (a
   database that held no graphkit node before the sync is not scanned).  It
   never deletes another set of inputs' data unasked: before writing, a sync
   that would clean up compares each complete source's input paths (absolute: :func:`input_set`) with those
   the database recorded for it (the bookkeeping node's ``inputs_json``, each
   source's paths of the last sync that read it); when they differ (and, for a
   source reading repositories, none of its repositories is in the database:
   a moved checkout of the same repositories is the same inputs), or the
   database holds graphkit data but no record, :class:`OtherInputsError` is
   raised and nothing is written, unless ``replace`` (``--replace``);
5. the bookkeeping node (:data:`~graphkit.neo4j.statements.SYNC_LABEL`) with
   this sync's tag, sources and input problems (``skipped``: every problem as
   ``file place: reason``; ``skipped_by_source``: each as ``source: file place:
   reason`` under the source it belongs to, :func:`problem_sources`).

Every write runs in a managed transaction (``Session.execute_write``), which
the driver retries on transient errors and lost connections; a write that a
concurrent sync made fail on a uniqueness constraint (both created the same
node) is run again too (:func:`write_retrying`); MERGE makes a re-run after an
interruption converge, and removal only runs once every write succeeded.

Concurrent syncs
----------------
Two syncs may run into one database at once (two schedulers, a retried job).
Both create-if-missing the same nodes: the one that commits second fails on
the uniqueness constraint and its batch is run again (:func:`write_retrying`).
Everything is stamped with the newer of its tag and the sync's, and stale
removal takes only *older* tags, so the older sync never removes what the newer
one wrote, nor the newer one what both wrote; the bookkeeping node keeps the
newest sync's.

Provenance
----------
A node or relationship's sources are derived from its evidence and
``graph.meta``: evidence whose ``file`` is (or lies under) an input path of a
source in ``graph.meta.inputs`` belongs to that source; evidence relative
to a repository checkout (``repository`` set) belongs to the sources none of
whose evidence matched an input path; any other evidence (an API object, a
built-in policy) and an item without evidence belong to every source.  A
source that read nothing (``items`` 0: every file of it skipped) is none of
those: it produced nothing, and holds no node.  An
item of several sources is removable only when all of them were complete
(unknown provenance keeps data: it is never removed for a source that did
not produce it).  A graph without ``meta.sources`` removes nothing.
"""

from __future__ import annotations

import json
import posixpath
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphkit.errors import GraphkitError
from graphkit.graph import Graph
from graphkit.meta import GraphMeta
from graphkit.model import EDGE_SPECS, NODE_TYPES, EdgeKind, Evidence, NodeKind
from graphkit.neo4j.props import RecordProps, node_props
from graphkit.neo4j.statements import (
    COMMON_LABEL, SOURCES, SYNC_ID, UPDATE_TAG, Statements, label_of, read_statements, rel_type_of, statements,
)

if TYPE_CHECKING:  # pragma: no cover
    import neo4j

__all__ = ["OtherInputsError", "SyncResult", "input_set", "with_roots", "other_inputs", "sync_graph", "sync_size", "provenance",
           "problem_sources", "database_counts", "from_target", "write_retrying", "DEFAULT_BATCH_SIZE",
           "CONSTRAINT_ATTEMPTS"]

DEFAULT_BATCH_SIZE = 1000
#: ``progress(advance, description)``, as for ingestors.
Progress = Callable[[int, str], None]


@dataclass
class SyncResult:
    """What a sync did.

    ``nodes`` / ``edges``: items written per node / edge kind value.
    ``removed_nodes`` / ``removed_edges``: stale items deleted per kind value.
    ``complete_sources``: the sources whose stale data could be removed.
    ``seconds``: wall time.
    """

    update_tag: int
    database: str
    nodes: dict[str, int] = field(default_factory=dict)
    edges: dict[str, int] = field(default_factory=dict)
    removed_nodes: dict[str, int] = field(default_factory=dict)
    removed_edges: dict[str, int] = field(default_factory=dict)
    complete_sources: list[str] = field(default_factory=list)
    partial_sources: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, field names as attributes."""
        return {"update_tag": self.update_tag, "database": self.database, "nodes": self.nodes, "edges": self.edges,
                "removed_nodes": self.removed_nodes, "removed_edges": self.removed_edges,
                "complete_sources": self.complete_sources, "partial_sources": self.partial_sources,
                "seconds": round(self.seconds, 3)}


class OtherInputsError(GraphkitError):
    """The database holds data that another set of inputs synced, for a source this sync would clean up: stale
    removal would delete it.  ``changed``: source -> (the paths the database recorded, None when it recorded
    none; this sync's paths)."""

    def __init__(self, changed: dict[str, tuple[list[str] | None, list[str]]]) -> None:
        self.changed = changed
        parts = [f"{name} synced from {', '.join(old) if old else 'inputs the database did not record'}, "
                 f"this sync reads {', '.join(new) if new else 'no input path'}"
                 for name, (old, new) in sorted(changed.items())]
        super().__init__("the database holds data of other inputs (" + "; ".join(parts) + "): this sync's stale-"
                         "data removal would delete it. Sync one organization's inputs per database (--database), "
                         "or pass --replace to replace that data with this sync's")


def input_set(meta: GraphMeta) -> dict[str, list[str]]:
    """What identifies a sync's inputs: source -> its input paths made absolute where the graph was built
    (``graph.meta.input_roots``; for a graph without them, the paths as given, ``graph.meta.inputs``: see
    :func:`with_roots`), normalised and sorted, for every source of ``meta.sources``; a credential in a path (a
    URL's userinfo) is written ``***`` (:func:`graphkit.redact.redact_text`): the database stores them.

    >>> input_set(GraphMeta(sources={"runners": {"complete": True}}, inputs={"runners": ["inv/./a.yaml"]}))
    {'runners': ['inv/a.yaml']}
    >>> input_set(GraphMeta(sources={"runners": {"complete": True}}, inputs={"runners": ["a.yaml"]},
    ...                     input_roots={"runners": ["/org/a.yaml"]}))
    {'runners': ['/org/a.yaml']}
    """
    from graphkit.redact import redact_text
    paths = {**meta.inputs, **meta.input_roots}
    return {name: sorted({_norm(redact_text(str(p))) for p in paths.get(name, [])})
            for name in sorted(meta.sources)}


def with_roots(meta: GraphMeta, graph_file: str | Path) -> None:
    """Give ``meta`` (of a graph file built by a graphkit that did not record ``input_roots``) its inputs made
    absolute against the directory of ``graph_file`` (where ``graphkit build -o FILE`` wrote it: the inputs'
    base for the usual ``cd DIR && graphkit build . -o g.json``); a ``meta`` that has them is left alone."""
    from pathlib import Path

    from graphkit.meta import absolute_inputs
    if not meta.input_roots and meta.inputs:
        meta.input_roots = absolute_inputs(meta.inputs, Path(graph_file).resolve().parent)


def other_inputs(recorded: dict[str, list[str]] | None, current: dict[str, list[str]],
                 cleaned: Iterable[str]) -> dict[str, tuple[list[str] | None, list[str]]]:
    """The sources of ``cleaned`` whose data in the database came from other inputs: those whose ``recorded``
    paths differ from the ``current`` ones; every one when the database recorded nothing (``recorded`` None).

    >>> other_inputs({"runners": ["a.yaml"]}, {"runners": ["b.yaml"], "aws-iam": ["x"]}, ["runners", "aws-iam"])
    {'runners': (['a.yaml'], ['b.yaml'])}
    >>> other_inputs(None, {"runners": ["b.yaml"]}, ["runners"])
    {'runners': (None, ['b.yaml'])}
    """
    if recorded is None:
        return {name: (None, current.get(name, [])) for name in cleaned}
    return {name: (recorded[name], current.get(name, [])) for name in cleaned
            if name in recorded and recorded[name] != current.get(name, [])}


def _recorded_inputs(tx: "neo4j.ManagedTransaction") -> dict[str, list[str]] | None:
    """The bookkeeping node's ``inputs_json`` (None: no such node, or written by a graphkit that did not record
    inputs)."""
    rec = tx.run(read_statements().sync_meta, {"id": SYNC_ID}).single()
    props = rec.get("p") if rec is not None else None
    raw = props.get("inputs_json") if isinstance(props, dict) else None
    return json.loads(raw) if raw else None


# --------------------------------------------------------------------------- provenance


def _norm(path: str) -> str:
    return posixpath.normpath(path.replace("\\", "/"))


def _input_paths(meta: GraphMeta) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, paths in meta.inputs.items():
        norm = []
        for p in paths:
            p = str(p)
            norm.append(_norm(p))
            if "=" in p:  # OWNER/NAME=DIR
                norm.append(_norm(p.rsplit("=", 1)[1]))
        out[name] = norm
    return out


def provenance(graph: Graph) -> tuple[dict[str, list[str]], dict[tuple[str, str, str], list[str]]]:
    """The sources each node and edge came from, derived from evidence and ``graph.meta``.

    Parameters
    ----------
    graph
        a built graph; ``graph.meta.sources`` names the sources read and
        ``graph.meta.inputs`` their input paths.

    Returns
    -------
    (dict, dict)
        node id -> sorted source names; ``(source, target, nx key)`` -> sorted
        source names (see the module docstring).  Both empty when
        ``meta.sources`` is absent.

    Examples
    --------
    >>> from graphkit.model import Evidence, Host, Repository
    >>> g = Graph()
    >>> g.update(nodes=[Host(id="host:h1", name="h1", evidence=[Evidence(file="inv/runners.yaml")]),
    ...                 Repository(id="repo:a/b", name="b", full_name="a/b",
    ...                            evidence=[Evidence(file=".github/workflows/ci.yml", repository="a/b")])])
    >>> g.meta = {"sources": {"github-actions": {"complete": True}, "runners": {"complete": False}},
    ...           "inputs": {"github-actions": ["checkouts"], "runners": ["inv/runners.yaml"]}}
    >>> provenance(g)[0]
    {'host:h1': ['runners'], 'repo:a/b': ['github-actions']}
    """
    node_src, edge_src, _ = _provenance(graph)
    return node_src, edge_src


class _Matcher:
    """The source an evidence ``file`` (or a problem's) lies under, by the input paths of ``graph.meta``."""

    def __init__(self, meta: GraphMeta) -> None:
        self.sources = sorted(meta.sources)
        self.inputs = {name: paths for name, paths in _input_paths(meta).items() if name in self.sources}
        self.cache: dict[str, str | None] = {}
        #: the sources none of whose evidence lies under an input path (set by :func:`_provenance`)
        self.checkout: list[str] = self.sources

    def __call__(self, file: str) -> str | None:
        if file not in self.cache:
            f = _norm(file)
            self.cache[file] = next((name for name, paths in self.inputs.items()
                                     if any(f == p or f.startswith(p.rstrip("/") + "/") for p in paths)), None)
        return self.cache[file]


def _provenance(graph: Graph) -> tuple[dict[str, list[str]], dict[tuple[str, str, str], list[str]], _Matcher]:
    """:func:`provenance` and the matcher it used (its ``checkout`` sources set)."""
    match = _Matcher(graph.meta)
    sources = match.sources
    if not sources:
        return {}, {}, match
    items: list[tuple[Any, Sequence[Evidence]]] = [(n.id, n.evidence) for n in graph.nodes()]
    # a stored edge's evidence tuple is shared by the edges of one source place: each is read once (by identity)
    items += [((u, v, k), rec.evidence) for u, v, k, rec in graph.nx.edges(keys=True, data=True)]
    matched = {match(ev.file) for evs in {id(evs): evs for _, evs in items}.values() for ev in evs} - {None}
    checkout, anyone = _unmatched_sources(graph, sources, matched)
    match.checkout = checkout
    node_src: dict[str, list[str]] = {}
    edge_src: dict[tuple[str, str, str], list[str]] = {}
    seen: dict[int, tuple[Sequence[Evidence], list[str]]] = {}
    for key, evs in items:
        hit = seen.get(id(evs))
        if hit is None or hit[0] is not evs:
            names: set[str] = set()
            for ev in evs:
                m = match(ev.file)
                names.update([m] if m else checkout if ev.repository else anyone)
            hit = seen[id(evs)] = (evs, sorted(names) if names else list(anyone))
        if isinstance(key, tuple):
            edge_src[key] = hit[1]
        else:
            node_src[key] = hit[1]
    return node_src, edge_src, match


def _unmatched_sources(graph: Graph, sources: list[str], matched: set[str]) -> tuple[list[str], list[str]]:
    """``(checkout, anyone)``: the sources checkout evidence belongs to (none of their evidence matched an input
    path), and those evidence of no known source belongs to.  A source that read nothing (``items`` 0: every
    file of it skipped) produced nothing, so it is in neither unless no source read anything."""
    read = [s for s in sources if graph.meta.sources[s].items > 0]
    unmatched = [s for s in sources if s not in matched]
    return [s for s in unmatched if s in read] or unmatched or sources, read or sources


def problem_sources(graph: Graph) -> list[tuple[str, str]]:
    """Each input problem of ``graph.meta`` with the source it belongs to: ``(source, "file place: reason")``.

    A problem belongs to the source one of whose input paths its ``file`` is or lies under; a resolver problem
    on a file of a repository checkout (``OWNER/NAME:path``, :func:`graphkit.resolve.context.problem_file`)
    belongs to the sources none of whose evidence lies under an input path (as in :func:`provenance`); any
    other problem belongs to every source (its source is unknown).  A graph without ``meta.sources`` gives
    ``("", problem)`` pairs.

    Returns
    -------
    list of (str, str)
        sorted by source, in the order of ``graph.meta.problems`` within a source.

    Examples
    --------
    >>> from graphkit.meta import Problem
    >>> g = Graph()
    >>> g.meta = {"sources": {"github-actions": {"complete": False}, "runners": {"complete": True}},
    ...           "inputs": {"github-actions": ["repos"], "runners": ["inv.yaml"]},
    ...           "problems": [Problem(file="repos/a/ci.yml", place="line 3", reason="invalid YAML")]}
    >>> problem_sources(g)
    [('github-actions', 'repos/a/ci.yml line 3: invalid YAML')]
    """
    return _problem_sources(graph, _provenance(graph)[2])


def _problem_sources(graph: Graph, match: _Matcher) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for problem in graph.meta.problems:
        source = match(problem.file)
        if source:
            names = [source]
        elif _checkout_file(problem.file):
            names = match.checkout
        else:
            names = match.sources or [""]
        out += [(name, _skipped(problem)) for name in names]
    return sorted(out, key=lambda pair: pair[0])


def _checkout_file(file: str) -> bool:
    """Whether a problem's ``file`` names a file of a repository checkout: ``OWNER/NAME:path`` (a relative path,
    never a drive letter)."""
    repo, sep, rest = file.partition(":")
    return bool(sep and rest) and repo.count("/") >= 1 and not repo.startswith("/")


# --------------------------------------------------------------------------- sync


def _chunks(rows: list[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    for i in range(0, len(rows), size):
        yield rows[i:i + size]


def _write(tx: "neo4j.ManagedTransaction", query: str | tuple[str, ...], params: dict[str, Any]) -> None:
    """Run ``query`` (or each statement of a tuple, in order) with ``params``, in the transaction ``tx``."""
    for q in (query,) if isinstance(query, str) else query:
        tx.run(q, params).consume()


def _any_node(tx: "neo4j.ManagedTransaction") -> bool:
    """Whether the database holds any graphkit node (relabelled ones of an older graphkit included): a
    relationship of graphkit always joins two of them, so with none there is nothing stale to remove."""
    return tx.run(f"MATCH (n:{COMMON_LABEL}) RETURN n.id AS id LIMIT 1").single() is not None


def _holds_any(tx: "neo4j.ManagedTransaction", kind: NodeKind, node_ids: list[str]) -> bool:
    """Whether the database holds a node of ``kind`` with one of ``node_ids`` (an indexed lookup per id)."""
    q = f"UNWIND $ids AS i MATCH (n:{label_of(kind)} {{id: i}}) RETURN n.id AS id LIMIT 1"
    return tx.run(q, ids=node_ids).single() is not None


def _removed(tx: "neo4j.ManagedTransaction", query: str, params: dict[str, Any]) -> int:
    record = tx.run(query, params).single()
    return int(record["removed"]) if record else 0


def sync_graph(driver: "neo4j.Driver", graph: Graph, *, database: str, update_tag: int | None = None,
               batch_size: int = DEFAULT_BATCH_SIZE, cleanup: bool = True,
               progress: Progress | None = None, replace: bool = False) -> SyncResult:
    """Write ``graph`` into the Neo4j database ``database``; idempotent, with scoped stale-data removal.

    Parameters
    ----------
    driver
        an open :class:`neo4j.Driver` (see :func:`graphkit.neo4j.connection.connect`).
    graph
        the graph to write (``graph.meta.sources`` / ``.inputs`` drive
        stale-data removal, see the module docstring).
    database
        the database name, always passed to the session.
    update_tag
        an integer stamped as ``update_tag`` on everything written (unless it
        holds a newer one); default ``time.time_ns()``.  Must grow from one
        sync to the next: removal takes items with an older tag.
    batch_size
        rows per ``UNWIND $rows`` transaction.
    cleanup
        remove stale data of the sources read completely (default true).
    progress
        optional ``(advance, description)`` callback, advanced once per
        node and edge written (total: nodes + edges of ``graph``).
    replace
        let stale-data removal delete data that other inputs synced (see
        :class:`OtherInputsError`); the database then records this sync's inputs for those sources.

    Returns
    -------
    SyncResult
        items written and removed per kind, sources, seconds.

    Raises
    ------
    neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError
        a statement rejected, or a transient error that persisted past the
        driver's retry time (``max_transaction_retry_time``, 30 s default;
        https://neo4j.com/docs/api/python-driver/current/api.html#max-transaction-retry-time).
        :func:`~graphkit.neo4j.connection.connect` turns them into
        :class:`~graphkit.neo4j.connection.DatabaseError`.
    ValueError
        if ``batch_size`` < 1.
    OtherInputsError
        when cleanup would delete data of other inputs and ``replace`` is false (nothing is written).
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    t0 = time.monotonic()
    tag = time.time_ns() if update_tag is None else int(update_tag)
    st = statements()
    node_src, edge_src, match = _provenance(graph)
    meta_sources = {name: s.model_dump() for name, s in graph.meta.sources.items()}
    complete = sorted(n for n, s in meta_sources.items() if s["complete"])
    partial = sorted(n for n in meta_sources if n not in complete)
    result = SyncResult(update_tag=tag, database=database, complete_sources=complete, partial_sources=partial)
    advance = progress or (lambda n, what: None)

    with driver.session(database=database) as session:
        w = _Writer(session, tag, batch_size, advance)
        for q in st.constraints:
            write_retrying(session, q, {})
        for q in st.relabel.values():
            session.execute_write(_write, q, {})
        held = session.execute_read(_any_node) if cleanup and complete else False
        _record_inputs(session, st, graph, complete, node_src, check=held and not replace)
        result.nodes = _write_nodes(w, st, graph, node_src)
        result.edges = _write_edges(w, st, graph, edge_src)
        if cleanup and complete and held:  # an empty database holds nothing stale: no scan per kind
            result.removed_edges, result.removed_nodes = _remove_stale(w, st, complete)
        meta_props = {UPDATE_TAG: tag, "sources_json": json.dumps(meta_sources, sort_keys=True),
                      "problems_json": json.dumps([p.model_dump() for p in graph.meta.problems], sort_keys=True),
                      "complete_sources": complete, "partial_sources": partial,
                      "skipped": [_skipped(p) for p in graph.meta.problems],
                      "skipped_by_source": [f"{name}: {text}" for name, text in _problem_sources(graph, match)]}
        write_retrying(session, st.sync_meta, {"id": SYNC_ID, "props": meta_props})
    result.seconds = time.monotonic() - t0
    return result


def _record_inputs(session: "neo4j.Session", st: Statements, graph: Graph, complete: list[str],
                   node_src: dict[str, list[str]], *, check: bool) -> None:
    """Record this sync's input paths per source on the bookkeeping node (before anything is written); when
    ``check`` (the database held graphkit data, no ``replace``), first raise :class:`OtherInputsError` if a
    ``complete`` source holds data of other inputs: its recorded paths differ from this sync's and (for a source
    reading repositories) none of the repositories it produced (``node_src``) is in the database already; the
    same repositories read from a checkout that moved (another CI workspace) are the same inputs."""
    recorded = session.execute_read(_recorded_inputs)
    current = input_set(graph.meta)
    changed = other_inputs(recorded, current, complete) if check else {}
    repos = {n.id for n in graph.nodes(NodeKind.REPOSITORY)}
    for name, (old, _) in list(changed.items()):
        mine = sorted(i for i in repos if name in node_src.get(i, ()))
        if old is not None and mine and session.execute_read(_holds_any, NodeKind.REPOSITORY, mine):
            del changed[name]
    if changed:
        raise OtherInputsError(changed)
    merged = {**(recorded or {}), **current}
    write_retrying(session, st.sync_inputs, {"id": SYNC_ID, "inputs_json": json.dumps(merged, sort_keys=True)})


def _skipped(problem: Any) -> str:
    """One input problem as ``file place: reason`` (for the ``sync-status`` query)."""
    where = f"{problem.file} {problem.place}".strip()
    return f"{where}: {problem.reason}"


@dataclass
class _Writer:
    """One sync's session, update tag, batch size and progress callback."""

    session: "neo4j.Session"
    tag: int
    batch_size: int
    advance: Progress

    def batches(self, query: str | tuple[str, ...], rows: list[dict[str, Any]], what: str) -> None:
        """Run ``query`` (one statement or several in order) over ``rows`` in ``UNWIND $rows`` batches, one
        managed transaction each (:func:`write_retrying`)."""
        for chunk in _chunks(rows, self.batch_size):
            write_retrying(self.session, query, {"rows": chunk, "tag": self.tag})
            self.advance(len(chunk), what)

    def stamped(self, props: dict[str, Any], sources: list[str]) -> dict[str, Any]:
        """``props`` with the item's sources (the statements stamp the update tag: ``$tag`` unless newer)."""
        return {**props, SOURCES: sources}


#: Attempts of one write that a concurrent sync's write keeps failing on a uniqueness constraint.
CONSTRAINT_ATTEMPTS = 8
#: Schema statements that a concurrent ``CREATE ... IF NOT EXISTS`` can fail the same way (Neo4j status codes).
_SCHEMA_RACES = ("Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
                 "Neo.ClientError.Schema.ConstraintAlreadyExists", "Neo.ClientError.Schema.IndexAlreadyExists")


def write_retrying(session: "neo4j.Session", query: str | tuple[str, ...], params: dict[str, Any], *,
                   attempts: int = CONSTRAINT_ATTEMPTS, pause: Callable[[float], None] = time.sleep) -> None:
    """Run ``query`` with ``params`` in a managed transaction, again (a new transaction) when a concurrent
    write made it fail on a uniqueness constraint.

    Two syncs into one database race on ``MERGE`` / create-if-missing: both transactions see no node with an
    id, both create it, and the second to commit fails with ``Neo.ClientError.Schema.ConstraintValidationFailed``
    (:class:`neo4j.exceptions.ConstraintError`); the transaction is rolled back whole, and run again it finds
    the node the other one created (the race the Cypher manual describes for ``MERGE`` under concurrent
    updates: https://neo4j.com/docs/cypher-manual/current/clauses/merge/#query-merge-using-unique-constraints).
    The driver's managed transactions retry transient errors only (a client error is not retried:
    https://neo4j.com/docs/python-manual/current/transactions/#managed-transactions), so this retries that one
    client error too, and a concurrent ``CREATE CONSTRAINT ... IF NOT EXISTS``, with a short growing pause.

    Raises
    ------
    neo4j.exceptions.ConstraintError, neo4j.exceptions.ClientError
        when the write still fails after ``attempts`` runs (a real violation, not a race), or for any other
        client error (at once).
    """
    from neo4j.exceptions import ClientError, ConstraintError

    for attempt in range(1, attempts + 1):
        try:
            session.execute_write(_write, query, params)
            return
        except ClientError as exc:
            if attempt == attempts or not (isinstance(exc, ConstraintError) or exc.code in _SCHEMA_RACES):
                raise
            pause(min(0.05 * 2 ** attempt, 2.0))


def _write_nodes(w: _Writer, st: Statements, graph: Graph, node_src: dict[str, list[str]]) -> dict[str, int]:
    """MERGE every node, one statement per node kind; returns nodes written per kind value."""
    by_kind: dict[NodeKind, list[dict[str, Any]]] = defaultdict(list)
    for node in graph.nodes():
        props = w.stamped(node_props(node), node_src.get(node.id, []))
        by_kind[node.spec.kind].append({"id": node.id, "props": props})
    written: dict[str, int] = {}
    for kind in NODE_TYPES:
        rows = by_kind.get(kind, [])
        w.batches((st.create_nodes[kind], st.nodes[kind]), rows, f"nodes {label_of(kind)}")
        if rows:
            written[kind.value] = len(rows)
    return written


def _write_edges(w: _Writer, st: Statements, graph: Graph,
                 edge_src: dict[tuple[str, str, str], list[str]]) -> dict[str, int]:
    """MERGE every relationship, one statement per (source kind, edge kind, target kind), each row written from
    the endpoint with fewer relationships of its type (:func:`from_target`); returns relationships written per
    edge kind value."""
    kinds = {nid: NodeKind(kind) for nid, kind in graph.nx.nodes(data="kind")}
    reverse = from_target(graph)
    encode = RecordProps()  # edge_props of each stored record, shared parts encoded once
    by_triple: dict[tuple[NodeKind, EdgeKind, NodeKind], tuple[list, list]] = defaultdict(lambda: ([], []))
    for u, v, k, rec in sorted(graph.nx.edges(keys=True, data=True), key=lambda t: (t[0], t[1], t[2])):
        props = w.stamped(encode(rec), edge_src.get((u, v, k), []))
        kind = rec.kind
        row = {"source": u, "target": v, "key": rec.key, "props": props}
        by_triple[(kinds[u], kind, kinds[v])][reverse(u, kind, v)].append(row)
    written: dict[str, int] = {}
    for triple, query in st.edges.items():
        forward, backward = by_triple.get(triple, ([], []))
        w.batches(query, forward, f"edges {rel_type_of(triple[1])}")
        w.batches(st.edges_from_target[triple], backward, f"edges {rel_type_of(triple[1])}")
        if forward or backward:
            written[triple[1].value] = written.get(triple[1].value, 0) + len(forward) + len(backward)
    return written


def from_target(graph: Graph) -> Callable[[str, str, str], bool]:
    """Whether to write a relationship's MERGE from its target: ``(source id, edge kind, target id) -> bool``.

    True when the target has fewer incoming relationships of that kind in ``graph`` than the source has
    outgoing ones (ties: from the source).  ArcadeDB checks ``MERGE (a)-[r:T {key: ..}]->(b)`` by reading every
    ``T`` relationship of the pattern's first node, so a hub written from itself costs degree^2 / 2 reads
    (measured: 15,000 ``OWNS`` of one organization, minutes per batch of 1,000); Neo4j plans both writings
    alike.  Degrees are counted once over the graph's edges (O(E)).

    Examples
    --------
    >>> from graphkit.model import Edge, EdgeKind, Evidence, Organization, Repository
    >>> ev = [Evidence(file="inventory.yaml")]
    >>> g = Graph()
    >>> g.update(nodes=[Organization(id="org:a", name="a")] +
    ...                [Repository(id=f"repo:a/{i}", name=str(i), full_name=f"a/{i}") for i in range(2)],
    ...          edges=[Edge(source="org:a", target=f"repo:a/{i}", kind=EdgeKind.OWNS, evidence=ev) for i in range(2)])
    >>> from_target(g)("org:a", EdgeKind.OWNS, "repo:a/0")
    True
    """
    outgoing: Counter[tuple[str, str]] = Counter()
    incoming: Counter[tuple[str, str]] = Counter()
    for u, v, kind in graph.nx.edges(data="kind"):
        outgoing[(u, kind)] += 1
        incoming[(v, kind)] += 1

    def reverse(source: str, kind: str, target: str) -> bool:
        return incoming[(target, kind)] < outgoing[(source, kind)]
    return reverse


def _remove_stale(w: _Writer, st: Statements, complete: list[str]) -> tuple[dict[str, int], dict[str, int]]:
    """Delete what an older sync wrote and only complete sources held: (relationships, nodes) removed per kind."""
    params = {"tag": w.tag, "complete": complete, "limit": w.batch_size}
    edges = {ekind.value: n for ekind, query in st.stale_edges.items() if (n := _drain(w.session, query, params))}
    nodes = {nkind.value: n for nkind, query in st.stale_nodes.items() if (n := _drain(w.session, query, params))}
    return edges, nodes


def _drain(session: "neo4j.Session", query: str, params: dict[str, Any]) -> int:
    total = 0
    while True:
        n = session.execute_write(_removed, query, params)
        total += n
        if n < params["limit"]:
            return total


def sync_size(graph: Graph) -> int:
    """How many progress units :func:`sync_graph` reports: nodes + edges."""
    return graph.nx.number_of_nodes() + graph.nx.number_of_edges()


def database_counts(driver: "neo4j.Driver", *, database: str,
                    kinds: Iterable[NodeKind] | None = None) -> dict[str, dict[str, int]]:
    """Nodes per node kind and relationships per edge kind in the database (kinds with 0 left out).

    Same shape as :meth:`graphkit.graph.Graph.counts`; one count query per
    model label and relationship type (Neo4j answers them from its count
    store).
    """
    nodes: dict[str, int] = {}
    edges: dict[str, int] = {}
    rd = read_statements()
    with driver.session(database=database) as session:
        for kind in kinds or NODE_TYPES:
            n = session.run(rd.count_nodes[kind]).single()["c"]
            if n:
                nodes[kind.value] = n
        for ekind in EDGE_SPECS:
            n = session.run(rd.count_edges[ekind]).single()["c"]
            if n:
                edges[ekind.value] = n
    return {"nodes": dict(sorted(nodes.items())), "edges": dict(sorted(edges.items()))}
