"""The cross-source linker: jobs to runners, secrets and host caches (GitHub semantics).

:func:`resolve` runs once after every ingestor (see :func:`graphkit.build.build_graph`).
It is pure graph -> graph (no I/O) and idempotent: resolving twice gives the
same graph.  Its input facts are node fields (:class:`~graphkit.model.Job`
routing and secret fields, :class:`~graphkit.model.Runner`,
:class:`~graphkit.model.RunnerGroup`, :class:`~graphkit.model.Repository`,
:class:`~graphkit.model.Secret`) and ``graph.meta.runner_inventory``
(written by :mod:`ingest.runner_inventory`: hosted-label overrides, which
secret lists are complete).  Its own findings are summarised in
``graph.meta.resolve``.  A job whose ``if`` is false in every run (:attr:`~graphkit.model.Job.never_runs`,
https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idif) is skipped
by GitHub: no pass below links it.

Routing (``shared/docs/semantics.md`` §2)
-----------------------------------------
For each job and each ``runs-on`` candidate that is self-hosted
(:func:`graphkit.hosted.is_self_hosted`), an edge ``runner -> job``
``RECEIVES_JOB`` from every real (non-inferred) runner that

1. has **all** requested labels, case-insensitively, ``self-hosted`` being
   implicit on every self-hosted runner (GitHub docs "Choosing the runner for a
   job", https://docs.github.com/en/actions/using-jobs/choosing-the-runner-for-a-job);
2. is registered to the job's repository or to its owner (for a reusable
   workflow: the **caller**'s repository, ``Job.secrets_repository``; GitHub docs
   "Reusing workflows", self-hosted runners are accessed from the caller's context);
3. for org runners, belongs to a group the repository may use (GitHub docs
   "Managing access to self-hosted runners using groups",
   https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/managing-access-to-self-hosted-runners-using-groups):
   visibility ``all``; ``selected`` with the repository listed; ``private``
   for private and internal repositories; public repositories only with
   ``allows_public_repositories``; with ``restricted_to_workflows`` the job's
   workflow ``owner/repo/path`` must be in ``selected_workflows``;
4. with ``runs-on: {group: G}``, is in group ``G`` (case-insensitive; repository
   runners are in no group).  Label collisions between groups: GitHub changelog
   2022-10-31 (job routing when runners of several groups share labels).

Confidence is ``possible`` when the candidate is, when a deciding fact is
unknown (repository visibility, a group not in the inventory, a selected list
not read, a workflow restriction pinned to a ref other than the default
branch), and for ephemeral runners (only one future job; lifetime
``per_job``).  Persistent or unknown runners: ``until_runner_removed``.

Edge keys: ``""`` for a job with one candidate and no matrix, else
``matrix={json}`` or ``labels=a,b[;group=g]``, so matrix instances routed to
different runners stay distinguishable.

Inferred pools: a self-hosted label set that no inventory runner of the owner
serves (labels, scope and group pin; group *access* is not considered) becomes
a ``runner:inferred:{owner}:{labels}`` runner (:func:`graphkit.model.ids.runner_pool`:
labels sorted, lower-cased, ``self-hosted`` included, joined by ``+``); every unserved candidate is linked
(``possible``) to each pool of its owner whose labels include the requested
ones.  ``runs_on_unresolved`` links ``possible`` edges (key ``unresolved``)
from every real runner the repository can use and every pool of the owner,
and makes no pool: a run-time ``runs-on`` may name a GitHub-hosted runner, none
of the owner's (GitHub docs "Workflow syntax", ``jobs.<job_id>.runs-on``,
https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idruns-on).
With no such runner or pool the job stays in ``unresolved_jobs`` (never
silently dropped).  Literal labels beside the run-time part that name
``self-hosted`` are a ``possible`` candidate of their own, routed and pooled as
any (the ingestor's ``runs_on_candidates``).  A job calling a reusable workflow
that is not in the input (:func:`~graphkit.resolve.routing.unread_callee`) is
one of these: the finding ``called-workflow-not-read`` names it (edges it does
get carry prop ``called_workflow_unread``).

Secrets (semantics §3; GitHub docs "Using secrets in GitHub Actions",
https://docs.github.com/en/actions/security-for-github-actions/security-guides/using-secrets-in-github-actions)
------------------------------------------------------------------------------------------
A name resolves to the environment secret of the job's ``environment``, else
the repository secret, else the organization secret visible to the repository
(``all``; ``private``: private and internal repositories; ``selected``).  The
edge is ``possible`` when visibility is unknown or when a scope that would
shadow it is not known complete.  With no declared secret of that name: a
``secret:{owner}/{repo}:{NAME}`` node of scope ``unknown`` (:func:`graphkit.model.ids.secret_unknown`).  ``all_secrets``
(``toJSON(secrets)``, dynamic ``secrets[...]``) links every secret visible to
the job (each name resolved as above), plus ``secret:all:{owner}/{repo}``
(``possible``) unless the organization, repository and environment lists are
all complete.  ``secret_grants`` add ``secret -> target`` edges of the grant's
kind (lifetime ``until_rotated``), plus the ``READS_SECRET`` edge.
``GITHUB_TOKEN`` is the job's token (``HAS_TOKEN``), not a stored secret: skipped.
In a called workflow ``secrets`` and the GITHUB_TOKEN are the caller's
(https://docs.github.com/en/actions/sharing-automations/reusing-workflows): the run of a reusable workflow by a
caller graphkit did not read (its instance with no caller) reads, ``possible``, the secrets of that caller's
repositories (:func:`~graphkit.resolve.routing.unknown_caller_repos`: ``owner/*`` of the runners it is routed to,
else ``*/*``, any repository), e.g. ``secret:all:{owner}/*`` and ``secret:{owner}/*:{NAME}``, and its token's
``writes_repository`` goes to ``repo:{owner}/*`` (or ``repo:*/*``), never to the called repository.

Literal credentials
-------------------
A credential written in a workflow, action or ``.gitlab-ci.yml`` file is a ``credential`` node
(``credential:literal:{repo}:{fingerprint}``) read (``reads_secret``, cut by ``rotate_credential``) by the jobs it
is handed to (:mod:`~graphkit.resolve.literals`).

Environment branch policies
---------------------------
A job reaches an environment (``deploys_to``) and its secrets only when its
refs (:mod:`graphkit.refs`) pass the environment's deployment branch policy:
``possible`` when some may, removed (``meta.resolve.environments_denied``)
when none can (:mod:`~graphkit.resolve.environments`).

Untrusted entry points
----------------------
``untrusted:{actor}:{owner}`` nodes and their ``can_trigger`` edges to the
jobs (or, from fork ``pull_request`` runs, the runners) that run code of
people who are not trusted (:mod:`~graphkit.resolve.untrusted`).

Writers
-------
Whoever writes a repository (a ``writes_repository`` token, ``org-member``) runs code in the jobs that run its
code (``repo -runs_code_in-> job``, and the runners and hosts they persist on); a token that can change workflow files also runs a workflow on every runner
the repository can use (``token -writes_workflows-> runner``); on-disk tokens with known scopes write the
repositories they act on (:mod:`~graphkit.resolve.writers`).

Host caches (semantics §3 "Caches")
-----------------------------------
For every job a runner on a non-ephemeral host receives, every cache that host
shares gets ``cache -> job`` ``RESTORES_INTO`` (same confidence as the routing
edge).  A job reaches a host's caches only through the host it persists on
(``job -persists_on-> host -shares_cache-> cache``), so reimaging the host cuts
them, and a job that may also land elsewhere does not reach this host's caches
by a "possible write".

GitLab
------
GitLab jobs to GitLab runners (tags, ``run_untagged``, protected refs and ``ref_protected`` runners, runner
scope, paused), the CI/CD variables they receive (protected, environment scope) and what the executor lets a
job leave on the runner or host: :mod:`~graphkit.resolve.gitlab`.
Kubernetes
----------
Jobs routed to an Actions Runner Controller pool hold its pods' service account token and mounted Secrets; IRSA
trusts are evaluated; ``aws-auth`` roles join the IAM export (:mod:`~graphkit.resolve.k8s`).

Persistence and registrars
--------------------------
``job -> runner`` / ``job -> host`` ``PERSISTS_ON`` (:mod:`~graphkit.resolve.persistence`) and the credentials
that can register new runners (:mod:`~graphkit.resolve.registration`).

Ids
---
Every id the linker makes or looks up is built by :mod:`graphkit.model.ids`
(ids read from ``graph.meta``, such as ``secrets_complete``, are rewritten by
their constructor first, so ``repo:Acme/App`` and ``repo:acme/app`` agree).  A
value that cannot be part of an id (a ``runs-on`` label or a secret name
holding ``:``) is not linked and becomes a problem in ``graph.meta.problems``
naming the file and place; resolving never stops on it.

Layout: :mod:`~graphkit.resolve.context` (what a run reads once),
:mod:`~graphkit.resolve.routing`, :mod:`~graphkit.resolve.secrets`,
:mod:`~graphkit.resolve.caches`.

Examples
--------
>>> from graphkit.graph import Graph
>>> from graphkit.model import EdgeKind, Evidence, Job, Runner, RunsOnCandidate
>>> ev = Evidence(file="ci.yml")
>>> g = Graph()
>>> _ = g.add_node(Runner(id="runner:acme/r1", name="r1", scope="acme", labels=["self-hosted", "Linux"],
...                       runner_group=None, evidence=[ev]))
>>> _ = g.add_node(Job(id="job:acme/app/ci.yml#t", name="t", repository="acme/app", workflow_path="ci.yml",
...                    job_key="t", secrets_repository="acme/app", evidence=[ev],
...                    runs_on=[RunsOnCandidate(labels=("linux",), evidence=ev)]))
>>> resolve(g)
>>> sorted((e.kind.value, e.source, e.target, e.confidence.value) for e in g.edges())
[('can_trigger', 'untrusted:org-member:acme', 'runner:acme/r1', 'possible'), ('persists_on', 'job:acme/app/ci.yml#t', 'runner:acme/r1', 'possible'), ('receives_job', 'runner:acme/r1', 'job:acme/app/ci.yml#t', 'possible')]

(``possible``: the runner names no group and no group is in the graph; the job's code can persist on the
runner, whose ``ephemeral`` is unknown; an organization member with write access can push a workflow whose
``runs-on`` names it: :mod:`~graphkit.resolve.untrusted`, rule 8.)
"""

from __future__ import annotations

from graphkit.graph import Graph
from graphkit.meta import ResolveSummary
from graphkit.model import Job, NodeKind
from graphkit.resolve.caches import link_host_caches
from graphkit.resolve.context import Context, nodes_of_kind
from graphkit.resolve.environments import apply_branch_policies, link_unknown_environments
from graphkit.resolve.gitlab import link_gitlab
from graphkit.resolve.gitlab_join import join_gitlab_registrations
from graphkit.resolve.gitlab_untrusted import link_gitlab_untrusted
from graphkit.resolve.observed import link_observed
from graphkit.resolve.literals import link_literal_credentials
from graphkit.resolve.k8s import link_k8s
from graphkit.resolve.persistence import link_persistence
from graphkit.resolve.registration import link_registration
from graphkit.resolve.routing import route, top_level_workflow
from graphkit.resolve.secrets import link_secrets, link_unknown_caller_tokens
from graphkit.resolve.untrusted import link_untrusted
from graphkit.resolve.writers import link_writers

__all__ = ["resolve", "top_level_workflow"]


def resolve(graph: Graph) -> None:
    """Add routing, secret and host-cache edges to ``graph`` in place.

    Parameters
    ----------
    graph
        a graph holding the nodes of every ingestor (jobs, runners, groups,
        repositories, secrets, hosts, caches); ``graph.meta.runner_inventory``
        optional.

    Returns
    -------
    None
        ``graph`` gains ``RECEIVES_JOB``, ``READS_SECRET``, secret-grant,
        ``RESTORES_INTO`` and ``WRITES_CACHE`` edges, inferred runner pools and
        secrets of scope ``unknown``/``all``; ``graph.meta.resolve`` lists
        ``inferred_pools``, ``unresolved_jobs``, ``unknown_secrets``,
        ``dangling_grants`` (grant targets absent from the graph) and
        ``unrouted_candidates`` (label sets served by runners whose group
        denies the repository).  A ``runs-on`` label or secret name that
        cannot be part of an id is left unlinked and appended (once) to
        ``graph.meta.problems`` with its file and place.

    Raises
    ------
    GraphkitError
        only if the graph breaks the model (an edge kind between disallowed
        node kinds), never for missing or unknown facts.

    Notes
    -----
    Idempotent: calling it twice gives an equal graph.  Rules and sources are
    in the module docstring.
    """
    join_gitlab_registrations(graph)  # GitLab registrations on hosts -> inventory runners (token fingerprint)
    link_observed(graph)  # job history first: observed jobs and runner sightings are then routed and resolved
    ctx = Context.of(graph)
    # a job whose ``if`` is false in every run (``Job.never_runs``) reaches nothing: not routed, no edge made
    jobs = [j for j in nodes_of_kind(graph, NodeKind.JOB) if isinstance(j, Job) and j.never_runs is None]
    route(ctx, jobs)
    ctx.summary["inferred_pools"].update(link_gitlab(graph))
    link_secrets(ctx, jobs)
    link_unknown_caller_tokens(ctx, jobs)  # a run by a caller not read: its token is that caller's
    link_unknown_environments(ctx, jobs)  # an environment known only at run time: any of the repository's
    apply_branch_policies(ctx, jobs)
    link_untrusted(ctx, jobs)
    link_gitlab_untrusted(graph)
    link_host_caches(ctx)
    link_persistence(graph)
    link_k8s(graph)
    link_writers(ctx, jobs)  # what whoever writes a repository runs: its jobs and where they persist; token writes
    link_registration(ctx, jobs)
    link_literal_credentials(graph, jobs)  # values written in CI files: read by the jobs they are handed to
    graph.meta.resolve = ResolveSummary(**{k: sorted(v) for k, v in ctx.summary.items()})
    from graphkit.cloud import link_cloud  # OIDC trust evaluation, pattern roles (graphkit/cloud.py)
    link_cloud(graph)
    from graphkit.resolve.gitlab_oidc import link_gitlab_oidc  # GitLab ID tokens (uses graphkit.cloud's helpers)
    link_gitlab_oidc(graph)
