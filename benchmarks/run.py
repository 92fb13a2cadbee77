"""Issue 19's benchmark table: graphkit against baselines measured in the same run, per size of synthetic org.

Run (from the repository root)::

    python benchmarks/run.py --sizes 1e4,1e5            # add --reps 5, --no-neo4j, --markdown FILE

For each size it writes a synthetic organization (``graphkit synth``, :mod:`graphkit.synth`) to a temporary folder,
builds it, and prints one table: each question with graphkit's median time, the baseline's median time measured
in this run, and their ratio against issue 19's bound.  Baselines: scipy's ``breadth_first_order`` on a CSR of
the same traversable edges (one blast radius; every runner's, via ``bench_scale_analysis.measure``), one blast
radius (the plan, a saved graph's load), the bare
``yaml.load(..., Loader=yaml.CSafeLoader)`` of the same workflow files (build), ``python -c pass`` (``--help``),
and the bare driver's ``UNWIND $rows ... MERGE`` of the very rows and statements ``graphkit neo4j sync`` sends,
on the same Bolt test server (``tests/bolt_server.py``: ArcadeDB, or ``NEO4J_URI``).  Memory, per built edge
and above the RSS after imports, in fresh processes: the graph itself (a process that loaded the saved graph),
what a build leaves (RSS after the build and ``gc.collect()``), the build's peak, and its peak once it has saved
the graph.  The load is also compared with the bare ``json.loads`` of the same file.  Timings are medians of ``--reps`` runs: CPU time of
this process for what runs in it (build, analysis, load), CPU time of the children for processes; the sync and
its replay run in A B B A order (sync, replay, replay, sync, ``--reps`` times) and their rate ratio is taken from
the summed wall times (the server does the work).  Nothing here asserts a timing (``tests/test_benchmarks.py`` runs the
smallest size and checks that the table is produced).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

#: Built edges of a synthetic org of ``r`` repositories (default runners), fitted on this version's builds:
#: about ``EDGES_AT_ONE * r ** EDGES_EXPONENT`` (runners and shared groups grow with the org).
EDGES_AT_ONE, EDGES_EXPONENT = 18.7, 1.28


@dataclass
class Row:
    """One line of the table: ``ours`` and ``base`` in seconds (or a note), ``ratio`` = ours / base."""

    question: str
    ours: float | None = None
    base: float | None = None
    bound: str = ""
    note: str = ""
    unit: str = "s"

    @property
    def ratio(self) -> float | None:
        return self.ours / self.base if self.ours is not None and self.base else None


@dataclass
class Table:
    size: str
    edges: int = 0
    nodes: int = 0
    rows: list[Row] = field(default_factory=list)


def median_time(fn: Callable[[], Any], reps: int, clock: Callable[[], float] = time.process_time) -> float:
    """Median time of ``fn()`` over ``reps`` runs (seconds): CPU time of this process by default (the machine is
    shared: wall time measures the neighbours), wall time when ``clock`` is ``time.perf_counter``."""
    times = []
    for _ in range(reps):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return statistics.median(times)


def child_cpu(cmd: list[str], reps: int, env: dict[str, str] | None = None) -> float:
    """Median CPU time (user + system, seconds) of a child process."""
    times = []
    for _ in range(reps):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return statistics.median(times)


# --------------------------------------------------------------------------- inputs

def synth_org(edges: int, out: Path) -> dict[str, list[Path]]:
    """A synthetic org of about ``edges`` built edges under ``out``; the build inputs."""
    from graphkit import synth
    repos = max(2, round((edges / EDGES_AT_ONE) ** (1 / EDGES_EXPONENT)))
    synth.write(synth.generate(repos, seed=19), out)
    return {"github-actions": [out / "repos"], "runners": [out / "inventory.yaml"], "aws-iam": [out / "aws-iam.json"]}


def workflow_texts(inputs: dict[str, list[Path]]) -> list[str]:
    """The workflow files the build reads, as text."""
    files = [p for root in inputs["github-actions"] for p in sorted(Path(root).rglob(".github/workflows/*.y*ml"))]
    return [p.read_text(encoding="utf-8") for p in files]


def bare_parse(texts: list[str]) -> None:
    """The baseline of the build: libyaml's CSafeLoader on every workflow file, nothing else."""
    import yaml
    for text in texts:
        yaml.load(text, Loader=yaml.CSafeLoader)


# --------------------------------------------------------------------------- questions

def build_rows(inputs: dict[str, list[Path]], reps: int, label: str) -> tuple[list[Row], Any]:
    """Build in process and through the CLI, against the bare C-YAML parse of the same workflow files."""
    from graphkit.build import build_graph
    texts = workflow_texts(inputs)
    parse = median_time(lambda: bare_parse(texts), reps)
    built: list[Any] = []
    ours = median_time(lambda: built.append(build_graph(inputs).graph), reps)
    what = "all inputs" if len(inputs) > 1 else "workflows"
    rows = [Row(f"build {label} ({what}) / bare CSafeLoader parse of its {len(texts)} workflow files", ours,
                parse, "<= 2x")]
    if len(inputs) > 1:
        only_gha = median_time(lambda: build_graph({"github-actions": inputs["github-actions"]}), reps)
        rows.append(Row("build from the workflows alone / the same parse", only_gha, parse, "<= 2x"))
    with tempfile.TemporaryDirectory() as tmp:
        args = [a for name, paths in inputs.items() for p in paths for a in (f"--{name}", str(p))]
        cli = child_cpu([sys.executable, "-m", "graphkit.cli", "build", *args, "-o", str(Path(tmp) / "g.json")], 1)
    rows.append(Row("  through the CLI (CPU, one run; writes the graph)", cli, parse, "<= 2x"))
    return rows, built[-1]


def _source(graph: Any) -> str:
    """The persistent runner with the most jobs routed to it (a responder's worst case)."""
    from graphkit.model import NodeKind
    runners = [n.id for n in graph.nodes(NodeKind.RUNNER) if not n.id.startswith("runner:inferred")]
    if not runners:
        problems = "; ".join(f"{p.file} {p.place}: {p.reason}" for p in graph.meta.problems[:3])
        raise SystemExit(f"the synthetic org built without runners (input problems: {problems or 'none'})")
    return max(runners, key=lambda r: (graph.nx.out_degree(r), r))


def scipy_csr(graph: Any) -> tuple[Any, dict[str, int]] | None:
    """A CSR of the traversable edges (scipy), and the index of every node id; None when scipy is not installed."""
    try:
        import numpy as np
        from scipy.sparse import csr_array
    except ImportError:
        return None
    index = {nid: i for i, nid in enumerate(graph.nx.nodes)}
    view = graph.traversable_view()
    pairs = np.array([(index[u], index[v]) for u, v in view.edges()] or [(0, 0)], dtype=np.int32)
    n = len(index)
    # float64 data: scipy's BFS converts any other dtype on every call, which would slow the baseline down
    return csr_array((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n)), index


def scipy_bfs(graph: Any, source: str, csr: tuple[Any, dict[str, int]] | None = None) \
        -> tuple[Callable[[], Any], int] | None:
    """scipy's ``breadth_first_order`` (with predecessors) on a CSR of the traversable edges (:func:`scipy_csr`,
    built outside the timing); None when scipy is not installed."""
    made = csr if csr is not None else scipy_csr(graph)
    if made is None:
        return None
    from scipy.sparse.csgraph import breadth_first_order
    matrix, index = made
    src = index[source]
    order, _ = breadth_first_order(matrix, src, directed=True, return_predecessors=True)
    return (lambda: breadth_first_order(matrix, src, directed=True, return_predecessors=True)), len(order)


def every_runner_row(graph: Any, reps: int) -> Row:
    """Every runner's blast radius (:func:`graphkit.analysis.blast_radii`, arrays) against scipy's BFS from each
    runner, with the time per reached node."""
    from graphkit.analysis import blast_radii
    from graphkit.model import NodeKind
    runners = [n.id for n in graph.nodes(NodeKind.RUNNER)]
    reached = sum(len(r) + 1 for r in blast_radii(graph, runners))
    every = median_time(lambda: sum(len(r) for r in blast_radii(graph, runners)), max(1, reps // 2))
    csr = scipy_csr(graph)
    fns = [scipy_bfs(graph, r, csr) for r in runners] if csr is not None else []
    base = median_time(lambda: [f[0]() for f in fns if f is not None], max(1, reps // 2)) if fns else None
    return Row(f"every runner's blast radius ({len(runners)} runners, {reached} reached in all) / scipy BFS of each",
               every, base, "O(total reach)", f"{every / max(reached, 1) * 1e6:.2f} us per reached node")


def analysis_rows(graph: Any, reps: int, plan_limit: int) -> list[Row]:
    """One blast radius vs scipy; the plan vs one blast radius; load of the saved graph vs one blast radius."""
    from graphkit.analysis import blast_radius, revocation_plan
    from graphkit.graph import Graph
    source = _source(graph)
    radius = blast_radius(graph, source)
    one = median_time(lambda: blast_radius(graph, source), reps)
    rows = []
    bfs = scipy_bfs(graph, source)
    if bfs is None:
        rows.append(Row("one blast radius / scipy BFS", one, None, "<= 3x", "scipy not installed"))
    else:
        fn, reached = bfs
        base = median_time(fn, reps)
        rows.append(Row(f"one blast radius with paths ({len(radius)} reached; scipy reaches "
                        f"{reached - 1}) / scipy breadth_first_order", one, base, "<= 3x",
                        "arrays: reach, confidence, lifetimes, predecessors"))
        full = median_time(lambda: blast_radius(graph, source).reached, reps)
        rows.append(Row("  one blast radius, every Reached and path materialized / scipy breadth_first_order", full,
                        base, "(cost of the objects)"))
        rows.append(every_runner_row(graph, reps))
    edges = graph.nx.number_of_edges()
    if edges <= plan_limit:
        first = median_time(lambda: revocation_plan(graph, radius.sources), 1)
        plan = median_time(lambda: revocation_plan(graph, radius.sources), max(1, reps // 2))
        rows.append(Row("full revocation plan for one runner / one blast radius", plan, one, "<= 10x",
                        "again on the same graph"))
        rows.append(Row("  the first plan on this graph (fills its per-graph candidate caches) / one blast radius",
                        first, one, "<= 10x"))
    else:
        rows.append(Row("full revocation plan / one blast radius", None, one, "<= 10x",
                        f"skipped: {edges} edges > --plan-limit {plan_limit}"))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "g.json"
        graph.save(path)
        load = median_time(lambda: Graph.load(path), max(1, reps // 2))
        bare = median_time(lambda: json.loads(path.read_text(encoding="utf-8")), max(1, reps // 2))
        mb = path.stat().st_size / 1e6
    rows.append(Row(f"load a saved graph ({mb:.1f} MB) / one blast radius", load, one, "<< 1"))
    rows.append(Row("load a saved graph / bare json.loads of the same file", load, bare, "O(size)"))
    return rows


_RSS_PROBE = """
import gc, json, sys
from graphkit.build import build_graph
from graphkit.graph import Graph
def kb(key):  # this process's own counters (ru_maxrss keeps the parent's high-water mark across fork)
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
arg = json.loads(sys.argv[1])
if "warm" in arg:  # a tiny build first: the modules a build imports lazily are not counted as the graph's
    build_graph(arg["warm"])
gc.collect()
base = kb("VmRSS")
out = {"base_kb": base}
if "load" in arg:
    g = Graph.load(arg["load"])
else:
    g = build_graph(arg["inputs"]).graph
    gc.collect()
    out.update(built_kb=kb("VmRSS"), build_peak_kb=kb("VmHWM"))
    g.save(arg["save"])
gc.collect()
out.update(after_kb=kb("VmRSS"), peak_kb=kb("VmHWM"), edges=g.nx.number_of_edges())
print(json.dumps(out))
"""


def _probe(arg: dict[str, Any]) -> dict[str, Any]:
    """Run :data:`_RSS_PROBE` in a fresh process; its counters (KB) and edge count."""
    res = subprocess.run([sys.executable, "-c", _RSS_PROBE, json.dumps(arg)], capture_output=True, text=True,
                         check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def scale_analysis_rows(edges: int, reps: int) -> list[Row]:
    """The analysis rows of ``benchmarks/bench_scale_analysis.py`` (snapshot, one blast radius vs scipy, the
    incremental plan vs the reference loop, every runner's blast radius), on its in-memory org of the same size;
    none when that module is not there."""
    try:
        from bench_scale_analysis import measure
    except ImportError:
        return []
    return [Row(f"[analysis org, {r['edges']} edges] {r['question']}", r["graphkit_s"], r["baseline_s"], r["bound"],
                r["note"]) for r in measure(edges, reps)]


def memory_rows(inputs: dict[str, list[Path]]) -> list[Row]:
    """Memory per built edge (KB), each in a fresh process, above its RSS after imports: the graph itself (RSS
    of a process that loaded the saved graph, after ``gc.collect()``), what a build leaves (RSS after the build
    and ``gc.collect()``: the graph plus the allocator's pages the build's garbage keeps), the build's peak,
    and the peak once it has saved the graph (two processes: build and save, then load).  The build process
    first builds a two-repository org, so that the modules a build imports count as imports, not as graph."""
    from graphkit import synth
    paths = {k: [str(p) for p in v] for k, v in inputs.items()}
    with tempfile.TemporaryDirectory() as tmp:
        saved = str(Path(tmp) / "g.json")
        synth.write(synth.generate(2, seed=19), Path(tmp) / "warm")
        warm = {"github-actions": [f"{tmp}/warm/repos"], "runners": [f"{tmp}/warm/inventory.yaml"],
                "aws-iam": [f"{tmp}/warm/aws-iam.json"]}
        built = _probe({"inputs": paths, "save": saved, "warm": warm})
        loaded = _probe({"load": saved})
    per = lambda m, key: (m[key] - m["base_kb"]) * 1024 / m["edges"] / 1000  # noqa: E731
    mb = lambda m, key: f"{m[key] / 1024:.0f} MB"  # noqa: E731
    return [
        Row("memory of the graph per edge (KB): RSS of a process that loaded it, above imports",
            per(loaded, "after_kb"), 1.0, "<= 1 KB", unit="KB",
            note=f"{mb(loaded, 'after_kb')}, {mb(loaded, 'base_kb')} after imports; load peak "
                 f"{per(loaded, 'peak_kb'):.2f} KB/edge"),
        Row("  retained after a build per edge (KB): RSS after build + gc.collect, above imports",
            per(built, "built_kb"), 1.0, "<= 1 KB", unit="KB", note=f"{mb(built, 'built_kb')}"),
        Row("  peak RSS of a build from files per built edge (KB)", per(built, "build_peak_kb"), 1.0, "", unit="KB",
            note=f"peak {mb(built, 'build_peak_kb')}"),
        Row("  peak RSS of that build then saving the graph, per edge (KB)", per(built, "peak_kb"), 1.0, "",
            unit="KB", note=f"peak {mb(built, 'peak_kb')}"),
    ]


def help_row(reps: int) -> Row:
    """CPU of ``graphkit --help`` against ``python -c pass`` (bytecode caches on, as an installed package)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    child_cpu([sys.executable, "-m", "graphkit.cli", "--help"], 1, env)  # writes the bytecode caches
    ours = child_cpu([sys.executable, "-m", "graphkit.cli", "--help"], reps, env)
    base = child_cpu([sys.executable, "-c", "pass"], reps, env)
    return Row("`graphkit --help` (CPU) / `python -c pass`", ours, base, "<= 0.2 s", note=f"{ours:.3f} s CPU")


#: Edges of the Neo4j warm-up sync (see :func:`_warm_up_graph`).
WARM_UP_EDGES = 20_000


def neo4j_rows(graph: Any, reps: int, bolt: dict[str, str] | None = None) -> list[Row]:
    """``sync_graph`` against the bare driver replaying the same ``UNWIND $rows`` statements and rows, same
    server, in A B B A order (:func:`abba`: sync, replay, replay, sync, ``reps`` times), each run on an emptied
    database (the constraints stay), after a warm-up sync of a sample of the graph (:func:`_warm_up_graph`).  The
    rate ratio is the replay's summed time over the sync's summed time (a drift of the machine or of a warming
    server over the four runs weighs on both sides alike); the note gives every run's time.  ``bolt``: the
    server's settings (``tests/bolt_server.py``), else a server started for these rows."""
    try:
        from bolt_server import server_settings
        from neo4j_helpers import settings, wipe
    except ImportError as exc:  # pragma: no cover - test helpers missing
        return [Row("Neo4j sync / bare driver", note=f"skipped: {exc}")]
    from graphkit.neo4j.connection import connect
    from graphkit.neo4j.sync import sync_graph
    recorded = _recorded_writes(graph)
    with contextlib.ExitStack() as stack:
        bolt = bolt or stack.enter_context(server_settings())
        driver = stack.enter_context(connect(settings(bolt)))
        db = bolt["database"]
        wipe(driver, db)
        sync_graph(driver, _warm_up_graph(graph), database=db)  # warm-up: constraints, JIT
        ours, bare = abba(lambda: sync_graph(driver, graph, database=db), lambda: _replay(driver, db, recorded),
                          lambda: wipe(driver, db), reps)
    return [neo4j_row(ours, bare, len(recorded), bolt["engine"])]


def abba(first: Callable[[], Any], second: Callable[[], Any], reset: Callable[[], Any], reps: int,
         clock: Callable[[], float] = time.perf_counter) -> tuple[list[float], list[float]]:
    """Wall times (seconds) of ``first`` and ``second`` run in A B B A order (``first``, ``second``, ``second``,
    ``first``), ``reps`` times over: two lists of ``2 * reps`` times, in run order.  ``reset()`` runs, untimed,
    before each run.  Wall time: the server does the work."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(reps):
        for which in (0, 1, 1, 0):
            reset()
            t0 = clock()
            (first, second)[which]()
            times[which].append(clock() - t0)
    return times


def neo4j_row(ours: list[float], bare: list[float], batches: int, engine: str) -> Row:
    """The table's Neo4j row from the A B B A times (:func:`abba`): graphkit's and the baseline's mean time, so
    that the row's ratio is the ratio of the summed times; the note lists every run in order."""
    runs = "; ".join(f"{name} {', '.join(f'{t:.2f} s' for t in times)}" for name, times in
                     (("sync", ours), ("replay", bare)))
    return Row(f"Neo4j sync / bare-driver UNWIND MERGE, same rows ({batches} batches, {engine})",
               sum(ours) / len(ours), sum(bare) / len(bare), ">= 0.8 (rate)",
               note=f"rate ratio {sum(bare) / sum(ours):.2f} (summed times; order sync, replay, replay, sync: "
                    f"{runs})")


def _warm_up_graph(graph: Any, edges: int = WARM_UP_EDGES) -> Any:
    """``graph`` itself up to ``edges`` edges, else every k-th of its edges (each kind in proportion) and their
    endpoints: a warm-up of every statement family without a whole extra sync of a large graph."""
    from graphkit.graph import Graph
    total = graph.nx.number_of_edges()
    if total <= edges:
        return graph
    picked = list(itertools.islice(graph.edges(), 0, None, -(-total // edges)))
    small = Graph()
    small.update(nodes=[graph.node(n) for n in sorted({e.source for e in picked} | {e.target for e in picked})],
                 edges=picked)
    return small


def _recorded_writes(graph: Any) -> list[tuple[Any, dict[str, Any]]]:
    """The ``UNWIND $rows`` statements (a statement, or a tuple run in one transaction) and rows ``sync_graph``
    sends, recorded with a driver that runs nothing."""
    from graphkit.neo4j.sync import sync_graph
    sent: list[tuple[str, dict[str, Any]]] = []

    class _Session:
        def __enter__(self) -> "_Session":
            return self

        def __exit__(self, *exc: Any) -> None:
            return None

        def execute_write(self, fn: Any, query: Any, params: dict[str, Any]) -> int:
            if any("$rows" in q for q in ((query,) if isinstance(query, str) else query)):
                sent.append((query, params))
            return 0

        def execute_read(self, fn: Any) -> None:  # the database's record of inputs: none
            return None

    class _Driver:
        def session(self, database: str) -> _Session:
            return _Session()

    sync_graph(_Driver(), graph, database="x", cleanup=False)
    return sent


def _replay(driver: Any, db: str, recorded: list[tuple[Any, dict[str, Any]]]) -> None:
    """Each recorded write in its own managed transaction: its statement, or its statements in order."""
    def write(tx: Any, query: Any, params: dict[str, Any]) -> None:
        for q in (query,) if isinstance(query, str) else query:
            tx.run(q, params).consume()
    with driver.session(database=db) as session:
        for query, params in recorded:
            session.execute_write(write, query, params)


# --------------------------------------------------------------------------- the table

def run_size(size: str, reps: int, plan_limit: int, neo4j_max: int) -> Table:
    """Every question for one size."""
    edges = int(float(size))
    with tempfile.TemporaryDirectory() as tmp:
        inputs = synth_org(edges, Path(tmp))
        rows, graph = build_rows(inputs, reps, "synthetic org")
        table = Table(size=size, edges=graph.nx.number_of_edges(), nodes=graph.nx.number_of_nodes())
        table.rows += rows
        table.rows += analysis_rows(graph, reps, plan_limit)
        table.rows += scale_analysis_rows(edges, reps)
        table.rows += memory_rows(inputs)
        if table.edges <= neo4j_max:
            table.rows += neo4j_rows(graph, reps)
        else:
            table.rows.append(Row("Neo4j sync / bare driver", note=f"skipped: {table.edges} edges > --neo4j-max"))
    return table


def corpus_table(reps: int) -> Table | None:
    """Build from the real workflow corpus (``../shared/corpus/github-actions``) against its bare parse."""
    corpus = ROOT.parent / "shared" / "corpus" / "github-actions"
    if not corpus.is_dir():
        return None
    rows, graph = build_rows({"github-actions": [corpus]}, reps, "real corpus")
    return Table(size="corpus", edges=graph.nx.number_of_edges(), nodes=graph.nx.number_of_nodes(), rows=rows)


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return ""
    if unit != "s":
        return f"{value:.2f} {unit}"
    return f"{value * 1000:.2f} ms" if value < 1 else f"{value:.2f} s"


def render(tables: list[Table], machine: str) -> str:
    """The tables as Markdown."""
    out = [f"Machine: {machine}", ""]
    for t in tables:
        out += [f"### {t.size}: {t.nodes} nodes, {t.edges} edges", "",
                "| question | graphkit | baseline | ratio | bound | note |", "|---|---|---|---|---|---|"]
        for r in t.rows:
            ratio = f"{r.ratio:.2f}x" if r.ratio is not None else ""
            out.append(f"| {r.question} | {_fmt(r.ours, r.unit)} | {_fmt(r.base, r.unit)} | {ratio} | {r.bound} | "
                       f"{r.note} |")
        out.append("")
    return "\n".join(out)


_NODES_LIMIT = "GRAPHKIT_LIMIT_MAX_YAML_NODES"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e4,1e5", help="built edges per synthetic org, comma-separated")
    ap.add_argument("--reps", type=int, default=3, help="runs per timing (median)")
    ap.add_argument("--plan-limit", type=int, default=200_000, help="skip the full plan above this many edges")
    ap.add_argument("--neo4j-max", type=int, default=200_000, help="skip the Neo4j rows above this many edges")
    ap.add_argument("--no-neo4j", action="store_true", help="skip the Neo4j rows (no Bolt server started)")
    ap.add_argument("--no-corpus", action="store_true", help="skip the build from the real corpus")
    ap.add_argument("--markdown", type=Path, help="also write the tables to this file")
    args = ap.parse_args(argv)
    # the synthetic inventory of 10^6 edges (5,000 runners on 3,200 hosts, one file) holds more YAML nodes than the
    # default max_yaml_nodes (graphkit/limits.py): raised here as a user would (GRAPHKIT_LIMIT_*), for this process
    # and the CLI processes it starts; the limit's own cost is measured either way (the counting composer)
    before = os.environ.get(_NODES_LIMIT)
    os.environ.setdefault(_NODES_LIMIT, "20000000")
    try:
        return _run(args)
    finally:  # main() also runs inside the test suite: the limit is this run's, never the process's
        if before is None:
            os.environ.pop(_NODES_LIMIT, None)


def _run(args: argparse.Namespace) -> int:
    machine = f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, {sys.platform}"
    tables = [Table(size="process", rows=[help_row(max(3, args.reps))])]
    if not args.no_corpus and (t := corpus_table(args.reps)) is not None:
        tables.append(t)
    for size in args.sizes.split(","):
        tables.append(run_size(size.strip(), args.reps, args.plan_limit, 0 if args.no_neo4j else args.neo4j_max))
        print(render(tables[-1:], machine), flush=True)
    text = render(tables, machine)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
