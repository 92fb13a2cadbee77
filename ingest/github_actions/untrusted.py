"""Steps that run code a pull request author controls (pure): :class:`~graphkit.model.UntrustedCode`.

Read from the job's own steps (composite actions are not followed):

- ``actions/checkout`` whose ``ref`` (or ``repository``) names the pull
  request's code: ``github.event.pull_request.head.sha`` / ``.head.ref`` /
  ``.merge_commit_sha``, ``github.head_ref``, ``refs/pull/...``,
  ``github.event.workflow_run.head_sha`` / ``head_branch`` / ``head_commit.id`` (the head SHA again) /
  ``head_repository`` (the fork, as ``repository``), ``pull_request.head.repo``
  (https://docs.github.com/en/webhooks/webhook-events-and-payloads#workflow_run);
- run scripts with ``gh pr checkout`` or ``git fetch|checkout|pull`` of
  ``pull/N/...`` or of the pull request head;
- ``actions/download-artifact`` with a ``run-id`` of the triggering
  ``workflow_run``, and ``dawidd6/action-download-artifact`` (artifacts of
  another run, which a fork's ``pull_request`` run may have written);
- script injection: a ``run:`` script, or the ``script`` of ``actions/github-script``, that writes
  ``${{ }}`` of text an outsider chose (``github.event.issue.title``, ``github.head_ref``...,
  ``injection_contexts`` of ``graphkit/data/untrusted_guards.json``, or an object holding one such as
  ``toJSON(github.event)``): GitHub substitutes it before the shell (or the script) runs, so the text runs
  as code (GitHub docs "Understanding the risk of script injections",
  https://docs.github.com/en/actions/reference/security/secure-use#understanding-the-risk-of-script-injections).
  The value passed through ``env:`` and used as a shell variable is the documented mitigation: not read as
  an injection.  ``UntrustedCode.events`` names the events whose payload carries the text.

Guard of a checkout (dated, 2026-06): ``actions/checkout`` refuses fork pull
request code under ``pull_request_target`` and ``workflow_run`` unless
``allow-unsafe-pr-checkout: true`` (GitHub changelog 2026-06-18,
https://github.blog/changelog/2026-06-18-safer-pull_request_target-defaults-for-github-actions-checkout/;
actions/checkout PR 2454).  v7 shipped it (every v7 release has it); on 2026-07-16
it was backported to the supported majors, which a floating major tag (``@v4``
to ``@v6``) picks up, while "workflows pinned to a specific SHA, minor, or patch
version aren't affected by the backport".  So: a floating tag ``@v4`` or later,
and any ``v7``+ minor or patch pin, is ``checkout-refuses``; v1-v3 never had it
(``none``); a minor or patch pin of v4-v6 released before the backport
(:data:`_LAST_BEFORE_BACKPORT`, from https://github.com/actions/checkout/releases:
v4.0.0-v4.3.1, v5.0.0-v5.0.1, v6.0.0-v6.0.2) has no guard (``none``: the path is
certain); a later v4-v6 pin (it may be a backport release) or a commit pin is
``unknown``.  ``allow-unsafe-pr-checkout: true`` turns the guard off where the release has (or may have) it:
``opted-out``; a release without it stays ``none`` (the edges of a ``none`` checkout name no checkout guard,
those of ``opted-out`` and ``unknown`` name ``checkout-refuses-fork-code``).  The opt-out written as an
expression is evaluated when the job runs: ``${{ true }}`` is the opt-out (``opted-out``); any other
expression (``${{ inputs.unsafe || true }}``) may be true, so a guard it could turn off is ``unknown`` (GitHub docs "Evaluate expressions in workflows and actions",
https://docs.github.com/en/actions/reference/workflows-and-actions/expressions).
Each of these steps, and the job, carries what its ``if`` means for an outsider's ``pull_request_target``,
``workflow_run`` or ``issue_comment`` run (``condition``: skipped, or gated by a guard;
:mod:`.conditions`): the workflow of those runs is the base repository's, so the outsider cannot change it.
GitHub docs "Security hardening for GitHub Actions",
https://docs.github.com/en/actions/reference/security/secure-use, and
"Securely using pull_request_target",
https://docs.github.com/en/actions/reference/security/securely-using-pull_request_target.
"""

from __future__ import annotations

import json
import re

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

from graphkit.model import Evidence, IfVerdict, Trigger, UntrustedCode

from .conditions import PRIVILEGED_EVENTS, parse_condition, verdicts
from .evidence import Src
from .models import JobDef, Step, scalar_text

__all__ = ["condition_verdicts", "job_condition", "untrusted_code"]

_PR_CODE = re.compile(r"github\.event\.pull_request\.(?:head\.(?:sha|ref|repo)|merge_commit_sha)|github\.head_ref"
                      r"|refs/pull/|github\.event\.workflow_run\.(?:head_(?:sha|branch|repository)|head_commit\.id)",
                      re.IGNORECASE)
_SCRIPT = re.compile(r"\bgh\s+pr\s+checkout\b|\bgit\s+(?:fetch|checkout|pull|switch)\b[^\n]*(?:\bpull/|"
                     + _PR_CODE.pattern + ")", re.IGNORECASE)
#: A version tag: ``v4`` (floating major), ``v4.2`` (minor), ``v4.2.2`` (patch).
#: the opt-out as a constant expression (literals are case-insensitive in expressions)
_TRUE_EXPR = re.compile(r"\$\{\{\s*true\s*\}\}", re.IGNORECASE)
_VERSION = re.compile(r"v(\d{1,4})(?:\.(\d{1,4}))?(?:\.(\d{1,4}))?")
#: The first major that shipped the guard (v7.0.0, 2026-06-18); floating tags of majors from
#: :data:`_FIRST_BACKPORTED_MAJOR` got it by the 2026-07-16 backport.
_FIRST_GUARDED_MAJOR, _FIRST_BACKPORTED_MAJOR = 7, 4
#: The newest release of each backported major published before the backport (2026-07-16), per
#: https://github.com/actions/checkout/releases: a pin at or below it never has the guard.
_LAST_BEFORE_BACKPORT: dict[int, tuple[int, int]] = {4: (3, 1), 5: (0, 1), 6: (0, 2)}


def _action(step: Step) -> tuple[str, str]:
    """(lower-case action name without ``@``, ref) of a ``uses:`` step."""
    name, _, ref = (step.uses or "").partition("@")
    return name.strip().lower().rstrip("/"), ref.strip()


def _checkout_guard(step: Step, ref: str) -> str:
    """``none``, ``checkout-refuses``, ``unknown`` or ``opted-out`` for ``actions/checkout@ref`` (module
    docstring).

    >>> [_checkout_guard(Step(index=0, path="s"), r) for r in ("v4", "v3", "v4.2.2", "v6.0.3", "v7.0.1", "v8")]
    ['checkout-refuses', 'none', 'none', 'unknown', 'checkout-refuses', 'checkout-refuses']
    """
    opt_out = scalar_text(step.with_args.get("allow-unsafe-pr-checkout")).strip()
    guard = _release_guard(ref)
    if opt_out.lower() == "true" or _TRUE_EXPR.fullmatch(opt_out):
        return "none" if guard == "none" else "opted-out"  # a release without the guard has nothing to opt out of
    return "unknown" if guard == "checkout-refuses" and "${{" in opt_out else guard  # may evaluate to true


def _release_guard(ref: str) -> str:
    """The guard of ``actions/checkout@ref`` without an opt-out (:func:`_checkout_guard`)."""
    m = _VERSION.fullmatch(ref)
    if m is None:
        return "unknown"  # a commit pin or a branch: which release it is is not read
    major = int(m.group(1))
    if major >= _FIRST_GUARDED_MAJOR or (m.group(2) is None and major >= _FIRST_BACKPORTED_MAJOR):
        return "checkout-refuses"
    if major < _FIRST_BACKPORTED_MAJOR:
        return "none"
    minor, patch = int(m.group(2)), int(m.group(3) or 0)
    return "none" if (minor, patch) <= _LAST_BEFORE_BACKPORT.get(major, (-1, -1)) else "unknown"


_EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)
_INDEX = re.compile(r"\[\s*'([^']*)'\s*\]")
_ARRAY_INDEX = re.compile(r"\[\s*(?:\d+|\*)\s*\]")  # pages[0], pages[*]: read as pages.*
_CONTEXT_PATH = re.compile(r"(?<![\w.-])github(?:\.[a-z0-9_*-]+)*")
_ENV_PATH = re.compile(r"(?<![\w.-])env\.([a-z_][a-z0-9_]*)")


@lru_cache(maxsize=1)
def injection_contexts() -> dict[str, tuple[str, ...]]:
    """Context path (lower case) -> the events whose payload carries it: ``injection_contexts.contexts`` of
    ``graphkit/data/untrusted_guards.json`` (module docstring)."""
    raw = json.loads(resources.files("graphkit.data").joinpath("untrusted_guards.json").read_text("utf-8"))
    return {k.lower(): tuple(v) for k, v in raw["injection_contexts"]["contexts"].items()}


def injected(text: str, env: Mapping[str, tuple[str, ...]] | None = None) -> tuple[str, tuple[str, ...]] | None:
    """The first ``${{ }}`` of ``text`` that writes outsider text, and the events that carry it (sorted); None
    when there is none.  A path naming such a context, or an object holding one, is outsider text; index
    syntax (``github.event['issue']['title']``) is read as the dotted path.  ``env``: variable name (lower
    case) -> the events whose outsider text its value holds: ``${{ env.NAME }}`` writes that text into the
    script as well (the value is substituted like any expression; only ``$NAME`` read by the shell is safe).

    >>> injected("echo '${{ github.event.issue.title }}' ${{ github.event.issue.number }}")
    ('${{ github.event.issue.title }}', ('issue_comment', 'issues'))
    >>> injected('echo "$TITLE" ${{ github.event.pull_request.head.sha }}') is None
    True
    >>> injected("x=${{ toJSON(github.event.pull_request) }}")[1]
    ('pull_request_target',)
    >>> injected("echo '${{ env.TITLE }}'", {"title": ("issues",)})
    ('${{ env.TITLE }}', ('issues',))
    """
    contexts = injection_contexts()
    for m in _EXPRESSION.finditer(text):
        events: set[str] = set()
        expression = _ARRAY_INDEX.sub(".*", _INDEX.sub(r".\1", m.group(1))).lower()
        for path in _CONTEXT_PATH.findall(expression):
            for ctx, evs in contexts.items():
                if path == ctx or ctx.startswith(path + ".") or path.startswith(ctx + "."):
                    events.update(evs)
        for name in _ENV_PATH.findall(expression) if env else ():
            events.update(env.get(name, ()))
        if events:
            return m.group(0), tuple(sorted(events))
    return None


def tainted_env(env: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """Variable name (lower case) -> the events whose outsider text its value holds (:func:`injected`), for the
    variables of ``env`` that hold any.

    >>> tainted_env({"TITLE": "${{ github.event.issue.title }}", "N": "${{ github.event.issue.number }}"})
    {'title': ('issue_comment', 'issues')}
    """
    out: dict[str, tuple[str, ...]] = {}
    for key, value in env.items():
        found = injected(value) if isinstance(value, str) and "${{" in value else None
        if found is not None:
            out[str(key).lower()] = found[1]
    return out


def _injection(step: Step, name: str, src: Src, env: Mapping[str, tuple[str, ...]]) -> UntrustedCode | None:
    """A run script or ``actions/github-script`` script writing outsider text (module docstring); ``env``: the
    tainted variables of the workflow and job (:func:`tainted_env`).  The step's own ``env`` overrides them
    while the step runs (a step variable of the same name holding no outsider text shadows a tainted one:
    https://docs.github.com/en/actions/reference/workflows-and-actions/variables)."""
    if step.env:
        own = {str(k).lower() for k in step.env}
        env = {**{k: v for k, v in env.items() if k not in own}, **tainted_env(step.env)}
    for path, text in ((step.path + ".run", step.run),
                       (step.path + ".with.script", scalar_text(step.with_args.get("script"))
                        if name == "actions/github-script" else None)):
        found = injected(text, env) if text and "${{" in text else None
        if found is not None:
            return UntrustedCode(how="injection", events=found[1], evidence=src.ev(path, found[0]))
    return None


def _one(step: Step, src: Src, events: Mapping[str, Sequence[str] | None],
         repository: str | None, env: Mapping[str, tuple[str, ...]]) -> UntrustedCode | None:
    code = _code(step, src, env)
    if code is None or step.condition is None:
        return code
    found = condition_verdicts(step.condition, src, f"{step.path}.if", events, repository)
    return code.model_copy(update={"condition": found}) if found else code


def _code(step: Step, src: Src, env: Mapping[str, tuple[str, ...]]) -> UntrustedCode | None:
    name, ref = _action(step)
    args = " ".join(scalar_text(step.with_args.get(k)) for k in ("ref", "repository"))
    if name == "actions/checkout" and _PR_CODE.search(args):
        return UntrustedCode(how="checkout", guard=_checkout_guard(step, ref), evidence=src.ev(step.path, args))
    if name == "actions/download-artifact" and "workflow_run" in scalar_text(step.with_args.get("run-id")):
        return UntrustedCode(how="artifact", evidence=src.ev(step.path, step.uses))
    if name == "dawidd6/action-download-artifact":
        return UntrustedCode(how="artifact", evidence=src.ev(step.path, step.uses))
    m = _SCRIPT.search(step.run or "")
    if m:
        return UntrustedCode(how="script", evidence=src.ev(step.path + ".run", m.group(0)))
    return _injection(step, name, src, env)


def untrusted_code(jd: JobDef, src: Src, triggers: Iterable[Trigger] = (),
                   repository: str | None = None, env: Mapping[str, Any] | None = None) -> list[UntrustedCode]:
    """The steps of ``jd`` that run pull request code (module docstring), in step order; each with what its
    ``if`` means for an outsider's run of the privileged events among ``triggers`` in ``repository`` (the run's,
    None when not known) (``condition``: :func:`condition_verdicts`; ``jobs.<job_id>.steps[*].if``,
    https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idstepsif).
    ``env``: the workflow's and job's ``env`` (None: the job's alone), whose variables holding outsider text
    make ``${{ env.NAME }}`` in a script an injection.

    >>> from ingest.github_actions.models import Step
    >>> jd = JobDef(key="t", steps=[Step(index=0, path="jobs.t.steps[0]", uses="actions/checkout@v4",
    ...                                  with_args={"ref": "${{ github.event.pull_request.head.sha }}"}),
    ...                             Step(index=1, path="jobs.t.steps[1]", run="gh pr checkout 12")])
    >>> [(u.how, u.guard) for u in untrusted_code(jd, Src("ci.yml", "acme/app", {}))]
    [('checkout', 'checkout-refuses'), ('script', 'none')]
    """
    events = trigger_types(triggers)
    tainted = tainted_env(jd.env if env is None else env)
    return [u for u in (_one(s, src, events, repository, tainted) for s in jd.steps) if u is not None]


def condition_verdicts(value: Any, src: Src, path: str, events: Mapping[str, Sequence[str] | None],
                       repository: str | None = None, types_evidence: Evidence | None = None
                       ) -> tuple[IfVerdict, ...]:
    """What the ``if`` ``value`` at YAML ``path`` means for an outsider's run of each privileged event of
    ``events`` (event -> the trigger's activity types, None when not filtered) in ``repository`` (the run's
    ``owner/name``, None when not known): :func:`.conditions.verdicts`, with the ``if`` as evidence.  Empty when
    no privileged event triggers the job or nothing is decided.  With no ``if`` (``value`` None), what the
    trigger's ``types`` alone decide (a ``pull_request_target`` run only on ``labeled``: ``label-gate``), with
    ``types_evidence`` as evidence (None: nothing is said).

    >>> [(v.event, v.outcome, v.evidence.yaml_path) for v in condition_verdicts(
    ...     "github.event_name == 'push'", Src("ci.yml", "acme/app", {}), "jobs.t.if",
    ...     {"push": None, "pull_request_target": None})]
    [('pull_request_target', 'skipped', 'jobs.t.if')]
    """
    if (value is None and types_evidence is None) or not any(e in PRIVILEGED_EVENTS for e in events):
        return ()
    found = verdicts(None if value is None else parse_condition(value), events, repository)
    if not found:
        return ()
    ev = src.ev(path, scalar_text(value)) if value is not None else types_evidence
    assert ev is not None
    return tuple(IfVerdict(event=v.event, outcome=v.outcome, guards=v.guards, evidence=ev) for v in found)


def trigger_types(triggers: Iterable[Trigger]) -> dict[str, Sequence[str] | None]:
    """event -> activity types (None: not filtered) of a job's triggers."""
    return {t.event: t.types for t in triggers}


def job_condition(jd: JobDef, src: Src, path: str, triggers: Iterable[Trigger],
                  repository: str | None = None) -> tuple[IfVerdict, ...]:
    """:func:`condition_verdicts` of the job ``if`` (``jobs.<job_id>.if``,
    https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idif) for a
    run in ``repository`` (None: not known); a job without one is still gated by a ``pull_request_target``
    trigger whose ``types`` are only ``labeled`` / ``unlabeled`` (evidence: that trigger).

    >>> from graphkit.model import Evidence
    >>> t = Trigger(event="pull_request_target", types=("labeled",), evidence=Evidence(file="ci.yml",
    ...             yaml_path="on.pull_request_target"))
    >>> [(v.event, v.outcome, v.guards, v.evidence.yaml_path)
    ...  for v in job_condition(JobDef(key="t"), Src("ci.yml", "acme/app", {}), "jobs.t", [t])]
    [('pull_request_target', 'gated', ('label-gate',), 'on.pull_request_target')]
    """
    triggers = list(triggers)
    target = next((t for t in triggers if t.event in ("pull_request_target", "issues", "discussion") and t.types
                   and {x.lower() for x in t.types} <= {"labeled", "unlabeled"}), None)
    return condition_verdicts(jd.raw.get("if"), src, f"{path}.if", trigger_types(triggers), repository,
                              target.evidence if target is not None else None)
