"""HTML assembly of the report: tables, summary cards and the page around the two figures.

The page is one self-contained document: plotly.js inline, every
input-derived string HTML-escaped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio
from plotly.offline import get_plotlyjs

from graphkit import __version__
from graphkit.analysis import (BlastRadius, ChokePoint, Hop, Reached, RevocationPlan, blast_radius, choke_points,
                               revocation_plan)
from graphkit.analysis.exposure import Exposure, exposure, observed_since
from graphkit.files import write_atomic
from graphkit.findings import Finding, rules, run_rules
from graphkit.graph import Graph
from graphkit.model import REVOCATION_SPECS, Confidence, Criticality
from graphkit.report.figures import revocation_curve_figure
from graphkit.report.text import esc, evidence_lines
from graphkit.report.view import view_html

__all__ = ["BLAST_RADIUS_DIV", "REVOCATION_CURVE_DIV", "report_html", "write_report"]

#: DOM ids of the two plots in the report (the browser test looks for them).
BLAST_RADIUS_DIV = "gk-blast-radius"
REVOCATION_CURVE_DIV = "gk-revocation-curve"

#: Sources named in the page title (all of them are listed under it).
_TITLE_NAMES = 4

_CONFIG = {"displaylogo": False, "responsive": True, "toImageButtonOptions": {"format": "png"}}


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#222;max-width:1600px}
h1{font-size:1.5em;margin-bottom:.2em} h2{margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.2em}
.meta{color:#555;font-size:.9em} .warn{background:#fff4e5;border:1px solid #f0b35b;padding:.5em .8em}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin:12px 0}
.card{border:1px solid #ddd;border-radius:6px;padding:8px 14px;min-width:120px}
.card b{display:block;font-size:1.5em}
table{border-collapse:collapse;width:100%;font-size:.85em;margin:8px 0}
th,td{border-bottom:1px solid #e4e4e4;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f6f6f6;position:sticky;top:0} code{font-size:.95em;word-break:break-all}
.critical{color:#b30000;font-weight:bold} .high{color:#b35900} .medium{color:#806600} .low,.none{color:#666}
.possible{font-style:italic;color:#666} .plot{overflow-x:auto;border:1px solid #eee;margin:8px 0}
details summary{cursor:pointer;color:#245}
.gk-controls{margin:8px 0;font-size:.9em} .gk-controls select{max-width:40em}
.gk-legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:.8em;color:#333;margin:4px 0 6px}
.gk-key{display:inline-flex;align-items:center;gap:5px} .gk-key i{display:inline-block;width:11px;height:11px;border-radius:50%}
.gk-key-source i{background:#111;transform:rotate(45deg);border-radius:0;width:9px;height:9px}
.gk-key-critical i{background:none;border-radius:0;width:auto;height:auto;font-style:normal}
.gk-key-critical i::before{content:"★";color:#b30000}
.gk-key-group i{border-radius:3px;background:#999} .gk-key-possible i{background:#999;opacity:.45}
.gk-key-chain i{height:3px;width:18px;border-radius:0;background:#e6550d}
.gk-key-rogue i{background:none;border:3px solid #d00000}
.gk-view{overflow-x:auto} .gk-svg{font-family:inherit;display:block}
.gk-label{font-size:11px;fill:#222;paint-order:stroke;stroke:#fff;stroke-width:3px}
.gk-header{font-size:12px;font-weight:bold;fill:#444} .gk-count{font-size:9px;fill:#fff;text-anchor:middle;font-weight:bold}
.gk-edge{fill:none;stroke:rgba(80,80,80,.45);stroke-width:1.1} .gk-possible.gk-edge{stroke-dasharray:3 3}
.gk-edge.gk-chain{stroke:#e6550d;stroke-width:1.8;stroke-opacity:.85} .gk-arrowhead{fill:rgba(80,80,80,.6)}
.gk-chain-head{fill:#e6550d} .gk-faded{opacity:.5} .gk-critical{stroke:#b30000;stroke-width:1.6}
.gk-source-mark{fill:#111;stroke:#fff;stroke-width:1.5} .gk-source,.gk-group,.gk-handle{cursor:pointer}
.gk-rogue-ring{fill:none;stroke:#d00000;stroke-width:3} .gk-rogue .gk-label{fill:#d00000;font-weight:bold}
.gk-group .gk-label,.gk-handle .gk-label{font-weight:600;fill:#234} .gk-group.gk-chain .gk-group-mark{stroke:#e6550d;stroke-width:2.5}
.gk-node.gk-chain circle{stroke:#e6550d;stroke-width:2.5}
.gk-focus-ring{fill:none;stroke:#1f77b4;stroke-width:3} .gk-focused .gk-label{font-weight:bold;fill:#1f4e79}
"""


def _cell_crit(value: str) -> str:
    return f'<span class="{esc(value)}">{esc(value)}</span>'


def _path_html(graph: Graph, path: Sequence[Hop]) -> str:
    if not path:
        return ""
    parts = [esc(graph.node(path[0].source).name)]
    for h in path:
        mark = "" if h.confidence is Confidence.CERTAIN else "?"
        parts.append(f" <small>─{esc(h.kind.value)}{mark}→</small> {esc(graph.node(h.target).name)}")
    return "".join(parts)


def _hops_evidence_html(path: Sequence[Hop]) -> str:
    items = []
    for h in path:
        ev = "; ".join(esc(x) for x in evidence_lines(h.evidence, 2))
        items.append(f"<li><code>{esc(h.kind.value)}</code> ({esc(h.confidence.value)}, {esc(h.lifetime.value)}): "
                     f"{ev}</li>")
    last = "; ".join(esc(x) for x in evidence_lines(path[-1].evidence, 1)) if path else ""
    return f"<details><summary>{last}</summary><ol>{''.join(items)}</ol></details>"


def _lifetime_html(r: Reached) -> str:
    """The shown path's lifetime, and the best over every path when that lasts longer."""
    if r.path_lifetime is r.lifetime:
        return esc(r.lifetime.value)
    return f"{esc(r.path_lifetime.value)} <small>on this path ({esc(r.lifetime.value)} over another path)</small>"


def _exposure_cell(exp: Exposure, node_id: str) -> str:
    """``exposed`` (with the jobs whose observed runs received it), ``reachable``, or ``unknown`` (no history)."""
    status = exp.status(node_id)
    if status != "exposed":
        return esc(status)
    jobs = ", ".join(esc(j) for j in exp.assets[node_id])
    return f'<span class="possible"><b>exposed</b></span><br><small>by {jobs}</small>'


def _reached_table(graph: Graph, radius: BlastRadius, exp: Exposure) -> str:
    rows = []
    for r in radius:
        conf = f'<span class="possible">{esc(r.confidence.value)}</span>' \
            if r.confidence is Confidence.POSSIBLE else esc(r.confidence.value)
        rows.append(f"<tr><td>{_cell_crit(r.criticality.value)}</td><td>{esc(r.kind.value)}</td>"
                    f"<td>{esc(r.name)}<br><code>{esc(r.id)}</code></td><td>{conf}</td><td>{_lifetime_html(r)}</td>"
                    f"<td>{_exposure_cell(exp, r.id)}</td>"
                    f"<td>{_path_html(graph, r.path)}</td><td>{_hops_evidence_html(r.path)}</td></tr>")
    return ("<table id=\"gk-reached\"><thead><tr><th>criticality</th><th>kind</th><th>asset</th><th>confidence</th>"
            "<th>lifetime</th><th>exposure</th><th>path</th><th>evidence</th></tr></thead><tbody>" + "".join(rows)
            + "</tbody></table>")


def _plan_table(graph: Graph, plan: RevocationPlan) -> str:
    rows = []
    for s in plan.steps:
        names = ", ".join(esc(graph.node(c).name) for c in s.cuts)
        cuts = f"<details><summary>{len(s.cuts)}</summary>{names}</details>" if s.cuts else \
            "0 <small>(other footholds still reach it all)</small>"
        rows.append(f"<tr><td>{s.rank}</td><td>{esc(s.phase.value)}</td>"
                    f"<td><b>{esc(s.action.value)}</b><br><small>{esc(REVOCATION_SPECS[s.action].description)}</small>"
                    f"</td><td>{esc(s.subject_name)}<br><code>{esc(s.subject_id)}</code></td>"
                    f"<td>{'yes' if s.long_lived else ''}</td><td>{cuts}</td><td>{s.reduction}</td>"
                    f"<td>{s.residual_weight}</td></tr>")
    return ("<table id=\"gk-plan\"><thead><tr><th>#</th><th>phase</th><th>action</th><th>target</th>"
            "<th>long-lived</th><th>cuts</th><th>reduction</th><th>residual</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def _choke_table(points: Sequence[ChokePoint]) -> str:
    rows = [f"<tr><td>{esc(c.name)}<br><code>{esc(c.id)}</code></td><td>{esc(c.kind.value)}</td><td>{c.dominated}</td>"
            f"<td>{c.weight}</td><td>{c.critical_weight}</td></tr>" for c in points]
    return ("<table id=\"gk-choke\"><thead><tr><th>node</th><th>kind</th><th>dominates</th><th>weight</th>"
            "<th>critical weight</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _findings_table(found: Sequence[tuple[str, Finding]]) -> str:
    reg = rules()
    rows = []
    for touches, f in found:
        r = reg.get(f.rule)
        rule_cell = f'<a href="{esc(r.help_uri)}">{esc(f.rule)}</a>' if r else esc(f.rule)
        ev = "<br>".join(esc(x) for x in evidence_lines(f.evidence, 3))
        rows.append(f"<tr><td>{_cell_crit(f.severity.value)}</td><td>{esc(f.confidence.value)}</td><td>{rule_cell}</td>"
                    f"<td>{esc(touches)}</td><td><code>{esc(f.subject)}</code></td><td>{esc(f.message)}</td>"
                    f"<td>{ev}</td><td><code>{esc(f.id)}</code></td></tr>")
    return ("<table id=\"gk-findings\"><thead><tr><th>severity</th><th>confidence</th><th>rule</th><th>touches</th>"
            "<th>subject</th><th>message</th><th>evidence</th><th>id</th></tr></thead><tbody>" + "".join(rows)
            + "</tbody></table>")


def _figure_div(fig: go.Figure, div_id: str) -> str:
    return pio.to_html(fig, full_html=False, include_plotlyjs=False, div_id=div_id, config=_CONFIG,
                       default_width=fig.layout.width or "100%", default_height=fig.layout.height or 520)


def report_html(graph: Graph, sources: str | Iterable[str], *, findings: Iterable[Finding] | None = None,
                title: str | None = None, radius: BlastRadius | None = None,
                plan: RevocationPlan | None = None, since: datetime | None = None) -> str:
    """The self-contained HTML report (see the module docstring).

    Parameters
    ----------
    graph : Graph
        The typed graph.
    sources : str or iterable of str
        Compromised node id(s), as for :func:`graphkit.analysis.blast_radius`.
    findings : iterable of Finding, optional
        Findings to filter (default: :func:`graphkit.findings.run_rules` on
        ``graph``); those whose subject or related nodes include a source or
        a reached node are listed, the source's first.
    title : str, optional
        Page title (default names the sources).
    radius, plan : optional
        Precomputed results (computed when omitted).
    since : datetime, optional
        Start of the compromise: observed runs that ended before it expose nothing
        (:mod:`graphkit.analysis.exposure`; the reached table's ``exposure`` column).

    Returns
    -------
    str
        A complete HTML document with plotly.js inline (about 5 MB) and no
        external reference.

    Raises
    ------
    UnknownNodeError
        If a source id is not in the graph.
    """
    if radius is None:
        graph = observed_since(graph, since)
        radius = blast_radius(graph, sources)
    exp = exposure(graph, radius, since)
    plan = plan if plan is not None else revocation_plan(graph, radius.sources, exposed=exp.assets)
    found_all = list(run_rules(graph) if findings is None else findings)
    touching = _touching(found_all, radius)
    points = choke_points(graph, radius.sources)[:15]
    shown = [graph.node(s).name for s in radius.sources[:_TITLE_NAMES]]
    more = len(radius.sources) - len(shown)
    names = ", ".join(shown) + (f" and {more} more source(s)" if more > 0 else "")
    findings_html = _findings_table(touching) if touching else \
        f"<p>No finding touches the source or what it reaches ({len(rules())} rule(s) registered, " \
        f"{len(found_all)} finding(s) in the graph).</p>"
    return _page(_Sections(
        title=title or f"graphkit report: blast radius of {names}",
        sources=", ".join(f"<code>{esc(s)}</code>" for s in radius.sources),
        generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        notes=_input_notes(graph), cards=_cards(radius, plan, len(touching)),
        graph=view_html(graph, radius, BLAST_RADIUS_DIV),
        curve=_figure_div(revocation_curve_figure(plan), REVOCATION_CURVE_DIV),
        plan=_plan_table(graph, plan), reached_count=len(radius), reached=_reached_table(graph, radius, exp),
        choke=_choke_table(points) if points else "<p>None.</p>", findings=findings_html))


def _touching(found: Sequence[Finding], radius: BlastRadius) -> list[tuple[str, Finding]]:
    """Findings whose subject or related nodes include a source (first), then those touching a reached node."""
    srcs = set(radius.sources)
    touching: list[tuple[str, Finding]] = []
    for f in found:
        if {f.subject, *f.related} & srcs:
            touching.append(("source", f))
    for f in found:
        ids = {f.subject, *f.related}
        if not ids & srcs and ids & radius.ids:
            touching.append(("reached", f))
    return touching


def _input_notes(graph: Graph) -> str:
    """The inputs the graph was built from, and a warning when some were skipped."""
    problems = graph.meta.problems
    warn = (f'<p class="warn">Partial input: {len(problems)} file(s) or place(s) were skipped when the graph was '
            "built; the blast radius may be larger.</p>") if problems else ""
    inputs = graph.meta.inputs
    inputs_html = f"<p class=\"meta\">inputs: <code>{esc(inputs)}</code></p>" if inputs else ""
    return inputs_html + warn


def _cards(radius: BlastRadius, plan: RevocationPlan, n_findings: int) -> str:
    crit = sum(1 for r in radius if r.criticality is Criticality.CRITICAL)
    possible = sum(1 for r in radius if r.confidence is Confidence.POSSIBLE)
    return "".join(f'<div class="card"><b>{v}</b>{esc(k)}</div>' for k, v in (
        ("reached", len(radius)), ("critical", crit), ("possible", possible), ("weighted radius", radius.weight),
        ("held by attacker", len(plan.held)), ("plan steps", len(plan.steps)),
        ("residual after plan", plan.residual_weight), ("findings", n_findings)))


@dataclass(frozen=True, slots=True)
class _Sections:
    """The parts of the page, each already HTML (escaped) except ``title`` and ``reached_count``."""

    title: str
    sources: str
    generated: str
    notes: str
    cards: str
    graph: str
    curve: str
    plan: str
    reached_count: int
    reached: str
    choke: str
    findings: str


def _page(s: _Sections) -> str:
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="graphkit {esc(__version__)}">
<title>{esc(s.title)}</title>
<style>{_CSS}</style>
<script type="text/javascript">window.PlotlyConfig = {{MathJaxConfig: 'local'}};</script>
<script type="text/javascript">{get_plotlyjs()}</script>
</head>
<body>
<h1>{esc(s.title)}</h1>
<p class="meta">sources: {s.sources} · generated {s.generated} by graphkit {esc(__version__)} · an edge A → B means an
attacker who controls A can obtain, act as, or tamper with B; <i>possible</i> (dotted, faded) depends on something
not known.</p>
{s.notes}
<div class="cards">{s.cards}</div>
<h2 id="graph">Blast radius</h2>
<p class="meta">Layers by kind, left to right; ★ = critical; nodes of one kind and owner are folded into a group
(click to expand); pick a source (or click one) to see only what it reaches; hover a node for its confidence,
lifetime and evidence, an edge for its kinds.</p>
<div class="plot">{s.graph}</div>
<h2 id="curve">Revocation curve</h2>
<p class="meta">Residual weighted blast radius after each action of the plan (contain footholds, rotate held
credentials, then restrict access that expires on its own).</p>
<div class="plot">{s.curve}</div>
<h2 id="plan">Revocation plan</h2>
{s.plan}
<h2 id="reached">Reached assets ({s.reached_count})</h2>
{s.reached}
<h2 id="choke">Choke points</h2>
<p class="meta">Nodes every path to the nodes they dominate goes through.</p>
{s.choke}
<h2 id="findings">Findings touching the source</h2>
{s.findings}
</body>
</html>
"""


def write_report(graph: Graph, sources: str | Iterable[str], path: str | Path, **kwargs: Any) -> Path:
    """Write :func:`report_html` to ``path`` (UTF-8) and return the path.

    Parameters
    ----------
    graph, sources
        As for :func:`report_html`.
    path : str or Path
        Output file.
    **kwargs
        Passed to :func:`report_html` (``findings``, ``title``...).

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    UnknownNodeError
        If a source id is not in the graph.
    GraphkitError
        If ``path`` cannot be written (written atomically: :func:`graphkit.files.write_atomic`).
    """
    out = Path(path)
    write_atomic(out, report_html(graph, sources, **kwargs))
    return out
