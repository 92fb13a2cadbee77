"""Outputs: machine-readable documents (versioned contracts) and the one way text reaches a terminal.

``graphkit.blast-radius/v1`` is frozen: fields may be added, never renamed or
removed.  Its JSON Schema ships in ``schemas/blast-radius.schema.json``.

Names come from hostile input (a job key, a runner label, a repository
name): :func:`term` is how every such text is printed, so an escape sequence,
a bidirectional override or a newline is shown, never obeyed.
"""

from __future__ import annotations

import dataclasses

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:  # imported on first use: the CLI imports this module to print, before any analysis
    from graphkit.analysis import BlastRadius, RevocationPlan
    from graphkit.analysis.exposure import Exposure
    from graphkit.analysis.timeline import Issued, TokenStatus
    from graphkit.errors import InputError
    from graphkit.graph import Graph

__all__ = ["BLAST_RADIUS_SCHEMA", "NO_HISTORY", "NO_HISTORY_OTHER", "no_history_note", "Clock", "blast_radius_document", "neutralise", "print_json", "runbook_text",
           "term"]

BLAST_RADIUS_SCHEMA = "graphkit.blast-radius/v1"

#: Characters a terminal obeys instead of showing: C0 controls (ESC starts CSI/OSC sequences: clear the
#: screen, retitle the window; CR/LF forge lines), DEL, C1 controls (0x9b is a one-byte CSI), and the Unicode
#: format characters that reorder or hide text (bidi embeddings, overrides and isolates, marks, zero-width
#: characters, line/paragraph separators, BOM).  Unicode TR #9 (bidi), ECMA-48 (control functions); the
#: "Trojan Source" attack, CVE-2021-42574.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(m: re.Match[str]) -> str:
    c = m.group()
    return _SHORT.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def neutralise(text: object, keep: str = "") -> str:
    """``text`` with every character a terminal would obey shown as an escape (``\\x1b``, ``\\u202e``, ``\\n``),
    except those in ``keep`` (``"\\n\\t"`` for a multi-line document whose lines are graphkit's own).

    >>> neutralise("job\\x1b]0;owned\\x07\\nrow\\u202eabc")
    'job\\\\x1b]0;owned\\\\x07\\\\nrow\\\\u202eabc'
    >>> neutralise("a\\x1b[2J\\nb", keep="\\n")
    'a\\\\x1b[2J\\nb'
    """
    if keep:
        return _UNSAFE.sub(lambda m: m.group() if m.group() in keep else _visible(m), str(text))
    return _UNSAFE.sub(_visible, str(text))


#: Characters of one name the terminal output shows: a longer one (a 100 KB job ``name:`` written by whoever can
#: push, printed on every path line through it) is cut, with its length; JSON keeps every name whole.
SHOWN_CHARS = 300


def shown(text: object) -> str:
    """One name as the terminal shows it: cut past :data:`SHOWN_CHARS` characters, with its length.

    >>> shown("n" * 1000)[-45:]
    'nnnnnnnnnn... (name of 1000 characters, cut)'
    >>> shown("build")
    'build'
    """
    text = str(text)
    return f"{text[:SHOWN_CHARS]}... (name of {len(text)} characters, cut)" if len(text) > SHOWN_CHARS else text


def term(text: object) -> str:
    """Text from input as Rich markup that prints it verbatim and inert: :func:`neutralise`, then Rich's
    markup escape (``[bold]`` in a name stays text).  Every name the CLI prints goes through here, and through
    :func:`shown` first (a line composed of several names cuts each of them).

    >>> term("[red]x\\x1b[2J")
    '\\\\[red]x\\\\x1b[2J'
    """
    return escape(neutralise(text))


def print_json(console: Console, document: Any) -> None:
    """Print a JSON document with every non-ASCII character escaped (``\\u202e``, ``\\u009b``): the JSON a
    terminal shows carries no control or reordering character (JSON itself escapes only U+0000-U+001F).

    On a terminal Rich colours it; otherwise (a pipe, a file, a test) the standard library writes the same text
    (``indent=2``, as Rich's ``print_json``) straight to the console's file: Rich's highlighter took seconds on
    megabytes.
    """
    if console.is_terminal:
        console.print_json(json.dumps(document), ensure_ascii=True)
        return
    text = json.dumps(document, indent=2, ensure_ascii=True)
    if console.record or console.is_jupyter:  # pragma: no cover - recording or notebook consoles keep Rich's path
        console.print_json(text)
        return
    console.file.write(text + "\n")
    console.file.flush()


@dataclass(frozen=True)
class Clock:
    """The time of an analysis: ``now``, the start of the compromise and the issued tokens known.

    See :mod:`graphkit.analysis.timeline` (lifetimes and their sources).
    """

    now: datetime
    compromised_since: datetime | None = None
    issued: tuple[Issued, ...] = field(default_factory=tuple)
    #: records of the tokens file left out (each named on stderr; the output is partial: exit 3)
    problems: tuple[InputError, ...] = field(default_factory=tuple)

    def tokens(self, graph: Graph) -> list[TokenStatus]:
        """Every issued token classified at ``now``."""
        from graphkit.analysis.timeline import classify_all
        return classify_all(self.issued, now=self.now, compromised_since=self.compromised_since, graph=graph)

    def live_sessions(self, graph: Graph) -> list[str]:
        """Roles with a live STS session (their revocation is a plan step)."""
        from graphkit.analysis.timeline import TokenKind
        return sorted({t.issued.subject for t in self.tokens(graph)
                       if t.status == "live" and t.issued.kind is TokenKind.STS_SESSION})


def _time_section(graph: Graph, clock: Clock, radius: BlastRadius, plan: RevocationPlan) -> dict[str, Any]:
    from graphkit.analysis.timeline import session_notes
    narrowed = {s.subject_id: s.rank for s in plan.steps if s.action.value == "narrow_trust_policy"}
    return {"now": clock.now.isoformat(), "compromised_since":
            clock.compromised_since.isoformat() if clock.compromised_since else None,
            "tokens": [t.to_dict() for t in clock.tokens(graph)],
            "notes": session_notes(graph, [*radius.sources, *radius.ids], narrowed)}


#: What the summary and the JSON say when no job history was read: exposure is unknown, never "nothing exposed".
NO_HISTORY = "exposure unknown: no job history; run collect github --since"
#: The same for a graph without GitHub jobs (GitLab, Kubernetes, hosts): graphkit reads job history from GitHub
#: only (``collect github --since``); no reader exists for GitLab's jobs API.
NO_HISTORY_OTHER = ("exposure unknown: no job history (graphkit reads job history from GitHub only, with collect "
                    "github --since; none is read for GitLab)")


def no_history_note(graph: Graph) -> str:
    """The ``exposure unknown`` note worded for the graph's platforms: the GitHub hint only when it has GitHub jobs."""
    from graphkit.model import NodeKind
    github = any(getattr(j, "platform", "github") == "github" for j in graph.nodes(NodeKind.JOB))
    return NO_HISTORY if github else NO_HISTORY_OTHER


def _with_exposure(entry: dict[str, Any], exp: Exposure) -> dict[str, Any]:
    """A reached entry with ``exposure`` (``exposed``/``reachable``; left out with no job history, which the
    document's ``exposure`` section states) and, when exposed, how sure
    (``exposure_confidence``) and the observed runs that handed it over (``exposed_by``: job, runner, run and
    job ids, event, actor, head ref, times, evidence)."""
    if not exp.known:
        return entry  # the document's ``exposure`` section says it is unknown (no job history)
    entry["exposure"] = exp.status(entry["id"])
    if entry["exposure"] == "exposed":
        entry["exposure_confidence"] = "possible" if entry["id"] in exp.possible else "certain"
        jobs = set(exp.assets[entry["id"]])
        entry["exposed_by"] = [r.to_dict() for r in exp.runs if r.job in jobs]
    return entry


def _exposure_section(exp: Exposure, radius: BlastRadius, note: str = NO_HISTORY) -> dict[str, Any]:
    """``{known, since, exposed, reachable, runs, note}``: counts over the reached assets."""
    exposed = sum(1 for i in radius.node_ids() if i in exp.assets) if exp.known else 0
    return {"known": exp.known, "since": exp.since,
            "exposed": exposed if exp.known else None,
            "reachable": len(radius) - exposed if exp.known else None,
            "runs": [r.to_dict() for r in exp.runs],
            "note": None if exp.known else note}


def runbook_text(graph: Graph, sources: str | Iterable[str], *, clock: Clock, max_steps: int | None = None) -> str:
    """``blast-radius --format runbook``: the Markdown checklist, then the dry-run shell script in a fenced block.

    ``max_steps``: compute only the first ``max_steps`` plan steps (the CLI's ``--top``; one more tells whether
    others follow, and the runbook then says the plan goes on); None: the whole plan.

    Raises
    ------
    UnknownNodeError
        for an unknown source id.
    """
    import dataclasses

    from graphkit.analysis import blast_radius, revocation_plan
    from graphkit.analysis.exposure import exposure, observed_since
    from graphkit.report.runbook import runbook_markdown, runbook_script

    graph = observed_since(graph, clock.compromised_since)
    radius = blast_radius(graph, sources)
    exp = exposure(graph, radius, clock.compromised_since)
    plan = revocation_plan(graph, radius.sources, live_sessions=clock.live_sessions(graph), exposed=exp.assets,
                           max_steps=None if max_steps is None else max_steps + 1)
    goes_on = max_steps is not None and len(plan.steps) > max_steps
    if goes_on:
        plan = dataclasses.replace(plan, steps=plan.steps[:max_steps])
    time = _time_section(graph, clock, radius, plan)
    md = runbook_markdown(graph, plan, now=clock.now, tokens=clock.tokens(graph), notes=time["notes"],
                          goes_on=goes_on)
    text = md + "\n## Script\n\n```sh\n" + runbook_script(graph, plan, now=clock.now, goes_on=goes_on) + "```\n"
    return neutralise(text, keep="\n\t")  # printed as is: names never carry an escape sequence or bidi override


def input_problems(graph: Graph, clock: Clock | None = None) -> list[dict[str, str]]:
    """The input problems of an analysis, as ``[{file, place, reason}]``: the graph's (``meta.problems``), then the
    ``--tokens`` records left out (``clock.problems``)."""
    return [p.model_dump() for p in graph.meta.problems] + [p.as_dict() for p in (clock.problems if clock else ())]


def blast_radius_document(graph: Graph, sources: str | Iterable[str], *, top: int | None = None,
                          radius: BlastRadius | None = None, plan: RevocationPlan | None = None,
                          clock: Clock | None = None, plan_steps: int | None = None,
                          with_plan: bool = True) -> dict[str, Any]:
    """The ``graphkit.blast-radius/v1`` document for ``sources``.

    Parameters
    ----------
    graph, sources
        as for :func:`graphkit.analysis.blast_radius`.
    top
        keep only the first ``top`` reached assets (critical first) and plan
        steps; ``counts`` still describes the whole result.
    radius, plan
        precomputed results (computed when omitted).
    clock
        the time of the analysis (``--now``, ``--compromised-since``, ``--tokens``): adds ``time`` (tokens
        classified live/expired/revoked with their documented lifetimes, notes on session-revocation
        policies) and orders session revocations after the paths that mint them; the tokens records it left out
        (``clock.problems``) are input problems (``problems``, ``partial_input``) after the graph's.
    plan_steps
        compute only the first ``plan_steps`` steps of the plan (one more tells whether others follow): the
        CLI's ``--top``.  When the plan goes on, ``plan`` says so and ``counts.revocations`` and
        ``residual_weight`` describe the steps computed.
    with_plan
        False: no plan at all (``--no-plan``): ``revocations`` is empty, ``counts.revocations`` is null (not
        counted, never "none") and ``plan`` says it was not computed.

    Returns
    -------
    dict
        ``{schema, source, counts, weight, reached: [{id, kind, name,
        criticality, confidence, lifetime, path: [hop]}], revocations: [{rank,
        action, target, target_kind, target_name, description, phase,
        long_lived, cuts, residual_weight}], residual_weight, partial_input, problems: [{file, place, reason}]}``,
        plus ``plan: {computed, complete, max_steps}`` when the plan was skipped or bounded and goes on.

    Raises
    ------
    UnknownNodeError
        for an unknown source id.
    """
    from graphkit.analysis import RevocationPlan, blast_radius, revocation_plan
    from graphkit.analysis.exposure import exposure, observed_since
    since = clock.compromised_since if clock is not None else None
    if radius is None:
        graph = observed_since(graph, since)  # the runs that ended before the compromise exposed nothing
        radius = blast_radius(graph, sources)
    exp = exposure(graph, radius, since)
    if plan is None and not with_plan:
        plan = RevocationPlan(sources=radius.sources, initial_weight=radius.weight, held=(), steps=())
    elif plan is None:
        live = clock.live_sessions(graph) if clock is not None else ()
        plan = revocation_plan(graph, radius.sources, live_sessions=live, exposed=exp.assets,
                               max_steps=None if plan_steps is None else plan_steps + 1)
    goes_on = plan_steps is not None and len(plan.steps) > plan_steps
    problems = input_problems(graph, clock)
    if goes_on:
        plan = dataclasses.replace(plan, steps=plan.steps[:plan_steps])
    by_kind, by_crit, _ = radius.tally()  # counts and the first ``top`` without building every Reached
    reached = radius.head(top)
    hops: dict[int, dict[str, Any]] = {}  # paths share hop objects: each converted once
    steps = plan.steps if top is None else plan.steps[:top]
    doc = {
        "schema": BLAST_RADIUS_SCHEMA,
        "source": list(radius.sources),
        "counts": {"reached": len(radius), "reached_listed": len(reached), "by_kind": dict(sorted(by_kind.items())),
                   "by_criticality": dict(sorted(by_crit.items())),
                   "revocations": len(plan.steps) if with_plan else None},
        "weight": radius.weight,
        "reached": [_with_exposure(r.to_dict(hops=hops), exp) for r in reached],
        "revocations": [{"rank": s.rank, "action": s.action.value, "target": s.subject_id,
                         "target_kind": s.subject_kind.value, "target_name": s.subject_name,
                         "description": s.description, "phase": s.phase.value, "long_lived": s.long_lived, "cuts": list(s.cuts),
                         "residual_weight": s.residual_weight} for s in steps],
        "residual_weight": plan.residual_weight,
        "partial_input": bool(problems),
        "problems": problems,
        "exposure": _exposure_section(exp, radius, no_history_note(graph)),
    }
    if goes_on or not with_plan:
        doc["plan"] = {"computed": with_plan, "complete": False, "max_steps": plan_steps if with_plan else 0}
    if clock is not None:
        doc["time"] = _time_section(graph, clock, radius, plan)
    return doc
