"""Bad input: a clear error naming file, place and line, and nothing else lost.

Standard: one malformed workflow (or job, or inventory entry) never stops the
others, and a scope that could not be read is unknown, never empty.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphkit.errors import InputError
from graphkit.model import NodeKind
from ingest import runner_inventory as ri
from ingest.github_actions import INGESTOR, find_checkouts, parse_action, parse_workflow, to_graph


def _write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def _msgs(problems) -> list[str]:
    return [str(p) for p in problems]


# ============================================================================ GitHub Actions: paths


def test_dir_without_workflows_or_actions_is_one_problem_and_no_local_nodes(tmp_path: Path):
    empty = tmp_path / "empty"
    empty.mkdir()
    res = INGESTOR.ingest([empty])
    assert _msgs(res.problems) == [f"{empty}: no .github/workflows/*.yml|yaml or action.yml found under {empty}"]
    assert (res.problems[0].file, res.problems[0].place) == (str(empty), "")
    assert res.nodes == [] and res.edges == [] and res.items == 0 and not res.complete


def test_checkout_without_workflow_files_among_good_ones(tmp_path: Path):
    bare = tmp_path / "repos" / "acme__bare"
    _write(bare, ".github/dependabot.yml", "version: 2\n")  # a checkout, but nothing GitHub Actions runs
    _write(tmp_path / "repos" / "acme__app", ".github/workflows/ci.yml", "on: push\njobs: {a: {runs-on: x}}\n")
    plain = tmp_path / "plain"
    _write(plain, "README.md", "hi\n")
    res = INGESTOR.ingest([tmp_path / "repos", f"given/name={plain}"])
    assert _msgs(res.problems) == [
        f"{bare}: no .github/workflows/*.yml|yaml or action.yml found under {bare}",
        f"{plain}: no .github/workflows/*.yml|yaml or action.yml found under {plain}"]
    ids = {n.id for n in res.nodes}
    assert "job:acme/app/.github/workflows/ci.yml#a" in ids
    assert {i for i in ids if i.startswith(("org:", "repo:"))} == {"org:acme", "repo:acme/app"}


def test_real_checkout_without_owner_info_is_local(tmp_path: Path):
    _write(tmp_path / "plain", ".github/workflows/a.yml", "on: push\njobs: {a: {runs-on: x}}\n")
    res = INGESTOR.ingest([tmp_path / "plain"])
    assert res.problems == []
    assert {"org:local", "repo:local/plain"} <= {n.id for n in res.nodes}


def test_nonexistent_path_is_a_problem_and_creates_nothing(tmp_path: Path):
    missing = tmp_path / "missing"
    res = INGESTOR.ingest([missing, f"acme/app={tmp_path / 'nope'}"])
    assert [(p.file, p.place, p.reason) for p in res.problems] == [
        (str(missing), "", "no such directory"), (str(tmp_path / "nope"), "", "no such directory")]
    assert res.nodes == [] and res.edges == []
    found, problems = find_checkouts([missing])
    assert found == [] and len(problems) == 1


# ============================================================================ GitHub Actions: one malformed job

WF = """\
on: push
jobs:
  good:
    runs-on: ubuntu-latest
    steps:
      - run: echo ${{ secrets.GOOD }}
  notmap: [a, b]
  badsteps:
    runs-on: linux
    steps: 5
  badstep:
    runs-on: linux
    steps:
      - 5
      - run: echo ${{ secrets.KEPT }}
  num:
    runs-on: 42
  mixed:
    runs-on: [self-hosted, 42, true]
  perms:
    runs-on: linux
    permissions: {contents: admin}
"""


def test_malformed_jobs_are_reported_with_path_and_line_and_the_rest_kept(tmp_path: Path):
    co = tmp_path / "acme__app"
    f = _write(co, ".github/workflows/ci.yml", WF)
    res = INGESTOR.ingest([co])
    assert _msgs(res.problems) == [
        f"{f}: jobs.notmap: expected a mapping, got sequence; job skipped (line 7)",
        f"{f}: jobs.badsteps.steps: steps must be a sequence, got int; steps skipped (line 10)",
        f"{f}: jobs.badstep.steps[0]: expected a mapping, got int; step skipped (line 14)",
        f"{f}: jobs.num.runs-on: expected a runner label, a list of labels or a mapping (group, labels), "
        "got int 42; runs-on left unresolved (line 17)",
        f"{f}: jobs.mixed.runs-on[1]: runner label must be a string, got int 42; runs-on left unresolved (line 19)",
        f"{f}: jobs.mixed.runs-on[2]: runner label must be a string, got bool true; runs-on left unresolved (line 19)",
        f"{f}: jobs.perms.permissions.contents: invalid permission level 'admin'; job skipped (line 22)",
    ]
    assert all(p.file == str(f) for p in res.problems) and not res.complete
    jobs = {n.job_key: n for n in res.nodes if n.spec.kind is NodeKind.JOB}
    assert set(jobs) == {"good", "badsteps", "badstep", "num", "mixed"}
    assert [c.labels for c in jobs["good"].runs_on] == [("ubuntu-latest",)]
    assert [c.labels for c in jobs["badsteps"].runs_on] == [("linux",)]
    assert [r.name for r in jobs["badstep"].secret_refs] == ["KEPT"]  # the good step is kept
    for key, line in (("num", 17), ("mixed", 19)):  # kept, runs-on unknown (not "no runner")
        assert jobs[key].runs_on == []
        assert (jobs[key].runs_on_unresolved.yaml_path, jobs[key].runs_on_unresolved.line) == (
            f"jobs.{key}.runs-on", line)


def test_parse_workflow_keeps_problems_and_to_graph_reports_them():
    wf = parse_workflow(WF, file=".github/workflows/ci.yml", repository="acme/app")
    assert list(wf.jobs) == ["good", "badsteps", "badstep", "num", "mixed"]
    assert [(p.file, p.place) for p in wf.problems] == [
        (".github/workflows/ci.yml", "jobs.notmap"), (".github/workflows/ci.yml", "jobs.badsteps.steps"),
        (".github/workflows/ci.yml", "jobs.badstep.steps[0]"), (".github/workflows/ci.yml", "jobs.num.runs-on"),
        (".github/workflows/ci.yml", "jobs.mixed.runs-on[1]"), (".github/workflows/ci.yml", "jobs.mixed.runs-on[2]"),
        (".github/workflows/ci.yml", "jobs.perms.permissions.contents")]
    assert to_graph([wf]).problems == list(wf.problems)  # nothing silently dropped by the pure API either


def test_malformed_composite_step_is_skipped():
    act = parse_action("name: t\nruns:\n  using: composite\n  steps:\n    - run: echo a\n    - [oops]\n",
                       file="act/action.yml", repository="acme/app")
    assert [s.run for s in act.steps] == ["echo a"]
    assert _msgs(act.problems) == ["act/action.yml: runs.steps[1]: expected a mapping, got sequence; "
                                   "step skipped (line 6)"]


# ============================================================================ GitHub Actions: shape errors carry lines


@pytest.mark.parametrize("text, message", [
    ("on: push\njobs: [a, b]\n", "w.yml: jobs: expected a mapping, got sequence (line 2)"),
    ("on: push\njobs:\n  - a\n", "w.yml: jobs: expected a mapping, got sequence (line 2)"),
    ("on: push\nname: {a: 1}\njobs: {}\n", "w.yml: name: expected a scalar, got mapping (line 2)"),
    ("on: push\nenv: 5\njobs: {}\n", "w.yml: env: expected a mapping, got int (line 2)"),
    ("on: 5\njobs: {}\n", "w.yml: on: expected an event name, a list or a mapping, got int (line 1)"),
    ("on: push\npermissions:\n  contents: admin\njobs: {}\n",
     "w.yml: permissions.contents: invalid permission level 'admin' (line 3)"),
    ("jobs: {}\n", "w.yml: on: no triggers (`on:` missing)"),  # not in the file: no line to give
])
def test_file_level_shape_errors_name_the_line(text, message):
    with pytest.raises(InputError) as info:
        parse_workflow(text, file="w.yml", repository="acme/app")
    assert str(info.value) == message


def test_file_level_shape_error_does_not_stop_other_files(tmp_path: Path):
    co = tmp_path / "acme__app"
    bad = _write(co, ".github/workflows/bad.yml", "on: push\njobs:\n  - a\n")
    _write(co, ".github/workflows/ok.yml", "on: push\njobs: {b: {runs-on: x}}\n")
    res = INGESTOR.ingest([co])
    assert _msgs(res.problems) == [f"{bad}: jobs: expected a mapping, got sequence (line 2)"]
    assert [n.id for n in res.nodes if n.spec.kind is NodeKind.JOB] == ["job:acme/app/.github/workflows/ok.yml#b"]


# ============================================================================ runner inventory: entry by entry

INV = """\
schema: graphkit.runner-inventory/v1
organizations:
  - name: acme
    runner_groups: [{name: g, visibility: sometimes}]
  - name: other
repositories:
  - full_name: acme/app
  - visibility: private
  - {full_name: acme/x, secrets: [A, 5]}
hosts:
  - name: h1
    credentials:
      - {credential_type: aws, path: x, grants: [{access: assumes_role, target: 'repo:acme/app'}]}
  - name: h2
    ephemeral: maybe
  - name: h3
runners:
  - {name: r1, labels: [linux], scope: acme}
  - {name: r2, labels: [linux, 5], scope: acme}
  - {name: r3, labels: [{nam: gpu}], scope: acme}
  - name: r4
    labels: [x]
    scope: acme
    runnner_group: foo
  - {name: r5, labels: [linux], scope: acme, host: h3}
runnerz: []
self_hosted_labels: [big, 7]
"""


def test_inventory_bad_entries_are_reported_and_the_others_ingested(tmp_path: Path):
    f = _write(tmp_path, "inventory.yaml", INV)
    res = ri.INGESTOR.ingest([f])
    assert _msgs(res.problems) == [
        f"{f}: organizations[0].runner_groups[0].visibility: Input should be 'all', 'selected' or 'private' (line 4)",
        f"{f}: repositories[1].full_name: required field missing (line 8)",  # the line of its entry
        f"{f}: repositories[2].secrets[1]: Input should be a valid string (line 9)",
        f"{f}: hosts[0].credentials[0].grants[0].access: assumes_role cannot point to a repository "
        "(repo:acme/app) (line 13)",
        f"{f}: hosts[1].ephemeral: Input should be a valid boolean, unable to interpret input (line 15)",
        f"{f}: runners[1].labels[1]: Input should be a valid string or Input should be a valid dictionary or "
        "instance of RunnerLabel (line 19)",
        f"{f}: runners[2].labels[0].name: required field missing (line 20)",
        f"{f}: runners[2].labels[0].nam: unknown field (did you mean 'name'?) (line 20)",
        f"{f}: runners[3].runnner_group: unknown field (did you mean 'runner_group'?) (line 24)",
        f"{f}: runnerz: unknown field (did you mean 'runners'?) (line 26)",
        f"{f}: self_hosted_labels[1]: Input should be a valid string (line 27)",
    ]
    for p in res.problems:  # the place is said once, by InputError, not again in the reason
        assert p.file == str(f) and p.place not in p.reason
    ids = {n.id for n in res.nodes}
    assert {i for i in ids if i.startswith("runner:")} == {"runner:acme/r1", "runner:acme/r5"}
    assert {i for i in ids if i.startswith("host:")} == {"host:h3"}
    assert {i for i in ids if i.startswith("repo:")} == {"repo:acme/app"}
    assert "org:other" in ids and "runner_group:acme/g" not in ids
    assert res.meta["runner_inventory"].self_hosted_labels == ["big"]
    assert res.items == 1 and not res.complete


def test_inventory_parse_returns_entry_problems():
    parsed = ri.parse("schema: graphkit.runner-inventory/v1\nrunners:\n  - {name: a, labels: [x], scope: acme}\n"
                      "  - {name: b, labels: [x], scope: acme, runner_grop: g}\n", "inv.yaml")
    assert [r.name for r in parsed.inventory.runners] == ["a"]
    assert _msgs(parsed.problems) == [
        "inv.yaml: runners[1].runner_grop: unknown field (did you mean 'runner_group'?) (line 4)"]


def test_inventory_section_of_the_wrong_type(tmp_path: Path):
    f = _write(tmp_path, "inv.yaml", "schema: graphkit.runner-inventory/v1\nrunners: {name: a}\n"
                                     "hosts: [{name: h}]\n")
    res = ri.INGESTOR.ingest([f])
    assert _msgs(res.problems) == [f"{f}: runners: expected a list, got mapping (line 2)"]
    assert [n.id for n in res.nodes] == ["host:h"]


@pytest.mark.parametrize("text, message", [
    ("- a list\n", "expected a mapping with 'schema: graphkit.runner-inventory/v1', got list"),
    ("schema: graphkit.runner-inventory/v2\nrunners: []\n",
     "schema: expected 'graphkit.runner-inventory/v1', got 'graphkit.runner-inventory/v2'"),
    ("runners: []\n", "schema: expected 'graphkit.runner-inventory/v1', got None"),
])
def test_inventory_top_level_problems_reject_the_file(tmp_path: Path, text, message):
    f = _write(tmp_path, "inv.yaml", text)
    good = _write(tmp_path, "good.yaml", "schema: graphkit.runner-inventory/v1\nhosts: [{name: h}]\n")
    res = ri.INGESTOR.ingest([f, good])
    assert _msgs(res.problems) == [f"{f}: {message}"]
    assert [n.id for n in res.nodes] == ["host:h"]  # the other file is still read
