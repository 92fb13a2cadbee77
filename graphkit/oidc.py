"""GitHub Actions OIDC claims a job can present, as AWS STS evaluates them -- pure, no I/O.

Sources: GitHub docs "OpenID Connect reference"
(https://docs.github.com/en/actions/reference/security/oidc), AWS IAM User Guide "Available keys for AWS OIDC
federation" (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_iam-condition-keys.html#condition-keys-wif)
and ``shared/docs/semantics.md`` §4.  The facts that changed recently are data, in
``graphkit/data/github_oidc_claims.json`` (:data:`CLAIMS_DATA`), with their source URLs and dates:

- **which claims are condition keys** (dated, 2026-01): STS evaluates ``aud``, ``sub`` and the GitHub claims
  ``actor``, ``actor_id``, ``enterprise_id``, ``environment``, ``job_workflow_ref``, ``ref``, ``repository``,
  ``repository_id``, ``repository_owner_id``, ``workflow`` (:data:`STS_CLAIMS`).  Any other claim
  (``repository_owner``, ``event_name``, ``sha``...) is **absent** from the request context: a positive condition
  on it is false, a negated one true.
- **immutable subjects** (dated, 2026-07-15): repositories created, renamed or transferred after the cut-over (or
  opted in) present ``repo:OWNER@OWNER_ID/REPO@REPO_ID:...``; selected per repository (:class:`JobFacts`).
- **issuers**: ``token.actions.githubusercontent.com`` (optionally ``/ENTERPRISE``), and
  ``token.actions.SUBDOMAIN.ghe.com`` for GitHub Enterprise Cloud with data residency (:func:`is_github_issuer`);
  condition keys are ``{issuer host and path}:{claim}``.

Claims a job presents (GitHub "OpenID Connect reference"):

- ``sub``: ``repo:OWNER/REPO:environment:NAME`` when the job declares an environment, else
  ``repo:OWNER/REPO:pull_request`` on ``pull_request``, else ``repo:OWNER/REPO:ref:refs/heads/BRANCH`` /
  ``:ref:refs/tags/TAG``; ``:`` inside a value is written ``%3A``.  A customised ``sub`` (``include_claim_keys``)
  joins ``key:value`` pairs of the listed claims; ``context`` expands to the default context part, ``repo`` to
  ``repo:OWNER/REPO``.  An organization template applies to a repository only after it opts in.
- reusable workflows: ``sub``, ``repository``, ``ref``, ``workflow`` and the ids describe the **caller**;
  ``job_workflow_ref`` names the **called** workflow, ``OWNER/REPO/PATH@REF`` with the full ref
  (``@refs/heads/main``); outside a called workflow it names the job's own workflow at the run's ref.
- ``actor``/``actor_id``: whoever triggers the run -- a pattern (any value), never a fixed one.
- ``aud`` is chosen by the job: audience is not a boundary.

This module is the one place graphkit writes ``sub`` claims (:func:`subject`, :func:`any_branch_subject`) and
reads them (:func:`split_subject`, :func:`subject_pattern`); they are claims, not node ids.  ``*`` in a value
stands for unknown text (git ref names cannot contain ``*``): such a value is a **pattern**, and a trust that
matches only some of its instances makes the edge ``possible``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from graphkit.iam.conditions import GITHUB_ISSUER_HOST, ClaimValue

__all__ = ["SubjectParts", "SUB_PREFIX", "CLAIMS_DATA", "STS_CLAIMS", "subject", "any_branch_subject",
           "default_subjects", "split_subject", "subject_pattern", "subject_value", "render_subject",
           "candidate_subjects", "effective_template", "template_choices", "is_github_issuer", "is_ghes_issuer", "issuer_host", "full_ref",
           "job_workflow_ref", "Run",
           "runs_of", "runs_of_refs", "iam_glob", "JobFacts", "token_claims", "claim_variants"]

#: What every default-template ``sub`` starts with (a claim, not a graphkit node id).
SUB_PREFIX = "repo:"

#: The dated claim and issuer facts (``graphkit/data/github_oidc_claims.json``).
CLAIMS_DATA: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "github_oidc_claims.json").read_text(encoding="utf-8"))
#: Claims AWS STS evaluates as condition keys for GitHub tokens (others are absent keys), see module docstring.
STS_CLAIMS: frozenset[str] = frozenset(CLAIMS_DATA["sts_condition_keys"]["standard"]
                                       + CLAIMS_DATA["sts_condition_keys"]["github"])

_GHE_COM = re.compile(r"^token\.actions\.[a-z0-9][a-z0-9-]*\.ghe\.com$")
#: GitHub Enterprise Server: ``https://HOSTNAME/_services/token`` (see :data:`CLAIMS_DATA` ``issuers``)
_GHES = re.compile(r"^[a-z0-9][a-z0-9.-]*(:\d+)?/_services/token$")
_SHA = re.compile(r"^[0-9a-f]{40}$")


def issuer_host(issuer: str) -> str:
    """The condition-key prefix of an issuer URL: host and path without the scheme.

    >>> issuer_host("https://token.actions.octocorp.ghe.com/")
    'token.actions.octocorp.ghe.com'
    """
    return issuer.removeprefix("https://").rstrip("/")


def is_github_issuer(host: str) -> bool:
    """Whether ``host`` (issuer host and path, or an OIDC provider ARN's tail) is a GitHub Actions issuer.

    ``token.actions.githubusercontent.com`` (and ``.../ENTERPRISE``, the enterprise issuer) or
    ``token.actions.SUBDOMAIN.ghe.com`` (GitHub Enterprise Cloud with data residency), see :data:`CLAIMS_DATA`.

    >>> [is_github_issuer(h) for h in ("token.actions.githubusercontent.com", "token.actions.octo.ghe.com",
    ...                                "token.actions.githubusercontent.com/acme", "gitlab.com",
    ...                                "github.example.com/_services/token")]
    [True, True, True, False, True]
    """
    base = host.split("/", 1)[0]
    return base == GITHUB_ISSUER_HOST or bool(_GHE_COM.match(base)) or is_ghes_issuer(host)


def is_ghes_issuer(host: str) -> bool:
    """Whether ``host`` is a GitHub Enterprise Server issuer, ``HOSTNAME/_services/token`` (GitHub Enterprise
    Server docs "OpenID Connect", :data:`CLAIMS_DATA` ``issuers``).  AWS STS reads only ``sub`` and ``aud`` of its
    tokens: the GitHub claims it added in 2026-01 are those of ``token.actions.githubusercontent.com``.

    >>> is_ghes_issuer("github.example.com/_services/token"), is_ghes_issuer("token.actions.githubusercontent.com")
    (True, False)
    """
    return bool(_GHES.match(host.lower()))


@dataclass(frozen=True)
class SubjectParts:
    """The parts of a default-template subject: repository and context.

    ``context`` is ``environment:NAME``, ``pull_request`` or ``ref:refs/...``.
    """

    repository: str
    context: str

    @property
    def owner(self) -> str:
        """The owner part of :attr:`repository` (text before the first ``/``)."""
        return self.repository.partition("/")[0]

    @property
    def name(self) -> str:
        """The repository name part of :attr:`repository` (text after the first ``/``; empty without one)."""
        return self.repository.partition("/")[2]

    @property
    def environment(self) -> str | None:
        """The environment name, if the context is one."""
        return self.context.split(":", 1)[1] if self.context.startswith("environment:") else None

    @property
    def ref(self) -> str | None:
        """``refs/heads/...`` or ``refs/tags/...``, if the context is a ref."""
        return self.context.split(":", 1)[1] if self.context.startswith("ref:") else None


def subject(repository: str, context: str) -> str:
    """The default-template ``sub`` claim ``repo:OWNER/REPO:CONTEXT`` (either part may hold ``*`` patterns).

    >>> subject("acme/app", "environment:prod")
    'repo:acme/app:environment:prod'
    """
    return f"{SUB_PREFIX}{repository}:{context}"


def any_branch_subject(repository: str) -> str:
    """The ``sub`` pattern of every branch push of ``repository``: ``repo:OWNER/REPO:ref:refs/heads/*``.

    >>> any_branch_subject("acme/app")
    'repo:acme/app:ref:refs/heads/*'
    """
    return subject(repository, "ref:refs/heads/*")


def _claim_value(value: str) -> str:
    """A value inside ``sub``: ``:`` is written ``%3A``."""
    return value.replace(":", "%3A")


def _event_contexts(event: str, filters: Any) -> list[str]:
    """Default-template contexts of one workflow trigger (``*``: an unknown branch or tag name)."""
    filters = filters if isinstance(filters, dict) else {}
    if event == "pull_request":
        return ["pull_request"]
    if event == "release":
        return ["ref:refs/tags/*"]
    if event == "workflow_call":
        return []
    if event != "push":
        return ["ref:refs/heads/*"]
    branches, tags = filters.get("branches"), filters.get("tags")
    out = []
    if branches or not tags:
        out += [f"ref:refs/heads/{_claim_value(str(b))}" for b in (branches if isinstance(branches, list) else ["*"])]
    out += [f"ref:refs/tags/{_claim_value(str(t))}" for t in (tags if isinstance(tags, list) else [])]
    return out


def default_subjects(repository: str, triggers: Mapping[str, Any], environment: str | None) -> list[str]:
    """Default-template ``sub`` claims a job of ``repository`` can present (see the module docstring).

    ``triggers``: the triggering workflow's ``on:`` (event -> filters);
    ``environment``: the job's environment name, which replaces the event.

    >>> default_subjects("acme/app", {"push": {"branches": ["main"]}, "pull_request": {}}, None)
    ['repo:acme/app:ref:refs/heads/main', 'repo:acme/app:pull_request']
    >>> default_subjects("acme/app", {"push": {}}, "prod:eu")
    ['repo:acme/app:environment:prod%3Aeu']
    """
    if environment:
        contexts = [f"environment:{_claim_value(environment)}"]
    else:
        contexts = [c for event, filters in triggers.items() for c in _event_contexts(event, filters)]
    return list(dict.fromkeys(subject(repository, c) for c in contexts))


def split_subject(sub: str) -> SubjectParts | None:
    """Parse ``repo:OWNER/REPO:CONTEXT`` (None for another shape).

    >>> split_subject("repo:acme/app:environment:prod")
    SubjectParts(repository='acme/app', context='environment:prod')
    """
    if not sub.startswith(SUB_PREFIX):
        return None
    repo, sep, context = sub.removeprefix(SUB_PREFIX).partition(":")
    if not sep or "/" not in repo:
        return None
    return SubjectParts(repo, context)


def subject_value(sub: str) -> ClaimValue:
    """A ``sub`` claim a job presents as a request value: a pattern when it holds ``*`` or ``?``, whose wildcards
    stand for one field value each (``segments``: text without ``:``), unless a whole context is unknown.

    A field value of a subject never contains ``:``: GitHub writes a ``:`` inside a value as ``%3A`` (GitHub docs
    "OpenID Connect reference", example subject claims,
    https://docs.github.com/en/actions/reference/security/oidc#example-subject-claims), an owner or repository
    name holds only alphanumerics, ``-``, ``_`` and ``.``
    (https://docs.github.com/en/repositories/creating-and-managing-repositories/repository-limits), a git branch
    or tag cannot hold ``:`` (git-check-ref-format, https://git-scm.com/docs/git-check-ref-format), and a GitLab
    group or project path only letters, digits, ``_``, ``-``, ``.`` and ``/``
    (https://docs.gitlab.com/user/reserved_names/#rules-for-usernames-project-and-group-names-and-slugs).  So
    ``project_path:*:ref_type:branch:ref:*`` cannot match ``project_path:g/p:ref_type:tag:ref:*``.  The fields
    alternate ``key:value`` (``pull_request`` alone); a ``*`` where a key is expected is an unknown context
    (``repo:acme/*:*``, an unknown caller) or a wholly unknown subject (``*``), whose text may span fields.

    >>> v = subject_value("project_path:*:ref_type:branch:ref:*"); (v.pattern, v.segments)
    (True, True)
    >>> [subject_value(s).segments for s in ("repo:acme/*:*", "*", "repo:a/b:pull_request", "repo:a/b:environment:*")]
    [False, False, False, True]
    """
    pattern = "*" in sub or "?" in sub
    fields, i, spans = sub.split(":"), 0, False
    while pattern and i < len(fields):
        if fields[i] == "pull_request":
            i += 1
        elif "*" in fields[i] or "?" in fields[i]:
            spans = True
            break
        else:
            i += 2
    return ClaimValue(sub, pattern=pattern, segments=pattern and not spans)


def subject_pattern(value: str) -> SubjectParts | None:
    """Read a trusted ``sub`` value (possibly a pattern) leniently: ``repo:`` then repository up to the first
    ``:``, then the context (empty when there is no ``:``); None when it does not start with ``repo:``.

    >>> subject_pattern("repo:acme/*")
    SubjectParts(repository='acme/*', context='')
    >>> subject_pattern("*") is None
    True
    """
    if not value.startswith(SUB_PREFIX):
        return None
    repo, _, context = value.removeprefix(SUB_PREFIX).partition(":")
    return SubjectParts(repo, context)


def effective_template(templates: Mapping[str, Any], repository: str) -> list[str] | None:
    """The ``include_claim_keys`` in force for ``repository`` (None: default template), as far as known.

    ``templates`` maps ``owner`` and ``owner/repo`` (lower-case) to ``{use_default, include_claim_keys}`` as in
    the runner inventory.  A repository entry with ``use_default: false`` opts in: its own keys, else the
    organization's.  The first of :func:`template_choices`: the default when the opt-in is unknown (then both
    are candidates: use :func:`template_choices`).

    >>> effective_template({"acme": {"include_claim_keys": ["repository_owner", "context"]},
    ...                     "acme/app": {"use_default": False}}, "acme/app")
    ['repository_owner', 'context']
    >>> effective_template({"acme": {"include_claim_keys": ["repo"]}}, "acme/app") is None
    True
    """
    keys = template_choices(templates, repository)[0]
    return list(keys) if keys else None


def template_choices(templates: Mapping[str, Any], repository: str) -> list[tuple[str, ...] | None]:
    """The ``sub`` templates ``repository`` may use: one when known, the default and the organization's when
    the repository's opt-in is unknown (None: the default template).

    GitHub applies an organization template to a repository only after the repository opts in
    (``PUT /repos/{owner}/{repo}/actions/oidc/customization/sub`` with ``use_default: false``,
    https://docs.github.com/en/rest/actions/oidc, https://docs.github.com/en/actions/reference/security/oidc
    "Customizing the subject claims for an organization or repository").  The repository's answer carries
    ``use_default`` (the GitHub collector writes it), so a repository entry without ``use_default`` or keys (none,
    or only ``repository_id``/``use_immutable_subject``) leaves the choice unknown when the organization has a
    template: both subjects are candidates (:func:`claim_variants`).

    >>> org = {"acme": {"include_claim_keys": ["repo", "context"]}}
    >>> template_choices(org, "acme/app")
    [None, ('repo', 'context')]
    >>> template_choices({**org, "acme/app": {"use_default": True}}, "acme/app")
    [None]
    >>> template_choices({**org, "acme/app": {"use_default": False}}, "acme/app")
    [('repo', 'context')]
    >>> template_choices({**org, "acme/app": {"include_claim_keys": ["repo"]}}, "acme/app")
    [('repo',)]
    >>> template_choices({"acme/app": {"repository_id": 7}}, "acme/app")
    [None]
    """
    repo = templates.get(repository.lower()) or {}
    if repo.get("include_claim_keys"):
        return [tuple(repo["include_claim_keys"])]
    org = templates.get(repository.split("/", 1)[0].lower()) or {}
    org_keys = tuple(org.get("include_claim_keys") or ()) or None
    use_default = repo.get("use_default")
    if use_default is True or org_keys is None:
        return [None]
    return [org_keys] if use_default is False else [None, org_keys]


def _ref_type(ref: str | None) -> str:
    """The ``ref_type`` claim of a run's ref: ``branch`` for ``refs/heads/...`` and for a pull request's
    ``refs/pull/...`` (its ``github.ref_type``: "Valid values are ``branch`` or ``tag``", GitHub "Contexts reference",
    https://docs.github.com/en/actions/reference/workflows-and-actions/contexts#github-context), ``tag`` for
    ``refs/tags/...``; ``*`` (unknown) for a ref pattern that may be either (``refs/*``, ``refs/*/v1``) or none.

    >>> [_ref_type(r) for r in ("refs/heads/main", "refs/pull/*/merge", "refs/tags/v1", "refs/*", "refs/*/v1", None)]
    ['branch', 'branch', 'tag', '*', '*', '*']
    """
    if ref and ref.startswith(("refs/heads/", "refs/pull/")):
        return "branch"
    return "tag" if ref and ref.startswith("refs/tags/") else "*"


def render_subject(parts: SubjectParts, keys: Sequence[str], *, job_workflow_ref: str | None = None,
                   workflow_ref: str | None = None, claims: Mapping[str, str] | None = None) -> str:
    """A customised ``sub`` for ``include_claim_keys`` ``keys``: ``key:value`` pairs joined by ``:``.

    ``repo`` renders ``repo:OWNER/REPO`` (``parts.repository``, already in the immutable form when the
    repository uses it), ``context`` the default context part; other claims come from ``claims``
    (:func:`token_claims` values), with defaults derived from ``parts``; an unknown value is ``*``.

    >>> render_subject(SubjectParts("acme/app", "environment:prod"), ["repository_owner", "context"])
    'repository_owner:acme:environment:prod'
    >>> render_subject(SubjectParts("acme/app", "pull_request"), ["repository_owner_id", "repository_id", "context"],
    ...                claims={"repository_owner_id": "11", "repository_id": "22"})
    'repository_owner_id:11:repository_id:22:pull_request'
    >>> render_subject(SubjectParts("acme/app", "pull_request"), ["repo", "ref_type"])
    'repo:acme/app:ref_type:branch'
    """
    env, ref = parts.environment, parts.ref
    values = {
        "repo": parts.repository,
        "repository": parts.repository,
        "repository_owner": parts.owner.split("@", 1)[0],
        "environment": env or "",
        "ref": ref or "*",
        "ref_type": _ref_type((claims or {}).get("ref") or ref or
                              ("refs/pull/*/merge" if parts.context == "pull_request" else None)),
        "job_workflow_ref": job_workflow_ref or workflow_ref or "*",
        "event_name": "pull_request" if parts.context == "pull_request" else "*",
    }
    values.update({k: v for k, v in (claims or {}).items() if k != "repo"})
    return ":".join(parts.context if k == "context" else f"{k}:{values.get(k, '*')}" for k in keys)


# --------------------------------------------------------------------------- refs and job_workflow_ref


def full_ref(ref: str, *, branches: Iterable[str] = ()) -> str:
    """The full git ref of a ``uses: ...@REF`` (``job_workflow_ref`` always carries the full ref).

    A ``refs/...`` ref or a commit SHA stays; a name known to be a branch (``branches``, e.g. the repository's
    default branch) becomes ``refs/heads/NAME``; any other name may be a branch or a tag: ``refs/*/NAME``
    (a pattern).  GitHub "Reusing workflows" (https://docs.github.com/en/actions/how-tos/reuse-automations/reuse-workflows).

    >>> full_ref("main", branches=["main"]), full_ref("v1"), full_ref("refs/tags/v1"), full_ref("a" * 40)[:4]
    ('refs/heads/main', 'refs/*/v1', 'refs/tags/v1', 'aaaa')
    """
    if ref.startswith("refs/") or _SHA.match(ref) or ref == "*":
        return ref
    return f"refs/heads/{ref}" if ref in set(branches) else f"refs/*/{ref}"


def job_workflow_ref(repository: str, path: str, ref: str) -> str:
    """``OWNER/REPO/PATH@REF`` (GitHub "OpenID Connect reference", ``job_workflow_ref``).

    >>> job_workflow_ref("acme/ci", ".github/workflows/deploy.yml", "refs/heads/main")
    'acme/ci/.github/workflows/deploy.yml@refs/heads/main'
    """
    return f"{repository}/{path}@{ref}"


# --------------------------------------------------------------------------- runs and token claims


@dataclass(frozen=True)
class Run:
    """One way a job can run: the default-template ``context`` of its ``sub``, the ``ref`` claim (a pattern
    when not fixed) and the environment (None: no ``environment`` claim).  ``caller_unknown``: a run of a
    reusable workflow called by a workflow graphkit did not read (any repository that can call it): the
    caller's claims (``sub``, ``repository``, ids, ``workflow``) are patterns or unknown, ``job_workflow_ref``
    names this workflow.  ``caller``: for such a run, what is known of the caller's repository as the ``sub``
    writes it (``owner/*`` or ``owner/name``, ``owner@ID/*@*`` in the immutable format; None: any repository,
    and its ``sub`` template unknown), from the runners the run is routed to
    (:func:`graphkit.resolve.routing.caller_scopes`): the ``sub`` and ``repository`` describe the caller
    (https://docs.github.com/en/actions/security-for-github-actions/security-hardening-your-deployments/about-security-hardening-with-openid-connect)."""

    context: str
    ref: str
    environment: str | None = None
    caller_unknown: bool = False
    caller: str | None = None


def runs_of(subjects: Sequence[str]) -> list[Run]:
    """The runs behind default-template subjects (``OIDCIdentity.subjects``).

    A ``pull_request`` run has ref ``refs/pull/*/merge``; an environment subject does not say the ref
    (``refs/*``).

    >>> [(r.ref, r.environment) for r in runs_of(["repo:a/b:ref:refs/heads/main", "repo:a/b:pull_request",
    ...                                            "repo:a/b:environment:prod"])]
    [('refs/heads/main', None), ('refs/pull/*/merge', None), ('refs/*', 'prod')]
    """
    out: list[Run] = []
    for s in subjects:
        parts = split_subject(s)
        if parts is None:
            continue
        if parts.ref is not None:
            out.append(Run(parts.context, parts.ref.replace("%3A", ":")))
        elif parts.context == "pull_request":
            out.append(Run(parts.context, "refs/pull/*/merge"))
        elif parts.environment is not None:
            out.append(Run(parts.context, "refs/*", parts.environment.replace("%3A", ":")))
    return list(dict.fromkeys(out))


def iam_glob(pattern: str) -> str:
    r"""A GitHub ref filter pattern as an IAM ``*``/``?`` glob that matches at least the same refs.

    ``**`` and ``*`` become ``*``, ``+`` (one or more of the previous character) ``*``, a ``[...]`` class ``?``;
    ``\x`` is the literal ``x`` (GitHub "Filter pattern cheat sheet",
    https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#filter-pattern-cheat-sheet).

    >>> iam_glob("refs/heads/**"), iam_glob("refs/tags/v[0-9]+"), iam_glob("refs/heads/release\\.1")
    ('refs/heads/*', 'refs/tags/v?*', 'refs/heads/release.1')
    """
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(pattern[i + 1])
            i += 2
            continue
        if c == "[":
            end = pattern.find("]", i + 1)
            out.append("?")
            i = end + 1 if end > i else i + 1
            continue
        piece = "*" if c in "*+" else c
        if not (piece == "*" and out and out[-1] == "*"):
            out.append(piece)
        i += 1
    return "".join(out)


def runs_of_refs(refsets: Iterable[tuple[str, Sequence[str]]], environments: Sequence[str] = ()) -> list[Run]:
    """The runs of a job from the refs its events run on (``(event, full-ref patterns)``, as
    :func:`graphkit.refs.job_refs` gives them; ``!`` exclusions are left out, a superset).

    ``pull_request`` runs present ``sub`` context ``pull_request``; the others ``ref:REF``; a job with an
    environment presents ``environment:NAME`` whatever the ref, and its ``ref`` claim stays per run.

    >>> [(r.context, r.ref) for r in runs_of_refs([("push", ("refs/heads/main",)), ("pull_request", ("refs/pull/*/merge",))])]
    [('ref:refs/heads/main', 'refs/heads/main'), ('pull_request', 'refs/pull/*/merge')]
    >>> [(r.context, r.ref) for r in runs_of_refs([("schedule", ("refs/heads/main",))], ["prod"])]
    [('environment:prod', 'refs/heads/main')]
    """
    out: list[Run] = []
    for event, patterns in refsets:
        for p in patterns:
            if p.startswith("!"):
                continue
            ref = iam_glob(p)
            context = "pull_request" if event == "pull_request" else f"ref:{_claim_value(ref)}"
            if environments:
                out += [Run(f"environment:{_claim_value(env)}", ref, env) for env in environments]
            else:
                out.append(Run(context, ref))
    return list(dict.fromkeys(out))


@dataclass(frozen=True)
class JobFacts:
    """What graphkit knows about a job's token (the inputs of :func:`token_claims`).

    ``repository``: the caller's (triggering) repository; ``workflow_path``/``workflow``: the triggering
    workflow's path and name (None: unknown); ``called_ref``: the called workflow's ``job_workflow_ref`` as
    written by the workflow ingestor (``@REF`` may be short, ``@*`` for a local call: the run's ref);
    ``template``: ``include_claim_keys`` in force; ``template_unknown``: the organization's keys when the
    repository's opt-in is unknown (:func:`template_choices`: ``template`` and these are alternatives); ``owner_id``/``repository_id``: numeric ids (None: unknown);
    ``immutable``: whether the repository uses immutable subjects (None: unknown); ``branches``: names known
    to be branches of the called workflow's repository; ``host``: the issuer host (condition-key prefix).
    """

    repository: str
    runs: tuple[Run, ...]
    workflow_path: str | None = None
    workflow: str | None = None
    called_ref: str | None = None
    template: tuple[str, ...] | None = None
    template_unknown: tuple[str, ...] | None = None
    owner_id: str | None = None
    repository_id: str | None = None
    immutable: bool | None = False
    branches: tuple[str, ...] = field(default_factory=tuple)
    host: str = GITHUB_ISSUER_HOST


def _jwr(facts: JobFacts, run: Run) -> str | None:
    """The ``job_workflow_ref`` of one run (None: unknown)."""
    if facts.called_ref:
        head, _, ref = facts.called_ref.rpartition("@")
        return f"{head}@{run.ref if ref in ('', '*') else full_ref(ref, branches=facts.branches)}"
    if facts.workflow_path:
        return job_workflow_ref(facts.repository, facts.workflow_path, run.ref)
    return None


def _repo_text(facts: JobFacts, immutable: bool) -> str:
    """``OWNER/REPO``, or ``OWNER@OWNER_ID/REPO@REPO_ID`` (``*`` for an unknown id) in the immutable format."""
    if not immutable:
        return facts.repository
    owner, _, name = facts.repository.partition("/")
    return f"{owner}@{facts.owner_id or '*'}/{name}@{facts.repository_id or '*'}"


def token_claims(facts: JobFacts, run: Run, *, immutable: bool = False) -> dict[str, str | None]:
    """Every claim of :data:`STS_CLAIMS` the job's token carries in ``run``: name -> value.

    A value with ``*`` is a pattern; None is unknown (an id the inventory did not give); a claim absent from the
    token (``environment`` without one) is left out.  ``aud`` is not here: the job chooses it.

    >>> c = token_claims(JobFacts("acme/app", (), workflow_path=".github/workflows/ci.yml", workflow="CI"),
    ...                  Run("ref:refs/heads/main", "refs/heads/main"))
    >>> c["sub"], c["job_workflow_ref"], c["actor"], "environment" in c
    ('repo:acme/app:ref:refs/heads/main', 'acme/app/.github/workflows/ci.yml@refs/heads/main', '*', False)
    """
    if run.caller_unknown:
        return _unknown_caller_claims(facts, run)
    claims: dict[str, str | None] = {
        "repository": facts.repository, "repository_id": facts.repository_id,
        "repository_owner_id": facts.owner_id, "ref": run.ref, "workflow": facts.workflow,
        "job_workflow_ref": _jwr(facts, run), "actor": "*", "actor_id": "*", "enterprise_id": None,
    }
    if run.environment is not None:
        claims["environment"] = run.environment
    parts = SubjectParts(_repo_text(facts, immutable), run.context)
    if facts.template:
        shown = {k: ("*" if v is None else v) for k, v in claims.items()}
        claims["sub"] = render_subject(parts, facts.template, claims=shown)
    else:
        claims["sub"] = subject(parts.repository, parts.context)
    return claims


def _unknown_caller_claims(facts: JobFacts, run: Run) -> dict[str, str | None]:
    """The claims of a run whose caller is not ingested: ``sub`` and ``repository`` any value (the caller's, under
    the caller's template), ids and ``workflow`` unknown, ``job_workflow_ref`` this workflow (the called one for a
    job the instance calls) at an unknown ref.
    With ``run.caller`` (the caller's repository as far as known, default template): ``sub`` is
    ``repo:{caller}:{context}`` and ``repository`` the caller without ids (``owner/*`` or ``owner/name``).

    >>> c = _unknown_caller_claims(JobFacts("lib/wf", ()), Run("*", "refs/*", caller_unknown=True, caller="acme/*"))
    >>> c["sub"], c["repository"]
    ('repo:acme/*:*', 'acme/*')
    """
    sub = repository = "*"
    if run.caller:
        owner, _, name = run.caller.partition("/")
        sub, repository = subject(run.caller, run.context), f"{owner.split('@')[0]}/{name.split('@')[0]}"
    claims: dict[str, str | None] = {
        "sub": sub, "repository": repository, "repository_id": None, "repository_owner_id": None, "ref": run.ref,
        "workflow": None, "actor": "*", "actor_id": "*", "enterprise_id": None,
        "job_workflow_ref": _jwr(facts, run) if facts.called_ref else
        job_workflow_ref(facts.repository, facts.workflow_path, "*") if facts.workflow_path else None}
    if run.environment is not None:
        claims["environment"] = run.environment
    return claims


@dataclass(frozen=True)
class _Known:
    """Condition keys whose absence is known: every ``{host}:`` key but the unknown claims (other keys, such as
    ``aws:SourceIp``, depend on the request and stay unknown)."""

    prefix: str
    unknown: frozenset[str]

    def __call__(self, key: str) -> bool:
        return key.startswith(self.prefix) and key[len(self.prefix):] not in self.unknown


def _context(facts: JobFacts, claims: Mapping[str, str | None]) -> tuple[dict[str, list[ClaimValue]], _Known]:
    """AWS request context of one token: ``(context, known)``; a claim outside :data:`STS_CLAIMS` is absent."""
    k = f"{facts.host}:"
    ctx = {f"{k}aud": [ClaimValue("sts.amazonaws.com", chosen=True)]}
    for name, value in claims.items():
        if value is not None and name in STS_CLAIMS:
            ctx[f"{k}{name}"] = [subject_value(value) if name == "sub" else
                                 ClaimValue(value, pattern="*" in value or "?" in value)]
    return ctx, _Known(k.lower(), frozenset(n for n, v in claims.items() if v is None))


def claim_variants(facts: JobFacts) -> list[list[tuple[dict[str, list[ClaimValue]], Callable[[str], bool], str]]]:
    """The AWS request contexts a job can present: ``[variant][run] -> (context, known, sub)``.

    Runs are alternatives the **attacker** picks (a branch, a pull request): a trust accepting one of them
    accepts the job.  Variants are facts graphkit does not know (whether the repository uses immutable
    subjects, whether it opted in to its organization's ``sub`` template): the job is certainly accepted only when
    every variant is.  ``known(key)`` tells the keys known
    absent when missing from the context (the issuer's keys but unknown ids; claims outside :data:`STS_CLAIMS`
    are absent); other keys are unknown.

    >>> v = claim_variants(JobFacts("acme/app", (Run("pull_request", "refs/pull/*/merge"),), immutable=None,
    ...                             owner_id="1", repository_id="2"))
    >>> [[sub for _, _, sub in runs] for runs in v]
    [['repo:acme/app:pull_request'], ['repo:acme@1/app@2:pull_request']]
    """
    choices = [False, True] if facts.immutable is None else [facts.immutable]
    forms = [facts] if facts.template_unknown is None else [
        facts, replace(facts, template=facts.template_unknown, template_unknown=None)]
    out = []
    for form in forms:
        for immutable in choices:
            runs = []
            for run in form.runs:
                claims = token_claims(form, run, immutable=immutable)
                ctx, known = _context(form, claims)
                runs.append((ctx, known, claims["sub"] or ""))
            out.append(runs)
    return out


def candidate_subjects(subjects: Sequence[str], *, template: Sequence[str] | None = None,
                       job_workflow_ref: str | None = None,
                       immutable_ids: tuple[int, int] | None = None) -> list[ClaimValue]:
    """The ``sub`` values a job can present, as :class:`~graphkit.iam.ClaimValue` (pattern when ``*``).

    A shortcut over :func:`token_claims` for callers that only need ``sub`` (what-if, reports).

    >>> [(c.text, c.pattern) for c in candidate_subjects(["repo:acme/app:ref:refs/heads/*"])]
    [('repo:acme/app:ref:refs/heads/*', True)]
    >>> [c.text for c in candidate_subjects(["repo:acme/app:pull_request"], immutable_ids=(1, 2))]
    ['repo:acme@1/app@2:pull_request']
    """
    repo = next((p.repository for s in subjects if (p := split_subject(s))), "")
    facts = JobFacts(repo, tuple(runs_of(subjects)), called_ref=job_workflow_ref,
                     template=tuple(template) if template else None,
                     owner_id=str(immutable_ids[0]) if immutable_ids else None,
                     repository_id=str(immutable_ids[1]) if immutable_ids else None)
    out = [token_claims(facts, r, immutable=immutable_ids is not None)["sub"] or "" for r in facts.runs]
    return list(dict.fromkeys(subject_value(t) for t in out))
