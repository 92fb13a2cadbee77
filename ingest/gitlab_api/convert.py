"""GitLab REST API answers -> the runner inventory document and the checkout files (pure: no I/O).

Only names and flags are ever kept: a variable's ``value`` is dropped before a page is stored
(:func:`names_only`).  An answer that could not be read is None and its field stays unknown (null), never empty.
Shapes: "Runners API" (https://docs.gitlab.com/api/runners/), "Group-level CI/CD variables API"
(https://docs.gitlab.com/api/group_level_variables/), "Project-level CI/CD variables API"
(https://docs.gitlab.com/api/project_level_variables/), "Protected branches API"
(https://docs.gitlab.com/api/protected_branches/), "Protected tags API" (https://docs.gitlab.com/api/protected_tags/),
"Environments API" (https://docs.gitlab.com/api/environments/).
"""

from __future__ import annotations

import base64
import re
from typing import Any

import yaml

__all__ = ["VARIABLE_FLAGS", "decode_file", "inventory_document", "local_includes", "names_only"]

SCHEMA = "graphkit.runner-inventory/v1"
#: The variable fields kept (never ``value``).
VARIABLE_FLAGS = ("key", "protected", "masked", "hidden", "raw", "variable_type", "environment_scope")
_RUNNER_FIELDS = ("runner_type", "run_untagged", "locked", "access_level", "paused")
_TIERS = {"production", "staging", "testing", "development", "other"}


def names_only(body: Any) -> Any:
    """A variables answer with only :data:`VARIABLE_FLAGS` of each item (the value never reaches the store).

    >>> names_only([{"key": "K", "value": "s3cr3t", "protected": True}])
    [{'key': 'K', 'protected': True}]
    """
    if not isinstance(body, list):
        return body
    return [{k: v for k, v in item.items() if k in VARIABLE_FLAGS} for item in body if isinstance(item, dict)]


def decode_file(body: Any) -> str | None:
    """The text of a ``GET /projects/:id/repository/files/:path`` answer (base64 ``content``), None if not one."""
    if not isinstance(body, dict) or body.get("encoding") != "base64" or not isinstance(body.get("content"), str):
        return None
    try:
        return base64.b64decode(body["content"]).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None


def _include_paths(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if not re.match(r"^[a-z]+://", value) else []
    if isinstance(value, dict):
        local = value.get("local")
        return [local] if isinstance(local, str) else []
    if isinstance(value, list):
        return [p for v in value for p in _include_paths(v)]
    return []


def local_includes(text: str) -> list[str]:
    """The ``include:`` local paths of a configuration (https://docs.gitlab.com/ci/yaml/#includelocal), without
    wildcards (``*``: the gitlab-ci source reports what it cannot find), relative to the project root.

    >>> local_includes("include:\\n  - local: /ci/a.yml\\n  - remote: https://x/y.yml\\n  - ci/b.yml\\n")
    ['ci/a.yml', 'ci/b.yml']
    """
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        return []
    if not isinstance(doc, dict):
        return []
    paths = [p.lstrip("/") for p in _include_paths(doc.get("include"))]
    return [p for p in dict.fromkeys(paths) if p and "*" not in p and ".." not in p.split("/")]


def _variables(answer: list[dict] | None) -> dict[str, Any]:
    if answer is None:
        return {}
    return {"variables": [{k: v for k, v in item.items() if k in VARIABLE_FLAGS and v is not None}
                          for item in answer if isinstance(item, dict) and item.get("key")],
            "variables_complete": True}


def _names(answer: list[dict] | None) -> list[str] | None:
    return None if answer is None else [str(x["name"]) for x in answer if isinstance(x, dict) and x.get("name")]


def _environments(answer: list[dict] | None) -> list[dict] | None:
    if answer is None:
        return None
    return [{"name": str(e["name"]), **({"tier": e["tier"]} if e.get("tier") in _TIERS else {})}
            for e in answer if isinstance(e, dict) and e.get("name")]


def _project(instance: str, p: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"instance": instance, "full_path": p["project"]["path_with_namespace"]}
    for key in ("visibility", "default_branch"):
        if p["project"].get(key):
            entry[key] = p["project"][key]
    entry.update({k: v for k, v in (("protected_branches", _names(p.get("protected_branches"))),
                                     ("protected_tags", _names(p.get("protected_tags"))),
                                     ("environments", _environments(p.get("environments")))) if v is not None})
    entry.update(_variables(p.get("variables")))
    return entry


def _runner(instance: str, r: dict[str, Any]) -> dict[str, Any]:
    gitlab: dict[str, Any] = {"id": r["id"], **{k: r[k] for k in _RUNNER_FIELDS if r.get(k) is not None}}
    if isinstance(r.get("tag_list"), list):
        gitlab["tag_list"] = [str(t) for t in r["tag_list"]]
    if isinstance(r.get("groups"), list):
        gitlab["groups"] = [g["full_path"] for g in r["groups"] if isinstance(g, dict) and g.get("full_path")]
    if isinstance(r.get("projects"), list):
        gitlab["projects"] = [p["path_with_namespace"] for p in r["projects"]
                              if isinstance(p, dict) and p.get("path_with_namespace")]
    name = str(r.get("description") or f"runner-{r['id']}").strip() or f"runner-{r['id']}"
    return {"name": name, "scope": instance, "platform": "gitlab", "gitlab": gitlab}


def _unique_names(runners: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Runner descriptions need not be unique: a repeated one gets ``-{id}`` appended."""
    seen: dict[str, int] = {}
    for r in runners:
        seen[r["name"]] = seen.get(r["name"], 0) + 1
    for r in runners:
        if seen[r["name"]] > 1:
            r["name"] = f"{r['name']}-{r['gitlab']['id']}"
    return runners


def inventory_document(instance: str, groups: list[dict[str, Any]], projects: list[dict[str, Any]],
                       runners: list[dict[str, Any]] | None) -> dict[str, Any]:
    """The ``graphkit.runner-inventory/v1`` document of a collection.

    ``groups``: ``{"group": GET /groups/:id, "variables": [...] or None}``; ``projects``: ``{"project": GET
    /projects/:id, "variables", "protected_branches", "protected_tags", "environments"}`` (None: unreadable);
    ``runners``: ``GET /runners/:id`` answers (None: the runner list was unreadable: no runner is claimed).
    """
    doc: dict[str, Any] = {"schema": SCHEMA}
    doc["gitlab_groups"] = [{"instance": instance, "full_path": g["group"]["full_path"], **_variables(g.get("variables"))}
                            for g in groups]
    doc["gitlab_projects"] = [_project(instance, p) for p in projects]
    if runners is not None:
        doc["runners"] = _unique_names([_runner(instance, r) for r in sorted(runners, key=lambda r: r["id"])
                                        if isinstance(r, dict) and isinstance(r.get("id"), int)])
    return {k: v for k, v in doc.items() if v != []}
