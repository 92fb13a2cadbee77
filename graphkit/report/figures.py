"""The report's plotly figures: the blast-radius graph and the revocation curve (SVG scatter, no WebGL).

Every input-derived string in hover text and labels is HTML-escaped (plotly
renders hover text as HTML).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import plotly.graph_objects as go

from graphkit.analysis import BlastRadius, Phase, Reached, RevocationPlan
from graphkit.graph import Graph
from graphkit.model import NODE_TYPES, Confidence, Criticality, Edge, Node, NodeKind
from graphkit.report.layout import PALETTE, GraphLayout, graph_layout, kind_colors
from graphkit.report.text import esc, evidence_lines, short

__all__ = ["blast_radius_figure", "revocation_curve_figure"]

_PHASE_COLORS = {Phase.CONTAIN: "rgba(214, 39, 40, 0.08)", Phase.ROTATE: "rgba(255, 127, 14, 0.10)",
                 Phase.RESTRICT: "rgba(31, 119, 180, 0.08)"}


class _LineStyle(NamedTuple):
    dash: str
    color: str


#: edge lines by the best confidence of the pair: certain solid, possible dotted
_EDGE_STYLE = {Confidence.CERTAIN: _LineStyle("solid", "rgba(90,90,90,0.55)"),
               Confidence.POSSIBLE: _LineStyle("dot", "rgba(90,90,90,0.45)")}


# --------------------------------------------------------------------------- blast-radius graph


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
    lay = graph_layout(graph, radius, max_edges=max_edges)
    fig = go.Figure()
    for conf in _EDGE_STYLE:
        fig.add_trace(_edge_lines(lay, conf))
    fig.add_trace(_edge_midpoints(graph, lay))
    if len(lay.edges) <= 300:
        _add_arrowheads(fig, lay)
    colors = kind_colors()
    by_kind: dict[NodeKind, list[Reached]] = {}
    for r in radius:
        by_kind.setdefault(r.kind, []).append(r)
    for kind in NodeKind:
        if kind in by_kind:
            fig.add_trace(_node_trace(kind, by_kind[kind], lay, colors[kind]))
    src_nodes = [graph.node(s) for s in radius.sources]
    fig.add_trace(_source_trace(src_nodes, lay))
    _add_layer_headers(fig, graph, lay)
    n_cols = len(lay.columns)
    fig.update_layout(
        title=title or f"Blast radius of {', '.join(n.name for n in src_nodes)}: {len(radius)} reached, "
                       f"weighted {radius.weight}",
        # the legend goes under the plot: on its right it covered the last layers' headers
        showlegend=True, legend={"title": {"text": "node kind"}, "itemsizing": "constant", "orientation": "h",
                                 "yanchor": "top", "y": -0.02, "xanchor": "left", "x": 0},
        hovermode="closest", hoverlabel={"align": "left"},
        xaxis={"visible": False, "range": [-0.2, n_cols - 1 + 0.9]},  # room for the last labels
        yaxis={"visible": False, "range": [-(lay.height - 1) / 2 - 0.8, lay.top + 0.6]},
        width=max(900, 230 * n_cols + 200), height=max(480, 34 * lay.height + 220),
        margin={"l": 20, "r": 20, "t": 60, "b": 80}, plot_bgcolor="white", paper_bgcolor="white",
    )
    return fig


def _edge_lines(lay: GraphLayout, conf: Confidence) -> go.Scatter:
    """One line trace for the drawn pairs whose best edge has confidence ``conf``."""
    style = _EDGE_STYLE[conf]
    xs: list[float | None] = []
    ys: list[float | None] = []
    col, y = lay.col, lay.y
    for (u, v), es in lay.edges.items():
        best = Confidence.CERTAIN if any(e.confidence is Confidence.CERTAIN for e in es) else Confidence.POSSIBLE
        if best is conf:
            xs += [col[u], col[v], None]
            ys += [y[u], y[v], None]
    return go.Scatter(x=xs, y=ys, mode="lines", name=f"{conf.value} edge",
                      line={"color": style.color, "width": 1.2, "dash": style.dash}, hoverinfo="skip",
                      legendgroup="edges", showlegend=bool(xs))


def _edge_hover(graph: Graph, u: str, v: str, edges: Sequence[Edge]) -> str:
    parts = []
    for e in edges[:3]:
        parts.append(f"<b>{esc(e.kind.value)}</b> ({esc(e.confidence.value)}, {esc(e.lifetime.value)})"
                     + (f"<br>revoked by: {esc(e.revoked_by.value)}" if e.revoked_by else "")
                     + "".join(f"<br>{esc(line)}" for line in evidence_lines(e.evidence, 2)))
    return (f"{esc(short(graph.node(u).name, 40))} → {esc(short(graph.node(v).name, 40))}<br>"
            + "<br>".join(parts))


def _edge_midpoints(graph: Graph, lay: GraphLayout) -> go.Scatter:
    """A hover-only trace: one point on each drawn pair carries the edges' kinds, lifetimes and evidence."""
    col, y = lay.col, lay.y
    mx = [col[u] + (col[v] - col[u]) * 0.55 for (u, v) in lay.edges]
    my = [y[u] + (y[v] - y[u]) * 0.55 for (u, v) in lay.edges]
    mtext = [_edge_hover(graph, u, v, es) for (u, v), es in lay.edges.items()]
    return go.Scatter(x=mx, y=my, mode="markers", name="edge details", hovertext=mtext, hoverinfo="text",
                      marker={"size": 6, "color": "rgba(90,90,90,0.35)", "symbol": "circle"}, showlegend=False)


def _add_arrowheads(fig: go.Figure, lay: GraphLayout) -> None:
    col, y = lay.col, lay.y
    for (u, v) in lay.edges:
        x0, y0, x1, y1 = col[u], y[u], col[v], y[v]
        fig.add_annotation(x=x1, y=y1, ax=x0 + (x1 - x0) * 0.75, ay=y0 + (y1 - y0) * 0.75, xref="x", yref="y",
                           axref="x", ayref="y", showarrow=True, arrowhead=2, arrowsize=1, arrowwidth=1,
                           arrowcolor="rgba(90,90,90,0.7)", standoff=8, text="")


def _node_hover(r: Reached) -> str:
    spec = NODE_TYPES[r.kind].spec
    last = r.path[-1] if r.path else None
    ev = evidence_lines(last.evidence) if last else []
    return (f"<b>{esc(r.name)}</b><br>{esc(r.id)}<br>kind: {esc(r.kind.value)} · criticality: "
            f"<b>{esc(r.criticality.value)}</b><br>confidence: {esc(r.confidence.value)} · lifetime: "
            f"{esc(r.lifetime.value)}<br>path: {len(r.path)} hop(s), last {esc(last.kind.value) if last else ''}"
            + (f"<br>revoked by: {esc(spec.revoked_by.value)}" if spec.revoked_by else "")
            + "".join(f"<br>evidence: {esc(x)}" for x in ev))


class _Marker(NamedTuple):
    label_prefix: str
    symbol: str
    size: int
    outline: float


#: node markers by criticality: critical nodes as larger stars with a red outline
_MARKER = {True: _Marker("★ ", "star", 20, 2.5), False: _Marker("", "circle", 12, 0.8)}
#: possible nodes are faded
_OPACITY = {Confidence.CERTAIN: 1.0, Confidence.POSSIBLE: 0.5}


def _node_trace(kind: NodeKind, items: list[Reached], lay: GraphLayout, color: str) -> go.Scatter:
    """The reached nodes of one kind, with their hover text."""
    marks = [_MARKER[r.criticality is Criticality.CRITICAL] for r in items]
    return go.Scatter(
        x=[lay.col[r.id] for r in items], y=[lay.y[r.id] for r in items], mode="markers+text", name=kind.value,
        text=[m.label_prefix + esc(short(r.name)) for r, m in zip(items, marks)], textposition="middle right",
        textfont={"size": 10}, hovertext=[_node_hover(r) for r in items], hoverinfo="text",
        marker={"color": color, "symbol": [m.symbol for m in marks], "size": [m.size for m in marks],
                "opacity": [_OPACITY[r.confidence] for r in items],
                "line": {"width": [m.outline for m in marks], "color": "#b30000"}})


def _source_trace(src_nodes: list[Node], lay: GraphLayout) -> go.Scatter:
    return go.Scatter(
        x=[lay.col[n.id] for n in src_nodes], y=[lay.y[n.id] for n in src_nodes], mode="markers+text",
        name="source", text=[esc(short(n.name)) for n in src_nodes], textposition="middle right",
        textfont={"size": 11},
        hovertext=[f"<b>source: {esc(n.name)}</b><br>{esc(n.id)}<br>kind: {esc(n.spec.kind.value)}"
                   for n in src_nodes], hoverinfo="text",
        marker={"symbol": "diamond", "size": 18, "color": "#111", "line": {"width": 2, "color": "#fff"}})


def _add_layer_headers(fig: go.Figure, graph: Graph, lay: GraphLayout) -> None:
    """A header per column naming its kinds ("source" for the first)."""
    kind_rank = {k: i for i, k in enumerate(NodeKind)}
    for c in sorted(lay.columns):
        kinds = sorted({graph.node(n).spec.kind for n in lay.columns[c]}, key=lambda k: kind_rank[k])
        label = "source" if c == 0 else " · ".join(k.value for k in kinds)
        fig.add_annotation(x=c, y=lay.top, text=f"<b>{esc(label)}</b>", showarrow=False, xanchor="left",
                           font={"size": 11, "color": "#444"})


# --------------------------------------------------------------------------- revocation curve

#: Above this many steps the tick labels are one upright line each, and the curve is at most _CURVE_MAX_WIDTH wide.
_CURVE_LONG = 20
_CURVE_MAX_WIDTH = 1560


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
        fig.add_trace(_curve_trace(name, plan, PALETTE[i]))
    if first is not None and first.steps:
        _add_phase_bands(fig, first)
        many = len(first.steps) > _CURVE_LONG  # one short line a tick, upright: the curve stays one screen wide
        ticks = ["start"] + [f"{s.rank}. {s.action.value}" + (f" {esc(short(s.subject_name, 18))}" if many else
                                                               f"<br>{esc(short(s.subject_name, 24))}")
                             for s in first.steps]
        fig.update_xaxes(tickmode="array", tickvals=list(range(len(ticks))), ticktext=ticks,
                         tickangle=-90 if many else -50, tickfont={"size": 9 if many else 11})
    fig.update_layout(title=title, xaxis_title="plan step", yaxis_title="weighted residual blast radius",
                      yaxis={"rangemode": "tozero"}, hovermode="closest", plot_bgcolor="white",
                      width=min(_CURVE_MAX_WIDTH, max(900, 70 * (len(first.steps) if first else 0) + 300)),
                      height=620 if first and len(first.steps) > _CURVE_LONG else 560,
                      margin={"l": 70, "r": 30, "t": 60, "b": 250 if first and len(first.steps) > _CURVE_LONG else 190},
                      showlegend=len(named) > 1)
    fig.update_xaxes(showgrid=True, gridcolor="#eee")
    fig.update_yaxes(showgrid=True, gridcolor="#eee")
    return fig


def _curve_trace(name: str, plan: RevocationPlan, color: str) -> go.Scatter:
    """A step line: the initial weight, then the residual after each step, with the steps as hover text."""
    hover = [f"<b>start</b><br>weighted blast radius {plan.initial_weight}<br>held: {len(plan.held)}"]
    for s in plan.steps:
        cuts = ", ".join(esc(short(c, 50)) for c in s.cuts[:8]) + (" …" if len(s.cuts) > 8 else "")
        hover.append(f"<b>{s.rank}. {esc(s.action.value)}</b> [{esc(s.phase.value)}]<br>{esc(s.subject_id)}<br>"
                     f"reduction {s.reduction} → residual {s.residual_weight}<br>"
                     f"cuts {len(s.cuts)}: {cuts or 'nothing by itself'}")
    return go.Scatter(
        x=list(range(len(plan.steps) + 1)), y=[plan.initial_weight] + [s.residual_weight for s in plan.steps],
        mode="lines+markers", name=name, line={"shape": "hv", "width": 2.5},
        marker={"size": 8, "color": color}, hovertext=hover, hoverinfo="text",
    )


def _add_phase_bands(fig: go.Figure, plan: RevocationPlan) -> None:
    """A coloured band over the steps of each phase present in ``plan``."""
    for phase in Phase:
        ranks = [s.rank for s in plan.steps if s.phase == phase]
        if not ranks:
            continue
        fig.add_vrect(x0=min(ranks) - 0.5, x1=max(ranks) + 0.5, fillcolor=_PHASE_COLORS[phase], line_width=0,
                      layer="below", annotation_text=phase.value, annotation_position="top left")
