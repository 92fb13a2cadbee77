"""The query library's ``.cypher`` files, rendered from ``queries/templates/`` with names taken from the model.

A template is a library file (see :mod:`graphkit.neo4j.library`) whose text may
hold ``{{placeholder}}`` markers:

- ``{{traversable}}``: the relationship types of the traversable edge kinds that
  paths follow, ``HOSTS|RUNS_ON_HOST|RECEIVES_JOB|...``
  (:func:`~graphkit.neo4j.statements.path_types`: source-only kinds such as
  ``PERSISTS_ON``, followed by the analysis from a source job alone, are left
  out; the library's path queries start from runners, hosts and given nodes),
  for ``shortestPath((s)-[:{{traversable}}*..{{max_hops}}]->(n))``: Neo4j 5
  refuses property predicates inside ``shortestPath`` ("shortestPath(...)
  contains properties ... currently not supported"), and a
  ``WHERE all(r IN relationships(p) ...)`` filter is applied *after* the
  search by ArcadeDB (the test server), so the types are named;
- ``{{max_hops}}``: :data:`MAX_HOPS`, the bound of every variable-length pattern;
- ``{{node}}``: the common label every graphkit node carries (``Graphkit``).

``python -m graphkit.docs`` writes ``queries/<name>.cypher`` for every
``queries/templates/<name>.cypher``, and the Browser style sheet
``queries/graphkit.grass`` (:func:`render_grass`, :func:`write_queries`); a
test fails when a rendered file is stale, so edge kinds added to the model reach the library
without editing it.
"""

from __future__ import annotations

import re
from pathlib import Path

from graphkit.model import EDGE_SPECS, NODE_TYPES, Criticality
from graphkit.neo4j.statements import COMMON_LABEL, label_of, path_types, rel_type_of

__all__ = ["MAX_HOPS", "GRASS_FILE", "placeholders", "render_template", "rendered_queries", "render_grass",
           "write_queries"]

#: Upper bound of the library's variable-length patterns (hops).  An unbounded shortestPath is a performance
#: warning in Neo4j ("Using shortest path with an unbounded pattern will likely result in long execution times");
#: the networkx counterparts use the same cutoff.
MAX_HOPS = 20
_MARK = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")
GENERATED = ("// rendered from templates/{name}.cypher by `python -m graphkit.docs` (edit the template, "
             "not this file)")


def placeholders() -> dict[str, str]:
    """Placeholder name -> text, from the model as it is now."""
    return {"traversable": "|".join(path_types()), "max_hops": str(MAX_HOPS), "node": COMMON_LABEL}


def render_template(text: str, name: str) -> str:
    """``text`` with every ``{{placeholder}}`` replaced and the "rendered from" line after the header comments.

    Raises
    ------
    ValueError
        for an unknown placeholder (named with the template).

    Examples
    --------
    >>> text = render_template("// name: x\\nMATCH (n:{{node}})-[:{{traversable}}*..2]->(m) RETURN m", "x")
    >>> print(text.splitlines()[1][:30], text.splitlines()[2][:40], sep="\\n")
    // rendered from templates/x.c
    MATCH (n:Graphkit)-[:HOSTS|RUNS_ON_HOST|
    """
    values = placeholders()

    def sub(m: re.Match[str]) -> str:
        if m.group(1) not in values:
            raise ValueError(f"template {name}: unknown placeholder {m.group(0)} (known: {', '.join(values)})")
        return values[m.group(1)]

    lines = _MARK.sub(sub, text).splitlines()
    at = next((i for i, line in enumerate(lines) if not line.lstrip().startswith("//")), len(lines))
    lines.insert(at, GENERATED.format(name=name))
    return "\n".join(lines) + "\n"


def rendered_queries(query_dir: Path) -> dict[Path, str]:
    """``queries/<name>.cypher`` path -> rendered text, for every template of ``query_dir/templates``, and the
    Browser style sheet :data:`GRASS_FILE`."""
    out = {query_dir / t.name: render_template(t.read_text(encoding="utf-8"), t.stem)
           for t in sorted((query_dir / "templates").glob("*.cypher"))}
    out[query_dir / GRASS_FILE] = render_grass()
    return out


#: The Neo4j Browser style sheet written beside the queries (load it with ``:style`` in Browser).
GRASS_FILE = "graphkit.grass"
#: Node colours, given to the labels in the model's declaration order (a new kind gets the next colour).
_PALETTE = ("#4C8EDA", "#DA7194", "#569480", "#F79767", "#8DCC93", "#C990C0", "#D9C8AE", "#57C7E3", "#F16667",
            "#FFC454", "#ECB5C9", "#6DCE9E", "#A5ABB6", "#FFE081", "#68BDF6", "#B08EC0", "#E06C75", "#7FB3D5")
_DIAMETER = {Criticality.CRITICAL: 70, Criticality.HIGH: 58, Criticality.MEDIUM: 50, Criticality.LOW: 44}


def render_grass() -> str:
    """The Browser style sheet: a colour, size (by default criticality) and ``{name}`` caption per node label;
    traversable relationships captioned with their ``{confidence} {lifetime}`` and drawn thicker and red,
    the others with their type, thin and grey.

    Format: Neo4j Browser's GRASS (``:style`` shows and edits the current one; a ``.grass`` file dropped on it
    replaces it), https://neo4j.com/docs/browser-manual/current/operations/browser-styling/.
    """
    out = ["node {", "  diameter: 50px;", "  color: #A5ABB6;", "  border-color: #9AA1AC;", "  border-width: 2px;",
           "  text-color-internal: #FFFFFF;", "  font-size: 10px;", "}", "",
           "relationship {", "  color: #A5ABB6;", "  shaft-width: 1px;", "  font-size: 8px;", "  padding: 3px;",
           "  text-color-external: #000000;", "  text-color-internal: #FFFFFF;", '  caption: "<type>";', "}", ""]
    for i, (kind, cls) in enumerate(NODE_TYPES.items()):
        colour = _PALETTE[i % len(_PALETTE)]
        out += [f"node.{label_of(kind)} {{", f"  color: {colour};", "  border-color: #5B5F66;",
                f"  diameter: {_DIAMETER.get(cls.spec.default_criticality, 50)}px;", '  caption: "{name}";', "}", ""]
    for kind, spec in EDGE_SPECS.items():
        if spec.traversable:
            out += [f"relationship.{rel_type_of(kind)} {{", "  color: #D94F4F;", "  shaft-width: 3px;",
                    '  caption: "{confidence} {lifetime}";', "}", ""]
        else:
            out += [f"relationship.{rel_type_of(kind)} {{", "  color: #C5C8CE;", "  shaft-width: 1px;",
                    '  caption: "<type>";', "}", ""]
    return "\n".join(out)


def write_queries(query_dir: Path) -> list[Path]:
    """Render every template into ``query_dir``; returns the files written."""
    out = rendered_queries(query_dir)
    for path, text in out.items():
        path.write_text(text, encoding="utf-8")
    return list(out)
