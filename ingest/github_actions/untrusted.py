"""Steps that run code a pull request author controls (pure): :class:`~graphkit.model.UntrustedCode`.

Read from the job's own steps (composite actions are not followed):

- ``actions/checkout`` whose ``ref`` (or ``repository``) names the pull
  request's code: ``github.event.pull_request.head.sha`` / ``.head.ref`` /
  ``.merge_commit_sha``, ``github.head_ref``, ``refs/pull/...``,
  ``github.event.workflow_run.head_sha`` / ``head_branch``,
  ``pull_request.head.repo``;
- run scripts with ``gh pr checkout`` or ``git fetch|checkout|pull`` of
  ``pull/N/...`` or of the pull request head;
- ``actions/download-artifact`` with a ``run-id`` of the triggering
  ``workflow_run``, and ``dawidd6/action-download-artifact`` (artifacts of
  another run, which a fork's ``pull_request`` run may have written).

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
``unknown``.  The opt-out written as an expression is evaluated when the job runs: ``${{ true }}`` is the
opt-out (``none``); any other expression (``${{ inputs.unsafe || true }}``) may be true, so a guard it could
turn off is ``unknown`` (GitHub docs "Evaluate expressions in workflows and actions",
https://docs.github.com/en/actions/reference/workflows-and-actions/expressions).
GitHub docs "Security hardening for GitHub Actions",
https://docs.github.com/en/actions/reference/security/secure-use, and
"Securely using pull_request_target",
https://docs.github.com/en/actions/reference/security/securely-using-pull_request_target.
"""

from __future__ import annotations

import re

from graphkit.model import Evidence, UntrustedCode

from .evidence import Src
from .models import JobDef, Step, scalar_text

__all__ = ["untrusted_code"]

_PR_CODE = re.compile(r"github\.event\.pull_request\.(?:head\.(?:sha|ref|repo)|merge_commit_sha)|github\.head_ref"
                      r"|refs/pull/|github\.event\.workflow_run\.head_(?:sha|branch)", re.IGNORECASE)
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
    """``none``, ``checkout-refuses`` or ``unknown`` for ``actions/checkout@ref`` (module docstring).

    >>> [_checkout_guard(Step(index=0, path="s"), r) for r in ("v4", "v3", "v4.2.2", "v6.0.3", "v7.0.1", "v8")]
    ['checkout-refuses', 'none', 'none', 'unknown', 'checkout-refuses', 'checkout-refuses']
    """
    opt_out = scalar_text(step.with_args.get("allow-unsafe-pr-checkout")).strip()
    if opt_out.lower() == "true" or _TRUE_EXPR.fullmatch(opt_out):
        return "none"
    guard = _release_guard(ref)
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


def _one(step: Step, src: Src) -> UntrustedCode | None:
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
    return None


def untrusted_code(jd: JobDef, src: Src) -> list[UntrustedCode]:
    """The steps of ``jd`` that run pull request code (module docstring), in step order.

    >>> from ingest.github_actions.models import Step
    >>> jd = JobDef(key="t", steps=[Step(index=0, path="jobs.t.steps[0]", uses="actions/checkout@v4",
    ...                                  with_args={"ref": "${{ github.event.pull_request.head.sha }}"}),
    ...                             Step(index=1, path="jobs.t.steps[1]", run="gh pr checkout 12")])
    >>> [(u.how, u.guard) for u in untrusted_code(jd, Src("ci.yml", "acme/app", {}))]
    [('checkout', 'checkout-refuses'), ('script', 'none')]
    """
    return [u for u in (_one(s, src) for s in jd.steps) if u is not None]


#: Conjuncts of a job ``if`` that hold only when the pull request (or the triggering run) comes from this
#: repository, written without blanks and in lower case (expression property names and literals are
#: case-insensitive): GitHub Security Lab, "Preventing pwn requests",
#: https://securitylab.github.com/resources/github-actions-preventing-pwn-requests/; payload fields: GitHub docs
#: "Webhook events and payloads", https://docs.github.com/en/webhooks/webhook-events-and-payloads
_SAME_REPOSITORY = frozenset(
    form
    for head in ("github.event.pull_request.head.repo", "github.event.workflow_run.head_repository")
    for form in (f"{head}.full_name==github.repository", f"github.repository=={head}.full_name",
                 f"{head}.fork==false", f"false=={head}.fork", f"{head}.fork!=true", f"!{head}.fork"))


def _conjuncts(text: str) -> list[str] | None:
    """The top-level ``&&`` operands of the expression ``text`` (one ``${{ }}`` wrapper or none), normalised
    (no blanks, lower case, outer parentheses opened); None when ``text`` is no single expression (literal text
    around ``${{ }}`` makes a non-empty string: always true) or an operand at the top is joined by ``||``.

    >>> _conjuncts("${{ (github.event_name == 'x') && !github.event.pull_request.head.repo.fork }}")
    ["github.event_name=='x'", '!github.event.pull_request.head.repo.fork']
    >>> _conjuncts("a || b") is None, _conjuncts("${{ a }} && b") is None
    (True, True)
    """
    text = text.strip()
    if text.startswith("${{") and text.endswith("}}") and text.count("${{") == 1:
        text = text[3:-2]
    elif "${{" in text:
        return None
    parts, cur, depth, quote, i = [], [], 0, False, 0
    while i < len(text):
        ch = text[i]
        if ch == "'":
            quote = not quote  # '' inside a string toggles twice
        elif not quote and ch in "()":
            depth += 1 if ch == "(" else -1
        elif not quote and depth == 0 and text.startswith(("&&", "||"), i):
            if text[i] == "|":
                return None
            parts.append("".join(cur))
            cur, i = [], i + 2
            continue
        cur.append(ch)
        i += 1
    parts.append("".join(cur))
    out: list[str] = []
    for part in parts:
        norm = "".join(part.split()).lower()
        inner = _conjuncts(norm[1:-1]) if norm.startswith("(") and norm.endswith(")") else None
        out += inner if inner is not None else [norm]
    return out


def same_repository_condition(jd: JobDef, src: Src, path: str) -> Evidence | None:
    """Evidence of ``jd``'s ``if`` when one of its top-level ``&&`` operands requires the pull request's (or the
    triggering run's) head repository to be this one (:data:`_SAME_REPOSITORY`): a fork's privileged run skips
    the job.  None otherwise (no ``if``, another condition, an ``||`` at the top, a string template).

    >>> same_repository_condition(JobDef(key="t", raw={"if": "github.event.pull_request.head.repo.full_name == "
    ...                                               "github.repository"}), Src("ci.yml", "acme/app", {}), "jobs.t")
    Evidence(file='ci.yml', repository='acme/app', yaml_path='jobs.t.if', line=None, detail='same-repository condition')
    """
    cond = jd.raw.get("if")
    if not isinstance(cond, str):
        return None
    parts = _conjuncts(cond)
    if parts is None or not _SAME_REPOSITORY.intersection(parts):
        return None
    return src.ev(f"{path}.if", "same-repository condition")
