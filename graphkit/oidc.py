"""GitHub Actions OIDC claims a job can present -- pure, no I/O.

Source: GitHub docs "OpenID Connect reference"
(https://docs.github.com/en/actions/reference/security/oidc) and
``shared/docs/semantics.md`` §4:

- default ``sub``: ``repo:OWNER/REPO:environment:NAME`` when the job declares
  an environment, else ``repo:OWNER/REPO:pull_request`` on ``pull_request``,
  else ``repo:OWNER/REPO:ref:refs/heads/BRANCH`` / ``:ref:refs/tags/TAG``; the
  environment replaces the event; ``:`` inside a value is written ``%3A``.
- a customised ``sub`` (``include_claim_keys``) joins ``key:value`` pairs of
  the listed claims with ``:``; ``context`` expands to the default context
  part.  An organization template applies to a repository only after the
  repository opts in (``use_default: false``).
- (dated, 2026-07-15) repositories created or renamed after that date use
  immutable subjects ``repo:OWNER@OWNER_ID/REPO@REPO_ID:...``; modelled as a
  per-repository setting (:func:`candidate_subjects` ``immutable_ids``).
- reusable workflows: ``sub`` describes the caller, ``job_workflow_ref`` the
  called workflow.
- ``aud`` is chosen by the job (``sts.amazonaws.com`` by default for AWS):
  audience is not a boundary.

This module is the one place graphkit writes ``sub`` claims (:func:`subject`,
:func:`any_branch_subject`) and reads them (:func:`split_subject`,
:func:`subject_pattern`); they are claims, not node ids.

The workflow ingestor fills :attr:`graphkit.model.OIDCIdentity.subjects` with
default-template subjects, where ``*`` stands for an unknown branch or tag name
(``push`` without branch filters, ``workflow_dispatch``...) or for a branch
filter glob.  Such a subject is a **pattern**: a trust that matches only some
of its instances makes the edge ``possible``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphkit.iam.conditions import GITHUB_ISSUER_HOST, ClaimValue

__all__ = ["SubjectParts", "SUB_PREFIX", "subject", "any_branch_subject", "default_subjects", "split_subject",
           "subject_pattern", "render_subject", "candidate_subjects", "claims_context", "effective_template",
           "CLAIM_KEYS"]

#: What every default-template ``sub`` starts with (a claim, not a graphkit node id).
SUB_PREFIX = "repo:"

#: Condition keys graphkit can give a value for (others are unknown, never assumed absent).
CLAIM_KEYS = ("sub", "aud", "job_workflow_ref", "repository", "repository_owner", "environment", "ref",
              "ref_type", "event_name")


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

    Both parts are written as given (claims are not node ids and are never
    normalised here).

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
    """The ``include_claim_keys`` in force for ``repository`` (None: default template).

    ``templates`` maps ``owner`` and ``owner/repo`` (lower-case) to
    ``{use_default, include_claim_keys}`` as in the runner inventory.  A
    repository entry with ``use_default: false`` opts in: its own keys, else
    the organization's.

    >>> effective_template({"acme": {"include_claim_keys": ["repository_owner", "context"]},
    ...                     "acme/app": {"use_default": False}}, "acme/app")
    ['repository_owner', 'context']
    >>> effective_template({"acme": {"include_claim_keys": ["repo"]}}, "acme/app") is None
    True
    """
    repo = templates.get(repository.lower()) or {}
    if repo.get("use_default", True) is not False and not repo.get("include_claim_keys"):
        return None
    keys = repo.get("include_claim_keys")
    if keys:
        return list(keys)
    org = templates.get(repository.split("/", 1)[0].lower()) or {}
    return list(org.get("include_claim_keys") or []) or None


def render_subject(parts: SubjectParts, keys: Sequence[str], *, job_workflow_ref: str | None = None,
                   workflow_ref: str | None = None) -> str:
    """A customised ``sub`` for ``include_claim_keys`` ``keys`` (unknown claim values become ``*``).

    >>> render_subject(SubjectParts("acme/app", "environment:prod"), ["repository_owner", "context"])
    'repository_owner:acme:environment:prod'
    """
    env = parts.environment
    ref = parts.ref
    values = {
        "repo": parts.repository,
        "repository": parts.repository,
        "repository_owner": parts.owner,
        "context": parts.context,
        "environment": env or "",
        "ref": ref or "*",
        "ref_type": ("branch" if ref.startswith("refs/heads/") else "tag") if ref else "*",
        "job_workflow_ref": job_workflow_ref or workflow_ref or "*",
        "event_name": "pull_request" if parts.context == "pull_request" else "*",
    }
    out = []
    for k in keys:
        if k == "context":
            out.append(parts.context)
        else:
            out.append(f"{k}:{values.get(k, '*')}")
    return ":".join(out)


def candidate_subjects(subjects: Sequence[str], *, template: Sequence[str] | None = None,
                       job_workflow_ref: str | None = None,
                       immutable_ids: tuple[int, int] | None = None) -> list[ClaimValue]:
    """The ``sub`` values a job can present, as :class:`~graphkit.iam.ClaimValue` (pattern when ``*``).

    Parameters
    ----------
    subjects : sequence of str
        Default-template subjects (``OIDCIdentity.subjects``).
    template : sequence of str, optional
        ``include_claim_keys`` in force (see :func:`effective_template`).
    job_workflow_ref : str, optional
        ``owner/repo/path@ref`` of the called workflow (reusable workflows).
    immutable_ids : (owner id, repo id), optional
        When the repository uses immutable subjects (dated 2026-07-15).

    Returns
    -------
    list of ClaimValue

    Examples
    --------
    >>> [(c.text, c.pattern) for c in candidate_subjects(["repo:acme/app:ref:refs/heads/*"])]
    [('repo:acme/app:ref:refs/heads/*', True)]
    >>> [c.text for c in candidate_subjects(["repo:acme/app:pull_request"], immutable_ids=(1, 2))]
    ['repo:acme@1/app@2:pull_request']
    """
    out: list[ClaimValue] = []
    for s in subjects:
        parts = split_subject(s)
        text = s
        if parts is not None and template:
            text = render_subject(parts, template, job_workflow_ref=job_workflow_ref)
        elif parts is not None and immutable_ids is not None:
            text = subject(f"{parts.owner}@{immutable_ids[0]}/{parts.name}@{immutable_ids[1]}", parts.context)
        out.append(ClaimValue(text, pattern="*" in text or "?" in text))
    return list(dict.fromkeys(out))


def claims_context(sub: ClaimValue, *, repository: str, job_workflow_ref: str | None = None,
                   host: str = GITHUB_ISSUER_HOST) -> tuple[dict[str, list[ClaimValue]], list[str]]:
    """AWS condition context for one presented ``sub``: ``(context, known_keys)``.

    ``aud`` is chosen by the job; ``sub`` single-valued; ``job_workflow_ref``
    known for reusable workflows (else a pattern over the job's own
    workflow).  Keys in ``known_keys`` but not in the context are known absent;
    every other key is unknown.

    >>> ctx, known = claims_context(ClaimValue("repo:acme/app:pull_request"), repository="acme/app")
    >>> sorted(ctx), ctx["token.actions.githubusercontent.com:aud"][0].chosen
    (['token.actions.githubusercontent.com:aud', 'token.actions.githubusercontent.com:job_workflow_ref', 'token.actions.githubusercontent.com:sub'], True)
    """
    k = f"{host}:"
    jwr = job_workflow_ref or f"{repository}/*"
    ctx = {f"{k}sub": [sub], f"{k}aud": [ClaimValue("sts.amazonaws.com", chosen=True)],
           f"{k}job_workflow_ref": [ClaimValue(jwr, pattern="*" in jwr)]}
    return ctx, [f"{k}sub", f"{k}aud"]
