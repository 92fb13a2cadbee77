"""The ``graphkit`` command line: a thin layer over the library.

Exit codes: 0 ok, 1 error, 2 usage, 3 partial input (some files or places were
skipped; the output covers everything else).
"""

from __future__ import annotations

import json
import re
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional
from urllib.parse import urlsplit

import typer
from rich.table import Table

from graphkit import limits, registry
from graphkit.errors import GraphkitError, UnknownNodeError
from graphkit.files import write_atomic
from graphkit.graph import Graph
from graphkit.model import node_kind
from graphkit.cli_common import (EXIT_ERROR, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE, Format, FormatOpt,  # noqa: F401
                                 GraphInput, SourcesOpt, err, fail, input_flags, out, print_blast_radius, print_item,
                                 reads_graph, TERMINAL_TOP)
from graphkit.neo4j.cli import Backend, BackendOpt, neo4j_app, query_cmd
from graphkit.output import neutralise, print_json, term
from graphkit.whatif_cli import what_if_cmd

#: A crash never prints local variables (they may hold a token read from a host file); Typer 0.12 shows them by
#: default, so both settings are explicit.  https://typer.tiangolo.com/tutorial/exceptions/
app = typer.Typer(no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                  pretty_exceptions_show_locals=False, pretty_exceptions_short=True,
                  help="Blast radius of CI/CD build runners: what a compromised runner reaches, what to revoke first.")
def _version(value: bool) -> None:
    if value:
        from graphkit import __version__
        out.print(f"graphkit {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print the version and exit.")] = False,
          limit: Annotated[Optional[list[str]], typer.Option(
              "--limit", metavar="NAME=VALUE", help="Raise or lower a limit on hostile input (README 'Limits', e.g. "
              "max_file_bytes=200000000). Repeatable.")] = None) -> None:
    """Blast radius of CI/CD build runners: what a compromised runner reaches, what to revoke first."""
    try:
        limits.apply_cli(limit or [])
    except limits.LimitError as exc:
        raise typer.BadParameter(str(exc), param_hint="--limit") from None


class FindingsFormat(str, Enum):
    table = "table"
    json = "json"
    sarif = "sarif"


@app.command()
@reads_graph(graph_file=False)
def build(
    given: GraphInput,
    output: Annotated[Path, typer.Option("--output", "-o", metavar="FILE", help="Where to write the graph JSON.")]
    = Path("graph.json"),
) -> None:
    """Build the graph from inputs and save it (summary: counts per kind, skipped inputs)."""
    if not given.inputs:
        raise typer.BadParameter(f"give at least one input ({input_flags()})")
    try:
        result = given.build()
        result.graph.save(output)
    except GraphkitError as exc:
        fail(exc)
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
        raise typer.BadParameter(neutralise(str(exc)), param_hint="--kind") from None
    try:
        g = Graph.load(graph)
    except GraphkitError as exc:
        fail(exc)
    rows = [{"id": n.id, "kind": n.spec.kind.value, "name": n.name, "criticality": n.criticality.value,
             "inferred": n.inferred} for n in g.nodes(k)]
    if fmt is Format.json:
        print_json(out, rows)
        return
    table = Table(show_edge=False)
    for col in ("id", "kind", "name", "criticality"):
        table.add_column(col)
    for r in rows:
        table.add_row(*map(term, (r["id"], r["kind"], r["name"], r["criticality"])))
    out.print(table)
    err.print(f"{len(rows)} node(s)")


class BlastFormat(str, Enum):
    table = "table"
    json = "json"
    runbook = "runbook"


def _clock(now: Optional[str], since: Optional[str], tokens: Optional[Path]):
    """The analysis time from ``--now``, ``--compromised-since`` and ``--tokens`` (graphkit.analysis.timeline)."""
    from datetime import datetime, timezone

    from graphkit.analysis.timeline import load_issued, parse_time
    from graphkit.output import Clock

    def when(text: Optional[str], hint: str):
        try:
            return parse_time(text) if text else None
        except ValueError:
            raise typer.BadParameter("expected an ISO 8601 time, e.g. 2026-12-01T18:00:00Z", param_hint=hint) from None

    issued = ()
    if tokens is not None:
        try:
            issued = tuple(load_issued(tokens))
        except GraphkitError as exc:
            fail(exc)
    at, start = when(now, "--now") or datetime.now(timezone.utc), when(since, "--compromised-since")
    if start is not None and start > at:
        raise typer.BadParameter("the compromise cannot start after --now", param_hint="--compromised-since")
    return Clock(now=at, compromised_since=start, issued=issued)


@app.command("blast-radius")
@reads_graph()
def blast_radius_cmd(
    sources: SourcesOpt,
    given: GraphInput,
    fmt: Annotated[BlastFormat, typer.Option("--format", "-f", help="Output format (runbook: the plan as a "
                                             "Markdown checklist and a dry-run shell script).")] = BlastFormat.table,
    top: Annotated[Optional[int], typer.Option("--top", min=1, help="Show only the N most critical assets and "
                                               "the first N plan steps (default on a terminal: "
                                               f"{TERMINAL_TOP}; piped or JSON: all).")] = None,
    backend: BackendOpt = Backend.networkx,
    org: Annotated[Optional[str], typer.Option("--org", metavar="ORG", help="Owner of the untrusted entry points "
                                               "named without one (--from untrusted:fork-pr).")] = None,
    now: Annotated[Optional[str], typer.Option("--now", metavar="TIME", help="Time of the analysis (ISO 8601; "
                                               "default: now).")] = None,
    compromised_since: Annotated[Optional[str], typer.Option("--compromised-since", metavar="TIME", help="Start "
                                                             "of the compromise (ISO 8601): tokens issued before "
                                                             "are not the attacker's.")] = None,
    tokens: Annotated[Optional[Path], typer.Option("--tokens", metavar="FILE", help="Issued tokens and sessions "
                                                   "(graphkit.issued-tokens/v1), classified live or expired.")]
    = None,
) -> None:
    """What the sources reach (grouped by kind, critical first, with paths) and the revocation plan."""
    from graphkit.output import blast_radius_document, runbook_text
    from graphkit.resolve.untrusted import add_absent_entries, expand_sources

    if backend is Backend.neo4j:  # reach computed in the database: graphkit/neo4j/reach.py
        from graphkit.neo4j.cli import blast_radius_neo4j
        return blast_radius_neo4j(sources, as_json=fmt is BlastFormat.json, top=top,
                                  has_inputs=bool(given.graph or given.inputs))
    clock = _clock(now, compromised_since, tokens)
    timed = bool(now or compromised_since or tokens)
    try:
        g, partial = given.load()
    except GraphkitError as exc:
        fail(exc)
    try:
        expanded = expand_sources(g, sources, org)
        for note in add_absent_entries(g, expanded):
            err.print(term(note))
        if fmt is BlastFormat.runbook:
            sys.stdout.write(runbook_text(g, expanded, clock=clock))
            raise typer.Exit(EXIT_PARTIAL if partial else EXIT_OK)
        as_json = fmt is BlastFormat.json  # the table gets the whole document: its summary counts everything
        doc = blast_radius_document(g, expanded, top=top if as_json else None, clock=clock if timed else None)
    except UnknownNodeError as exc:
        raise typer.BadParameter(neutralise(str(exc)), param_hint="--from") from None
    if as_json:
        print_json(out, doc)
    else:  # a terminal gets the worst first (TERMINAL_TOP); piped output lists everything
        print_blast_radius(g, doc, top=top or (TERMINAL_TOP if out.is_terminal else None))
    if partial:
        raise typer.Exit(EXIT_PARTIAL)


#: An organization login (alphanumerics and single inner hyphens, at most 39 characters) and a repository name
#: (alphanumerics, ``.``, ``_``, ``-``), as GitHub accepts them:
#: https://docs.github.com/en/organizations/collaborating-with-groups-in-organizations/creating-a-new-organization-from-scratch
#: https://docs.github.com/en/repositories/creating-and-managing-repositories/creating-a-new-repository
_ORG_SCOPE = re.compile(r"(?P<org>[a-z0-9](?:-?[a-z0-9]){0,38})(?:/(?P<repo>[a-z0-9._-]+))?")


def expected_org_scope(value: str) -> str:
    """An ``--expected-org`` value normalised to ``org`` or ``org/repo`` (lower-case).

    Accepts ``acme``, ``acme/app`` or a URL on github.com or a GitHub Enterprise Server host
    (``https://github.com/acme``, trailing slash optional; ``https://ghe.example.com/acme/app``), the form of a
    runner registration URL (https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/adding-self-hosted-runners).

    Raises
    ------
    typer.BadParameter
        Anything else (exit 2): a malformed value must not make every registration look unexpected.

    >>> [expected_org_scope(v) for v in ("Acme", "https://github.com/Acme/", "https://ghe.example.com/acme/App.js")]
    ['acme', 'acme', 'acme/app.js']
    """
    text = value.strip().lower()
    url = urlsplit(text) if "://" in text else None
    if url is not None:
        ok = url.scheme in ("https", "http") and url.hostname and not (url.query or url.fragment)
        text = url.path.strip("/") if ok else ""
    m = _ORG_SCOPE.fullmatch(text.rstrip("/") if url is None else text)
    if not m or m["repo"] in (".", ".."):
        raise typer.BadParameter(f"{neutralise(value)!r} is not an org, org/repo or org URL "
                                 "(e.g. acme, acme/app, https://github.com/acme)", param_hint="--expected-org")
    return m.group(0)


def _expected_orgs(values: list[str]) -> list[str]:
    return [expected_org_scope(v) for v in values]


@app.command()
@reads_graph()
def findings(
    given: GraphInput,
    expected_org: Annotated[list[str], typer.Option("--expected-org", metavar="ORG", callback=_expected_orgs,
                                                    help="Org (or org/repo, or its URL) runners may register to. "
                                                    "Repeatable.")] = [],
    rule_ids: Annotated[list[str], typer.Option("--rule", metavar="ID", help="Run only these rules.")] = [],
    fmt: Annotated[FindingsFormat, typer.Option("--format", "-f", help="Output format (sarif: SARIF 2.1.0 "
                                                "for code scanning).")] = FindingsFormat.table,
) -> None:
    """Findings over the graph (stable ids, severity, confidence, evidence)."""
    from graphkit.findings import FindingOptions, findings_document, rules, run_rules

    try:
        g, partial = given.load()
    except GraphkitError as exc:
        fail(exc)
    unknown = sorted(set(rule_ids) - set(rules()))
    if unknown:
        raise typer.BadParameter(f"unknown rule(s) {', '.join(unknown)}; known: {', '.join(rules())}",
                                 param_hint="--rule")
    options = FindingOptions(expected_orgs=frozenset(expected_org) or None)
    found = run_rules(g, options, only=rule_ids or None)
    if fmt is FindingsFormat.sarif:
        from graphkit.export import sarif_document

        print_json(out, sarif_document(found))
    elif fmt is FindingsFormat.json:
        print_json(out, findings_document(found))
    else:
        _print_findings(found)
        err.print(f"{len(found)} finding(s)")
    if partial:
        raise typer.Exit(EXIT_PARTIAL)


def _print_findings(found: list) -> None:
    """Findings as text: piped, one table row each (grep); on a terminal, a block each that fits the width
    (severity, rule and id on the first line, then subject, message and evidence wrapped under it): a table of
    six columns in 80 columns would cut ids mid-word."""
    if not out.is_terminal:
        table = Table(show_edge=False)
        for col in ("severity", "rule", "subject", "message", "evidence", "id"):
            table.add_column(col, overflow="fold")
        for f in found:
            ev = str(f.evidence[0]) if f.evidence else ""
            table.add_row(*map(term, (f.severity.value, f.rule, f.subject, f.message, ev, f.id)))
        out.print(table)
        return
    for f in found:
        sev = f.severity.value.upper()
        style = "bold red" if sev == "CRITICAL" else "yellow" if sev == "HIGH" else "dim"
        print_item(f"[bold]{term(f.rule)}[/bold]  {term(f.id)}", hang=f"[{style}]{sev:<8}[/{style}]")
        print_item(f"subject: {term(f.subject)}", 9)
        print_item(term(f.message), 9)
        if f.evidence:
            print_item(f"evidence: {term(str(f.evidence[0]))}", 9, "dim")


@app.command()
@reads_graph()
def report(
    sources: SourcesOpt,
    given: GraphInput,
    output: Annotated[Path, typer.Option("--output", "-o", metavar="FILE", help="Where to write the HTML report.")]
    = Path("report.html"),
) -> None:
    """Write a self-contained HTML report (blast-radius graph, revocation curve, tables; works offline)."""
    from graphkit.report import write_report

    try:
        g, partial = given.load()
    except GraphkitError as exc:
        fail(exc)
    try:
        write_report(g, sources, output)
    except UnknownNodeError as exc:
        raise typer.BadParameter(neutralise(str(exc)), param_hint="--from") from None
    except GraphkitError as exc:
        fail(exc)
    err.print(f"report written to {term(str(output))}", highlight=False)
    if partial:
        raise typer.Exit(EXIT_PARTIAL)


export_app = typer.Typer(no_args_is_help=True, help="Export the graph for other tools.")
app.add_typer(export_app, name="export")


@export_app.command("opengraph")
@reads_graph()
def export_opengraph(
    given: GraphInput,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", metavar="FILE",
                                                   help="Where to write the JSON (default: stdout).")] = None,
    traversable_only: Annotated[bool, typer.Option("--traversable-only", help="Only attack-path edges.")] = False,
) -> None:
    """BloodHound OpenGraph JSON (kinds GK_*, traversable edges marked) for BloodHound CE."""
    from graphkit.export import opengraph_document

    try:
        g, partial = given.load()
    except GraphkitError as exc:
        fail(exc)
    text = json.dumps(opengraph_document(g, traversable_only=traversable_only), indent=1)
    if output is None:
        sys.stdout.write(text + "\n")
    else:
        try:
            write_atomic(output, text + "\n")
        except GraphkitError as exc:
            fail(exc)
        err.print(f"OpenGraph written to {term(str(output))}", highlight=False)
    if partial:
        raise typer.Exit(EXIT_PARTIAL)


app.add_typer(neo4j_app, name="neo4j")
app.command("query")(query_cmd)
app.command("what-if")(what_if_cmd)


collect_app = typer.Typer(no_args_is_help=True, help="Collect snapshots from live systems (read-only).")
app.add_typer(collect_app, name="collect")


@collect_app.command("host")
def collect_host_cmd(
    root: Annotated[Path, typer.Option("--root", metavar="DIR", help="Directory standing for / (default: this "
                                       "host).")] = Path("/"),
    output: Annotated[Path, typer.Option("--output", "-o", metavar="FILE", help="Where to write the snapshot "
                                         "(graphkit.runner-inventory/v1 JSON; - for standard output).")] = Path("host.json"),
    hostname: Annotated[Optional[str], typer.Option("--hostname", help="Host name (default: etc/hostname).")] = None,
    key_file: Annotated[Optional[Path], typer.Option("--key-file", metavar="FILE", help="Fingerprint key (bytes of "
                                                     "the file; default: graphkit's fixed, documented key).")] = None,
    max_entries: Annotated[Optional[int], typer.Option("--max-entries", min=1, help="Directory entries the search "
                                                       "for runners visits (default 2000000).")] = None,
    max_depth: Annotated[Optional[int], typer.Option("--max-depth", min=1, help="Folder depth searched "
                                                     "(default 32).")] = None,
    max_seconds: Annotated[Optional[float], typer.Option("--max-seconds", min=1, help="Time the search may take "
                                                         "(default 600).")] = None,
) -> None:
    """Scan a build host read-only: runner registrations anywhere (by signature), how each stays alive, live runner
    processes, on-disk credentials (fingerprints only), shared caches; says where it did not look."""
    try:
        key = {} if key_file is None else {"key": key_file.read_bytes()}
    except OSError as exc:
        raise typer.BadParameter(f"{key_file}: {exc.strerror or exc}", param_hint="--key-file") from None
    bounds = {k: v for k, v in (("max_entries", max_entries), ("max_depth", max_depth),
                                ("max_seconds", max_seconds)) if v is not None}
    if bounds:
        key["limits"] = registry.get_collector("host").limits(**bounds)
    try:
        result = registry.get_collector("host").collect(root, hostname=hostname, **key)
        write_atomic(output, json.dumps(result.document, indent=2) + "\n")  # "-": standard output
    except GraphkitError as exc:
        fail(exc)
    for p in result.problems:
        err.print(f"[yellow]skipped[/yellow] {term(str(p))}", highlight=False)
    counts = ", ".join(f"{v} {k}" for k, v in result.summary.items() if k != "problems")
    where = "standard output" if str(output) == "-" else str(output)
    (err if str(output) == "-" else out).print(f"host snapshot written to {term(where)}: {term(counts)}",
                                               highlight=False)
    if result.problems:
        raise typer.Exit(EXIT_PARTIAL)


@app.command("diff")
def diff_cmd(
    old: Annotated[Path, typer.Argument(metavar="OLD", help="Earlier snapshot (host or inventory file, or graph).")],
    new: Annotated[Path, typer.Argument(metavar="NEW", help="Later snapshot.")],
    fmt: FormatOpt = Format.table,
) -> None:
    """Runners, registrations, credentials and caches that appeared, changed or disappeared (new enrollment first)."""
    from graphkit.diff import diff_document, diff_files

    try:
        changes = diff_files(old, new)
    except GraphkitError as exc:
        fail(exc)
    if fmt is Format.json:
        print_json(out, diff_document(changes, str(old), str(new)))
        return
    table = Table(show_edge=False)
    for col in ("signal", "change", "kind", "id", "what"):
        table.add_column(col, overflow="fold")
    for c in changes:
        what = c.message + "".join(f"; {k}: {v[0]} -> {v[1]}" for k, v in c.fields.items())
        table.add_row(*map(term, (c.signal.value, c.change, c.kind.value, c.id, what)))
    out.print(table)
    err.print(f"{len(changes)} change(s)")


def main() -> None:  # pragma: no cover - console entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
