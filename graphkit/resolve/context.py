"""What the linker reads once per run: runners, groups, repositories, secrets, inventory facts.

Every id the linker makes or looks up is built by :mod:`graphkit.model.ids`;
ids read from ``graph.meta`` (``secrets_complete``,
``unknown_selected_workflows``) are rewritten by their constructor first
(:func:`canonical`), so ``repo:Acme/App`` and ``repo:acme/app`` agree.  A
value that cannot be part of an id (a ``runs-on`` label or a secret name
holding ``:``) is not linked: :meth:`Context.problem` records it in
``graph.meta.problems`` with its file and place, and resolving goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from graphkit.graph import Graph
from graphkit.hosted import is_self_hosted
from graphkit.meta import Problem, ResolveSummary
from graphkit.model import (EDGE_SPECS, Confidence, Edge, EdgeKind, Evidence, Host, Job, Node, NodeKind, Repository,
                            Runner, RunnerGroup, Secret, ids)
from graphkit.model.ids import env_key, owner_key, repo_key, secret_key
from graphkit.storage import CompactMultiDiGraph, EdgeRecord, NodeTable

__all__ = ["C", "Context", "P", "SecretIndex", "canonical", "canonical_set", "context_owner", "context_repo",
           "edges_of_kind", "host_of", "nodes_of_kind", "records_of_kinds", "owner_of", "weakest"]

C, P = Confidence.CERTAIN, Confidence.POSSIBLE


def host_of(graph: Graph, runner_id: str) -> Host | None:
    """The host the runner ``runner_id`` runs on (its ``runs_on_host`` edge), or None when none is known."""
    for e in graph.out_edges(runner_id):
        if e.kind is EdgeKind.RUNS_ON_HOST:
            host = graph.node(e.target)
            return host if isinstance(host, Host) else None
    return None


def edges_of_kind(graph: Graph, kind: EdgeKind) -> list[Edge]:
    """``list(graph.edges(kind))``: the edges of one kind in (source, target, key) order, sorting only those
    (:meth:`Graph.edges` sorts every edge of the graph at each call: the resolver asks five times)."""
    value = kind.value
    found = []
    succ = graph.nx._succ
    for u in _possible_sources(graph, (kind,)):  # the edges view with data, without its per-edge generator steps
        for v, keydict in succ[u].items():
            for k, rec in keydict.items():
                if (rec.form.value if type(rec) is EdgeRecord and rec.extra is None and rec.form is not None
                        else rec.get("kind")) == value:
                    found.append((u, v, k, rec))
    found.sort(key=_first3)  # (source, target, key) is unique
    return [rec.edge() if type(rec) is EdgeRecord and rec.extra is None else rec["edge"] for *_, rec in found]


def records_of_kinds(graph: Graph, *kinds: EdgeKind) -> list[list[EdgeRecord | Edge]]:
    """Per kind of ``kinds``: :func:`edges_of_kind` as the stored records, in one pass over the edges and without
    making a pydantic edge per record (issue 19).  A record reads as the edge it stores for ``source``,
    ``target``, ``key``, ``kind``, ``confidence``, ``lifetime`` and ``revoked_by``; its ``evidence`` is a tuple
    and its ``props`` None when empty (an :class:`Edge` where the storage is not compact).  Read-only: the
    records are the graph's."""
    wanted = {k.value: i for i, k in enumerate(kinds)}
    found: list[list[tuple]] = [[] for _ in kinds]
    succ = graph.nx._succ
    for u in _possible_sources(graph, kinds):
        for v, keydict in succ[u].items():
            for k, rec in keydict.items():
                i = wanted.get(rec.form.value if type(rec) is EdgeRecord and rec.extra is None and rec.form is not None
                               else rec.get("kind"))
                if i is not None:
                    found[i].append((u, v, k, rec))
    out: list[list[EdgeRecord | Edge]] = []
    for rows in found:
        rows.sort(key=_first3)
        out.append([rec if type(rec) is EdgeRecord and rec.extra is None else rec["edge"] for *_, rec in rows])
    return out


_NODE_KINDS = frozenset(k.value for k in NodeKind)


def _possible_sources(graph: Graph, kinds: Iterable[EdgeKind]) -> list[str]:
    """The nodes an edge of ``kinds`` can leave, in the graph's node order: those of a node kind the kinds'
    declarations allow as source (:class:`Graph` refuses any other edge), and any node stored without a known
    kind (one networkx made for an edge's end); every node when the storage is not graphkit's own."""
    if type(graph.nx) is not CompactMultiDiGraph:  # another storage put in place of ``nx``: every node
        return list(graph.nx._succ)
    nodes = graph.nx._node
    allowed = {n.value for k in kinds for n in EDGE_SPECS[k].sources}
    if type(nodes) is NodeTable:  # the same nodes from the kind index (in kind order: the callers sort the edges)
        index = nodes.kind_index()
        return [n for k, ids in index.items() if k in allowed or k not in _NODE_KINDS for n in ids]
    return [n for n, d in nodes.items() if d.get("kind") in allowed or d.get("kind") not in _NODE_KINDS]


def _first3(t: tuple) -> tuple:
    return t[0], t[1], t[2]


def nodes_of_kind(graph: Graph, kind: NodeKind) -> Iterator[Node]:
    """``graph.nodes(kind)``: the nodes of one kind in id order, sorting only their ids (:meth:`Graph.nodes`
    sorts every id of the graph at each call; the resolver asks about twenty times).  Like it, a generator:
    the ids are taken at the first step, each node when it is reached."""
    value = kind.value
    nodes = graph.nx._node  # networkx's node table: ``nodes(data="kind")`` without its per-node generator step
    if type(nodes) is NodeTable:  # the ids of each kind listed once until the table changes
        found = nodes.ids_of_kind(value)
    else:
        found = sorted([n for n, d in nodes.items() if d.get("kind") == value])
    for nid in found:
        data = nodes[nid]
        if data["kind"] == value:
            yield data["node"]


def weakest(*cs: Confidence) -> Confidence:
    """``possible`` if any of ``cs`` is, else ``certain``."""
    return P if P in cs else C


def owner_of(repo_full: str) -> str:
    """The owner part of ``owner/name`` (a repository name, not an id)."""
    return owner_key(repo_full.split("/", 1)[0])


def canonical(node_id: str) -> str | None:
    """``node_id`` rewritten by its constructor (``repo:Acme/App`` -> ``repo:acme/app``); None if it is no id."""
    try:
        parsed = ids.parse(node_id.strip())
        form = next(f for f in ids.FORMS_BY_KIND[parsed.kind] if f.name == parsed.form)
        return form.build(**parsed.parts)
    except ids.IdError:
        return None


def canonical_set(node_ids: Iterable[str]) -> set[str]:
    """:func:`canonical` of each id, leaving out what is no id."""
    return {c for c in map(canonical, node_ids) if c is not None}


# --------------------------------------------------------------------------- context


@dataclass
class SecretIndex:
    """Declared secrets by scope, keyed by normalised (owner | repo [, environment], NAME)."""

    org: dict[tuple[str, str], Secret] = field(default_factory=dict)
    repo: dict[tuple[str, str], Secret] = field(default_factory=dict)
    env: dict[tuple[str, str, str], Secret] = field(default_factory=dict)

    @classmethod
    def of(cls, graph: Graph) -> SecretIndex:
        """Index the secret nodes of ``graph``."""
        out = cls()
        for s in nodes_of_kind(graph, NodeKind.SECRET):
            assert isinstance(s, Secret)
            name = secret_key(s.secret_name)
            if s.scope == "org":
                out.org[(owner_key(s.owner), name)] = s
            elif s.scope == "repo" and s.repository:
                out.repo[(repo_key(s.repository), name)] = s
            elif s.scope == "env" and s.repository and s.environment:
                out.env[(repo_key(s.repository), env_key(s.environment), name)] = s
        return out

    def visible_names(self, repo_full: str, env: str | None) -> set[str]:
        """Names of the secrets declared for the organization, repository and environment of a job."""
        owner = owner_of(repo_full)
        names = {n for (o, n) in self.org if o == owner}
        names |= {n for (r, n) in self.repo if r == repo_full}
        if env is not None:
            names |= {n for (r, e, n) in self.env if r == repo_full and e == env_key(env)}
        return names


def _new_summary() -> dict[str, set[str]]:
    return {k: set() for k in ResolveSummary.model_fields}


@dataclass
class Context:
    """What one :func:`~graphkit.resolve.resolve` run reads from the graph once, and the summary it writes."""

    graph: Graph
    extra_hosted: list[str]
    self_hosted: list[str]
    complete: set[str]
    unknown_workflow_lists: set[str]
    #: owners whose runner list is complete (``meta.runner_inventory.runners_complete``)
    runners_complete: set[str]
    runners: list[Runner]
    groups: dict[str, RunnerGroup]
    repos: dict[str, Repository]
    secrets: SecretIndex = field(default_factory=SecretIndex)
    summary: dict[str, set[str]] = field(default_factory=_new_summary)
    #: per-run caches of pure functions of what the context read (``{cache name: {key: value}}``)
    memo: dict[str, dict] = field(default_factory=dict)
    _pools: dict[str, dict[str, Runner]] | None = None
    _scopes: dict[tuple[bool, str], list[tuple[int, Runner]]] | None = None

    @classmethod
    def of(cls, graph: Graph) -> Context:
        """Read runners, groups, repositories, secrets and inventory facts of ``graph``."""
        meta = graph.meta.inventory
        return cls(
            graph=graph,
            extra_hosted=list(meta.github_hosted_labels),
            self_hosted=list(meta.self_hosted_labels),
            complete=canonical_set(meta.secrets_complete),
            unknown_workflow_lists=canonical_set(meta.unknown_selected_workflows),
            runners_complete={owner_key(o) for o in meta.runners_complete},
            runners=[r for r in nodes_of_kind(graph, NodeKind.RUNNER)  # type: ignore[misc]
                     if isinstance(r, Runner) and not r.inferred and r.platform == "github"],
            groups={n.id: n for n in nodes_of_kind(graph, NodeKind.RUNNER_GROUP) if isinstance(n, RunnerGroup)},
            repos={repo_key(n.full_name): n for n in nodes_of_kind(graph, NodeKind.REPOSITORY)
                   if isinstance(n, Repository)},
            secrets=SecretIndex.of(graph),
        )

    @staticmethod
    def scope_parts(repo_full: str) -> tuple[tuple[bool, str], tuple[bool, str]]:
        """The two runner scopes of ``repo_full`` (``owner/name`` lower-cased): ``(True, repo)`` for its
        repository runners, ``(False, owner)`` for its organization's."""
        return (True, repo_full), (False, owner_of(repo_full))

    def runners_of_scope(self, part: tuple[bool, str]) -> list[tuple[int, Runner]]:
        """``(position in runners, runner)`` of the runners of one scope (:meth:`scope_parts`), in
        :attr:`runners` order."""
        if self._scopes is None:
            self._scopes = {}
            for i, r in enumerate(self.runners):
                self._scopes.setdefault(("/" in r.scope, repo_key(r.scope)), []).append((i, r))
        return self._scopes.get(part, [])

    def runners_in_scope(self, repo_full: str) -> list[tuple[int, Runner]]:
        """``(position in runners, runner)`` of the runners ``repo_full`` may use by scope: its repository
        runners, then its organization's (sort by position for :attr:`runners` order)."""
        return [t for part in self.scope_parts(repo_full) for t in self.runners_of_scope(part)]

    def pools(self, owner: str) -> list[Runner]:
        """Inferred pools of ``owner`` (indexed once, kept up to date by :meth:`add_pool`)."""
        if self._pools is None:
            self._pools = {}
            for r in nodes_of_kind(self.graph, NodeKind.RUNNER):
                if isinstance(r, Runner) and r.inferred and r.platform == "github":
                    self._pools.setdefault(owner_key(r.scope), {})[r.id] = r
        return [self._pools.get(owner, {})[k] for k in sorted(self._pools.get(owner, {}))]

    def add_pool(self, pool: Runner) -> Runner:
        """Add an inferred pool to the graph (merged with an equal id) and to the index :meth:`pools` reads."""
        stored = self.graph.add_node(pool)
        assert isinstance(stored, Runner)
        if self._pools is not None:
            self._pools.setdefault(owner_key(stored.scope), {})[stored.id] = stored
        return stored

    def runs_self_hosted(self, labels: Iterable[str]) -> bool:
        """:func:`graphkit.hosted.is_self_hosted` of a ``runs-on`` label set with the inventory's overrides (once
        per label set in a run)."""
        key = tuple(labels)
        memo = self.memo.setdefault("self_hosted", {})
        if key not in memo:
            memo[key] = is_self_hosted(key, extra_hosted=self.extra_hosted, self_hosted=self.self_hosted)
        return memo[key]

    def is_complete(self, build: Callable[..., str], *values: str) -> bool:
        """Whether the secret list of the scope whose id is ``build(*values)`` is known complete."""
        try:
            return build(*values) in self.complete
        except ids.IdError:
            return False

    def problem(self, evidence: Evidence, error: ids.IdError) -> None:
        """Record a value that cannot be part of an id (once, however often :func:`resolve` runs), under the file
        :func:`problem_file` names."""
        place = evidence.yaml_path or ""
        if evidence.line is not None:
            place = f"{place} (line {evidence.line})".strip()
        problem = Problem(file=problem_file(evidence), place=place, reason=str(error))
        if problem not in self.graph.meta.problems:
            self.graph.meta.problems = [*self.graph.meta.problems, problem]


def problem_file(evidence: Evidence) -> str:
    """The file a resolver problem names: ``{repository}:{file}`` for a file of a repository checkout (its
    ``file`` is relative to the checkout), else ``file``."""
    return f"{evidence.repository}:{evidence.file}" if evidence.repository else evidence.file


def context_repo(job: Job) -> str:
    """The repository whose runners and secrets a job uses (the caller's for reusable workflows)."""
    return repo_key(job.secrets_repository or job.repository)


def context_owner(job: Job) -> str:
    """Owner (lower-cased) of the repository whose runners ``job`` may use."""
    return owner_of(context_repo(job))
