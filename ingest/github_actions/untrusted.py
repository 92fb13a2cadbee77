"""Steps that run code a pull request author controls (pure): :class:`~graphkit.model.UntrustedCode`.

Read from the job's own steps and from the steps of the local composite actions they use (:func:`composite_code`;
a remote action ``owner/repo@ref`` that is not among the files is not read, and says nothing):

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
  an injection.  ``UntrustedCode.events`` names the events whose payload carries the text;
- the same text passed as an input and written as ``${{ inputs.NAME }}`` (or through a variable set from it):
  by a caller job's ``with:`` into a reusable workflow (``on: workflow_call``), whose job runs in the caller's
  run with what it passes (:func:`tainted_with`; a ``boolean`` or ``number`` input holds no text,
  :func:`text_inputs`), or by a step's ``with:`` into a local composite action (:func:`composite_code`).  The
  entry is the script that expands it, in the job that runs it; ``UntrustedCode.via`` names each ``with:`` it
  went through.  zizmor's ``template-injection`` audit reports every ``${{ inputs.* }}`` in a script as a
  low-confidence finding without reading the callers
  (https://github.com/zizmorcore/zizmor/blob/main/crates/zizmor/src/audit/template_injection.rs); here an input is
  outsider text only where a read caller passes some;
- a checkout of the pull request's code through inputs: ``actions/checkout`` with ``ref`` (or ``repository``)
  ``${{ inputs.NAME }}`` in a reusable workflow or a local composite action, where a caller's ``with:`` passes
  the pull request's head (any of the first bullet's values; through nested composites and workflows, or the
  input's ``default``, evaluated in the caller's run: :func:`tainted_defaults`) checks out the outsider's code
  exactly as if the caller had: the called job runs in the caller's run with its ``github`` context and the
  secrets it passes (GitHub docs "Reusing workflows",
  https://docs.github.com/en/actions/sharing-automations/reusing-workflows; GitHub Security Lab "Preventing pwn
  requests", https://securitylab.github.com/resources/github-actions-preventing-pwn-requests/).  The entry is
  the checkout step, ``via`` each ``with:`` the value went through (:func:`checkout_source`, read by the same
  :func:`tainted_with` as the injection).  A value computed at run time (written in the checkout, or passed in)
  may be the pull request's head, as when a step resolves it with ``gh api`` or ``actions/github-script``
  (GitHub Security Lab "Preventing pwn requests"): another job's output (``${{ needs.<job>.outputs.* }}``), an
  earlier step's (``${{ steps.<id>.outputs.* }}``; GitHub docs "Passing information between jobs",
  https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/passing-information-between-jobs),
  ``${{ env.NAME }}`` of a variable set from one of these or set in no ``env:`` (``$GITHUB_ENV``, at run
  time): ``UntrustedCode.certain`` False (a ``possible`` entry, guard ``run-time-checkout-ref``), and only in a
  run that ``pull_request_target``, ``workflow_run`` or ``issue_comment`` starts.  A variable an ``env:`` sets
  from a value read above is what that value is (the head: certain; ``github.sha``, the base: nothing).  The
  checkout guard below and each ``if`` apply as to any checkout.

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
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, NamedTuple

from graphkit.model import Evidence, IfVerdict, Trigger, UntrustedCode

from .conditions import PRIVILEGED_EVENTS, parse_condition, verdicts
from .evidence import Src
from .expressions import EXPRESSION_PATTERN
from .models import ActionFile, JobDef, Step, WorkflowFile, scalar_text
from .skipped import never_runs

__all__ = ["Scope", "Taint", "checkout_source", "combined", "composite_code", "condition_verdicts", "job_condition",
           "job_scope", "tainted_call", "tainted_defaults", "tainted_with", "text_inputs", "untrusted_code"]

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


_EXPRESSION = re.compile(EXPRESSION_PATTERN, re.DOTALL)  # a ``}}`` in a string literal does not end it
_INDEX = re.compile(r"\[\s*'([^']*)'\s*\]")
_ARRAY_INDEX = re.compile(r"\[\s*(?:\d+|\*)\s*\]")  # pages[0], pages[*]: read as pages.*
_CONTEXT_PATH = re.compile(r"(?<![\w.-])github(?:\.[a-z0-9_*-]+)*")
_ENV_PATH = re.compile(r"(?<![\w.-])env\.([a-z_][a-z0-9_]*)")
#: ``inputs.NAME`` (``-`` allowed in a name), or the whole ``inputs`` object (``toJSON(inputs)``)
_INPUTS_PATH = re.compile(r"(?<![\w.-])inputs(?![\w-])(?:\.([a-z_][a-z0-9_-]*))?")


class Taint(NamedTuple):
    """Outsider text that a variable or an input holds: the events whose payload carries it (sorted; empty: no
    outsider text), where it was passed in (``via``: the callers' ``with:``, outermost first;
    :attr:`UntrustedCode.via`), and whether it names the pull request's code for a checkout (``code``:
    ``certain``, ``possible`` for a value known only at run time, ``""`` not; :func:`checkout_source`)."""

    events: tuple[str, ...]
    via: tuple[Evidence, ...] = ()
    code: str = ""


@lru_cache(maxsize=1)
def injection_contexts() -> dict[str, tuple[str, ...]]:
    """Context path (lower case) -> the events whose payload carries it: ``injection_contexts.contexts`` of
    ``graphkit/data/untrusted_guards.json`` (module docstring)."""
    raw = json.loads(resources.files("graphkit.data").joinpath("untrusted_guards.json").read_text("utf-8"))
    return {k.lower(): tuple(v) for k, v in raw["injection_contexts"]["contexts"].items()}


def injected(text: str, env: Mapping[str, Taint] | None = None,
             inputs: Mapping[str, Taint] | None = None) -> tuple[str, Taint] | None:
    """The first ``${{ }}`` of ``text`` that writes outsider text, and what all of them write (the events that
    carry it, sorted; where it was passed in); None when there is none.  A path naming such a context, or an object
    holding one, is outsider text; index syntax (``github.event['issue']['title']``) is read as the dotted
    path.  ``env``: variable name (lower case) -> the outsider text its value holds: ``${{ env.NAME }}`` writes
    that text into the script as well (the value is substituted like any expression; only ``$NAME`` read by the
    shell is safe).  ``inputs``: input name (lower case) -> the outsider text a caller passes in it (a reusable
    workflow's or a composite action's ``${{ inputs.NAME }}``; ``inputs`` alone, as in ``toJSON(inputs)``,
    holds every input).

    >>> injected("echo '${{ github.event.issue.title }}' ${{ github.event.issue.number }}")
    ('${{ github.event.issue.title }}', Taint(events=('issue_comment', 'issues'), via=(), code=''))
    >>> injected('echo "$TITLE" ${{ github.event.pull_request.head.sha }}') is None
    True
    >>> injected("x=${{ toJSON(github.event.pull_request) }}")[1].events
    ('pull_request_target',)
    >>> injected("echo '${{ env.TITLE }}'", {"title": Taint(("issues",))})
    ('${{ env.TITLE }}', Taint(events=('issues',), via=(), code=''))
    >>> injected("echo ${{ inputs.n }} ${{ inputs.Title }}", inputs={"title": Taint(("issues",))})[0]
    '${{ inputs.Title }}'
    >>> injected('echo "${{ github.event.review.body }}" "${{ github.event.comment.body }}"')[1].events
    ('discussion_comment', 'issue_comment', 'pull_request_review', 'pull_request_review_comment')
    """
    contexts = injection_contexts()
    first: str | None = None
    events: set[str] = set()
    via: list[Evidence] = []
    for m in _EXPRESSION.finditer(text):
        before = len(events), len(via)
        expression = _ARRAY_INDEX.sub(".*", _INDEX.sub(r".\1", m.group(1))).lower()
        for path in _CONTEXT_PATH.findall(expression):
            for ctx, evs in contexts.items():
                if path == ctx or ctx.startswith(path + ".") or path.startswith(ctx + "."):
                    events.update(evs)
        held = [env.get(name) for name in _ENV_PATH.findall(expression)] if env else []
        for name in _INPUTS_PATH.findall(expression) if inputs else ():
            held += [inputs.get(name)] if name else list(inputs.values())
        for taint in held:
            if taint is not None and taint.events:  # (an input naming the pull request's code holds no text)
                events.update(taint.events)
                via += [v for v in taint.via if v not in via]
        if first is None and (len(events), len(via)) != before:
            first = m.group(0)
    return None if first is None else (first, Taint(tuple(sorted(events)), tuple(via)))


#: The events whose run, with the base repository's secrets, is about a pull request an outsider wrote (rules 2-3
#: of :mod:`graphkit.resolve.untrusted`): a value computed at run time checked out there may be its head
#: (``possible``).
_CODE_EVENTS = frozenset({"pull_request_target", "workflow_run", "issue_comment"})
#: ``needs.<job>.outputs`` (a value another job computes) or ``steps.<id>.outputs`` (one an earlier step of the
#: job computes, as with ``gh api`` or ``actions/github-script``): known only at run time
_RUN_TIME_OUTPUT = re.compile(r"(?<![\w.-])(?:needs|steps)\.[a-z0-9_-]+\.outputs(?![\w-])")


def checkout_source(text: str, inputs: Mapping[str, Taint] | None = None,
                    env: Mapping[str, Taint] | None = None) -> tuple[str, Taint] | None:
    """Whether ``text``, the ``ref`` or ``repository`` of ``actions/checkout`` or a value passed on to one as an
    input, names the pull request's code: the part that does (an expression, else ``text``) and a
    :class:`Taint` whose ``code`` says how surely (``via``: the ``with:`` entries of the inputs it read).  A
    head SHA, ref or repository of the pull request (module docstring) is ``certain``; ``${{ inputs.NAME }}``
    is what a caller passes in it (``inputs``: input name -> :class:`Taint`), as if the caller had written it
    there; ``${{ env.NAME }}`` what the variable holds (``env``: every variable set in an ``env:`` the value
    sees -> :class:`Taint`, :func:`tainted_env`; None: the ``env`` context is not read there), and a variable
    set in none of them is set at run time (``$GITHUB_ENV``): ``possible``; ``${{ needs.<job>.outputs.* }}``
    and ``${{ steps.<id>.outputs.* }}`` (a job's or a step's output: known only at run time) are ``possible``,
    never certain.  None when it names none of these (a literal, ``github.sha``: the base of the run).

    >>> checkout_source("${{ github.event.pull_request.head.sha }}")
    ('${{ github.event.pull_request.head.sha }}', Taint(events=(), via=(), code='certain'))
    >>> checkout_source("${{ needs.check.outputs.sha }}")[1].code, checkout_source("${{ inputs.ref }}")
    ('possible', None)
    >>> checkout_source("${{ inputs.REF || github.sha }}", {"ref": Taint((), (), "possible")})[1].code
    'possible'
    >>> checkout_source("${{ fromJSON(steps.pr.outputs.result).sha }}")[1].code
    'possible'
    >>> [checkout_source("${{ env.%s }}" % n, None, {"ref": Taint(()), "head": Taint((), (), "certain")})
    ...  for n in ("REF", "head", "unset")]  # doctest: +NORMALIZE_WHITESPACE
    [None, ('${{ env.head }}', Taint(events=(), via=(), code='certain')),
     ('${{ env.unset }}', Taint(events=(), via=(), code='possible'))]
    """
    code, first, via = "", None, []
    if _PR_CODE.search(text):
        code = "certain"
        first = next((e.group(0) for e in _EXPRESSION.finditer(text) if _PR_CODE.search(e.group(0))), text.strip())
    for m in _EXPRESSION.finditer(text):
        found = _expression_code(_INDEX.sub(r".\1", m.group(1)).lower(), inputs, env)
        via += [v for t in found if t.via for v in t.via if v not in via]
        if found:
            first = first or m.group(0)
            code = "certain" if "certain" in (code, *(t.code for t in found)) else "possible"
    return None if not code or first is None else (first, Taint((), tuple(via), code))


def _expression_code(expression: str, inputs: Mapping[str, Taint] | None,
                     env: Mapping[str, Taint] | None) -> list[Taint]:
    """The pull request's code that the (lower-case) ``expression`` may name, as :func:`checkout_source` reads it:
    a run-time output, the inputs and variables it reads that hold some (a variable no ``env:`` sets: possible)."""
    found = [Taint((), (), "possible")] if _RUN_TIME_OUTPUT.search(expression) else []
    held = [inputs.get(name) for name in _INPUTS_PATH.findall(expression) if name] if inputs else []
    if env is not None:
        held += [env.get(name, Taint((), (), "possible")) for name in _ENV_PATH.findall(expression)]
    return found + [t for t in held if t is not None and t.code]


def _passed(value: Any, env: Mapping[str, Taint] | None,
            inputs: Mapping[str, Taint] | None) -> tuple[str, Taint] | None:
    """What a value passed as an input or set in an ``env:`` holds (as :func:`injected` and
    :func:`checkout_source` read it; ``env`` None: the ``env`` context is not available there): outsider text,
    the pull request's code, or both; None for neither."""
    if not isinstance(value, str):
        return None
    text = injected(value, env, inputs) if "${{" in value else None
    code = checkout_source(value, inputs, env)
    first = text or code
    if first is None:
        return None
    via = list(text[1].via) if text else []
    via += [v for v in (code[1].via if code else ()) if v not in via]
    return first[0], Taint(text[1].events if text else (), tuple(via), code[1].code if code else "")


def tainted_env(env: Mapping[str, Any], inputs: Mapping[str, Taint] | None = None,
                outer: Mapping[str, Taint] | None = None) -> dict[str, Taint]:
    """Variable name (lower case) -> the outsider text and the pull request's code its value holds
    (:func:`_passed`; ``inputs``: the tainted inputs its value may name; ``outer``: the variables a step's
    ``env`` may read as ``${{ env.NAME }}``, None for a workflow's or job's ``env``, where the ``env`` context is
    not available: https://docs.github.com/en/actions/reference/workflows-and-actions/contexts#context-availability),
    for every variable of ``env``: one that holds neither maps to ``Taint(())``, so that ``${{ env.NAME }}`` of a
    variable no ``env:`` sets is known to be set at run time (:func:`checkout_source`).

    >>> tainted_env({"TITLE": "${{ github.event.issue.title }}", "N": "${{ github.event.issue.number }}"})
    {'title': Taint(events=('issue_comment', 'issues'), via=(), code=''), 'n': Taint(events=(), via=(), code='')}
    >>> tainted_env({"REF": "${{ env.SHA }}"}, None, {"sha": Taint((), (), "certain")})["ref"].code
    'certain'
    """
    out: dict[str, Taint] = {}
    for key, value in env.items():
        found = _passed(value, outer, inputs)
        out[str(key).lower()] = found[1] if found is not None else Taint(())
    return out


def _step_env(own: Mapping[str, Any], env: Mapping[str, Taint], inputs: Mapping[str, Taint]) -> Mapping[str, Taint]:
    """The variables a step sees: its own ``env`` (``own``) over the workflow's and job's (``env``), which it may
    read (https://docs.github.com/en/actions/reference/workflows-and-actions/variables)."""
    return {**env, **tainted_env(own, inputs, env)} if own else env


def tainted_with(args: Mapping[str, Any], src: Src, path: str, env: Mapping[str, Taint] | None,
                 inputs: Mapping[str, Taint], only: Iterable[str] | None = None) -> dict[str, Taint]:
    """Input name (lower case) -> the outsider text a caller's ``with:`` (``args`` at YAML ``path``) passes in
    it, read with the caller's tainted ``env`` and ``inputs``, and the inputs in which it passes the pull
    request's code (:func:`checkout_source`: a checkout of ``${{ inputs.NAME }}`` checks it out); ``only``: the
    input names that can hold text (None: all).  Each taint's ``via`` ends with the ``with:`` entry (evidence:
    the expression)."""
    keep = None if only is None else {n.lower() for n in only}
    out: dict[str, Taint] = {}
    for key, value in args.items():
        name = str(key).lower()
        found = _passed(value, env, inputs) if keep is None or name in keep else None
        if found is not None:
            out[name] = found[1]._replace(via=(*found[1].via, src.ev(f"{path}.{key}", found[0])))
    return out


def tainted_defaults(defaults: Mapping[str, Any], args: Mapping[str, Any], src: Src, path: str,
                     via: Sequence[Evidence] = ()) -> dict[str, Taint]:
    """Input name (lower case) -> the outsider text or pull request code the ``default`` of an input the caller
    does not pass (not in ``args``) holds: a default is evaluated in the caller's run, ``${{ github.event... }}``
    included (GitHub docs "Contexts reference", context availability: ``on.workflow_call.inputs.<id>.default``
    reads ``github``, https://docs.github.com/en/actions/reference/workflows-and-actions/contexts#context-availability;
    an action's ``inputs.<id>.default``, :func:`composite_code`).  ``defaults``: name -> default as written,
    at YAML ``path``.NAME.default of ``src``; each taint's ``via``: ``via`` (the ``uses:`` that led there), then
    the default."""
    passed = {str(k).lower() for k in args}
    out: dict[str, Taint] = {}
    for name, default in defaults.items():
        found = _passed(default, None, None) if str(name).lower() not in passed else None
        if found is not None:
            out[str(name).lower()] = found[1]._replace(via=(*via, src.ev(f"{path}.{name}.default", found[0])))
    return out


def text_inputs(wf: WorkflowFile) -> list[str]:
    """The ``workflow_call`` inputs of ``wf`` that can hold text: every one but ``type: boolean`` and
    ``type: number``, whose value is no text
    (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#onworkflow_callinputsinput_idtype)."""
    call = wf.triggers.get("workflow_call")
    declared = call.get("inputs") if isinstance(call, dict) else None
    if not isinstance(declared, dict):
        return []
    return [str(n) for n, spec in declared.items()
            if not (isinstance(spec, dict) and str(spec.get("type", "")).lower() in ("boolean", "number"))]


def tainted_call(callee: WorkflowFile, args: Mapping[str, Any], src: Src, path: str, inputs: Mapping[str, Taint],
                 callee_src: Src, uses_ev: Evidence) -> dict[str, Taint]:
    """The tainted inputs of the reusable workflow ``callee``: what the calling job's ``with:`` (``args`` at
    ``path`` of ``src``) passes in its text inputs (:func:`text_inputs`), read with the caller's own tainted
    ``inputs`` (:func:`tainted_with`; a calling job has no ``env``), then the ``default`` of each text input it does
    not pass, evaluated in the caller's run (:func:`tainted_defaults`; ``via``: the call ``uses_ev``, then the
    default in ``callee_src``).  The called job runs in the caller's run with them (GitHub docs "Reusing
    workflows", https://docs.github.com/en/actions/sharing-automations/reusing-workflows)."""
    only = text_inputs(callee)
    out = tainted_with(args, src, path, None, inputs, only)
    keep = {n.lower() for n in only}
    out.update(tainted_defaults({n: d for n, d in callee.call_inputs.items() if n.lower() in keep}, args,
                                callee_src, "on.workflow_call.inputs", (uses_ev,)))
    return out


def _injection(step: Step, name: str, src: Src, env: Mapping[str, Taint],
               inputs: Mapping[str, Taint]) -> UntrustedCode | None:
    """A run script or ``actions/github-script`` script writing outsider text (module docstring); ``env``: the
    tainted variables of the workflow and job (:func:`tainted_env`), ``inputs``: the tainted inputs.  The step's
    own ``env`` overrides them while the step runs (a step variable of the same name holding no outsider text
    shadows a tainted one: https://docs.github.com/en/actions/reference/workflows-and-actions/variables;
    :func:`_step_env`, applied by the caller)."""
    for path, text in ((step.path + ".run", step.run),
                       (step.path + ".with.script", scalar_text(step.with_args.get("script"))
                        if name == "actions/github-script" else None)):
        found = injected(text, env, inputs) if text and "${{" in text else None
        if found is not None:
            return UntrustedCode(how="injection", events=found[1].events, evidence=src.ev(path, found[0]),
                                 via=found[1].via)
    return None


def _one(step: Step, src: Src, events: Mapping[str, Sequence[str] | None], repository: str | None,
         env: Mapping[str, Taint], inputs: Mapping[str, Taint]) -> UntrustedCode | None:
    code = _code(step, src, _step_env(step.env, env, inputs), inputs)
    if code is not None and not code.certain and not _CODE_EVENTS & events.keys():
        return None  # a value computed at run time holds an outsider's code only in a run of these events
    if code is None or step.condition is None:
        return code
    found = condition_verdicts(step.condition, src, f"{step.path}.if", events, repository)
    return code.model_copy(update={"condition": found}) if found else code


def _code(step: Step, src: Src, env: Mapping[str, Taint], inputs: Mapping[str, Taint]) -> UntrustedCode | None:
    name, ref = _action(step)
    args = " ".join(scalar_text(step.with_args.get(k)) for k in ("ref", "repository"))
    found = checkout_source(args, inputs, env) if name == "actions/checkout" else None
    if found is not None:  # the checkout step, then each with: that passed the pull request's code in
        return UntrustedCode(how="checkout", guard=_checkout_guard(step, ref), certain=found[1].code == "certain",
                             evidence=src.ev(step.path, args), via=found[1].via)
    if name == "actions/download-artifact" and "workflow_run" in scalar_text(step.with_args.get("run-id")):
        return UntrustedCode(how="artifact", evidence=src.ev(step.path, step.uses))
    if name == "dawidd6/action-download-artifact":
        return UntrustedCode(how="artifact", evidence=src.ev(step.path, step.uses))
    m = _SCRIPT.search(step.run or "")
    if m:
        return UntrustedCode(how="script", evidence=src.ev(step.path + ".run", m.group(0)))
    return _injection(step, name, src, env, inputs)


def untrusted_code(jd: JobDef, src: Src, triggers: Iterable[Trigger] = (), repository: str | None = None,
                   env: Mapping[str, Any] | None = None, inputs: Mapping[str, Taint] | None = None
                   ) -> list[UntrustedCode]:
    """The steps of ``jd`` that run pull request code (module docstring), in step order; each with what its
    ``if`` means for an outsider's run of the privileged events among ``triggers`` in ``repository`` (the run's,
    None when not known) (``condition``: :func:`condition_verdicts`; ``jobs.<job_id>.steps[*].if``,
    https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idstepsif).
    ``env``: the workflow's and job's ``env`` (None: the job's alone), whose variables holding outsider text
    make ``${{ env.NAME }}`` in a script an injection; ``inputs``: the inputs of a called workflow in which its
    caller passes outsider text (:func:`tainted_with`), which make ``${{ inputs.NAME }}`` one.

    >>> from ingest.github_actions.models import Step
    >>> jd = JobDef(key="t", steps=[Step(index=0, path="jobs.t.steps[0]", uses="actions/checkout@v4",
    ...                                  with_args={"ref": "${{ github.event.pull_request.head.sha }}"}),
    ...                             Step(index=1, path="jobs.t.steps[1]", run="gh pr checkout 12")])
    >>> [(u.how, u.guard) for u in untrusted_code(jd, Src("ci.yml", "acme/app", {}))]
    [('checkout', 'checkout-refuses'), ('script', 'none')]
    """
    scope = job_scope(triggers, repository, jd.env if env is None else env, inputs)
    return [u for u in (_one(s, src, scope.events, repository, scope.env, scope.inputs) for s in jd.steps)
            if u is not None]


@dataclass(frozen=True)
class Scope:
    """What the steps at one level of a job see of outsider text: the run's ``events`` (event -> activity types)
    and ``repository``, the tainted variables (``env``) and inputs (``inputs``), for the steps of a composite
    action the ``uses:`` steps that led there (``via``, outermost first) and what their ``if`` says
    (``condition``), and the events whose ``github.event_name`` the run may have (``run_events``, None: not known;
    :func:`.skipped.run_events`): a step whose ``if`` is false for all of them never runs."""

    events: Mapping[str, Sequence[str] | None]
    repository: str | None
    env: Mapping[str, Taint] = field(default_factory=dict)
    inputs: Mapping[str, Taint] = field(default_factory=dict)
    via: tuple[Evidence, ...] = ()
    condition: tuple[IfVerdict, ...] = ()
    run_events: tuple[str, ...] | None = None


def job_scope(triggers: Iterable[Trigger], repository: str | None, env: Mapping[str, Any],
              inputs: Mapping[str, Taint] | None = None, run_events: tuple[str, ...] | None = None) -> Scope:
    """The :class:`Scope` of a job's own steps: its workflow's and its ``env``, the tainted ``inputs`` of a
    called workflow, the events of its run (``run_events``)."""
    return Scope(trigger_types(triggers), repository, tainted_env(env, inputs), dict(inputs or {}),
                 run_events=run_events)


def composite_code(action: ActionFile, src: Src, caller: Step, caller_src: Src,
                   scope: Scope) -> tuple[list[UntrustedCode], Scope]:
    """The steps of the local composite ``action`` (read from ``src``) that run pull request code when the step
    ``caller`` (in ``caller_src``, seeing ``scope``) uses it, and the :class:`Scope` of its steps (for the
    composite actions they use in turn).

    A composite action's steps run in the caller's job, with its ``github`` context and its secrets; the
    caller's ``with:`` sets the action's ``inputs`` (else an input's ``default``), and ``${{ inputs.NAME }}``
    in a ``run:`` step is substituted before the shell runs, as any expression is (GitHub docs "Metadata syntax
    for GitHub Actions", ``inputs`` and ``runs.steps[*].run``,
    https://docs.github.com/en/actions/reference/workflows-and-actions/metadata-syntax#inputs; the ``inputs``
    context, https://docs.github.com/en/actions/reference/workflows-and-actions/contexts#inputs-context; "Understanding
    the risk of script injections",
    https://docs.github.com/en/actions/reference/security/secure-use#understanding-the-risk-of-script-injections).
    So outsider text passed in ``with:`` and written as ``${{ inputs.NAME }}`` (directly, or through a step
    ``env:`` used as ``${{ env.NAME }}``) is an injection, its ``via`` the caller's ``with:``; outsider text the
    action's own steps write (``${{ github.event.issue.title }}``), or a checkout of the pull request, has the
    ``uses:`` step as ``via``.  The caller step's ``env`` applies to the action's steps, its ``if`` to each of
    them.  An input's ``default`` is evaluated in the caller's run too (``${{ github.event... }}``).
    """
    uses_ev = caller_src.ev(caller.path + ".uses", caller.uses)
    env = dict(_step_env(caller.env, scope.env, scope.inputs))
    inputs = tainted_with(caller.with_args, caller_src, caller.path + ".with", env, scope.inputs)
    inputs.update(tainted_defaults(action.inputs, caller.with_args, src, "inputs", (*scope.via, uses_ev)))
    own_if = condition_verdicts(caller.condition, caller_src, caller.path + ".if", scope.events, scope.repository)
    inner = Scope(scope.events, scope.repository, env, inputs, (*scope.via, uses_ev), (*scope.condition, *own_if),
                  scope.run_events)
    out: list[UntrustedCode] = []
    for step in action.steps:
        if step.condition is not None and never_runs(step.condition, scope.run_events):
            continue
        code = _one(step, src, inner.events, inner.repository, inner.env, inner.inputs)
        if code is not None:
            out.append(code.model_copy(update={"via": code.via or inner.via,
                                               "condition": combined(inner.condition, code.condition)}))
    return out, inner


def combined(outer: Sequence[IfVerdict], own: Sequence[IfVerdict]) -> tuple[IfVerdict, ...]:
    """The verdicts of nested ``if`` s (a caller's, then a step's or a called job's own), a ``skipped`` one first:
    it closes the way in whichever ``if`` says it (the first verdict of an event is the one read)."""
    return tuple(sorted((*outer, *own), key=lambda v: v.outcome != "skipped"))


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
