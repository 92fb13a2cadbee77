"""Shared plumbing of the command line: consoles, input options, building, errors, exit codes.

Used by :mod:`graphkit.cli` and the command groups of other modules (e.g.
:mod:`graphkit.neo4j.cli`) so that every command takes the same inputs and
reports errors the same way.  Only the CLI turns :class:`GraphkitError` into
messages and exit codes.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import inspect
import os
import select
import sys
from collections.abc import Callable, Iterable, Sequence
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, Optional
from urllib.parse import urlsplit

import typer
from rich.console import Console
from typer.core import TyperGroup

from graphkit import registry
from graphkit.errors import GraphkitError
from graphkit.cli_guard import MIN_KEY_BYTES, key_file_bytes, refuse_output, refuse_scan_output, replaced_input  # noqa: F401
from graphkit.output import neutralise, print_json, shown, term

if TYPE_CHECKING:  # imported on first use: ``graphkit --help`` builds no graph
    from graphkit.build import BuildResult
    from graphkit.graph import Graph

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_PARTIAL = 0, 1, 2, 3
#: Exit status when the reader of stdout went away (``graphkit ... | head -1``): 128 + SIGPIPE, what a shell
#: reports for a program that SIGPIPE ended (POSIX ``sh``, "Exit Status for Commands"; ``seq 1 100000 | head -1``).
EXIT_STDOUT_CLOSED = 128 + 13



class _StdoutConsole(Console):
    """A console on stdout whose broken pipe reaches :class:`QuietPipeGroup` (Rich's default exits with status
    1 itself)."""

    def on_broken_pipe(self) -> None:
        """Print nothing more and raise :class:`BrokenPipeError` (errno ``EPIPE``) to the command group."""
        self.quiet = True
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


# Ids must stay copyable: never crop them to an 80-column default when piped.
out = _StdoutConsole(soft_wrap=True, width=None if sys.stdout.isatty() else 240, emoji=False)  # ids hold ":secret:"
err = Console(stderr=True, soft_wrap=True, emoji=False)  # input text like ":fire:" stays as written



def _stdout_closed() -> bool:
    """Whether stdout is a pipe or socket whose reader has gone (``poll`` reports an error or hang-up on it).

    Where ``poll`` does not exist (Windows), a broken pipe is taken to be stdout's.
    """
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):  # no descriptor (a test runner's buffer): not a pipe
        return False
    if not hasattr(select, "poll"):  # pragma: no cover - Windows
        return True
    poller = select.poll()
    poller.register(fd, 0)  # POLLERR and POLLHUP are reported whatever the mask
    return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))


@contextlib.contextmanager
def _quiet_when_stdout_closes() -> Any:
    """Turn a broken pipe on stdout into a quiet :data:`EXIT_STDOUT_CLOSED`: no traceback, no message.

    What is still buffered for stdout goes to ``os.devnull`` (else the interpreter's last flush would print
    "Exception ignored ... BrokenPipeError"), as the Python documentation advises (``signal`` module, "Note on
    SIGPIPE": https://docs.python.org/3/library/signal.html#note-on-sigpipe).  A broken pipe elsewhere (a
    socket to an API) is not stdout's and propagates.

    Raises
    ------
    typer.Exit
        with :data:`EXIT_STDOUT_CLOSED`, when stdout's reader went away.
    """
    try:
        yield
        if sys.stdout is not None:
            sys.stdout.flush()  # what a command left buffered fails here, inside the guard, not at exit
    except OSError as exc:
        if exc.errno != errno.EPIPE or not _stdout_closed():
            raise
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        raise typer.Exit(EXIT_STDOUT_CLOSED) from None


class QuietPipeGroup(TyperGroup):
    """The ``graphkit`` command group: every command, ``--help`` and ``--version`` exit with
    :data:`EXIT_STDOUT_CLOSED`, quietly, when the reader of stdout closes early (``graphkit nodes | head -1``),
    instead of Click's exit status 1 (or a traceback)."""

    def make_context(self, *args: Any, **kwargs: Any) -> Any:  # parsing: --help, --version, usage errors
        with _quiet_when_stdout_closes():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: Any) -> Any:  # the command (sub-groups included)
        with _quiet_when_stdout_closes():
            return super().invoke(ctx)


class Format(str, Enum):
    table = "table"
    json = "json"


GraphOpt = Annotated[Optional[Path], typer.Option("--graph", "-g", metavar="FILE", help="Graph file from 'graphkit build'.")]
SourcesOpt = Annotated[list[str], typer.Option("--from", metavar="ID", help="Source node id (runner, host, job...). "
                                              "Repeatable: the union is analysed.")]
#: ``--org``: the owner of ``--from untrusted:fork-pr`` (:func:`graphkit.resolve.untrusted.expand_sources`).
OrgOpt = Annotated[Optional[str], typer.Option("--org", metavar="ORG", help="Owner of the untrusted entry points "
                                               "named without one (--from untrusted:fork-pr).")]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]


class GraphInput:
    """What a command reads: a saved graph (``--graph``) or the inputs of ``build`` (one option per ingestor).

    ``inputs``: ingestor name -> values as given (``--github-actions DIR`` ...).
    """

    def __init__(self, graph: Path | None, inputs: dict[str, list[str]]) -> None:
        self.graph, self.inputs = graph, {k: v for k, v in inputs.items() if v}

    def holds(self, path: Path) -> tuple[str, str] | None:
        """The input writing ``path`` would replace, as ``(option, value)`` (None: none): the ``--graph`` file, an
        input file (``--aws-iam x.json -o x.json``), or a file an input folder contributes, whatever its extension
        (a host snapshot in a ``--runners`` folder, an export in an ``--aws-iam`` one: the files the source reads
        there, :func:`graphkit.build.reads_file`), through :func:`replaced_input`.  A file the sources do not read
        (a graph or report saved in an input folder) may be replaced."""
        from graphkit.build import reads_file
        given = [("--graph", str(self.graph))] if self.graph is not None else []
        given += [(f"--{name}", str(p)) for name, paths in self.inputs.items() for p in paths]
        return replaced_input(path, given, lambda option, folder, target: option != "--graph" and reads_file(
            {option.removeprefix("--"): [folder]}, target))

    def refuse_output(self, output: Path | None, what: str) -> None:
        """Raise the usage error of ``-o`` naming an input of this command (:meth:`holds`), naming both."""
        refuse_output(output, self.holds(output) if output is not None else None, what)

    def build(self) -> BuildResult:
        """Build from the inputs with a progress bar on stderr, naming every skipped input there.

        Raises
        ------
        GraphkitError
            when nothing could be read (:meth:`BuildResult.check_readable`).
        """
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        from graphkit.build import build_graph
        from graphkit.ingestor import reuse_listing
        with reuse_listing():  # the files counted for the bar are the files built: listed once
            total = sum(registry.get(name).count(paths) for name, paths in self.inputs.items())
            with Progress(TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TimeElapsedColumn(), console=err, transient=True,
                          disable=total < 20 or not err.is_terminal) as bar:  # off a terminal: a bare newline
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
            from graphkit.graph import Graph
            loaded = Graph.load(self.graph)
            return loaded, loaded.meta.partial
        if not self.inputs:
            raise typer.BadParameter(f"give --graph FILE or at least one input ({input_flags()})")
        result = self.build()
        return result.graph, result.partial


    def end(self, graph: Graph, partial: bool, *, named: Sequence[Any] = ()) -> None:
        """Finish a command that read ``graph``: when its input was partial (``partial``: the graph's; ``named``:
        problems of another input of the command, e.g. ``--tokens`` records, already named on stderr),
        :func:`exit_partial` (the note and exit 3); else return."""
        if partial or named:
            exit_partial(graph.meta.problems if partial else [], graph_file=self.graph, named=named)


#: Problems of a saved graph that :func:`exit_partial` lists again (the rest are counted).
PARTIAL_LISTED = 5


def exit_partial(problems: Sequence[Any], *, graph_file: Path | str | None = None,
                 named: Sequence[Any] = ()) -> NoReturn:
    """End a command whose graph came from partial input: one note on stderr, the same for every command, and
    exit 3 (README "Exit codes").

    Parameters
    ----------
    problems
        the graph's input problems (``graph.meta.problems``, or a document's ``problems``: objects or mappings
        with ``file``, ``place``, ``reason``); empty when the graph was complete.
    graph_file
        the saved graph (or database) they come from: its first :data:`PARTIAL_LISTED` problems are named again,
        as ``graphkit build`` named them; None when the command built the graph itself and named each one.
    named
        problems of the command's other inputs (``--tokens`` records left out), already named on stderr: counted
        under their own files, never as the graph's.

    Raises
    ------
    typer.Exit
        always, with :data:`EXIT_PARTIAL`.
    """
    n = len(problems)
    head = "[yellow]partial input:[/yellow]"
    files = sorted({str(_field(p, "file")) for p in named})
    others = f"{len(named)} place(s) of {', '.join(files)} were skipped (named above)" if named else ""
    if graph_file is None or not n:  # every problem was named above
        what = ([f"{n} file(s) or place(s) were skipped (named above)"] if n else []) + ([others] if others else [])
        err.print(f"{head} {term('; '.join(what))}; the output covers the rest", highlight=False)
        raise typer.Exit(EXIT_PARTIAL)
    err.print(f"{head} {n} file(s) or place(s) were skipped when {term(str(graph_file))} was built"
              f"{'; ' + term(others) if others else ''}; the output covers the rest:", highlight=False)
    for p in problems[:PARTIAL_LISTED]:
        place = _field(p, "place")
        err.print(f"  skipped {term(str(_field(p, 'file')))}{': ' + term(str(place)) if place else ''}: "
                  f"{term(str(_field(p, 'reason')))}", highlight=False)
    if n > PARTIAL_LISTED:
        err.print(f"  ... and {n - PARTIAL_LISTED} more (meta.problems of the graph file)", highlight=False)
    raise typer.Exit(EXIT_PARTIAL)


def _field(problem: Any, key: str) -> Any:
    """``problem``'s ``key``: a mapping's item or an object's attribute ("" when absent)."""
    return problem.get(key, "") if isinstance(problem, dict) else getattr(problem, key, "")


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
    names = [shown(graph.node(hops[0]["source"]).name)] if hops else []
    for h in hops:
        mark = "" if h["confidence"] == "certain" else "?"
        names.append(f"-{h['kind']}{mark}-> {shown(graph.node(h['target']).name)}")
    return " ".join(names)


def _evidence_text(hops: list[dict]) -> str:
    """Where the last hop was seen: ``repo:file:line (yaml.path)``."""
    if not hops or not hops[-1]["evidence"]:
        return ""
    e = hops[-1]["evidence"][0]
    where = f"{e['repository']}:{shown(e['file'])}" if e.get("repository") else shown(e["file"])
    where += f":{e['line']}" if e.get("line") else ""
    return where + (f" ({shown(e['yaml_path'])})" if e.get("yaml_path") else "")


#: ``--top`` when stdout is a terminal and none is given: the first screen stays the summary and the worst assets
#: (piped output and ``--format json`` list everything).
TERMINAL_TOP = 5
#: Plan steps named in the summary (the runbook's first actions).
SUMMARY_STEPS = 5


def print_item(markup: str, indent: int = 0, style: str = "", *, hang: str = "") -> None:
    """Print one item: on a terminal wrapped by Rich at the console width, every continuation line under the
    start of ``markup`` (after ``indent`` spaces and the ``hang`` label, e.g. ``CRITICAL``; a word longer than
    the width is folded); piped, one plain line as written (grep, copy)."""
    if not out.is_terminal:
        out.print(" " * indent + (hang + " " if hang else "") + markup, style=style or None, highlight=False)
        return
    from rich.table import Table
    from rich.text import Text
    grid = Table.grid()
    cells: list[Text | str] = []
    if indent:
        grid.add_column(no_wrap=True, width=indent)
        cells.append("")
    if hang:
        grid.add_column(no_wrap=True)
        cells.append(Text.from_markup(hang + " "))
    grid.add_column(overflow="fold")
    grid.add_row(*cells, Text.from_markup(markup, style=style))
    out.print(grid, soft_wrap=False, highlight=False)


def _oneprint_item(markup: str, indent: int = 0, style: str = "") -> None:
    """Print one line, cut with an ellipsis at the console width on a terminal (summary lines)."""
    if out.is_terminal:
        from rich.text import Text
        text = Text.from_markup(" " * indent + markup, style=style)
        text.truncate(out.width, overflow="ellipsis")
        out.print(text, soft_wrap=False, no_wrap=True, overflow="ellipsis", highlight=False)
    else:
        out.print(" " * indent + markup, style=style or None, highlight=False)


def _source_names(graph: Graph, ids: Iterable[str]) -> str:
    """The names of ``ids`` as a title shows them (an id the graph does not hold, as written)."""
    from graphkit.analysis.reach import known_id
    from graphkit.errors import UnknownNodeError

    def name(node_id: str) -> str:
        try:
            return shown(graph.node(known_id(graph, node_id)).name)
        except UnknownNodeError:
            return shown(node_id)
    return term(", ".join(name(s) for s in ids))


def _print_summary(graph: Graph, doc: dict, top: int | None, named: Iterable[str] | None = None) -> None:
    """The first screen: what the sources reach, the first plan steps, what is unknown; titled by the sources the
    user ``named`` (a repository, not the jobs it stands for), else by the document's."""
    counts, src = doc["counts"], _source_names(graph, doc["source"] if named is None else named)
    possible = sum(1 for r in doc["reached"] if r["confidence"] != "certain")
    print_item(f"[bold]Blast radius of {src}[/bold]")
    listed = f" (top {top} shown)" if top is not None and top < counts["reached"] else ""
    print_item(f"reached {counts['reached']}{listed}, [bold red]critical {counts['by_criticality'].get('critical', 0)}"
          f"[/bold red], possible {possible} (through a scope not fully known), weighted {doc['weight']}", 2)
    _print_exposure(doc.get("exposure"))
    steps, plan = doc["revocations"], doc.get("plan") or {"computed": True, "complete": True}
    first = min(SUMMARY_STEPS, top or SUMMARY_STEPS)  # an explicit --top bounds the plan: never more than it
    if not plan["computed"]:
        print_item("plan not computed (--no-plan)", 2, "dim")
    else:
        print_item(f"[bold]First steps[/bold] ({min(len(steps), first)} of {counts['revocations']}"
                   f"{'' if plan['complete'] else '+'}; --format runbook for the commands)", 2)
    for s in steps[:first]:
        _oneprint_item(f"{s['rank']:>2}. {s['action']} {term(shown(s.get('target_name') or s['target']))}", 4)
    problems = len(doc["problems"])
    unknown = f"{problems} input problem(s) (skipped files or places: the radius may be larger)" if problems \
        else "no input problems"
    print_item(f"unknown: {possible} possible path(s), {unknown}", 2, "yellow" if possible or problems else "dim")
    _print_unreadable(doc)


def _print_unreadable(doc: dict) -> None:
    """The unreadable API scopes of the summary (collect github), with their fix; on one terminal with stderr,
    which named each just above (fix included), their count only."""
    fixable = [p for p in doc["problems"] if "; fix: " in p["reason"]]
    if fixable and out.is_terminal and err.is_terminal:
        print_item(f"{len(fixable)} unreadable scope(s), each named above with its fix", 4, "yellow")
        return
    for p in fixable[:SUMMARY_STEPS]:
        _oneprint_item(term(p["reason"]), 4, "yellow")
    if len(fixable) > SUMMARY_STEPS:
        print_item(f"... {len(fixable) - SUMMARY_STEPS} more unreadable scope(s), see above", 4, "dim")


def _print_exposure(exp: dict | None) -> None:
    """Exposed (what observed runs on the compromised runners received since T) versus reachable (what future
    jobs would hand over), or why it is unknown (:mod:`graphkit.analysis.exposure`)."""
    if exp is None:
        return
    if not exp["known"]:
        print_item(term(exp["note"]), 2, "yellow")
        return
    jobs = len({r["job"] for r in exp["runs"]})
    print_item(f"[bold red]exposed {exp['exposed']}[/bold red] (received by {len(exp['runs'])} observed run(s) of "
               f"{jobs} job(s) since {term(exp['since'])}), reachable {exp['reachable']} (what future jobs would "
               "hand over)", 2)


def _runs_text(graph: Graph, runs: list[dict]) -> str:
    """``job on runner (run 200, push by alice, 2026-11-30T09:01:00Z)``, the first three runs, then ``+N``."""
    parts = [f"{shown(graph.node(r['job']).name)} on {shown(graph.node(r['runner']).name)} (run {r.get('run_id')}, "
             f"{r.get('event') or '?'} by {r.get('actor') or '?'}, {r.get('started_at') or '?'})" for r in runs[:3]]
    return "; ".join(parts) + (f"; +{len(runs) - 3} more" if len(runs) > 3 else "")


def _lifetime_text(r: dict) -> str:
    """The lifetime beside an asset: the shown path's, and the best over every path when that lasts longer."""
    if r.get("path_lifetime") and r["path_lifetime"] != r["lifetime"]:
        return f"{r['path_lifetime']} on this path ({r['lifetime']} over another path)"
    return r["lifetime"]


def _print_reached(graph: Graph, doc: dict, top: int | None) -> None:
    """The per-kind listing (critical first), at most ``top`` assets."""
    counts = doc["counts"]
    groups: dict[str, list[dict]] = {}
    for r in doc["reached"][:top]:  # already ordered critical first
        groups.setdefault(r["kind"], []).append(r)
    for kind, rows in groups.items():
        total = counts["by_kind"][kind]
        n = f"{len(rows)} of {total}" if len(rows) < total else str(total)
        out.print(f"\n[bold underline]{kind}[/bold underline] ({n})", highlight=False)
        for r in rows:
            crit = r["criticality"].upper()
            style = "bold red" if crit == "CRITICAL" else "yellow" if crit == "HIGH" else "dim"
            exposure = f", {r['exposure']}" if r.get("exposure") not in (None, "unknown") else ""
            print_item(f"{term(shown(r['id']))}  [dim]{r['confidence']}, {_lifetime_text(r)}{exposure}[/dim]", 2,
                       hang=f"[{style}]{crit:<8}[/{style}]")
            print_item(f"path: {term(_path_text(graph, r['path']))}", 11)
            if r.get("exposed_by"):
                print_item(f"exposed by: {term(_runs_text(graph, r['exposed_by']))}", 11, "red")
            print_item(f"evidence: {term(_evidence_text(r['path']))}", 11, "dim")
    hidden = counts["reached"] - min(len(doc["reached"]), top or counts["reached"])
    if hidden > 0:
        print_item(f"... {hidden} more asset(s) (--top N to see more, --format json for all)", 2, "dim")


def _print_plan(graph: Graph, doc: dict, top: int | None) -> None:
    """The revocation plan, at most ``top`` steps (nothing with ``--no-plan``: the summary says so)."""
    plan = doc.get("plan")
    if plan and not plan["computed"]:
        return
    out.print()
    print_item(f"[bold]Revocation plan[/bold] (weighted blast radius {doc['weight']} -> {doc['residual_weight']})")
    for s in doc["revocations"][:top]:
        cuts = ", ".join(shown(graph.node(c).name) for c in s["cuts"][:5]) + (", ..." if len(s["cuts"]) > 5 else "")
        print_item(f"[bold]{s['action']}[/bold] {term(shown(s['target']))}  [dim]residual {s['residual_weight']}[/dim]", 2,
              hang=f"{s['rank']:>2}.")
        if s["cuts"]:
            what = f"cuts {len(s['cuts'])}: {term(cuts)}"
        elif s["long_lived"]:
            what = "cuts nothing by itself (other footholds still reach it all)"
        else:
            what = f"cuts nothing in the graph by itself: {term(s['description'])}"
        print_item(f"{term('[' + s['phase'] + ']')} {what}", 6, "dim")
    hidden = doc["counts"]["revocations"] - len(doc["revocations"][:top])
    if hidden > 0:
        print_item(f"... {hidden} more step(s) down to residual {doc['residual_weight']} (--top limits the list)", 2,
              "dim")
    if plan and not plan["complete"]:
        print_item(f"... more steps after residual {doc['residual_weight']}, not computed (--top {plan['max_steps']} "
                   "bounds the plan)", 2, "dim")


def print_blast_radius(graph: Graph, doc: dict, top: int | None = None, named: Iterable[str] | None = None) -> None:
    """Print a ``graphkit.blast-radius/v1`` document: the summary (counts, first plan steps, unknowns; titled by
    the sources as ``named`` on the command line, when given), the reached assets by kind and the plan, each list
    cut to ``top`` entries (``None``: all)."""
    _print_summary(graph, doc, top, named)
    _print_reached(graph, doc, top)
    _print_plan(graph, doc, top)
    _print_time(doc.get("time"))


def _print_all_runners(rows: list[tuple]) -> None:
    """``blast-radius --all-runners`` as a table: one row per runner ``(weight, sources, counts, possible, first
    step)``, the heaviest blast radius first."""
    from rich.table import Table

    table = Table("runner", "reached", "critical", "possible", "weight", "first step", box=None)
    for weight, source, counts, possible, steps in sorted(rows, key=lambda d: (-d[0], d[1])):
        crit = counts["by_criticality"].get("critical", 0)
        first = steps[0] if steps else None
        table.add_row(term(", ".join(map(shown, source))), str(counts["reached"]), str(crit),
                      str(possible), str(weight), term(f"{first['action']} {shown(first['target'])}")
                      if first else "")
    out.print(table, highlight=False)


def _print_time(time: dict | None) -> None:
    """The tokens and sessions section (``--now``/``--tokens``): each with its status, then the notes."""
    if not time or not (time["tokens"] or time["notes"]):
        return
    out.print()
    print_item(f"[bold]Tokens and sessions[/bold] at {time['now']}")
    for t in time["tokens"]:
        print_item(f"{t['status']:<17} {term(t['kind'])} {term(t['subject'])}  [dim]{term(t['reason'])}[/dim]", 2)
    for n in time["notes"]:
        print_item(term(n), 2, "dim")


def every_runner(given: GraphInput, *, as_json: bool, top: int | None, no_plan: bool, clock: Any = None) -> None:
    """``blast-radius --all-runners``: one ``graphkit.blast-radius/v1`` document per runner (JSON: one
    ``graphkit.blast-radius-all/v1`` object, written one runner at a time as it is computed, one runner per
    line: :func:`write_json_stream`), or one table row per
    runner, with a progress bar on a terminal.  Memory holds one runner's result at a time (the table keeps one
    row per runner).  ``clock`` (:class:`graphkit.output.Clock`, from ``--now``, ``--compromised-since`` and
    ``--tokens``) applies to every runner as it does to one: jobs the history shows ending before the
    compromise exposed nothing, and each document gets its ``time`` section."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from graphkit.analysis import blast_radii
    from graphkit.analysis.exposure import observed_since
    from graphkit.output import blast_radius_document

    try:
        g, partial = given.load()
    except GraphkitError as exc:
        fail(exc)
    g = observed_since(g, clock.compromised_since if clock is not None else None)
    rows: list[tuple] = []
    with Progress(TextColumn("blast radius of every runner"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True, disable=not err.is_terminal) as bar:
        task = bar.add_task("runners", total=None)
        radii = blast_radii(g, progress=lambda done, total: bar.update(task, completed=done, total=total))
        if as_json:
            write_json_stream(out.file, "graphkit.blast-radius-all/v1", "runners", (
                blast_radius_document(g, r.sources, top=top, radius=r, plan_steps=top, with_plan=not no_plan,
                                      clock=clock)
                for r in radii))
        else:
            for r in radii:
                doc = blast_radius_document(g, r.sources, top=1, radius=r, plan_steps=top, with_plan=not no_plan,
                                            clock=clock)
                rows.append((doc["weight"], doc["source"], doc["counts"], r.tally()[2], doc["revocations"][:1]))
    if not as_json:
        _print_all_runners(rows)
    given.end(g, partial, named=clock.problems if clock is not None else ())  # tokens records left out


def write_json_stream(file: Any, schema: str, key: str, items: Iterable[Any]) -> None:
    """Write ``{"schema": schema, key: [items...]}`` one item at a time, each item on a line of its own::

        {"schema": "graphkit.blast-radius-all/v1", "runners": [
        {...first runner...},
        {...second runner...}
        ]}

    Each item is serialized by the standard library's C encoder (compact; ``indent`` would switch
    :mod:`json` to its pure-Python encoder, ten times slower on the gigabytes an org's runners give), written
    and dropped before the next is made.  Every non-ASCII character is escaped, so the text carries no control
    or reordering character (:func:`graphkit.output.print_json`).
    """
    import json

    file.write("{" + json.dumps("schema") + ": " + json.dumps(schema) + ", " + json.dumps(key) + ": [")
    sep = "\n"
    for item in items:
        file.write(sep + json.dumps(item, ensure_ascii=True))
        sep = ",\n"
    file.write("\n]}\n")
    file.flush()


def _loopback(host: str) -> bool:
    """``host`` is this machine (``localhost`` or a loopback address): plain http never leaves it."""
    import ipaddress
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def api_url_option(value: str, *, flag: str = "--api-url", form: str = "https://HOST[/api/v3]",
                   token: str = "GITHUB_TOKEN/GH_TOKEN or a GitHub App") -> str:
    """``--api-url`` (``collect github``) or ``--url`` (``collect gitlab``): an https URL without credentials or
    query (the token goes in an environment variable, never in a flag); plain http only to a loopback host, as
    the token would cross the network in cleartext.

    Returns the URL without a trailing ``/``.  Raises :class:`typer.BadParameter` (a usage error naming ``flag``)
    for another scheme, no host, credentials or a query in the URL, or plain http to a non-loopback host."""
    url = urlsplit(value)
    if url.scheme not in ("https", "http") or not url.hostname or url.username or url.password or url.query:
        raise typer.BadParameter(f"expected {form} without credentials or query (the token comes from {token})",
                                 param_hint=flag)
    if url.scheme == "http" and not _loopback(url.hostname):
        raise typer.BadParameter(f"plain http would send the token ({token}) in cleartext: use https (http is "
                                 "accepted for localhost only)", param_hint=flag)
    return value.rstrip("/")


#: What pydantic puts before the message of a ``ValueError`` raised in a validator; Typer (0.29) checks choices
#: (``--format xml``) with one, so its usage errors began "Value error, 'xml' is not one of ...".
_PYDANTIC_PREFIX = "Value error, "


def plain_usage_errors(group: Any) -> type:
    """A subclass of the Click group class ``group`` (a Typer app's ``info.cls``: not a class yet when the app
    was made without ``cls``, then Typer's group) whose usage errors (parsing the command line, its sub-commands'
    included) carry no pydantic wording (:data:`_PYDANTIC_PREFIX`): ``Invalid value for '--format' / '-f':
    'xml' is not one of 'table', 'json', 'runbook'.``"""
    from typer.core import TyperGroup

    group = group if isinstance(group, type) else TyperGroup
    def plain(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return call(*args, **kwargs)
        except typer.BadParameter as exc:  # Typer's own Click
            if exc.message.startswith(_PYDANTIC_PREFIX):
                exc.message = exc.message[len(_PYDANTIC_PREFIX):]
            raise

    class PlainUsage(group):  # type: ignore[misc, valid-type]
        def make_context(self, *args: Any, **kwargs: Any) -> Any:
            return plain(super().make_context, *args, **kwargs)

        def invoke(self, ctx: Any) -> Any:
            return plain(super().invoke, ctx)

    PlainUsage.__name__ = PlainUsage.__qualname__ = f"PlainUsage{group.__name__}"
    return PlainUsage


def print_diff(changes: list[Any], problems: list[GraphkitError], *, as_json: bool, old: str, new: str) -> None:
    """``graphkit diff``'s output: each snapshot problem named on stderr, the changes as ``graphkit.diff/v1`` JSON
    or a table, then exit 3 (:data:`EXIT_PARTIAL`) when a bad entry was left out."""
    from graphkit.diff import diff_document
    for p in problems:
        err.print(f"[yellow]skipped[/yellow] {term(str(p))}", highlight=False)
    if as_json:
        print_json(out, diff_document(changes, old, new))
    else:
        from rich.table import Table
        table = Table(show_edge=False)
        for col in ("signal", "change", "kind", "id", "what"):
            table.add_column(col, overflow="fold")
        for c in changes:
            what = c.message + "".join(f"; {k}: {v[0]} -> {v[1]}" for k, v in c.fields.items())
            table.add_row(*map(term, (c.signal.value, c.change, c.kind.value, c.id, what)))
        out.print(table)
        err.print(f"{len(changes)} change(s)")
    if problems:
        raise typer.Exit(EXIT_PARTIAL)
