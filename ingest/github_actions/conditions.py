"""What a job's (or a step's) ``if:`` means for an outsider's privileged run (pure: no I/O).

A ``pull_request_target``, ``workflow_run``, ``issue_comment``, ``issues``, ``discussion``, ``discussion_comment``
or ``gollum`` run uses the workflow of the base
repository, so the outsider cannot remove its ``if``: a condition that is false for every run the outsider can cause
keeps them out.  So does a ``pull_request_review`` or ``pull_request_review_comment`` run on a pull request from a
branch of the repository, the only one of those with secrets (from a fork: a read-only token and none, as
``pull_request``; https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#pull_request_review):
its workflow is that branch's, pushed by someone with write access, and the outsider only writes the review or
the comment.  In such a run the pull request's head repository is this one (``head.repo.full_name`` is
``github.repository``, ``head.repo.fork`` false), and its author (``pull_request.user.login``,
``.author_association``) is not the outsider (unknown); the outsider is the reviewer (``github.event.review``)
or the commenter (``github.event.comment``).  This module reads the condition with GitHub's expression grammar (GitHub docs "Evaluate
expressions in workflows and actions",
https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/evaluate-expressions-in-workflows-and-actions;
``jobs.<job_id>.if`` and ``jobs.<job_id>.steps[*].if``:
https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idif) and
evaluates it in three-valued logic (true, false, unknown) for such a run, per event:

- literals, ``!``, ``==`` / ``!=`` (loose equality: strings compare ignoring case, other types are coerced to
  numbers), ``&&`` / ``||`` (on truthiness: ``false``, ``0``, ``''``, ``null`` are falsy), ``contains``,
  ``startsWith``, ``endsWith``, ``fromJSON`` of a literal, ``always()`` (true); every other function,
  ``success()`` included, and every comparison ``<``, ``>`` is unknown;
- ``github.event_name`` is the event; ``github.event.action`` is one of the event's activity types (the
  trigger's ``types`` when given, else the event's default ones: ``opened``, ``synchronize``, ``reopened`` for
  ``pull_request_target``, every type for the others; GitHub docs "Events that trigger workflows",
  https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#pull_request_target);
- a ``pull_request_target`` (or ``issues``, ``discussion``) trigger whose ``types`` are only ``labeled`` /
  ``unlabeled`` runs only when someone with triage access labels the pull request (issue, discussion): every run
  of it is behind the ``label-gate`` guard, with or without an ``if`` (:func:`verdicts` with no tree);
- ``github.event.workflow_run.event`` (the event of the run that triggered a ``workflow_run``) is, for a run an
  outsider caused, never an event that needs write access, a dispatch or the schedule (``push``,
  ``workflow_dispatch``, ``schedule``...: ``outsider_never_causes`` in ``graphkit/data/untrusted_guards.json``),
  so ``github.event.workflow_run.event == 'push'`` is false for every such run;
- a payload object the event does not carry is ``null`` (``github.event.pull_request`` under ``issue_comment``,
  ``issues``, ``discussion*``, ``gollum``
  and ``workflow_run``, ``github.event.discussion`` under all but ``discussion*``, ``github.event.pages`` under
  all but ``gollum``, ``github.event.comment`` / ``.issue`` under ``pull_request_target``,
  ``github.event.workflow_run`` under the others: GitHub docs "Webhook events and payloads",
  https://docs.github.com/en/webhooks/webhook-events-and-payloads);
- ``github.event.pull_request.head.repo.full_name`` (``github.event.workflow_run.head_repository.full_name``)
  compared with a literal that names the run's own repository (``verdicts``' ``repository``; ignoring case:
  GitHub's ``==`` on strings ignores case,
  https://docs.github.com/en/actions/reference/workflows-and-actions/expressions#operators) is the
  ``same-repository-condition`` guard, as ``== github.repository`` is: a fork is another repository (GitHub
  docs "About forks",
  https://docs.github.com/en/pull-requests/collaborating-with-pull-requests/working-with-forks/about-forks), so a fork's head repository never has the base repository's name.  A literal naming another repository
  changes nothing: a fork of this repository may have any name its owner picks, that one included (whoever
  holds that account can make it true), so it is no guard and keeps nobody out;
- ``github.repository`` is this repository, whose name is not compared with a literal (a fork's
  ``pull_request_target`` run happens in the base repository: ``github.repository == 'o/r'`` holds), and
  ``github.repository_owner``, ``github.actor`` (whoever triggered the latest event, an outsider included:
  GitHub docs "Troubleshooting Dependabot on GitHub Actions",
  https://docs.github.com/en/code-security/dependabot/troubleshooting-dependabot/troubleshooting-dependabot-on-github-actions;
  GitHub Security Lab, https://securitylab.github.com/resources/github-actions-new-patterns-and-mitigations/)
  and every other context are unknown;
- three facts hold for the outsider alone but may change when someone trusted acts, or are read, not run:
  each is a **guard** (ids in ``graphkit/data/untrusted_guards.json``): ``same-repository-condition`` (the
  head repository of a fork's pull request or run is not this one), ``label-gate`` (labels are added by
  people with triage access: the outsider's event carries none of the gate's labels, and no ``labeled``
  action) and ``author-association`` (an outsider's comment or pull request is ``NONE``, ``CONTRIBUTOR``,
  ``FIRST_TIMER``, ``FIRST_TIME_CONTRIBUTOR`` or ``MANNEQUIN``, never ``OWNER``, ``MEMBER`` or
  ``COLLABORATOR``: GitHub GraphQL enum ``CommentAuthorAssociation``,
  https://docs.github.com/en/graphql/reference/enums#commentauthorassociation), and ``author-login`` (the
  author of the outsider's pull request, issue or comment, ``github.event.pull_request.user.login``,
  ``.issue.user.login``, ``.comment.user.login``, is the outsider's own account: ``== 'dependabot[bot]'`` or
  a list of named accounts is false for them, ``!=`` true; GitHub docs "Webhook events and payloads",
  https://docs.github.com/en/webhooks/webhook-events-and-payloads#pull_request).  ``github.actor``,
  ``github.triggering_actor`` and ``github.event.sender`` stay unknown: whoever caused the latest event,
  which an outsider can arrange to be a bot (https://docs.zizmor.sh/audits/#bot-conditions).  And
  ``pull-request-merged``: ``github.event.pull_request.merged`` is true only once someone with write access
  merged the pull request (the post-merge and backport pattern of ``pull_request_target`` ``closed``).

A condition false with every guard unknown is **skipped** for that event (no way in through it); false only
with some guards as the outsider has them is **gated** (a possible way in, naming the guards that decide it);
otherwise nothing is said.  An ``if`` with text around ``${{ }}`` is a non-empty string: always true (the
GitHub docs note on ``if`` with ``${{ }}``).  Input is hostile: a condition longer than :data:`MAX_CHARS`,
with more than :data:`MAX_TOKENS` tokens or nested deeper than :data:`MAX_DEPTH`, or one this grammar does not
read, is unread (nothing said); reading is linear in its length.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, NamedTuple

from .condition_grammar import MAX_CHARS, MAX_DEPTH, MAX_TOKENS, parse_condition
from .condition_grammar import UNKNOWN as _UNKNOWN

__all__ = ["GUARDS", "MAX_CHARS", "MAX_DEPTH", "MAX_TOKENS", "PRIVILEGED_EVENTS", "Verdict", "always_false",
           "false_for_events", "parse_condition", "verdicts"]

#: The events whose run with secrets an outsider starts without choosing its workflow (the base repository's, or
#: for the review events the same-repository branch's: module docstring); a fork's ``pull_request`` runs the pull
#: request's own workflow, whose ``if`` is the author's.
PRIVILEGED_EVENTS = ("discussion", "discussion_comment", "gollum", "issue_comment", "issues",
                     "pull_request_review", "pull_request_review_comment", "pull_request_target", "workflow_run")
#: The review events: their outsider run is on a pull request from a branch of this repository.
_REVIEW_EVENTS = frozenset({"pull_request_review", "pull_request_review_comment"})
#: Guard ids (see the module docstring), in the order they are named.
GUARDS = ("same-repository-condition", "label-gate", "author-association", "author-login", "pull-request-merged")
#: Activity types per event (GitHub docs "Events that trigger workflows"); None: not listed here (any).
_ACTIONS: dict[str, frozenset[str] | None] = {
    "issue_comment": frozenset({"created", "edited", "deleted"}),
    "issues": None,
    "discussion": None,
    "discussion_comment": frozenset({"created", "edited", "deleted"}),
    "gollum": None,
    "workflow_run": frozenset({"requested", "in_progress", "completed"}),
    "pull_request_review": frozenset({"submitted", "edited", "dismissed"}),
    "pull_request_review_comment": frozenset({"created", "edited", "deleted"}),
    "pull_request_target": frozenset({
        "assigned", "unassigned", "labeled", "unlabeled", "opened", "edited", "closed", "reopened", "synchronize",
        "converted_to_draft", "ready_for_review", "locked", "unlocked", "review_requested", "review_request_removed",
        "auto_merge_enabled", "auto_merge_disabled", "milestoned", "demilestoned", "enqueued", "dequeued"}),
}
#: The activity types that run the workflow when the trigger has no ``types`` (the others: every listed type).
#: https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#pull_request_target
_DEFAULT_ACTIONS: dict[str, frozenset[str]] = {"pull_request_target": frozenset({"opened", "synchronize", "reopened"})}
#: The activity types that only someone with triage access causes (labelling).
_LABEL_ACTIONS = frozenset({"labeled", "unlabeled"})
#: The events with ``labeled`` / ``unlabeled`` activity types (a ``label`` in their payload).
_LABEL_EVENTS = frozenset({"pull_request_target", "issues", "discussion"})
#: The author logins of the payload objects (``author-login``).
_AUTHOR_LOGINS = frozenset({("pull_request", "user", "login"), ("issue", "user", "login"),
                            ("comment", "user", "login"), ("discussion", "user", "login"), ("review", "user", "login")})
#: The associations an outsider's comment, issue or pull request can have (``CommentAuthorAssociation``).
_OUTSIDER_ASSOCIATION = frozenset({"none", "contributor", "first_timer", "first_time_contributor", "mannequin"})
#: Payload objects per event (the others are absent: ``null``).
_PAYLOAD = {"issue_comment": {"comment", "issue"}, "issues": {"issue", "label"},
            "discussion": {"discussion", "label"}, "discussion_comment": {"comment", "discussion"},
            "gollum": {"pages"}, "pull_request_target": {"pull_request", "label"},
            "workflow_run": {"workflow_run", "workflow"}, "pull_request_review": {"pull_request", "review"},
            "pull_request_review_comment": {"pull_request", "comment"}}
_PAYLOAD_OBJECTS = {"comment", "issue", "pull_request", "label", "workflow_run", "workflow", "discussion", "pages",
                    "review"}


@lru_cache(maxsize=1)
def outsider_never_causes() -> frozenset[str]:
    """The events an outsider's activity never causes a run of (``outsider_never_causes.events`` of
    ``graphkit/data/untrusted_guards.json``, with its sources): the values ``github.event.workflow_run.event``
    never has in a run an outsider caused."""
    raw = json.loads(resources.files("graphkit.data").joinpath("untrusted_guards.json").read_text("utf-8"))
    return frozenset(raw["outsider_never_causes"]["events"])


class Verdict(NamedTuple):
    """What an ``if`` means for an outsider's run of ``event``: ``outcome`` ``skipped`` (never runs) or
    ``gated`` (runs only once a guard is passed), and the ``guards`` (ids of :data:`GUARDS`) that decide it."""

    event: str
    outcome: str
    guards: tuple[str, ...] = ()


# ------------------------------------------------------------------------------------------------ values



@dataclass(frozen=True)
class _Str:
    """A string known only as one of ``values`` (lower case; None: any) and none of ``excluded``."""

    values: frozenset[str] | None
    excluded: frozenset[str] = frozenset()


@dataclass(frozen=True)
class _Sym:
    """A non-empty repository name known only by identity: ``repo`` (this one), ``fork-head`` (a fork's)."""

    name: str


@dataclass(frozen=True)
class _Truth:
    """A value known only by its truthiness (``&&`` / ``||`` of unknowns); ``t`` None: unknown."""

    t: bool | None


@dataclass(frozen=True)
class _Scenario:
    """The outsider's run: ``event``, its possible activity ``actions`` (None: any), the guards read as
    unknown (``relaxed``), the run's repository (``repo``)."""

    event: str
    actions: frozenset[str] | None
    relaxed: frozenset[str]
    #: the run's repository (``owner/name``, lower case), None when not known
    repo: str | None = None
    #: False: any run of ``event`` (not the outsider's): ``github.event.*`` unknown (:func:`false_for_events`)
    payload: bool = True

    def guarded(self, guard: str, value: Any) -> Any:
        return _UNKNOWN if guard in self.relaxed else value


def _truth(v: Any) -> bool | None:
    """GitHub's truthiness, None when unknown."""
    if v is _UNKNOWN:
        return None
    if isinstance(v, _Truth):
        return v.t
    if isinstance(v, _Str):
        return True if v.values is not None and "" not in v.values else None
    if isinstance(v, (_Sym, list, dict)):
        return True
    if isinstance(v, float):
        return not (v == 0 or math.isnan(v))
    return bool(v)


def _number(v: Any) -> float:
    """GitHub's cast to a number (for ``==`` of different types)."""
    if v is None or v is False:
        return 0.0
    if v is True:
        return 1.0
    if isinstance(v, float):
        return v
    if isinstance(v, str):
        try:
            return float(v.strip()) if v.strip() else 0.0
        except ValueError:
            return math.nan
    return math.nan  # arrays, objects, repository names


def _str_eq(s: _Str, text: str) -> bool | None:
    text = text.lower()
    if text in s.excluded or (s.values is not None and text not in s.values):
        return False
    return True if s.values == frozenset({text}) else None


def _eq(a: Any, b: Any) -> bool | None:
    """Loose equality (strings ignore case; other types coerced to numbers), None when unknown."""
    if a is _UNKNOWN or b is _UNKNOWN or isinstance(a, _Truth) or isinstance(b, _Truth):
        return None
    if isinstance(b, (_Str, _Sym)) and not isinstance(a, (_Str, _Sym)):
        a, b = b, a
    if isinstance(a, _Sym):
        if isinstance(b, _Sym):
            return a.name == b.name if {a.name, b.name} <= {"repo", "fork-head"} else None
        return None if isinstance(b, (str, _Str)) else False  # a name is no number: NaN
    if isinstance(a, _Str):
        return _str_eq(a, b) if isinstance(b, str) else None
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return False if type(a) is not type(b) else None  # instances: equal only when the same one
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    if type(a) is type(b) and not isinstance(a, str):
        return a == b
    return _number(a) == _number(b)


def _text(v: Any) -> str | None:
    """GitHub's cast to a string, None when unknown."""
    if isinstance(v, str):
        return v.lower()
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() else repr(v)
    return None


def _each(item: Any, test: Callable[[str], bool]) -> bool | None:
    """``test`` over every value ``item`` may have: all true, all false, or None."""
    if isinstance(item, _Str) and item.values is not None:
        results = {test(v) for v in item.values}
        return results.pop() if len(results) == 1 else None
    text = _text(item)
    return None if text is None else test(text)


def _contains(search: Any, item: Any) -> bool | None:
    if isinstance(search, list):
        if not search:
            return False
        found: list[bool | None] = []
        for element in search:
            text = _text(element)
            found.append(None if text is None else _str_eq(item, text) if isinstance(item, _Str)
                         else False if item == _Sym("outsider") and isinstance(element, str)
                         else _each(item, lambda v, t=text: v == t))
        return True if True in found else False if all(f is False for f in found) else None
    needle = _text(item)
    if isinstance(search, _Str) and needle is not None:
        return _each(search, lambda v: needle in v)
    text = _text(search)
    return None if text is None else _each(item, lambda v: v in text)


def _affix(args: Sequence[Any], ends: bool) -> bool | None:
    text, affix = _text(args[0]), _text(args[1])
    if affix is not None and isinstance(args[0], _Str):
        return _each(args[0], lambda v: v.endswith(affix) if ends else v.startswith(affix))
    if text is None or affix is None:
        return None
    return text.endswith(affix) if ends else text.startswith(affix)


def _from_json(arg: Any) -> Any:
    if not isinstance(arg, str) or arg.count("[") + arg.count("{") > MAX_DEPTH:
        return _UNKNOWN
    try:
        value = json.loads(arg, parse_int=float, parse_float=float)
    except (ValueError, RecursionError):
        return _UNKNOWN
    return value if isinstance(value, (list, dict, str, float, bool)) or value is None else _UNKNOWN


def _call(name: str, args: list[Any]) -> Any:
    """The functions read (module docstring); every other call is unknown."""
    if name == "always" and not args:
        return True
    if name == "fromjson" and len(args) == 1:
        return _from_json(args[0])
    if name == "contains" and len(args) == 2:
        found = _contains(*args)
    elif name in ("startswith", "endswith") and len(args) == 2:
        found = _affix(args, name == "endswith")
    else:
        return _UNKNOWN
    return _UNKNOWN if found is None else found


# ------------------------------------------------------------------------------------------------ contexts


#: Under a review event, the pull request's values (module docstring): its head repository is this one, its author
#: is not the outsider (unknown).
_REVIEW_PR: dict[tuple[str, ...], Any] = {("pull_request", "head", "repo", "full_name"): _Sym("repo"),
                                          ("pull_request", "head", "repo", "fork"): False,
                                          ("pull_request", "user", "login"): _UNKNOWN,
                                          ("pull_request", "author_association"): _UNKNOWN}

#: A fork's head repository, for the outsider's other runs (``same-repository-condition``).
_FORK_HEAD: dict[tuple[str, ...], Any] = {("pull_request", "head", "repo", "full_name"): _Sym("fork-head"),
                                          ("workflow_run", "head_repository", "full_name"): _Sym("fork-head"),
                                          ("pull_request", "head", "repo", "fork"): True,
                                          ("workflow_run", "head_repository", "fork"): True}


def _event_value(names: tuple[str, ...], scn: _Scenario) -> Any:
    """``github.event.<names>`` in the outsider's run."""
    head = names[0] if names else ""
    if head in _PAYLOAD_OBJECTS and head not in _PAYLOAD[scn.event]:
        return None  # the event's payload has no such object
    if scn.event in _REVIEW_EVENTS and names in _REVIEW_PR:  # a same-repository pull request, not the outsider's
        return _REVIEW_PR[names]
    labels = scn.event in _LABEL_EVENTS and (scn.actions is None or bool(scn.actions & _LABEL_ACTIONS))
    if names == ("action",):
        return scn.guarded("label-gate", _Str(scn.actions, _LABEL_ACTIONS)) if labels else _Str(scn.actions)
    if head == "label":  # only labeled / unlabeled carry it: people with triage access label
        return scn.guarded("label-gate", None) if labels else None
    if names in _AUTHOR_LOGINS:
        return scn.guarded("author-login", _Sym("outsider"))
    if names == ("workflow_run", "event"):
        return _Str(None, outsider_never_causes())
    if names == ("pull_request", "merged"):  # only a writer merges
        return scn.guarded("pull-request-merged", False)
    if names[1:] == ("labels", "*", "name") and head in ("pull_request", "issue"):
        return scn.guarded("label-gate", [])
    if names[1:] == ("author_association",) and head in ("pull_request", "issue", "comment", "discussion", "review"):
        return scn.guarded("author-association", _Str(_OUTSIDER_ASSOCIATION))
    if names in _FORK_HEAD:
        return scn.guarded("same-repository-condition", _FORK_HEAD[names])
    return _UNKNOWN


def _path(names: tuple[str, ...], scn: _Scenario) -> Any:
    if names[:1] != ("github",) or not scn.event:  # no event: any run, every context unknown
        return _UNKNOWN
    if names[1:] == ("event_name",):
        return scn.event
    if names[1:] == ("repository",):
        return _Sym("repo")
    if names[1:2] == ("event",):
        return _event_value(names[2:], scn) if scn.payload else _UNKNOWN
    return _UNKNOWN


# ------------------------------------------------------------------------------------------------ evaluation


def _chain(items: Iterable[tuple], scn: _Scenario, stop: bool) -> Any:
    """``&&`` (``stop`` False: the first falsy operand decides) or ``||`` (``stop`` True: the first truthy)."""
    unknown = False
    last: Any = None
    for item in items:
        last = _eval(item, scn)
        t = _truth(last)
        if t is stop:
            return _Truth(stop) if unknown else last
        unknown = unknown or t is None
    return _Truth(None) if unknown else last


def _eval(node: tuple, scn: _Scenario) -> Any:
    kind = node[0]
    if kind == "lit":
        return node[1]
    if kind == "path":
        return _path(node[1], scn)
    if kind == "not":
        t = _truth(_eval(node[1], scn))
        return _UNKNOWN if t is None else not t
    if kind == "and" or kind == "or":
        return _chain(node[1], scn, kind == "or")
    if kind == "call":
        return _call(node[1], [_eval(a, scn) for a in node[2]])
    if kind == "gate":  # a guard on the whole run (the trigger's types), not written in the if
        return scn.guarded(node[1], False)
    op, a, b = node[1], _eval(node[2], scn), _eval(node[3], scn)
    if op not in ("==", "!="):
        return _UNKNOWN
    same = _eq(a, b)
    if same is None:
        same = _fork_head_named(a, b, scn)
    return _UNKNOWN if same is None else same == (op == "==")


def _fork_head_named(a: Any, b: Any, scn: _Scenario) -> bool | None:
    """A fork's head repository compared with a literal: never this repository's name (False); another name
    may be the fork's (None).  The outsider's login compared with a literal: never the named (trusted)
    account (False).  Module docstring."""
    if isinstance(b, _Sym):
        a, b = b, a
    if a == _Sym("fork-head") and isinstance(b, str) and scn.repo is not None and b.lower() == scn.repo:
        return False
    if a == _Sym("outsider") and isinstance(b, str):
        return False
    return None


def _false(tree: tuple, scn: _Scenario, relaxed: Iterable[str]) -> bool:
    return _truth(_eval(tree, _Scenario(scn.event, scn.actions, frozenset(relaxed), scn.repo))) is False


def _deciding(tree: tuple, scn: _Scenario) -> tuple[str, ...]:
    """The guards that decide a gated condition: each that alone keeps it false, else each whose passing alone
    could make it true (an alternative of two guards)."""
    alone = tuple(g for g in GUARDS if _false(tree, scn, set(GUARDS) - {g}))
    return alone or tuple(g for g in GUARDS if not _false(tree, scn, {g})) or GUARDS


def verdicts(tree: tuple | None, events: Mapping[str, Sequence[str] | None],
             repository: str | None = None) -> list[Verdict]:
    """What the condition ``tree`` (:func:`parse_condition`) means for an outsider's run of each privileged
    event of ``events`` (event -> the trigger's activity ``types``, None when not filtered), in event order;
    ``repository`` (``owner/name``, any case) is the run's repository, None when not known (a literal naming it
    is then not read as this repository).

    ``tree`` None (no ``if``, or one not read) says nothing, except for a ``pull_request_target`` trigger whose
    ``types`` are only ``labeled`` / ``unlabeled`` (gated: ``label-gate``).

    >>> t = parse_condition("github.event_name == 'push' || contains(github.event.pull_request.labels.*.name, 'ok')")
    >>> for v in verdicts(t, {"pull_request_target": None, "issue_comment": ["created"], "push": None}):
    ...     print(v.event, v.outcome, v.guards)
    issue_comment skipped ()
    pull_request_target gated ('label-gate',)
    >>> verdicts(None, {"pull_request_target": ["labeled"]}), verdicts(None, {"pull_request_target": None})
    ([Verdict(event='pull_request_target', outcome='gated', guards=('label-gate',))], [])
    """
    out: list[Verdict] = []
    for event in sorted(set(events) & set(PRIVILEGED_EVENTS)):
        scn = _Scenario(event, _actions(event, events[event]), frozenset(), repository.lower() if repository else None)
        run = tree
        if scn.actions and scn.event in _LABEL_EVENTS and scn.actions <= _LABEL_ACTIONS:
            run = ("and", (("gate", "label-gate"), tree if tree is not None else ("lit", _UNKNOWN)))
        if run is None:
            continue
        if _false(run, scn, GUARDS):
            out.append(Verdict(event, "skipped"))
        elif _false(run, scn, ()):
            out.append(Verdict(event, "gated", _deciding(run, scn)))
    return out


def _actions(event: str, types: Sequence[str] | None) -> frozenset[str] | None:
    """The activity types a run of ``event`` may have: the trigger's ``types`` (those the event has), else the
    event's defaults (module docstring); None: any."""
    listed = _ACTIONS[event]
    if not types:
        return _DEFAULT_ACTIONS.get(event, listed)
    actions = frozenset(t.lower() for t in types if isinstance(t, str))
    return actions & listed if listed is not None else actions


#: Any run of any event: every context path unknown (:func:`always_false`).
_ANY_RUN = _Scenario("", None, frozenset(GUARDS))


def always_false(tree: tuple | None) -> bool:
    """Whether the condition ``tree`` (:func:`parse_condition`) is false in every run, whatever the event, the
    contexts and the status of earlier jobs or steps: every context path and every status function but
    ``always()`` (true) is unknown; literals, operators and the functions of the module docstring on literals
    are evaluated.  A job or step whose ``if`` is false in every run never runs (GitHub docs
    ``jobs.<job_id>.if``: "a job will not run unless a condition is met",
    https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idif; a
    condition without a status function is read as ``success() && (...)``, false as well).  ``tree`` None (no
    ``if``, or one not read) is not false.

    >>> [always_false(parse_condition(v)) for v in (False, "${{ false }}", 0, "false && github.x == 'y'",
    ...                                             "!always()", "contains('abc', 'z')")]
    [True, True, True, True, True, True]
    >>> [always_false(parse_condition(v)) for v in ("false || github.x", "github.ref == 'refs/heads/main'",
    ...                                             "x ${{ false }}", "failure()", "always() && true", None)]
    [False, False, False, False, False, False]
    """
    return tree is not None and _truth(_eval(tree, _ANY_RUN)) is False


def false_for_events(tree: tuple | None, events: Iterable[str]) -> bool:
    """Whether the condition ``tree`` (:func:`parse_condition`) is false in every run of every one of ``events``
    (the events that start the workflow, the caller's for a called one), whoever acts: ``github.event_name`` is
    the run's event (GitHub docs "Contexts reference", ``github.event_name``,
    https://docs.github.com/en/actions/reference/workflows-and-actions/contexts#github-context), every other
    context (the payload included) and every status function but ``always()`` unknown, every guard unknown.
    A job whose ``if`` is so never runs (:func:`always_false`'s reading, per event).  No events: not false.

    >>> t = parse_condition("github.event_name == 'push' && github.ref == 'refs/heads/main'")
    >>> false_for_events(t, ["pull_request_target"]), false_for_events(t, ["pull_request_target", "push"])
    (True, False)
    >>> [false_for_events(parse_condition(v), ["push"]) for v in ("github.event_name != 'push' || failure()",
    ...  "always() || github.event_name == 'pull_request'", "github.event.pull_request.head.repo.fork")]
    [False, False, False]
    """
    names = list(dict.fromkeys(events))
    return tree is not None and bool(names) and all(
        _truth(_eval(tree, _Scenario(e, None, frozenset(GUARDS), payload=False))) is False for e in names)
