"""GitLab sections of a runner inventory -> nodes and facts (pure: no I/O).

- ``gitlab_instances`` / ``gitlab_groups`` / ``gitlab_projects``: one
  :class:`~graphkit.model.Secret` of scope ``gitlab`` per CI/CD variable
  (``secret:gitlab:{host[/path]}:{KEY}:{environment scope}``, :func:`graphkit.model.ids.secret_gitlab`) with
  its flags in :attr:`~graphkit.model.Secret.gitlab`, never a value; the project facts the resolver needs
  (protected branches and tags, environments, visibility) go to
  :attr:`graphkit.meta.InventoryFacts.gitlab_projects`.
- ``runners`` entries with ``platform: gitlab``: :func:`runner_info` (the
  :class:`~graphkit.model.gitlab_runners.GitLabRunnerInfo` of the node).

GitLab documentation: "CI/CD variables" (https://docs.gitlab.com/ci/variables/), "Runners API"
(https://docs.gitlab.com/api/runners/), "Protected branches"
(https://docs.gitlab.com/user/project/repository/branches/protected/), "Protected tags"
(https://docs.gitlab.com/user/project/protected_tags/).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphkit.graph import GraphBuilder
from graphkit.model import EdgeKind, Evidence, Repository, Secret, ids
from graphkit.model.gitlab_runners import GitLabRunnerInfo, GitLabVariableInfo
from ingest.runner_inventory.gitlab_models import GitLabGroup, GitLabInstance, GitLabProject, GitLabVariable
from ingest.runner_inventory.models import RunnerEntry, RunnerInventory

__all__ = ["gitlab_sections", "runner_info"]

Ev = Callable[[str], Evidence]


def runner_info(r: RunnerEntry) -> GitLabRunnerInfo | None:
    """The GitLab facts of a runner entry (``platform: gitlab`` or a ``gitlab:`` mapping); None for GitHub.

    The host-scan part (``registration``: executor, privileged, docker socket, token fingerprint, runner id) fills
    what the API part does not say.
    """
    if r.platform != "gitlab" and r.gitlab is None:
        return None
    g, reg = r.gitlab, r.registration
    known: dict[str, Any] = {"instance": ids.repo_key(r.scope)}
    if reg is not None:
        known.update({k: v for k, v in (("runner_id", reg.agent_id), ("executor", reg.executor),
                                        ("privileged", reg.privileged), ("docker_socket", reg.docker_socket),
                                        ("token_fingerprint", reg.credential_fingerprint)) if v is not None})
    if g is not None:
        fields = g.model_dump(exclude_none=True)
        if "id" in fields:
            fields["runner_id"] = fields.pop("id")
        for name in ("tag_list", "groups", "projects"):
            if name in fields:
                fields[name] = tuple(fields[name])
        known.update(fields)
    return GitLabRunnerInfo(**known)


def _variable(graph: GraphBuilder, level: str, path: str, v: GitLabVariable, ev: Evidence) -> str:
    info = GitLabVariableInfo(level=level, path=path, protected=v.protected, masked=v.masked, hidden=v.hidden,  # type: ignore[arg-type]
                              raw=v.raw, environment_scope=v.environment_scope, variable_type=v.variable_type)
    scope = "" if v.environment_scope == "*" else f" (environment {v.environment_scope})"
    return graph.node(Secret(id=ids.secret_gitlab(path, v.key, v.environment_scope),
                             name=f"{path} {level} variable {v.key}{scope}", secret_name=v.key, scope="gitlab",
                             owner=path.split("/", 1)[0], repository=path if level == "project" else None,
                             environment=None if v.environment_scope == "*" else v.environment_scope,
                             gitlab=info, evidence=[ev]))


def _variables(graph: GraphBuilder, level: str, path: str, variables: list[GitLabVariable] | None,
               ev: Ev, at: Callable[[str, int], str], p: str) -> list[str]:
    return [_variable(graph, level, path, v, ev(at(f"{p}.variables", j))) for j, v in enumerate(variables or [])]


def _project(graph: GraphBuilder, proj: GitLabProject, variables: list[str], ev: Evidence) -> None:
    """The project node (``repo:gitlab:{path}``, as the ``gitlab-ci`` ingestor names it) with what the API says,
    and ``has_secret`` to its project-level variables."""
    rid = graph.node(Repository(id=ids.gitlab_project(proj.full_path), name=proj.full_path, full_name=proj.full_path,
                                platform="gitlab", visibility=proj.visibility, default_branch=proj.default_branch,
                                protected_branches=proj.protected_branches, evidence=[ev]))
    for sid in variables:
        graph.edge(EdgeKind.HAS_SECRET, rid, sid, ev)


def _project_facts(proj: GitLabProject, path: str, variables: list[str]) -> dict[str, Any]:
    """What the resolver reads of a project (:class:`graphkit.meta.InventoryFacts` ``gitlab_projects``)."""
    return {"path": path, "visibility": proj.visibility, "default_branch": proj.default_branch,
            "protected_branches": proj.protected_branches, "protected_tags": proj.protected_tags,
            "environments": None if proj.environments is None else
            [e.model_dump(exclude_none=True) for e in proj.environments],
            "variables": sorted(variables), "variables_complete": proj.variables_complete}


def gitlab_sections(graph: GraphBuilder, inv: RunnerInventory, ev: Ev,
                    at: Callable[[str, int], str]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Add the variables of every GitLab section to ``graph``; returns ``(project facts by {host}/{full path}
    lower-cased, the instance hosts and group/project paths whose variable lists are complete)``."""
    facts: dict[str, dict[str, Any]] = {}
    complete: list[str] = []
    sections: list[tuple[str, list[Any] | None]] = [("gitlab_instances", inv.gitlab_instances),
                                                    ("gitlab_groups", inv.gitlab_groups),
                                                    ("gitlab_projects", inv.gitlab_projects)]
    for section, entries in sections:
        for i, entry in enumerate(entries or []):
            p = at(section, i)
            path, level = _path_level(entry)
            made = _variables(graph, level, path, entry.variables, ev, at, p)  # type: ignore[arg-type]
            if entry.variables_complete and entry.variables is not None:
                complete.append(path)
            if isinstance(entry, GitLabProject):
                facts[path] = _project_facts(entry, path, made)
                _project(graph, entry, made, ev(p))
    return facts, sorted(complete)


def _path_level(entry: GitLabInstance | GitLabGroup | GitLabProject) -> tuple[str, str]:
    """``(host[/full path] lower-cased, level)`` of a section entry."""
    if isinstance(entry, GitLabInstance):
        return entry.url, "instance"
    level = "group" if isinstance(entry, GitLabGroup) else "project"
    return f"{entry.instance}/{entry.full_path}".lower(), level
