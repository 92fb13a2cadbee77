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
actions/checkout PR 2454).  The releases of the v4 to v7 majors carry it, so a
floating major tag (``@v4``) is ``checkout-refuses``; v1-v3 never had it
(``none``); a commit pin or a full version may predate it (``unknown``).
GitHub docs "Security hardening for GitHub Actions",
https://docs.github.com/en/actions/reference/security/secure-use, and
"Securely using pull_request_target",
https://docs.github.com/en/actions/reference/security/securely-using-pull_request_target.
"""

from __future__ import annotations

import re

from graphkit.model import UntrustedCode

from .evidence import Src
from .models import JobDef, Step, scalar_text

__all__ = ["untrusted_code"]

_PR_CODE = re.compile(r"github\.event\.pull_request\.(?:head\.(?:sha|ref|repo)|merge_commit_sha)|github\.head_ref"
                      r"|refs/pull/|github\.event\.workflow_run\.head_(?:sha|branch)", re.IGNORECASE)
_SCRIPT = re.compile(r"\bgh\s+pr\s+checkout\b|\bgit\s+(?:fetch|checkout|pull|switch)\b[^\n]*(?:\bpull/|"
                     + _PR_CODE.pattern + ")", re.IGNORECASE)
_GUARDED_MAJOR = re.compile(r"v(?:[4-9]|\d{2,})")
_OLD_MAJOR = re.compile(r"v[1-3](?:\.\d+)*")


def _action(step: Step) -> tuple[str, str]:
    """(lower-case action name without ``@``, ref) of a ``uses:`` step."""
    name, _, ref = (step.uses or "").partition("@")
    return name.strip().lower().rstrip("/"), ref.strip()


def _checkout_guard(step: Step, ref: str) -> str:
    if scalar_text(step.with_args.get("allow-unsafe-pr-checkout")).strip().lower() == "true":
        return "none"
    if _GUARDED_MAJOR.fullmatch(ref):
        return "checkout-refuses"
    return "none" if _OLD_MAJOR.fullmatch(ref) else "unknown"


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
