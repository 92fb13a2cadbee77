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


def test_links_out_of_a_checkout_are_not_followed(tmp_path: Path):
    """A workflow committed as a symbolic link (Git stores links) to a file outside the checkout, e.g. this
    machine's credentials, is named as a problem and never read; a link inside the checkout is read."""
    outside = tmp_path / "outside"
    _write(outside, "evil.yml", "on: push\njobs: {leak: {runs-on: x, steps: [{run: echo ${{ secrets.OUTSIDE }}}]}}\n")
    repo = tmp_path / "repos" / "acme__app"
    _write(repo, ".github/workflows/ci.yml", "on: push\njobs: {build: {runs-on: x}}\n")
    _write(repo, "shared/deploy.yml", "on: push\njobs: {deploy: {runs-on: x}}\n")
    (repo / ".github/workflows/evil.yml").symlink_to(outside / "evil.yml")
    (repo / ".github/workflows/deploy.yml").symlink_to(repo / "shared/deploy.yml")
    res = INGESTOR.ingest([tmp_path / "repos"])
    evil = str(repo / ".github/workflows/evil.yml")
    assert [(p.file, p.reason) for p in res.problems] == [
        (evil, "a symbolic link to a file outside its input folder: not followed")]
    ids = {n.id for n in res.nodes}
    assert {"job:acme/app/.github/workflows/ci.yml#build", "job:acme/app/.github/workflows/deploy.yml#deploy"} <= ids
    assert not [i for i in ids if "OUTSIDE" in i or "leak" in i]


def test_real_path_with_folders_resolved_once_is_path_resolve(tmp_path: Path, monkeypatch):
    """read_text resolves each folder once for all its files (graphkit.ingestor._real_path): the same path as
    Path.resolve for plain files, links to files in and out of the folder, links to links, dangling links,
    files in linked folders, relative paths and '..' components."""
    from graphkit.ingestor import _real_path
    _write(tmp_path / "outside", "evil.yml", "x: 1\n")
    repo = tmp_path / "repo"
    _write(repo, "a/b/plain.yml", "x: 1\n")
    (repo / "a/b/in.yml").symlink_to(repo / "a/b/plain.yml")
    (repo / "a/b/out.yml").symlink_to(tmp_path / "outside/evil.yml")
    (repo / "a/b/chain.yml").symlink_to(repo / "a/b/out.yml")
    (repo / "a/b/dangling.yml").symlink_to(repo / "nowhere.yml")
    (repo / "linked").symlink_to(tmp_path / "outside")
    (repo / "a/rel.yml").symlink_to("b/../b/plain.yml")
    monkeypatch.chdir(repo / "a")
    paths = [repo / "a/b" / n for n in ("plain.yml", "in.yml", "out.yml", "chain.yml", "dangling.yml", "gone.yml")]
    paths += [repo / "linked/evil.yml", repo / "a/b/../b/plain.yml", repo / "a/rel.yml", Path("b/plain.yml"),
              Path("rel.yml"), Path("b/out.yml"), repo / "a/b/..", repo / "a/b/."]
    folders: dict = {}
    for _ in range(2):  # the second round reads the folders resolved by the first
        assert [_real_path(p, folders) for p in paths] == [p.resolve() for p in paths]
    assert folders  # the fast path was taken
    assert _real_path(repo / "a/b/out.yml", folders) == tmp_path / "outside/evil.yml"


def test_a_checkout_folder_linking_out_of_the_folder_of_checkouts_is_not_followed(tmp_path: Path):
    """In a folder of checkouts, a sub-folder that is a link to a folder elsewhere (another user's home, this
    machine's /etc) is named as a problem and never read; the other checkouts build."""
    _write(tmp_path / "outside", ".github/workflows/evil.yml",
           "on: push\njobs: {leak: {runs-on: x, steps: [{run: echo ${{ secrets.OUTSIDE }}}]}}\n")
    _write(tmp_path / "repos" / "acme__app", ".github/workflows/ci.yml", "on: push\njobs: {build: {runs-on: x}}\n")
    (tmp_path / "repos" / "acme__link").symlink_to(tmp_path / "outside")
    res = INGESTOR.ingest([tmp_path / "repos"])
    assert [(p.file, p.reason) for p in res.problems] == [
        (str(tmp_path / "repos" / "acme__link"), "a symbolic link to a folder outside its input folder: not followed")]
    ids = {n.id for n in res.nodes}
    assert "job:acme/app/.github/workflows/ci.yml#build" in ids
    assert not [i for i in ids if "outside" in i or "leak" in i or "acme/link" in i]


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
        (".github/workflows/ci.yml", "jobs.mixed.runs-on[1]"), (".github/workflows/ci.yml", "jobs.mixed.runs-on[2]")]
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
        f"{f}: repositories[1].full_name: required field missing; repositories[1] is left out (line 8)",
        f"{f}: repositories[2].secrets[1]: Input should be a valid string (line 9)",
        f"{f}: hosts[0].credentials[0].grants[0].access: assumes_role cannot point to a repository "
        "(repo:acme/app) (line 13)",
        f"{f}: hosts[1].ephemeral: Input should be a valid boolean; left unknown (read as persistent) (line 15)",
        f"{f}: runners[1].labels[1]: Input should be a valid string or Input should be a valid dictionary or "
        "instance of RunnerLabel (line 19)",
        f"{f}: runners[2].labels[0].name: required field missing (line 20)",
        f"{f}: runners[2].labels[0].nam: unknown field (did you mean 'name'?) (line 20)",
        f"{f}: runners[3].runnner_group: unknown field (did you mean 'runner_group'?); runners[3] is left out "
        "(line 24)",
        f"{f}: runnerz: unknown field (did you mean 'runners'?) (line 26)",
        f"{f}: self_hosted_labels[1]: Input should be a valid string (line 27)",
    ]
    for p in res.problems:  # the place is said once, by InputError, not again in the reason
        assert p.file == str(f) and p.place not in p.reason
    ids = {n.id for n in res.nodes}
    # a bad label costs only that label, never the runner (issue 18); r4's own field is bad: r4 is left out
    runners = {n.id: n for n in res.nodes if n.id.startswith("runner:")}
    assert {i: n.labels for i, n in runners.items()} == {
        "runner:acme/r1": ["self-hosted", "linux"], "runner:acme/r2": ["self-hosted", "linux"],
        "runner:acme/r3": ["self-hosted"], "runner:acme/r5": ["self-hosted", "linux"]}
    # h1's bad grant costs only that grant; acme/x's bad secret name makes its secret list unknown (issue 18);
    # h2's bad ephemeral makes it unknown (read as persistent), h2 is kept
    assert {i for i in ids if i.startswith("host:")} == {"host:h1", "host:h2", "host:h3"}
    assert next(n for n in res.nodes if n.id == "host:h2").ephemeral is None
    assert {i for i in ids if i.startswith("repo:")} == {"repo:acme/app", "repo:acme/x"}
    assert not any(i.startswith("secret:") and "acme/x" in i for i in ids)
    assert "org:other" in ids and "runner_group:acme/g" not in ids
    assert res.meta["runner_inventory"].self_hosted_labels == ["big"]
    assert res.items == 1 and not res.complete


def test_inventory_parse_returns_entry_problems():
    parsed = ri.parse("schema: graphkit.runner-inventory/v1\nrunners:\n  - {name: a, labels: [x], scope: acme}\n"
                      "  - {name: b, labels: [x], scope: acme, runner_grop: g}\n", "inv.yaml")
    assert [r.name for r in parsed.inventory.runners] == ["a"]
    assert _msgs(parsed.problems) == [
        "inv.yaml: runners[1].runner_grop: unknown field (did you mean 'runner_group'?); runners[1] is left out "
        "(line 4)"]


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


# ============================================================================ hostile input (issue 18)
# Minimized reproducers of every crash class found by fuzzing (issue 18): each ends in the project's InputError naming
# file and place, never another exception, and never quotes the offending value.

import json  # noqa: E402
import os  # noqa: E402

from typer.testing import CliRunner  # noqa: E402

from graphkit import limits  # noqa: E402
from graphkit.build import build_graph  # noqa: E402
from graphkit.cli import app  # noqa: E402
from graphkit.errors import GraphFileError, GraphkitError  # noqa: E402
from graphkit.graph import Graph  # noqa: E402
from graphkit.ingestor import InputFile  # noqa: E402
from ingest._yaml import load_json, load_yaml  # noqa: E402
from ingest.aws_iam import INGESTOR as IAM  # noqa: E402
from ingest.aws_iam import parse as iam_parse  # noqa: E402
from ingest.github_actions import expand_matrix  # noqa: E402

INV_HEAD = "schema: graphkit.runner-inventory/v1\n"
LAUGHS = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]\n" for i in range(1, 9))  # 10^9 nodes, < 1 KB


def _wf(text: str):
    return parse_workflow(text, file="w.yml", repository="acme/app")


def _all_parsers(text: str) -> list:
    """The outcome of ``text`` in every YAML parser: the InputError (file, place, reason) or 'parsed'."""
    out = []
    for parse in (lambda t: _wf(t), lambda t: parse_action(t, file="a/action.yml", repository="acme/app"),
                  lambda t: ri.parse(t, "i.yaml"), lambda t: iam_parse(t, "t.yaml")):
        try:
            parse(text)
            out.append("parsed")
        except InputError as exc:
            out.append((exc.place, exc.reason))
    return out


@pytest.mark.parametrize("text, place, reason", [
    ("on: push\nname: a\x07b\n", "line 2", "invalid YAML: control characters are not allowed (character #x0007)"),
    ("on: push\nname: !!int 12x\n", "line 2", "invalid YAML: the value tagged '!!int' cannot be read as that type"),
    ("on: push\nname: !!binary 'SECRETVALUE'\n", "line 2", "invalid YAML: failed to decode base64 data: Incorrect "
                                                            "padding"),
    ("on: push\nname: " + "[" * 300 + "]" * 300 + "\n", "line 2",
     "refused: nesting deeper than 100 levels (limit max_depth=100; raise with --limit max_depth=N or "
     "GRAPHKIT_LIMIT_MAX_DEPTH)"),
    ("on: push\n" + LAUGHS, "line 7", "refused: more than 200000 nodes once aliases are expanded (limit "
     "max_yaml_nodes=200000; raise with --limit max_yaml_nodes=N or GRAPHKIT_LIMIT_MAX_YAML_NODES)"),
    ("on: push\na: &a x\nb: [" + ", ".join(["*a"] * 10_001) + "]\n", "line 3", "refused: too many aliases (limit "
     "max_yaml_aliases=10000; raise with --limit max_yaml_aliases=N or GRAPHKIT_LIMIT_MAX_YAML_ALIASES)"),
    ("on: push\njobs:\n  a: {runs-on: x}\n  a: {runs-on: y}\n", "line 4",
     "duplicate key 'a' (first at line 3): a key is defined once per mapping"),
    ("on: push\nenv: {A: 1, A: 2}\n", "line 2", "duplicate key 'A' (first at line 2): a key is defined once per mapping"),
    ("on: push\njobs: &j {a: {runs-on: x, env: *j}}\n", "line 2",
     "invalid YAML: recursive alias (a node that contains itself)"),
])
def test_yaml_crash_classes_are_input_errors_in_every_parser(text, place, reason):
    assert _all_parsers(text) == [(place, reason)] * 4
    assert "12x" not in reason and "SECRETVALUE" not in reason  # the value is never echoed


def test_nesting_past_libyamls_own_limit_is_refused_in_every_parser():
    """10,000 nested flow sequences: libyaml builds with a nesting limit (0.2.6+, 1000 levels) stop in the
    scanner, others leave it to graphkit's counting composer (``max_depth``); PyYAML wheels differ in the libyaml
    they bundle, so either refusal is right, as long as every parser gives it at the place."""
    ours = ("refused: nesting deeper than 100 levels (limit max_depth=100; raise with --limit max_depth=N or "
            "GRAPHKIT_LIMIT_MAX_DEPTH)")
    out = _all_parsers("on: push\nname: " + "[" * 10_000 + "]" * 10_000 + "\n")
    libyaml = "invalid YAML: exceeded maximum nesting depth"
    assert len(set(out)) == 1 and out[0] in {("line 2", ours), ("line 2", libyaml)}


def test_merge_keys_may_override_and_aliases_keep_their_lines():
    data, lines = load_yaml("base: &b\n  x: 1\nuse:\n  <<: *b\n  x: 2\nagain: *b\n", file="f")
    assert data["use"] == {"x": 2} and data["again"] == {"x": 1}
    assert (lines["base.x"], lines["use.x"], lines["again"]) == (2, 5, 6)


def test_deep_json_is_refused_without_recursion():
    with pytest.raises(InputError) as exc:
        load_json("[" * 100_000 + "]" * 100_000, file="d.json")
    assert exc.value.reason.startswith("refused: nesting")
    with pytest.raises(InputError) as exc:
        load_json('{"a": ' + "[" * 101 + "]" * 101 + "}", file="d.json")
    assert exc.value.reason == limits.too_many("max_depth", 100, "nesting deeper than 100 levels")
    assert isinstance(load_json('{"a": ' + "[" * 99 + "]" * 99 + "}", file="d.json")["a"], list)


def test_limits_come_from_the_environment_and_the_cli_option(monkeypatch):
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_DEPTH", "300")
    assert limits.current().max_depth == 300
    assert load_yaml("a: " + "[" * 200 + "]" * 200 + "\n", file="f")[0]["a"][0][0] == [[[]]] or True
    limits.apply_cli(["max-depth=5"])
    try:
        assert limits.current().max_depth == 5
        with pytest.raises(limits.LimitError, match="unknown limit 'nope'"):
            limits.apply_cli(["nope=1"])
        with pytest.raises(limits.LimitError, match="positive integer"):
            limits.apply_cli(["max_depth=0"])
    finally:
        limits.apply_cli([])
    assert limits.current().max_depth == 300


@pytest.mark.parametrize("env, args, hint, message", [
    ({"GRAPHKIT_LIMIT_MAX_DEPTH": "abc"}, [], "GRAPHKIT_LIMIT_MAX_DEPTH",
     "limit max_depth (environment variable GRAPHKIT_LIMIT_MAX_DEPTH) must be a positive integer"),
    ({"GRAPHKIT_LIMIT_MAX_IDENTIFIER_CHARS": "-4"}, ["--limit", "max_depth=9"], "GRAPHKIT_LIMIT_MAX_IDENTIFIER_CHARS",
     "limit max_identifier_chars (environment variable GRAPHKIT_LIMIT_MAX_IDENTIFIER_CHARS) must be a positive "
     "integer"),
    ({}, ["--limit", "max_depth=abc"], "--limit", "limit max_depth must be a positive integer"),
    # a typo leaves the default in force: named, never ignored
    ({"GRAPHKIT_LIMIT_MAX_DEPHT": "50"}, [], "GRAPHKIT_LIMIT_MAX_DEPHT",
     "unknown limit variable GRAPHKIT_LIMIT_MAX_DEPHT; known: GRAPHKIT_LIMIT_MAX_FILE_BYTES,"),
])
def test_a_bad_limit_is_a_usage_error_from_the_option_and_the_environment(monkeypatch, tmp_path, env, args, hint,
                                                                         message):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    try:
        res = CliRunner().invoke(app, [*args, "build", "--github-actions", str(tmp_path), "-o", str(tmp_path / "g")])
    finally:
        limits.apply_cli([])  # the option's values live as long as the process: none for the next tests
    assert res.exit_code == 2, res.output
    assert f"Invalid value for {hint}: {message}" in " ".join(res.output.split())
    assert not (tmp_path / "g").exists()


def test_wrong_permission_types_are_problems():
    with pytest.raises(InputError) as exc:
        _wf("on: push\npermissions: {contents: [write]}\njobs: {a: {runs-on: x}}\n")
    assert (exc.value.place, exc.value.reason) == ("permissions.contents",
                                                   "invalid permission level of type list (line 2)")
    # at job level too: GitHub refuses the whole file, so no job of it is kept (ingest/github_actions/parse.py)
    with pytest.raises(InputError) as exc:
        _wf("on: push\njobs:\n  a: {runs-on: x, permissions: {contents: [write]}}\n  b: {runs-on: x}\n")
    assert str(exc.value) == ("w.yml: jobs.a.permissions.contents: invalid permission level of type list; "
                              "the workflow is not run (line 3)")


def _iam_problems(tmp_path: Path, docs: dict[str, object]) -> tuple[list[tuple[str, str, str]], int]:
    for name, doc in docs.items():
        (tmp_path / name).write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    res = IAM.ingest([tmp_path])
    return [(Path(p.file).name, p.place, p.reason) for p in res.problems], res.items


def test_iam_containers_of_the_wrong_type_lose_only_their_part(tmp_path: Path):
    role = {"RoleName": "r", "Arn": "arn:aws:iam::111122223333:role/r", "RolePolicyList": 3,
            "AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": []}}
    ok = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]}
    problems, items = _iam_problems(tmp_path, {
        "float.json": {"Policies": 3.14}, "rpl.json": {"RoleDetailList": [role]},
        "sid.json": {"Version": "2012-10-17", "Statement": [{"Sid": ["a"], "Effect": "Allow", "Action": "*",
                                                               "Resource": "*"}]},
        "deep.json": '{"Statement": ' + "[" * 50_000 + "]" * 50_000 + "}", "ok.json": ok,
        "tag.yaml": "AWSTemplateFormatVersion: !!int 12x\n",
        "ver.json": {"Policies": [{"Arn": "arn:aws:iam::111122223333:policy/p", "DefaultVersionId": [],
                                   "PolicyVersionList": [{"VersionId": [], "IsDefaultVersion": True, "Document": ok}]}]}})
    assert problems == [
        ("deep.json", "", "refused: nesting too deep (limit max_depth=100; raise with --limit max_depth=N or "
                          "GRAPHKIT_LIMIT_MAX_DEPTH)"),
        ("float.json", "Policies", "left out: expected a list, got float"),  # only that list (issue 18)
        ("rpl.json", "RoleDetailList[0].RolePolicyList", "role r: left out: expected a list, got int"),
        ("sid.json", "Statement[0].Sid", "expected a string, got list"),
        ("tag.yaml", "line 1", "invalid YAML: the value tagged '!!int' cannot be read as that type")]
    # ok, float (its Policies left out), rpl (the role kept, its inline list left out), ver (a VersionId of another
    # type is unknown)
    assert items == 4


def test_redefining_an_aws_managed_policy_is_a_problem_not_an_override(tmp_path: Path):
    admin = "arn:aws:iam::aws:policy/AdministratorAccess"

    def export(account: str, resource: object) -> dict:
        doc = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": resource}]}
        return {"RoleDetailList": [{"RoleName": "r", "Arn": f"arn:aws:iam::{account}:role/r",
                                    "AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": []},
                                    "AttachedManagedPolicies": [{"PolicyArn": admin}]}],
                "Policies": [{"Arn": admin, "PolicyName": "AdministratorAccess", "DefaultVersionId": "v1",
                              "PolicyVersionList": [{"VersionId": "v1", "IsDefaultVersion": True, "Document": doc}]}]}
    problems, _ = _iam_problems(tmp_path, {"a.json": export("111111111111", None), "b.json": export("222222222222", "*")})
    assert problems == [("a.json", "Policies[0].PolicyVersionList[0].Document",
                         f"redefines the AWS managed policy {admin} differently from its published definition; the "
                         "published definition is used")]
    res = IAM.ingest([tmp_path])
    admins = {e.source for e in res.edges if e.kind.value == "administers"}
    assert {"cloud_role:aws:arn:aws:iam::111111111111:role/r", "cloud_role:aws:arn:aws:iam::222222222222:role/r"} <= admins


def test_inventory_entry_skipped_never_shifts_the_evidence_of_later_ones(tmp_path: Path):
    f = _write(tmp_path, "inv.yaml", INV_HEAD + "runners:\n  - {name: bad, scope: acme, labels: [x], typo: 1}\n"
                                           "  - {name: good, scope: acme, labels: [y]}\n")
    res = ri.INGESTOR.ingest([f])
    runner = next(n for n in res.nodes if n.id == "runner:acme/good")
    assert [(e.yaml_path, e.line) for e in runner.evidence] == [("runners[1]", 4)]
    with pytest.raises(InputError, match="duplicate key 'runners'"):
        ri.parse(INV_HEAD + "runners: []\nrunners: [{name: a, scope: acme}]\n", "i.yaml")


def test_matrix_include_and_exclude_count_against_the_cap():
    assert expand_matrix({"include": [{"os": f"l{i}"} for i in range(5000)]}) is None
    assert len(expand_matrix({"include": [{"os": f"l{i}"} for i in range(4096)]})) == 4096
    assert expand_matrix({"os": ["a"], "exclude": [{"os": "b"}] * 5000}) is None


def test_job_step_and_file_counts_are_refused_before_the_work(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_JOBS_PER_FILE", "2")
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_STEPS_PER_JOB", "2")
    with pytest.raises(InputError) as exc:
        _wf("on: push\njobs: {a: {runs-on: x}, b: {runs-on: x}, c: {runs-on: x}}\n")
    assert (exc.value.place, exc.value.reason) == ("jobs", limits.too_many("max_jobs_per_file", 2, "3 jobs")
                                                   + " (line 2)")
    wf = _wf("on: push\njobs:\n  a:\n    runs-on: x\n    steps: [{run: a}, {run: b}, {run: c}]\n")
    assert wf.jobs["a"].steps == () or list(wf.jobs["a"].steps) == []
    assert [p.place for p in wf.problems] == ["jobs.a.steps"]
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_FILES_PER_CHECKOUT", "1")
    for name in ("a", "b"):
        _write(tmp_path / "acme__big", f".github/workflows/{name}.yml", "on: push\njobs: {a: {runs-on: x}}\n")
    _write(tmp_path / "acme__small", ".github/workflows/a.yml", "on: push\njobs: {a: {runs-on: x}}\n")
    res = INGESTOR.ingest([tmp_path])
    assert [(p.file, p.reason) for p in res.problems] == [(str(tmp_path / "acme__big"), limits.too_many(
        "max_files_per_checkout", 1, "2 workflow and action files"))]
    assert "job:acme/small/.github/workflows/a.yml#a" in {n.id for n in res.nodes}


def test_file_size_is_refused_before_reading(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_FILE_BYTES", "100")
    _write(tmp_path / "acme__app", ".github/workflows/big.yml", "on: push\njobs: {a: {runs-on: x}}\n" + "#" * 200)
    _write(tmp_path / "acme__app", ".github/workflows/ok.yml", "on: push\njobs: {a: {runs-on: x}}\n")
    res = INGESTOR.ingest([tmp_path])
    assert [(Path(p.file).name, p.reason) for p in res.problems] == [
        ("big.yml", limits.too_many("max_file_bytes", 100, "file of 233 bytes"))]
    assert res.items == 1


def _fanout(root: Path, levels: int, width: int) -> None:
    for i in range(levels):
        trigger = "push" if i == 0 else "workflow_call"
        jobs = "".join(f"  c{j}:\n    uses: ./.github/workflows/w{i + 1}.yml\n" for j in range(width))
        _write(root, f".github/workflows/w{i}.yml", f"on: {trigger}\njobs:\n{jobs}")
    _write(root, f".github/workflows/w{levels}.yml", "on: workflow_call\njobs:\n  leaf: {runs-on: x}\n")


def test_reusable_workflow_fan_out_stops_at_the_budget(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_CALL_FANOUT", "50")
    _fanout(tmp_path / "acme__app", 4, 5)  # 5^4 = 625 leaf jobs once inlined
    res = INGESTOR.ingest([tmp_path / "acme__app"])
    over = [p for p in res.problems if "max_call_fanout" in p.reason]
    assert len(over) == 1 and over[0].reason.endswith("; further calls not instantiated")
    assert sum(1 for n in res.nodes if n.spec.kind.value == "job") < 100  # 3,905 job instances without the budget


def test_a_parser_defect_loses_only_its_file(tmp_path: Path, monkeypatch):
    _write(tmp_path / "acme__app", ".github/workflows/a.yml", "on: push\njobs: {a: {runs-on: x}}\n")
    _write(tmp_path / "acme__app", ".github/workflows/b.yml", "on: push\njobs: {b: {runs-on: x}}\n")
    real = INGESTOR.parse

    def broken(text: str, file: InputFile):
        if file.name.endswith("b.yml"):
            raise TypeError("a defect quoting SECRETVALUE")
        return real(text, file)
    monkeypatch.setattr(INGESTOR, "parse", broken)
    res = INGESTOR.ingest([tmp_path / "acme__app"])
    assert [(Path(p.file).name, p.reason) for p in res.problems] == [
        ("b.yml", "could not be parsed (internal error TypeError; please report it)")]
    assert res.items == 1 and "job:acme/app/.github/workflows/a.yml#a" in {n.id for n in res.nodes}


# ---------------------------------------------------------------------------- graph files and writes


@pytest.mark.parametrize("doc, reason", [
    ({"schema": "graphkit.graph/v1", "nodes": 3, "edges": []}, "nodes: expected a list, got int (a file of another "
                                                                 "version?)"),
    ({"schema": "graphkit.graph/v1", "nodes": [], "edges": None}, "edges: expected a list, got NoneType (a file of "
                                                                  "another version?)"),
    ({"schema": "graphkit.graph/v1", "nodes": []}, "edges: missing (a graph file lists its edges, an empty list when "
                                                   "none)"),
    ({"schema": "graphkit.graph/v1", "edges": []}, "nodes: missing (a graph file lists its nodes, an empty list when "
                                                   "none)"),
    ({"schema": "graphkit.graph/v1", "meta": [1]}, "meta: value: Input should be a valid dictionary or instance of "
                                                   "GraphMeta"),
    ({"schema": "graphkit.graph/v1", "nodes": ["SECRETVALUE"], "edges": []}, "nodes[0]: value: Input should be a "
                                                                              "valid dictionary or object to extract "
                                                                              "fields from"),
    ("[" * 100_000 + "]" * 100_000, "not a graphkit graph file (JSON nested too deep)"),
    ({"schema": ["x"]}, "not a graphkit.graph/v1 file (schema=list)"),
])
def test_graph_files_of_another_version_are_clear_errors(tmp_path: Path, doc, reason):
    p = tmp_path / "g.json"
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    with pytest.raises(GraphFileError) as exc:
        Graph.load(p)
    assert exc.value.reason == reason


def test_save_is_atomic_and_keeps_the_previous_graph(tmp_path: Path, monkeypatch):
    good = build_graph({"github-actions": [str(_write(tmp_path / "acme__app", ".github/workflows/a.yml",
                                                      "on: push\njobs: {a: {runs-on: x}}\n").parents[2])]}).graph
    out = tmp_path / "graph.json"
    good.save(out)
    before = out.read_bytes()

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(GraphkitError, match="graph.json: cannot write: No space left on device"):
        Graph().save(out)
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["acme__app", "graph.json"]  # no temporary file left


def test_save_of_values_nested_past_the_serializer_is_an_error(tmp_path: Path):
    from graphkit.model import Workflow
    deep: object = "x"
    for _ in range(300):
        deep = {"a": deep}
    g = Graph()
    g.add_node(Workflow(id="workflow:acme/app/ci.yml", name="ci", repository="acme/app", path="ci.yml",
                        triggers={"push": deep}))
    with pytest.raises(GraphkitError, match="graph cannot be serialized: Maximum serialization depth exceeded"):
        g.save(tmp_path / "g.json")
    assert not (tmp_path / "g.json").exists()


def test_cli_unwritable_output_and_stdout_snapshot(tmp_path: Path, monkeypatch):
    _write(tmp_path / "acme__app", ".github/workflows/a.yml", "on: push\njobs: {a: {runs-on: x}}\n")
    res = CliRunner().invoke(app, ["build", "--github-actions", str(tmp_path / "acme__app"), "-o",
                                   str(tmp_path / "missing" / "g.json")])
    assert res.exit_code == 1 and "cannot write: No such file or directory" in res.output
    assert "Traceback" not in res.output
    root = tmp_path / "root"
    _write(root, "etc/hostname", "h1\n")
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["collect", "host", "--root", str(root), "-o", "-"])
    assert res.exit_code == 0 and json.loads(res.stdout)["schema"] == "graphkit.runner-inventory/v1"
    assert not (tmp_path / "-").exists()
    res = CliRunner().invoke(app, ["--limit", "nope=3", "build", "--github-actions", str(tmp_path)])
    assert res.exit_code == 2 and "unknown limit 'nope'" in res.output


def test_readme_lists_every_limit():
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Limits", 1)[1].split("\n## ", 1)[0]
    for name, value in vars(limits.Limits()).items():
        assert f"`{name}`" in section and f"GRAPHKIT_LIMIT_{name.upper()}" in section, name


def test_inventory_sections_past_the_entry_limit_are_refused(monkeypatch):
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_INVENTORY_ENTRIES", "2")
    p = ri.parse(INV_HEAD + "runners: [{name: a, scope: acme}, {name: b, scope: acme}, {name: c, scope: acme}]\n"
                            "hosts: [{name: h}]\n", "i.yaml")
    assert [str(x) for x in p.problems] == [
        "i.yaml: runners: " + limits.too_many("max_inventory_entries", 2, "3 entries") + " (line 2)"]
    assert p.inventory.runners is None and [h.name for h in p.inventory.hosts] == ["h"]


def test_kubeconfig_sections_of_another_type_name_nothing():
    from ingest.host.credentials import parse_kube_config
    facts = parse_kube_config("users: 5\nclusters: {a: 1}\n")  # found by the long fuzz run (a TypeError before)
    assert (facts.present, facts.grants) == (False, [])
