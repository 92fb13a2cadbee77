"""Shared plumbing of the command line: consoles, input options, building, errors, exit codes.

Used by :mod:`graphkit.cli` and the command groups of other modules (e.g.
:mod:`graphkit.neo4j.cli`) so that every command takes the same inputs and
reports errors the same way.  Only the CLI turns :class:`GraphkitError` into
messages and exit codes.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from graphkit import registry
from graphkit.build import BuildResult, build_graph
from graphkit.errors import GraphkitError
from graphkit.graph import Graph
from graphkit.output import term

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_PARTIAL = 0, 1, 2, 3

# Ids must stay copyable: never crop them to an 80-column default when piped.
out = Console(soft_wrap=True, width=None if sys.stdout.isatty() else 240, emoji=False)  # ids hold ":secret:"
err = Console(stderr=True, soft_wrap=True, emoji=False)  # input text like ":fire:" stays as written



class Format(str, Enum):
    table = "table"
    json = "json"


GraphOpt = Annotated[Optional[Path], typer.Option("--graph", "-g", metavar="FILE", help="Graph file from 'graphkit build'.")]
SourcesOpt = Annotated[list[str], typer.Option("--from", metavar="ID", help="Source node id (runner, host, job...). "
                                              "Repeatable: the union is analysed.")]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]


class GraphInput:
    """What a command reads: a saved graph (``--graph``) or the inputs of ``build`` (one option per ingestor).

    ``inputs``: ingestor name -> values as given (``--github-actions DIR`` ...).
    """

    def __init__(self, graph: Path | None, inputs: dict[str, list[str]]) -> None:
        self.graph, self.inputs = graph, {k: v for k, v in inputs.items() if v}

    def build(self) -> BuildResult:
        """Build from the inputs with a progress bar on stderr, naming every skipped input there.

        Raises
        ------
        GraphkitError
            when nothing could be read (:meth:`BuildResult.check_readable`).
        """
        total = sum(registry.get(name).count(paths) for name, paths in self.inputs.items())
        with Progress(TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=err, transient=True, disable=total < 20) as bar:
            task = bar.add_task("reading inputs", total=total or None)
            result = build_graph(self.inputs, progress=lambda n, what: bar.update(task, advance=n,
                                                                                 description=what[-40:]))
        for p in result.problems:
            err.print(f"[yellow]skipped[/yellow] {term(str(p))}", highlight=False)
        return result.check_readable()

    def load(self) -> tuple[Graph, bool]:
        """``(graph, partial)`` from ``--graph`` or from the inputs.

        Raises
        ------
        typer.BadParameter
            when both or neither are given.
        GraphkitError
            for an unreadable graph file or inputs of which nothing could be read.
        """
        if self.graph is not None:
            if self.inputs:
                raise typer.BadParameter("give either --graph or input options, not both")
            loaded = Graph.load(self.graph)
            return loaded, loaded.meta.partial
        if not self.inputs:
            raise typer.BadParameter(f"give --graph FILE or at least one input ({input_flags()})")
        result = self.build()
        return result.graph, result.partial


def input_flags() -> str:
    """``--github-actions, --runners, ...``: the input options, from the ingestor registry."""
    return ", ".join(f"--{name}" for name in registry.ingestors())


def reads_graph(*, graph_file: bool = True) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command the input options of every registered ingestor (and ``--graph`` unless ``graph_file`` is
    False), passed to it as its ``given: GraphInput`` parameter.

    A new ingestor (entry point ``graphkit.ingestors``) adds its ``--<name>`` option, with its
    :class:`~graphkit.ingestor.InputOption` metavar and help, to every such command without editing them.
    """
    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        sig = inspect.signature(fn, eval_str=True)
        own = [p for p in sig.parameters.values() if p.name != "given"]
        sources = registry.ingestors()
        names = {name: "in_" + name.replace("-", "_") for name in sources}
        added = [inspect.Parameter("graph", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=GraphOpt)] \
            if graph_file else []
        for name, ingestor in sources.items():
            option = typer.Option(f"--{name}", metavar=ingestor.option.metavar, help=ingestor.option.help)
            added.append(inspect.Parameter(names[name], inspect.Parameter.KEYWORD_ONLY, default=[],
                                           annotation=Annotated[list[str], option]))

        @functools.wraps(fn)
        def command(*args: Any, **kwargs: Any) -> Any:
            graph = kwargs.pop("graph", None)
            inputs = {name: list(kwargs.pop(py) or []) for name, py in names.items()}
            return fn(*args, given=GraphInput(graph, inputs), **kwargs)

        params = own + added
        command.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        return command
    return decorate


def fail(exc: GraphkitError) -> None:
    err.print(f"[red]error:[/red] {term(str(exc))}", highlight=False)
    raise typer.Exit(EXIT_ERROR)


def _path_text(graph: Graph, hops: list[dict]) -> str:
    """``a -kind-> b -kind?-> c`` (``?`` marks a possible edge)."""
    names = [graph.node(hops[0]["source"]).name] if hops else []
    for h in hops:
        mark = "" if h["confidence"] == "certain" else "?"
        names.append(f"-{h['kind']}{mark}-> {graph.node(h['target']).name}")
    return " ".join(names)


def _evidence_text(hops: list[dict]) -> str:
    """Where the last hop was seen: ``repo:file:line (yaml.path)``."""
    if not hops or not hops[-1]["evidence"]:
        return ""
    e = hops[-1]["evidence"][0]
    where = f"{e['repository']}:{e['file']}" if e.get("repository") else e["file"]
    where += f":{e['line']}" if e.get("line") else ""
    return where + (f" ({e['yaml_path']})" if e.get("yaml_path") else "")


def print_blast_radius(graph: Graph, doc: dict) -> None:
    src = term(", ".join(graph.node(s).name for s in doc["source"]))
    counts = doc["counts"]
    shown = "" if len(doc["reached"]) == counts["reached"] else f" (top {len(doc['reached'])} shown)"
    out.print(f"[bold]Blast radius of {src}[/bold]: {counts['reached']} reachable node(s){shown}, "
              f"{counts['by_criticality'].get('critical', 0)} critical, weighted {doc['weight']}", highlight=False)
    groups: dict[str, list[dict]] = {}
    for r in doc["reached"]:  # already ordered critical first
        groups.setdefault(r["kind"], []).append(r)
    for kind, rows in groups.items():
        total = counts["by_kind"][kind]
        n = f"{len(rows)} of {total}" if len(rows) < total else str(total)
        out.print(f"\n[bold underline]{kind}[/bold underline] ({n})", highlight=False)
        for r in rows:
            crit = r["criticality"].upper()
            style = "bold red" if crit == "CRITICAL" else "yellow" if crit == "HIGH" else "dim"
            out.print(f"  [{style}]{crit:<8}[/{style}] {term(r['id'])}  [dim]{r['confidence']}, "
                      f"{r['lifetime']}[/dim]", highlight=False)
            out.print(f"           path: {term(_path_text(graph, r['path']))}", highlight=False)
            out.print(f"           evidence: {term(_evidence_text(r['path']))}", style="dim", highlight=False)
    out.print(f"\n[bold]Revocation plan[/bold] (weighted blast radius {doc['weight']} -> {doc['residual_weight']})",
              highlight=False)
    for s in doc["revocations"]:
        cuts = ", ".join(graph.node(c).name for c in s["cuts"][:5]) + (", ..." if len(s["cuts"]) > 5 else "")
        out.print(f"  {s['rank']:>2}. [bold]{s['action']}[/bold] {term(s['target'])}  [dim]residual "
                  f"{s['residual_weight']}[/dim]", highlight=False)
        if s["cuts"]:
            what = f"cuts {len(s['cuts'])}: {term(cuts)}"
        elif s["long_lived"]:
            what = "cuts nothing by itself (other footholds still reach it all)"
        else:
            what = f"cuts nothing in the graph by itself: {term(s['description'])}"
        out.print(f"      {term('[' + s['phase'] + ']')} {what}", style="dim", highlight=False)
    hidden = doc["counts"]["revocations"] - len(doc["revocations"])
    if hidden > 0:
        out.print(f"  ... {hidden} more step(s) down to residual {doc['residual_weight']} (--top limits the list)",
                  style="dim", highlight=False)
    _print_time(doc.get("time"))
    if doc["partial_input"]:
        err.print("[yellow]partial input:[/yellow] some files or places were skipped; the radius may be larger")


def _print_time(time: dict | None) -> None:
    """The tokens and sessions section (``--now``/``--tokens``): each with its status, then the notes."""
    if not time or not (time["tokens"] or time["notes"]):
        return
    out.print(f"\n[bold]Tokens and sessions[/bold] at {time['now']}", highlight=False)
    for t in time["tokens"]:
        out.print(f"  {t['status']:<17} {term(t['kind'])} {term(t['subject'])}  [dim]{term(t['reason'])}[/dim]",
                  highlight=False)
    for n in time["notes"]:
        out.print(f"  {term(n)}", style="dim", highlight=False)
