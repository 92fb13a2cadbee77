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

from graphkit.findings import Finding, FindingOptions, Severity, rule
from graphkit.graph import Graph
from graphkit.model import Confidence, EdgeKind, Job, NodeKind, Repository, Runner, Workflow

__all__ = ["persistent_runner_shared"]


def _top_workflow(graph: Graph, job: Job) -> Workflow | None:
    """The workflow that triggers a job (for a reusable workflow's job: the top-level caller's)."""
    top = job.id.split(">", 1)[0].removeprefix("job:").split("#", 1)[0]
    wid = f"workflow:{top}"
    node = graph.node(wid) if wid in graph else None
    return node if isinstance(node, Workflow) else None


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
        repos: dict[str, bool] = {}        # repository -> routed with certainty
        public: set[str] = set()
        prt: set[str] = set()
        for e in edges:
            job = graph.node(e.target)
            if not isinstance(job, Job):
                continue
            repo = job.secrets_repository
            repos[repo] = repos.get(repo, False) or e.confidence is Confidence.CERTAIN
            node = graph.node(f"repo:{repo}") if f"repo:{repo}" in graph else None
            if isinstance(node, Repository) and node.visibility == "public":
                public.add(repo)
            wf = _top_workflow(graph, job)
            if wf is not None and "pull_request_target" in wf.triggers:
                prt.add(wf.id)
        if len(repos) < 2 and not public and not prt:
            continue
        sev = Severity.CRITICAL if public or prt else Severity.HIGH
        certain = r.ephemeral is False and sum(repos.values()) >= (2 if not (public or prt) else 1)
        reasons = []
        if len(repos) > 1:
            reasons.append(f"{len(repos)} repositories ({', '.join(sorted(repos))})")
        if public:
            reasons.append(f"public repositories ({', '.join(sorted(public))})")
        if prt:
            reasons.append(f"pull_request_target workflows ({', '.join(sorted(prt))})")
        state = "persistent" if r.ephemeral is False else "possibly persistent (ephemeral unknown)"
        yield persistent_runner_shared.finding(
            r.id, subject=r.id, severity=sev, confidence=Confidence.CERTAIN if certain else Confidence.POSSIBLE,
            related=sorted(e.target for e in edges), evidence=[*r.evidence, *(x for e in edges[:5] for x in e.evidence)],
            message=f"{state} runner {r.scope}/{r.name} takes jobs from " + "; ".join(reasons),
            repositories=sorted(repos), public_repositories=sorted(public), pull_request_target=sorted(prt),
            ephemeral=r.ephemeral)
