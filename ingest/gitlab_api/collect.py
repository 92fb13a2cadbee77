"""The ``gitlab`` collector: read a GitLab group (or some of its projects) through the REST API into a snapshot.

Layout (read back by ``--gitlab-snapshot``)::

    SNAPSHOT/
      snapshot.json                 graphkit.gitlab-snapshot/v1: api_url, instance, group, projects, times, scopes
      raw/<sha256 of URL>.json      every page read (variable values dropped before it is kept)
      inventory.yaml                graphkit.runner-inventory/v1: gitlab_groups, gitlab_projects, runners
      checkouts/GROUP/.../PROJECT/  .gitlab-ci.yml (or the project's ci_config_path) and the local files it includes

The shared client (:mod:`ingest._api`: retries, rate limits, raw store, 403/404 -> unreadable) with GitLab's
pagination (``Link``, else ``X-Next-Page``, https://docs.gitlab.com/api/rest/#pagination) and the token from
``GITLAB_TOKEN`` as a bearer token (https://docs.gitlab.com/api/rest/authentication/).  An unreadable scope is
recorded in ``snapshot.json`` with the access that would read it, and its part of the inventory stays unknown.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import yaml

from graphkit.errors import GraphkitError, InputError
from graphkit.registry import CollectResult
from ingest._api import ApiClient, ClientConfig, RawStore, TokenAuth, Unreadable, link_next
from ingest.gitlab_api.convert import decode_file, inventory_document, local_includes, names_only

__all__ = ["COLLECTOR", "SCHEMA", "GitLabCollector", "collect_gitlab", "next_page"]

SCHEMA = "graphkit.gitlab-snapshot/v1"
PER_PAGE = {"per_page": 100}
#: What reads each resource (GitLab docs "Roles and permissions", https://docs.gitlab.com/user/permissions/).
FIX = {"runners": "Maintainer (project) or Owner (group) role; token scope read_api (admin for /runners/all)",
       "variables": "Maintainer (project) or Owner (group) role; token scope read_api",
       "protected_refs": "Maintainer role; token scope read_api",
       "environments": "Reporter role; token scope read_api",
       "files": "Reporter role (or a public project); token scope read_api or read_repository",
       "projects": "Guest role in the group; token scope read_api"}
MAX_FILES = 150  # GitLab's include limit per pipeline (https://docs.gitlab.com/ci/yaml/includes/#include-limits)
_PATH = re.compile(r"^[\w.-]+(?:/[\w.-]+)+$")


def next_page(headers: dict[str, str], url: str) -> str | None:
    """GitLab pagination: the ``Link`` header's next URL, else ``X-Next-Page`` (offset pagination).

    >>> next_page({"x-next-page": "3"}, "https://g/api/v4/projects?per_page=100&page=2")
    'https://g/api/v4/projects?per_page=100&page=3'
    >>> next_page({"x-next-page": ""}, "https://g/api/v4/projects") is None
    True
    """
    found = link_next(headers, url)
    if found:
        return found
    nxt = (headers.get("x-next-page") or "").strip()
    if not nxt.isdigit():
        return None
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "page"] + [("page", nxt)]
    return urlunsplit(parts._replace(query=urlencode(query)))


def _id(path: str) -> str:
    """A namespaced path as an API id (https://docs.gitlab.com/api/rest/#namespaced-paths)."""
    return quote(path, safe="")


class _Reader:
    """Reads through the client, recording each scope's outcome (unreadable ones with their fix)."""

    def __init__(self, client: ApiClient, progress: Callable[[str, int], None] | None) -> None:
        self.client = client
        self.scopes: dict[tuple[str, str], dict[str, Any]] = {}
        self._progress = progress or (lambda name, n: None)
        self._lock = threading.Lock()

    def read(self, resource: str, scope: str, fn: Callable[[], Any]) -> Any | None:
        try:
            value = fn()
        except Unreadable as exc:
            record = {"resource": resource, "scope": scope, "status": "unreadable", "http_status": exc.status or None,
                      "reason": exc.reason, "fix": FIX.get(resource, "read_api")}
            value = None
        else:
            record = {"resource": resource, "scope": scope, "status": "ok", "http_status": None, "reason": "",
                      "fix": ""}
        with self._lock:
            kept = self.scopes.get((resource, scope))
            if kept is None or kept["status"] == "ok":
                self.scopes[(resource, scope)] = record
        self._progress(resource, 1)
        return value

    def items(self, path: str, scrub: Callable[[Any], Any] | None = None, **params: Any) -> Callable[[], list[Any]]:
        def fetch() -> list[Any]:
            out: list[Any] = []
            for page in self.client.pages(path, {**PER_PAGE, **params}, next_url=next_page, scrub=scrub):
                if not isinstance(page.body, list):
                    raise Unreadable(page.url, 0, "unexpected answer shape (no array)")
                out += page.body
            return out
        return fetch

    def body(self, path: str, **params: Any) -> Callable[[], Any]:
        return lambda: self.client.get(path, params or None).body


def _project_files(rd: _Reader, project: dict[str, Any]) -> dict[str, str] | None:
    """The root configuration and the local files it includes (transitively, at most :data:`MAX_FILES`)."""
    pid, ref = _id(project["path_with_namespace"]), project.get("default_branch")
    root = project.get("ci_config_path") or ".gitlab-ci.yml"
    if not ref or "@" in root or "://" in root:
        return None  # an empty project, or a configuration in another project: nothing local to read
    files: dict[str, str] = {}
    todo = [root]
    while todo and len(files) < MAX_FILES:
        path = todo.pop(0)
        if path in files:
            continue
        answer = rd.read("files", f"project:{project['path_with_namespace']}:{path}",
                         rd.body(f"projects/{pid}/repository/files/{_id(path)}", ref=ref))
        text = decode_file(answer)
        if text is None:
            if path == root:
                return None
            continue
        files[path] = text
        todo += [p for p in local_includes(text) if p not in files]
    return files


def _project(rd: _Reader, project: dict[str, Any]) -> dict[str, Any]:
    pid, name = _id(project["path_with_namespace"]), project["path_with_namespace"]
    scope = f"project:{name}"
    return {"project": project,
            "variables": rd.read("variables", scope, rd.items(f"projects/{pid}/variables", scrub=names_only)),
            "protected_branches": rd.read("protected_refs", scope, rd.items(f"projects/{pid}/protected_branches")),
            "protected_tags": rd.read("protected_refs", scope, rd.items(f"projects/{pid}/protected_tags")),
            "environments": rd.read("environments", scope, rd.items(f"projects/{pid}/environments")),
            "runner_ids": rd.read("runners", scope, rd.items(f"projects/{pid}/runners")),
            "files": _project_files(rd, project)}


def _runners(rd: _Reader, listed: list[list[Any] | None]) -> list[dict[str, Any]] | None:
    """Details of every runner any readable list names (``GET /runners/:id``); None when no list was readable."""
    if all(x is None for x in listed):
        return None
    ids = sorted({r["id"] for lst in listed for r in lst or [] if isinstance(r, dict) and isinstance(r.get("id"), int)})
    details = rd.client.map(lambda i: rd.read("runners", "runners/" + str(i), rd.body(f"runners/{i}")), ids)
    return [d for d in details if isinstance(d, dict)]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _read_group(rd: _Reader, group: str, only: list[str]) -> tuple[list[dict], list[dict], list[list | None]]:
    gid = _id(group)
    top = rd.read("projects", f"group:{group}", rd.body(f"groups/{gid}"))
    subs = rd.read("projects", f"group:{group}", rd.items(f"groups/{gid}/descendant_groups")) or []
    groups = [{"group": g, "variables": rd.read("variables", f"group:{g['full_path']}",
                                                rd.items(f"groups/{_id(g['full_path'])}/variables", scrub=names_only))}
              for g in [top, *subs] if isinstance(g, dict) and g.get("full_path")]
    if only:
        projects = [rd.read("projects", f"project:{p}", rd.body(f"projects/{_id(p)}")) for p in only]
    else:
        projects = rd.read("projects", f"group:{group}", rd.items(f"groups/{gid}/projects", include_subgroups="true",
                                                                   archived="false")) or []
    projects = [p for p in projects if isinstance(p, dict) and _PATH.match(str(p.get("path_with_namespace", "")))]
    lists = [rd.read("runners", f"group:{group}", rd.items(f"groups/{gid}/runners"))]
    return groups, projects, lists


def collect_gitlab(group: str, out: Path, *, projects: list[str] | None = None, api_url: str = "https://gitlab.com",
                   token: str | None = None, config: ClientConfig | None = None,
                   notify: Callable[[str], None] | None = None,
                   progress: Callable[[str, int], None] | None = None, concurrency: int | None = None,
                   max_wait: float | None = None) -> CollectResult:
    """Read ``group`` (its subgroups and projects, or only ``projects``) into the snapshot folder ``out``.

    ``config`` bounds the client (:class:`ingest._api.ClientConfig`); ``concurrency`` / ``max_wait`` override
    its fields (the CLI's options).

    Raises
    ------
    GraphkitError
        no token (``GITLAB_TOKEN``), or the API cannot be read at all (:class:`ingest._api.ApiError`).
    """
    token = token or (os.environ.get("GITLAB_TOKEN") or "").strip() or None
    if token is None:
        raise GraphkitError("no GitLab token: set GITLAB_TOKEN (a token with read_api)")
    config = config or ClientConfig()
    config = replace(config, **{k: v for k, v in (("concurrency", concurrency), ("max_wait", max_wait))
                                if v is not None})
    instance = (urlsplit(api_url).hostname or "").lower()
    meta: dict[str, Any] = {"schema": SCHEMA, "api_url": api_url, "instance": instance, "group": group,
                            "started_at": _now()}
    client = ApiClient(f"{api_url.rstrip('/')}/api/v4", auth=TokenAuth(lambda: token), store=RawStore(out / "raw"),
                       config=config, notify=notify, headers={"User-Agent": "graphkit-collect"})
    with client:
        rd = _Reader(client, progress)
        groups, found, lists = _read_group(rd, group, list(projects or []))
        read = client.map(lambda p: _project(rd, p), found)
        runners = _runners(rd, lists + [p["runner_ids"] for p in read])
    doc = inventory_document(instance, groups, read, runners)
    problems = _write_snapshot(out, meta, doc, read, rd)
    return CollectResult(document=doc, problems=problems, summary=_summary(doc, read, runners, client.fetched))


def _write_snapshot(out: Path, meta: dict[str, Any], doc: dict[str, Any], read: list[dict[str, Any]],
                    rd: _Reader) -> list[InputError]:
    """Write ``inventory.yaml``, the checkouts and ``snapshot.json``; one problem per unreadable scope."""
    _write(out / "inventory.yaml", yaml.safe_dump(doc, sort_keys=False))
    for p in read:
        for path, text in (p["files"] or {}).items():
            _write(out / "checkouts" / p["project"]["path_with_namespace"] / path, text)
    scopes = sorted(rd.scopes.values(), key=lambda s: (s["resource"], s["scope"]))
    meta.update({"projects": [p["project"]["path_with_namespace"] for p in read], "finished_at": _now(),
                 "scopes": scopes})
    _write(out / "snapshot.json", json.dumps(meta, indent=1) + "\n")
    return [InputError(str(out / "snapshot.json"), s["scope"], f"{s['resource']} unreadable "
                       f"(HTTP {s['http_status']}): {s['reason']}; fix: {s['fix']}")
            for s in scopes if s["status"] != "ok"]


def _summary(doc: dict[str, Any], read: list[dict[str, Any]], runners: list | None, pages: int) -> dict[str, int]:
    variables = sum(len(x.get("variables", [])) for x in doc.get("gitlab_projects", []) + doc.get("gitlab_groups", []))
    return {"projects": len(read), "runners": len(runners or []), "variables": variables,
            "files": sum(len(p["files"] or {}) for p in read), "pages": pages}


class GitLabCollector:
    """``graphkit collect gitlab`` (:func:`collect_gitlab`)."""

    name = "gitlab"
    description = "GitLab group through the REST API: runners, CI/CD variables (names and flags), protected " \
                  "branches and tags, environments, .gitlab-ci.yml and local includes"

    def collect(self, root: Path, **options: Any) -> CollectResult:
        """:func:`collect_gitlab` into ``root`` (``options``: its keywords, ``group`` required)."""
        return collect_gitlab(options.pop("group"), root, **options)


COLLECTOR = GitLabCollector()
