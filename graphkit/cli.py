"""The ``graphkit`` command line: a thin layer over the library.

Exit codes: 0 ok, 1 error, 2 usage, 3 partial input (some files or places were
skipped; the output covers everything else).
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from graphkit import registry
from graphkit.build import BuildResult, build_graph
from graphkit.errors import GraphkitError, UnknownNodeError
from graphkit.graph import Graph
from graphkit.model import node_kind

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_PARTIAL = 0, 1, 2, 3

app = typer.Typer(no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                  help="Blast radius of CI/CD build runners: what a compromised runner reaches, what to revoke first.")
out = Console(soft_wrap=True)
err = Console(stderr=True)


class Format(str, Enum):
    table = "table"
    json = "json"


GithubActionsOpt = Annotated[list[str], typer.Option(
    "--github-actions", metavar="DIR", help="Repository checkout(s): DIR, OWNER/NAME=DIR, or a folder of "
    "owner__name checkouts. Repeatable.")]
RunnersOpt = Annotated[list[Path], typer.Option(
    "--runners", metavar="FILE", help="Runner inventory file(s) (YAML/JSON, graphkit.runner-inventory/v1).")]
GraphOpt = Annotated[Optional[Path], typer.Option("--graph", "-g", metavar="FILE", help="Graph file from 'graphkit build'.")]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]


def _inputs(github_actions: list[str], runners: list[Path]) -> dict[str, list]:
    return {"github-actions": list(github_actions), "runners": list(runners)}


def _build(inputs: dict[str, list]) -> BuildResult:
    """Run the build with a progress bar on stderr and report skipped inputs."""
    total = sum(registry.get(name).count([Path(p) for p in paths]) for name, paths in inputs.items() if paths)
    with Progress(TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err, transient=True, disable=total < 20) as bar:
        task = bar.add_task("reading inputs", total=total or None)
        result = build_graph(inputs, progress=lambda n, what: bar.update(task, advance=n, description=what[-40:]))
    for p in result.problems:
        err.print(f"[yellow]skipped[/yellow] {p}", highlight=False)
    return result


def _load_or_build(graph: Optional[Path], github_actions: list[str], runners: list[Path]) -> tuple[Graph, bool]:
    if graph is not None:
        if github_actions or runners:
            raise typer.BadParameter("give either --graph or input options, not both")
        loaded = Graph.load(graph)
        return loaded, bool(loaded.meta.get("problems"))
    if not (github_actions or runners):
        raise typer.BadParameter("give --graph FILE or at least one input (--github-actions, --runners)")
    result = _build(_inputs(github_actions, runners))
    return result.graph, result.partial


def _fail(exc: GraphkitError) -> None:
    err.print(f"[red]error:[/red] {exc}", highlight=False)
    raise typer.Exit(EXIT_ERROR)


@app.command()
def build(
    github_actions: GithubActionsOpt = [],
    runners: RunnersOpt = [],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="FILE", help="Where to write the graph JSON.")]
    = Path("graph.json"),
) -> None:
    """Build the graph from inputs and save it (summary: counts per kind, skipped inputs)."""
    if not (github_actions or runners):
        raise typer.BadParameter("give at least one input (--github-actions, --runners)")
    try:
        result = _build(_inputs(github_actions, runners))
        result.graph.save(output)
    except GraphkitError as exc:
        _fail(exc)
    counts = result.graph.counts()
    table = Table(title=f"graph written to {output}", show_edge=False)
    table.add_column("nodes", style="bold")
    table.add_column("count", justify="right")
    table.add_column("edges", style="bold")
    table.add_column("count", justify="right")
    nodes, edges = list(counts["nodes"].items()), list(counts["edges"].items())
    for i in range(max(len(nodes), len(edges))):
        n = nodes[i] if i < len(nodes) else ("", "")
        e = edges[i] if i < len(edges) else ("", "")
        table.add_row(n[0], str(n[1]), e[0], str(e[1]))
    out.print(table)
    if result.partial:
        err.print(f"[yellow]partial:[/yellow] {len(result.problems)} input problem(s), see above")
        raise typer.Exit(EXIT_PARTIAL)


@app.command()
def nodes(
    graph: Annotated[Path, typer.Option("--graph", "-g", metavar="FILE", help="Graph file from 'graphkit build'.")],
    kind: Annotated[Optional[str], typer.Option("--kind", "-k", help="Node kind, e.g. runner, job, secret, "
                                                "cloud_role (case-insensitive, - or _).")] = None,
    fmt: FormatOpt = Format.table,
) -> None:
    """List nodes (id, kind, name)."""
    try:
        k = node_kind(kind) if kind else None
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--kind") from None
    try:
        g = Graph.load(graph)
    except GraphkitError as exc:
        _fail(exc)
    rows = [{"id": n.id, "kind": n.spec.kind.value, "name": n.name, "criticality": n.criticality.value,
             "inferred": n.inferred} for n in g.nodes(k)]
    if fmt is Format.json:
        out.print_json(json.dumps(rows))
        return
    table = Table(show_edge=False)
    for col in ("id", "kind", "name", "criticality"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["id"], r["kind"], r["name"], r["criticality"])
    out.print(table)
    err.print(f"{len(rows)} node(s)")


def main() -> None:  # pragma: no cover - console entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
