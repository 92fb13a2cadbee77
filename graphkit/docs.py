"""Generate what is derived from the model: the README's graph-model tables, the graph file's JSON Schema and
the Cypher library.

``python -m graphkit.docs [ROOT]`` (ROOT: the repository this module is in by default)
rewrites the part of ``README.md`` between the ``<!-- model:begin -->`` and
``<!-- model:end -->`` markers, ``schemas/graph.schema.json``, the node id pattern of
``schemas/blast-radius.schema.json`` (one alternative per node kind's id prefix), and every
``queries/<name>.cypher`` rendered from ``queries/templates/<name>.cypher``
(:mod:`graphkit.neo4j.templates`: relationship types named from the model);
tests check all of them are up to date.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from graphkit.graph import graph_file_schema
from graphkit.model import EDGE_SPECS, NODE_ID_FORMATS, NODE_TYPES, REVOCATION_SPECS
from graphkit.model.ids import PREFIXES

BEGIN, END = "<!-- model:begin -->", "<!-- model:end -->"


def model_markdown() -> str:
    """Markdown tables of node kinds, edge kinds and revocation actions."""
    lines = ["| node kind | Neo4j label | id format | default criticality | revoked by | meaning |",
             "|---|---|---|---|---|---|"]
    for kind, cls in NODE_TYPES.items():
        s = cls.spec
        fmt = NODE_ID_FORMATS[kind].replace("|", "\\|")
        lines.append(f"| `{kind.value}` | `{s.label}` | `{fmt}` | {s.default_criticality.value} | "
                     f"{s.revoked_by.value if s.revoked_by else ''} | {s.description} |")
    lines += ["", "| edge kind | Neo4j type | traversable | from | to | lifetime | revoked by (on) | meaning |",
              "|---|---|---|---|---|---|---|---|"]
    for kind, e in EDGE_SPECS.items():
        src = ", ".join(sorted(k.value for k in e.sources))
        dst = ", ".join(sorted(k.value for k in e.targets))
        rev = f"{e.revoked_by.value} ({e.revoke_subject})" if e.revoked_by else ""
        lines.append(f"| `{kind.value}` | `{e.rel_type}` | {'yes' if e.traversable else 'no'} | {src} | {dst} | "
                     f"{e.lifetime.value} | {rev} | {e.description} |")
    lines += ["", "| revocation action | what it means |", "|---|---|"]
    for action, spec in REVOCATION_SPECS.items():
        lines.append(f"| `{action.value}` | {spec.description} |")
    return "\n".join(lines)


def render(readme: str) -> str:
    """``readme`` with the generated block replaced.

    Raises
    ------
    ValueError
        if the markers are missing.
    """
    start, end = readme.index(BEGIN) + len(BEGIN), readme.index(END)
    return readme[:start] + "\n" + model_markdown() + "\n" + readme[end:]


def schema_text() -> str:
    """``schemas/graph.schema.json`` as it must be (sorted keys, 2-space indent, trailing newline)."""
    return json.dumps(graph_file_schema(), indent=2, sort_keys=True) + "\n"


#: The line of ``schemas/blast-radius.schema.json`` (hand-written otherwise) that :func:`node_id_schema` generates.
_NODE_ID_LINE = re.compile(r'^    "nodeId": \{.*\},$', re.M)


def node_id_schema() -> dict[str, object]:
    """The JSON Schema of a node id in the JSON outputs: a string starting with the id prefix of one of the
    model's node kinds (:data:`graphkit.model.ids.PREFIXES`: ``repo:``, ``k8s_sa:``...), sorted."""
    alternatives = "|".join(sorted(re.escape(p[:-1]) for p in set(PREFIXES.values())))
    return {"type": "string", "minLength": 3, "pattern": f"^(?:{alternatives}):"}


def blast_radius_schema_text(current: str) -> str:
    """``current`` (the text of ``schemas/blast-radius.schema.json``) with its ``nodeId`` definition generated
    by :func:`node_id_schema`; the rest of the file is written by hand.

    Raises
    ------
    ValueError
        if ``current`` has no single ``nodeId`` definition line.
    """
    line = '    "nodeId": ' + json.dumps(node_id_schema()) + ","
    text, count = _NODE_ID_LINE.subn(line.replace("\\", "\\\\"), current)
    if count != 1:
        raise ValueError(f"blast-radius.schema.json: {count} nodeId definition lines (expected one)")
    return text


def write_all(root: Path) -> None:
    """Rewrite the generated parts under the repository ``root`` (README tables, graph schema, the blast-radius
    schema's node id pattern, Cypher library)."""
    from graphkit.neo4j.templates import write_queries

    readme = root / "README.md"
    readme.write_text(render(readme.read_text(encoding="utf-8")), encoding="utf-8")
    (root / "schemas" / "graph.schema.json").write_text(schema_text(), encoding="utf-8")
    radius = root / "schemas" / "blast-radius.schema.json"
    radius.write_text(blast_radius_schema_text(radius.read_text(encoding="utf-8")), encoding="utf-8")
    from graphkit.analysis.timeline import issued_schema_text
    (root / "schemas" / "issued-tokens.schema.json").write_text(issued_schema_text(), encoding="utf-8")
    write_queries(root / "queries")


if __name__ == "__main__":  # pragma: no cover
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
    if not (root / "README.md").is_file():
        sys.exit(f"{root}: not a graphkit checkout (no README.md); give the repository root")
    write_all(root)
