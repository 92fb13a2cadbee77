"""The ``github`` collector: read an organization through the REST API and write the snapshot directory.

Layout (``CONTRACTS.md``; read back by ``--github-snapshot``)::

    SNAPSHOT/
      snapshot.json                        graphkit.github-snapshot/v1: api_url, org, repos, since, times, scopes
      raw/<sha256 of URL>.json             every page read: url, fetched_at, status, safe headers, body
      inventory.yaml                       graphkit.runner-inventory/v1 (unknown scopes stay unknown)
      checkouts/OWNER/REPO/...             workflow files and local actions at the default branch
      history/OWNER/REPO/runs.json         {"total_count", "workflow_runs"}   (with --since)
      history/OWNER/REPO/jobs/RUN_ID.json  {"total_count", "jobs"}
      audit-log/ORG.json                   [events]  (absent when unreadable; snapshot.json says why)

No token is ever written: it lives in the ``Authorization`` header of the client only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml

from graphkit.errors import GraphkitError, InputError
from graphkit.registry import CollectResult
from ingest._api import ApiClient, ClientConfig, GitHubAppAuth, RawStore, TokenAuth, token_from_env
from ingest.github_api.convert import history_documents, inventory_document, runner_apps, safe_relative
from ingest.github_api.fetch import (OrganizationNotFound, Reader, fetch_audit_log, fetch_files, fetch_history,
                                     fetch_org, fetch_repo, list_repositories, scope_name)

__all__ = ["COLLECTOR", "SCHEMA", "AppCredentials", "GitHubCollector", "collect_github", "write_snapshot"]

#: Value of ``snapshot.json``'s ``schema``.
SCHEMA = "graphkit.github-snapshot/v1"
#: Request headers (https://docs.github.com/en/rest/about-the-rest-api/api-versions).
HEADERS = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
           "User-Agent": "graphkit-collect"}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class AppCredentials:
    """A GitHub App: its id, the path of its private key file and the installation id (never the key itself)."""

    app_id: str
    key_file: Path
    installation_id: str


@dataclass
class Collected:
    """What one collection read (the raw answers, before writing)."""

    org: dict[str, Any]
    repos: list[dict[str, Any]] = field(default_factory=list)
    files: dict[str, dict[str, str] | None] = field(default_factory=dict)
    history: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    audit_log: list[dict] | None = None
    all_repositories: bool = True


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _json(value: Any) -> str:
    return json.dumps(value, indent=1, sort_keys=False) + "\n"


def write_snapshot(out: Path, meta: dict[str, Any], got: Collected, org: str) -> dict[str, int]:
    """Write ``inventory.yaml``, ``checkouts/``, ``history/``, ``audit-log/`` and ``snapshot.json`` under
    ``out`` (``raw/`` is written by the client as pages arrive).  Paths come from the API: a repository name or
    file path that is not a plain relative path is skipped.  Returns counts for the summary."""
    inventory = inventory_document(org, got.org, got.repos, all_repositories=got.all_repositories)
    _write(out / "inventory.yaml", "# written by graphkit collect github\n"
           + yaml.safe_dump(inventory, sort_keys=False, allow_unicode=True))
    counts = {"repositories": len(got.repos), "runners": len(inventory["runners"]), "workflow files": 0,
              "runs": 0, "jobs": 0}
    (out / "checkouts").mkdir(parents=True, exist_ok=True)  # always: a snapshot without it is malformed
    for full, files in got.files.items():
        for path, text in (files or {}).items():
            if safe_relative(full) and safe_relative(path):
                _write(out / "checkouts" / full / path, text)
                counts["workflow files"] += 1
    for full, history in got.history.items():
        if history is None or not safe_relative(full):
            continue
        runs, jobs = history_documents(history)
        _write(out / "history" / full / "runs.json", _json(runs))
        counts["runs"] += runs["total_count"]
        for run_id, doc in jobs.items():
            if run_id.isdigit():
                _write(out / "history" / full / "jobs" / f"{run_id}.json", _json(doc))
                counts["jobs"] += doc["total_count"]
    counts["apps that can register runners"] = len(runner_apps(got.org.get("installations")))
    if got.audit_log is not None and safe_relative(org):
        _write(out / "audit-log" / f"{org}.json", _json(got.audit_log))
        counts["audit events"] = len(got.audit_log)
    _write(out / "snapshot.json", _json(meta))
    return counts


def _client(api_url: str, out: Path, app: AppCredentials | None, config: ClientConfig,
            notify: Callable[[str], None], **kw: Any) -> ApiClient:
    """The client: token from the App (when given) or ``GITHUB_TOKEN``/``GH_TOKEN`` (else anonymous)."""
    auth = None
    if app is not None:
        auth = TokenAuth(GitHubAppAuth(api_url, app.app_id, app.key_file, app.installation_id,
                                       transport=kw.get("transport")))
    elif (token := token_from_env()) is not None:
        auth = TokenAuth(lambda: token)
    else:
        notify("warning: no GITHUB_TOKEN/GH_TOKEN and no GitHub App: anonymous, only public data is readable")
    return ApiClient(api_url, auth=auth, store=RawStore(out / "raw"), config=config, notify=notify,
                     headers=HEADERS, **kw)


def _read_all(rd: Reader, org: str, repos: list[str], since: str | None) -> Collected:
    got = Collected(org=fetch_org(rd, org, must_exist=not repos), all_repositories=not repos)
    listed = list_repositories(rd, org, repos)
    if listed is None:
        got.all_repositories = False
        listed = []
    got.repos = rd.client.map(lambda r: fetch_repo(rd, r), listed)
    live = [r for r in listed if not r.get("archived")]  # archived repositories run no workflow
    got.files = dict(zip((str(r.get("full_name")) for r in live), rd.client.map(lambda r: fetch_files(rd, r), live)))
    if since:
        got.history = dict(zip((str(r.get("full_name")) for r in live),
                               rd.client.map(lambda r: fetch_history(rd, r, since), live)))
        got.audit_log = fetch_audit_log(rd, org, since)
    return got


def collect_github(org: str, out: Path, *, repos: list[str] | None = None, since: str | None = None,
                   api_url: str = "https://api.github.com", app: AppCredentials | tuple | None = None,
                   config: ClientConfig | None = None, concurrency: int | None = None, max_wait: float | None = None, notify: Callable[[str], None] | None = None,
                   progress: Callable[[str, int], None] | None = None, **client_kw: Any) -> CollectResult:
    """Collect ``org`` (or the ``repos`` subset) into the snapshot folder ``out``.

    Parameters
    ----------
    org, repos
        the organization login; ``owner/name`` repositories to read instead of every repository of ``org``.
    since
        ISO 8601 time: also read the workflow runs and jobs created since then, and the audit log's runner
        registrations and removals.
    api_url
        the REST API root (GitHub Enterprise Server: ``https://HOST/api/v3``; data residency:
        ``https://api.SUBDOMAIN.ghe.com``).
    app
        GitHub App credentials, or ``(app_id, key_file, installation_id)`` (else ``GITHUB_TOKEN``/``GH_TOKEN``).
    concurrency, max_wait
        override the client bounds (:class:`~ingest._api.ClientConfig`).
    config, notify, progress, client_kw
        client bounds, one-line messages (waits; a warning starts with ``warning: ``), ``progress(resource, advance)``, and client keywords for tests
        (``sleep``, ``transport``).

    Returns
    -------
    CollectResult
        ``document``: the ``snapshot.json`` object; ``problems``: one per unreadable scope (file
        ``snapshot.json``, place ``scopes[i]``, the permission that fixes it); ``summary``: counts.

    Raises
    ------
    GraphkitError
        when the API cannot be read at all (401, a rate limit longer than allowed, retries exhausted) or the
        folder cannot be written; :class:`~ingest.github_api.fetch.OrganizationNotFound` when ``GET /orgs/{org}``
        answers 404 and no ``repos`` were given (nothing is written).
    """
    started = _now()
    config = config or ClientConfig()
    config = replace(config, **{k: v for k, v in (("concurrency", concurrency), ("max_wait", max_wait))
                                if v is not None})
    if isinstance(app, tuple):
        app = AppCredentials(str(app[0]), Path(app[1]), str(app[2]))
    meta = {"schema": SCHEMA, "api_url": api_url, "org": org, "repos": sorted(set(repos or [])), "since": since,
            "started_at": started, "finished_at": None, "scopes": []}
    with _client(api_url, out, app, config, notify or (lambda m: None), **client_kw) as client:
        rd = Reader(client, progress)
        try:
            got = _read_all(rd, org, sorted(set(repos or [])), since)
        except OrganizationNotFound:  # nothing to resume: no snapshot of an organization that is not there
            raise
        except GraphkitError as exc:  # stopped (rate limit too long, 401...): say so; raw/ keeps what was read
            _stopped(out, meta, rd, str(exc))
            raise
        fetched = client.fetched
    scopes = [s.as_dict() for s in sorted(rd.scopes.values(), key=lambda s: (s.resource, s.scope))]
    meta.update(repos=sorted(str(r["repository"].get("full_name")) for r in got.repos), finished_at=_now(),
                scopes=scopes)
    try:
        counts = write_snapshot(out, meta, got, org)
    except OSError as exc:
        raise GraphkitError(f"{out}: {exc.strerror or exc}") from None
    problems = [InputError(str(out / "snapshot.json"), f"scopes[{i}]", f"{s['resource']} of {s['scope']} unreadable"
                           f"{' (HTTP ' + str(s['http_status']) + ')' if s['http_status'] else ''}: {s['reason']}"
                           f"{'; fix: ' + s['fix'] if s['fix'] else ''}") for i, s in enumerate(scopes) if s["status"] != "ok"]
    return CollectResult(document=meta, problems=problems,
                         summary={**counts, "pages fetched": fetched, "unreadable scopes": len(problems)})


def _stopped(out: Path, meta: dict[str, Any], rd: Reader, reason: str) -> None:
    """Write ``snapshot.json`` for a collection that stopped: the scopes read so far and one ``pending`` record
    (a build of the folder then reports it; the same command resumes from ``raw/``)."""
    scopes = [s.as_dict() for s in sorted(rd.scopes.values(), key=lambda s: (s.resource, s.scope))]
    pending = {"resource": "collection", "scope": scope_name("org", meta["org"]), "status": "pending", "http_status": None,
               "reason": f"stopped before the end ({reason}); run the same command again to resume",
               "fix": "rerun graphkit collect github with the same -o"}
    try:
        _write(out / "snapshot.json", _json({**meta, "scopes": [*scopes, pending]}))
    except OSError:
        pass  # the error being raised says what stopped the collection


class GitHubCollector:
    """``graphkit collect github`` (:func:`collect_github`)."""

    name = "github"
    description = "GitHub organization through the REST API: runners, groups, secrets (names), environments, " \
                  "workflow files, runs and jobs (--since), audit log"

    def collect(self, root: Path, **options: Any) -> CollectResult:
        """:func:`collect_github` into the folder ``root`` (``options``: its keywords, ``org`` required)."""
        return collect_github(options.pop("org"), root, **options)


COLLECTOR = GitHubCollector()
