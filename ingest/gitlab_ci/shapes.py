"""Shapes of the keywords that decide which pipelines a job runs in (pure: no I/O).

GitLab rejects a configuration whose ``rules``, ``only``/``except`` or ``workflow`` has the wrong shape
(GitLab docs "CI/CD YAML syntax reference", https://docs.gitlab.com/ci/yaml/).  graphkit reads the rest of the
file: each wrong shape is one problem naming file, YAML path and line (:mod:`.jobs`, :mod:`.graph`), and the
conditions it belongs to are *unknown*: the job may run in any pipeline (:class:`.conditions.Conditions`
``unknown`` / ``workflow_unknown``), never "runs in no pipeline".

Shapes, as documented:

- ``rules`` (https://docs.gitlab.com/ci/yaml/#rules): an array of rules (``!reference`` may nest arrays), each a
  hash of ``if`` (a CI/CD variable expression: a string, https://docs.gitlab.com/ci/yaml/#rulesif),
  ``changes`` (an array of paths, or a hash of ``paths`` and ``compare_to``,
  https://docs.gitlab.com/ci/yaml/#ruleschanges), ``exists`` (an array of paths, or a hash of ``paths``,
  ``project``, ``ref``, https://docs.gitlab.com/ci/yaml/#rulesexists), ``when``, ``start_in``,
  ``allow_failure`` (true or false), ``needs`` (an array), ``variables`` (a hash), ``interruptible`` (true or
  false);
- ``when`` (https://docs.gitlab.com/ci/yaml/#when): ``on_success``, ``on_failure``, ``never``, ``always``,
  ``manual``, ``delayed``;
- ``workflow`` (https://docs.gitlab.com/ci/yaml/workflow/): a hash; ``workflow:rules``
  (https://docs.gitlab.com/ci/yaml/#workflowrules) an array of rules of ``if``, ``changes``, ``exists``,
  ``when`` (``always`` or ``never`` only), ``variables``, ``auto_cancel``;
- ``only`` / ``except`` (https://docs.gitlab.com/ci/yaml/deprecated_keywords/#only--except): an array of refs
  (branch or tag names, ``/regex/``, keywords such as ``branches``, ``tags``, ``merge_requests``), or a hash of
  ``refs`` (an array of refs), ``variables`` (an array of expressions), ``changes`` (an array of paths, or a hash
  of ``paths`` and ``compare_to``), ``kubernetes`` (``active``).  A single ref written as a string is read as a
  one-entry array.

Every checker returns ``(place, reason)`` pairs: ``place`` is the YAML path below the keyword (``""`` for the
keyword itself, ``[1].when``, ``.refs[0]``), ``reason`` says what was expected and what was found.
"""

from __future__ import annotations

from typing import Any

from ingest._yaml import type_name

__all__ = ["JOB_WHEN", "WORKFLOW_WHEN", "policy_problems", "rules_problems", "when_problem", "workflow_problems"]

#: ``when`` of a job or a job's rule (https://docs.gitlab.com/ci/yaml/#when)
JOB_WHEN = ("on_success", "on_failure", "never", "always", "manual", "delayed")
#: ``when`` of a ``workflow:rules`` rule (https://docs.gitlab.com/ci/yaml/#workflowrules)
WORKFLOW_WHEN = ("always", "never")
_JOB_RULE_KEYS = ("if", "changes", "exists", "when", "start_in", "allow_failure", "needs", "variables",
                  "interruptible")
_WORKFLOW_RULE_KEYS = ("if", "changes", "exists", "when", "variables", "auto_cancel")
_WORKFLOW_KEYS = ("rules", "name", "auto_cancel")
_POLICY_KEYS = ("refs", "variables", "changes", "kubernetes")

Problem = tuple[str, str]


def _scalar(v: Any) -> bool:
    return isinstance(v, str) or isinstance(v, (int, float)) and not isinstance(v, bool)


def when_problem(raw: Any, allowed: tuple[str, ...] = JOB_WHEN) -> str | None:
    """The reason ``raw`` is not a ``when`` value of ``allowed``, or None when it is.

    >>> when_problem("manual"), when_problem("sometimes")
    (None, 'expected one of on_success, on_failure, never, always, manual, delayed, got sometimes')
    """
    if isinstance(raw, str) and raw in allowed:
        return None
    return f"expected one of {', '.join(allowed)}, got {raw if isinstance(raw, str) else type_name(raw)}"


def _paths(raw: Any, keys: tuple[str, ...]) -> str | None:
    """An array of paths, or a hash of ``keys`` whose ``paths`` is an array of paths (``changes``, ``exists``)."""
    if isinstance(raw, list):
        return None if all(isinstance(p, str) for p in raw) else "expected an array of paths"
    if isinstance(raw, dict):
        extra = [str(k) for k in raw if k not in keys]
        if extra:
            return f"unknown key {extra[0]} (expected {', '.join(keys)})"
        paths = raw.get("paths")
        ok = paths is None or isinstance(paths, list) and all(isinstance(p, str) for p in paths)
        return None if ok else "expected paths: an array of paths"
    return f"expected an array of paths or a hash of {', '.join(keys)}, got {type_name(raw)}"


def _rule(rule: Any, place: str, workflow: bool) -> list[Problem]:
    if not isinstance(rule, dict):
        return [(place, f"expected a rule (a hash of if, changes, exists, when...), got {type_name(rule)}")]
    keys = _WORKFLOW_RULE_KEYS if workflow else _JOB_RULE_KEYS
    out: list[Problem] = [(f"{place}.{k}", f"unknown rule keyword (a rule takes {', '.join(keys)})")
                          for k in rule if k not in keys]
    if "if" in rule and not isinstance(rule["if"], str):
        out.append((f"{place}.if", f"expected a CI/CD variable expression (a string), got {type_name(rule['if'])}"))
    for key, sub in (("changes", ("paths", "compare_to")), ("exists", ("paths", "project", "ref"))):
        why = _paths(rule[key], sub) if key in rule else None
        out += [(f"{place}.{key}", why)] if why else []
    if "when" in rule:
        why = when_problem(rule["when"], WORKFLOW_WHEN if workflow else JOB_WHEN)
        out += [(f"{place}.when", why)] if why else []
    for key, test, what in (("allow_failure", lambda v: isinstance(v, bool), "true or false"),
                            ("interruptible", lambda v: isinstance(v, bool), "true or false"),
                            ("variables", lambda v: isinstance(v, dict), "a hash of variables"),
                            ("needs", lambda v: isinstance(v, list), "an array of jobs"),
                            ("start_in", _scalar, "a duration")):
        if key in rule and key in keys and not test(rule[key]):
            out.append((f"{place}.{key}", f"expected {what}, got {type_name(rule[key])}"))
    return out


def rules_problems(raw: Any, *, workflow: bool = False) -> list[Problem]:
    """Problems of a job's ``rules`` (``workflow=True``: of ``workflow:rules``); ``[]`` when well shaped.

    >>> rules_problems([{"if": "$CI_COMMIT_TAG", "when": "manual"}, {"when": "never"}])
    []
    >>> rules_problems("always")
    [('', 'expected an array of rules, got string')]
    >>> rules_problems([{"if": 5}, {"when": "sometimes"}])[0]
    ('[0].if', 'expected a CI/CD variable expression (a string), got int')
    """
    if not isinstance(raw, list):
        return [("", f"expected an array of rules, got {type_name(raw)}")]
    out: list[Problem] = []
    stack: list[tuple[list[Any], str]] = [(raw, "")]
    while stack:  # !reference of a rules array nests it: [[...], {...}]
        items, at = stack.pop()
        for i, item in enumerate(items):
            if isinstance(item, list):
                stack.append((item, f"{at}[{i}]"))
            else:
                out += _rule(item, f"{at}[{i}]", workflow)
    return out


def _refs(raw: Any, at: str) -> list[Problem]:
    items = raw if isinstance(raw, list) else [raw]
    if not isinstance(raw, (list, str)):
        return [(at, f"expected an array of refs (names, /regex/, keywords), got {type_name(raw)}")]
    return [(f"{at}[{i}]" if isinstance(raw, list) else at,
             f"expected a ref (a name, /regex/ or keyword), got {type_name(v)}")
            for i, v in enumerate(items) if not isinstance(v, str)]


def policy_problems(raw: Any) -> list[Problem]:
    """Problems of ``only`` or ``except``; ``[]`` when well shaped.

    >>> policy_problems(["main", "/^release-/", "merge_requests"]), policy_problems({"refs": ["tags"]})
    ([], [])
    >>> policy_problems({"refs": 7})
    [('.refs', 'expected an array of refs (names, /regex/, keywords), got int')]
    """
    if isinstance(raw, (list, str)):
        return _refs(raw, "")
    if not isinstance(raw, dict):
        return [("", f"expected an array of refs or a hash of {', '.join(_POLICY_KEYS)}, got {type_name(raw)}")]
    out: list[Problem] = [(f".{k}", f"unknown keyword (only and except take {', '.join(_POLICY_KEYS)})")
                          for k in raw if k not in _POLICY_KEYS]
    if "refs" in raw:
        out += _refs(raw["refs"], ".refs")
    if "variables" in raw:
        vs = raw["variables"]
        if not isinstance(vs, (list, str)) or isinstance(vs, list) and not all(isinstance(v, str) for v in vs):
            out.append((".variables", f"expected an array of CI/CD variable expressions, got {type_name(vs)}"))
    if "changes" in raw:
        why = _paths(raw["changes"], ("paths", "compare_to"))
        out += [(".changes", why)] if why else []
    if "kubernetes" in raw and raw["kubernetes"] != "active":
        out.append((".kubernetes", "expected active"))
    return out


def workflow_problems(raw: Any) -> list[Problem]:
    """Problems of the top-level ``workflow`` (places below ``workflow``); ``[]`` when well shaped or absent.

    >>> workflow_problems({"rules": [{"if": "$CI_COMMIT_TAG"}, {"when": "always"}]})
    []
    >>> workflow_problems({"rules": {"if": "x"}})
    [('.rules', 'expected an array of rules, got mapping')]
    """
    if raw is None:
        return []
    if not isinstance(raw, dict):
        return [("", f"expected a hash of {', '.join(_WORKFLOW_KEYS)}, got {type_name(raw)}")]
    out: list[Problem] = [(f".{k}", f"unknown keyword (workflow takes {', '.join(_WORKFLOW_KEYS)})")
                          for k in raw if k not in _WORKFLOW_KEYS]
    if "rules" in raw and raw["rules"] is not None:
        out += [(f".rules{p}", why) for p, why in rules_problems(raw["rules"], workflow=True)]
    return out
