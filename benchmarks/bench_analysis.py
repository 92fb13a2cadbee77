"""Benchmark: analysis on a 50k-node runner graph (speed targets live here, not in tests).

Run: ``python benchmarks/bench_analysis.py``.  Targets on a 2-core CI machine:
``blast_radius`` < 2 s, ``choke_points`` < 2 s, a 3-step ``revocation_plan`` < 10 s.
Prints one line per measurement and exits non-zero when a target is missed.
"""

from __future__ import annotations

import random
import sys
import time

from graphkit.analysis import blast_radius, choke_points, revocation_plan
from graphkit.graph import Graph
from graphkit.model import Confidence, Edge, EdgeKind, Evidence, Host, Job, Runner, Secret, DeploymentTarget

EV = [Evidence(file="bench")]


def big_graph(seed: int = 7) -> tuple[Graph, list[str]]:
    """999 runners on one host, 20k jobs, 19k secrets, 10k targets (50k nodes)."""
    rng = random.Random(seed)
    g = Graph()
    g.add_node(Host(id="host:big", name="big"))
    runners = [g.add_node(Runner(id=f"runner:{i}", name=f"r{i}", scope="acme")).id for i in range(999)]
    jobs = [g.add_node(Job(id=f"job:{i}", name=f"j{i}", repository="acme/app", workflow_path="ci.yml", job_key=str(i),
                           secrets_repository="acme/app")).id for i in range(20000)]
    secrets = [g.add_node(Secret(id=f"secret:{i}", name=f"S{i}", secret_name=f"S{i}", scope="repo",
                                 owner="acme")).id for i in range(19000)]
    targets = [g.add_node(DeploymentTarget(id=f"target:{i}", name=f"t{i}", target_type="other",
                                           identifier=str(i))).id for i in range(10000)]
    for j in jobs:
        g.add_edge(Edge(kind=EdgeKind.RECEIVES_JOB, source=rng.choice(runners), target=j, evidence=EV))
        for s in rng.sample(secrets, 3):
            g.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=j, target=s, evidence=EV,
                            confidence=rng.choice(list(Confidence))))
    for s in secrets:
        g.add_edge(Edge(kind=EdgeKind.DEPLOYS_TO, source=s, target=rng.choice(targets), evidence=EV))
    for r in runners:
        g.add_edge(Edge(kind=EdgeKind.RUNS_ON_HOST, source=r, target="host:big", evidence=EV))
        g.add_edge(Edge(kind=EdgeKind.HOSTS, source="host:big", target=r, evidence=EV))
    return g, runners


def main() -> int:
    g, runners = big_graph()
    missed = 0
    for name, fn, target in [("blast_radius", lambda: blast_radius(g, runners[0]), 2.0),
                             ("choke_points", lambda: choke_points(g, runners[0]), 2.0),
                             ("revocation_plan(max_steps=3)", lambda: revocation_plan(g, runners[0], max_steps=3), 10.0)]:
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        ok = dt < target
        missed += not ok
        print(f"{name:32s} {dt:7.2f} s  (target < {target:.0f} s) {'ok' if ok else 'MISSED'}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
