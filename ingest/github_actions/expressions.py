"""The ``${{ }}`` expression evaluator: what a value can be, as far as the files tell (pure).

An expression evaluates to a list of candidate values (:class:`Val`), each
``certain`` or not (it depends on run-time facts), or to ``None`` when it
cannot be evaluated statically.  Only literals and the contexts an
:class:`EvalContext` knows are read: ``matrix``, ``inputs``, ``env`` and
``steps.<id>.outputs`` (from run scripts, :func:`run_outputs`).
Semantics: https://docs.github.com/en/actions/reference/workflows-and-actions/expressions

Also here: which secrets an expression reads (:func:`scan_secrets`) and the
text substitution of composite-action inputs (:func:`substitute_inputs`).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from graphkit.model import secret_key

from .models import scalar_text

__all__ = [
    "EXPRESSION_PATTERN", "EvalContext", "Val", "evaluate", "expressions", "mentions_secrets", "resolve", "run_outputs", "scan_secrets",
    "substitute_inputs", "truthy",
]

#: A ``${{ }}`` expression, its text in group 1.  It ends at the first ``}}`` outside a string literal: GitHub's
#: strings are single-quoted, ``''`` a quote (https://docs.github.com/en/actions/reference/workflows-and-actions/
#: expressions#literals), so ``format('{{0}}-{0}', 'linux')`` is one expression (its ``{{``/``}}`` are escaped
#: braces, https://docs.github.com/en/actions/reference/workflows-and-actions/expressions#format).  A literal is
#: an atomic group (no backtracking into it: linear on hostile quotes); an expression whose quote is never closed
#: (GitHub refuses it) ends at its first ``}}``, as before.
EXPRESSION_PATTERN = r"\$\{\{((?:[^'}]|\}(?!\})|(?>'(?:[^']|'')*'))*?|.*?)\}\}"
_EXPR = re.compile(EXPRESSION_PATTERN, re.DOTALL)
_SECRETS_WORD = re.compile(r"(?<![\w.\-])secrets(?![\w\-])", re.IGNORECASE)
#: Property dereference: a name starts with a letter or ``_`` and holds letters, digits, ``-`` and ``_``
#: (https://docs.github.com/en/actions/reference/workflows-and-actions/contexts, "property dereference"), so
#: ``secrets.aws-access-key-id`` is one name (a ``workflow_call`` secret may hold ``-``), never ``AWS``.
_AFTER_DOT = re.compile(r"\s*\.\s*([A-Za-z_][A-Za-z0-9_-]*)")
_AFTER_INDEX = re.compile(r"""\s*\[\s*(['"])([^'"]+)\1\s*\]""")
_TOKEN_NAMES = frozenset({"GITHUB_TOKEN"})
_CONTEXT_REF = re.compile(r"(matrix|inputs|env|steps)((?:\s*\.\s*[A-Za-z_][\w-]*)+)", re.IGNORECASE)
_FROM_JSON = re.compile(r"fromjson\((.*)\)", re.IGNORECASE | re.DOTALL)
_FORMAT = re.compile(r"format\((.*)\)", re.IGNORECASE | re.DOTALL)
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{(\d+)\}|[{}]")
_STRING = re.compile(r"'(?:[^']|'')*'")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")
_KEYWORDS = {"true": True, "false": False, "null": None}


class Val(NamedTuple):
    """One candidate value of an expression: ``certain`` False when it depends on run-time facts."""

    value: Any
    certain: bool


@dataclass
class EvalContext:
    """What :func:`evaluate` can look up.  ``None`` in a field means "not known here".

    ``matrix``: the matrix instance; ``inputs``: input name (lower-case) ->
    candidates or None (unknown); ``env``: literal env values;
    ``steps``: step id -> output name -> candidates (from run scripts).
    """

    matrix: dict[str, Any] | None = None
    inputs: dict[str, list[Val] | None] | None = None
    env: dict[str, Any] = field(default_factory=dict)
    steps: dict[str, dict[str, list[Val]]] = field(default_factory=dict)


def expressions(text: str, *, bare: bool = False) -> list[str]:
    """The ``${{ }}`` expressions in ``text`` (``bare``: an ``if:`` value may be a bare expression).

    >>> expressions("a ${{ matrix.os }} b ${{secrets.X}}"), expressions("x == 1", bare=True)
    (['matrix.os', 'secrets.X'], ['x == 1'])
    >>> expressions("${{ format('{{0}}-{0}', 'it''s }}') }}-x ${{ 'open }}")
    ["format('{{0}}-{0}', 'it''s }}')", "'open"]
    """
    found = [m.group(1).strip() for m in _EXPR.finditer(text)]
    return found if found or not bare else [text.strip()]


def mentions_secrets(expr: str) -> bool:
    """True when ``expr`` reads the ``secrets`` context at all (see :func:`scan_secrets` for what)."""
    return _SECRETS_WORD.search(expr) is not None


def scan_secrets(expr: str) -> tuple[list[str], bool]:
    """Secret names an expression reads, and whether it reads *every* secret.

    ``secrets.NAME`` and ``secrets['NAME']`` name one secret (``GITHUB_TOKEN``
    is the job's token, not a secret, and is skipped); ``toJSON(secrets)``,
    dynamic ``secrets[expr]`` or the bare context read all of them.

    Examples
    --------
    >>> scan_secrets("secrets.A || secrets['B'] || secrets.GITHUB_TOKEN")
    (['A', 'B'], False)
    >>> scan_secrets("toJSON(secrets)")
    ([], True)
    """
    names: list[str] = []
    everything = False
    for m in _SECRETS_WORD.finditer(expr):
        rest = expr[m.end():]
        dot = _AFTER_DOT.match(rest)
        idx = _AFTER_INDEX.match(rest)
        name = dot.group(1) if dot else idx.group(2) if idx else None
        if name is None:
            everything = True
        elif secret_key(name) not in _TOKEN_NAMES and name not in names:
            names.append(name)
    return names, everything


# ---------------------------------------------------------------- scanning helpers


def _split_top(expr: str, op: str) -> list[str]:
    """``expr`` split on ``op`` outside quotes, parentheses and brackets."""
    parts, depth, quote, start, i = [], 0, False, 0, 0
    while i < len(expr):
        c = expr[i]
        if c == "'":
            quote = not quote
        elif not quote and c in "([":
            depth += 1
        elif not quote and c in ")]":
            depth -= 1
        elif not quote and depth == 0 and expr.startswith(op, i):
            parts.append(expr[start:i])
            i += len(op)
            start = i
            continue
        i += 1
    parts.append(expr[start:])
    return [p.strip() for p in parts]


def _wrapped(expr: str) -> bool:
    """True when the first ``(`` closes at the last character."""
    if not expr.startswith("("):
        return False
    depth, quote = 0, False
    for i, c in enumerate(expr):
        if c == "'":
            quote = not quote
        elif not quote and c == "(":
            depth += 1
        elif not quote and c == ")":
            depth -= 1
            if depth == 0:
                return i == len(expr) - 1
    return False


def _balanced(expr: str) -> bool:
    depth, quote = 0, False
    for c in expr:
        if c == "'":
            quote = not quote
        elif not quote:
            depth += (c == "(") - (c == ")")
            if depth < 0:
                return False
    return depth == 0


def truthy(value: Any) -> bool:
    """GitHub's truthiness of a value (``''``, ``null``, ``false``, ``0`` and the text ``false`` are falsy)."""
    return value not in ("", None, False, 0, "false")


# ---------------------------------------------------------------- contexts


def _matrix(ctx: EvalContext, keys: list[str]) -> list[Val] | None:
    """A matrix value; one written as an expression (``os: ${{ github.repository == 'a/b' && 'big' || 'small' }}``)
    is what GitHub evaluates when it expands the strategy, where ``matrix`` itself is not available
    (https://docs.github.com/en/actions/reference/workflows-and-actions/contexts#context-availability,
    ``jobs.<job_id>.strategy``): its candidates, or None when it cannot be evaluated here."""
    if ctx.matrix is None:
        return None
    value: Any = ctx.matrix
    for k in keys:
        value = value.get(k) if isinstance(value, dict) else None
    if isinstance(value, str) and "${{" in value:
        vals, pattern = resolve(value, EvalContext(inputs=ctx.inputs))
        return None if pattern is not None else vals
    return [Val("" if value is None else value, True)]


def _inputs(ctx: EvalContext, keys: list[str]) -> list[Val] | None:
    if ctx.inputs is None or len(keys) != 1:
        return None
    return ctx.inputs.get(keys[0].lower())


def _env(ctx: EvalContext, keys: list[str]) -> list[Val] | None:
    value = ctx.env.get(keys[0]) if len(keys) == 1 else None
    if value is None or (isinstance(value, str) and "${{" in value):
        return None
    return [Val(value, True)]


def _steps(ctx: EvalContext, keys: list[str]) -> list[Val] | None:
    if len(keys) == 3 and keys[1] == "outputs":
        return ctx.steps.get(keys[0], {}).get(keys[2])
    return None


_CONTEXTS: dict[str, Callable[[EvalContext, list[str]], list[Val] | None]] = {
    "matrix": _matrix, "inputs": _inputs, "env": _env, "steps": _steps,
}


# ---------------------------------------------------------------- evaluation


def _literal(term: str) -> Val | None:
    """A string, boolean, null or number literal (None when ``term`` is not one)."""
    if _STRING.fullmatch(term):
        return Val(term[1:-1].replace("''", "'"), True)
    if term.lower() in _KEYWORDS:
        return Val(_KEYWORDS[term.lower()], True)
    if _NUMBER.fullmatch(term):
        return Val(json.loads(term), True)
    return None


def _compare(left_text: str, right_text: str, equal: bool, ctx: EvalContext) -> list[Val] | None:
    """``==`` / ``!=`` of two single certain values (strings compare case-insensitively)."""
    left, right = _atom(left_text, ctx), _atom(right_text, ctx)
    if not (left and right and len(left) == len(right) == 1 and left[0].certain and right[0].certain):
        return None
    a, b = (str(v[0].value).lower() if isinstance(v[0].value, str) else v[0].value for v in (left, right))
    return [Val((a == b) == equal, True)]


def _from_json(inner_text: str, ctx: EvalContext) -> list[Val] | None:
    inner = evaluate(inner_text, ctx)
    try:
        return None if inner is None else [Val(json.loads(v.value), v.certain) for v in inner]
    except (TypeError, ValueError):
        return None


def _text(value: Any) -> str | None:
    """A value as ``format`` writes it (``true``, ``''`` for null, ``2`` for the number 2.0); None for an array
    or an object (GitHub writes ``Array`` / ``Object``: never a runner label or a name graphkit can use)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return None if isinstance(value, (list, dict)) else str(value)


def _formatted(template: Any, args: list[Any]) -> str | None:
    """``format(template, args...)``: ``{N}`` is the Nth argument, ``{{`` and ``}}`` a brace; None when the
    template is not a string, names a missing argument or holds a lone brace (GitHub fails the expression)."""
    if not isinstance(template, str):
        return None
    out, pos = [], 0
    for m in _PLACEHOLDER.finditer(template):
        out.append(template[pos:m.start()])
        pos = m.end()
        if m.group(0) in ("{{", "}}"):
            out.append(m.group(0)[0])
        elif m.group(1) is None or int(m.group(1)) >= len(args):
            return None
        elif (text := _text(args[int(m.group(1))])) is None:
            return None
        else:
            out.append(text)
    return "".join(out) + template[pos:]


def _format(inner_text: str, ctx: EvalContext) -> list[Val] | None:
    """``format(...)`` over every combination of its arguments' candidates (at most 64); None when an argument
    is unknown or the call is malformed (https://docs.github.com/en/actions/reference/workflows-and-actions/expressions#format)."""
    parts = [evaluate(a, ctx) for a in _split_top(inner_text, ",")]
    if any(p is None for p in parts):
        return None
    out = []
    for combo in itertools.islice(itertools.product(*parts), 64):  # type: ignore[arg-type]
        text = _formatted(combo[0].value, [v.value for v in combo[1:]])
        if text is None:
            return None
        out.append(Val(text, all(v.certain for v in combo)))
    return out


def _atom(term: str, ctx: EvalContext) -> list[Val] | None:
    """One operand of ``&&``/``||``: parentheses, a literal, a comparison, a context reference, ``fromJSON`` or
    ``format``."""
    term = term.strip()
    if _wrapped(term):
        return evaluate(term[1:-1], ctx)
    literal = _literal(term)
    if literal is not None:
        return [literal]
    for op in ("==", "!="):
        sides = _split_top(term, op)
        if len(sides) == 2:
            return _compare(sides[0], sides[1], op == "==", ctx)
    m = _CONTEXT_REF.fullmatch(term)
    if m:
        return _CONTEXTS[m.group(1).lower()](ctx, [k.strip() for k in m.group(2).split(".")[1:]])
    m = _FROM_JSON.fullmatch(term)
    if m and _balanced(m.group(1)):
        return _from_json(m.group(1), ctx)
    m = _FORMAT.fullmatch(term)
    if m and _balanced(m.group(1)) and m.group(1).strip():
        return _format(m.group(1), ctx)
    return None


def _conditions(terms: list[str], ctx: EvalContext) -> tuple[bool, Val | None]:
    """The conditions of an ``a && b && value`` chain: ``(some condition unknown, first certain falsy one)``."""
    unknown = False
    for t in terms:
        r = _atom(t, ctx)
        if r is None or len(r) != 1 or not r[0].certain:
            unknown = True
        elif not truthy(r[0].value):
            return unknown, r[0]
    return unknown, None


def evaluate(expr: str, ctx: EvalContext) -> list[Val] | None:
    """Statically evaluate a GitHub expression, as far as literals and known contexts allow.

    Supports literals, ``matrix.*``, ``inputs.*``, ``env.*``,
    ``steps.<id>.outputs.*`` (from :class:`EvalContext`), ``fromJSON(...)``,
    parentheses, and ``a && b || c`` chains: an unknown *condition* makes the
    branches ``possible`` candidates, an unknown *value* makes the whole
    expression unknown.  Semantics: https://docs.github.com/en/actions/reference/workflows-and-actions/expressions

    Returns
    -------
    list of Val or None
        candidate values, or ``None`` when not statically resolvable.

    Examples
    --------
    >>> evaluate("github.ref == 'refs/heads/main' && 'big' || 'small'", EvalContext())
    [Val(value='big', certain=False), Val(value='small', certain=False)]
    >>> evaluate("matrix.os", EvalContext(matrix={"os": "linux"}))
    [Val(value='linux', certain=True)]
    """
    alts = _split_top(expr.strip(), "||")
    out: list[Val] = []
    conditional = False  # later alternatives are reached only under an unknown condition
    for n, alt in enumerate(alts):
        final = n == len(alts) - 1
        terms = _split_top(alt, "&&")
        unknown_cond, falsy = _conditions(terms[:-1], ctx)
        if falsy is not None:
            if final:  # `a && b` is `a` when `a` is falsy, and so is the whole `||` chain
                out.append(Val(falsy.value, not unknown_cond and not conditional))
            continue
        last = _atom(terms[-1], ctx)
        if last is None:
            return None
        # a falsy non-final alternative falls through to the next
        out += [Val(v.value, v.certain and not unknown_cond and not conditional)
                for v in last if final or truthy(v.value)]
        if not unknown_cond and all(v.certain and truthy(v.value) for v in last):
            break
        if not all(v.certain and not truthy(v.value) for v in last):
            conditional = True  # a falsy alternative falls through whatever its condition was
    return out or None


def _pattern(literal: list[str], pieces: list[list[Val] | None]) -> str:
    """The literal text with ``*`` for each piece that has no single certain value."""
    pattern = literal[0]
    for p, lit in zip(pieces, literal[1:]):
        pattern += (scalar_text(p[0].value) if p and len(p) == 1 and p[0].certain else "*") + lit
    return pattern


def resolve(value: Any, ctx: EvalContext) -> tuple[list[Val], str | None]:
    """Resolve a YAML value that may hold ``${{ }}`` expressions.

    Returns
    -------
    tuple
        ``(candidates, None)`` when resolvable, else ``([], pattern)`` where
        ``pattern`` keeps the literal text and writes ``*`` for each expression
        that has no single certain value.

    Examples
    --------
    >>> resolve("arn:aws:iam::${{ vars.ACCOUNT }}:role/${{ matrix.r }}", EvalContext(matrix={"r": "ci"}))
    ([], 'arn:aws:iam::*:role/ci')
    >>> resolve("${{ matrix.r }}-x", EvalContext(matrix={"r": "ci"}))
    ([Val(value='ci-x', certain=True)], None)
    """
    if not isinstance(value, str) or "${{" not in value:
        return [Val(value, True)], None
    matches = list(_EXPR.finditer(value))
    if len(matches) == 1 and matches[0].group(0) == value.strip():
        r = evaluate(matches[0].group(1), ctx)
        return (r, None) if r is not None else ([], "*")
    pieces: list[list[Val] | None] = []
    literal: list[str] = []
    pos = 0
    for m in matches:
        literal.append(value[pos:m.start()])
        pieces.append(evaluate(m.group(1), ctx))
        pos = m.end()
    literal.append(value[pos:])
    if any(p is None for p in pieces):
        return [], _pattern(literal, pieces)
    out = []
    for combo in itertools.islice(itertools.product(*pieces), 64):  # type: ignore[arg-type]
        text = literal[0] + "".join(scalar_text(v.value) + lit for v, lit in zip(combo, literal[1:]))
        out.append(Val(text, all(v.certain for v in combo)))
    return out, None


_INPUT_EXPR = re.compile(r"\$\{\{\s*inputs\.([A-Za-z_][\w-]*)\s*\}\}", re.IGNORECASE)


def substitute_inputs(text: str, values: Mapping[str, str]) -> str:
    """Replace whole ``${{ inputs.x }}`` expressions by the text the caller passes (composite actions).

    >>> substitute_inputs("--token ${{ inputs.Token }}", {"token": "${{ secrets.T }}"})
    '--token ${{ secrets.T }}'
    """
    if not values or "inputs" not in text:
        return text
    return _INPUT_EXPR.sub(lambda m: values.get(m.group(1).lower(), m.group(0)), text)


_OUTPUT_WRITE = re.compile(r"""echo\s+["']?([A-Za-z_][\w-]*)=([^\s"'>]*)["']?[^\n]*GITHUB_OUTPUT""")
_ASSIGN = re.compile(r"""^\s*(?:export\s+)?([A-Za-z_]\w*)=(["']?)([^\s"'$`;]+)\2\s*;?\s*$""", re.MULTILINE)
_VAR = re.compile(r"\$\{?([A-Za-z_]\w*)\}?")


def run_outputs(run: str) -> dict[str, list[Val]]:
    """Heuristic step outputs of a run script: ``echo "name=value" >> "$GITHUB_OUTPUT"``.

    A ``$var``/``${var}`` value takes every literal ``var=...`` assignment in
    the script; all candidates are ``possible`` (shell is not evaluated).

    >>> run_outputs('R=linux.big\\necho "runner=$R" >> "$GITHUB_OUTPUT"')
    {'runner': [Val(value='linux.big', certain=False)]}
    """
    assigned: dict[str, list[str]] = {}
    for m in _ASSIGN.finditer(run):
        assigned.setdefault(m.group(1), []).append(m.group(3))
    out: dict[str, list[Val]] = {}
    for m in _OUTPUT_WRITE.finditer(run):
        name, value = m.group(1), m.group(2)
        var = _VAR.fullmatch(value)
        values = assigned.get(var.group(1), []) if var else ([value] if value and "$" not in value else [])
        for v in values:
            out.setdefault(name, [])
            if Val(v, False) not in out[name]:
                out[name].append(Val(v, False))
    return out
