"""Issue 19, analysis rows: one blast radius, the full revocation plan and every runner's blast radius, each as a
ratio against a baseline measured in the same run (speed targets live here, never in tests).

Run (from the repository root)::

    python benchmarks/bench_scale_analysis.py                    # sizes 1e4,1e5 edges
    python benchmarks/bench_scale_analysis.py --sizes 1e4,1e5,1e6 --reps 3

``benchmarks/run.py`` (the overall table) can call :func:`measure` (rows as dicts) or :func:`main`.

For each size, an in-process synthetic org (:func:`org_graph`: hosts with several persistent runners, jobs routed
to them, secrets read with certain and possible confidence, deployment targets, OIDC roles assuming roles in
cycles) is built once, then:

- the traversal snapshot's build (once per graph version, shared by every analysis below);
- one blast radius with paths, confidence and lifetimes (snapshot cached) against scipy's
  ``breadth_first_order`` with predecessors on the snapshot's CSR (same traversable pairs; scipy follows
  ``persists_on`` from every node, graphkit from the sources only: both reached counts are printed);
- the full revocation plan (:mod:`graphkit.analysis.plan.fast`) against one blast radius, and the reference
  loop (one dominator tree per step, :mod:`graphkit.analysis.plan.greedy`) for its first steps, per step;
- every runner's blast radius (:func:`graphkit.analysis.blast_radii`) per reached node, against scipy's BFS per
  reached node over the same runners.

Timings are medians of ``--reps`` runs (wall clock, one process; the machine is shared, so compare ratios).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's graphkit, not an installed one

from graphkit.graph import Graph  # noqa: E402
from graphkit.model import (CloudRole, Confidence, DeploymentTarget, Edge, EdgeKind, Evidence, Host, Job,
                            OIDCIdentity, Runner, Secret)  # noqa: E402

EV = [Evidence(file="bench")]


def org_graph(edges: int, seed: int = 7) -> Graph:
    """A synthetic org of about ``edges`` edges (jobs ~ edges / 6)."""
    rng = random.Random(seed)
    n_jobs = max(50, edges // 6)
    n_runners = max(4, n_jobs // 40)
    n_hosts = max(2, n_runners // 4)
    n_secrets = max(20, n_jobs // 2)
    n_targets = max(10, n_secrets // 4)
    n_roles = max(4, n_jobs // 50)
    g = Graph()
    hosts = [g.add_node(Host(id=f"host:h{i}", name=f"h{i}")).id for i in range(n_hosts)]
    runners = [g.add_node(Runner(id=f"runner:acme/r{i}", name=f"r{i}", scope="acme")).id for i in range(n_runners)]
    secrets = [g.add_node(Secret(id=f"secret:acme:S{i}", name=f"S{i}", secret_name=f"S{i}", scope="repo",
                                 owner="acme")).id for i in range(n_secrets)]
    targets = [g.add_node(DeploymentTarget(id=f"target:t{i}", name=f"t{i}", target_type="other",
                                           identifier=str(i))).id for i in range(n_targets)]
    roles = [g.add_node(CloudRole(id=f"cloud_role:aws:r{i}", name=f"r{i}", provider="aws",
                                  identifier=f"r{i}")).id for i in range(n_roles)]

    def edge(kind: EdgeKind, u: str, v: str, possible: bool = False) -> None:
        g.add_edge(Edge(kind=kind, source=u, target=v, evidence=EV,
                        confidence=Confidence.POSSIBLE if possible else Confidence.CERTAIN))

    for i, r in enumerate(runners):
        h = hosts[i % n_hosts]
        edge(EdgeKind.RUNS_ON_HOST, r, h)
        edge(EdgeKind.HOSTS, h, r)
    for i in range(n_jobs):
        j = g.add_node(Job(id=f"job:acme/app{i % 97}/ci.yml#j{i}", name=f"j{i}", repository=f"acme/app{i % 97}",
                           workflow_path="ci.yml", job_key=f"j{i}", secrets_repository=f"acme/app{i % 97}")).id
        edge(EdgeKind.RECEIVES_JOB, rng.choice(runners), j)
        for s in rng.sample(secrets, 3):
            edge(EdgeKind.READS_SECRET, j, s, possible=rng.random() < 0.3)
        if rng.random() < 0.2:
            o = g.add_node(OIDCIdentity(id=f"oidc:acme/app{i % 97}/ci.yml#j{i}", name=f"o{i}",
                                        repository=f"acme/app{i % 97}")).id
            edge(EdgeKind.MINTS_OIDC, j, o)
            edge(EdgeKind.ASSUMES_ROLE, o, rng.choice(roles), possible=rng.random() < 0.5)
    for s in secrets:
        edge(EdgeKind.DEPLOYS_TO, s, rng.choice(targets))
    for i, r in enumerate(roles):  # role chains with cycles (r0 -> r1 -> ... -> r0), each administering a target
        edge(EdgeKind.ASSUMES_ROLE, r, roles[(i + 1) % n_roles])
        edge(EdgeKind.ADMINISTERS, r, rng.choice(targets))
    return g


def median_time(fn: Callable[[], Any], reps: int) -> float:
    """Median wall time of ``reps`` calls (the cyclic GC collected before each)."""
    times = []
    for _ in range(reps):
        gc.collect()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _scipy_bfs(snap: Any, src: int) -> Callable[[], Any]:
    import numpy as np
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import breadth_first_order
    indptr, indices = snap.arcs_csr()
    # float64 data: scipy's BFS converts any other dtype on every call, which would slow the baseline down
    # int32 indexes: with the snapshot's int64 row pointers scipy would convert both arrays on every call
    csr = csr_array((np.ones(indices.size), indices.astype(np.int32), indptr.astype(np.int32)), shape=(snap.n, snap.n))
    return lambda: breadth_first_order(csr, src, directed=True, return_predecessors=True)


def _worst_runner(g: Graph) -> str:
    from graphkit.model import NodeKind
    return max((n.id for n in g.nodes(NodeKind.RUNNER)), key=lambda r: (g.nx.out_degree(r), r))


def measure(edges: int, reps: int = 3, *, reference_steps: int = 3, all_runners_limit: int = 200) -> list[dict]:
    """The rows of one size: ``{question, graphkit_s, baseline_s, ratio, bound, note}`` (seconds)."""
    from graphkit.analysis import blast_radii, blast_radius, revocation_plan
    from graphkit.analysis.plan.candidates import candidates, incident
    from graphkit.analysis.plan.greedy import greedy_plan
    from graphkit.analysis.reach import source_ids
    from graphkit.analysis.snapshot import snapshot

    g = org_graph(edges)
    m = g.nx.number_of_edges()
    rows: list[dict] = []

    def row(question: str, ours: float, base: float | None, bound: str, note: str = "") -> None:
        rows.append({"edges": m, "question": question, "graphkit_s": ours, "baseline_s": base,
                     "ratio": None if not base else ours / base, "bound": bound, "note": note})

    t = time.perf_counter()
    snap = snapshot(g)
    row("traversal snapshot build (once per graph version)", time.perf_counter() - t, None, "O(V + E)")
    src = _worst_runner(g)
    radius = blast_radius(g, src)
    bfs = _scipy_bfs(snap, snap.index[src])
    one = median_time(lambda: blast_radius(g, src), reps)
    base = median_time(bfs, reps * 3)
    row("one blast radius with paths / scipy breadth_first_order", one, base, "<= 3x",
        f"{len(radius)} reached; scipy reaches {bfs()[0].size - 1}")
    full = median_time(lambda: blast_radius(g, src).reached, reps)
    row("  one blast radius, every Reached and path materialized / scipy breadth_first_order", full, base,
        "(objects)", f"{sum(len(r.path) for r in radius.reached)} hops in all paths")
    import graphkit.analysis.snapshot as snapshot_module
    from graphkit.analysis.radius import blast_radius_reference
    saved, snapshot_module.collect_fast = snapshot_module.collect_fast, lambda graph, srcs: None
    try:  # the reference traversal over networkx dicts (before issue 19)
        old = median_time(lambda: blast_radius_reference(g, source_ids(g, src)), reps)
    finally:
        snapshot_module.collect_fast = saved
    row("one blast radius, reference traversal (networkx dicts) / scipy breadth_first_order", old, base, "(before)")
    plan_t = median_time(lambda: revocation_plan(g, src), max(1, reps // 2))
    plan = revocation_plan(g, src)
    row("full revocation plan / one blast radius", plan_t, one, "<= 10x", f"{len(plan.steps)} steps")
    srcs = source_ids(g, src)

    def reference() -> None:
        inc = incident(g, srcs)
        greedy_plan(inc, candidates(inc), reference_steps)

    ref = median_time(reference, 1)
    row(f"reference plan loop, first {reference_steps} steps / one blast radius", ref, one, "(was ~per step)",
        f"per step ~ {ref / reference_steps:.3f} s")
    from graphkit.model import NodeKind
    runners = [n.id for n in g.nodes(NodeKind.RUNNER)][:all_runners_limit]
    reached = 0
    t = time.perf_counter()
    for r in blast_radii(g, runners):
        reached += len(r) + 1
    every = time.perf_counter() - t
    base_all = 0.0
    for r in runners:
        f = _scipy_bfs(snap, snap.index[r])
        t = time.perf_counter()
        f()
        base_all += time.perf_counter() - t
    row(f"every runner's blast radius ({len(runners)} runners, {reached} reached in all) / scipy BFS of each",
        every, base_all, "O(total reach)", f"{every / max(reached, 1) * 1e6:.2f} us per reached node")
    return rows


def print_rows(rows: list[dict]) -> None:
    """One line per row: edges, question, graphkit, baseline, ratio, bound, note."""
    for r in rows:
        base = f"{r['baseline_s']:.4f}s" if r["baseline_s"] else "-"
        ratio = f"{r['ratio']:.1f}x" if r["ratio"] else "-"
        print(f"{r['edges']:>9} | {r['question']:<95} | {r['graphkit_s']:.4f}s | {base:>9} | {ratio:>8} | "
              f"{r['bound']:<14} | {r['note']}", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Print the rows of every size (``--sizes 1e4,1e5``, ``--reps 3``)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e4,1e5")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"{'edges':>9} | {'question':<95} | graphkit | baseline | ratio | bound | note")
    for size in args.sizes.split(","):
        print_rows(measure(int(float(size)), args.reps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
