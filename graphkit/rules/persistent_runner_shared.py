"""``persistent-runner-shared``: a persistent self-hosted runner that takes jobs from many or untrusted sources.

A non-ephemeral runner keeps its host, work folder and caches between jobs
(semantics §2, §3 "Caches"): a job of one repository can poison what the next
job -- of another repository -- runs.  Worst when the jobs come from a public
repository or a ``pull_request_target`` workflow (code from any fork runs
with the base repository's secrets and a write token).  Unknown ``ephemeral``
counts as persistent (``possible``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from graphkit.findings import Finding, FindingOptions, Severity, rule
from graphkit.graph import Graph
from graphkit.model import Confidence, Edge, EdgeKind, Job, NodeKind, Repository, Runner, Workflow, ids
from graphkit.resolve import top_level_workflow

__all__ = ["persistent_runner_shared"]


def _top_workflow(graph: Graph, job: Job) -> Workflow | None:
    """The workflow that triggers a job (for a reusable workflow's job: the top-level caller's)."""
    top = top_level_workflow(job.id)
    if top is None:
        return None
    wid = ids.workflow(*top)
    node = graph.node(wid) if wid in graph else None
    return node if isinstance(node, Workflow) else None


def _is_public(graph: Graph, full_name: str, platform: str = "github") -> bool:
    """The repository (GitLab: project) is in the graph and public."""
    try:
        rid = ids.gitlab_project(full_name) if platform == "gitlab" else ids.repository(full_name)
    except ids.IdError:
        return False
    node = graph.node(rid) if rid in graph else None
    return isinstance(node, Repository) and node.visibility == "public"


@dataclass
class _Sources:
    """Where a runner's jobs come from: repository -> routed with certainty; public repositories;
    ``pull_request_target`` workflows."""

    repos: dict[str, bool] = field(default_factory=dict)
    public: set[str] = field(default_factory=set)
    prt: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, graph: Graph, edges: list[Edge]) -> _Sources:
        """The sources of the jobs ``edges`` (``receives_job``) deliver."""
        out = cls()
        for e in edges:
            job = graph.node(e.target)
            if not isinstance(job, Job):
                continue
            repo = job.secrets_repository
            out.repos[repo] = out.repos.get(repo, False) or e.confidence is Confidence.CERTAIN
            if _is_public(graph, repo, job.platform):
                out.public.add(repo)
            wf = _top_workflow(graph, job)
            if wf is not None and "pull_request_target" in wf.triggers:
                out.prt.add(wf.id)
        return out

    @property
    def untrusted(self) -> bool:
        """Jobs from a public repository or a ``pull_request_target`` workflow."""
        return bool(self.public or self.prt)

    @property
    def shared(self) -> bool:
        """Worth a finding: several repositories, or any untrusted source."""
        return len(self.repos) > 1 or self.untrusted

    def certain(self, runner: Runner) -> bool:
        """Known persistent, and enough of the routes certain to make the finding so."""
        return runner.ephemeral is False and sum(self.repos.values()) >= (1 if self.untrusted else 2)

    def reasons(self) -> list[str]:
        """What makes the runner shared, for the message."""
        out = []
        if len(self.repos) > 1:
            out.append(f"{len(self.repos)} repositories ({', '.join(sorted(self.repos))})")
        if self.public:
            out.append(f"public repositories ({', '.join(sorted(self.public))})")
        if self.prt:
            out.append(f"pull_request_target workflows ({', '.join(sorted(self.prt))})")
        return out


@rule("persistent-runner-shared", title="Persistent runner takes jobs from several repositories or untrusted "
      "triggers",
      description="A non-ephemeral self-hosted runner receives jobs from more than one repository, from a public "
      "repository, or from a pull_request_target workflow: one job can persist on the host and reach the "
      "secrets of every later job.",
      help_uri="https://docs.github.com/en/actions/security-for-github-actions/security-guides/"
      "security-hardening-for-github-actions#hardening-for-self-hosted-runners",
      severity=Severity.HIGH,
      remediation="Use ephemeral runners (--ephemeral, one job per registration) or JIT runners; restrict the "
      "runner group to selected private repositories and workflows; never route public or pull_request_target "
      "jobs to persistent runners.")
def persistent_runner_shared(graph: Graph, options: FindingOptions) -> Iterator[Finding]:
    for r in graph.nodes(NodeKind.RUNNER):
        if not isinstance(r, Runner) or r.inferred or r.ephemeral is True:
            continue
        edges = [e for e in graph.out_edges(r.id) if e.kind is EdgeKind.RECEIVES_JOB]
        src = _Sources.of(graph, edges)
        if not src.shared:
            continue
        state = "persistent" if r.ephemeral is False else "possibly persistent (ephemeral unknown)"
        yield persistent_runner_shared.finding(
            r.id, subject=r.id, severity=Severity.CRITICAL if src.untrusted else Severity.HIGH,
            confidence=Confidence.CERTAIN if src.certain(r) else Confidence.POSSIBLE,
            related=sorted(e.target for e in edges),
            evidence=[*r.evidence, *(x for e in edges[:5] for x in e.evidence)],
            message=f"{state} runner {r.scope}/{r.name} takes jobs from " + "; ".join(src.reasons()),
            repositories=sorted(src.repos), public_repositories=sorted(src.public),
            pull_request_target=sorted(src.prt), ephemeral=r.ephemeral)
