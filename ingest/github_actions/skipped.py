"""Jobs and steps that never run: an ``if`` false in every run (pure: no I/O).

GitHub skips a job (``jobs.<job_id>.if``) or a step (``jobs.<job_id>.steps[*].if``) whose condition is false:
https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idif.  One false
in every run (:func:`.conditions.always_false`: ``if: false``, ``if: ${{ false }}``, ``if: 0``,
``false && ...``) never runs: such a job reaches nothing (:attr:`graphkit.model.Job.never_runs`), such a step
runs no code and reads nothing.

A job or a step whose ``if`` is false for every event that can start its workflow (``github.event_name == 'push'``
in a workflow only ``pull_request_target`` starts: :func:`.conditions.false_for_events`) never runs either: such a
step (:func:`live_job`; a composite action's steps, :func:`never_runs` with the run's events) runs no code, reads
no secret and is no way in for an outsider.

A job whose ``needs`` names a job that never runs is skipped as well, unless its ``if`` holds a status function
that continues after a skipped dependency: "If a job fails or is skipped, all jobs that need it are skipped
unless the jobs use a conditional expression that causes the job to continue"
(https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idneeds).  An ``if``
without a status function is read as ``success() && (...)``, and ``success()`` is false once a dependency was
skipped; ``always()`` is true; ``failure()`` (another dependency or ancestor may fail) and ``cancelled()`` (the
run may be cancelled) are unknown (GitHub docs "Status check functions",
https://docs.github.com/en/actions/reference/workflows-and-actions/expressions#status-check-functions):
:func:`skipped_needs`, transitively.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from .conditions import MAX_CHARS, always_false, false_for_events, parse_condition
from .models import JobDef, scalar_text

__all__ = ["live_job", "never_detail", "never_runs", "run_events", "runs_after_skipped", "skipped_needs"]

_STATUS = frozenset({"success", "failure", "cancelled", "always"})


@lru_cache(maxsize=4096)
def _never_text(text: str) -> bool:
    return always_false(parse_condition(text))


@lru_cache(maxsize=4096)
def _never_for(text: str, events: tuple[str, ...]) -> bool:
    return false_for_events(parse_condition(text), events)


def never_runs(value: Any, events: tuple[str, ...] | None = None) -> bool:
    """Whether an ``if`` value (a job's as written, a step's text) is false in every run
    (:func:`.conditions.always_false`), or in every run of each of ``events`` (the events that can start the
    workflow, :func:`run_events`; None: not known, :func:`.conditions.false_for_events`): GitHub skips that job
    or step, which then runs nothing and reads nothing
    (https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idif,
    ``#jobsjob_idstepsif``).

    >>> never_runs(False), never_runs("${{ false }}"), never_runs("false || github.x"), never_runs(None)
    (True, True, False, False)
    >>> c = "github.event_name == 'push'"
    >>> never_runs(c), never_runs(c, ("pull_request_target",)), never_runs(c, ("push", "schedule"))
    (False, True, False)
    """
    if isinstance(value, str):
        return len(value) <= MAX_CHARS and (_never_text(value) or bool(events) and _never_for(value, events))
    if value is None:
        return False
    tree = parse_condition(value)
    return always_false(tree) or bool(events) and false_for_events(tree, events)


def never_detail(value: Any, events: tuple[str, ...] | None) -> str:
    """The evidence text of a job ``if`` that never runs: the ``if`` as written, and the events when it is false
    only for those (:func:`never_runs`).

    >>> never_detail("github.event_name == 'push'", ("pull_request_target",))
    "false for every event that starts the workflow (pull_request_target): github.event_name == 'push'"
    """
    text = scalar_text(value)
    if never_runs(value) or not events:
        return text
    return f"false for every event that starts the workflow ({', '.join(events)}): {text}"  # kept when cut


def run_events(events: Iterable[str], *, unknown_caller: bool) -> tuple[str, ...] | None:
    """The events whose ``github.event_name`` a run of the workflow's jobs may have, for :func:`never_runs`: the
    ``on:`` events of the triggering workflow (the top caller's for a called workflow: a called workflow's
    ``github`` context is the caller's, GitHub docs "Reusing workflows",
    https://docs.github.com/en/actions/sharing-automations/reusing-workflows#supported-keywords-for-jobs-that-call-a-reusable-workflow).
    None (not known) for the run of a caller graphkit did not read (``unknown_caller``), when they include
    ``workflow_call`` (some caller's events), or when there are none.

    >>> run_events(["pull_request_target"], unknown_caller=False), run_events(["push"], unknown_caller=True)
    (('pull_request_target',), None)
    >>> run_events(["push", "workflow_call"], unknown_caller=False), run_events([], unknown_caller=False)
    (None, None)
    """
    names = tuple(sorted({e.lower() for e in events}))
    return None if unknown_caller or not names or "workflow_call" in names else names


def live_job(jd: JobDef, events: tuple[str, ...] | None = None) -> JobDef:
    """``jd`` without the steps whose ``if`` is false in every run, or in every run of each of ``events`` (the
    events that start the workflow, :func:`run_events`; None: not known) (:func:`never_runs`, the job's reading:
    a status function other than ``always()``, or anything not decided, keeps the step): left out of ``steps``
    and blanked in ``raw`` (so no secret read, step rule or untrusted code is attributed to them; the other steps
    keep their index).

    >>> from ingest.github_actions.models import Step
    >>> jd = JobDef(key="t", raw={"steps": [{"if": "github.event_name == 'push'"}, {"if": "failure()"}]},
    ...             steps=[Step(index=0, path="s0", condition="github.event_name == 'push'"),
    ...                    Step(index=1, path="s1", condition="failure()")])
    >>> [s.index for s in live_job(jd).steps], [s.index for s in live_job(jd, ("pull_request_target",)).steps]
    ([0, 1], [1])
    """
    dead = {s.index for s in jd.steps if s.condition is not None and never_runs(s.condition, events)}
    raw_steps = jd.raw.get("steps")
    if not dead or not isinstance(raw_steps, list):
        return jd
    return jd.model_copy(update={"steps": [s for s in jd.steps if s.index not in dead], "raw": {
        **jd.raw, "steps": [None if i in dead else s for i, s in enumerate(raw_steps)]}})


def _status_calls(tree: tuple) -> set[str]:
    """The status functions (lower case) called anywhere in a condition tree."""
    found: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if not isinstance(node, tuple) or not node:
            continue
        if node[0] == "call" and node[1] in _STATUS:
            found.add(node[1])
        # a tree node is (tag, ...); its operand lists (("and", (a, b)) and a call's arguments) are plain tuples
        stack.extend(x for x in (node[1:] if isinstance(node[0], str) else node) if isinstance(x, tuple))
    return found


def _success_false(node: Any) -> Any:
    """``node`` with every ``success()`` replaced by ``false`` (a dependency was skipped)."""
    if not isinstance(node, tuple) or not node:
        return node
    if node[0] == "call" and node[1] == "success":
        return ("lit", False)
    return tuple(_success_false(x) if isinstance(x, tuple) else x for x in node)


def runs_after_skipped(value: Any) -> bool:
    """Whether a job with the ``if`` ``value`` (as written; None: no ``if``) may run when a job it needs was
    skipped (module docstring): False with no status function (the implicit ``success()``), or when the
    condition with ``success()`` false is false in every run (:func:`.conditions.always_false`).  An ``if`` not
    read (too long, not parsed) may run.

    >>> [runs_after_skipped(v) for v in (None, "github.x == 'y'", "success()", "always()", "!cancelled()",
    ...                                  "failure()", "success() || failure()", "always() && false")]
    [False, False, False, True, True, True, True, False]
    >>> [runs_after_skipped(v) for v in ("always() && github.x == 'y'", "!cancelled() && github.x",
    ...                                  "${{ always() && needs.never.result == 'skipped' }}", "github.x && success()")]
    [True, True, True, False]
    """
    if value is None:
        return False
    if isinstance(value, str) and len(value) > MAX_CHARS:
        return True
    tree = parse_condition(value)
    if tree is None:
        return True
    if not _status_calls(tree):
        return False
    return not always_false(_success_false(tree))


def _needs(jd: JobDef) -> list[str]:
    raw = jd.raw.get("needs")
    items = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
    return [x.lower() for x in items if isinstance(x, str)]


def skipped_needs(jobs: Mapping[str, JobDef], events: tuple[str, ...] | None = None) -> dict[str, str]:
    """Job key -> the key of a job in its ``needs`` that never runs, for the jobs of one workflow skipped for
    that reason (module docstring), transitively; a job whose own ``if`` is false in every run (of ``events``,
    :func:`never_runs`) is not listed (:func:`never_runs` says so).  Keys are compared ignoring case.

    >>> j = {k: JobDef(key=k, raw=r) for k, r in (("a", {"if": False}), ("b", {"needs": "a"}),
    ...      ("c", {"needs": ["b"]}), ("d", {"needs": "c", "if": "always()"}), ("e", {"needs": "d"}))}
    >>> skipped_needs(j)
    {'b': 'a', 'c': 'b'}
    """
    by_key = {k.lower(): jd for k, jd in jobs.items()}
    dead = {k for k, jd in by_key.items() if never_runs(jd.raw.get("if"), events)}
    out: dict[str, str] = {}
    changed = True
    while changed:
        changed = False
        for k, jd in by_key.items():
            if k in dead:
                continue
            dep = next((n for n in _needs(jd) if n in dead), None)
            if dep is not None and not runs_after_skipped(jd.raw.get("if")):
                dead.add(k)
                out[jd.key] = by_key[dep].key
                changed = True
    return out
