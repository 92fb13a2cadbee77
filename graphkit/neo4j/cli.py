"""Command line for the Neo4j backend: ``graphkit neo4j sync`` and ``graphkit query``.

Registered on the main Typer app by :mod:`graphkit.cli`; the business logic is
in :mod:`graphkit.neo4j.sync`, :mod:`graphkit.neo4j.library` and
:mod:`graphkit.neo4j.reach`.  Connection settings come from the flags or
``NEO4J_URI``, ``NEO4J_USERNAME``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``; the
password is never printed.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from graphkit import cli_common as base
from graphkit.cli_common import GraphInput, reads_graph
from graphkit.output import neutralise, print_json, term
from graphkit.neo4j.connection import DEFAULT_DATABASE, DEFAULT_URI, DEFAULT_USER, Neo4jSettings

__all__ = ["neo4j_app", "query_cmd", "settings_from_options", "Backend", "BackendOpt", "blast_radius_neo4j"]

neo4j_app = typer.Typer(no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                        help="Neo4j: sync the graph into a Neo4j database (see docker-compose.yml).")

UriOpt = Annotated[Optional[str], typer.Option("--uri", metavar="URI", envvar="NEO4J_URI", show_envvar=True,
                                               help=f"Bolt URI [default: {DEFAULT_URI}].")]
UserOpt = Annotated[Optional[str], typer.Option("--user", metavar="NAME", envvar="NEO4J_USERNAME", show_envvar=True,
                                                help=f"User name [default: {DEFAULT_USER}].")]
PasswordOpt = Annotated[Optional[str], typer.Option(
    "--password", metavar="PASSWORD", envvar="NEO4J_PASSWORD", show_envvar=True, show_default=False,
    help="Password (prefer the environment variable: flags show in process lists). Empty: no authentication.")]
DatabaseOpt = Annotated[Optional[str], typer.Option("--database", "-d", metavar="NAME", envvar="NEO4J_DATABASE", show_envvar=True,
                                                    help=f"Database name [default: {DEFAULT_DATABASE}].")]


class QueryFormat(str, Enum):
    table = "table"
    json = "json"


def settings_from_options(uri: str | None, user: str | None, password: str | None,
                          database: str | None) -> Neo4jSettings:
    """Flags first, then ``NEO4J_*`` variables, then defaults."""
    return Neo4jSettings.from_env(uri=uri, user=user, password=password, database=database)


def _sync_table(result: Any, counts: dict[str, dict[str, int]]) -> Table:
    from rich.table import Table
    table = Table(show_edge=False, title=f"update tag {result.update_tag}")
    for col, just in (("kind", "left"), ("written", "right"), ("removed", "right"), ("in database", "right")):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    for section, written, removed in (("nodes", result.nodes, result.removed_nodes),
                                      ("edges", result.edges, result.removed_edges)):
        kinds = sorted(set(written) | set(removed) | set(counts[section]))
        for k in kinds:
            table.add_row(f"{section[:-1]} {k}", str(written.get(k, 0)), str(removed.get(k, 0)),
                          str(counts[section].get(k, 0)))
    return table


@neo4j_app.command("sync")
@reads_graph()
def sync_cmd(
    given: GraphInput,
    uri: UriOpt = None,
    user: UserOpt = None,
    password: PasswordOpt = None,
    database: DatabaseOpt = None,
    batch_size: Annotated[int, typer.Option("--batch-size", metavar="N", min=1, help="Rows per UNWIND transaction.")] = 1000,
    update_tag: Annotated[Optional[int], typer.Option("--update-tag", metavar="INT", help="Integer stamped on everything written "
                                                      "(default: now in ns); must grow between syncs.")] = None,
    cleanup: Annotated[bool, typer.Option("--cleanup/--no-cleanup", help="Remove stale data of sources read "
                                          "completely.")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    replace: Annotated[bool, typer.Option("--replace", help="Let stale-data removal delete what other inputs "
                                          "synced into this database (refused otherwise: exit 2).")] = False,
) -> None:
    """Write the graph into Neo4j (idempotent); remove stale data of sources read completely."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from graphkit.errors import GraphkitError
    from graphkit.neo4j.connection import connect
    from graphkit.neo4j.sync import OtherInputsError, database_counts, sync_graph, sync_size, with_roots

    settings = settings_from_options(uri, user, password, database)
    try:
        g, partial = given.load()
        if given.graph is not None:  # a graph file of an older build: its relative inputs are its folder's
            with_roots(g.meta, given.graph)
        with connect(settings) as driver:
            total = sync_size(g)
            with Progress(TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TimeElapsedColumn(), console=base.err, transient=True,
                          disable=total < 200 or not base.err.is_terminal) as bar:
                task = bar.add_task("syncing", total=total)
                result = sync_graph(driver, g, database=settings.database, update_tag=update_tag,
                                    batch_size=batch_size, cleanup=cleanup, replace=replace,
                                    progress=lambda n, what: bar.update(task, advance=n, description=what))
            counts = database_counts(driver, database=settings.database)
    except OtherInputsError as exc:  # a usage question: which database, or --replace
        base.err.print(f"[red]refused:[/red] {term(str(exc))}", highlight=False)
        raise typer.Exit(base.EXIT_USAGE) from None
    except GraphkitError as exc:
        base.fail(exc)
    if as_json:
        print_json(base.out, {**result.to_dict(), "uri": settings.display_uri, "in_database": counts})
    else:
        base.out.print(_sync_table(result, counts))
        removed = sum(result.removed_nodes.values()) + sum(result.removed_edges.values())
        scope = (f"stale data removed for complete sources: {', '.join(result.complete_sources)}"
                 if result.complete_sources and cleanup else "no stale data removed")
        if result.partial_sources:
            scope += f"; partial sources kept as they were: {', '.join(result.partial_sources)}"
        base.out.print(f"synced {sum(result.nodes.values())} nodes and {sum(result.edges.values())} relationships "
                       f"to {term(settings.display_uri)} (database {term(settings.database)}) in "
                       f"{result.seconds:.1f} s; {removed} stale item(s) removed ({term(scope)})", highlight=False)
    given.end(g, partial)


def _parse_params(values: list[str]) -> dict[str, Any]:
    from graphkit.neo4j.library import parse_param

    params: dict[str, Any] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint="--param")
        params[key.strip()] = parse_param(value)
    return params


def _cell(value: Any) -> str:
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return "" if value is None else str(value)


def query_cmd(
    name: Annotated[Optional[str], typer.Argument(metavar="NAME", help="Library query name (file name without .cypher); omit to "
                                                  "list the library.")] = None,
    param: Annotated[list[str], typer.Option("--param", "-p", metavar="KEY=VALUE",
                                             help="Query parameter; VALUE is JSON or text. Repeatable.")] = [],
    fmt: Annotated[QueryFormat, typer.Option("--format", "-f", help="Output format.")] = QueryFormat.table,
    queries: Annotated[Optional[Path], typer.Option("--queries", metavar="DIR", envvar="GRAPHKIT_QUERIES",
                                                    help="Query library folder [default: the repository's "
                                                    "queries/, else the installed share/graphkit/queries].")] = None,
    uri: UriOpt = None,
    user: UserOpt = None,
    password: PasswordOpt = None,
    database: DatabaseOpt = None,
) -> None:
    """Run a Cypher library query (queries/*.cypher) through the Neo4j driver."""
    from graphkit.errors import GraphkitError, UnknownNodeError
    from graphkit.neo4j.connection import connect
    from graphkit.neo4j.library import QueryError, load_library, run_query

    try:
        library = load_library(queries)
    except QueryError as exc:
        base.fail(exc)
    if name is None:
        from rich.table import Table
        table = Table(show_edge=False)
        for col in ("name", "purpose", "parameters"):
            table.add_column(col, overflow="fold")
        for q in library.values():
            table.add_row(term(q.name), term(q.purpose), term(", ".join(sorted(q.used_params()))))
        base.out.print(table)
        return
    if name not in library:
        raise typer.BadParameter(f"no query {name!r}; known: {', '.join(library)}", param_hint="NAME")
    query = library[name]
    params = _parse_params(param)
    missing = sorted(query.used_params() - set(params))
    unknown = sorted(set(params) - query.used_params())
    if missing or unknown:  # a ``// :param`` line is an example for Neo4j Browser, not a default
        what = (f"missing {', '.join(missing)}" if missing else f"no parameter {', '.join(unknown)}")
        raise typer.BadParameter(f"query {name}: {what}; it takes "
                                 f"{', '.join(sorted(query.used_params())) or 'no parameters'}", param_hint="--param")
    settings = settings_from_options(uri, user, password, database)
    try:
        with connect(settings) as driver:
            columns, rows = run_query(driver, query, params, database=settings.database)
    except UnknownNodeError as exc:  # an unknown id is not an empty answer
        raise typer.BadParameter(neutralise(str(exc)), param_hint="--param") from None
    except GraphkitError as exc:
        base.fail(exc)
    if fmt is QueryFormat.json:
        print_json(base.out, {"query": name, "params": params, "columns": columns, "rows": rows})
        return
    from rich.table import Table
    table = Table(show_edge=False)
    for col in columns:
        table.add_column(term(col), overflow="fold")
    for row in rows:
        table.add_row(*(term(_cell(row[c])) for c in columns))
    base.out.print(table)
    base.err.print(f"{len(rows)} row(s)")


class Backend(str, Enum):
    """Where ``graphkit blast-radius`` computes reach."""

    networkx = "networkx"
    neo4j = "neo4j"


BackendOpt = Annotated[Backend, typer.Option(
    "--backend", help="networkx: in process, from --graph or inputs; neo4j: reach computed in the database "
    "(after 'graphkit neo4j sync'), connection from NEO4J_URI, NEO4J_USERNAME, NEO4J_PASSWORD, NEO4J_DATABASE.")]


def blast_radius_neo4j(sources: list[str], *, fmt: str, top: int | None, has_inputs: bool, clock: Any,
                       timed: bool = False, org: str | None = None, with_plan: bool = True) -> None:
    """``graphkit blast-radius --backend neo4j``: same output as the embedded backend, reach computed in the database.

    Connection from ``NEO4J_URI`` / ``NEO4J_USERNAME`` / ``NEO4J_PASSWORD`` /
    ``NEO4J_DATABASE``.  Exit codes as for the embedded backend (3 when the
    last sync's input was partial, or ``--tokens`` records were left out).  ``fmt``: ``table``, ``json`` or
    ``runbook`` (``--format``).  ``clock``: the :class:`graphkit.output.Clock` of
    ``--now``/``--compromised-since``/``--tokens``, ``timed`` when one of them was given (the tokens are
    classified as by the embedded backend: the document's ``time``).  ``org`` (``--org``) expands the short
    untrusted forms, and an untrusted actor with no node is an empty radius with a note, as embedded
    (:func:`graphkit.neo4j.reach.expand_in_database`, :func:`~graphkit.neo4j.reach.reached_for`); ``with_plan``
    False is ``--no-plan``.

    Raises
    ------
    typer.BadParameter
        for an unknown source id, or when a graph file or inputs are also given.
    typer.Exit
        1 on a connection or database error, 3 for partial input.
    """
    from graphkit.errors import GraphkitError, UnknownNodeError
    from graphkit.neo4j.connection import connect
    from graphkit.neo4j.reach import expand_in_database, reached_for
    from graphkit.output import blast_radius_document, runbook_text

    if has_inputs:
        raise typer.BadParameter("--backend neo4j reads the database: give no --graph or input options",
                                 param_hint="--backend")
    settings = Neo4jSettings.from_env()
    as_json, timed_clock = fmt == "json", clock if timed else None
    try:
        with connect(settings) as driver:
            expanded = expand_in_database(driver, sources, database=settings.database, org=org)
            sub, notes = reached_for(driver, expanded, database=settings.database, clock=clock)
        for note in notes:
            base.err.print(term(note))
        if fmt == "runbook":
            text = runbook_text(sub, expanded, clock=clock, max_steps=top)
        else:
            doc = blast_radius_document(sub, expanded, top=top if as_json else None, clock=timed_clock,
                                        plan_steps=top, with_plan=with_plan)
    except UnknownNodeError as exc:
        raise typer.BadParameter(neutralise(str(exc)), param_hint="--from") from None
    except GraphkitError as exc:
        base.fail(exc)
    if fmt == "runbook":
        sys.stdout.write(text)
    elif as_json:
        print_json(base.out, doc)
    else:
        base.print_blast_radius(sub, doc, top=top or (base.TERMINAL_TOP if base.out.is_terminal else None),
                                named=sources)
    named = clock.problems if clock is not None else ()  # tokens records left out, named on stderr
    if sub.meta.partial or named:
        base.exit_partial([p.model_dump() for p in sub.meta.problems], named=named,
                          graph_file=f"the graph last synced to {settings.display_uri}")
