"""A job matrix past ``max_matrix_combinations`` (README "Limits") is a named problem, never silent.

The workflows are the ones a new user wrote to hit the limit: ``big.yml`` asks for ``runs-on: [self-hosted,
${{ matrix.os }}]`` over 2 x 20^8 combinations, ``big2.yml`` for the literal ``[self-hosted, linux-a]`` over
20^8, ``small.yml`` the same as ``big.yml`` with 2 x 20^2 (within the limit).  The problem names the file, the
place, the count and the limit; the build is partial (exit 3); labels that do not depend on the matrix resolve
exactly, and a ``runs-on`` that does is unknown (routed ``possible`` to every runner and pool it could name),
never empty.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphkit import limits
from graphkit.cli import app
from graphkit.graph import Graph
from graphkit.model import Confidence, EdgeKind, NodeKind
from ingest.github_actions.matrix import expand_matrix, matrix_limit_reason

AXES = "".join(f"        a{i}: [{','.join(f'v{j}' for j in range(20))}]\n" for i in range(8))
BIG = ("on: push\njobs:\n  m:\n    strategy:\n      matrix:\n        os: [linux-a, linux-b]\n" + AXES
       + "    runs-on: [self-hosted, '${{ matrix.os }}']\n    steps:\n      - run: echo\n")
BIG2 = ("on: pull_request\njobs:\n  lit:\n    strategy:\n      matrix:\n" + AXES
        + "    runs-on: [self-hosted, linux-a]\n    steps:\n      - run: echo ${{ secrets.PROD }}\n")
SMALL = BIG.replace("".join(AXES.splitlines(keepends=True)[2:]), "")
INVENTORY = """\
schema: graphkit.runner-inventory/v1
organizations:
  - name: acme
repositories:
  - full_name: acme/mx
    visibility: public
runners:
  - name: prod-1
    scope: acme
    labels: [self-hosted, linux-a]
    ephemeral: false
"""
JOB = "job:acme/mx/.github/workflows/{}.yml#{}"


def _checkout(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        p = root / "acme__mx" / ".github" / "workflows" / f"{name}.yml"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def _build(tmp_path: Path, files: dict[str, str], inventory: bool) -> tuple[int, str, Graph]:
    root = _checkout(tmp_path / "in", files)
    args = ["build", "--github-actions", str(root), "-o", str(tmp_path / "g.json")]
    if inventory:
        (tmp_path / "inv.yaml").write_text(INVENTORY, encoding="utf-8")
        args += ["--runners", str(tmp_path / "inv.yaml")]
    res = CliRunner().invoke(app, args)
    return res.exit_code, " ".join(res.output.split()), Graph.load(tmp_path / "g.json")


def _routes(g: Graph, job_id: str) -> dict[tuple[str, str], Confidence]:
    return {(e.source, e.key): e.confidence for e in g.in_edges(job_id) if e.kind is EdgeKind.RECEIVES_JOB}


def test_the_count_and_the_limit_are_named():
    assert SMALL.count("\n        a") == 2 and BIG.count("\n        a") == 8
    cap = limits.current().max_matrix_combinations
    assert matrix_limit_reason({"os": ["a"] * 2, **{f"a{i}": list(range(20)) for i in range(8)}}) == (
        "refused: a matrix of 51,200,000,000 combinations (9 axes) " + limits.too_many(
            "max_matrix_combinations", cap, "")[len("refused: "):].strip())
    assert matrix_limit_reason({"x": list(range(cap))}) is None and expand_matrix({"x": list(range(cap))})
    assert "4,097 combinations (1 axis)" in matrix_limit_reason({"x": list(range(cap + 1))})
    assert "4,097 include entries" in matrix_limit_reason({"include": [{"x": i} for i in range(cap + 1)]})
    assert "4,097 exclude entries" in matrix_limit_reason({"x": [1], "exclude": [{"x": i} for i in range(cap + 1)]})
    assert matrix_limit_reason("${{ fromJSON(needs.a.outputs.m) }}") is None and matrix_limit_reason(None) is None


@pytest.mark.parametrize("inventory", [True, False])
def test_a_matrix_past_the_limit_is_a_problem_and_routing_stays_sound(tmp_path, inventory):
    code, out, g = _build(tmp_path, {"big": BIG, "big2": BIG2, "small": SMALL}, inventory)
    assert code == 3, out
    cap = limits.current().max_matrix_combinations
    problems = {(Path(p.file).name, p.place): p.reason for p in g.meta.problems}
    assert set(problems) == {("big.yml", "jobs.m.strategy.matrix"), ("big2.yml", "jobs.lit.strategy.matrix")}
    assert problems["big.yml", "jobs.m.strategy.matrix"].startswith(
        f"refused: a matrix of 51,200,000,000 combinations (9 axes) (limit max_matrix_combinations={cap};")
    assert "25,600,000,000 combinations (8 axes)" in problems["big2.yml", "jobs.lit.strategy.matrix"]
    assert all(r.endswith("is left unresolved (line 5)") for r in problems.values())
    assert "big.yml: jobs.m.strategy.matrix: refused: a matrix of 51,200,000,000" in out
    assert g.meta.sources["github-actions"].complete is False
    # a literal runs-on does not depend on the matrix: routed exactly as without one
    lit = g.node(JOB.format("big2", "lit"))
    assert [(c.labels, c.confidence) for c in lit.runs_on] == [(("self-hosted", "linux-a"), Confidence.CERTAIN)]
    assert lit.runs_on_unresolved is None
    pool = "runner:acme/prod-1" if inventory else "runner:inferred:acme:linux-a+self-hosted"
    assert set(_routes(g, lit.id)) == {(pool, "")}
    # a runs-on built from the matrix is unknown: every runner and pool of the owner, possible, never empty; its
    # literal part names self-hosted: a self-hosted runner with those labels (possible) takes it too
    big = g.node(JOB.format("big", "m"))
    assert [(c.labels, c.confidence) for c in big.runs_on] == [(("self-hosted",), Confidence.POSSIBLE)]
    assert big.runs_on_unresolved.yaml_path == "jobs.m.runs-on"
    routes = _routes(g, big.id)
    pools = {n.id for n in g.nodes(NodeKind.RUNNER)}
    assert routes and {r for r, key in routes if key == "unresolved"} == pools
    # the inventory's self-hosted runner; without one, the pool of the literal labels and the pools holding them
    assert {r for r, key in routes if key == ""} == ({"runner:acme/prod-1"} if inventory else {
        "runner:inferred:acme:self-hosted", "runner:inferred:acme:linux-a+self-hosted",
        "runner:inferred:acme:linux-b+self-hosted"})
    assert set(routes.values()) == {Confidence.POSSIBLE}
    # within the limit: every instance's labels
    small = g.node(JOB.format("small", "m"))
    assert {c.labels for c in small.runs_on} == {("self-hosted", "linux-a"), ("self-hosted", "linux-b")}


def test_alone_a_matrix_runs_on_past_the_limit_still_routes(tmp_path):
    code, out, g = _build(tmp_path, {"big": BIG}, inventory=False)
    assert code == 3, out
    # the literal self-hosted of [self-hosted, '${{ matrix.os }}'] makes the pool (a GitHub-hosted runner
    # cannot take the job), and the run-time part routes to it as to every runner and pool of the owner
    assert set(_routes(g, JOB.format("big", "m"))) == {("runner:inferred:acme:self-hosted", "unresolved"),
                                                       ("runner:inferred:acme:self-hosted", "")}


def test_a_matrix_made_past_the_limit_by_a_callers_inputs_is_named(tmp_path, monkeypatch):
    callee = ("on:\n  workflow_call:\n    inputs:\n      arches: {type: string, default: '[\"x64\"]'}\n"
              "jobs:\n  build:\n    strategy:\n      matrix:\n        arch: ${{ fromJSON(inputs.arches) }}\n"
              "    runs-on: [self-hosted, '${{ matrix.arch }}']\n    steps: [{run: make}]\n")
    caller = ("on: push\njobs:\n  call:\n    uses: ./.github/workflows/lib.yml\n"
              "    with: {arches: '" + json.dumps([f"a{i}" for i in range(5)]) + "'}\n")
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_MATRIX_COMBINATIONS", "4")
    code, out, g = _build(tmp_path, {"lib": callee, "ci": caller}, inventory=False)
    assert code == 3, out
    assert [(p.file, p.place) for p in g.meta.problems] == [("acme/mx/.github/workflows/lib.yml",
                                                              "jobs.build.strategy.matrix")]
    assert "a matrix of 5 combinations (1 axis) (limit max_matrix_combinations=4;" in g.meta.problems[0].reason
    assert g.meta.problems[0].reason.endswith("(from the caller's inputs; line 8)")
    called = g.node("job:acme/mx/.github/workflows/ci.yml#call>acme/mx/.github/workflows/lib.yml#build")
    assert [c.labels for c in called.runs_on] == [("self-hosted",)] and called.runs_on_unresolved is not None
