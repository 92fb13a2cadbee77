"""Shared plumbing of the command line: consoles, input options, building, errors, exit codes.

Used by :mod:`graphkit.cli` and the command groups of other modules (e.g.
:mod:`graphkit.neo4j.cli`) so that every command takes the same inputs and
reports errors the same way.  Only the CLI turns :class:`GraphkitError` into
messages and exit codes.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from graphkit import registry
from graphkit.build import BuildResult, build_graph
from graphkit.errors import GraphkitError
from graphkit.graph import Graph

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_PARTIAL = 0, 1, 2, 3

# Ids must stay copyable: never crop them to an 80-column default when piped.
out = Console(soft_wrap=True, width=None if sys.stdout.isatty() else 240, emoji=False)  # ids hold ":secret:"
err = Console(stderr=True, soft_wrap=True)



class Format(str, Enum):
    table = "table"
    json = "json"


GithubActionsOpt = Annotated[list[str], typer.Option(
    "--github-actions", metavar="DIR", help="Repository checkout(s): DIR, OWNER/NAME=DIR, or a folder of "
    "owner__name checkouts. Repeatable.")]
RunnersOpt = Annotated[list[Path], typer.Option(
    "--runners", metavar="FILE", help="Runner inventory file(s) (YAML/JSON, graphkit.runner-inventory/v1).")]
AwsIamOpt = Annotated[list[Path], typer.Option(
    "--aws-iam", metavar="FILE", help="AWS IAM export(s): get-account-authorization-details JSON (one per account), "
    "get-role, credential report, policy documents, CloudFormation templates; or a folder of them. Repeatable.")]
GraphOpt = Annotated[Optional[Path], typer.Option("--graph", "-g", metavar="FILE", help="Graph file from 'graphkit build'.")]
SourcesOpt = Annotated[list[str], typer.Option("--from", metavar="ID", help="Source node id (runner, host, job...). "
                                              "Repeatable: the union is analysed.")]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]


def inputs(github_actions: list[str], runners: list[Path], aws_iam: list[Path] = ()) -> dict[str, list]:  # type: ignore[assignment]
    return {"github-actions": list(github_actions), "runners": list(runners), "aws-iam": list(aws_iam)}


def build_with_progress(inputs: dict[str, list]) -> BuildResult:
    """Run the build with a progress bar on stderr and report skipped inputs."""
    total = sum(registry.get(name).count([Path(p) for p in paths]) for name, paths in inputs.items() if paths)
    with Progress(TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err, transient=True, disable=total < 20) as bar:
        task = bar.add_task("reading inputs", total=total or None)
        result = build_graph(inputs, progress=lambda n, what: bar.update(task, advance=n, description=what[-40:]))
    for p in result.problems:
        err.print(f"[yellow]skipped[/yellow] {escape(str(p))}", highlight=False)
    if result.problems and not any(s["items"] for s in result.graph.meta["sources"].values()):
        raise GraphkitError("nothing could be read from the inputs (see the skipped inputs above)")
    return result


def load_or_build(graph: Optional[Path], github_actions: list[str], runners: list[Path],
                   aws_iam: list[Path] = ()) -> tuple[Graph, bool]:  # type: ignore[assignment]
    if graph is not None:
        if github_actions or runners or aws_iam:
            raise typer.BadParameter("give either --graph or input options, not both")
        loaded = Graph.load(graph)
        return loaded, bool(loaded.meta.get("problems"))
    if not (github_actions or runners or aws_iam):
        raise typer.BadParameter("give --graph FILE or at least one input (--github-actions, --runners, --aws-iam)")
    result = build_with_progress(inputs(github_actions, runners, aws_iam))
    return result.graph, result.partial


def fail(exc: GraphkitError) -> None:
    err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
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
    src = escape(", ".join(graph.node(s).name for s in doc["source"]))
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
            out.print(f"  [{style}]{crit:<8}[/{style}] {escape(r['id'])}  [dim]{r['confidence']}, "
                      f"{r['lifetime']}[/dim]", highlight=False)
            out.print(f"           path: {escape(_path_text(graph, r['path']))}", highlight=False)
            out.print(f"           evidence: {escape(_evidence_text(r['path']))}", style="dim", highlight=False)
    out.print(f"\n[bold]Revocation plan[/bold] (weighted blast radius {doc['weight']} -> {doc['residual_weight']})",
              highlight=False)
    for s in doc["revocations"]:
        cuts = ", ".join(graph.node(c).name for c in s["cuts"][:5]) + (", ..." if len(s["cuts"]) > 5 else "")
        out.print(f"  {s['rank']:>2}. [bold]{s['action']}[/bold] {escape(s['target'])}  [dim]residual "
                  f"{s['residual_weight']}[/dim]", highlight=False)
        if s["cuts"]:
            what = f"cuts {len(s['cuts'])}: {escape(cuts)}"
        elif s["long_lived"]:
            what = "cuts nothing by itself (other footholds still reach it all)"
        else:
            what = f"cuts nothing in the graph by itself: {escape(s['description'])}"
        out.print(f"      {escape('[' + s['phase'] + ']')} {what}", style="dim", highlight=False)
    hidden = doc["counts"]["revocations"] - len(doc["revocations"])
    if hidden > 0:
        out.print(f"  ... {hidden} more step(s) down to residual {doc['residual_weight']} (--top limits the list)",
                  style="dim", highlight=False)
    if doc["partial_input"]:
        err.print("[yellow]partial input:[/yellow] some files or places were skipped; the radius may be larger")
