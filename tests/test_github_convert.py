"""The pure conversion of GitHub REST answers (ingest/github_api/convert.py) on the REST description's own examples.

Files: ``../shared/corpus/github-api/octokit__openapi/`` (``components.examples`` of GitHub's OpenAPI description,
see ``../shared/corpus/SOURCES.md``), read in place.  The inventory made from them must parse with the runner
inventory source and keep every value the examples hold.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from conftest import require
from ingest.github_api.convert import inventory_document, names_only
from ingest.runner_inventory import parse

EXAMPLES = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "github-api" / "octokit__openapi"
pytestmark = pytest.mark.corpus


def example(name: str):
    require(EXAMPLES.is_dir(), "../shared/corpus not present", corpus=True)
    return json.loads((EXAMPLES / name).read_text())


def org_raw() -> dict:
    groups = example("api.github.com-2022-07__runner-groups-org.json")["runner_groups"]
    return {"organization": {"login": "octo-org", "id": 9}, "runners":
            example("api.github.com-2022-07__runner-paginated.json")["runners"],
            "runner_groups": groups,
            "secrets": example("api.github.com-2022-07__organization-actions-secret-paginated.json")["secrets"],
            "oidc_sub": example("api.github.com-2022-07__oidc-custom-sub.json"),
            "group_repositories": {"2": example("api.github.com-2022-07__minimal-repository-paginated.json")
                                   ["repositories"]},
            "group_runners": {"1": example("api.github.com-2022-07__runner-paginated.json")["runners"]},
            "secret_repositories": {"GH_TOKEN": None}}


def repo_raw() -> dict:
    envs = example("api.github.com-2022-07__environments.json")["environments"]
    return {"repository": {"full_name": "github/hello-world", "id": 1296269, "private": False,
                           "visibility": "public", "default_branch": "main"},
            "runners": [], "protected_branches": [{"name": "main"}],
            "secrets": example("api.github.com-2022-07__actions-secret-paginated.json")["secrets"],
            "environments": [{"environment": envs[0], "secrets": [], "branch_policies":
                              example("ghes-3.6-2023-07__deployment-branch-policies-list.json")["branch_policies"]}],
            "fork_pr_policy": None, "oidc_sub": None}


def test_examples_become_an_inventory_the_runner_source_reads():
    doc = inventory_document("octo-org", org_raw(), [repo_raw()], all_repositories=True)
    parsed = parse(yaml.safe_dump(doc), "inventory.yaml")
    assert parsed.problems == []
    inv = parsed.inventory
    org = inv.organizations[0]
    assert [(s.name, s.visibility, s.selected_repositories) for s in org.secrets] == [
        ("GIST_ID", "private", None), ("DEPLOY_TOKEN", "all", None), ("GH_TOKEN", "selected", None)]  # unread
    groups = {g.name: g for g in org.runner_groups}
    assert groups["octo-runner-group"].selected_repositories == ["octocat/Hello-World"]
    assert groups["octo-runner-group"].selected_workflows == [
        "octo-org/octo-repo/.github/workflows/deploy.yaml@refs/heads/main"]
    assert groups["expensive-hardware"].visibility == "private"
    assert groups["expensive-hardware"].selected_workflows is None  # not restricted: the list does not apply
    assert org.oidc_sub_template.include_claim_keys == ["repo", "context"]
    runners = {r.name: r for r in inv.runners}
    assert runners["mac_runner"].label_names() == ["self-hosted", "X64", "macOS", "no-gpu"]
    assert (runners["linux_runner"].runner_group, runners["linux_runner"].busy) == ("Default", True)
    env = inv.repositories[0].environments[0]
    assert [r.type for r in env.protection_rules] == ["wait_timer", "required_reviewers", "branch_policy"]
    assert env.protection_rules[1].reviewers == ["octocat", "github/justice-league"]
    assert [b.name for b in env.deployment_branch_policy.branch_policies] == ["release/*", "main"]
    assert inv.repositories[0].secrets == ["GH_TOKEN", "GIST_ID"]
    assert inv.repositories[0].protected_branches == ["main"]


def test_variables_keep_names_only():
    body = {"total_count": 1, "variables": [{"name": "USERNAME", "value": "octocat",
                                             "created_at": "2019-08-10T14:59:22Z"}]}
    assert names_only(body) == {"total_count": 1, "variables": [{"name": "USERNAME",
                                                                 "created_at": "2019-08-10T14:59:22Z"}]}
