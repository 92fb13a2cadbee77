"""``max_identifier_chars`` (graphkit/limits.py): a name, label, path or ARN that would become part of a node id is
refused past the limit where the id is built (graphkit/model/ids.py), for every source alike; the value is one
problem naming the file and place, with the value's length and never the value, and the rest of the file and the
other files still build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphkit import limits
from graphkit.build import build_graph
from graphkit.errors import InputError, shown_place, shown_reason
from graphkit.ingestor import unexpected
from graphkit.model import ids

ROOT = Path(__file__).resolve().parents[1]
MB = "x" * 1_000_000
REFUSED = "refused: {what} of {n} characters (limit max_identifier_chars=4096; raise with --limit " \
          "max_identifier_chars=N or GRAPHKIT_LIMIT_MAX_IDENTIFIER_CHARS)"


@pytest.fixture(autouse=True)
def _limits_read_again():
    """After a test (and after monkeypatch restored the environment), the limits in force are read again: the id
    constructors use the limits last read (:func:`graphkit.limits.latest`)."""
    yield
    limits.current()


def _problems(result) -> list[tuple[str, str, str]]:
    return [(Path(p.file).name, p.place, p.reason) for p in result.problems]


def _no_long_value(result) -> None:
    """No node id, problem or saved text holds the over-long value (nor any 4,097-character run of it)."""
    assert all(len(n) < 500 for n in result.graph.nx.nodes)
    assert all("x" * 4097 not in str(p) for p in result.problems)


def test_default_is_4096_and_the_environment_lowers_it(monkeypatch):
    assert limits.Limits().max_identifier_chars == 4096
    name = "acme/" + "a" * 4091  # 4,096 characters: accepted
    assert ids.parse(ids.repository(name)).parts["repo"] == name
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_IDENTIFIER_CHARS", "13")
    assert limits.current().max_identifier_chars == 13
    assert ids.repository("acme/app-1234") == "repo:acme/app-1234"  # 13 characters: built, and cached
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_IDENTIFIER_CHARS", "8")
    limits.current()
    with pytest.raises(ids.IdTooLong) as err:  # the cached id is not reused past a lowered limit
        ids.repository("acme/app-1234")
    assert str(err.value) == "repository id: refused: owner/name of 13 characters (limit max_identifier_chars=8; " \
                             "raise with --limit max_identifier_chars=N or GRAPHKIT_LIMIT_MAX_IDENTIFIER_CHARS)"
    assert isinstance(err.value, ids.IdError)


def test_a_caller_job_part_is_not_counted_again():
    caller = ids.job("acme/app", ".github/workflows/" + "w" * 4000 + ".yml", "c" * 100)
    assert len(caller) > 4096
    called = ids.job("acme/lib", ".github/workflows/r.yml", "build", caller=caller)
    assert called == caller + ">acme/lib/.github/workflows/r.yml#build"


def test_runs_on_label_of_one_mb_is_one_problem_at_its_yaml_path(tmp_path):
    wf = tmp_path / "repos" / "acme__app" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "ci.yml").write_text(
        "on: push\njobs:\n  ok:\n    runs-on: [self-hosted, linux]\n    steps: [{run: make}]\n"
        f"  build:\n    runs-on: [self-hosted, \"{MB}\"]\n    steps: [{{run: make}}]\n"
        f"  deploy:\n    runs-on: [self-hosted, linux]\n    environment: \"{MB}\"\n    steps: [{{run: make}}]\n")
    (wf / "other.yml").write_text("on: push\njobs:\n  lint:\n    runs-on: [self-hosted, linux]\n"
                                  "    steps: [{run: make}]\n")
    result = build_graph({"github-actions": [tmp_path / "repos"]})
    _no_long_value(result)
    assert sorted(_problems(result)) == [
        ("ci.yml", "jobs.build.runs-on (line 7)", "runner id: " + REFUSED.format(what="label set", n=1_000_012)),
        # the job's environment, never stored whole: unknown (any environment of the repository), not "none"
        ("ci.yml", "jobs.deploy.environment (line 11)", "job environment: refused: text of 1000000 characters (limit "
         "max_attribute_chars=16384; raise with --limit max_attribute_chars=N or GRAPHKIT_LIMIT_MAX_ATTRIBUTE_CHARS); "
         "value left out: the job's environment is unknown (any environment of the repository)")]
    assert result.graph.node("job:acme/app/.github/workflows/ci.yml#deploy").environment == "*"
    jobs = {n.split("#")[1] for n in result.graph.nx.nodes if n.startswith("job:")}
    assert jobs == {"ok", "build", "deploy", "lint"}  # the jobs stay; the label and the environment do not
    assert "runner:inferred:acme:linux+self-hosted" in result.graph
    # the runner the label would have routed to is unknown, never absent: the source is partial (a Neo4j sync keeps
    # its earlier routing), and the resolver's problem names the repository of the checkout-relative file
    assert result.graph.meta.sources["github-actions"].complete is False
    assert "acme/app:.github/workflows/ci.yml" in {p.file for p in result.problems}


def test_a_clean_build_leaves_its_sources_complete(tmp_path):
    wf = tmp_path / "repos" / "acme__app" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "ci.yml").write_text("on: push\njobs:\n  ok:\n    runs-on: [self-hosted, linux]\n    steps: [{run: make}]\n")
    result = build_graph({"github-actions": [tmp_path / "repos"]})
    assert result.problems == [] and result.graph.meta.sources["github-actions"].complete is True


def test_inventory_runner_name_past_the_limit_loses_that_runner_only(tmp_path):
    inv = tmp_path / "inventory.yaml"
    inv.write_text("schema: graphkit.runner-inventory/v1\norganizations: [{name: acme}]\nrunners:\n"
                   f"  - {{name: good, labels: [self-hosted], scope: acme}}\n"
                   f"  - {{name: \"{'r' * 5000}\", labels: [self-hosted], scope: acme}}\n")
    result = build_graph({"runners": [inv]})
    _no_long_value(result)
    assert _problems(result) == [("inventory.yaml", "runners[1].name",
                                  "Value error, runner id: " + REFUSED.format(what="runner name", n=5000)
                                  + "; runners[1] is left out (line 5)")]
    assert "runner:acme/good" in result.graph


def test_gitlab_job_named_by_a_long_key_is_described_never_quoted(tmp_path):
    project = tmp_path / "acme__web"
    project.mkdir()
    name = "y" * 100_000
    (project / ".gitlab-ci.yml").write_text(
        f"build:\n  tags: [linux]\n  script: [make]\n? \"{name}\"\n: tags: [linux]\n  script: [make]\n")
    result = build_graph({"gitlab-ci": [project]})
    assert "y" * 4097 not in str(result.problems)
    assert _problems(result) == [(".gitlab-ci.yml", "<key of 100000 characters>",
                                  "job id: " + REFUSED.format(what="GitLab job name", n=100_000) + " (line 4)")]
    assert "job:gitlab:acme/web:.gitlab-ci.yml#build" in result.graph


def test_aws_role_arn_past_the_limit_loses_that_role_only(tmp_path):
    data = json.loads((ROOT / "examples/acme/aws-iam.json").read_text())
    roles = [r["Arn"] for r in data["RoleDetailList"]]
    data["RoleDetailList"][0]["Arn"] = "arn:aws:iam::111122223333:role/" + "r" * 5000
    (tmp_path / "aws.json").write_text(json.dumps(data))
    result = build_graph({"aws-iam": [tmp_path / "aws.json"]})
    _no_long_value(result)
    assert _problems(result) == [("aws.json", "RoleDetailList[0].Arn", "role Arn <5033 characters> cannot be a node "
                                  "id (cloud_role id: " + REFUSED.format(what="identifier", n=5031) + ")")]
    assert {ids.cloud_role("aws", a) for a in roles[1:]} <= set(result.graph.nx.nodes)
    assert ids.cloud_role("aws", roles[0]) not in result.graph


def test_host_snapshot_path_past_the_limit_loses_that_credential_only(tmp_path):
    data = json.loads((ROOT / "tests/fixtures/cases/host-snapshot/host.json").read_text())
    kept = data["hosts"][0]["credentials"][0]["path"]
    data["hosts"][0]["credentials"][3]["path"] = "/home/" + "p" * 5000
    (tmp_path / "host.json").write_text(json.dumps(data))
    result = build_graph({"runners": [tmp_path / "host.json"]})
    _no_long_value(result)
    assert _problems(result) == [("host.json", "hosts[0].credentials[3].path", "Value error, credential id: "
                                  + REFUSED.format(what="path", n=5006) + " (line 1)")]
    assert ids.credential("build-07", kept) in result.graph


def test_an_uncaught_refusal_is_the_files_problem_not_an_internal_error():
    try:
        ids.signing_key("cosign", "k" * 5000)
    except ids.IdTooLong as exc:
        problem = unexpected("f.yml", exc)
    assert problem.as_dict() == {"file": "f.yml", "place": "", "reason": "signing_key id: " + REFUSED.format(
        what="identifier", n=5000) + "; file left out"}
    assert unexpected("f.yml", KeyError("secret")).reason == \
        "could not be parsed (internal error KeyError; please report it)"


def test_problems_describe_over_long_places_and_values():
    assert shown_place("jobs.build.runs-on") == "jobs.build.runs-on"
    assert shown_place("jobs." + "k" * 5000 + ".steps[0]") == "jobs.<key of 5000 characters>.steps[0]"
    assert shown_place("a." * 3000) == "<place of 6000 characters>"
    assert shown_reason("bad value '" + "v" * 5000 + "' here") == "bad value <5002 characters> here"
    err = InputError("f.yml", "k" * 4097, "v" * 4097)
    assert str(err) == "f.yml: <key of 4097 characters>: <4097 characters>"
    from graphkit.meta import Problem
    assert Problem(file="f", place="p." + "q" * 4097, reason="r").place == "p.<key of 4097 characters>"


@pytest.mark.parametrize("written, replaced, refused", [
    ("runnerScaleSetName: arc-dind", "runnerScaleSetName: " + "s" * 5000,
     "runner id: " + REFUSED.format(what="runner name", n=5000)),
    ("\n        pool: ci", "\n        pool: " + "s" * 5000, "host id: " + REFUSED.format(what="node selector", n=5005)),
])
def test_arc_scale_set_value_past_the_limit_loses_that_pool_only(tmp_path, written, replaced, refused):
    text = (ROOT / "tests/fixtures/k8s/prod-eu/arc-runners.yaml").read_text()
    assert text.index(written) < text.index("name: arc-deploy")  # the first occurrence is arc-dind's
    (tmp_path / "arc-runners.yaml").write_text(text.replace(written, replaced, 1))
    for other in ("cluster.yaml", "rbac.yaml", "aws-auth.yaml"):
        (tmp_path / other).write_text((ROOT / "tests/fixtures/k8s/prod-eu" / other).read_text())
    full = build_graph({"k8s": [ROOT / "tests/fixtures/k8s/prod-eu"]}).graph
    result = build_graph({"k8s": [tmp_path]})
    _no_long_value(result)
    assert _problems(result) == [("arc-runners.yaml", "[4] (line 39)", refused + "; runner pool left out")]
    lost = set(full.nx.nodes) - set(result.graph.nx.nodes)
    assert lost == {ids.runner("acme", "arc-dind")}  # whole: no part of the pool is added
    assert ids.runner("acme", "arc-deploy") in result.graph
