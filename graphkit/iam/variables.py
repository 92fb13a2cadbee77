"""IAM policy variables (``${aws:username}``, ``${key, 'default'}``, ``${*}``): where AWS substitutes them, and what
they resolve to in a request context graphkit models -- pure, no I/O.

AWS IAM User Guide "IAM policy elements: Variables and tags"
(https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html):

- a variable is ``$`` and a key name in braces; it is replaced by the value of that condition key in the request
  context.  Key names are case-insensitive; only a **single-valued** key can be a variable.
- variables exist only in policy language ``Version`` ``2012-10-17``; without it (or with ``2008-10-17``) they are
  **literal strings** (:data:`VARIABLES_VERSION`).
- **where**: in the ``Resource`` element (and ``NotResource``, whose no-value case the page describes), only in the
  resource part of the ARN, after the fifth colon; and in ``Condition`` values of the string and ARN operators.
  "You can't use a policy variable with other operators, such as Numeric, Date, Boolean, Binary, IP Address, or
  Null".  Anywhere else (``Principal``, ``Action``, the ARN before its fifth colon) ``${...}`` is plain text.
  The "Condition operators" page
  (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html) agrees for
  string, ARN, numeric, date, binary, IP and ``Null``, but says **Boolean supports** policy variables: for ``Bool``
  the two pages disagree, and graphkit decides only when both readings (literal, substituted) agree.
- **special characters** ``${*}``, ``${?}``, ``${$}`` stand for a literal ``*``, ``?``, ``$`` (not wildcards), in any
  string where variables can be used.
- **default values** ``${key, 'default'}``: the default replaces a key that has no value.
- **no value** (the key is not in the request context): "There is no equal or like value": ``StringEquals`` /
  ``StringLike`` do not match, negated operators (``StringNotEquals``, ``StringNotLike``) do; a ``Resource`` or
  ``NotResource`` entry holding it matches no resource.  ``...IfExists`` and ``Null`` test the condition **key**,
  not the variable (the condition-operator page): a present key compared with a no-value variable does not match.

Encoding.  A substituted value is text, not a pattern: since ``${*}`` (a predefined variable) stands for a literal
``*``, a value put in place of a variable is matched literally as well.  graphkit compares with glob patterns
(:mod:`graphkit.iam.globs`: ``*`` and ``?`` are wildcards), so a literal ``*`` / ``?`` is written as a
private-use character (:data:`STAR`, :data:`QMARK`) that the globs treat as an ordinary character.  A request
value that is itself a graphkit pattern (:class:`~graphkit.iam.conditions.ClaimValue` with ``pattern``: ``*`` is
unknown text, e.g. a branch name) substitutes as unknown text: the comparison can then only be ``False`` (no
instance matches) or unknown, never a certain match.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["VARIABLES_VERSION", "STAR", "QMARK", "ABSENT", "UNKNOWN", "Var", "Binding", "Bindings", "Resolved",
           "template", "variables_of", "bind", "resolve", "resolve_resource", "literal", "principal_context"]

#: The policy language version that has policy variables (AWS "IAM JSON policy elements: Version",
#: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_version.html).
VARIABLES_VERSION = "2012-10-17"
#: A literal ``*`` / ``?`` inside a glob (private-use characters: never wildcards, never in IAM text).
STAR, QMARK = "\ue000", "\ue001"
_SPECIAL = {"*": STAR, "?": QMARK, "$": "$"}
#: Binding of a key known to have no value in the request; of a key whose value graphkit does not know.
ABSENT, UNKNOWN = "absent", "unknown"
#: ``KEY, 'DEFAULT'`` inside ``${...}`` (the page: "separate the variable text and the default value with a comma and
#: space"; other spacing around the comma is read the same way).
_DEFAULT = re.compile(r"^\s*([^,]*?)\s*,\s*'([^']*)'\s*$")


@dataclass(frozen=True)
class Var:
    """One ``${...}``: the lower-cased ``key`` and its ``default`` (None: none)."""

    key: str
    default: str | None = None


#: Piece of a policy value: policy text (str) or a variable.
Piece = str | Var
#: What a key resolves to: its value(s) ``((text, pattern), ...)``, :data:`ABSENT` or :data:`UNKNOWN`.
Binding = tuple[tuple[str, bool], ...] | str


@functools.lru_cache(maxsize=4096)
def template(text: str) -> tuple[Piece, ...] | None:
    """The pieces of ``text``: policy text and :class:`Var`; None when it holds no variable.

    ``${*}``, ``${?}``, ``${$}`` become :data:`STAR`, :data:`QMARK`, ``$`` in the text; ``${`` without a closing
    ``}`` stays text.

    >>> template("repo:${Token.Actions.GitHubUserContent.com:repository}:*")
    ('repo:', Var(key='token.actions.githubusercontent.com:repository', default=None), ':*')
    >>> template("${aws:PrincipalTag/team, 'company-wide'}"), template("a${*}b") == ("a" + STAR + "b",), template("x")
    ((Var(key='aws:principaltag/team', default='company-wide'),), True, None)
    """
    if "${" not in text:
        return None
    out: list[Piece] = []
    buf: list[str] = []
    at, found = 0, False
    while True:
        start = text.find("${", at)
        end = text.find("}", start + 2) if start != -1 else -1
        if start == -1 or end == -1:
            buf.append(text[at:])
            break
        buf.append(text[at:start])
        inner = text[start + 2:end]
        if inner in _SPECIAL:
            buf.append(_SPECIAL[inner])
        else:
            m = _DEFAULT.match(inner)
            var = Var(m.group(1).lower(), m.group(2)) if m else Var(inner.strip().lower())
            out += ["".join(buf), var] if buf else [var]
            buf = []
        found = True
        at = end + 1
    if not found:
        return None
    rest = "".join(buf)
    out = [p for p in out if p != ""]
    return tuple(out + [rest] if rest else out)


def variables_of(values: Sequence[str]) -> tuple[str, ...]:
    """The keys of the variables in ``values`` (sorted, once each).

    >>> variables_of(["home/${aws:username}/", "${aws:userid}", "x"])
    ('aws:userid', 'aws:username')
    """
    return tuple(sorted({p.key for v in values for p in (template(v) or ()) if isinstance(p, Var)}))


def bind(keys: Sequence[str], context: Mapping[str, Any], is_known: Callable[[str], bool]) -> tuple:
    """``((key, Binding), ...)`` of ``keys`` in a request ``context`` (lower-cased key -> ClaimValues, None:
    absent); a key missing from it is :data:`ABSENT` when ``is_known(key)``, else :data:`UNKNOWN`.

    A multivalued key (several values) cannot be a variable (the page: "You can't use a multivalued condition key
    as a variable"): :data:`UNKNOWN`.  A value the requester chooses (``chosen``) is any text: a pattern ``*``.
    """
    out = []
    for k in keys:
        if k in context:
            vals = context[k]
            if vals is None:
                out.append((k, ABSENT))
            elif len(vals) != 1:
                out.append((k, UNKNOWN))
            else:
                v = vals[0]
                out.append((k, (("*", True),) if v.chosen else ((v.text, bool(v.pattern)),)))
        else:
            out.append((k, ABSENT if is_known(k) else UNKNOWN))
    return tuple(out)


class Bindings:
    """The request context policy variables are read from: ``context`` (condition key -> ClaimValues; None:
    absent) and ``known_keys`` (keys known absent when missing: names, or a predicate over lower-cased keys);
    by default every key missing from ``context`` is **unknown** (never assumed absent)."""

    def __init__(self, context: Mapping[str, Any] | None = None,
                 known_keys: Iterable[str] | Callable[[str], bool] | None = None) -> None:
        self.context = {k.lower(): v for k, v in (context or {}).items()}
        if known_keys is None:
            self.is_known: Callable[[str], bool] = lambda _k: False
        elif callable(known_keys):
            self.is_known = known_keys
        else:
            self.is_known = frozenset(k.lower() for k in known_keys).__contains__

    def of(self, values: Sequence[str]) -> dict[str, Binding]:
        """Key -> :data:`Binding` of every variable in ``values``."""
        return dict(bind(variables_of(values), self.context, self.is_known))


def literal(text: str) -> str:
    """``text`` as a glob that matches exactly it (``*`` and ``?`` as :data:`STAR`, :data:`QMARK`)."""
    return text.replace("*", STAR).replace("?", QMARK)


@dataclass(frozen=True)
class Resolved:
    """A policy value after substitution: ``glob`` (``*``/``?`` wildcards; literal ones as :data:`STAR`/:data:`QMARK`),
    ``certain`` (False when unknown text was put in: a match is then only possible, a non-match still certain), or
    ``none``: a variable without value and without default (the value matches nothing)."""

    glob: str
    certain: bool = True
    none: bool = False


def resolve(pieces: Sequence[Piece], bindings: Mapping[str, Binding], *, wildcards: bool) -> Resolved:
    """Substitute ``bindings`` into ``pieces``; ``wildcards``: whether ``*``/``?`` of the policy text are
    wildcards (``StringLike``, ``ArnLike``, ``Resource``) or literal (``StringEquals``).

    A key graphkit does not know (:data:`UNKNOWN`) has some value or none: it becomes ``*`` (any text, so the glob
    matches at least whatever any instance matches) and the result is not ``certain``; when it has no value the
    value matches nothing, which the ``*`` covers too.  A default replaces a key without value; one holding ``*``
    or ``?`` is ambiguous (the page does not say whether it is a pattern): read as a pattern, not ``certain`` (its
    literal reading matches a subset).

    >>> resolve(template("home/${aws:username}/*"), {"aws:username": (("bob", False),)}, wildcards=True).glob
    'home/bob/*'
    >>> resolve(template("home/${aws:username}"), {"aws:username": "absent"}, wildcards=True).none
    True
    >>> resolve(template("repo:${aws:userid}:x"), {}, wildcards=False)
    Resolved(glob='repo:*:x', certain=False, none=False)
    """
    out: list[str] = []
    certain = True
    for p in pieces:
        if isinstance(p, str):
            out.append(p if wildcards else literal(p))
            continue
        b = bindings.get(p.key, UNKNOWN)
        if b == ABSENT:
            if p.default is None:
                return Resolved("", none=True)
            ambiguous = "*" in p.default or "?" in p.default
            out.append(p.default if ambiguous else literal(p.default))
            certain = certain and not ambiguous
        elif b == UNKNOWN:
            out.append("*")
            certain = False
        else:
            (text, pattern), = b
            out.append(text if pattern else literal(text))
            certain = certain and not pattern
    return Resolved("".join(out), certain)


def resolve_resource(resource: str, bindings: Mapping[str, Binding]) -> Resolved | None:
    """A ``Resource`` / ``NotResource`` entry after substitution; None when it has no variable in the resource
    part (after the fifth colon: before it ``${...}`` is text, the page: "You can't use a variable to replace parts
    of the ARN before the fifth colon").

    >>> resolve_resource("arn:aws:iam::*:user/${aws:username}", {"aws:username": (("bob", False),)}).glob
    'arn:aws:iam::*:user/bob'
    >>> resolve_resource("${aws:username}", {}) is None, resolve_resource("arn:aws:s3:::b/${?}", {}).glob == "arn:aws:s3:::b/" + QMARK
    (True, True)
    """
    parts = resource.split(":", 5)
    if len(parts) < 6:
        return None
    pieces = template(parts[5])
    if pieces is None:
        return None
    out = resolve(pieces, bindings, wildcards=True)
    return Resolved(":".join(parts[:5]) + ":" + out.glob, out.certain, out.none)


def principal_context(arn: str, account: str, org: str | None = None) -> tuple[dict[str, Any], Callable[[str], bool]]:
    """The request context graphkit knows of a request signed by IAM principal ``arn`` (a user, a role's session, or
    an account's root ARN meaning *some principal of that account*): ``(context, known)``.

    AWS "AWS global condition context keys"
    (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html): ``aws:PrincipalArn``
    (for a role session, the role's ARN), ``aws:PrincipalAccount``, ``aws:PrincipalType`` (``User``, or
    ``AssumedRole`` for a role's session) and ``aws:PrincipalIsAWSService`` (``false``) are in every signed request
    of an IAM principal, ``aws:PrincipalServiceName`` in none; ``aws:PrincipalOrgID`` is the id ``org`` of the
    organization the account belongs to ("included in the request context only if the principal is a member of an
    organization": unknown when ``org`` is None);
    ``aws:username`` only for an IAM user (its friendly name), "not present" for an assumed role (the variables
    page, "Principal key values").  Every other key (tags, ``aws:userid``, source IP...) stays unknown.

    >>> ctx, known = principal_context("arn:aws:iam::111122223333:user/dev/alice", "111122223333")
    >>> ctx["aws:username"][0].text, ctx["aws:principalarn"][0].text.endswith("alice"), known("aws:userid")
    ('alice', True, False)
    >>> ctx, known = principal_context("arn:aws:iam::111122223333:role/ci", "111122223333"); known("aws:username")
    True
    """
    from graphkit.iam.conditions import ClaimValue  # conditions imports this module

    ctx: dict[str, Any] = {"aws:principalaccount": [ClaimValue(account)]} if account else {}
    if org:
        ctx["aws:principalorgid"] = [ClaimValue(org)]
    absent: set[str] = set()
    resource = arn.split(":", 5)[5] if arn.startswith("arn:") and arn.count(":") >= 5 else ""
    if resource.startswith(("user/", "role/")):
        ctx["aws:principalarn"] = [ClaimValue(arn)]
        # an IAM user or a role's session: aws:PrincipalType User / AssumedRole, aws:PrincipalIsAWSService false
        # ("present in the request context for all signed API requests"), aws:PrincipalServiceName absent
        ctx["aws:principaltype"] = [ClaimValue("User" if resource.startswith("user/") else "AssumedRole")]
        ctx["aws:principalisawsservice"] = [ClaimValue("false")]
        absent.add("aws:principalservicename")
    if resource.startswith("user/"):
        ctx["aws:username"] = [ClaimValue(resource.rsplit("/", 1)[1])]
    elif resource.startswith("role/"):
        absent.add("aws:username")
    return ctx, absent.__contains__
