"""Which git refs a job runs on, and whether a set of refs satisfies a ref policy (pure).

A job runs on the refs of its run's events (:class:`~graphkit.model.Trigger`;
for a called workflow: the top-level caller's events).  Each event gives a
:class:`RefSet`: full-ref patterns in GitHub's filter syntax, read in order,
``!`` excluding (GitHub docs "Workflow syntax for GitHub Actions", "Filter
pattern cheat sheet",
https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#filter-pattern-cheat-sheet).
The ref of each event is ``GITHUB_REF`` as GitHub docs "Events that trigger
workflows" list it
(https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows),
:data:`EVENT_REFS`:

- ``push``: the pushed branch or tag; ``branches``/``branches-ignore`` alone
  exclude every tag, ``tags``/``tags-ignore`` alone every branch, neither: any
  branch and any tag ("If you define only tags/tags-ignore or only
  branches/branches-ignore, the workflow won't run for events affecting the
  undefined Git ref");
- ``pull_request`` (and ``pull_request_review``, ``pull_request_review_comment``):
  ``refs/pull/N/merge`` (the ``branches`` filter is on the *base* branch, not
  on this ref);
- ``pull_request_target``: the **default branch** (dated: since 2025-12-08,
  whatever the pull request's base; before, the base branch.  GitHub changelog
  2025-11-07 "Actions pull_request_target and environment branch protections
  changes",
  https://github.blog/changelog/2025-11-07-actions-pull_request_target-and-environment-branch-protections-changes/);
- ``merge_group``: ``refs/heads/gh-readonly-queue/<base>/...``;
- ``workflow_dispatch``, ``create``, ``deployment``, ``deployment_status``:
  any branch or tag (who dispatches chooses);
- ``release``: a tag (``refs/tags/<tag_name>``);
- ``workflow_call``: the caller's; a called workflow whose caller is not
  ingested may run on any ref;
- ``schedule``, ``workflow_run``, ``issue_comment``, ``issues``,
  ``repository_dispatch`` and the other repository events: the default branch;
- an event GitHub does not list: any ref.

The default branch is ``Repository.default_branch`` when known, else any
branch (and comparisons say ``possible``).

Comparisons are exact on the regular languages of the patterns
(:mod:`greenery` finite-state machines): :func:`refs_within` says
``certain`` when every ref of the job is allowed, ``possible`` when some may
be, None when none can be.  Environment deployment branch policies
(:class:`graphkit.model.BranchPolicy`, GitHub docs "Deployments and environments",
"Deployment branches and tags",
https://docs.github.com/en/actions/reference/workflows-and-actions/deployments-and-environments#deployment-branches-and-tags):
"No restriction", "Protected branches only", or "Selected branches and
tags" (name patterns in Ruby ``File.fnmatch`` syntax, where ``*`` does not
cross ``/``).  (dated) Since 2025-12-08 a policy is evaluated against the
executing ref: ``refs/pull/N/merge`` for ``pull_request`` jobs, the default
branch for ``pull_request_target`` (same changelog); :func:`environment_access`
keeps merge refs ``possible`` against name patterns (the docs do not say how
a merge ref compares with a branch name pattern), never drops them.  Tags
cannot deploy under "Protected branches only" (GitHub changelog 2023-08-10,
https://github.blog/changelog/2023-08-10-actions-runs-triggered-from-tags-or-forks-with-the-same-name-as-a-protected-branch-will-now-be-blocked).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Literal, NamedTuple

from greenery import Fsm, parse

from graphkit.model import BranchPolicy, Confidence, Evidence, Job, Trigger

__all__ = ["ANY_REF", "EVENT_REFS", "PULL_MERGE_REF", "RefSet", "environment_access",
           "glob_regex", "job_refs", "literal", "matches", "policy_patterns", "refs_within", "trigger_refs"]

C, P = Confidence.CERTAIN, Confidence.POSSIBLE

#: every branch and tag (and every other ref)
ANY_REF = ("refs/**",)
#: the ref of ``pull_request`` runs (``refs/pull/<number>/merge``)
PULL_MERGE_REF = "refs/pull/*/merge"
_BRANCHES, _TAGS = "refs/heads/**", "refs/tags/**"

RefRule = Literal["pushed", "pull_merge", "default", "merge_queue", "branch_or_tag", "tag", "caller"]

#: event -> how its ``GITHUB_REF`` is chosen (module docstring; GitHub docs "Events that trigger workflows").
EVENT_REFS: dict[str, RefRule] = {
    "push": "pushed", "pull_request": "pull_merge", "pull_request_review": "pull_merge",
    "pull_request_review_comment": "pull_merge", "pull_request_target": "default", "merge_group": "merge_queue",
    "workflow_dispatch": "branch_or_tag", "create": "branch_or_tag", "deployment": "branch_or_tag",
    "deployment_status": "branch_or_tag", "registry_package": "branch_or_tag", "release": "tag",
    "workflow_call": "caller",
    **{e: "default" for e in (
        "branch_protection_rule", "check_run", "check_suite", "delete", "discussion", "discussion_comment", "fork",
        "gollum", "issue_comment", "issues", "label", "milestone", "page_build", "public", "repository_dispatch",
        "schedule", "status", "watch", "workflow_run", "project", "project_card", "project_column",
        "image_version")},
}


class RefSet(NamedTuple):
    """The refs one event may run a job on.

    ``patterns``: full refs in GitHub filter syntax, read in order, a leading
    ``!`` excluding what the earlier ones included.  ``default_unknown``: the
    set stands for the default branch whose name is not known (any branch).
    """

    event: str
    patterns: tuple[str, ...]
    evidence: Evidence
    default_unknown: bool = False


# --------------------------------------------------------------------------- patterns


_SPECIAL = set(".+*?[](){}|\\$")


def _esc(c: str) -> str:
    return "[\\^]" if c == "^" else ("\\" + c if c in _SPECIAL else c)


def literal(name: str) -> str:
    """``name`` as a GitHub filter pattern that matches it alone (special characters escaped with ``\\``).

    >>> literal("release+1.x")
    'release\\\\+1.x'
    """
    return "".join("\\" + c if c in "*?+[]!\\" else c for c in name)


def _class(p: str, i: int) -> tuple[str, int] | None:
    """A ``[...]`` character class at ``p[i]`` as regex (``[!..]`` is ``[^..]``) and the index after it."""
    j = p.find("]", i + 2)
    if j < 0:
        return None
    body = p[i + 1:j]
    neg = body[:1] in ("!", "^")
    body = body[1:] if neg else body
    inner = "".join("\\" + c if c in "\\^" or (c == "-" and k in (0, len(body) - 1)) else c
                    for k, c in enumerate(body))
    return "[" + ("^" if neg else "") + inner + "]", j + 1


def glob_regex(pattern: str, *, fnmatch: bool = False) -> str:
    """A GitHub filter pattern (``fnmatch=False``) or ``File.fnmatch`` pattern as a regular expression.

    Filter syntax: ``**`` any characters, ``*`` any but ``/``, ``?`` / ``+``
    zero-or-one / one-or-more of the preceding character, ``[...]`` a class,
    ``\\`` escapes.  ``File.fnmatch``: ``?`` is one character but ``/``.

    >>> glob_regex("release/**-v?")
    'release/.*-(v)?'
    >>> glob_regex("v[0-9]*", fnmatch=True)
    'v[0-9][^/]*'
    """
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(_esc(pattern[i + 1]))
            i += 2
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        cls = _class(pattern, i) if c == "[" else None
        if cls is not None:
            out.append(cls[0])
            i = cls[1]
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?" and fnmatch:
            out.append("[^/]")
        elif c in "?+" and out and not out[-1].endswith((")?", ")+")):
            out[-1] = f"({out[-1]}){c}"
        else:
            out.append(_esc(c))
        i += 1
    return "".join(out)


@lru_cache(maxsize=4096)
def _fsm(patterns: tuple[str, ...], fnmatch: bool = False) -> Fsm:
    """The refs an ordered pattern list selects (``!`` excludes), as a finite-state machine."""
    fsm: Fsm | None = None
    for raw in patterns:
        neg = raw.startswith("!")
        one = parse(glob_regex(raw[1:] if neg else raw, fnmatch=fnmatch)).to_fsm()
        if fsm is None:
            fsm = one.difference(one) if neg else one
        else:
            fsm = fsm.difference(one) if neg else fsm.union(one)
    return fsm if fsm is not None else parse("a").to_fsm().difference(parse("a").to_fsm())


def matches(ref: str, patterns: Sequence[str], *, fnmatch: bool = False) -> bool:
    """Whether the full ref ``ref`` is selected by ``patterns`` (in order, ``!`` excluding).

    >>> matches("refs/heads/release/1.2", ["refs/heads/release/**", "!refs/heads/release/*-rc"])
    True
    >>> matches("refs/heads/main", ["refs/heads/*", "!refs/heads/main"])
    False
    """
    return _fsm(tuple(patterns), fnmatch).accepts(ref)


# --------------------------------------------------------------------------- refs of a job


def _prefixed(prefix: str, patterns: Iterable[str]) -> tuple[str, ...]:
    return tuple(("!" + prefix + p[1:]) if p.startswith("!") else prefix + p for p in patterns)


def _push_refs(t: Trigger) -> tuple[str, ...]:
    """``push``: branches and/or tags as the filters say (module docstring)."""
    has_b = t.branches is not None or t.branches_ignore is not None
    has_t = t.tags is not None or t.tags_ignore is not None
    out: tuple[str, ...] = ()
    if has_b or not has_t:
        out += (_prefixed("refs/heads/", t.branches) if t.branches is not None else
                (_BRANCHES, *("!refs/heads/" + p for p in t.branches_ignore or ())))
    if has_t or not has_b:
        out += (_prefixed("refs/tags/", t.tags) if t.tags is not None else
                (_TAGS, *("!refs/tags/" + p for p in t.tags_ignore or ())))
    return out


def trigger_refs(trigger: Trigger, default_branch: str | None) -> RefSet:
    """The refs one event runs on (:data:`EVENT_REFS`).

    Parameters
    ----------
    trigger
        one event of the run's ``on:``.
    default_branch
        the repository's default branch name, None when unknown (then the set
        is any branch and ``default_unknown`` is set).

    Returns
    -------
    RefSet

    Examples
    --------
    >>> ev = Evidence(file="ci.yml")
    >>> trigger_refs(Trigger(event="push", branches=("main", "!main-old"), evidence=ev), "main").patterns
    ('refs/heads/main', '!refs/heads/main-old')
    >>> trigger_refs(Trigger(event="schedule", evidence=ev), "trunk").patterns
    ('refs/heads/trunk',)
    >>> trigger_refs(Trigger(event="pull_request", branches=("main",), evidence=ev), None).patterns
    ('refs/pull/*/merge',)
    """
    rule = EVENT_REFS.get(trigger.event)
    ev = trigger.evidence
    if rule == "pushed":
        return RefSet(trigger.event, _push_refs(trigger), ev)
    if rule == "pull_merge":
        return RefSet(trigger.event, (PULL_MERGE_REF,), ev)
    if rule == "default":
        if default_branch is None:
            return RefSet(trigger.event, (_BRANCHES,), ev, default_unknown=True)
        return RefSet(trigger.event, ("refs/heads/" + literal(default_branch),), ev)
    if rule == "merge_queue":
        bases = trigger.branches if trigger.branches is not None else ("**",)
        return RefSet(trigger.event, _prefixed("refs/heads/gh-readonly-queue/", [b + "/**" for b in bases]), ev)
    if rule == "branch_or_tag":
        return RefSet(trigger.event, (_BRANCHES, _TAGS), ev)
    if rule == "tag":
        return RefSet(trigger.event, (_TAGS,), ev)
    return RefSet(trigger.event, ANY_REF, ev)  # workflow_call of an unknown caller, unlisted events


def job_refs(job: Job, default_branch: str | None) -> list[RefSet]:
    """The refs ``job`` may run on: one :class:`RefSet` per event of its run (empty when it has no events).

    ``default_branch``: of the repository whose run it is (the caller's for a
    called workflow, ``Job.secrets_repository``).
    """
    return [trigger_refs(t, default_branch) for t in job.triggers]


# --------------------------------------------------------------------------- comparisons


def refs_within(refsets: Sequence[RefSet], allowed: Sequence[str], *, fnmatch: bool = False) -> Confidence | None:
    """Whether the refs of ``refsets`` lie within ``allowed`` (full-ref patterns, in order, ``!`` excluding).

    Returns
    -------
    Confidence or None
        ``certain`` when every ref of every set is allowed (and no set stands
        for an unknown default branch), ``possible`` when some may be, None
        when none can be (or ``refsets`` is empty).

    >>> ev = Evidence(file="ci.yml")
    >>> push_main = RefSet("push", ("refs/heads/main",), ev)
    >>> refs_within([push_main], ["refs/heads/main"]).value, refs_within([push_main], ["refs/tags/*"])
    ('certain', None)
    >>> refs_within([push_main, RefSet("workflow_dispatch", ("refs/heads/**",), ev)], ["refs/heads/main"]).value
    'possible'
    """
    if not refsets:
        return None
    overlaps, inside = zip(*(_compare(r.patterns, tuple(allowed), fnmatch) for r in refsets))
    if not any(overlaps):
        return None
    if all(inside) and not any(r.default_unknown for r in refsets):
        return C
    return P


@lru_cache(maxsize=65536)
def _compare(patterns: tuple[str, ...], allowed: tuple[str, ...], fnmatch: bool) -> tuple[bool, bool]:
    """``(some ref of patterns is allowed, every ref is)``: automaton products are costly (tens of ms) and an
    organization repeats the same few pattern pairs across thousands of jobs, so each pair is compared once."""
    ok, f = _fsm(allowed, fnmatch), _fsm(patterns)
    overlap = not f.isdisjoint(ok)
    return overlap, f.issubset(ok)


def policy_patterns(policy: BranchPolicy, protected: Sequence[str] | None) -> tuple[str, ...] | None:
    """The full-ref ``File.fnmatch`` patterns a policy allows; None when they are not known.

    ``protected``: name patterns of the repository's protected branches (branch
    protection rules and rulesets), None when not known.

    >>> policy_patterns(BranchPolicy(branches=("main", "release/*"), tags=("v*",)), None)
    ('refs/heads/main', 'refs/heads/release/*', 'refs/tags/v*')
    """
    if policy.protected_branches:
        return None if protected is None else tuple("refs/heads/" + p for p in protected)
    if policy.branches is None:
        return None
    return tuple("refs/heads/" + b for b in policy.branches) + tuple("refs/tags/" + t for t in policy.tags)


def _one_access(refset: RefSet, allowed: Sequence[str] | None, policy: BranchPolicy) -> Confidence | None:
    """One event's refs against a policy's allowed patterns (None: not known, see :func:`environment_access`)."""
    if refset.patterns == (PULL_MERGE_REF,):
        return P  # the docs do not say how a merge ref compares with name patterns: never dropped
    if allowed is None and not policy.protected_branches:
        return P  # selected names not read
    if allowed is None:  # protected branches, rules not known: any branch may be protected, tags never
        return P if refs_within([refset], [_BRANCHES]) is not None else None
    return refs_within([refset], allowed, fnmatch=True)


def environment_access(refsets: Sequence[RefSet], policy: BranchPolicy | None,
                       protected: Sequence[str] | None = None) -> Confidence | None:
    """Whether the runs of a job pass an environment's deployment branch policy.

    A job's runs come from its events: when every ref of one event passes, the
    runs of that event certainly reach the environment (its secrets, its
    deployment), so the job does.  When no event's refs all pass but some ref
    may, it is ``possible``; when no ref of any event can, the job never
    reaches the environment.  (For "does every run pass", use
    :func:`refs_within` with :func:`policy_patterns`.)

    Parameters
    ----------
    refsets
        :func:`job_refs` of the job.
    policy
        the environment's policy; None for "No restriction".
    protected
        the repository's protected branch name patterns, None when unknown.

    Returns
    -------
    Confidence or None
        ``certain`` when every ref of some event passes; ``possible`` when some
        ref may (the protected branches unknown, the selected names not read,
        a ``pull_request`` merge ref against name patterns: module docstring);
        None when no ref can.  A job with no known events is ``possible``.

    >>> ev = Evidence(file="ci.yml")
    >>> tag = RefSet("push", ("refs/tags/v*",), ev)
    >>> environment_access([tag], BranchPolicy(tags=("v*",))).value
    'certain'
    >>> environment_access([tag], BranchPolicy(protected_branches=True)) is None
    True
    >>> dispatch = RefSet("workflow_dispatch", ("refs/heads/**", "refs/tags/**"), ev)
    >>> environment_access([dispatch], BranchPolicy(branches=("main",))).value
    'possible'
    """
    if policy is None:
        return C
    if not refsets:
        return P
    allowed = policy_patterns(policy, protected)
    each = [_one_access(r, allowed, policy) for r in refsets]
    if C in each:
        return C
    return P if P in each else None
