"""GitLab runners, CI/CD variables and their semantics (issue 14).

Fixtures are written from the GitLab documentation cited in each test: Runners API
https://docs.gitlab.com/api/runners/, CI/CD variables https://docs.gitlab.com/ci/variables/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graphkit.model import EdgeKind, RevocationAction, Runner, Secret
from ingest.runner_inventory import parse, to_graph

FIX = Path(__file__).parent / "fixtures" / "gitlab"


@pytest.fixture(scope="module")
def inventory():
    parsed = parse((FIX / "inventory.yaml").read_text(), "inventory.yaml")
    assert parsed.problems == []
    return to_graph([parsed])


def test_gitlab_runner_entries_keep_the_api_fields(inventory):
    """runner_type, tag_list, run_untagged, access_level, paused, groups/projects (GET /runners/:id)."""
    nodes = inventory.graph.nodes
    shell = nodes["runner:gitlab.example.com/shared-shell-01"]
    assert isinstance(shell, Runner) and shell.platform == "gitlab" and shell.labels == ["linux", "shell"]
    assert (shell.gitlab.runner_type, shell.gitlab.run_untagged, shell.gitlab.access_level, shell.gitlab.executor,
            shell.gitlab.runner_id) == ("instance_type", True, "not_protected", "shell", 42)
    deploy = nodes["runner:gitlab.example.com/deploy-protected"]
    assert deploy.gitlab.access_level == "ref_protected" and deploy.gitlab.groups == ("acme",)
    assert deploy.runner_group is None  # no GitHub "Default" runner group for a GitLab runner
    assert nodes["runner:gitlab.example.com/old-paused"].gitlab.paused is True
    assert nodes["runner:gitlab.example.com/app-k8s"].gitlab.projects == ("acme/platform/app",)
    assert not any(n.id.startswith(("org:", "runner_group:")) for n in nodes.values())
    # deleting a GitLab runner is its own revocation action (DELETE /runners/:id)
    assert shell.revoked_by is RevocationAction.DELETE_GITLAB_RUNNER
    hosts = inventory.graph.edges[("host:build-07", shell.id, EdgeKind.HOSTS.value)]
    assert hosts.revoked_by is RevocationAction.DELETE_GITLAB_RUNNER


def test_gitlab_variables_are_secrets_with_flags_never_values(inventory):
    """Instance, group and project variables: protected, masked, hidden, raw, variable_type, environment_scope."""
    nodes = inventory.graph.nodes
    prod = nodes["secret:gitlab:gitlab.example.com/acme/platform/app:AWS_PROD_KEY:production"]
    assert isinstance(prod, Secret) and prod.scope == "gitlab" and prod.secret_name == "AWS_PROD_KEY"
    assert (prod.gitlab.level, prod.gitlab.protected, prod.gitlab.masked, prod.gitlab.environment_scope) == \
        ("project", True, True, "production")
    assert prod.revoked_by is RevocationAction.ROTATE_CICD_VARIABLE
    kube = nodes["secret:gitlab:gitlab.example.com/acme/platform/app:KUBECONFIG_STAGING:staging*"]
    assert kube.gitlab.variable_type == "file"
    group = nodes["secret:gitlab:gitlab.example.com/acme:GROUP_DEPLOY_KEY:*"]
    assert (group.gitlab.level, group.gitlab.hidden) == ("group", True)
    inst = nodes["secret:gitlab:gitlab.example.com:INSTANCE_NPM_TOKEN:*"]
    assert inst.gitlab.level == "instance"
    facts = inventory.meta["runner_inventory"]
    proj = facts.gitlab_projects["gitlab.example.com/acme/platform/app"]
    assert proj["protected_branches"] == ["main", "release/*"] and proj["protected_tags"] == ["v*"]
    assert facts.gitlab_variables_complete == ["gitlab.example.com", "gitlab.example.com/acme",
                                               "gitlab.example.com/acme/platform/app"]


def test_a_bad_gitlab_entry_costs_only_that_entry():
    text = (FIX / "inventory.yaml").read_text().replace("access_level: ref_protected", "access_level: protected")
    parsed = parse(text, "inventory.yaml")
    assert [p.place for p in parsed.problems] == ["runners[1].gitlab.access_level"]
    assert len(parsed.inventory.runners) == 3
