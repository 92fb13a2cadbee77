"""GitHub Actions ingest defects found by a fresh-user run, each pinned on real values.

1. two checkouts of one repository (one folder given twice under one name, or ``Acme__App`` beside
   ``acme__app``) are a named problem giving both folders (exit 3), never a silent merge;
2. a job key GitHub refuses (``"a "``, ``"a\\n"``: not a letter or ``_`` then letters, digits, ``-``, ``_``) is a
   named problem at its line, never trimmed into another job;
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from graphkit.cli import EXIT_PARTIAL, app

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "github-actions"
runner = CliRunner()


def _workflow(root: Path, text: str, name: str = "ci.yml") -> Path:
    wf = root / ".github" / "workflows"
    wf.mkdir(parents=True, exist_ok=True)
    (wf / name).write_text(text)
    return root


def _job_reading(secret: str) -> str:
    return ("on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n"
            f"      - run: echo ${{{{ secrets.{secret} }}}}\n")


def _build(tmp_path: Path, *inputs: str):
    out = tmp_path / "g.json"
    args = ["build", "-o", str(out)]
    for i in inputs:
        args += ["--github-actions", i]
    res = runner.invoke(app, args, catch_exceptions=False)
    return res, json.loads(out.read_text())


def _secrets(graph: dict) -> set[str]:
    return {n["id"] for n in graph["nodes"] if n["kind"] == "secret"}


def test_two_checkouts_given_one_name_are_a_named_problem_never_a_silent_merge(tmp_path):
    d1 = _workflow(tmp_path / "d1", _job_reading("FIRST"))
    d2 = _workflow(tmp_path / "d2", _job_reading("SECOND"))
    res, graph = _build(tmp_path, f"acme/app={d1}", f"acme/app={d2}")
    assert res.exit_code == EXIT_PARTIAL == 3
    assert _secrets(graph) == {"secret:acme/app:FIRST"}  # the first is read whole
    [problem] = graph["meta"]["problems"]
    assert problem["file"] == str(d2)
    assert str(d1) in problem["reason"] and "second checkout of repository acme/app" in problem["reason"]


def test_checkouts_differing_only_in_case_are_one_repository_and_a_named_problem(tmp_path):
    _workflow(tmp_path / "orgs" / "Acme__App", _job_reading("FIRST"))
    _workflow(tmp_path / "orgs" / "acme__app", _job_reading("SECOND"))
    res, graph = _build(tmp_path, str(tmp_path / "orgs"))
    assert res.exit_code == 3
    assert _secrets(graph) == {"secret:acme/app:FIRST"}  # sorted: Acme__App first
    [problem] = graph["meta"]["problems"]
    assert problem["file"] == str(tmp_path / "orgs" / "acme__app")
    assert str(tmp_path / "orgs" / "Acme__App") in problem["reason"]


def test_one_folder_given_twice_is_read_once_without_a_problem(tmp_path):
    d1 = _workflow(tmp_path / "d1", _job_reading("FIRST"))
    res, graph = _build(tmp_path, f"acme/app={d1}", f"Acme/App={d1}")
    assert res.exit_code == 0, res.output
    assert _secrets(graph) == {"secret:acme/app:FIRST"} and graph["meta"]["problems"] == []


def test_job_keys_github_refuses_are_named_problems_never_merged_into_a_valid_one(tmp_path):
    text = ('on: push\njobs:\n'
            '  a:\n    runs-on: ubuntu-latest\n    steps: [{run: "echo ${{ secrets.A }}"}]\n'
            '  "a\\n":\n    runs-on: ubuntu-latest\n    steps: [{run: "echo ${{ secrets.B }}"}]\n'
            '  "a ":\n    runs-on: ubuntu-latest\n    steps: [{run: "echo ${{ secrets.C }}"}]\n'
            '  _b-2:\n    runs-on: ubuntu-latest\n    steps: [{run: "echo ${{ secrets.D }}"}]\n')
    root = _workflow(tmp_path / "app", text)
    res, graph = _build(tmp_path, f"acme/app={root}")
    assert res.exit_code == 3
    jobs = {n["id"] for n in graph["nodes"] if n["kind"] == "job"}
    assert jobs == {"job:acme/app/.github/workflows/ci.yml#a", "job:acme/app/.github/workflows/ci.yml#_b-2"}
    assert _secrets(graph) == {"secret:acme/app:A", "secret:acme/app:D"}  # A from a, never C from "a "
    problems = {(p["place"], p["reason"].rsplit("; ", 1)[-1]) for p in graph["meta"]["problems"]}
    assert problems == {("jobs.a\n", "job skipped (line 6)"), ("jobs.a ", "job skipped (line 9)")}
    assert all(p["file"] == str(root / ".github/workflows/ci.yml") and "GitHub refuses the workflow file" in p["reason"]
               for p in graph["meta"]["problems"])
