"""Credentials written literally in CI files: a node each, and the jobs they are handed to.

A value written in a workflow, action or ``.gitlab-ci.yml`` file (found by the ingestors,
:func:`ingest._credentials.literal_credentials`, kept on the repository as
:attr:`~graphkit.model.Repository.literal_credentials`: kind, keyed fingerprint, place; never the value) is a
credential anyone who reads the file can copy, valid until rotated at its issuer.  Every run of a job that
holds it receives it, so a runner that receives the job gains it (``shared/docs/semantics.md`` §2).  Each
distinct value of a repository becomes one ``credential`` node (``credential_type="literal"``, id
:func:`graphkit.model.ids.literal_credential`: repository and fingerprint), with a ``reads_secret`` edge from
each job that receives it (edge ``revoked_by`` ``rotate_credential``, lifetime ``until_rotated``; evidence: every
place that hands it to the job; props ``literal``, the token formats, and ``via``, how each place reaches it):

- GitHub, a workflow file: a value under ``jobs.<key>`` goes to that job (each instance of it, for a reusable
  workflow: ``certain``) and, when the job calls a reusable workflow (``with:``/``secrets:``), to the called jobs
  of that call (``possible``: the input reaches them, whether a step uses it is not read); one in the top-level
  ``env:`` to every job of the workflow (``certain``: "a map of variables that are available to the steps of all
  jobs in the workflow", https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#env);
  one elsewhere in the file (a trigger input's default, a name) to every job of the workflow, ``possible``.
- A file no job of the repository is built from (a local composite action's ``action.yml``): which jobs run the
  action is not kept on the jobs, so every job of the repository, ``possible``.
- GitLab, the pipeline of the project: a value under a job's key goes to that job (``certain``); under the global
  ``variables:`` or ``default:`` to every job (https://docs.gitlab.com/ci/yaml/#variables, #default), ``certain``;
  elsewhere (a hidden ``.template`` job others ``extends``, an included file) to every job, ``possible``.

A job whose ``if`` is false in every run (``never_runs``) receives nothing.  The finding
``literal-credential-in-workflow`` (one per repository, file and value) is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from graphkit.graph import Graph
from graphkit.model import (Confidence, Credential, Edge, EdgeKind, Job, LiteralCredential, NodeKind, Repository,
                            RevocationAction, ids)
from graphkit.model.ids import repo_key

__all__ = ["link_literal_credentials"]

C, P = Confidence.CERTAIN, Confidence.POSSIBLE
_GITLAB_GLOBAL = ("variables", "default")


def _key(platform: str, repository: str) -> tuple[str, str]:
    return platform, (repository.strip().strip("/").lower() if platform == "gitlab" else repo_key(repository))


def _segments(yaml_path: str | None) -> list[str]:
    """``jobs.build.steps[0].env.T`` -> ``["jobs", "build", "steps", ...]`` (indexes dropped)."""
    return [s.split("[", 1)[0] for s in (yaml_path or "").split(".") if s.split("[", 1)[0]]


def _callers(jobs: Sequence[Job]) -> dict[str, list[Job]]:
    """Caller job id -> the jobs of the reusable workflows it calls, however deep (id form ``called``)."""
    out: dict[str, list[Job]] = {}
    for j in jobs:
        if ">" not in j.id:  # a job key holds no ">" (ids.JOB_KEY): not a called job
            continue
        parsed = ids.parse(j.id)
        while parsed.form == "called":
            out.setdefault(parsed.parts["caller"], []).append(j)
            parsed = ids.parse(parsed.parts["caller"])
    return out


def _github_receivers(c: LiteralCredential, repo_jobs: Sequence[Job],
                      called: dict[str, list[Job]]) -> list[tuple[Job, Confidence, str]]:
    in_file = [j for j in repo_jobs if j.workflow_path == c.evidence.file]
    if not in_file:
        return [(j, P, "repository") for j in repo_jobs]
    seg = _segments(c.evidence.yaml_path)
    if len(seg) >= 2 and seg[0] == "jobs":
        own = [j for j in in_file if j.job_key == seg[1]]
        if own:
            out = [(j, C, "job") for j in own]
            out += [(k, P, "called") for j in own for k in called.get(j.id, ())]
            return out
    return [(j, C if seg[:1] == ["env"] else P, "workflow") for j in in_file]


def _gitlab_receivers(c: LiteralCredential, repo_jobs: Sequence[Job]) -> list[tuple[Job, Confidence, str]]:
    path = c.evidence.yaml_path or ""
    own = [j for j in repo_jobs if j.job_key != "*" and (path == j.job_key or path.startswith(j.job_key + "."))]
    if own:
        return [(j, C, "job") for j in own]
    certain = _segments(path)[:1] and _segments(path)[0] in _GITLAB_GLOBAL
    return [(j, C if certain else P, "pipeline") for j in repo_jobs]


def _node(repo: Repository, found: list[LiteralCredential], nid: str) -> Credential:
    first = min(found, key=lambda c: (c.evidence.file, c.evidence.line or 0))
    return Credential(id=nid, name=f"{first.kind} written in {repo.full_name}/{first.evidence.file}",
                      credential_type="literal", host="", path=first.evidence.file, fingerprint=first.fingerprint,
                      repository=repo.full_name, literal_kind=first.kind,
                      evidence=sorted({c.evidence for c in found}, key=lambda e: (e.file, e.line or 0,
                                                                                  e.yaml_path or "")))


def _by_repository(jobs: Iterable[Job]) -> dict[tuple[str, str], list[Job]]:
    out: dict[tuple[str, str], list[Job]] = {}
    for j in jobs:
        out.setdefault(_key(j.platform, j.repository), []).append(j)
    return out


def link_literal_credentials(graph: Graph, jobs: Sequence[Job]) -> None:
    """Add a ``credential`` node per repository and literal value, and the ``reads_secret`` edges of the jobs
    that receive it (rules in the module docstring).  ``jobs``: the jobs that may run (``never_runs`` left out)."""
    repos = [r for r in graph.nodes(NodeKind.REPOSITORY) if isinstance(r, Repository) and r.literal_credentials]
    if not repos:
        return
    by_repo = _by_repository(jobs)
    called = _callers(jobs)
    for repo in repos:
        values: dict[str, list[LiteralCredential]] = {}
        for c in repo.literal_credentials:
            values.setdefault(c.fingerprint, []).append(c)
        repo_jobs = by_repo.get(_key(repo.platform, repo.full_name), [])
        for fp, found in sorted(values.items()):
            try:
                nid = ids.literal_credential(repo.full_name, fp, repo.platform)
            except ids.IdError:
                continue  # a repository no id holds was reported when it was read
            graph.add_node(_node(repo, found, nid))
            for jid, (confidence, evidence, kinds, via) in _receivers(repo, found, repo_jobs, called).items():
                graph.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=jid, target=nid, evidence=evidence,
                                    confidence=confidence, revoked_by=RevocationAction.ROTATE_CREDENTIAL,
                                    props={"literal": kinds, "via": via}))


def _receivers(repo: Repository, found: list[LiteralCredential], repo_jobs: Sequence[Job],
               called: dict[str, list[Job]]) -> dict[str, tuple[Confidence, list, list[str], list[str]]]:
    """Per receiving job id: its confidence (``certain`` if one place hands it over for sure), the places
    (evidence), the token formats and how each place reaches it (``job``, ``called``, ``workflow``,
    ``pipeline``, ``repository``)."""
    out: dict[str, tuple[Confidence, list, list[str], list[str]]] = {}
    for c in sorted(found, key=lambda c: (c.evidence.file, c.evidence.line or 0, c.evidence.yaml_path or "")):
        receivers = (_gitlab_receivers(c, repo_jobs) if repo.platform == "gitlab"
                     else _github_receivers(c, repo_jobs, called))
        for job, confidence, via in receivers:
            conf, evs, kinds, vias = out.get(job.id, (P, [], [], []))
            out[job.id] = (C if C in (conf, confidence) else P, evs + [c.evidence] * (c.evidence not in evs),
                           kinds + [c.kind] * (c.kind not in kinds), vias + [via] * (via not in vias))
    return out
