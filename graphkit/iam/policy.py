"""Policy documents -> :class:`Statement` objects (pure): ``Effect``, ``Action``/``NotAction``,
``Resource``/``NotResource``, ``Principal``/``NotPrincipal`` and ``Condition``, each normalised to tuples.

Grammar: AWS IAM User Guide "IAM JSON policy element reference"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements.html).
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from graphkit.iam.variables import VARIABLES_VERSION

__all__ = ["PolicyError", "Statement", "parse_policy"]


class PolicyError(ValueError):
    """A policy document that cannot be read; ``place`` is a JSON path inside the document."""

    def __init__(self, place: str, reason: str) -> None:
        self.place, self.reason = place, reason
        super().__init__(f"{place}: {reason}" if place else reason)


def _as_list(value: Any, place: str, *, allow_dict: bool = False) -> list:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    if allow_dict and isinstance(value, dict):
        return [value]
    raise PolicyError(place, f"expected a string or a list of strings, got {type(value).__name__}")


@dataclass(frozen=True)
class Statement:
    """One normalised policy statement.

    ``actions`` / ``not_actions``, ``resources`` / ``not_resources``: lists of
    patterns (exactly one of each pair is used; both empty means the element is
    absent).  ``principals``: ``{"AWS"|"Federated"|"Service"|"CanonicalUser"|"*": [values]}``
    (``Principal: "*"`` becomes ``{"*": ["*"]}``).  ``conditions``:
    ``{operator: {key: [values]}}``.  ``index``: position in the document,
    ``place``: JSON path (``Statement[2]``).  ``variables``: whether ``${...}`` in it are policy variables (the
    document's ``Version`` is ``2012-10-17``, see :mod:`graphkit.iam.variables`) or literal text.
    """

    effect: str
    actions: tuple[str, ...] = ()
    not_actions: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    not_resources: tuple[str, ...] = ()
    principals: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    not_principals: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    conditions: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    sid: str | None = None
    index: int = 0
    place: str = ""
    variables: bool = False


def _principals(value: Any, place: str) -> dict[str, tuple[str, ...]]:
    if value is None:
        return {}
    if value == "*":
        return {"*": ("*",)}
    if not isinstance(value, dict):
        raise PolicyError(place, "expected \"*\" or a mapping of principal types")
    return {str(k): tuple(_as_list(v, f"{place}.{k}")) for k, v in value.items()}


def _conditions(value: Any, place: str) -> dict[str, dict[str, tuple[str, ...]]]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise PolicyError(place, "expected a mapping of condition operators")
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for op, block in value.items():
        if not isinstance(block, dict):
            raise PolicyError(f"{place}.{op}", "expected a mapping of condition keys")
        out[str(op)] = {str(key): _condition_values(vals, f"{place}.{op}.{key}") for key, vals in block.items()}
    return out


#: JSON names of the Python types a JSON document is read into, for messages that never quote a value.
_JSON_TYPES = {dict: "an object", list: "a list", type(None): "null"}


def _condition_values(vals: Any, place: str) -> tuple[str, ...]:
    """The values of one condition key as strings (a Boolean as ``true``/``false``, a number as written).

    The policy grammar allows a string, a number or a Boolean, or a list of them (``<condition_value> =
    ("string" | "number" | "Boolean")``, AWS IAM User Guide "Grammar of the IAM JSON policy language",
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_grammar.html); AWS refuses any other
    policy as malformed, so anything else (an object, a nested list, null) is a :class:`PolicyError` naming the
    place and the type, never the value.

    >>> _condition_values([True, 12, "a"], "Condition.Bool.k")
    ('true', '12', 'a')
    >>> _condition_values([1, {"a": 2}], "Condition.StringEquals.k")
    Traceback (most recent call last):
    ...
    graphkit.iam.policy.PolicyError: Condition.StringEquals.k[1]: a condition value is a string, number or Boolean, got an object
    """
    items = vals if isinstance(vals, list) else [vals]
    out = []
    for i, v in enumerate(items):
        if isinstance(v, bool):
            out.append("true" if v else "false")
        elif isinstance(v, (str, int, float)):
            out.append(str(v))
        else:
            raise PolicyError(f"{place}[{i}]" if isinstance(vals, list) else place, "a condition value is a string, "
                              f"number or Boolean, got {_JSON_TYPES.get(type(v), type(v).__name__)}")
    return tuple(out)


def _effect_shape(value: Any) -> str:
    """What a bad ``Effect`` is, without quoting input (it may hold anything, a token included): a case variant
    of Allow/Deny is named (the grammar is case-sensitive:
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_grammar.html), anything else by type and
    length."""
    if value is None:
        return "nothing"
    if isinstance(value, str):
        if value.strip().lower() in ("allow", "deny"):
            return f"{value.strip()!r} (the value is case-sensitive)"
        return f"another string of {len(value)} characters"
    return type(value).__name__


def parse_policy(document: Any, place: str = "", *, variables: bool | None = None) -> list[Statement]:
    """Normalise a policy document into :class:`Statement` objects (pure).

    Parameters
    ----------
    document : dict or str
        ``{"Version": ..., "Statement": [...] | {...}}``; a string is parsed as
        JSON, URL-decoded first when it is URL-encoded (raw IAM API output).
    place : str
        JSON path of the document, prefixed to error places.
    variables : bool, optional
        Whether ``${...}`` are policy variables; default: when the document's ``Version`` is ``2012-10-17``
        (AWS "IAM policy elements: Variables and tags",
        https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html: without that version
        "variables like ``${aws:username}`` are treated as literal strings").  False for a template (Terraform,
        CloudFormation) whose ``${...}`` are placeholders of the template, not of IAM.

    Returns
    -------
    list of Statement
        In document order.

    Raises
    ------
    PolicyError
        naming the place: not a mapping, no ``Statement``, a statement without
        ``Effect`` Allow/Deny, elements of the wrong type.

    Examples
    --------
    >>> [s.actions for s in parse_policy({"Statement": {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}})]
    [('s3:*',)]
    """
    if isinstance(document, str):
        text = document.strip()
        if text.startswith("%7B") or text.startswith("%7b"):
            text = urllib.parse.unquote(text)
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PolicyError(place, f"policy document is not JSON: {exc.msg}") from None
    if not isinstance(document, dict):
        raise PolicyError(place, "policy document is not a mapping")
    raw = document.get("Statement")
    if raw is None:
        raise PolicyError(place, "policy document has no Statement")
    items = raw if isinstance(raw, list) else [raw]
    if variables is None:
        variables = document.get("Version") == VARIABLES_VERSION
    out = []
    pre = f"{place}." if place else ""
    for i, st in enumerate(items):
        sp = f"{pre}Statement[{i}]" if isinstance(raw, list) else f"{pre}Statement"
        if not isinstance(st, dict):
            raise PolicyError(sp, "statement is not a mapping")
        effect = st.get("Effect")
        if effect not in ("Allow", "Deny"):
            raise PolicyError(f"{sp}.Effect", f"expected Allow or Deny, got {_effect_shape(effect)}")
        sid = st.get("Sid")
        if sid is not None and not isinstance(sid, str):  # the grammar: "Sid": "<sid_string>" (issue 18: a list)
            raise PolicyError(f"{sp}.Sid", f"expected a string, got {type(sid).__name__}")
        out.append(Statement(
            effect=effect, actions=tuple(_as_list(st.get("Action"), f"{sp}.Action")),
            not_actions=tuple(_as_list(st.get("NotAction"), f"{sp}.NotAction")),
            resources=tuple(_as_list(st.get("Resource"), f"{sp}.Resource")),
            not_resources=tuple(_as_list(st.get("NotResource"), f"{sp}.NotResource")),
            principals=_principals(st.get("Principal"), f"{sp}.Principal"),
            not_principals=_principals(st.get("NotPrincipal"), f"{sp}.NotPrincipal"),
            conditions=_conditions(st.get("Condition"), f"{sp}.Condition"),
            sid=sid or None, index=i, place=sp, variables=variables))
    return out

