"""Join GitLab registrations seen on a host to the runners of the GitLab inventory (pure graph -> graph).

``graphkit collect host`` reads each ``[[runners]]`` table of a GitLab runner ``config.toml``
(https://docs.gitlab.com/runner/configuration/advanced-configuration/) as a runner named after its ``name`` on the
instance host, with its ``id`` and a keyed fingerprint of its ``token`` (:func:`graphkit.redact.fingerprint`; the
token is never kept).  The inventory names a runner after its ``description`` (``GET /runners/:id``), which
need not be the same text.  A host-observed GitLab runner joins the inventory runner of the same instance whose
``token_fingerprint`` equals its token fingerprint (computed with the same key), else whose runner ``id``
equals the ``id`` of its ``config.toml`` table (GitLab Runner writes it at registration): the two become one
node (the inventory's id, the host's registration), and every edge and runner reference follows.  A host
registration that joins no inventory runner stays unvetted (the runner-on-runner signal, semantics §7).
"""

from __future__ import annotations

from graphkit.graph import Graph
from graphkit.model import Cache, Credential, Edge, NodeKind, Runner
from graphkit.model.evidence import merge_evidence
from graphkit.resolve.context import nodes_of_kind

__all__ = ["join_gitlab_registrations"]


def _key(r: Runner) -> str:
    return (r.gitlab.instance if r.gitlab else r.scope).lower()


def _match(seen: Runner, listed: list[Runner]) -> Runner | None:
    """The inventory runner ``seen`` (host-observed) is: by token fingerprint, else by runner id."""
    reg = seen.registration
    if reg is None:
        return None
    same = [r for r in listed if _key(r) == _key(seen)]
    fp = reg.credential_fingerprint
    by_fp = [r for r in same if fp and r.gitlab and r.gitlab.token_fingerprint
             and r.gitlab.token_fingerprint.lower() == fp.lower()]
    if len(by_fp) == 1:
        return by_fp[0]
    by_id = [r for r in same if reg.agent_id is not None and r.gitlab and r.gitlab.runner_id == reg.agent_id]
    return by_id[0] if len(by_id) == 1 else None


def _joined(listed: Runner, seen: Runner) -> Runner:
    """The inventory runner with what the host saw (registration, host; executor facts it did not state)."""
    info = listed.gitlab
    if info is not None and seen.gitlab is not None:
        host_facts = {k: v for k, v in seen.gitlab.model_dump().items()
                      if v is not None and getattr(info, k) is None}
        info = info.model_copy(update=host_facts)
    return listed.model_copy(update={"registration": seen.registration, "host": listed.host or seen.host,
                                     "gitlab": info, "evidence": merge_evidence(listed.evidence, seen.evidence)})


def _repoint(graph: Graph, old: str, new: str) -> None:
    """Every edge of ``old`` moved to ``new``; runner references in credentials and caches rewritten."""
    edges = [*graph.in_edges(old), *graph.out_edges(old)]
    graph.nx.remove_node(old)
    for e in edges:
        graph.add_edge(Edge(**{**e.model_dump(), "source": new if e.source == old else e.source,
                               "target": new if e.target == old else e.target}))
    for node in list(nodes_of_kind(graph, NodeKind.CREDENTIAL)) + list(nodes_of_kind(graph, NodeKind.CACHE)):
        fields = ("readable_by",) if isinstance(node, Credential) else ("read_by", "written_by")
        update = {f: sorted(new if x == old else x for x in getattr(node, f)) for f in fields
                  if isinstance(node, (Credential, Cache)) and old in (getattr(node, f) or [])}
        if update:
            graph.replace_node(node.model_copy(update=update))


def join_gitlab_registrations(graph: Graph) -> list[str]:
    """Merge each host-observed GitLab runner into the inventory runner it is (module docstring).

    Parameters
    ----------
    graph
        a merged graph.

    Returns
    -------
    list of str
        ``"{host-observed id} -> {inventory id}"`` per join, in id order (idempotent: a second call joins nothing).
    """
    runners = [r for r in nodes_of_kind(graph, NodeKind.RUNNER) if isinstance(r, Runner) and r.platform == "gitlab"]
    listed = [r for r in runners if r.in_inventory and r.registration is None]
    joins = []
    for seen in runners:
        if seen.registration is None or seen.in_inventory:
            continue
        target = _match(seen, listed)
        if target is None or target.id == seen.id:
            continue
        graph.replace_node(_joined(target, seen))
        _repoint(graph, seen.id, target.id)
        listed.remove(target)
        joins.append(f"{seen.id} -> {target.id}")
    return joins
