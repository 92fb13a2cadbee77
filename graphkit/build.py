"""Build a graph from inputs: run ingestors, merge, then resolve cross-source edges."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from graphkit import registry
from graphkit.errors import InputError
from graphkit.graph import Graph
from graphkit.registry import Progress
from graphkit.resolve import resolve

__all__ = ["BuildResult", "build_graph"]


@dataclass
class BuildResult:
    """A built graph and the problems met (``partial`` when any input was skipped)."""

    graph: Graph
    problems: list[InputError] = field(default_factory=list)

    @property
    def partial(self) -> bool:
        """True when some file or place was skipped."""
        return bool(self.problems)


def build_graph(inputs: Mapping[str, Sequence[Path]], progress: Progress | None = None) -> BuildResult:
    """Run the named ingestors on their paths and resolve the result.

    Parameters
    ----------
    inputs
        ingestor name (``github-actions``, ``runners``...) -> paths.
    progress
        optional callback ``(advance, description)``.

    Returns
    -------
    BuildResult
        ``graph.meta`` records the inputs, per-source completeness and problems.

    Raises
    ------
    GraphkitError
        for an unknown ingestor name (bad input files never raise: they are
        recorded in ``problems``).
    """
    graph = Graph()
    results = {name: registry.get(name).ingest([Path(p) for p in paths], progress=progress)
               for name, paths in inputs.items() if paths}
    for res in results.values():
        for n in res.nodes:
            graph.add_node(n)
    for res in results.values():
        for e in res.edges:
            graph.add_edge(e)
    problems = [p for res in results.values() for p in res.problems]
    meta: dict = {}
    for res in results.values():
        meta.update(res.meta)
    graph.meta = {
        "inputs": {name: [str(p) for p in paths] for name, paths in inputs.items() if paths},
        "sources": {name: {"complete": res.complete, "items": res.items} for name, res in results.items()},
        "problems": [p.as_dict() for p in problems],
        **meta,
    }
    resolve(graph)
    return BuildResult(graph=graph, problems=problems)
