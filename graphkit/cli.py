"""The ``graphkit`` command line: a thin layer over the library.

Exit codes: 0 ok, 1 error, 2 usage, 3 partial input (some files or places were
skipped; the output covers everything else), 141 the reader of stdout closed early (``| head``; quiet).
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

from graphkit import limits, registry
from graphkit.errors import GraphkitError, InputError, UnknownNodeError
from graphkit.files import write_atomic
from graphkit.cli_common import (EXIT_ERROR, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE, Format, FormatOpt,  # noqa: F401
                                 GraphInput, QuietPipeGroup, SourcesOpt, err, fail, input_flags, out, print_blast_radius, print_item,
                                 SUMMARY_STEPS, api_url_option, every_runner, exit_partial,
                                 reads_graph, TERMINAL_TOP)
from graphkit.cli_common import OrgOpt, key_file_bytes, plain_usage_errors, print_diff, refuse_output, replaced_input
from graphkit.cli_common import refuse_scan_output
from graphkit.neo4j.cli import Backend, BackendOpt, neo4j_app, query_cmd
from graphkit.output import neutralise, print_json, shown, term
from graphkit.synth_cli import synth_cmd
from graphkit.whatif_cli import what_if_cmd

#: A crash never prints local variables (they may hold a token read from a host file); Typer 0.12 shows them by
#: default, so both settings are explicit.  https://typer.tiangolo.com/tutorial/exceptions/
app = typer.Typer(cls=QuietPipeGroup, no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                  pretty_exceptions_show_locals=False, pretty_exceptions_short=True,
                  help="Blast radius of CI/CD build runners: what a compromised runner reaches, what to revoke first.")
app.info.cls = plain_usage_errors(app.info.cls)  # no pydantic wording in usage errors


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
    try:  # a bad or unknown GRAPHKIT_LIMIT_* variable is a usage error too (exit 2), named, before any command runs
        limits.Limits.from_env()  # read afresh (current() answers from its cache)
        limits.current()
    except limits.LimitError as exc:
        raise typer.BadParameter(str(exc), param_hint=exc.variable or "--limit") from None


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
    given.refuse_output(output, "this build")  # the graph file never replaces an input
    try:
        result = given.build()
        result.graph.save(output)
    except GraphkitError as exc:
        fail(exc)
    counts = result.graph.counts()
    from rich.table import Table
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
        exit_partial(result.problems)


@app.command()
def nodes(
    graph: Annotated[Path, typer.Option("--graph", "-g", metavar="FILE", help="Graph file from 'graphkit build'.")],
    kind: Annotated[Optional[str], typer.Option("--kind", "-k", help="Node kind, e.g. runner, job, secret, "
                                                "cloud_role (case-insensitive, - or _).")] = None,
    fmt: FormatOpt = Format.table,
) -> None:
    """List nodes (id, kind, name)."""
    try:
        from graphkit.model import node_kind
        k = node_kind(kind) if kind else None
    except ValueError as exc:
        raise typer.BadParameter(neutralise(str(exc)), param_hint="--kind") from None
    try:
        from graphkit.graph import Graph
        g = Graph.load(graph)
    except GraphkitError as exc:
        fail(exc)
    rows = [{"id": n.id, "kind": n.spec.kind.value, "name": n.name, "criticality": n.criticality.value,
             "inferred": n.inferred} for n in g.nodes(k)]
    if fmt is Format.json:
        print_json(out, rows)
        return GraphInput(graph, {}).end(g, g.meta.partial)
    from rich.table import Table
    table = Table(show_edge=False)
    for col in ("id", "kind", "name", "criticality"):
        table.add_column(col)
    for r in rows:
        table.add_row(*(term(shown(v)) for v in (r["id"], r["kind"], r["name"], r["criticality"])))
    out.print(table)
    err.print(f"{len(rows)} node(s)")
    GraphInput(graph, {}).end(g, g.meta.partial)


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

    issued, bad = (), []
    if tokens is not None:
        try:
            issued = tuple(load_issued(tokens, bad))  # a bad record is named and left out, the others used
        except GraphkitError as exc:
            fail(exc)
    for p in bad:
        err.print(f"[yellow]skipped[/yellow] {term(str(p))}", highlight=False)
    at, start = when(now, "--now") or datetime.now(timezone.utc), when(since, "--compromised-since")
    if start is not None and start > at:
        raise typer.BadParameter("the compromise cannot start after --now", param_hint="--compromised-since")
    return Clock(now=at, compromised_since=start, issued=issued, problems=tuple(bad))


def _check_sources(sources: list[str], all_runners: bool, fmt: BlastFormat, no_plan: bool = False) -> None:
    """``blast-radius``'s conflicting options as usage errors (exit 2) naming them."""
    if no_plan and fmt is BlastFormat.runbook:  # the runbook is the plan
        raise typer.BadParameter("--no-plan and --format runbook exclude each other (the runbook is the plan)",
                                 param_hint="--no-plan")
    if all_runners and sources:
        raise typer.BadParameter("--from and --all-runners exclude each other: give one", param_hint="--all-runners")
    if all_runners and fmt is BlastFormat.runbook:  # one runbook is one incident's plan
        raise typer.BadParameter("--all-runners has no runbook format (table or json); give --from ID for a "
                                 "runbook", param_hint="--all-runners")
    if not all_runners and not sources:
        raise typer.BadParameter("give --from ID (repeatable) or --all-runners", param_hint="--from")


@app.command("blast-radius")
@reads_graph()
def blast_radius_cmd(
    given: GraphInput,
    sources: SourcesOpt = [],  # noqa: B006 (typer reads the default; required unless --all-runners)
    fmt: Annotated[BlastFormat, typer.Option("--format", "-f", help="Output format (runbook: the plan as a "
                                             "Markdown checklist and a dry-run shell script).")] = BlastFormat.table,
    top: Annotated[Optional[int], typer.Option("--top", min=1, help="Show only the N most critical assets and "
                                               "the first N plan steps (default on a terminal: "
                                               f"{TERMINAL_TOP}; piped or JSON: all).")] = None,
    backend: BackendOpt = Backend.networkx,
    org: OrgOpt = None,
    now: Annotated[Optional[str], typer.Option("--now", metavar="TIME", help="Time of the analysis (ISO 8601; "
                                               "default: now).")] = None,
    compromised_since: Annotated[Optional[str], typer.Option("--compromised-since", "--since", metavar="TIME",
                                                             help="Start of the compromise (ISO 8601): tokens "
                                                             "issued before are not the attacker's, and jobs the "
                                                             "job history shows ending before it exposed "
                                                             "nothing.")] = None,
    tokens: Annotated[Optional[Path], typer.Option("--tokens", metavar="FILE", help="Issued tokens and sessions "
                                                   "(graphkit.issued-tokens/v1), classified live or expired.")]
    = None,
    no_plan: Annotated[bool, typer.Option("--no-plan", help="Skip the revocation plan (only what is reached).")]
    = False,
    all_runners: Annotated[bool, typer.Option("--all-runners", help="The blast radius of every runner, each on "
                                              "its own (instead of --from; the plan as --top/--no-plan say).")]
    = False,
) -> None:
    """What the sources reach (grouped by kind, critical first, with paths) and the revocation plan."""
    from graphkit.output import blast_radius_document, runbook_text
    from graphkit.resolve.untrusted import add_absent_entries, expand_sources

    _check_sources(sources, all_runners, fmt, no_plan)
    if all_runners and backend is Backend.neo4j:
        raise typer.BadParameter("--all-runners runs on the embedded graph (--backend networkx)",
                                 param_hint="--all-runners")
    clock = _clock(now, compromised_since, tokens)
    timed = bool(now or compromised_since or tokens)
    if all_runners:
        return every_runner(given, as_json=fmt is BlastFormat.json, top=top, no_plan=no_plan,
                            clock=clock if timed else None)

    if backend is Backend.neo4j:  # reach computed in the database: graphkit/neo4j/reach.py
        from graphkit.neo4j.cli import blast_radius_neo4j
        return blast_radius_neo4j(sources, fmt=fmt.value, top=top, has_inputs=bool(given.graph or given.inputs),
                                  clock=clock, timed=timed, org=org, with_plan=not no_plan)
    try:
        g, partial = given.load()
    except GraphkitError as exc:
        fail(exc)
    try:
        expanded = expand_sources(g, sources, org)
        for note in add_absent_entries(g, expanded):
            err.print(term(note))
        if fmt is BlastFormat.runbook:
            sys.stdout.write(runbook_text(g, expanded, clock=clock, max_steps=top))
            return given.end(g, partial, named=clock.problems)  # tokens records left out
        as_json = fmt is BlastFormat.json  # the table gets every reached asset: its summary counts everything
        # an explicit --top bounds the plan's work to what is printed (the table's summary and plan list show
        # at most --top steps); the terminal's default top keeps the whole plan, whose size and residual it states
        steps = top
        doc = blast_radius_document(g, expanded, top=top if as_json else None, clock=clock if timed else None,
                                    plan_steps=steps, with_plan=not no_plan)
    except UnknownNodeError as exc:
        raise typer.BadParameter(neutralise(str(exc)), param_hint="--from") from None
    if as_json:
        print_json(out, doc)
    else:  # a terminal gets the worst first (TERMINAL_TOP); piped output lists everything
        print_blast_radius(g, doc, top=top or (TERMINAL_TOP if out.is_terminal else None), named=sources)
    given.end(g, partial, named=clock.problems)  # tokens records left out


#: An organization login (alphanumerics and single inner hyphens, at most 39 characters) and a repository name
#: (alphanumerics, ``.``, ``_``, ``-``), as GitHub accepts them:
#: https://docs.github.com/en/organizations/collaborating-with-groups-in-organizations/creating-a-new-organization-from-scratch
#: https://docs.github.com/en/repositories/creating-and-managing-repositories/creating-a-new-repository
_ORG_SCOPE = re.compile(r"(?P<org>[a-z0-9](?:-?[a-z0-9]){0,38})(?:/(?P<repo>[a-z0-9._-]+))?")


def expected_org_scope(value: str) -> str:
    """An ``--expected-org`` value normalised to ``org`` or ``org/repo`` (lower-case) on github.com, or
    ``org@HOST`` / ``org/repo@HOST`` on another GitHub server.

    Accepts ``acme``, ``acme/app`` (github.com's) or a URL on github.com, a GitHub Enterprise Server host or a
    ``SUBDOMAIN.ghe.com`` host (``https://github.com/acme``, trailing slash optional;
    ``https://ghe.example.com/acme/app``), the form of a runner registration URL
    (https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/adding-self-hosted-runners).
    An org on another server is another account than github.com's org of the same name (GitHub docs "About
    GitHub Enterprise Server",
    https://docs.github.com/en/enterprise-server@latest/admin/overview/about-github-enterprise-server).

    Raises
    ------
    typer.BadParameter
        Anything else (exit 2): a malformed value must not make every registration look unexpected.

    >>> [expected_org_scope(v) for v in ("Acme", "https://github.com/Acme/", "https://GHE.example.com/acme/App.js")]
    ['acme', 'acme', 'acme/app.js@ghe.example.com']
    """
    text = value.strip().lower()
    url = urlsplit(text) if "://" in text else None
    host = ""
    if url is not None:
        ok = url.scheme in ("https", "http") and url.hostname and not (url.query or url.fragment)
        text = url.path.strip("/") if ok else ""
        host = (url.hostname or "") if ok else ""
    m = _ORG_SCOPE.fullmatch(text.rstrip("/") if url is None else text)
    if not m or m["repo"] in (".", ".."):
        raise typer.BadParameter(f"{neutralise(value)!r} is not an org, org/repo or org URL "
                                 "(e.g. acme, acme/app, https://github.com/acme)", param_hint="--expected-org")
    return m.group(0) if host in ("", "github.com", "www.github.com") else f"{m.group(0)}@{host}"


def _expected_orgs(values: list[str]) -> list[str]:
    return [expected_org_scope(v) for v in values]


@app.command()
@reads_graph()
def findings(
    given: GraphInput,
    expected_org: Annotated[list[str], typer.Option("--expected-org", metavar="ORG", callback=_expected_orgs,
                                                    help="Org (or org/repo, or its URL) runners may register to. "
                                                    "Repeatable.")] = [],
    expected_registrar: Annotated[list[str], typer.Option("--expected-registrar", metavar="LOGIN", help="Account "
                                                           "(user, bot or GitHub App) expected to register "
                                                           "runners; the audit log names the others. "
                                                           "Repeatable.")] = [],
    expected_place: Annotated[list[str], typer.Option("--expected-registration-place", metavar="PLACE",
                                                       help="Country code (DE) or IP network (203.0.113.0/24) "
                                                       "runners are expected to be registered from (audit log "
                                                       "actor_location/actor_ip). Repeatable.")] = [],
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
    from graphkit.rules.runner_registration_unexpected import PLACES, REGISTRARS
    options = FindingOptions(expected_orgs=frozenset(expected_org) or None,
                             extra={REGISTRARS: expected_registrar, PLACES: expected_place})
    found = run_rules(g, options, only=rule_ids or None)
    if fmt is FindingsFormat.sarif:
        from graphkit.export import sarif_document

        print_json(out, sarif_document(found))
    elif fmt is FindingsFormat.json:
        print_json(out, findings_document(found))
    else:
        _print_findings(found)
        err.print(f"{len(found)} finding(s)")
    given.end(g, partial)


def _print_findings(found: list) -> None:
    """Findings as text: piped, one table row each (grep); on a terminal, a block each that fits the width
    (severity, confidence, rule and id on the first line, then subject, message and evidence wrapped under it): a table of
    seven columns in 80 columns would cut ids mid-word."""
    if not out.is_terminal:
        from rich.table import Table
        table = Table(show_edge=False)
        for col in ("severity", "confidence", "rule", "subject", "message", "evidence", "id"):
            table.add_column(col, overflow="fold")
        for f in found:
            ev = str(f.evidence[0]) if f.evidence else ""
            table.add_row(*map(term, (f.severity.value, f.confidence.value, f.rule, f.subject, f.message, ev, f.id)))
        out.print(table)
        return
    for f in found:
        sev = f.severity.value.upper()
        style = "bold red" if sev == "CRITICAL" else "yellow" if sev == "HIGH" else "dim"
        print_item(f"{f.confidence.value}  [bold]{term(f.rule)}[/bold]  {term(f.id)}",
                   hang=f"[{style}]{sev:<8}[/{style}]")
        print_item(f"subject: {term(shown(f.subject))}", 9)
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
    since: Annotated[Optional[str], typer.Option("--since", "--compromised-since", metavar="TIME",
                                                 help="Start of the compromise (ISO 8601): jobs the job history "
                                                 "shows ending before it exposed nothing.")] = None,
    org: OrgOpt = None,
) -> None:
    """Write a self-contained HTML report (blast-radius graph, revocation curve, tables; works offline)."""
    from graphkit.report import write_report
    from graphkit.resolve.untrusted import expand_sources

    start = _clock(None, since, None).compromised_since
    given.refuse_output(output, "this report")  # the saved graph may be the only copy of the evidence
    try:
        g, partial = given.load()
    except GraphkitError as exc:
        fail(exc)
    try:
        write_report(g, expand_sources(g, sources, org), output, since=start)
    except UnknownNodeError as exc:
        raise typer.BadParameter(neutralise(str(exc)), param_hint="--from") from None
    except GraphkitError as exc:
        fail(exc)
    err.print(f"report written to {term(str(output))}", highlight=False)
    given.end(g, partial)


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

    given.refuse_output(output, "this export")
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
    given.end(g, partial)


app.add_typer(neo4j_app, name="neo4j")
app.command("query")(query_cmd)
app.command("what-if")(what_if_cmd)
app.command("synth")(synth_cmd)


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
    refuse_scan_output(output, root, key_file)  # the key file, a path under a mounted --root
    key = {} if key_file is None else {"key": key_file_bytes(key_file)}  # bounded, at least MIN_KEY_BYTES
    bounds = {k: v for k, v in (("max_entries", max_entries), ("max_depth", max_depth),
                                ("max_seconds", max_seconds)) if v is not None}
    if bounds:
        key["limits"] = registry.get_collector("host").limits(**bounds)
    try:
        result = registry.get_collector("host").collect(root, hostname=hostname, **key)
        refuse_scan_output(output, root, key_file, result.read)  # on the live host: a file the scan read
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


def _since(value: Optional[str]) -> Optional[str]:
    """``--since`` as ISO 8601 UTC (``2026-11-01T00:00:00Z``)."""
    if value is None:
        return None
    from datetime import timezone

    from graphkit.analysis.timeline import parse_time
    try:
        return parse_time(value).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        raise typer.BadParameter("expected an ISO 8601 time, e.g. 2026-11-01T00:00:00Z", param_hint="--since") from None


@collect_app.command("github")
def collect_github_cmd(
    org: Annotated[str, typer.Option("--org", metavar="ORG", help="Organization login.")],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="DIR", help="Snapshot folder (a second run with "
                                         "the same folder resumes: pages already read are not fetched again).")],
    repos: Annotated[list[str], typer.Option("--repo", metavar="OWNER/NAME", help="Read only these repositories "
                                             "(default: every repository of the organization). Repeatable.")] = [],
    since: Annotated[Optional[str], typer.Option("--since", metavar="TIME", help="Also read the workflow runs and "
                                                 "jobs created since TIME (ISO 8601) and the audit log's runner "
                                                 "registrations.")] = None,
    api_url: Annotated[str, typer.Option("--api-url", metavar="URL", help="REST API root (GitHub Enterprise Server: "
                                         "https://HOST/api/v3; data residency: https://api.SUBDOMAIN.ghe.com).")]
    = "https://api.github.com",
    app_id: Annotated[Optional[str], typer.Option("--app-id", help="GitHub App id (with --app-key-file and "
                                                  "--app-installation-id; else GITHUB_TOKEN/GH_TOKEN).")] = None,
    app_key_file: Annotated[Optional[Path], typer.Option("--app-key-file", metavar="FILE", help="The App's private "
                                                         "key file (PEM).")] = None,
    app_installation_id: Annotated[Optional[str], typer.Option("--app-installation-id", help="The App's "
                                                               "installation id.")] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, max=16, help="Requests at once.")] = 4,
    max_wait: Annotated[float, typer.Option("--max-wait", min=0, help="Longest wait for a rate limit, seconds "
                                            "(longer: stop; rerun later to resume).")] = 900.0,
) -> None:
    """Read a GitHub organization through the REST API (read-only) into a snapshot folder for --github-snapshot:
    runners, groups, secret names, environments, workflow files; with --since, the jobs that ran and where."""
    from rich.progress import Progress, TextColumn

    app = (app_id, app_key_file, app_installation_id)
    if any(v is not None for v in app) and not all(v is not None for v in app):
        raise typer.BadParameter("give --app-id, --app-key-file and --app-installation-id together",
                                 param_hint="--app-id")
    if not _ORG_SCOPE.fullmatch(org.lower()) or "/" in org:  # a GitHub login (see expected_org_scope)
        raise typer.BadParameter(f"{neutralise(org)!r} is not an organization login", param_hint="--org")
    for name in repos:
        if not re.fullmatch(r"[A-Za-z0-9._-]+/[A-Za-z0-9._-]+", name) or {".", ".."} & set(name.split("/")):
            raise typer.BadParameter(f"{neutralise(name)!r} is not OWNER/NAME", param_hint="--repo")
    options = {"org": org, "repos": repos, "since": _since(since), "api_url": api_url_option(api_url),
               "app": app if app_id else None, "concurrency": concurrency, "max_wait": max_wait}
    with Progress(TextColumn("{task.description}"), TextColumn("{task.completed} read"), console=err,
                  transient=True, disable=not err.is_terminal) as bar:
        tasks: dict[str, object] = {}

        def progress(resource: str, n: int) -> None:
            if resource not in tasks:
                tasks[resource] = bar.add_task(resource, total=None)
            bar.update(tasks[resource], advance=n)  # type: ignore[arg-type]
        try:
            result = registry.get_collector("github").collect(
                output, notify=lambda m: bar.console.print(_notice(m), highlight=False),
                progress=progress, **options)
        except GraphkitError as exc:
            fail(exc)
    for p in result.problems:
        err.print(f"[yellow]partial:[/yellow] {term(p.reason)}", highlight=False)
    counts = ", ".join(f"{v} {k}" for k, v in result.summary.items())
    out.print(f"GitHub snapshot written to {term(str(output))}: {term(counts)}", highlight=False)
    if result.problems:
        raise typer.Exit(EXIT_PARTIAL)


def _notice(message: str) -> str:
    """A collector's one-line message, labelled: ``warning`` when it starts with ``warning: ``, else ``wait``."""
    label, rest = ("warning", message[len("warning: "):]) if message.startswith("warning: ") else ("wait", message)
    return f"[yellow]{label}[/yellow] {term(rest)}"


@collect_app.command("gitlab")
def collect_gitlab_cmd(
    group: Annotated[str, typer.Option("--group", metavar="GROUP", help="Group full path (its subgroups and projects "
                                       "are read).")],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="DIR", help="Snapshot folder (a rerun with the "
                                         "same folder resumes).")],
    projects: Annotated[list[str], typer.Option("--project", metavar="GROUP/PROJECT", help="Read only these projects "
                                                "(default: every project of the group). Repeatable.")] = [],
    api_url: Annotated[str, typer.Option("--url", metavar="URL", help="Instance URL (self-managed: "
                                         "https://gitlab.example.com).")] = "https://gitlab.com",
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, max=16, help="Requests at once.")] = 4,
    max_wait: Annotated[float, typer.Option("--max-wait", min=0, help="Longest wait for a rate limit, seconds.")]
    = 900.0,
) -> None:
    """Read a GitLab group through the REST API (read-only, token in GITLAB_TOKEN) into a snapshot folder for
    --gitlab-snapshot: runners, variable names and flags, protected refs, environments, .gitlab-ci.yml files."""
    for name in [group, *projects]:
        if not re.fullmatch(r"[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*", name) or ".." in name.split("/"):
            raise typer.BadParameter(f"{neutralise(name)!r} is not a GROUP[/SUBGROUP...] path", param_hint="--group")
    url = api_url_option(api_url, flag="--url", form="https://HOST", token="GITLAB_TOKEN")
    try:
        result = registry.get_collector("gitlab").collect(
            output, group=group, projects=projects, api_url=url, concurrency=concurrency, max_wait=max_wait,
            notify=lambda m: err.print(f"[yellow]wait[/yellow] {term(m)}", highlight=False))
    except GraphkitError as exc:
        fail(exc)
    for p in result.problems:
        err.print(f"[yellow]unreadable[/yellow] {term(p.place)}: {term(p.reason)}", highlight=False)
    counts = ", ".join(f"{v} {k}" for k, v in result.summary.items())
    out.print(f"GitLab snapshot written to {term(str(output))}: {term(counts)}", highlight=False)
@collect_app.command("k8s")
def collect_k8s_cmd(
    output: Annotated[Path, typer.Option("--output", "-o", metavar="FILE", help="Where to write the cluster "
                                         "(YAML for --k8s; - for standard output).")] = Path("k8s.yaml"),
    kubeconfig: Annotated[Optional[Path], typer.Option("--kubeconfig", metavar="FILE", help="Kubeconfig (default: "
                                                       "$KUBECONFIG or ~/.kube/config).")] = None,
    context: Annotated[Optional[str], typer.Option("--context", help="Kubeconfig context (default: the current "
                                                   "one).")] = None,
    name: Annotated[Optional[str], typer.Option("--name", help="Cluster name (default: its API server URL).")] = None,
    production: Annotated[Optional[bool], typer.Option("--production/--not-production", help="Whether the cluster "
                                                       "is production (default: guessed from its name).")] = None,
) -> None:
    """Read a live Kubernetes cluster read-only (list calls): ARC scale sets, RBAC, service accounts, Secret key
    names (never values), aws-auth; write it for --k8s."""
    import yaml

    if kubeconfig is not None:
        refuse_output(output, replaced_input(output, [("--kubeconfig", kubeconfig)]), "this collection")
    try:
        result = registry.get_collector("k8s").collect(Path("/"), kubeconfig=str(kubeconfig) if kubeconfig else None,
                                                       context=context, name=name, production=production)
        doc = result.document
        write_atomic(output, yaml.safe_dump_all([doc["descriptor"], doc["list"]], sort_keys=False))
    except GraphkitError as exc:
        fail(exc)
    for p in result.problems:
        err.print(f"[yellow]skipped[/yellow] {term(str(p))}", highlight=False)
    counts = ", ".join(f"{v} {k}" for k, v in result.summary.items())
    where = "standard output" if str(output) == "-" else str(output)
    (err if str(output) == "-" else out).print(f"cluster written to {term(where)}: {term(counts)}", highlight=False)
    if result.problems:
        raise typer.Exit(EXIT_PARTIAL)


@app.command("diff")
def diff_cmd(
    old: Annotated[Path, typer.Argument(metavar="OLD", help="Earlier snapshot (host or inventory file, or graph).")],
    new: Annotated[Path, typer.Argument(metavar="NEW", help="Later snapshot.")],
    fmt: FormatOpt = Format.table,
) -> None:
    """Runners, registrations, credentials and caches that appeared, changed or disappeared (new enrollment first)."""
    from graphkit.diff import diff_files

    problems: list[InputError] = []
    try:
        changes = diff_files(old, new, problems)  # a bad entry is named (exit 3), the rest compared
    except GraphkitError as exc:
        fail(exc)
    print_diff(changes, problems, as_json=fmt is Format.json, old=str(old), new=str(new))


def main() -> None:  # pragma: no cover - console entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
