"""Lint every statement graphkit sends to Neo4j, and every library file, with Neo4j's own Cypher front end.

``python tools/cypher-lint/lint.py``: lists errors and warnings (deprecations, performance notes) per statement
for Cypher 5 and Cypher 25, exit status 1 when there is an error, 2 when the tool is not installed.  Needs node
(v20+) and ``npm ci`` run in this folder (``.ci/run`` does it; the package is pinned in ``package-lock.json``).
The statements: the sync's (constraints, upserts, stale-data removal, bookkeeping), the reads (counts, reach,
reading back), from :func:`graphkit.neo4j.statements.all_statements`, and ``queries/*.cypher``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from graphkit.model import EDGE_SPECS, NODE_TYPES
from graphkit.neo4j.library import load_library
from graphkit.neo4j.statements import COMMON_LABEL, SYNC_LABEL, all_statements, label_of, rel_type_of

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PACKAGE = HERE / "node_modules" / "@neo4j-cypher" / "language-support"


def available() -> str | None:
    """None when node and the installed package are present, else what is missing and how to get it."""
    if shutil.which("node") is None:
        return "node is not installed (apt-get install -y nodejs npm)"
    if not PACKAGE.is_dir():
        return f"@neo4j-cypher/language-support is not installed (cd {HERE.relative_to(ROOT)} && npm ci)"
    return None


def statements(query_dir: Path | None = None) -> dict[str, str]:
    """Every statement to lint, by name: ``sync.*`` / ``read.*`` generated, ``library.<name>`` files."""
    out = dict(all_statements())
    out.update({f"library.{q.name}": q.text for q in load_library(query_dir or ROOT / "queries").values()})
    return out


def representatives(items: dict[str, str]) -> dict[str, str]:
    """One generated statement per shape: statements differing only in model labels and types lint alike.

    The sync and read statements come in families (one per node kind, per edge triple...) whose members differ
    only in a label or type, each a checked plain identifier; linting the first member of every family keeps the
    run short (Neo4j's front end takes about 0.2-0.4 s a statement here).  Library files are all kept.
    """
    names = sorted({*schema()["labels"], *schema()["relationshipTypes"]}, key=len, reverse=True)
    word = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(map(re.escape, names)) + r")(?![A-Za-z0-9])")
    seen: set[str] = set()
    out: dict[str, str] = {}
    for name, text in items.items():
        if not name.startswith(("sync.", "read.")):
            out[name] = text
            continue
        shape = word.sub("X", text)
        if shape not in seen:
            seen.add(shape)
            out[name] = text
    return out


def schema() -> dict[str, list[str]]:
    """The labels and relationship types graphkit writes (the linter warns about others)."""
    labels = [label_of(k) for k in NODE_TYPES] + [COMMON_LABEL, SYNC_LABEL]
    return {"labels": labels, "relationshipTypes": [rel_type_of(k) for k in EDGE_SPECS]}


def lint(items: dict[str, str]) -> list[dict]:
    """Diagnostics of ``items`` (name -> statement text) for Cypher 5 and 25.

    Raises
    ------
    RuntimeError
        if the tool is missing or node fails.
    """
    missing = available()
    if missing:
        raise RuntimeError(missing)
    payload = json.dumps({"statements": [{"name": n, "text": t} for n, t in items.items()], "schema": schema()})
    proc = subprocess.run(["node", str(HERE / "lint.mjs")], input=payload, capture_output=True, text=True,
                          cwd=HERE, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"lint.mjs failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def main() -> int:
    missing = available()
    if missing:
        print(f"cypher-lint: {missing}", file=sys.stderr)
        return 2
    every = statements()
    items = representatives(every)
    found = lint(items)
    for d in found:
        print(f"{d['severity']:8s} Cypher {d['version']:2s} {d['name']} line {d['line']}: {d['message']}")
    errors = sum(d["severity"] == "error" for d in found)
    print(f"cypher-lint: {len(every)} statements ({len(items)} shapes), Cypher 5 and 25: {errors} error(s), {len(found) - errors} other")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
