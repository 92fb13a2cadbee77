"""GitLab API collector (``graphkit collect gitlab``) and its snapshot source (``--gitlab-snapshot DIR``).

A responder with a ``read_api`` token and a group path gets the group's runners (with tags, ``run_untagged``,
access level, paused, scope), CI/CD variable names and flags (never values) of the group, its subgroups and
projects, protected branches and tags, environments, and each project's ``.gitlab-ci.yml`` with the local files
it includes, through the GitLab REST API (https://docs.gitlab.com/api/rest/), written as a snapshot folder
(:mod:`ingest.gitlab_api.collect`) that ``graphkit build --gitlab-snapshot DIR`` reads offline
(:mod:`ingest.gitlab_api.ingestor`).  Answers become the runner inventory format in
:mod:`ingest.gitlab_api.convert` (pure).  The HTTP client is the shared one (:mod:`ingest._api`).
"""

from __future__ import annotations

from ingest.gitlab_api.collect import COLLECTOR, SCHEMA, GitLabCollector, collect_gitlab, next_page
from ingest.gitlab_api.ingestor import INGESTOR, GitLabSnapshotIngestor

__all__ = ["COLLECTOR", "INGESTOR", "SCHEMA", "GitLabCollector", "GitLabSnapshotIngestor", "collect_gitlab",
           "next_page"]
