"""The benchmark suite runs (smallest size) and prints issue 19's table: every question, with a baseline measured in
the same run.  No timing is asserted (timings live in benchmarks/README.md)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import run  # noqa: E402


def test_short_run_prints_the_table(capsys, tmp_path):
    out = tmp_path / "table.md"
    assert run.main(["--sizes", "1e3", "--reps", "1", "--no-neo4j", "--no-corpus", "--markdown", str(out)]) == 0
    text = out.read_text()
    assert text in capsys.readouterr().out
    assert "### 1e3:" in text and "| question | graphkit | baseline | ratio | bound | note |" in text
    for question in ("`graphkit --help` (CPU) / `python -c pass`", "/ bare CSafeLoader parse of its",
                     "/ scipy breadth_first_order", "full revocation plan for one runner / one blast radius",
                     "load a saved graph", "load a saved graph / bare json.loads", "memory of the graph per edge",
                     "retained after a build per edge", "peak RSS of a build from files per built edge", "Neo4j sync"):
        line = next(ln for ln in text.splitlines() if question in ln)
        cells = [c.strip() for c in line.strip("|").split("|")]
        if question != "Neo4j sync":
            assert cells[3].endswith("x"), line  # a ratio against a baseline of this run
    size = next(ln for ln in text.splitlines() if ln.startswith("### 1e3:"))
    assert int(size.split()[-2]) > 100  # built edges


def test_recorded_sync_rows_are_the_unwind_batches():
    from graphkit.build import build_graph
    g = build_graph({"runners": [ROOT / "examples/acme/inventory.yaml"]}).graph
    sent = run._recorded_writes(g)
    # relationships: one MERGE statement a batch; nodes: create the missing, then set properties, in one transaction
    edges = [q for q, _ in sent if isinstance(q, str)]
    nodes = [q for q, _ in sent if not isinstance(q, str)]
    assert edges and all(q.startswith("UNWIND $rows AS row ") and "MERGE" in q for q in edges)
    assert nodes and all(len(q) == 2 and all(s.startswith("UNWIND $rows AS row ") for s in q)
                         and "CREATE" in q[0] and "SET n += row.props" in q[1] for q in nodes)
    assert sum(len(p["rows"]) for _, p in sent) == g.nx.number_of_nodes() + g.nx.number_of_edges()


def test_abba_runs_sync_replay_replay_sync_with_a_reset_before_each():
    log, tick = [], iter(range(100))
    times = run.abba(lambda: log.append("A"), lambda: log.append("B"), lambda: log.append("reset"), 2,
                     clock=lambda: next(tick) ** 2)  # run k (from 0) lasts (2k+1)^2 - (2k)^2 = 4k + 1
    assert log == ["reset", "A", "reset", "B", "reset", "B", "reset", "A"] * 2
    assert times == ([1.0, 13.0, 17.0, 29.0], [5.0, 9.0, 21.0, 25.0])


def test_neo4j_row_ratio_is_from_summed_times_and_note_lists_both_pairs():
    row = run.neo4j_row([2.0, 4.0], [1.5, 1.5], 7, "ArcadeDB")
    assert row.ratio == 2.0  # mean over mean == sum over sum
    assert "7 batches, ArcadeDB" in row.question
    assert row.note == ("rate ratio 0.50 (summed times; order sync, replay, replay, sync: sync 2.00 s, 4.00 s; "
                        "replay 1.50 s, 1.50 s)")


def test_neo4j_rows_on_the_bolt_server(bolt):
    from neo4j_helpers import example_graph
    (row,) = run.neo4j_rows(example_graph(), 1, bolt)
    assert row.ours > 0 and row.base > 0
    assert row.note.startswith(f"rate ratio {row.base / row.ours:.2f} (summed times; order sync, replay, replay, ")
    runs = row.note.split(": ", 1)[1]
    assert runs.count(" s") == 4 and runs.startswith("sync ") and "; replay " in runs
