"""GitHub Actions ingest defects found by a fresh-user run, each pinned on real values.

1. two checkouts of one repository (one folder given twice under one name, or ``Acme__App`` beside
   ``acme__app``) are a named problem giving both folders (exit 3), never a silent merge;
2. a job key GitHub refuses (``"a "``, ``"a\\n"``: not a letter or ``_`` then letters, digits, ``-``, ``_``) is a
   named problem at its line, never trimmed into another job;
3. ``writes_repository`` only for GITHUB_TOKEN scopes that change code or workflows or start runs (``contents``,
   ``actions``: certain; ``pull-requests``: possible, an org setting), never for ``issues`` or ``attestations``;
4. a reusable workflow's instance for a caller graphkit did not read reads that caller's secrets and holds that
   caller's token (``secret:all:pytorch/*``, ``repo:pytorch/*``: a repository of the runner's owner), never the
   called repository's;
5. one literal credential written at three places is one finding (identity: repository, file, value's keyed
   fingerprint) listing every place (evidence, ``lines``, message), the value never stored nor printed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import require
from typer.testing import CliRunner

from graphkit.analysis import blast_radius
from graphkit.build import build_graph
from graphkit.cli import EXIT_PARTIAL, app
from graphkit.model import Confidence, EdgeKind, ids

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


@pytest.fixture(scope="module")
def corpus_token_graph():
    """pytorch/test-infra, pytorch/ao and sigstore/sigstore-python from the corpus, built."""
    require(CORPUS.is_dir(), f"corpus not present at {CORPUS}", corpus=True)
    return build_graph({"github-actions": [CORPUS / n for n in ("pytorch__test-infra", "pytorch__ao",
                                                                "sigstore__sigstore-python")]}).graph


def _writes(graph, job: str) -> list[tuple[str, Confidence, list[str]]]:
    """``(repository, confidence, scopes)`` of the writes_repository edges of ``job``'s token (``owner/repo/path#key``)."""
    where, key = job.split("#")
    owner, repo, path = where.split("/", 2)
    token = ids.github_token(ids.job(f"{owner}/{repo}", path, key))
    return [(e.target, e.confidence, e.props["scopes"]) for e in graph.out_edges(token)
            if e.kind is EdgeKind.WRITES_REPOSITORY]


def test_issue_and_attestation_tokens_write_no_repository_on_the_corpus(corpus_token_graph):
    g = corpus_token_graph
    # update_test_file_report.yml:16-17, file-report: permissions {issues: write}
    assert _writes(g, "pytorch/test-infra/.github/workflows/update_test_file_report.yml#file-report") == []
    # release.yml:89-91, generate-provenance: {id-token: write, attestations: write}
    assert _writes(g, "sigstore/sigstore-python/.github/workflows/release.yml#generate-provenance") == []
    # doc_build.yml:64-65, doc-preview: {pull-requests: write}: an approval only if the org allows it
    [(repo, conf, scopes)] = _writes(g, "pytorch/ao/.github/workflows/doc_build.yml#doc-preview")
    assert (repo, conf, scopes) == ("repo:pytorch/ao", Confidence.POSSIBLE, ["pull-requests"])


def test_contents_and_actions_write_are_certain_repository_writes(tmp_path):
    text = "on: push\njobs:\n" + "".join(
        f"  {k}:\n    runs-on: ubuntu-latest\n    permissions: {{{p}}}\n    steps: [{{run: make}}]\n"
        for k, p in (("push", "contents: write, issues: write"), ("dispatch", "actions: write"),
                     ("publish", "packages: write, pages: write, statuses: write, checks: write"),
                     ("future", "workflows: write")))
    root = _workflow(tmp_path / "app", text)
    g = build_graph({"github-actions": [f"acme/app={root}"]}).graph
    ci = "acme/app/.github/workflows/ci.yml#"
    assert _writes(g, ci + "push") == [("repo:acme/app", Confidence.CERTAIN, ["contents"])]
    assert _writes(g, ci + "dispatch") == [("repo:acme/app", Confidence.CERTAIN, ["actions"])]
    assert _writes(g, ci + "publish") == []
    # a scope graphkit does not know is unknown, never none
    assert _writes(g, ci + "future") == [("repo:acme/app", Confidence.POSSIBLE, ["workflows"])]


def _out(graph, source: str, kind: EdgeKind) -> dict[str, Confidence]:
    return {e.target: e.confidence for e in graph.out_edges(source) if e.kind is kind}


def test_an_unknown_callers_run_is_charged_to_that_caller_never_to_the_called_repository(corpus_token_graph):
    from graphkit.resolve import resolve
    g = corpus_token_graph
    # linux_job.yml: on workflow_call only; runs-on ${{ inputs.runner }} (line 122), toJSON(secrets) (line 222)
    job = ids.job("pytorch/test-infra", ".github/workflows/linux_job.yml", "job")
    assert g.node(job).caller is None
    assert _out(g, job, EdgeKind.READS_SECRET) == {"secret:all:pytorch/*": Confidence.POSSIBLE}
    assert g.node("secret:all:pytorch/*").name == ("every secret visible to an unknown calling repository of pytorch "
                                                   "(not enumerated)")
    assert _out(g, ids.github_token(job), EdgeKind.WRITES_REPOSITORY) == {"repo:pytorch/*": Confidence.POSSIBLE}
    # _binary_upload.yml (workflow_call only) runs on ubuntu-22.04 (line 69): nothing tells the caller, any repository
    upload = ids.job("pytorch/test-infra", ".github/workflows/_binary_upload.yml", "upload")
    assert "secret:*/*:PYPI_API_TOKEN" in _out(g, upload, EdgeKind.READS_SECRET)
    assert _out(g, ids.github_token(upload), EdgeKind.WRITES_REPOSITORY) == {"repo:*/*": Confidence.POSSIBLE}
    # the blast radius of the runner it is routed to names no secret of pytorch/test-infra through it
    br = blast_radius(g, "runner:inferred:pytorch:linux.2xlarge+self-hosted")
    assert "secret:all:pytorch/*" in br.node_ids() and "secret:all:pytorch/test-infra" not in br.node_ids()
    before = g.to_dict()
    resolve(g)  # idempotent: the token's edges are not moved twice
    assert g.to_dict() == before


def test_a_literal_credential_is_listed_at_every_place_it_is_written(tmp_path):
    value = "_".join(("ghp", "Zq7T" * 9))  # built: no token-shaped literal in the tree
    text = ("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
            f"      - run: ./deploy --token {value}\n"                                     # line 6
            "      - run: |\n"
            f"          curl -H \"Authorization: token {value}\" https://api.github.com/user\n"  # line 8
            "      - uses: actions/checkout@v4\n        with:\n"
            f"          token: {value}\n")                                                 # line 11
    root = _workflow(tmp_path / "app", text)
    res, graph = _build(tmp_path, f"acme/app={root}")
    assert res.exit_code == 0, res.output
    out = tmp_path / "g.json"
    found = runner.invoke(app, ["findings", "-g", str(out), "--rule", "literal-credential-in-workflow",
                                "--format", "json"], catch_exceptions=False)
    table = runner.invoke(app, ["findings", "-g", str(out), "--rule", "literal-credential-in-workflow"],
                          catch_exceptions=False)
    [finding] = json.loads(found.output)["findings"]
    assert [(e["line"], e["yaml_path"]) for e in finding["evidence"]] == [
        (6, "jobs.a.steps[0].run"), (8, "jobs.a.steps[1].run"), (11, "jobs.a.steps[2].with.token")]
    assert finding["properties"]["lines"] == [6, 8, 11] and finding["properties"]["line"] == 6
    assert finding["message"] == "GitHub Token written in .github/workflows/ci.yml lines 6, 8, 11"
    for text_out in (out.read_text(), found.output, table.output, res.output):
        assert value not in text_out and value.lower() not in text_out
    # three distinct values at the same places: three findings, one place each
    other = [value[:-1] + c for c in "ABC"]
    root2 = _workflow(tmp_path / "app2", text.replace(value, "{}").format(*other))
    _build(tmp_path, f"acme/other={root2}")
    found = runner.invoke(app, ["findings", "-g", str(out), "--rule", "literal-credential-in-workflow",
                                "--format", "json"], catch_exceptions=False)
    assert sorted(f["properties"]["lines"] for f in json.loads(found.output)["findings"]) == [[6], [8], [11]]
