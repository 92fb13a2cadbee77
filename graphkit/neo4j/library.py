"""The Cypher query library (``queries/*.cypher``): loading, running, and networkx counterparts.

Each ``.cypher`` file is one statement, runnable as it is in Neo4j Browser,
after a header of ``//`` comment lines::

    // name: blast-radius-runner                (= the file name without .cypher)
    // purpose: one line
    // param runner_id: what it is               (or "// params: none")
    // :param runner_id => 'runner:acme/build-01-a'   (paste into Browser to set it)
    // counterpart: the networkx computation giving the same answer

:data:`COUNTERPARTS` holds, for the queries that have one, a function
computing the same rows from an in-memory :class:`~graphkit.graph.Graph`
with networkx (only the columns named in ``Counterpart.columns``; lists
compare as sets).  The tests run both on the same graph and compare.
"""

from __future__ import annotations

import ast
import json
import os
import sysconfig
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import networkx as nx

from graphkit.errors import GraphkitError
from graphkit.graph import Graph
from graphkit.neo4j.statements import source_only_kinds
from graphkit.neo4j.templates import MAX_HOPS
from graphkit.model import LIFETIME_SECONDS, Criticality, EdgeKind, Lifetime, Node, NodeKind

if TYPE_CHECKING:  # pragma: no cover
    import neo4j

__all__ = ["LibraryQuery", "QueryError", "Counterpart", "COUNTERPARTS", "default_query_dir", "load_library",
           "load_query", "parse_param", "run_query", "to_jsonable"]


class QueryError(GraphkitError):
    """A library query is missing, malformed, or lacks a parameter."""


def default_query_dir() -> Path:
    """``$GRAPHKIT_QUERIES`` when set, else the repository's ``queries/`` folder (next to the package, a source
    checkout or editable install), else the copy a regular install carries as data files
    (``<prefix>/share/graphkit/queries``, ``[tool.setuptools.data-files]`` in ``pyproject.toml``)."""
    env = os.environ.get("GRAPHKIT_QUERIES")
    if env:
        return Path(env)
    checkout = Path(__file__).resolve().parents[2] / "queries"
    if checkout.is_dir():
        return checkout
    return Path(sysconfig.get_path("data")) / "share" / "graphkit" / "queries"


@dataclass(frozen=True)
class LibraryQuery:
    """One ``.cypher`` file: header fields and the statement text (header included; comments are valid Cypher)."""

    name: str
    purpose: str
    params: dict[str, str]
    examples: dict[str, Any]
    counterpart: str
    text: str
    path: Path

    @property
    def body(self) -> str:
        """The statement without its comment lines."""
        return "\n".join(line for line in self.text.splitlines() if not line.lstrip().startswith("//")).strip()

    def id_params(self) -> set[str]:
        """Parameters holding one node id: those whose ``param`` line describes them as ``graphkit id ...``."""
        return {p for p, text in self.params.items() if text.lower().startswith("graphkit id")}

    def used_params(self) -> set[str]:
        """``$name`` parameters the statement uses."""
        return set(re.findall(r"\$([A-Za-z_][A-Za-z0-9_]*)", self.body))


def parse_param(value: str) -> Any:
    """A parameter value from ``k=v`` or a ``:param`` line: JSON (numbers, true, lists...), a quoted string, a
    Cypher list of quoted strings, else text.

    Examples
    --------
    >>> parse_param("20"), parse_param("true"), parse_param("'runner:acme/a'"), parse_param("runner:acme/a")
    (20, True, 'runner:acme/a', 'runner:acme/a')
    >>> parse_param("['runner:acme/a', 'host:h']"), parse_param('["x"]')
    (['runner:acme/a', 'host:h'], ['x'])
    """
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] == "'":
        return v[1:-1].replace("\\'", "'")
    try:
        return json.loads(v)
    except json.JSONDecodeError:
        pass
    if v.startswith("[") and v.endswith("]"):  # a Cypher list of quoted strings and numbers, as in Browser
        try:
            items = ast.literal_eval(v)
        except (ValueError, SyntaxError):
            return value
        if isinstance(items, list) and all(isinstance(i, (str, int, float)) for i in items):
            return items
    return value


_HEADER = re.compile(r"^//\s*(name|purpose|params?|counterpart)\b\s*([A-Za-z_][A-Za-z0-9_]*)?\s*:\s*(.*)$")
_PARAM_LINE = re.compile(r"^//\s*:param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*(.+?)\s*;?\s*$")


def load_query(path: Path) -> LibraryQuery:
    """Parse one ``.cypher`` file.

    Raises
    ------
    QueryError
        if the header lacks ``name`` (equal to the file stem) or ``purpose``,
        a ``$parameter`` has no ``param`` line or ``:param`` example, or the
        file holds no statement.
    """
    text = path.read_text(encoding="utf-8")
    fields: dict[str, str] = {}
    params: dict[str, str] = {}
    examples: dict[str, Any] = {}
    for line in text.splitlines():
        s = line.strip()
        if not s.startswith("//"):
            continue
        if m := _PARAM_LINE.match(s):
            examples[m.group(1)] = parse_param(m.group(2))
        elif m := _HEADER.match(s):
            key, pname, value = m.groups()
            if key == "param" and pname:
                params[pname] = value.strip()
            elif key in ("name", "purpose", "counterpart"):
                fields[key] = value.strip()
    q = LibraryQuery(name=fields.get("name", ""), purpose=fields.get("purpose", ""), params=params,
                     examples=examples, counterpart=fields.get("counterpart", ""), text=text, path=path)
    if q.name != path.stem:
        raise QueryError(f"{path}: header 'name: {q.name}' must equal the file name {path.stem!r}")
    if not q.purpose:
        raise QueryError(f"{path}: header has no 'purpose:' line")
    if not q.body:
        raise QueryError(f"{path}: no statement after the header")
    for p in sorted(q.used_params()):
        if p not in params or p not in examples:
            raise QueryError(f"{path}: parameter ${p} needs a '// param {p}: ...' line and a "
                             f"'// :param {p} => ...' example")
    return q


def load_library(directory: Path | None = None) -> dict[str, LibraryQuery]:
    """Every ``*.cypher`` of ``directory`` (default :func:`default_query_dir`) by name.

    Raises
    ------
    QueryError
        if the folder is missing or a file is malformed.
    """
    d = directory or default_query_dir()
    if not d.is_dir():
        raise QueryError(f"query library not found at {d} (set GRAPHKIT_QUERIES or pass --queries DIR)")
    return {q.name: q for q in map(load_query, sorted(d.glob("*.cypher")))}


def to_jsonable(value: Any) -> Any:
    """A driver value as JSON-ready data: nodes -> properties (+ ``_labels``), relationships -> properties
    (+ ``_type``), paths -> node ids in order; temporal values -> ISO strings."""
    from neo4j.graph import Node as NeoNode, Path as NeoPath, Relationship

    if isinstance(value, NeoPath):
        return [n.get("id") for n in value.nodes]
    if isinstance(value, NeoNode):
        return {"_labels": sorted(value.labels), **dict(value)}
    if isinstance(value, Relationship):
        return {"_type": value.type, "_start": value.start_node.get("id") if value.start_node else None,
                "_end": value.end_node.get("id") if value.end_node else None, **dict(value)}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: to_jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def run_query(driver: "neo4j.Driver", query: LibraryQuery, params: dict[str, Any] | None = None, *,
              database: str) -> tuple[list[str], list[dict[str, Any]]]:
    """Run a library query in a read transaction (retried by the driver on transient errors).

    Parameters
    ----------
    driver
        an open driver.
    query
        from :func:`load_library`.
    params
        parameter values, every ``$parameter`` of the statement (the file's ``:param`` lines are examples for
        Neo4j Browser, not defaults); a parameter described as ``graphkit id ...`` must name a node of the
        database.
    database
        the database name (always passed).

    Returns
    -------
    (list of str, list of dict)
        column names and rows (values made JSON-ready by :func:`to_jsonable`).

    Raises
    ------
    QueryError
        for a parameter not given, or one the statement does not take.
    UnknownNodeError
        for a node id parameter (:meth:`LibraryQuery.id_params`) naming no node of the database (with close
        ids as suggestions): an unknown id is not an empty answer.
    neo4j.exceptions.Neo4jError
        if the server rejects the statement.
    """
    from graphkit.errors import UnknownNodeError
    from graphkit.neo4j.reach import _suggest, find_node_kind

    values = dict(params or {})
    unknown = sorted(set(values) - query.used_params())
    if unknown:
        raise QueryError(f"query {query.name} has no parameter {', '.join(unknown)} "
                         f"(it takes: {', '.join(sorted(query.used_params())) or 'none'})")
    missing = sorted(query.used_params() - set(values))
    if missing:  # a ``:param`` line is an example for Browser, never a default
        raise QueryError(f"query {query.name} needs {', '.join(f'--param {m}=VALUE' for m in missing)}"
                         + "".join(f" (e.g. {m}={json.dumps(query.examples[m])})" for m in missing
                                   if m in query.examples))

    def work(tx: "neo4j.ManagedTransaction") -> tuple[list[str], list[dict[str, Any]]]:
        for name in sorted(query.id_params() & set(values)):
            if not isinstance(values[name], str) or find_node_kind(tx, values[name]) is None:
                raise UnknownNodeError(str(values[name]), _suggest(tx, str(values[name])))
        result = tx.run(query.text, values)
        rows = [{k: to_jsonable(v) for k, v in rec.items()} for rec in result]
        return list(result.keys()), rows

    with driver.session(database=database) as session:
        return session.execute_read(work)


# --------------------------------------------------------------------------- networkx counterparts


@dataclass(frozen=True)
class Counterpart:
    """The networkx computation of a library query: ``fn(graph, params) -> rows`` over ``columns``."""

    name: str
    columns: tuple[str, ...]
    fn: Callable[[Graph, dict[str, Any]], list[dict[str, Any]]]
    doc: str = field(default="")


COUNTERPARTS: dict[str, Counterpart] = {}


def _counterpart(name: str, *columns: str) -> Callable:
    def deco(fn: Callable[[Graph, dict[str, Any]], list[dict[str, Any]]]) -> Callable:
        COUNTERPARTS[name] = Counterpart(name, columns, fn, (fn.__doc__ or "").strip())
        return fn
    return deco


def path_view(graph: Graph) -> nx.MultiDiGraph:
    """The edges the library's paths follow: traversable, not source-only (``{{traversable}}`` in the templates)."""
    only = {k.value for k in source_only_kinds()}
    return nx.subgraph_view(graph.nx, filter_edge=lambda u, v, k: graph.nx.edges[u, v, k]["traversable"]
                            and graph.nx.edges[u, v, k]["kind"] not in only)


def _hops(graph: Graph, source: str) -> dict[str, int]:
    """Shortest traversable path length (up to the library's bound) from ``source`` to every node it reaches (itself
    excluded)."""
    if source not in graph:
        return {}
    lengths = nx.single_source_shortest_path_length(path_view(graph), source, cutoff=MAX_HOPS)
    lengths.pop(source, None)
    return lengths


def _reach(graph: Graph, source: str) -> set[str]:
    return set(_hops(graph, source))


def _nodes(graph: Graph, kind: NodeKind) -> list[Node]:
    return list(graph.nodes(kind))


def _kind(graph: Graph, node_id: str) -> NodeKind:
    return graph.node(node_id).spec.kind


def _reach_rows(graph: Graph, source: str, keep: Callable[[Node], bool]) -> list[dict[str, Any]]:
    rows = []
    for nid, hops in _hops(graph, source).items():
        n = graph.node(nid)
        if keep(n):
            rows.append({"id": nid, "kind": n.spec.kind.value, "criticality": n.criticality.value,  # type: ignore
                         "hops": hops, **n.model_dump(mode="json", include={"scope", "provider", "trust"})})
    return rows


@_counterpart("blast-radius-runner", "id", "kind", "criticality", "hops")
def _br_runner(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """blast_radius(graph, runner_id) reached ids with shortest path lengths."""
    return _reach_rows(graph, params["runner_id"], lambda n: True)


@_counterpart("blast-radius-host", "id", "kind", "criticality", "hops")
def _br_host(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """blast_radius(graph, host_id) reached ids with shortest path lengths."""
    return _reach_rows(graph, params["host_id"], lambda n: True)


@_counterpart("secrets-from-runner", "id", "scope", "hops")
def _secrets(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Reached secret nodes."""
    return _reach_rows(graph, params["runner_id"], lambda n: n.spec.kind is NodeKind.SECRET)


@_counterpart("cloud-roles-from-runner", "id", "provider", "trust", "hops")
def _roles(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Reached cloud_role nodes."""
    return _reach_rows(graph, params["runner_id"], lambda n: n.spec.kind is NodeKind.CLOUD_ROLE)


def _critical_target(n: Node) -> bool:
    if n.spec.kind is NodeKind.SIGNING_KEY:
        return True
    return n.spec.kind is NodeKind.DEPLOYMENT_TARGET and (getattr(n, "production", None) is True
                                                         or n.criticality is Criticality.CRITICAL)


@_counterpart("critical-targets-from-runner", "id", "kind", "hops")
def _critical(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Reached signing keys and production (or critical) deployment targets."""
    return _reach_rows(graph, params["runner_id"], _critical_target)


def _jobs_of(graph: Graph, runner: str) -> list[Node]:
    return [graph.node(e.target) for e in graph.out_edges(runner) if e.kind is EdgeKind.RECEIVES_JOB]


@_counterpart("runners-shared-across-repositories", "id", "repository_count", "repositories", "jobs")
def _shared(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Runners whose receives_job edges reach jobs of several repositories."""
    rows = []
    for r in _nodes(graph, NodeKind.RUNNER):
        jobs = _jobs_of(graph, r.id)
        repos = {j.repository for j in jobs}  # type: ignore[attr-defined]
        if len(repos) > 1:
            rows.append({"id": r.id, "repository_count": len(repos), "repositories": sorted(repos),
                         "jobs": len({j.id for j in jobs})})
    return rows


@_counterpart("runner-groups-open-to-public", "id", "allows_public_repositories", "public_repositories", "runners")
def _public_groups(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Runner groups allowing public repositories, with member runners."""
    rows = []
    for g in _nodes(graph, NodeKind.RUNNER_GROUP):
        public = sorted({graph.node(e.target).full_name for e in graph.out_edges(g.id)  # type: ignore[attr-defined]
                         if e.kind is EdgeKind.ALLOWS_REPOSITORY
                         and getattr(graph.node(e.target), "visibility", None) == "public"})
        if g.allows_public_repositories or public:  # type: ignore[attr-defined]
            runners = sorted({e.source for e in graph.in_edges(g.id) if e.kind is EdgeKind.MEMBER_OF})
            rows.append({"id": g.id, "allows_public_repositories": g.allows_public_repositories,  # type: ignore
                         "public_repositories": public, "runners": runners})
    return rows


@_counterpart("persistent-runners", "id", "ephemeral", "jobs", "repositories", "workflows")
def _persistent(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Runners with ephemeral false or unknown, and the jobs routed to them."""
    rows = []
    for r in _nodes(graph, NodeKind.RUNNER):
        if r.ephemeral is True:  # type: ignore[attr-defined]
            continue
        jobs = _jobs_of(graph, r.id)
        rows.append({"id": r.id, "ephemeral": r.ephemeral, "jobs": len({j.id for j in jobs}),  # type: ignore
                     "repositories": sorted({j.repository for j in jobs}),  # type: ignore[attr-defined]
                     "workflows": sorted({f"{j.repository}/{j.workflow_path}" for j in jobs})})  # type: ignore
    return rows


@_counterpart("hosts-with-multiple-runners", "id", "runner_count", "runners", "scopes")
def _multi(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Hosts with more than one hosts edge to a runner."""
    rows = []
    for h in _nodes(graph, NodeKind.HOST):
        runners = sorted({e.target for e in graph.out_edges(h.id) if e.kind is EdgeKind.HOSTS})
        if len(runners) > 1:
            rows.append({"id": h.id, "runner_count": len(runners), "runners": runners,
                         "scopes": sorted({graph.node(r).scope for r in runners})})  # type: ignore[attr-defined]
    return rows


def _long_lived(n: Node) -> bool:
    if n.spec.kind in (NodeKind.SECRET, NodeKind.CLOUD_SECRET, NodeKind.CLOUD_USER, NodeKind.SIGNING_KEY):
        return True
    return n.spec.kind is NodeKind.CREDENTIAL and LIFETIME_SECONDS[Lifetime(n.lifetime)] is None  # type: ignore


@_counterpart("long-lived-credentials-from-runners", "id", "kind", "runner_count", "runners")
def _long(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Union of every runner's reach, long-lived credential kinds, with the runners reaching each."""
    by: dict[str, set[str]] = defaultdict(set)
    for r in _nodes(graph, NodeKind.RUNNER):
        for nid in _reach(graph, r.id):
            if _long_lived(graph.node(nid)):
                by[nid].add(r.id)
    return [{"id": c, "kind": _kind(graph, c).value, "runner_count": len(rs), "runners": sorted(rs)}
            for c, rs in by.items()]


@_counterpart("oidc-broad-trusts", "id", "trust", "broad_trust", "repository_count", "repositories", "identities", "pull_request",
              "wildcard", "possible")
def _oidc(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """assumes_role edges from OIDC identities grouped by role, kept when broad."""
    rows = []
    for c in _nodes(graph, NodeKind.CLOUD_ROLE):
        edges = [e for e in graph.in_edges(c.id)
                 if e.kind is EdgeKind.ASSUMES_ROLE and _kind(graph, e.source) is NodeKind.OIDC_IDENTITY]
        if not edges:
            continue
        idents = [graph.node(e.source) for e in edges]
        repos = sorted({o.repository for o in idents})  # type: ignore[attr-defined]
        subjects = [s for o in idents for s in o.subjects]  # type: ignore[attr-defined]
        pr = any(s.endswith(":pull_request") for s in subjects)
        wild = any("*" in s for s in subjects)
        possible = any(e.confidence.value == "possible" for e in edges)
        broad = getattr(c, "broad_trust", False)
        if broad or c.trust != "known" or len(repos) > 1 or pr or wild or possible:  # type: ignore[attr-defined]
            rows.append({"id": c.id, "trust": c.trust, "broad_trust": broad, "repository_count": len(repos),  # type: ignore
                         "repositories": repos, "identities": len({o.id for o in idents}), "pull_request": pr,
                         "wildcard": wild, "possible": possible})
    return rows


@_counterpart("tojson-secrets-on-self-hosted", "id", "repository", "runner_count", "runners")
def _tojson(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Jobs with all_secrets set that a runner receives."""
    rows = []
    for j in _nodes(graph, NodeKind.JOB):
        if j.all_secrets is None:  # type: ignore[attr-defined]
            continue
        runners = sorted({e.source for e in graph.in_edges(j.id) if e.kind is EdgeKind.RECEIVES_JOB})
        if runners:
            rows.append({"id": j.id, "repository": j.repository, "runner_count": len(runners),  # type: ignore
                         "runners": runners})
    return rows


_CHOKE_KINDS = (NodeKind.SECRET, NodeKind.CLOUD_SECRET, NodeKind.CREDENTIAL, NodeKind.GITHUB_TOKEN,
                NodeKind.OIDC_IDENTITY, NodeKind.CLOUD_ROLE, NodeKind.CLOUD_USER)


@_counterpart("choke-points", "id", "kind", "pairs", "runners", "targets")
def _choke(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Per credential-like node: runners reaching it x critical nodes it reaches (all rows, no limit)."""
    runners: dict[str, int] = defaultdict(int)
    for r in _nodes(graph, NodeKind.RUNNER):
        for nid in _reach(graph, r.id):
            if _kind(graph, nid) in _CHOKE_KINDS:
                runners[nid] += 1
    rows = []
    for c, n_r in runners.items():
        targets = {t for t in _reach(graph, c) if graph.node(t).criticality is Criticality.CRITICAL}
        if targets:
            rows.append({"id": c, "kind": _kind(graph, c).value, "pairs": n_r * len(targets), "runners": n_r,
                         "targets": len(targets)})
    return rows


@_counterpart("runners-by-reach", "id", "reached", "critical", "secrets")
def _by_reach(graph: Graph, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Blast radius size, critical count and secret count of every runner."""
    rows = []
    for r in _nodes(graph, NodeKind.RUNNER):
        reach = [graph.node(n) for n in _reach(graph, r.id)]
        rows.append({"id": r.id, "reached": len(reach),
                     "critical": sum(n.criticality is Criticality.CRITICAL for n in reach),
                     "secrets": sum(n.spec.kind is NodeKind.SECRET for n in reach)})
    return rows



# the inbound, multi-source, drawn-path and property-filter queries (registered on import)
from graphkit.neo4j import counterparts as _more  # noqa: E402,F401
