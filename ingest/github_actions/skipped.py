"""Jobs and steps that never run: an ``if`` false in every run (pure: no I/O).

GitHub skips a job (``jobs.<job_id>.if``) or a step (``jobs.<job_id>.steps[*].if``) whose condition is false:
https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idif.  One false
in every run (:func:`.conditions.always_false`: ``if: false``, ``if: ${{ false }}``, ``if: 0``,
``false && ...``) never runs: such a job reaches nothing (:attr:`graphkit.model.Job.never_runs`), such a step
runs no code and reads nothing.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .conditions import MAX_CHARS, always_false, parse_condition
from .models import JobDef

__all__ = ["live_job", "never_runs"]


@lru_cache(maxsize=4096)
def _never_text(text: str) -> bool:
    return always_false(parse_condition(text))


def never_runs(value: Any) -> bool:
    """Whether an ``if`` value (a job's as written, a step's text) is false in every run
    (:func:`.conditions.always_false`): GitHub skips that job or step, which then runs nothing and reads
    nothing (https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idif,
    ``#jobsjob_idstepsif``).

    >>> never_runs(False), never_runs("${{ false }}"), never_runs("false || github.x"), never_runs(None)
    (True, True, False, False)
    """
    if isinstance(value, str):
        return len(value) <= MAX_CHARS and _never_text(value)
    return value is not None and always_false(parse_condition(value))


def live_job(jd: JobDef) -> JobDef:
    """``jd`` without the steps whose ``if`` is false in every run (:func:`never_runs`): left out of ``steps``
    and blanked in ``raw`` (so no secret read is attributed to them; the other steps keep their index)."""
    dead = {s.index for s in jd.steps if s.condition is not None and never_runs(s.condition)}
    raw_steps = jd.raw.get("steps")
    if not dead or not isinstance(raw_steps, list):
        return jd
    return jd.model_copy(update={"steps": [s for s in jd.steps if s.index not in dead], "raw": {
        **jd.raw, "steps": [None if i in dead else s for i, s in enumerate(raw_steps)]}})
