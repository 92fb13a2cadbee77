"""GitLab ID tokens as OIDC identities, evaluated against AWS trust policies (pure graph -> graph, idempotent).

A GitLab job with ``id_tokens`` (https://docs.gitlab.com/ci/yaml/#id_tokens) presents a JWT whose ``iss`` is the
GitLab instance URL and whose ``sub`` is ``project_path:{project}:ref_type:{branch|tag}:ref:{name}``
(https://docs.gitlab.com/ci/secrets/id_token_authentication/).  The claim facts, with their sources and dates,
are data: ``graphkit/data/gitlab_oidc_claims.json`` (:data:`CLAIMS`).

For each such job: an :class:`~graphkit.model.OIDCIdentity` (``oidc:{job id}``, issuer ``https://{instance}``,
the ``sub`` values its pipelines present) and ``job -> identity`` ``mints_oidc``.  Then for every ingested AWS
role with a trust policy, :func:`graphkit.iam.web_identity_trust` (the evaluator GitHub identities use) decides
``identity -> role`` ``assumes_role`` with the request context ``{host}:sub`` (one per pipeline the job runs in;
``*`` for a ref name not known) and ``{host}:aud`` (each audience of the job's tokens: alternatives the attacker
picks among; the jobs of a dynamic child pipeline, ``GitLabJob.generated``, may request any audience: each the
trust names, every edge ``possible``).  A trust that accepts any branch of the project is marked ``broad_trust`` (narrowed first).  AWS STS evaluates no GitLab-specific claim: every other ``{host}:`` key is absent (data:
``sts_condition_keys``).  ``certain`` when decided, ``possible`` when it depends on an unknown ref name.

The instance: the identity's issuer when the ``gitlab-ci`` ingestor made it (the checkout's remote), else the
one the graph's GitLab runners and variables name (none: ``gitlab.com``; several: one evaluation per instance,
``possible``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphkit.graph import Graph
from graphkit.iam import ClaimValue, Tri, or3, web_identity_trust
from graphkit.model import CloudRole, Confidence, Edge, EdgeKind, Job, Lifetime, NodeKind, OIDCIdentity, ids
from graphkit.model.gitlab import GitLabJob, GitLabTrigger
from graphkit.oidc import issuer_host, subject_value
from graphkit.resolve.context import nodes_of_kind
from graphkit.resolve.gitlab import GitLabContext

__all__ = ["CLAIMS", "STS_KEYS", "gitlab_subjects", "link_gitlab_oidc"]

#: The dated GitLab ID token and AWS condition-key facts.
CLAIMS: dict[str, Any] = json.loads((Path(__file__).parent.parent / "data" / "gitlab_oidc_claims.json")
                                    .read_text(encoding="utf-8"))
#: Claims of a GitLab token AWS STS evaluates (``aud``, ``sub``); any other ``{host}:`` key is absent.
STS_KEYS: frozenset[str] = frozenset(CLAIMS["sts_condition_keys"]["standard"] + CLAIMS["sts_condition_keys"]["gitlab"])


def _refs(t: GitLabTrigger, default_branch: str | None = None) -> list[str]:
    """Ref names of a pipeline: literal names, ``*`` for any or a ``/regex/``; ``$CI_DEFAULT_BRANCH`` is the
    project's default branch when known, else ``*`` (like any name known only at run time)."""
    if t.refs is None:
        return ["*"]
    out = []
    for r in t.refs:
        if r == "$CI_DEFAULT_BRANCH" and default_branch:
            out.append(default_branch)
        elif r.startswith("$") or (r.startswith("/") and r.endswith("/") and len(r) > 1):
            out.append("*")
        else:
            out.append(r)
    return list(dict.fromkeys(out))


def gitlab_subjects(job: GitLabJob, default_branch: str | None = None) -> list[str]:
    """The ``sub`` values a job's ID tokens carry, one per pipeline ref (``*``: unknown text; ``default_branch``:
    the project's, for ``$CI_DEFAULT_BRANCH``; it was kept as that literal text, which no trust matches).

    A merge request pipeline runs on the source branch; from a fork, ``project_path`` is the fork's (unknown).

    >>> from graphkit.model import Evidence
    >>> from graphkit.model.gitlab import GitLabJob, GitLabTrigger
    >>> ev = Evidence(file=".gitlab-ci.yml")
    >>> j = GitLabJob(project="acme/app", config_file=".gitlab-ci.yml", file=".gitlab-ci.yml", name="d", evidence=ev,
    ...               triggers=(GitLabTrigger(ref_type="branch", sources=("push",), refs=("main",), evidence=ev),
    ...                         GitLabTrigger(ref_type="tag", sources=("push",), evidence=ev)))
    >>> gitlab_subjects(j)
    ['project_path:acme/app:ref_type:branch:ref:main', 'project_path:acme/app:ref_type:tag:ref:*']
    """
    out = []
    for t in job.triggers:
        project = "*" if t.ref_type == "merge_request" and t.from_fork is not False else job.project
        ref_type = "tag" if t.ref_type == "tag" else "branch"
        out += [f"project_path:{project}:ref_type:{ref_type}:ref:{ref}" for ref in _refs(t, default_branch)]
    return list(dict.fromkeys(out))


def _audiences(job: GitLabJob, statements: list[Any] | None = None, host: str = "") -> list[str]:
    """The ``aud`` values the job's tokens carry; a dynamic child pipeline's job (``generated``) may request any,
    so every ``{host}:aud`` value the trust policy's conditions name (none named: no ``aud``)."""
    if job.generated and statements is not None:
        return _named_audiences(statements, host)
    return list(dict.fromkeys(a for tok in job.id_tokens for a in tok.aud))


def _named_audiences(statements: list[Any], host: str) -> list[str]:
    key = f"{host.lower()}:aud"
    out = [v for st in statements for block in st.conditions.values() for k, values in block.items()
           if k.lower() == key for v in values]
    return list(dict.fromkeys(out))


def _identity(graph: Graph, job: Job, gl: GitLabJob, host: str) -> OIDCIdentity:
    """The job's identity node: the one the ``gitlab-ci`` ingestor made (its issuer is the project's instance), else
    a new one with its ``mints_oidc`` edge."""
    oid = ids.oidc_identity(job.id)
    if oid in graph:
        made = graph.node(oid)
        assert isinstance(made, OIDCIdentity)
        return made
    node = OIDCIdentity(id=oid, name=f"ID token of {gl.project} {gl.name}", issuer=f"https://{host}",
                        repository=gl.project, subjects=gitlab_subjects(gl),
                        evidence=[tok.evidence for tok in gl.id_tokens][:1] or [gl.evidence])
    stored = graph.add_node(node)
    graph.add_edge(Edge(kind=EdgeKind.MINTS_OIDC, source=job.id, target=oid,
                        evidence=[tok.evidence for tok in gl.id_tokens] or [gl.evidence],
                        confidence=Confidence.POSSIBLE if gl.generated else Confidence.CERTAIN,
                        lifetime=Lifetime.OIDC_TOKEN, props={"aud": _audiences(gl), "platform": "gitlab",
                                                             **({"generated": True} if gl.generated else {})}))
    assert isinstance(stored, OIDCIdentity)
    return stored


def _known(host: str) -> Callable[[str], bool]:
    """Keys known absent when missing: every ``{host}:`` key (STS evaluates only ``sub`` and ``aud``)."""
    prefix = f"{host.lower()}:"
    return lambda key: key.lower().startswith(prefix)


def _evaluate(statements: list[Any], role: CloudRole, host: str, subs: list[str], auds: list[str]) -> tuple[Tri, list[str]]:
    """OR over the (sub, aud) alternatives the attacker picks; the subjects accepted."""
    from graphkit.cloud import _partition  # the role's ARN partition
    best: Tri = False
    accepted: list[str] = []
    for sub in subs:
        for aud in auds or [""]:
            ctx = {f"{host}:sub": [subject_value(sub)]}
            if aud:
                ctx[f"{host}:aud"] = [ClaimValue(aud)]
            m = web_identity_trust(statements, role.account or "", ctx, known_keys=_known(host), provider_host=host,
                                   partition=_partition(role.identifier))
            if m.result is not False:
                accepted.append(sub)
                best = or3([best, m.result])
    return best, list(dict.fromkeys(accepted))


def _mark_broad(graph: Graph, role: CloudRole, statements: list[Any], gl: GitLabJob, host: str) -> None:
    """A trust that accepts every branch of the project (no ref pinned: ``project_path:G/P:*`` or no ``sub``) is a
    door any push reopens, whatever runner runs it: ``broad_trust`` (the plan narrows it first, as for GitHub)."""
    if role.broad_trust:
        return
    any_branch = f"project_path:{gl.project}:ref_type:branch:ref:*"
    result, _ = _evaluate(statements, role, host, [any_branch], _audiences(gl, statements, host))
    if result is True:
        graph.replace_node(role.model_copy(update={"broad_trust": True}))


def _roles(graph: Graph) -> list[tuple[CloudRole, list[Any]]]:
    from graphkit.cloud import _statements
    out = []
    for r in nodes_of_kind(graph, NodeKind.CLOUD_ROLE):
        if isinstance(r, CloudRole) and r.provider == "aws" and (r.trust == "known" or r.trust_policy is not None):
            st = _statements(r)
            if st:
                out.append((r, st))
    return sorted(out, key=lambda x: x[0].id)


def _link_roles(graph: Graph, identity: OIDCIdentity, gl: GitLabJob, hosts: list[str],
                roles: list[tuple[CloudRole, list[Any]]], default_branch: str | None = None) -> None:
    from graphkit.cloud import _iam_evidence
    subjects = gitlab_subjects(gl, default_branch)  # from the job's pipelines (a fork's merge request: its own path)
    for role, statements in roles:
        results = [(h, *_evaluate(statements, role, h, subjects, _audiences(gl, statements, h))) for h in hosts]
        hits = [(h, r, s) for h, r, s in results if r is not False]
        if not hits:
            continue
        certain = len(hosts) == 1 and hits[0][1] is True and role.trust == "known" and not gl.generated
        _mark_broad(graph, role, statements, gl, hits[0][0])
        base = _iam_evidence(role)
        graph.add_edge(Edge(kind=EdgeKind.ASSUMES_ROLE, source=identity.id, target=role.id,
                            evidence=[base] if base else list(identity.evidence),
                            confidence=Confidence.CERTAIN if certain else Confidence.POSSIBLE,
                            props={"via": "oidc", "trust": "evaluated", "issuer": [f"https://{h}" for h, _, _ in hits],
                                   "subjects": [s for _, _, subs in hits for s in subs][:5]}))


def link_gitlab_oidc(graph: Graph) -> None:
    """Identities of the GitLab jobs with ``id_tokens`` and their ``assumes_role`` edges (module docstring).

    Parameters
    ----------
    graph
        a merged graph (GitLab jobs, AWS roles with trust policies optional).

    Returns
    -------
    None
        ``graph`` gains OIDC identities, ``mints_oidc`` and ``assumes_role`` edges (idempotent).
    """
    jobs = [j for j in nodes_of_kind(graph, NodeKind.JOB) if isinstance(j, Job) and j.platform == "gitlab" and j.gitlab
            and (j.gitlab.id_tokens or j.gitlab.generated) and j.gitlab.triggers and j.gitlab.bridge is None]
    if not jobs:
        return
    ctx = GitLabContext.of(graph)
    known = sorted(ctx.instances) or ["gitlab.com"]
    roles = _roles(graph)
    for job in jobs:
        gl = job.gitlab
        assert gl is not None
        identity = _identity(graph, job, gl, known[0])
        issuer = issuer_host(identity.issuer).lower()
        hosts = [issuer] if issuer else known  # the ingestor read the instance from the checkout's remote
        _link_roles(graph, identity, gl, hosts, roles, ctx.project(gl.project).get("default_branch"))

