"""``graphkit what-if`` on the bundled example (the README Quickstart inputs, IAM included), via Typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphkit.cli import app

ROOT = Path(__file__).resolve().parents[1]
SOURCE = "runner:acme/build-01-a"
GROUP = "runner_group:acme/shared-linux"
DEPLOYER = "cloud_role:aws:arn:aws:iam::111122223333:role/acme-infra-deployer"
DOCS_BUILD = "job:acme/docs/.github/workflows/docs.yml#build"
DOCS_KEY = "secret:org:acme:DOCS_DEPLOY_KEY"
runner = CliRunner()


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("g") / "graph.json"
    res = runner.invoke(app, ["build", "--github-actions", str(ROOT / "examples/acme/repos"), "--runners",
                              str(ROOT / "examples/acme/inventory.yaml"), "--aws-iam",
                              str(ROOT / "examples/acme/aws-iam.json"), "-o", str(path)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return str(path)


def what_if(graph_file: str, *args: str):
    return runner.invoke(app, ["what-if", "--graph", graph_file, "--from", SOURCE, *args], catch_exceptions=False)


def as_json(graph_file: str, *args: str) -> dict:
    res = what_if(graph_file, *args, "--format", "json")
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_ephemeral_on_a_throwaway_vm_ends_every_foothold_held(graph_file):
    """The runner takes one job on a VM thrown away after it: no host, runner or host cache is held any more, so
    the plan no longer reimages the host nor removes its other registration; what that one run could read or poison
    stays to rotate and purge (docs/revocation-plan.md, ordering rule 5), the host's on-disk credentials included:
    the run could copy them, and a copy lives until rotated (the copy principle).  The autoscaler's token, which
    can register runners, is still cut first."""
    doc = as_json(graph_file, "--ephemeral-host", SOURCE)
    assert doc["schema"] == "graphkit.what-if/v1" and doc["sources"] == [SOURCE]
    assert [c["change"] for c in doc["changes"]] == ["make_ephemeral"]
    assert doc["changes"][0]["host"] == ["host:build-01"]
    m = doc["metrics"]
    assert 0 < m["persistent_weight"]["after"] < m["persistent_weight"]["before"]
    assert 0 < m["held"]["after"] < m["held"]["before"] and m["plan_steps"]["delta"] < 0
    assert {(s["action"], s["target"]) for s in doc["plan"]["removed"]} == {
        ("reimage_host", "host:build-01"), ("remove_runner_registration", "runner:acme/build-01-b")}
    after = [(s["phase"], s["action"], s["target"]) for s in doc["plan"]["after"]]
    assert after[0] == ("contain", "rotate_credential", "credential:build-01:/etc/runner-autoscaler/env")
    assert {("contain", "rotate_credential", "credential:build-01:/home/runner/.aws/credentials"),
            ("contain", "rotate_credential", "credential:build-01:/home/runner/.docker/config.json")} <= set(after)
    assert ("rotate", "rotate_secret", "secret:repo:acme/app:PYPI_API_TOKEN") in after  # still to rotate
    assert doc["plan"]["added"] == [] and doc["added"] == []


def test_restrict_group_drops_the_public_docs_job(graph_file):
    doc = as_json(graph_file, "--restrict-group", f"{GROUP}=acme/app,acme/infra", "--no-public-repositories")
    change = doc["changes"][0]
    assert change["change"] == "restrict_runner_group" and change["repositories"] == ["acme/app", "acme/infra"]
    removed = {r["id"]: r for r in doc["removed"]}
    assert DOCS_BUILD in removed and removed[DOCS_BUILD]["kind"] == "job"
    assert DOCS_KEY in removed  # only the docs job reads it
    assert doc["by_kind"]["job"]["delta"] == -sum(1 for r in doc["removed"] if r["kind"] == "job")


def test_narrow_trust_policy_on_a_role(graph_file):
    doc = as_json(graph_file, "--narrow-trust", f"{DEPLOYER}=repo:acme/infra:ref:refs/heads/main")
    assert doc["changes"][0] == {"change": "narrow_trust_policy", "subject": DEPLOYER,
                                 "subjects": ["repo:acme/infra:ref:refs/heads/main"],
                                 "assumes_role_removed": 1, "assumes_role_kept": 0}
    assert DEPLOYER in {r["id"] for r in doc["removed"]}
    assert ("revoke_role_sessions", DEPLOYER) in {(s["action"], s["target"]) for s in doc["plan"]["removed"]}


def test_remove_edge_by_kind_and_endpoints_and_by_key(graph_file):
    doc = as_json(graph_file, "--remove-edge", f"reads_secret:{DOCS_BUILD}->{DOCS_KEY}")
    assert doc["changes"] == [{"change": "remove_edges", "edges_removed": 1}]
    assert [r["id"] for r in doc["removed"]] == [DOCS_KEY]
    plan_job = "job:acme/infra/.github/workflows/deploy.yml#plan"
    doc = as_json(graph_file, "--remove-edge", f"receives_job|unresolved:{SOURCE}->{plan_job}")
    assert doc["changes"] == [{"change": "remove_edges", "edges_removed": 1}]


def test_several_changes_in_one_call_compose(graph_file):
    doc = as_json(graph_file, "--narrow-trust", f"{DEPLOYER}=repo:acme/infra:ref:refs/heads/main",
                  "--restrict-group", f"{GROUP}=acme/app,acme/infra", "--ephemeral-host", SOURCE)
    # fixed order, whatever the order of the options
    assert [c["change"] for c in doc["changes"]] == ["make_ephemeral", "restrict_runner_group",
                                                     "narrow_trust_policy"]
    assert {DOCS_BUILD, DEPLOYER} <= {r["id"] for r in doc["removed"]}
    assert doc["metrics"]["reached"]["after"] == doc["metrics"]["reached"]["before"] - len(doc["removed"])


def test_table_output_lists_before_after_and_plan_changes(graph_file):
    res = what_if(graph_file, "--restrict-group", f"{GROUP}=acme/app,acme/infra", "--top", "3")
    assert res.exit_code == 0, res.output
    text = res.stdout
    assert "restrict_runner_group runner_group:acme/shared-linux" in text
    assert "No longer reached" in text and "Plan steps no longer needed" in text
    row = next(line for line in text.splitlines() if line.startswith("reached "))
    before, after, delta = row.split()[1:]
    assert int(after) - int(before) == int(delta) < 0
    assert "more (--top N" in text


@pytest.mark.parametrize("args, hint", [
    ((), "at least one change"),
    (("--remove-edge", "nonsense"), "KIND[|KEY]:SOURCE->TARGET"),
    (("--restrict-group", GROUP), "ID=VALUE"),
    (("--ephemeral", "runner:acme/build-01-x"), "did you mean"),
])
def test_usage_errors(graph_file, args, hint):
    res = what_if(graph_file, *args)
    assert res.exit_code == 2
    assert hint in res.output


@pytest.mark.parametrize("option, value, named", [
    ("--restrict-group", f"{GROUP}=acme/app,acme/nonexist", "no repository 'acme/nonexist'"),
    ("--restrict-group", "runner_group:acme/nonexist=acme/app", "no node with id 'runner_group:acme/nonexist'"),
    ("--group-workflow", "runner_group:acme/nonexist=acme/app/.github/workflows/ci.yml",
     "no node with id 'runner_group:acme/nonexist'"),
    ("--ephemeral", "runner:acme/nonexist", "no node with id 'runner:acme/nonexist'"),
    ("--ephemeral-host", "runner:acme/nonexist", "no node with id 'runner:acme/nonexist'"),
    ("--narrow-trust", "cloud_role:aws:arn:aws:iam::111122223333:role/nonexist=repo:acme/app:*",
     "no node with id 'cloud_role:aws:arn:aws:iam::111122223333:role/nonexist'"),
])
def test_an_unknown_name_in_any_change_option_is_refused(graph_file, option, value, named):
    """Exit 2 naming the option and the value: a repository not in the graph is refused as an unknown runner,
    group or role is (a typo would otherwise restrict the group to nothing, silently)."""
    res = what_if(graph_file, option, value)
    assert res.exit_code == 2, res.output
    assert f"Invalid value for {option}: {named}" in " ".join(res.output.split())


def test_an_unknown_source_names_from(graph_file):
    res = runner.invoke(app, ["what-if", "--graph", graph_file, "--from", "runner:acme/nonexist", "--ephemeral",
                              SOURCE], catch_exceptions=False)
    assert res.exit_code == 2 and "Invalid value for --from: no node with id 'runner:acme/nonexist'" in res.output


def test_restrict_group_repositories_in_any_case_are_the_graph_s(graph_file):
    """``ACME/App`` is the graph's ``acme/app``: accepted, and the change is the same."""
    assert as_json(graph_file, "--restrict-group", f"{GROUP}=ACME/App,acme/INFRA") == \
        as_json(graph_file, "--restrict-group", f"{GROUP}=acme/app,acme/infra")


def test_ids_written_otherwise_name_their_canonical_nodes(graph_file):
    """``runner:ACME/build-01-a`` is ``runner:acme/build-01-a`` in every option, as in ``--from``."""
    written = as_json(graph_file, "--ephemeral-host", "runner:ACME/build-01-a",
                      "--restrict-group", f"{GROUP.replace('acme', 'ACME')}=acme/app")
    canonical = as_json(graph_file, "--ephemeral-host", SOURCE, "--restrict-group", f"{GROUP}=acme/app")
    assert written == canonical and written["changes"][0]["subject"] == SOURCE


def test_an_edge_not_in_the_graph_is_a_usage_error(graph_file):
    """Exit 2, naming the option, as an unknown runner in --ephemeral or role in --narrow-trust does."""
    res = what_if(graph_file, "--remove-edge", f"reads_secret:{SOURCE}->{DOCS_KEY}")
    assert res.exit_code == 2
    assert "Invalid value for --remove-edge: 'no edge reads_secret" in " ".join(res.output.split())
    res = what_if(graph_file, "--remove-edge", f"reads_secret|k1:{SOURCE}->{DOCS_KEY}")
    assert res.exit_code == 2 and "no edge reads_secret|k1" in res.output


RELEASE = "cloud_role:aws:arn:aws:iam::111122223333:role/acme-release"


def test_a_narrowed_trust_is_no_longer_over_broad_unless_the_new_pattern_is(graph_file):
    """acme-release trusts ``repo:acme/*`` (examples/acme/aws-iam.json), which the plan narrows first
    (graphkit.iam.trust: org-wide).  Narrowed to one environment, that step leaves the plan; narrowed to another
    org-wide pattern, it stays."""
    step = ("narrow_trust_policy", RELEASE)
    doc = as_json(graph_file, "--narrow-trust", f"{RELEASE}=repo:acme/app:environment:production")
    assert step in {(s["action"], s["target"]) for s in doc["plan"]["removed"]}
    assert doc["changes"][0]["assumes_role_removed"] == 2  # the infra jobs' identities no longer match
    doc = as_json(graph_file, "--narrow-trust", f"{RELEASE}=repo:acme/app*")
    assert step in {(s["action"], s["target"]) for s in doc["plan"]["after"]}


def test_json_validates_against_its_schema(graph_file):
    import jsonschema

    schema = json.loads((ROOT / "schemas" / "what-if.schema.json").read_text())
    doc = as_json(graph_file, "--ephemeral", SOURCE, "--restrict-group", f"{GROUP}=acme/app",
                  "--narrow-trust", f"{RELEASE}=repo:acme/app:environment:production")
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert doc["changed"]  # the runner's routes became possible and per-job: the `changed` shape is exercised
    broken = {**doc, "plan": {**doc["plan"], "removed": [{"rank": 0}]}}
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(broken))


def test_restrict_a_group_to_workflows_only_keeps_its_repositories(graph_file):
    """A group restricted to workflows (GitHub: "Restricting runner groups to specific workflows",
    https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/managing-access-to-self-hosted-runners-using-groups)
    keeps its repository access; only jobs of other workflows lose the group's runners."""
    doc = as_json(graph_file, "--group-workflow", f"{GROUP}=acme/app/.github/workflows/ci.yml@refs/heads/main")
    change = doc["changes"][0]
    assert change["repositories"] is None
    assert change["workflows"] == ["acme/app/.github/workflows/ci.yml@refs/heads/main"]
    removed = {r["id"] for r in doc["removed"]}
    assert DOCS_BUILD in removed and "job:acme/app/.github/workflows/ci.yml#test" not in removed


@pytest.mark.parametrize("option, value, named", [
    ("--group-workflow", f"{GROUP}=bogus", "'bogus' names no workflow of the graph"),
    ("--group-workflow", f"{GROUP}=acme/app/.github/workflows/ci.yml@main,acme/app/.github/workflows/nope.yml",
     "'acme/app/.github/workflows/nope.yml' names no workflow of the graph"),
    ("--ephemeral", "host:build-01", "'host:build-01' is a host, not a runner"),
    ("--ephemeral-host", "host:build-01", "'host:build-01' is a host, not a runner"),
    ("--restrict-group", "runner:acme/build-01-a=acme/app", "'runner:acme/build-01-a' is a runner, not a "
     "runner_group"),
    ("--group-workflow", "runner:acme/build-01-a=acme/app/.github/workflows/ci.yml",
     "'runner:acme/build-01-a' is a runner, not a runner_group"),
    ("--narrow-trust", "runner:acme/build-01-a=repo:x/y:*", "'runner:acme/build-01-a' is a runner, not a "
     "cloud_role"),
])
def test_a_value_naming_no_workflow_or_another_kind_is_a_usage_error(graph_file, option, value, named):
    """Exit 2 naming the option and the value (was: a bogus workflow accepted silently, restricting the group
    to nothing; a host given to --ephemeral, a runner given to --restrict-group or --narrow-trust exit 1)."""
    res = what_if(graph_file, option, value)
    assert res.exit_code == 2, res.output
    assert f"Invalid value for {option}: {named}" in " ".join(res.output.split())


def test_no_public_repositories_modifies_the_named_groups_and_is_no_change_alone(graph_file):
    """--no-public-repositories sets allows_public_repositories: false on the groups --restrict-group and
    --group-workflow name (its help says so); alone, or beside other changes only, it would modify nothing: a
    usage error naming it, and the list of changes names it."""
    for args in (("--no-public-repositories",), ("--no-public-repositories", "--ephemeral", SOURCE)):
        res = what_if(graph_file, *args)
        assert res.exit_code == 2, res.output
        text = " ".join(res.output.split())
        assert "Invalid value for --no-public-repositories: it modifies the groups that --restrict-group or " \
               "--group-workflow name" in text
    res = what_if(graph_file)
    assert res.exit_code == 2 and "with --no-public-repositories" in " ".join(res.output.split())
    helptext = " ".join(runner.invoke(app, ["what-if", "--help"]).output.split())
    assert "Modifies the groups that --restrict-group and --group-workflow name" in helptext
    plain = as_json(graph_file, "--group-workflow", f"{GROUP}=acme/docs/.github/workflows/docs.yml")
    closed = as_json(graph_file, "--group-workflow", f"{GROUP}=acme/docs/.github/workflows/docs.yml",
                     "--no-public-repositories")
    assert closed["changes"][0]["allows_public_repositories"] is False
    assert DOCS_BUILD not in {r["id"] for r in plain["removed"]}  # acme/docs is public: only the setting drops it
    assert DOCS_BUILD in {r["id"] for r in closed["removed"]}
    table = what_if(graph_file, "--group-workflow", f"{GROUP}=acme/docs/.github/workflows/docs.yml",
                    "--no-public-repositories").stdout
    assert "allows_public_repositories False" in table
