"""One file for the incident channel: a self-contained HTML report of a blast radius.

:func:`write_report` (CLI: ``graphkit report --graph G --from ID -o report.html``)
writes a single HTML file that works offline: plotly.js is embedded inline
(``plotly.offline.get_plotlyjs()``), nothing is loaded from a network, every
input-derived string is HTML-escaped.  It holds:

- the **blast-radius view** (:mod:`~graphkit.report.view`, SVG drawn by a
  small inline script): the sources on the left, reached nodes laid out in
  layers by kind, coloured by kind, critical nodes drawn as stars, possible
  ones faded, possible edges dotted; nodes of one kind and owner folded into
  groups a click expands, a focus mode per source, rogue registrations and the
  cache-poisoning chain highlighted; hovering a node shows its criticality,
  confidence, lifetime and evidence (:func:`blast_radius_figure` draws the
  same layers as a plotly figure, for notebooks);
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

Modules: :mod:`~graphkit.report.layout` (layers, colours, node positions), :mod:`~graphkit.report.view` (the
report's interactive view),
:mod:`~graphkit.report.figures` (the plotly figures),
:mod:`~graphkit.report.html` (tables and the page), :mod:`~graphkit.report.text`
(escaping and evidence lines).
"""

from graphkit.report.figures import blast_radius_figure, revocation_curve_figure
from graphkit.report.html import BLAST_RADIUS_DIV, REVOCATION_CURVE_DIV, report_html, write_report
from graphkit.report.layout import kind_colors, kind_layers

__all__ = [
    "BLAST_RADIUS_DIV",
    "REVOCATION_CURVE_DIV",
    "blast_radius_figure",
    "kind_colors",
    "kind_layers",
    "report_html",
    "revocation_curve_figure",
    "write_report",
]
