"""What a build records beside the nodes and edges: ``graph.meta`` as a typed model.

:class:`GraphMeta` is the ``meta`` object of the graph file (``graphkit.graph/v1``,
JSON Schema in ``schemas/graph.schema.json``, generated from these models).
It says which inputs were read, whether each source was read completely
(a consumer never treats what an incomplete source did not show as absent),
the problems met, the facts sources hand to the resolver, and the summaries
the resolver and the cloud linker write.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from graphkit.errors import shown_place
from graphkit.model.observed import ObservedRun, RunnerEvent

__all__ = ["Problem", "SourceStatus", "InventoryFacts", "AwsIamSummary", "ResolveSummary", "CloudSummary",
           "HistoryFacts", "GraphMeta", "absolute_inputs"]


class _Meta(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class Problem(_Meta):
    """One input that could not be used: ``file`` (path as given), ``place`` (YAML/JSON path or ``line N``, may
    be empty), ``reason``."""

    file: str
    place: str = ""
    reason: str

    @field_validator("place")
    @classmethod
    def _shown(cls, place: str) -> str:
        """An over-long place is described, never quoted (:func:`graphkit.errors.shown_place`)."""
        return shown_place(place)


class SourceStatus(_Meta):
    """One source of the build: ``complete`` (every input read in full) and ``items`` (files read)."""

    complete: bool
    items: int = 0


class InventoryFacts(_Meta):
    """Facts the runner inventories hand to the resolver and rules (``meta.runner_inventory``).

    ``github_hosted_labels`` / ``self_hosted_labels``: overrides of the hosted
    label list.  ``secrets_complete``: ids of the organizations, repositories
    and environments whose secret lists are complete.  ``oidc_sub_templates``:
    owner or ``owner/repo`` -> the OIDC ``sub`` customisation.
    ``unknown_selected_workflows``: runner group ids restricted to workflows
    whose list was not read.  ``runner_owners``: owners whose runner list an
    inventory gives.  ``organizations``: owners declared.  ``files``: the
    inventory files read.
    """

    github_hosted_labels: list[str] = Field(default_factory=list)
    self_hosted_labels: list[str] = Field(default_factory=list)
    secrets_complete: list[str] = Field(default_factory=list)
    oidc_sub_templates: dict[str, dict[str, Any]] = Field(default_factory=dict)
    #: ``owner/repo`` (lower-cased) -> the repository's name as the inventory spells it: GitHub's spelling, which
    #: OIDC claims carry (a checkout's folder or remote may differ in case; :mod:`graphkit.cloud`)
    repository_names: dict[str, str] = Field(default_factory=dict)
    unknown_selected_workflows: list[str] = Field(default_factory=list)
    runner_owners: list[str] = Field(default_factory=list)
    #: owners whose inventory says every runner (org and repository runners) is listed (``runners_complete``)
    runners_complete: list[str] = Field(default_factory=list)
    organizations: list[str] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)
    #: GitLab projects by ``host/full path`` (lower-cased): visibility, default branch, protected branches and tags
    #: (wildcards), environments, variable ids (``ingest.runner_inventory.gitlab_graph``)
    gitlab_projects: dict[str, dict[str, Any]] = Field(default_factory=dict)
    #: GitLab instance hosts and group/project paths whose CI/CD variable lists are complete
    gitlab_variables_complete: list[str] = Field(default_factory=list)


class AwsIamSummary(_Meta):
    """What the AWS IAM exports held (``meta.aws_iam``): accounts, counts per principal/policy kind,
    managed policies attached but absent from every export, files read and files ignored; ``duplicate_keys``:
    ``{file, place, key, line}`` of JSON keys an object held twice (``line``: of the last one);
    ``control_policies``: ``{"scp"|"rcp": {account: [level [document] or null]}}`` of the Organizations policies
    that cap the member accounts (account, then each parent up to the root; null: no policy of that type exported
    for that level)."""

    accounts: list[str] = Field(default_factory=list)
    counts: dict[str, int] = Field(default_factory=dict)
    unknown_policies: list[str] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)
    ignored: list[str] = Field(default_factory=list)
    duplicate_keys: list[dict[str, str | int | None]] = Field(default_factory=list)
    control_policies: dict[str, dict[str, list[list[dict[str, Any]] | None]]] = Field(default_factory=dict)


class ResolveSummary(_Meta):
    """What :func:`graphkit.resolve.resolve` made up or could not link (``meta.resolve``)."""

    inferred_pools: list[str] = Field(default_factory=list)
    unresolved_jobs: list[str] = Field(default_factory=list)
    unknown_secrets: list[str] = Field(default_factory=list)
    dangling_grants: list[str] = Field(default_factory=list)
    unrouted_candidates: list[str] = Field(default_factory=list)
    #: ``job -> environment`` pairs whose deployment branch policy no ref of the job passes
    environments_denied: list[str] = Field(default_factory=list)
    #: ``job [labels]`` self-hosted label sets no runner of an owner with a complete runner list can take
    queued_forever: list[str] = Field(default_factory=list)


class CloudSummary(_Meta):
    """What :func:`graphkit.cloud.link_cloud` evaluated (``meta.cloud``): trust (identity, role) pairs
    ``evaluated``, pairs ``denied``, pattern roles resolved to ingested roles."""

    evaluated: int = 0
    denied: list[str] = Field(default_factory=list)
    resolved_patterns: list[str] = Field(default_factory=list)


class HistoryFacts(_Meta):
    """What the platform saw (``meta.history``, written by the ``github-history`` source, read by
    :mod:`graphkit.resolve.observed` and the exposure analysis).

    ``runs``: every job of the workflow runs read (GitHub REST job history).
    ``repositories``: the repositories whose run history was read (``owner/name``, lower-cased): for them,
    a job absent from ``runs`` did not run in the window.  ``since``: the earliest time the history covers
    (ISO 8601; the earliest run start when not stated).  ``events``: runner registrations and removals from the
    audit logs read; ``audit_logs``: the organizations whose audit log was read (for the others, who registered
    a runner is unknown).  ``files``: the files read.
    """

    runs: list[ObservedRun] = Field(default_factory=list)
    repositories: list[str] = Field(default_factory=list)
    since: str | None = None
    events: list[RunnerEvent] = Field(default_factory=list)
    audit_logs: list[str] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)


class GraphMeta(_Meta):
    """``graph.meta``: inputs, per-source completeness, problems, source facts and summaries.

    ``inputs``: ingestor name -> paths as given.  ``input_roots``: ingestor name -> each input made absolute
    where the build ran (:func:`absolute_inputs`; what identifies the inputs when ``inputs`` are relative: two
    builds of ``.`` in two checkouts differ there).  ``sources``: ingestor name
    -> :class:`SourceStatus`.  ``what_if``: the changes a what-if copy
    carries (:mod:`graphkit.whatif`).
    """

    inputs: dict[str, list[str]] = Field(default_factory=dict)
    input_roots: dict[str, list[str]] = Field(default_factory=dict)
    sources: dict[str, SourceStatus] = Field(default_factory=dict)
    problems: list[Problem] = Field(default_factory=list)
    runner_inventory: InventoryFacts | None = None
    aws_iam: AwsIamSummary | None = None
    resolve: ResolveSummary | None = None
    cloud: CloudSummary | None = None
    history: HistoryFacts | None = None
    what_if: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def partial(self) -> bool:
        """True when some input was skipped (the graph may miss what it held)."""
        return bool(self.problems)

    @property
    def inventory(self) -> InventoryFacts:
        """The inventory facts, empty when no inventory was read."""
        return self.runner_inventory or InventoryFacts()

    def to_json(self) -> dict[str, Any]:
        """The JSON object of the graph file (sections that were not written are left out)."""
        return self.model_dump(mode="json", exclude_unset=True)


_REPO_DIR = re.compile(r"^(?:[^/=\\\s]+/)+[^/=\\\s]+=")  # OWNER/NAME=DIR, GROUP/SUBGROUP/PROJECT=DIR


def absolute_inputs(inputs: dict[str, list[str]], base: str | Path) -> dict[str, list[str]]:
    """``inputs`` (ingestor name -> paths as given) with every path made absolute against ``base`` (a
    directory) and resolved (symlinks, ``..``), sorted: ``OWNER/NAME=DIR`` keeps ``OWNER/NAME=`` before its
    absolute DIR; a URL (``scheme://``) is kept as given.  Nothing is read but the file system's links.

    >>> absolute_inputs({"runners": ["inv/../a.yaml", "https://h/x"]}, "/base")
    {'runners': ['/base/a.yaml', 'https://h/x']}
    >>> absolute_inputs({"gitlab-ci": ["acme/sub/web=web/.", "acme/app=../app"]}, "/base")
    {'gitlab-ci': ['acme/app=/app', 'acme/sub/web=/base/web']}
    """
    def one(p: str) -> str:
        if "://" in p:
            return p
        m = _REPO_DIR.match(p)
        if m and not os.path.lexists(os.path.join(base, p)):
            return m.group(0) + str(Path(base, p[m.end():]).resolve())
        return str(Path(base, p).resolve())
    return {name: sorted({one(str(p)) for p in paths}) for name, paths in inputs.items()}
