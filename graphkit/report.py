"""One file for the incident channel: a self-contained HTML report of a blast radius.

:func:`write_report` (CLI: ``graphkit report --graph G --from ID -o report.html``)
writes a single HTML file that works offline: plotly.js is embedded inline
(``plotly.offline.get_plotlyjs()``), nothing is loaded from a network, every
input-derived string is HTML-escaped.  It holds:

- the **blast-radius graph** (:func:`blast_radius_figure`): the sources on the
  left, reached nodes laid out in layers by kind, coloured by kind, critical
  nodes drawn as stars, possible ones faded, possible edges dashed; hovering a
  node shows its criticality, confidence, lifetime and the evidence of the
  hop that reaches it, hovering an edge's midpoint shows the edge's own;
- the **revocation curve** (:func:`revocation_curve_figure`): the weighted
  residual blast radius after each step of the plan, labelled with the
  actions, on bands for the plan's phases;
- tables of the reached assets with their paths and evidence, the plan, the
  choke points, and the findings that touch the source or what it reaches.

Layers are derived from the model, never listed by hand
(:func:`kind_layers`): the kind-level graph of traversable edge declarations
(:data:`graphkit.model.EDGE_SPECS`) is condensed into strongly connected
components and ranked by longest path, which gives runner/host -> jobs, caches
and on-disk credentials -> secrets, tokens and OIDC identities -> cloud roles
and repositories -> signing keys and deployment targets.  Kinds added later
fall into place by their declared edges.
"""

from __future__ import annotations

import html
import statistics
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import networkx as nx
import plotly.graph_objects as go
import plotly.io as pio
from plotly.colors import qualitative
from plotly.offline import get_plotlyjs

from graphkit import __version__
from graphkit.analysis import (
    PLAN_PHASES, BlastRadius, ChokePoint, Hop, RevocationPlan, blast_radius, choke_points, revocation_plan,
)
from graphkit.findings import Finding, rules, run_rules
from graphkit.graph import Graph
from graphkit.model import (
    EDGE_SPECS, NODE_TYPES, REVOCATION_SPECS, Confidence, Criticality, Edge, Evidence, NodeKind,
)

__all__ = [
    "kind_layers",
    "kind_colors",
    "blast_radius_figure",
    "revocation_curve_figure",
    "report_html",
    "write_report",
    "BLAST_RADIUS_DIV",
    "REVOCATION_CURVE_DIV",
]

#: DOM ids of the two plots in the report (the browser test looks for them).
BLAST_RADIUS_DIV = "gk-blast-radius"
REVOCATION_CURVE_DIV = "gk-revocation-curve"

#: D3 category10, then the dark tones of category20b, then Dark24 (distinct enough side by side).
_PALETTE = qualitative.D3 + ["#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#5254a3", "#8ca252",
                             "#bd9e39", "#ad494a", "#a55194"] + qualitative.Dark24
_PHASE_COLORS = {"contain": "rgba(214, 39, 40, 0.08)", "rotate": "rgba(255, 127, 14, 0.10)",
                 "restrict": "rgba(31, 119, 180, 0.08)"}
_CONFIG = {"displaylogo": False, "responsive": True, "toImageButtonOptions": {"format": "png"}}


def _e(text: object) -> str:
    """HTML-escape input-derived text (also used inside plotly hover text, which renders HTML)."""
    return html.escape(str(text), quote=True)


def _short(text: str, n: int = 28) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


# --------------------------------------------------------------------------- model-derived layout


def kind_layers() -> dict[NodeKind, int]:
    """Layer (column) of every node kind, derived from the traversable edge declarations.

    Returns
    -------
    dict of NodeKind to int
        0 for kinds nothing traversable enters from another component
        (runner, host), increasing along declared traversable edges; kinds in
        one cycle of declarations (runner <-> host, job <-> cache) share a
        layer.

    Examples
    --------
    >>> layers = kind_layers()
    >>> layers[NodeKind.RUNNER] == layers[NodeKind.HOST] < layers[NodeKind.JOB] < layers[NodeKind.SECRET]
    True
    >>> layers[NodeKind.OIDC_IDENTITY] < layers[NodeKind.CLOUD_ROLE] < layers[NodeKind.SIGNING_KEY]
    True
    """
    kg = nx.DiGraph()
    kg.add_nodes_from(NodeKind)
    for spec in EDGE_SPECS.values():
        if spec.traversable:
            kg.add_edges_from((s, t) for s in spec.sources for t in spec.targets if s != t)
    cond = nx.condensation(kg)
    rank: dict[int, int] = {}
    for c in nx.topological_sort(cond):
        preds = list(cond.predecessors(c))
        rank[c] = max((rank[p] + 1 for p in preds), default=0)
    members = cond.graph["mapping"]
    return {k: rank[members[k]] for k in NodeKind}


def kind_colors() -> dict[NodeKind, str]:
    """A stable colour per node kind.

    Returns
    -------
    dict of NodeKind to str
        Kinds that traversable edges touch (those a blast radius can show)
        get the first colours, in declaration order; structural-only kinds
        follow.  Kinds added to the model get a colour without a change here.
    """
    touched = {k for spec in EDGE_SPECS.values() if spec.traversable for k in (*spec.sources, *spec.targets)}
    order = [k for k in NodeKind if k in touched] + [k for k in NodeKind if k not in touched]
    return {k: _PALETTE[i % len(_PALETTE)] for i, k in enumerate(order)}


def _evidence_lines(evidence: Iterable[Evidence], limit: int = 3) -> list[str]:
    ev = list(evidence)
    lines = [str(e) + (f" — {e.detail}" if e.detail else "") for e in ev[:limit]]
    if len(ev) > limit:
        lines.append(f"(+{len(ev) - limit} more)")
    return lines


def _folded_edges(graph: Graph, ids: set[str]) -> dict[tuple[str, str], list[Edge]]:
    out: dict[tuple[str, str], list[Edge]] = {}
    for u in sorted(ids):
        for _, v, data in graph.nx.out_edges(u, data=True):
            if v in ids and u != v and data["traversable"]:
                out.setdefault((u, v), []).append(data["edge"])
    return out


def blast_radius_figure(graph: Graph, radius: BlastRadius, *, max_edges: int = 600,
                        title: str | None = None) -> go.Figure:
    """The blast-radius graph as a plotly figure (SVG scatter, no WebGL).

    Parameters
    ----------
    graph : Graph
        The typed graph the radius was computed on.
    radius : BlastRadius
        From :func:`graphkit.analysis.blast_radius`.
    max_edges : int, default 600
        Above this many traversable edges among the reached nodes, only the
        edges of the explanation paths are drawn.
    title : str, optional
        Figure title (default: names the sources and the weight).

    Returns
    -------
    plotly.graph_objects.Figure
        One marker trace per node kind present (legend = kinds), one for the
        sources, line traces for certain and possible edges, a hover-only
        trace of edge midpoints, arrowheads as annotations and a header per
        layer.

    Examples
    --------
    >>> from graphkit.analysis import blast_radius
    >>> from graphkit.model import Edge, EdgeKind, Evidence, Job, Runner
    >>> g = Graph()
    >>> g.update(nodes=[Runner(id="runner:r1", name="r1", scope="acme"),
    ...                 Job(id="job:b", name="b", repository="acme/app", workflow_path="ci.yml", job_key="b",
    ...                     secrets_repository="acme/app")],
    ...          edges=[Edge(kind=EdgeKind.RECEIVES_JOB, source="runner:r1", target="job:b",
    ...                      evidence=[Evidence(file="ci.yml", line=3)])])
    >>> fig = blast_radius_figure(g, blast_radius(g, "runner:r1"))
    >>> sorted(t.name for t in fig.data if t.mode == "markers+text")
    ['job', 'source']
    """
    layers = kind_layers()
    colors = kind_colors()
    sources = list(radius.sources)
    ids = set(sources) | set(radius.ids)
    col: dict[str, int] = {s: 0 for s in sources}
    for r in radius:
        col[r.id] = 1 + layers[r.kind]
    used = sorted(set(col.values()))
    compact = {c: i for i, c in enumerate(used)}
    col = {k: compact[c] for k, c in col.items()}

    edges = _folded_edges(graph, ids)
    if len(edges) > max_edges:
        on_paths = {(h.source, h.target) for r in radius for h in r.path}
        edges = {k: v for k, v in edges.items() if k in on_paths}

    # y: per column, grouped by kind (declaration order), then by barycentre of predecessors, then id
    kind_rank = {k: i for i, k in enumerate(NodeKind)}
    crit_rank = {c: i for i, c in enumerate(Criticality)}
    preds: dict[str, list[str]] = {}
    for (u, v) in edges:
        preds.setdefault(v, []).append(u)
    y: dict[str, float] = {}
    columns: dict[int, list[str]] = {}
    for nid, c in col.items():
        columns.setdefault(c, []).append(nid)
    height = max(len(v) for v in columns.values())
    for c in sorted(columns):
        def key(nid: str) -> tuple:
            node = graph.node(nid)
            bary = statistics.fmean([y[p] for p in preds.get(nid, []) if p in y] or [0.0])
            return (kind_rank[node.spec.kind], -bary, crit_rank[node.criticality], nid)
        members = sorted(columns[c], key=key)
        n = len(members)
        for i, nid in enumerate(members):
            y[nid] = (n - 1) / 2 - i

    fig = go.Figure()
    # edges: lines (certain solid, possible dashed)
    for conf, dash, color in ((Confidence.CERTAIN, "solid", "rgba(90,90,90,0.55)"),
                              (Confidence.POSSIBLE, "dot", "rgba(90,90,90,0.45)")):
        xs: list[float | None] = []
        ys: list[float | None] = []
        for (u, v), es in edges.items():
            best = Confidence.CERTAIN if any(e.confidence is Confidence.CERTAIN for e in es) else Confidence.POSSIBLE
            if best is conf:
                xs += [col[u], col[v], None]
                ys += [y[u], y[v], None]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=f"{conf.value} edge",
                                 line={"color": color, "width": 1.2, "dash": dash}, hoverinfo="skip",
                                 legendgroup="edges", showlegend=bool(xs)))
    # edge midpoints carry the edge hover
    mx, my, mtext = [], [], []
    for (u, v), es in edges.items():
        mx.append(col[u] + (col[v] - col[u]) * 0.55)
        my.append(y[u] + (y[v] - y[u]) * 0.55)
        parts = []
        for e in es[:3]:
            parts.append(f"<b>{_e(e.kind.value)}</b> ({_e(e.confidence.value)}, {_e(e.lifetime.value)})"
                         + (f"<br>revoked by: {_e(e.revoked_by.value)}" if e.revoked_by else "")
                         + "".join(f"<br>{_e(line)}" for line in _evidence_lines(e.evidence, 2)))
        mtext.append(f"{_e(_short(graph.node(u).name, 40))} → {_e(_short(graph.node(v).name, 40))}<br>"
                     + "<br>".join(parts))
    fig.add_trace(go.Scatter(x=mx, y=my, mode="markers", name="edge details", hovertext=mtext, hoverinfo="text",
                             marker={"size": 6, "color": "rgba(90,90,90,0.35)", "symbol": "circle"},
                             showlegend=False))
    # arrowheads
    if len(edges) <= 300:
        for (u, v) in edges:
            x0, y0, x1, y1 = col[u], y[u], col[v], y[v]
            fig.add_annotation(x=x1, y=y1, ax=x0 + (x1 - x0) * 0.75, ay=y0 + (y1 - y0) * 0.75, xref="x", yref="y",
                               axref="x", ayref="y", showarrow=True, arrowhead=2, arrowsize=1, arrowwidth=1,
                               arrowcolor="rgba(90,90,90,0.7)", standoff=8, text="")

    # nodes, one trace per kind
    by_kind: dict[NodeKind, list] = {}
    for r in radius:
        by_kind.setdefault(r.kind, []).append(r)
    for kind in NodeKind:
        items = by_kind.get(kind)
        if not items:
            continue
        spec = NODE_TYPES[kind].spec
        texts, hovers, symbols, sizes, opac, lines = [], [], [], [], [], []
        for r in items:
            crit = r.criticality is Criticality.CRITICAL
            last: Hop | None = r.path[-1] if r.path else None
            ev = _evidence_lines(last.evidence) if last else []
            hovers.append(
                f"<b>{_e(r.name)}</b><br>{_e(r.id)}<br>kind: {_e(kind.value)} · criticality: "
                f"<b>{_e(r.criticality.value)}</b><br>confidence: {_e(r.confidence.value)} · lifetime: "
                f"{_e(r.lifetime.value)}<br>path: {len(r.path)} hop(s), last {_e(last.kind.value) if last else ''}"
                + (f"<br>revoked by: {_e(spec.revoked_by.value)}" if spec.revoked_by else "")
                + "".join(f"<br>evidence: {_e(x)}" for x in ev))
            texts.append(("★ " if crit else "") + _e(_short(r.name)))
            symbols.append("star" if crit else "circle")
            sizes.append(20 if crit else 12)
            opac.append(1.0 if r.confidence is Confidence.CERTAIN else 0.5)
            lines.append(2.5 if crit else 0.8)
        fig.add_trace(go.Scatter(
            x=[col[r.id] for r in items], y=[y[r.id] for r in items], mode="markers+text", name=kind.value,
            text=texts, textposition="middle right", textfont={"size": 10}, hovertext=hovers, hoverinfo="text",
            marker={"color": colors[kind], "symbol": symbols, "size": sizes, "opacity": opac,
                    "line": {"width": lines, "color": "#b30000"}}))
    src_nodes = [graph.node(s) for s in sources]
    fig.add_trace(go.Scatter(
        x=[col[s] for s in sources], y=[y[s] for s in sources], mode="markers+text", name="source",
        text=[_e(_short(n.name)) for n in src_nodes], textposition="middle right", textfont={"size": 11},
        hovertext=[f"<b>source: {_e(n.name)}</b><br>{_e(n.id)}<br>kind: {_e(n.spec.kind.value)}"
                   for n in src_nodes], hoverinfo="text",
        marker={"symbol": "diamond", "size": 18, "color": "#111", "line": {"width": 2, "color": "#fff"}}))

    # layer headers
    top = (height - 1) / 2 + 0.9
    for c in sorted(columns):
        kinds = sorted({graph.node(n).spec.kind for n in columns[c]}, key=lambda k: kind_rank[k])
        label = "source" if c == 0 else " · ".join(k.value for k in kinds)
        fig.add_annotation(x=c, y=top, text=f"<b>{_e(label)}</b>", showarrow=False, xanchor="left",
                           font={"size": 11, "color": "#444"})
    n_cols = len(columns)
    fig.update_layout(
        title=title or f"Blast radius of {', '.join(n.name for n in src_nodes)}: {len(radius)} reached, "
                       f"weighted {radius.weight}",
        showlegend=True, legend={"title": {"text": "node kind"}, "itemsizing": "constant"},
        hovermode="closest", hoverlabel={"align": "left"},
        xaxis={"visible": False, "range": [-0.2, n_cols - 1 + 0.9]},  # room for the last labels
        yaxis={"visible": False, "range": [-(height - 1) / 2 - 0.8, top + 0.6]},
        width=max(900, 230 * n_cols + 200), height=max(480, 34 * height + 160),
        margin={"l": 20, "r": 20, "t": 60, "b": 20}, plot_bgcolor="white", paper_bgcolor="white",
    )
    return fig


def revocation_curve_figure(plans: RevocationPlan | Mapping[str, RevocationPlan], *,
                            title: str = "Revocation curve: weighted residual blast radius after each step") \
        -> go.Figure:
    """The revocation curve(s) as a plotly figure.

    Parameters
    ----------
    plans : RevocationPlan or mapping of str to RevocationPlan
        One plan, or several named plans (e.g. ``{"before": p1, "after": p2}``
        from a what-if comparison) drawn on the same axes.
    title : str
        Figure title.

    Returns
    -------
    plotly.graph_objects.Figure
        One step line per plan: x = step (0 = before any action), y =
        residual weight; x tick labels name the actions of the first plan,
        hover shows action, subject, phase, reduction and what the step cuts;
        coloured bands mark the phases of the first plan.

    Examples
    --------
    >>> from graphkit.analysis import RevocationPlan
    >>> fig = revocation_curve_figure(RevocationPlan(sources=("runner:r1",), initial_weight=0, held=(), steps=()))
    >>> list(fig.data[0].y)
    [0]
    """
    named = {"plan": plans} if isinstance(plans, RevocationPlan) else dict(plans)
    fig = go.Figure()
    first = next(iter(named.values()), None)
    for i, (name, plan) in enumerate(named.items()):
        xs = list(range(len(plan.steps) + 1))
        ys = [plan.initial_weight] + [s.residual_weight for s in plan.steps]
        hover = [f"<b>start</b><br>weighted blast radius {plan.initial_weight}<br>held: {len(plan.held)}"]
        for s in plan.steps:
            cuts = ", ".join(_e(_short(c, 50)) for c in s.cuts[:8]) + (" …" if len(s.cuts) > 8 else "")
            hover.append(f"<b>{s.rank}. {_e(s.action.value)}</b> [{_e(s.phase)}]<br>{_e(s.subject_id)}<br>"
                         f"reduction {s.reduction} → residual {s.residual_weight}<br>"
                         f"cuts {len(s.cuts)}: {cuts or 'nothing by itself'}")
        fig.add_trace(go.Scatter(
            x=xs, y=ys, mode="lines+markers", name=name, line={"shape": "hv", "width": 2.5},
            marker={"size": 8, "color": _PALETTE[i]}, hovertext=hover, hoverinfo="text",
        ))
    if first is not None and first.steps:
        for phase in PLAN_PHASES:
            ranks = [s.rank for s in first.steps if s.phase == phase]
            if not ranks:
                continue
            x0, x1 = min(ranks) - 0.5, max(ranks) + 0.5
            fig.add_vrect(x0=x0, x1=x1, fillcolor=_PHASE_COLORS.get(phase, "rgba(0,0,0,0.05)"), line_width=0,
                          layer="below", annotation_text=phase, annotation_position="top left")
        ticks = ["start"] + [f"{s.rank}. {s.action.value}<br>{_e(_short(s.subject_name, 24))}"
                             for s in first.steps]
        fig.update_xaxes(tickmode="array", tickvals=list(range(len(ticks))), ticktext=ticks, tickangle=-50)
    fig.update_layout(title=title, xaxis_title="plan step", yaxis_title="weighted residual blast radius",
                      yaxis={"rangemode": "tozero"}, hovermode="closest", plot_bgcolor="white",
                      width=max(900, 70 * (len(first.steps) if first else 0) + 300), height=560,
                      margin={"l": 70, "r": 30, "t": 60, "b": 190}, showlegend=len(named) > 1)
    fig.update_xaxes(showgrid=True, gridcolor="#eee")
    fig.update_yaxes(showgrid=True, gridcolor="#eee")
    return fig


# --------------------------------------------------------------------------- HTML


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
"""


def _cell_crit(value: str) -> str:
    return f'<span class="{_e(value)}">{_e(value)}</span>'


def _path_html(graph: Graph, path: Sequence[Hop]) -> str:
    if not path:
        return ""
    parts = [_e(graph.node(path[0].source).name)]
    for h in path:
        mark = "" if h.confidence is Confidence.CERTAIN else "?"
        parts.append(f" <small>─{_e(h.kind.value)}{mark}→</small> {_e(graph.node(h.target).name)}")
    return "".join(parts)


def _hops_evidence_html(path: Sequence[Hop]) -> str:
    items = []
    for h in path:
        ev = "; ".join(_e(x) for x in _evidence_lines(h.evidence, 2))
        items.append(f"<li><code>{_e(h.kind.value)}</code> ({_e(h.confidence.value)}, {_e(h.lifetime.value)}): "
                     f"{ev}</li>")
    last = "; ".join(_e(x) for x in _evidence_lines(path[-1].evidence, 1)) if path else ""
    return f"<details><summary>{last}</summary><ol>{''.join(items)}</ol></details>"


def _reached_table(graph: Graph, radius: BlastRadius) -> str:
    rows = []
    for r in radius:
        conf = f'<span class="possible">{_e(r.confidence.value)}</span>' \
            if r.confidence is Confidence.POSSIBLE else _e(r.confidence.value)
        rows.append(f"<tr><td>{_cell_crit(r.criticality.value)}</td><td>{_e(r.kind.value)}</td>"
                    f"<td>{_e(r.name)}<br><code>{_e(r.id)}</code></td><td>{conf}</td><td>{_e(r.lifetime.value)}</td>"
                    f"<td>{_path_html(graph, r.path)}</td><td>{_hops_evidence_html(r.path)}</td></tr>")
    return ("<table id=\"gk-reached\"><thead><tr><th>criticality</th><th>kind</th><th>asset</th><th>confidence</th>"
            "<th>lifetime</th><th>path</th><th>evidence</th></tr></thead><tbody>" + "".join(rows)
            + "</tbody></table>")


def _plan_table(graph: Graph, plan: RevocationPlan) -> str:
    rows = []
    for s in plan.steps:
        names = ", ".join(_e(graph.node(c).name) for c in s.cuts)
        cuts = f"<details><summary>{len(s.cuts)}</summary>{names}</details>" if s.cuts else \
            "0 <small>(other footholds still reach it all)</small>"
        rows.append(f"<tr><td>{s.rank}</td><td>{_e(s.phase)}</td>"
                    f"<td><b>{_e(s.action.value)}</b><br><small>{_e(REVOCATION_SPECS[s.action].description)}</small>"
                    f"</td><td>{_e(s.subject_name)}<br><code>{_e(s.subject_id)}</code></td>"
                    f"<td>{'yes' if s.long_lived else ''}</td><td>{cuts}</td><td>{s.reduction}</td>"
                    f"<td>{s.residual_weight}</td></tr>")
    return ("<table id=\"gk-plan\"><thead><tr><th>#</th><th>phase</th><th>action</th><th>target</th>"
            "<th>long-lived</th><th>cuts</th><th>reduction</th><th>residual</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def _choke_table(points: Sequence[ChokePoint]) -> str:
    rows = [f"<tr><td>{_e(c.name)}<br><code>{_e(c.id)}</code></td><td>{_e(c.kind.value)}</td><td>{c.dominated}</td>"
            f"<td>{c.weight}</td><td>{c.critical_weight}</td></tr>" for c in points]
    return ("<table id=\"gk-choke\"><thead><tr><th>node</th><th>kind</th><th>dominates</th><th>weight</th>"
            "<th>critical weight</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _findings_table(found: Sequence[tuple[str, Finding]]) -> str:
    reg = rules()
    rows = []
    for touches, f in found:
        r = reg.get(f.rule)
        rule_cell = f'<a href="{_e(r.help_uri)}">{_e(f.rule)}</a>' if r else _e(f.rule)
        ev = "<br>".join(_e(x) for x in _evidence_lines(f.evidence, 3))
        rows.append(f"<tr><td>{_cell_crit(f.severity.value)}</td><td>{_e(f.confidence.value)}</td><td>{rule_cell}</td>"
                    f"<td>{_e(touches)}</td><td><code>{_e(f.subject)}</code></td><td>{_e(f.message)}</td>"
                    f"<td>{ev}</td><td><code>{_e(f.id)}</code></td></tr>")
    return ("<table id=\"gk-findings\"><thead><tr><th>severity</th><th>confidence</th><th>rule</th><th>touches</th>"
            "<th>subject</th><th>message</th><th>evidence</th><th>id</th></tr></thead><tbody>" + "".join(rows)
            + "</tbody></table>")


def _figure_div(fig: go.Figure, div_id: str) -> str:
    return pio.to_html(fig, full_html=False, include_plotlyjs=False, div_id=div_id, config=_CONFIG,
                       default_width=fig.layout.width or "100%", default_height=fig.layout.height or 520)


def report_html(graph: Graph, sources: str | Iterable[str], *, findings: Iterable[Finding] | None = None,
                title: str | None = None, radius: BlastRadius | None = None,
                plan: RevocationPlan | None = None) -> str:
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
    radius = radius if radius is not None else blast_radius(graph, sources)
    plan = plan if plan is not None else revocation_plan(graph, radius.sources)
    found_all = list(run_rules(graph) if findings is None else findings)
    srcs = set(radius.sources)
    touching: list[tuple[str, Finding]] = []
    for f in found_all:
        ids = {f.subject, *f.related}
        if ids & srcs:
            touching.append(("source", f))
    for f in found_all:
        ids = {f.subject, *f.related}
        if not ids & srcs and ids & radius.ids:
            touching.append(("reached", f))
    points = choke_points(graph, radius.sources)[:15]
    names = ", ".join(graph.node(s).name for s in radius.sources)
    title = title or f"graphkit report: blast radius of {names}"
    crit = sum(1 for r in radius if r.criticality is Criticality.CRITICAL)
    possible = sum(1 for r in radius if r.confidence is Confidence.POSSIBLE)
    problems = graph.meta.problems
    warn = (f'<p class="warn">Partial input: {len(problems)} file(s) or place(s) were skipped when the graph was '
            "built; the blast radius may be larger.</p>") if problems else ""
    inputs = graph.meta.inputs
    inputs_html = f"<p class=\"meta\">inputs: <code>{_e(inputs)}</code></p>" if inputs else ""
    cards = "".join(f'<div class="card"><b>{v}</b>{_e(k)}</div>' for k, v in (
        ("reached", len(radius)), ("critical", crit), ("possible", possible), ("weighted radius", radius.weight),
        ("held by attacker", len(plan.held)), ("plan steps", len(plan.steps)),
        ("residual after plan", plan.residual_weight), ("findings", len(touching))))
    sources_html = ", ".join(f"<code>{_e(s)}</code>" for s in radius.sources)
    findings_html = _findings_table(touching) if touching else \
        f"<p>No finding touches the source or what it reaches ({len(rules())} rule(s) registered, " \
        f"{len(found_all)} finding(s) in the graph).</p>"
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="graphkit {_e(__version__)}">
<title>{_e(title)}</title>
<style>{_CSS}</style>
<script type="text/javascript">window.PlotlyConfig = {{MathJaxConfig: 'local'}};</script>
<script type="text/javascript">{get_plotlyjs()}</script>
</head>
<body>
<h1>{_e(title)}</h1>
<p class="meta">sources: {sources_html} · generated {now} by graphkit {_e(__version__)} · an edge A → B means an
attacker who controls A can obtain, act as, or tamper with B; <i>possible</i> (dotted, faded) depends on something
not known.</p>
{inputs_html}{warn}
<div class="cards">{cards}</div>
<h2 id="graph">Blast radius</h2>
<p class="meta">Layers by kind, left to right; ★ = critical; hover a node for its confidence, lifetime and
evidence, an edge's midpoint for the edge's.</p>
<div class="plot">{_figure_div(blast_radius_figure(graph, radius), BLAST_RADIUS_DIV)}</div>
<h2 id="curve">Revocation curve</h2>
<p class="meta">Residual weighted blast radius after each action of the plan (contain footholds, rotate held
credentials, then restrict access that expires on its own).</p>
<div class="plot">{_figure_div(revocation_curve_figure(plan), REVOCATION_CURVE_DIV)}</div>
<h2 id="plan">Revocation plan</h2>
{_plan_table(graph, plan)}
<h2 id="reached">Reached assets ({len(radius)})</h2>
{_reached_table(graph, radius)}
<h2 id="choke">Choke points</h2>
<p class="meta">Nodes every path to the nodes they dominate goes through.</p>
{_choke_table(points) if points else "<p>None.</p>"}
<h2 id="findings">Findings touching the source</h2>
{findings_html}
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
    """
    out = Path(path)
    out.write_text(report_html(graph, sources, **kwargs), encoding="utf-8")
    return out
