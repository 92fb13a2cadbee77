"""GitHub API collector (``graphkit collect github``) and its snapshot source (``--github-snapshot DIR``).

A responder with a token and an organization name gets, without any checkout: repositories, self-hosted runners
and runner groups, secret and variable names, environments with their protection rules and deployment branch
policies, workflow token defaults and fork pull request policies, OIDC subject templates, deploy keys, App
installations, the workflow files and local actions at each default branch, and with ``--since`` the workflow
runs and jobs of the window and the audit log's runner registrations, all through the GitHub REST API
(https://docs.github.com/en/rest), written as a snapshot folder (:mod:`ingest.github_api.snapshot`) that
``graphkit build --github-snapshot DIR`` reads offline (:mod:`ingest.github_api.ingestor`).

Structure: :mod:`~ingest.github_api.resources` (what is read, with the permission that reads it),
:mod:`~ingest.github_api.fetch` (the reads, through the shared client :mod:`ingest._api`; unreadable scopes are
recorded, never emptied), :mod:`~ingest.github_api.convert` (pure: answers -> runner inventory, checkouts,
history files), :mod:`~ingest.github_api.snapshot` (the collector, writes the folder),
:mod:`~ingest.github_api.ingestor` (reads it back).  Tokens come from ``GITHUB_TOKEN``/``GH_TOKEN`` or a GitHub
App and are never written or printed.
"""

from __future__ import annotations

from ingest.github_api.ingestor import INGESTOR, GitHubSnapshotIngestor
from ingest.github_api.resources import RESOURCES, Resource
from ingest.github_api.snapshot import COLLECTOR, SCHEMA, AppCredentials, GitHubCollector, collect_github

__all__ = ["COLLECTOR", "INGESTOR", "RESOURCES", "SCHEMA", "AppCredentials", "GitHubCollector",
           "GitHubSnapshotIngestor", "Resource", "collect_github"]
