"""Matrix expansion and the runner label sets a job's ``runs-on`` asks for (pure).

GitHub rules: https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/running-variations-of-jobs-in-a-workflow
(matrix) and https://docs.github.com/en/actions/writing-workflows/choosing-where-your-workflow-runs/choosing-the-runner-for-a-job
(``runs-on``: a label, a list of labels, or ``{group, labels}``).
"""

from __future__ import annotations

import itertools
import json
import math
from typing import Any

from graphkit import limits
from graphkit.model import Confidence, Evidence, RunsOnCandidate

from .expressions import EvalContext, Val, resolve  # noqa: F401 (Val: doctest)
from .models import jsonable, scalar_text

__all__ = ["MAX_COMBINATIONS", "MATRIX_LIMIT_EFFECT", "LabelSet", "bind_inputs", "expand_matrix", "matrix_limit_reason", "runs_on_candidates"]

#: Matrix combinations beyond this are treated as not statically resolvable (the default of the
#: ``max_matrix_combinations`` limit, :mod:`graphkit.limits`, which is the one in force).
MAX_COMBINATIONS = limits.Limits().max_matrix_combinations
#: The end of the problem of a matrix past the limit: what it costs (:func:`matrix_limit_reason`).
MATRIX_LIMIT_EFFECT = "; what uses the matrix (runs-on, a call's inputs) is left unresolved"
#: Candidates kept for one ``runs-on`` list whose items have several values each.
_MAX_LABEL_SETS = 64

#: ``(labels, group, certain)``: one label set a ``runs-on`` value may ask for.
LabelSet = tuple[tuple[str, ...], str | None, bool]


class DynamicLabel(str):
    """A label with a part known only at run time (``run-id=${{ github.run_id }}``), as a pattern with ``*``
    (``run-id=*``): third-party runner pools match such labels by pattern (:mod:`graphkit.resolve.routing`)."""


def _axes(raw: dict[Any, Any]) -> tuple[list[str], list[list[Any]]] | None:
    """``(keys, values of each key)`` of the matrix axes; None when one is an expression."""
    keys, lists = [], []
    for k, v in raw.items():
        if k in ("include", "exclude"):
            continue
        if isinstance(v, str) and "${{" in v:
            return None
        keys.append(str(k))
        lists.append(v if isinstance(v, list) else [v])
    return keys, lists


def _matches(combo: dict[str, Any], entry: dict[Any, Any]) -> bool:
    return all(combo.get(k) == v for k, v in entry.items())


def _with_includes(combos: list[dict[str, Any]], include: list[Any],
                   originals: set[str]) -> list[dict[str, Any]] | None:
    """Each ``include`` entry extends every combination whose original values it keeps, else is added."""
    added = []
    for inc in include:
        if not isinstance(inc, dict):
            return None
        matched = False
        for c in combos:
            if all(c.get(k) == v for k, v in inc.items() if k in originals):
                c.update({k: v for k, v in inc.items() if k not in originals})
                matched = True
        if not matched:
            added.append(dict(inc))
    return combos + added


def _static(raw: Any) -> tuple[list[str], list[list[Any]], list[Any], list[Any]] | None:
    """``(keys, values of each key, include, exclude)`` of a static matrix; None when it is not one."""
    if not isinstance(raw, dict):
        return None
    include, exclude = raw.get("include", []), raw.get("exclude", [])
    axes = _axes(raw) if isinstance(include, list) and isinstance(exclude, list) else None
    return None if axes is None else (*axes, include, exclude)


def matrix_limit_reason(raw: Any) -> str | None:
    """Why a static ``strategy.matrix`` is past the ``max_matrix_combinations`` limit (:mod:`graphkit.limits`,
    README "Limits"): the count (the product of the axes' lengths, or the ``include`` / ``exclude`` entries)
    and the limit; None within it, and for no matrix or one that is an expression (not counted).

    >>> matrix_limit_reason({"a": list(range(100)), "b": list(range(100))})[:53]
    'refused: a matrix of 10,000 combinations (2 axes) (li'
    >>> matrix_limit_reason({"a": [1, 2]}) is None
    True
    """
    static = _static(raw)
    if static is None:
        return None
    _, lists, include, exclude = static
    cap, product = limits.current().max_matrix_combinations, math.prod(len(lst) for lst in lists)
    axes = f"{len(lists)} axis" if len(lists) == 1 else f"{len(lists)} axes"
    counts = [(product, f"a matrix of {product:,} combinations ({axes})"),
              (len(include), f"a matrix of {len(include):,} include entries"),
              (len(exclude), f"a matrix of {len(exclude):,} exclude entries")]
    over = [what for n, what in counts if n > cap]
    return limits.too_many("max_matrix_combinations", cap, over[0]) if over else None


def expand_matrix(raw: Any) -> list[dict[str, Any]] | None:
    """Expand a static ``strategy.matrix`` into its combinations.

    GitHub rules (https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/running-variations-of-jobs-in-a-workflow):
    the cartesian product of the list-valued keys; ``exclude`` entries remove
    every combination they match (partial match); then each ``include`` entry
    is added to every combination whose *original* values it does not
    overwrite, or becomes a new combination when it fits none.

    Returns
    -------
    list of dict or None
        the combinations (``[{}]`` without a matrix), or ``None`` when the
        matrix (or one of its lists) is an expression, or too large
        (the ``max_matrix_combinations`` limit of :mod:`graphkit.limits`, with
        ``include`` and ``exclude`` entries counted).

    Examples
    --------
    >>> expand_matrix({"os": ["a", "b"], "include": [{"os": "c"}, {"os": "a", "big": True}], "exclude": [{"os": "b"}]})
    [{'os': 'a', 'big': True}, {'os': 'c'}]
    """
    if raw is None:
        return [{}]
    static = _static(raw)
    if static is None or matrix_limit_reason(raw) is not None:  # checked before expanding
        return None
    keys, lists, include, exclude = static
    combos = [dict(zip(keys, c)) for c in itertools.product(*lists)] if keys else []
    combos = [c for c in combos if not any(_matches(c, ex) for ex in exclude if isinstance(ex, dict))]
    combos = _with_includes(combos, include, set(keys))
    return None if combos is None else combos or [{}]


def _bind(value: Any, ctx: EvalContext) -> Any:
    if isinstance(value, dict):
        return {k: _bind(v, ctx) for k, v in value.items()}
    if isinstance(value, list):
        return [_bind(v, ctx) for v in value]
    if not isinstance(value, str) or "${{" not in value or "inputs" not in value.lower():
        return value
    vals, pattern = resolve(value, ctx)
    return vals[0].value if pattern is None and len(vals) == 1 and vals[0].certain else value


def bind_inputs(raw: Any, ctx: EvalContext) -> Any:
    """A ``strategy.matrix`` with each ``${{ inputs.* }}`` value evaluated by the caller's ``with:`` values.

    In a called workflow the matrix may be built from inputs
    (``os: ${{ fromJSON(inputs.oses) }}``); GitHub evaluates it with what the
    caller passes (https://docs.github.com/en/actions/reference/workflows-and-actions/reusing-workflow-configurations
    "Using inputs and secrets in a reusable workflow").  A value with one
    certain candidate is replaced; anything else is left as written.

    >>> bind_inputs({"os": "${{ fromJSON(inputs.oses) }}"}, EvalContext(inputs={"oses": [Val('["a", "b"]', True)]}))
    {'os': ['a', 'b']}
    """
    if raw is None or ctx.inputs is None or "inputs" not in json.dumps(jsonable(raw)).lower():
        return raw
    return _bind(raw, EvalContext(inputs=ctx.inputs, env=ctx.env))


# ---------------------------------------------------------------- runs-on


def _text_label_sets(value: str, ctx: EvalContext) -> list[LabelSet] | None:
    vals, pattern = resolve(value, ctx)
    if pattern is not None:  # literal text around a run-time part: a label pattern; nothing literal: unresolved
        return [((DynamicLabel(pattern.strip()),), None, True)] if pattern.strip("* ") else None
    out: list[LabelSet] = []
    for v in vals:
        if isinstance(v.value, str):
            if not v.value.strip():
                return None
            out.append(((v.value.strip(),), None, v.certain))
            continue
        sub = _label_sets(v.value, ctx)  # an expression that evaluates to a list or a mapping
        if sub is None:
            return None
        out.extend((labels, group, c and v.certain) for labels, group, c in sub)
    return out


def _list_label_sets(value: list[Any], ctx: EvalContext) -> list[LabelSet] | None:
    parts = [_label_sets(e, ctx) for e in value]
    if any(p is None or any(g for _, g, _ in p) for p in parts):
        return None
    out: list[LabelSet] = []
    for combo in itertools.islice(itertools.product(*parts), _MAX_LABEL_SETS):  # type: ignore[arg-type]
        labels = tuple(dict.fromkeys(lbl for ls, _, _ in combo for lbl in ls))
        out.append((labels, None, all(c for _, _, c in combo)))
    return out


def _group_label_sets(value: dict[str, Any], ctx: EvalContext) -> list[LabelSet] | None:
    groups: list[Val] = [Val(None, True)]
    if value.get("group") is not None:
        groups, pattern = resolve(value["group"], ctx)
        if pattern is not None:
            return None
    labels = _label_sets(value["labels"], ctx) if value.get("labels") is not None else [((), None, True)]
    if labels is None:
        return None
    return [(ls, None if g.value is None else scalar_text(g.value), c and g.certain)
            for g in groups for ls, _, c in labels]


def _label_sets(value: Any, ctx: EvalContext) -> list[LabelSet] | None:
    """Label sets a ``runs-on`` value asks for; None if unresolvable (or not label text)."""
    if isinstance(value, str):
        return _text_label_sets(value, ctx)
    if isinstance(value, list):
        return _list_label_sets(value, ctx)
    if isinstance(value, dict):
        return _group_label_sets(value, ctx)
    return None


def _matrix_refs(value: Any) -> bool:
    return "matrix" in json.dumps(jsonable(value)).lower()


def runs_on_candidates(runs_on: Any, matrix: Any, ctx: EvalContext,
                       evidence: Evidence) -> tuple[list[RunsOnCandidate], Evidence | None]:
    """Candidates for a job's ``runs-on`` over its matrix instances.

    Returns
    -------
    tuple
        ``(candidates, unresolved)``: one :class:`RunsOnCandidate` per distinct
        ``(labels, group)`` (labels compared case-insensitively, with the first
        instance's matrix values; ``certain`` if any instance is), and
        ``evidence`` when some instance is not statically resolvable.

    Examples
    --------
    >>> ev = Evidence(file="ci.yml")
    >>> cands, unresolved = runs_on_candidates("${{ matrix.os }}", {"os": ["a", "b"]}, EvalContext(), ev)
    >>> [c.labels for c in cands], unresolved
    ([('a',), ('b',)], None)
    """
    if runs_on is None:
        return [], None
    combos = expand_matrix(matrix) if _matrix_refs(runs_on) else [{}]
    if combos is None:
        return _literal_self_hosted(runs_on, evidence), evidence
    seen: dict[tuple[tuple[str, ...], str | None], RunsOnCandidate] = {}
    unresolved = None
    for combo in combos:
        sub = EvalContext(matrix=combo if matrix is not None else None, inputs=ctx.inputs, env=ctx.env,
                          steps=ctx.steps)
        sets = _label_sets(runs_on, sub)
        if sets is None:
            unresolved = evidence
            continue
        for labels, group, certain in sets:
            key = (tuple(sorted(lbl.lower() for lbl in labels)), group)
            conf = Confidence.CERTAIN if certain else Confidence.POSSIBLE
            if key not in seen:
                seen[key] = RunsOnCandidate(labels=labels, group=group, matrix=jsonable(combo) if combo else None,
                                            dynamic=tuple(lb for lb in labels if isinstance(lb, DynamicLabel)),
                                            confidence=conf, evidence=evidence)
            elif conf is Confidence.CERTAIN:
                seen[key] = seen[key].model_copy(update={"confidence": conf})
    if unresolved is not None:
        for cand in _literal_self_hosted(runs_on, evidence):
            seen.setdefault((tuple(sorted(lbl.lower() for lbl in cand.labels)), cand.group), cand)
    return list(seen.values()), unresolved


def _literal_self_hosted(runs_on: Any, evidence: Evidence) -> list[RunsOnCandidate]:
    """The literal labels (and group) of a ``runs-on`` some of whose parts are known only at run time, as one
    ``possible`` candidate when they name ``self-hosted``; else none.

    A runner must have every label the job names (GitHub docs "Workflow syntax", ``jobs.<job_id>.runs-on``,
    https://docs.github.com/en/actions/writing-workflows/workflow-syntax-for-github-actions#jobsjob_idruns-on),
    and only self-hosted runners have ``self-hosted``: such a job runs on a self-hosted runner having the
    literal labels (and maybe others), so it is routed (and, with no runner, pooled) as one.  Without a literal
    ``self-hosted`` the run-time part may name a GitHub-hosted runner: nothing is assumed
    (:func:`graphkit.resolve.routing._route_unresolved`).

    >>> [c.labels for c in _literal_self_hosted(["self-hosted", "${{ inputs.size }}"], Evidence(file="ci.yml"))]
    [('self-hosted',)]
    >>> _literal_self_hosted("${{ inputs.runner }}", Evidence(file="ci.yml"))
    []
    """
    value = runs_on.get("labels") if isinstance(runs_on, dict) else runs_on
    group = runs_on.get("group") if isinstance(runs_on, dict) else None
    items = value if isinstance(value, list) else [value]
    if not all(isinstance(x, str) for x in items):  # a malformed entry (a number): the runs-on is unknown
        return []
    labels = tuple(dict.fromkeys(x.strip() for x in items if x.strip() and "${{" not in x))
    if "self-hosted" not in {lbl.lower() for lbl in labels}:
        return []
    return [RunsOnCandidate(labels=labels, group=group if isinstance(group, str) and "${{" not in group else None,
                            confidence=Confidence.POSSIBLE, evidence=evidence)]
