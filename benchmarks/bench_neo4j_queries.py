"""Benchmark: the library's all-runner queries on the corpus graph, on the Bolt test server (speed lives here,
not in tests).

Run: ``python benchmarks/bench_neo4j_queries.py`` (needs the ``arcadedb-embedded`` test dependency and the shared
corpus beside the checkout; or a real Neo4j through ``NEO4J_URI``/``NEO4J_USERNAME``/``NEO4J_PASSWORD``/
``NEO4J_DATABASE``, whose graphkit data it replaces).  Syncs the GitHub Actions corpus with the test inventory
(``tests/neo4j_helpers.py``), then runs each query once to warm up and once timed.  Prints one line per query
(seconds, rows) and exits non-zero when one misses its target (:data:`TARGETS`, seconds on a 2-core CI machine).
Every variable-length pattern is bounded (``*..20``) and the path-listing query by ``$limit``.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from bolt_server import server_settings  # noqa: E402
from neo4j_helpers import corpus_graph, settings, wipe  # noqa: E402

from graphkit.model import NodeKind  # noqa: E402
from graphkit.neo4j.connection import connect  # noqa: E402
from graphkit.neo4j.library import load_library, run_query  # noqa: E402
from graphkit.neo4j.sync import sync_graph  # noqa: E402

#: query -> (parameters, target seconds).  ``who-reaches`` and ``blast-radius-sources`` get their parameters
#: from the graph (the most reached signing key; every runner at once).
TARGETS: dict[str, tuple[dict, float]] = {
    "runners-by-reach": ({}, 20.0),
    "choke-points": ({"limit": 20}, 20.0),
    "long-lived-credentials-from-runners": ({}, 20.0),
    "paths-runners-to-critical": ({"limit": 200}, 20.0),
    "who-reaches": ({}, 10.0),
    "blast-radius-sources": ({}, 15.0),
}


def main() -> int:
    library = load_library(ROOT / "queries")
    with tempfile.TemporaryDirectory() as tmp, server_settings() as bolt:
        g = corpus_graph(Path(tmp))
        runners = sorted(n.id for n in g.nodes(NodeKind.RUNNER))
        keys = sorted(n.id for n in g.nodes(NodeKind.SIGNING_KEY))
        print(f"corpus graph: {len(g)} nodes, {g.nx.number_of_edges()} edges, {len(runners)} runners "
              f"({bolt['engine']})")
        dynamic = {"who-reaches": {"target_id": keys[0] if keys else ""}, "blast-radius-sources": {"sources": runners}}
        missed = 0
        with connect(settings(bolt)) as driver:
            wipe(driver, bolt["database"])
            t0 = time.perf_counter()
            sync_graph(driver, g, database=bolt["database"])
            print(f"{'sync':40s} {time.perf_counter() - t0:7.2f} s")
            for name, (params, target) in TARGETS.items():
                params = {**params, **dynamic.get(name, {})}
                run_query(driver, library[name], params, database=bolt["database"])  # warm-up
                t0 = time.perf_counter()
                _, rows = run_query(driver, library[name], params, database=bolt["database"])
                dt = time.perf_counter() - t0
                ok = dt < target
                missed += not ok
                print(f"{name:40s} {dt:7.2f} s  {len(rows):5d} rows  (target < {target:.0f} s) "
                      f"{'ok' if ok else 'MISSED'}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
