"""Build a graph from inputs: run the ingestors, merge, classify targets, then resolve cross-source edges."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from graphkit import registry
from graphkit.errors import GraphkitError, InputError
from graphkit.graph import Graph
from graphkit.ingestor import IngestResult, Progress
from graphkit.model.bounds import take_refusals
from graphkit.meta import GraphMeta, Problem, SourceStatus, absolute_inputs
from graphkit.resolve import resolve
from graphkit.resolve.context import problem_file
from graphkit.targets import classify_targets

__all__ = ["BuildResult", "build_graph"]


@dataclass
class BuildResult:
    """A built graph and the problems met.

    ``partial``: some file or place was skipped (the output covers the
    rest).  ``nothing_readable``: inputs were given but not one item of any
    source could be read: an error, never an empty graph.
    """

    graph: Graph
    problems: list[InputError] = field(default_factory=list)

    @property
    def partial(self) -> bool:
        """True when some file or place was skipped."""
        return bool(self.problems)

    @property
    def nothing_readable(self) -> bool:
        """True when there were problems and no source read a single item."""
        return self.partial and not any(s.items for s in self.graph.meta.sources.values())

    def check_readable(self) -> "BuildResult":
        """``self``, unless nothing could be read.

        Raises
        ------
        GraphkitError
            when :attr:`nothing_readable` (the problems say why).
        """
        if self.nothing_readable:
            raise GraphkitError("nothing could be read from the inputs (see the skipped inputs above)")
        return self


def _expanded(inputs: Mapping[str, Sequence[str | Path]]) -> dict[str, list[str | Path]]:
    """Inputs of a composite source (an ingestor with ``expand(paths) -> {name: paths}``, e.g. a GitHub snapshot
    folder holding an inventory and checkouts) handed to the sources they belong to, through the registry, so
    that they merge exactly as the same inputs given one by one."""
    out: dict[str, list[str | Path]] = {}
    for name, paths in inputs.items():
        expand = getattr(registry.get(name), "expand", None)  # GraphkitError naming the installed ingestors
        for part, given in (expand(list(paths)) if callable(expand) and paths else {name: paths}).items():
            out.setdefault(part, []).extend(given)
    return out


def reads_file(inputs: Mapping[str, Sequence[str | Path]], target: Path) -> bool:
    """Whether building ``inputs`` reads ``target`` (any path; compared resolved): a file a source collects from
    them, as :func:`build_graph` does (composite sources expanded, then each file source's ``collect``: the
    workflow and action files of a checkout, the JSON and YAML of a ``--runners`` or ``--aws-iam`` folder, every
    extension its reader takes), or any path inside an input of a source that lists no files (a snapshot folder).
    I/O: lists the folders.  ``-o`` never replaces such a file (:meth:`graphkit.cli_common.GraphInput.holds`).

    Raises
    ------
    GraphkitError
        for an ingestor name not installed.
    """
    target = Path(target).resolve()
    for name, paths in _expanded(inputs).items():
        collect = getattr(registry.get(name), "collect", None)
        if collect is None:
            if any(target == p or p in target.parents for p in (Path(x).resolve() for x in paths)):
                return True
        elif any(f.path.resolve() == target for f in collect(paths).files):
            return True
    return False


def _canonical(inputs: Mapping[str, Sequence[str | Path]]) -> list[tuple[str, list[str]]]:
    """Sources in registry order, each source's paths sorted and deduplicated: the graph does not depend on the
    order in which inputs are given (merging keeps the first observation's evidence first)."""
    inputs = _expanded(inputs)
    for name in inputs:
        registry.get(name)  # GraphkitError naming the installed ingestors for an unknown name
    order = list(registry.ingestors())
    return [(name, sorted({str(p) for p in inputs[name]})) for name in order if inputs.get(name)]


def build_graph(inputs: Mapping[str, Sequence[str | Path]], progress: Progress | None = None) -> BuildResult:
    """Run the named ingestors on their paths, merge, classify deployment targets and resolve.

    Parameters
    ----------
    inputs
        ingestor name (``github-actions``, ``runners``...) -> paths.  The
        order of names and paths does not matter.
    progress
        optional callback ``(advance, description)``.

    Returns
    -------
    BuildResult
        ``graph.meta`` (:class:`~graphkit.meta.GraphMeta`) records the inputs,
        per-source completeness and problems.

    Raises
    ------
    GraphkitError
        for an unknown ingestor name (bad input files never raise: they are
        recorded in ``problems``).
    """
    with _collector_paused():
        return _build(inputs, progress)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while the build allocates.

    A build allocates millions of long-lived objects (models, evidence, networkx dicts) and frees little:
    CPython's collector would traverse the growing heap again and again (a third of the build's CPU at 10^5
    edges, issue 19).  On the way out, what the build allocated is moved to the oldest generation unscanned
    (``gc.freeze()`` then ``gc.unfreeze()``: two list splices, and the young generation's count reset), as
    :func:`graphkit.analysis.reach` does: a young-generation pass here traversed every object the build made
    (6% of the build at 10^5 edges) to find a few thousand in cycles, which the next full collection frees as
    it would have.  When the caller froze objects itself (``gc.get_freeze_count()``), unfreezing would undo
    that: one young-generation pass instead (https://docs.python.org/3/library/gc.html#gc.freeze).  Reference
    counting frees everything else as usual; a collector the caller had disabled stays disabled.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count():
                gc.collect(1)
            else:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _build(inputs: Mapping[str, Sequence[str | Path]], progress: Progress | None) -> BuildResult:
    """:func:`build_graph` (the collector paused)."""
    graph = Graph()
    graph._parts.remember_ids()  # the evidence handed from edge to edge is found by identity while building
    try:
        return _build_into(graph, inputs, progress)
    finally:
        graph._parts.forget_ids()


def _build_into(graph: Graph, inputs: Mapping[str, Sequence[str | Path]], progress: Progress | None) -> BuildResult:
    """:func:`_build` into ``graph``."""
    sources = _canonical(inputs)
    take_refusals()  # values left out before this build (a graph loaded earlier) are not its problems
    results = {name: registry.get(name).ingest(paths, progress=progress) for name, paths in sources}
    for res in results.values():
        for n in res.nodes:
            graph.add_node(n)
    for res in results.values():
        for identity, e in res.graph.edges.items():  # IngestResult.edges, each under its identity
            graph._add_edge(e, identity)
    problems = [p for res in results.values() for p in res.problems]
    facts: dict = {}
    for res in results.values():
        facts.update(res.meta)
    graph.meta = GraphMeta(
        inputs=dict(sources),
        input_roots=absolute_inputs(dict(sources), Path.cwd()),
        sources={name: SourceStatus(complete=res.complete, items=res.items) for name, res in results.items()},
        problems=[Problem(**p.as_dict()) for p in problems],
        **facts,
    )
    classify_targets(graph)
    resolve(graph)
    # places the resolver could not link (e.g. a label no id can hold) are problems of the build too, and so are
    # the attribute strings nodes left out (graphkit.model.bounds), whoever built the node
    graph.meta.problems = [*graph.meta.problems, *(Problem(file=f, place=pl, reason=r) for f, pl, r in take_refusals())]
    unlinked = graph.meta.problems[len(problems):]
    problems += [InputError(p.file, p.place, p.reason) for p in unlinked]
    if unlinked:
        _unlinked_sources_partial(graph, results, {p.file for p in unlinked})
    return BuildResult(graph=graph, problems=problems)


def _unlinked_sources_partial(graph: Graph, results: Mapping[str, IngestResult], files: set[str]) -> None:
    """Mark partial (``meta.sources[name].complete = False``) every source whose nodes or edges come from a file
    holding a place the resolver could not link (``files``, as :func:`graphkit.resolve.context.problem_file`
    names them): what that place would have linked is unknown, never absent, so a Neo4j sync keeps the source's
    earlier data instead of removing it as stale."""
    for name, res in results.items():
        status = graph.meta.sources.get(name)
        if status is None or not status.complete:
            continue
        items = (*res.graph.nodes.values(), *res.graph.edges.values())
        if any(problem_file(ev) in files for item in items for ev in item.evidence):
            graph.meta.sources[name] = SourceStatus(complete=False, items=status.items)
