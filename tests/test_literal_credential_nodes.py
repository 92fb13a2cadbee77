"""A credential written literally in a CI file is a ``credential`` node (``credential:literal:{repo}:{fingerprint}``)
that the jobs it is handed to read (``reads_secret``, cut by ``rotate_credential``): a runner that receives such a
job reaches it, and the revocation plan rotates it (user report: the runner's blast radius never reached them and
the plan ended at residual 0 without rotating them).  The value is never written anywhere."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from graphkit.cli import app
from graphkit.model import ids
from graphkit.redact import fingerprint

runner = CliRunner()
# built at run time: no token-shaped literal in the tree
PAT = "ghp_" + "A1b2C3d4" * 4 + "Ef9h"
AKID = "AKIA" + "IOSFODNN7" + "QWERTYU"
PASSWORD = "s3cr3t" + "Passw0rdXyz"
GLPAT = "-".join(("glpat", "Ab3dE" * 4))
PLANTED = (PAT, AKID, PASSWORD, GLPAT)
NOW = "2026-12-06T00:00:00Z"
WF = ".github/workflows/ci.yml"

INVENTORY = """schema: graphkit.runner-inventory/v1
organizations:
  - name: acme
    runner_groups:
      - {name: Default, id: 1, visibility: all}
runners:
  - {name: r1, id: 1, labels: [self-hosted, linux], scope: acme, runner_group: Default, ephemeral: false}
  - {name: r2, id: 2, labels: [self-hosted, gpu], scope: acme, runner_group: Default, ephemeral: false}
"""


def _cid(value: str, repo: str = "acme/app", platform: str = "github") -> str:
    return ids.literal_credential(repo, fingerprint(value.encode()), platform)


def _checkout(tmp_path: Path) -> Path:
    root = tmp_path / "repos" / "acme__app"
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / WF).write_text(
        "on: push\n"
        "env:\n"
        f"  AWS_ACCESS_KEY_ID: {AKID}\n"                                           # line 3: every job
        "jobs:\n"
        "  build:\n"
        "    runs-on: [self-hosted, linux]\n"
        "    env:\n"
        f"      GH_TOKEN: {PAT}\n"                                                 # line 8: build only
        "    steps:\n"
        "      - run: make\n"
        "  fetch:\n"
        "    runs-on: [self-hosted, gpu]\n"
        "    steps:\n"
        f"      - run: git clone https://ci:{PASSWORD}@git.example.com/acme/lib\n"  # line 14: fetch only
        "      - uses: ./.github/actions/pub\n")
    (root / ".github" / "actions" / "pub").mkdir(parents=True)
    (root / ".github" / "actions" / "pub" / "action.yml").write_text(
        "name: pub\nruns:\n  using: composite\n  steps:\n"
        f"    - run: ./publish --token {GLPAT}\n      shell: bash\n")               # line 5: the action
    (tmp_path / "inventory.yaml").write_text(INVENTORY)
    return root


def _build(tmp_path: Path) -> tuple[Path, dict]:
    _checkout(tmp_path)
    out = tmp_path / "g.json"
    res = runner.invoke(app, ["build", "--github-actions", str(tmp_path / "repos"), "--runners",
                              str(tmp_path / "inventory.yaml"), "-o", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    _assert_clean(res.output, out.read_text())
    return out, json.loads(out.read_text())


def _assert_clean(*texts: str) -> None:
    for text in texts:
        for value in PLANTED:
            assert value not in text and value.lower() not in text


def _edges(graph: dict, target: str) -> dict[str, dict]:
    return {e["source"]: e for e in graph["edges"] if e["target"] == target and e["kind"] == "reads_secret"}


def test_each_literal_value_is_a_credential_node_read_by_the_jobs_it_is_handed_to(tmp_path):
    _, graph = _build(tmp_path)
    nodes = {n["id"]: n for n in graph["nodes"] if n["kind"] == "credential"}
    assert sorted(nodes) == sorted(_cid(v) for v in PLANTED)
    pat = nodes[_cid(PAT)]
    assert (pat["credential_type"], pat["literal_kind"], pat["repository"], pat["path"], pat["lifetime"]) == (
        "literal", "GitHub Token", "acme/app", WF, "until_rotated")
    assert [(e["file"], e["line"], e["yaml_path"]) for e in pat["evidence"]] == [(WF, 8, "jobs.build.env.GH_TOKEN")]
    build, fetch = (ids.job("acme/app", WF, k) for k in ("build", "fetch"))
    # job env: that job only, certain
    (e,) = _edges(graph, _cid(PAT)).values()
    assert (e["source"], e["confidence"], e["revoked_by"], e["lifetime"], e["props"]) == (
        build, "certain", "rotate_credential", "until_rotated", {"literal": ["GitHub Token"], "via": ["job"]})
    assert [(x["file"], x["line"], x["yaml_path"]) for x in e["evidence"]] == [(WF, 8, "jobs.build.env.GH_TOKEN")]
    # workflow env: every job of the workflow, certain
    aws = _edges(graph, _cid(AKID))
    assert sorted(aws) == [build, fetch]
    assert {(s, e["confidence"], e["evidence"][0]["line"], e["evidence"][0]["yaml_path"]) for s, e in aws.items()} \
        == {(build, "certain", 3, "env.AWS_ACCESS_KEY_ID"), (fetch, "certain", 3, "env.AWS_ACCESS_KEY_ID")}
    # a URL's password in a step: that job
    url = _edges(graph, _cid(PASSWORD))
    assert sorted(url) == [fetch] and url[fetch]["evidence"][0]["yaml_path"] == "jobs.fetch.steps[0].run"
    assert url[fetch]["evidence"][0]["line"] == 14
    # a local composite action: which jobs use it is not kept, so every job of the repository, possible
    act = _edges(graph, _cid(GLPAT))
    assert {(s, e["confidence"], e["props"]["via"][0]) for s, e in act.items()} == {
        (build, "possible", "repository"), (fetch, "possible", "repository")}
    assert act[build]["evidence"][0]["file"] == ".github/actions/pub/action.yml"


def test_a_runners_blast_radius_reaches_them_and_the_plan_rotates_them(tmp_path):
    out, _ = _build(tmp_path)
    outputs = {}
    for fmt in ("table", "json", "runbook"):
        res = runner.invoke(app, ["blast-radius", "-g", str(out), "--from", "runner:acme/r2", "--now", NOW,
                                  "--format", fmt, "--top", "50"], catch_exceptions=False)
        assert res.exit_code == 0, res.output
        outputs[fmt] = res.output
    html = tmp_path / "report.html"
    res = runner.invoke(app, ["report", "-g", str(out), "--from", "runner:acme/r2", "-o", str(html)],
                        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert _cid(PASSWORD) in html.read_text()
    _assert_clean(*outputs.values(), res.output, html.read_text())
    radius = json.loads(outputs["json"])
    reached = {r["id"]: r for r in radius["reached"]}
    # r2 (gpu) receives fetch: the workflow's AWS key, the URL password and the action's token; build's PAT only
    # through fetch's GITHUB_TOKEN, which may push code that build then runs
    assert {i for i in reached if i.startswith("credential:")} == {_cid(v) for v in PLANTED}
    assert [h["kind"] for h in reached[_cid(PAT)]["path"]][-2:] == ["runs_code_in", "reads_secret"]
    hops = reached[_cid(PASSWORD)]["path"]
    assert [(h["source"], h["kind"]) for h in hops] == [
        ("runner:acme/r2", "receives_job"), (ids.job("acme/app", WF, "fetch"), "reads_secret")]
    assert hops[-1]["evidence"][0]["line"] == 14 and hops[-1]["lifetime"] == "until_rotated"
    steps = radius["revocations"]
    rotated = [s["target"] for s in steps if s["action"] == "rotate_credential"]
    assert sorted(rotated) == sorted(_cid(v) for v in PLANTED)
    # removing the runner leaves the credentials it took: the plan does not reach 0 before they are rotated
    (first,) = [s for s in steps if s["action"] == "remove_runner_registration"]
    assert first["residual_weight"] > 0
    last_rotation = max(s["rank"] for s in steps if s["action"] == "rotate_credential")
    assert all(s["residual_weight"] > 0 for s in steps if s["rank"] < last_rotation)
    assert "Revoke the AWS Access Key written in acme/app (.github/workflows/ci.yml:3)" in outputs["runbook"]
    assert "shred" not in outputs["runbook"].split("rotate_credential", 1)[1]


def test_findings_stay_one_per_file_and_value_and_print_no_value(tmp_path):
    out, _ = _build(tmp_path)
    texts = []
    for fmt in ("table", "json", "sarif"):
        res = runner.invoke(app, ["findings", "-g", str(out), "--format", fmt], catch_exceptions=False)
        texts.append(res.output)
    _assert_clean(*texts)
    found = [f for f in json.loads(texts[1])["findings"] if f["rule"] == "literal-credential-in-workflow"]
    assert sorted((f["properties"]["file"], f["properties"]["lines"]) for f in found) == [
        (".github/actions/pub/action.yml", [5]), (WF, [3]), (WF, [8]), (WF, [14])]
    # a value in a CI file is no credential on a host
    assert not [f for f in json.loads(texts[1])["findings"] if f["rule"] == "long-lived-credential-on-disk"]


def test_gitlab_job_and_global_variables(tmp_path):
    root = tmp_path / "grp__proj"
    root.mkdir()
    (root / ".gitlab-ci.yml").write_text(
        "variables:\n"
        f"  GLOBAL_TOKEN: {GLPAT}\n"                        # line 2: every job, certain
        "build:\n  tags: [shell]\n  script: [make]\n  variables:\n"
        f"    DEPLOY: {PAT}\n"                              # line 7: build only
        "deploy:\n  tags: [shell]\n  script: [make]\n")
    out = tmp_path / "g.json"
    res = runner.invoke(app, ["build", "--gitlab-ci", str(tmp_path), "-o", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    _assert_clean(res.output, out.read_text())
    graph = json.loads(out.read_text())
    build, deploy = (ids.gitlab_job("grp/proj", ".gitlab-ci.yml", k) for k in ("build", "deploy"))
    glob = _edges(graph, _cid(GLPAT, "grp/proj", "gitlab"))
    assert {(s, e["confidence"]) for s, e in glob.items()} == {(build, "certain"), (deploy, "certain")}
    own = _edges(graph, _cid(PAT, "grp/proj", "gitlab"))
    assert list(own) == [build] and own[build]["evidence"][0]["yaml_path"] == "build.variables.DEPLOY"


def test_a_value_passed_to_a_reusable_workflow_reaches_its_called_jobs(tmp_path):
    wf = tmp_path / "acme__app" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "ci.yml").write_text("on: push\njobs:\n  call:\n    uses: ./.github/workflows/r.yml\n    with:\n"
                               f"      token: {PAT}\n")                                          # line 6
    (wf / "r.yml").write_text("on:\n  workflow_call:\n    inputs:\n      token: {type: string}\njobs:\n"
                              "  deploy:\n    runs-on: [self-hosted]\n    steps: [{run: make}]\n")
    out = tmp_path / "g.json"
    res = runner.invoke(app, ["build", "--github-actions", str(tmp_path / "acme__app"), "-o", str(out)],
                        catch_exceptions=False)
    assert res.exit_code == 0, res.output
    _assert_clean(res.output, out.read_text())
    edges = _edges(json.loads(out.read_text()), _cid(PAT))
    caller = ids.job("acme/app", WF, "call")
    called = ids.job("acme/app", ".github/workflows/r.yml", "deploy", caller=caller)
    assert {(s, e["confidence"], tuple(e["props"]["via"])) for s, e in edges.items()} == {
        (caller, "certain", ("job",)), (called, "possible", ("called",))}
    assert edges[called]["evidence"][0]["yaml_path"] == "jobs.call.with.token"


def test_diff_names_a_new_literal_credential_by_its_file(tmp_path):
    out, _ = _build(tmp_path)
    empty = tmp_path / "empty.json"
    assert runner.invoke(app, ["build", "--runners", str(tmp_path / "inventory.yaml"), "-o", str(empty)]).exit_code == 0
    res = runner.invoke(app, ["diff", str(empty), str(out), "--format", "json"], catch_exceptions=False)
    _assert_clean(res.output)
    whats = {c["id"]: (c["signal"], c["message"]) for c in json.loads(res.output)["changes"] if c["kind"] == "credential"}
    assert whats[_cid(PAT)] == ("high", f"new GitHub Token written in acme/app/{WF}")
