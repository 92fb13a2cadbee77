"""Whether a runner has a requested ``runs-on`` label, with label patterns on both sides.

GitHub routes a job to a self-hosted runner that has **all** the labels its
``runs-on`` names, case-insensitively (GitHub docs "Self-hosted runners
reference", routing precedence,
https://docs.github.com/en/actions/reference/runners/self-hosted-runners#routing-precedence-for-self-hosted-runners;
"Choosing the runner for a job",
https://docs.github.com/en/actions/how-tos/write-workflows/choose-where-workflows-run/choose-the-runner-for-a-job).
A job need not name ``self-hosted``.  An Actions Runner Controller scale set's runners have no
``self-hosted`` label: they answer to the scale set's name (and ``runnerScaleSetLabels``) only
(:attr:`graphkit.model.RunnerPods.scale_set`); nor has a runner whose labels GitHub's API lists without it
(``config.sh --no-default-labels``, :attr:`graphkit.model.Runner.labels_exact`).  Every other runner has it,
listed or not.  Third-party runner pools (RunsOn,
autoscalers with JIT registrations) register one runner per job with the
job's own labels, some of them dynamic (``run-id=${{ github.run_id }}``); an
inventory describes such a pool with ``label_patterns`` (``*``: any
characters), and the workflow side keeps a dynamic label as a pattern
(:attr:`graphkit.model.RunsOnCandidate.dynamic`).

One requested label is had by a runner:

- ``certain`` when it is one of the runner's labels or matches one of its
  patterns; for a dynamic label, when a runner pattern covers every value
  the label can take;
- ``possible`` for a dynamic label that only some runner labels or patterns
  can equal (``*-large`` against a runner labelled ``linux-large``);
- not at all otherwise.
"""

from __future__ import annotations

import re
from functools import lru_cache

from greenery import Fsm, parse

from graphkit.model import Confidence, Runner, RunsOnCandidate

__all__ = ["candidate_labels", "label_glob"]

C, P = Confidence.CERTAIN, Confidence.POSSIBLE
_GREENERY_SPECIAL = set(".+*?[](){}|\\$^")


@lru_cache(maxsize=4096)
def label_glob(pattern: str) -> re.Pattern[str]:
    """A label pattern (``*`` any characters, nothing else special) as an anchored, case-insensitive regex.

    >>> bool(label_glob("runner=*").fullmatch("Runner=4cpu-linux")), bool(label_glob("runner=*").fullmatch("x"))
    (True, False)
    """
    return re.compile(".*".join(re.escape(p) for p in pattern.strip().lower().split("*")), re.IGNORECASE)


@lru_cache(maxsize=4096)
def _fsm(pattern: str) -> Fsm:
    parts = pattern.strip().lower().split("*")
    body = ".*".join("".join("[\\^]" if c == "^" else ("\\" + c if c in _GREENERY_SPECIAL else c) for c in part)
                     for part in parts)
    return parse(body).to_fsm()


def _one(want: str, dynamic: bool, labels: frozenset[str], patterns: list[str]) -> Confidence | None:
    low = want.strip().lower()
    if not dynamic:
        if low in labels or (patterns and any(label_glob(p).fullmatch(low) for p in patterns)):
            return C
        return None
    if low in labels or any(_fsm(low).issubset(_fsm(p)) for p in patterns):
        return C
    if any(label_glob(low).fullmatch(x) for x in labels) or any(not _fsm(low).isdisjoint(_fsm(p))
                                                                for p in patterns):
        return P
    return None


def candidate_labels(runner: Runner, cand: RunsOnCandidate) -> Confidence | None:
    """Whether ``runner`` has every label of ``cand`` (module docstring); ``self-hosted`` is implicit but on a
    scale set or a runner whose exact labels lack it.

    Returns
    -------
    Confidence or None
        ``certain``, ``possible`` (a dynamic label only some values of which
        the runner has), or None when some label is missing.
    """
    implicit = not runner.labels_exact and (runner.pods is None or not runner.pods.scale_set)
    labels = _runner_labels(tuple(runner.labels), implicit=implicit)
    dynamic = {d.strip().lower() for d in cand.dynamic} if cand.dynamic else ()
    worst: Confidence = C
    for want in cand.labels:
        conf = _one(want, want.strip().lower() in dynamic, labels, runner.label_patterns)
        if conf is None:
            return None
        worst = P if conf is P else worst
    return worst


#: a runner's labels as :func:`candidate_labels` compares them, per label list as written and implicit
#: ``self-hosted`` (the resolver asks once per runner and label set: thousands of runners share a few label lists)
_RUNNER_LABELS: dict[tuple[tuple[str, ...], bool], frozenset[str]] = {}


def _runner_labels(labels: tuple[str, ...], implicit: bool = True) -> frozenset[str]:
    """``{label.strip().lower()}`` of a runner's labels, with ``self-hosted`` when ``implicit`` (every runner
    but an ARC scale set's, :attr:`graphkit.model.RunnerPods.scale_set`); remembered, at most 65,536 lists."""
    got = _RUNNER_LABELS.get((labels, implicit))
    if got is None:
        if len(_RUNNER_LABELS) >= 65536:
            _RUNNER_LABELS.clear()
        own = {x.strip().lower() for x in labels}
        got = _RUNNER_LABELS[(labels, implicit)] = frozenset(own | {"self-hosted"} if implicit else own)
    return got
