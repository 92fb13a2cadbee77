"""GitLab CI/CD expressions (``rules:if``, ``only:variables``, ``workflow:rules:if``), evaluated in three values
(pure).

Grammar (GitLab docs "CI/CD job rules", https://docs.gitlab.com/ci/jobs/job_rules/#cicd-variable-expressions):
``$VAR`` (or ``${VAR}``), ``"string"`` / ``'string'``, ``/regex/flags``, ``null``, the operators ``==``,
``!=``, ``=~``, ``!~``, ``&&`` (binds tighter), ``||`` and parentheses.  ``$VAR`` alone is true when the
variable is set and not empty; a comparison with an unset variable compares ``null``.  Regular expressions are
RE2 (https://github.com/google/re2/wiki/Syntax); Python's ``re`` reads the common subset, anything it cannot
read is undecided.

Values are :data:`UNSET` (``null``), a literal string, or a :class:`Sym`: a value known only by what it is
distinct from (the default branch, this project's path, a fork's path, "a ref matching ``/re/``", "any other
ref").  :func:`evaluate` answers ``True``, ``False`` or ``None`` (undecided).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Union

__all__ = ["UNSET", "UNKNOWN", "SET", "Sym", "Expr", "ParseError", "parse_expression", "evaluate", "literals",
           "variables_of", "regex_match"]

UNSET = None


@dataclass(frozen=True)
class Sym:
    """A symbolic value.  ``kind``: ``unknown`` (anything, ``null`` included), ``set`` (a non-empty unknown
    string), ``default`` (the default branch), ``project`` / ``fork`` (this project's path / a fork's; with ``text``
    ``id``: their IDs),
    ``regex`` (a ref matching ``text``, other than the literal refs considered), ``other`` (a ref equal to no
    literal and matching no regex considered)."""

    kind: str
    text: str = ""


UNKNOWN, SET = Sym("unknown"), Sym("set")
_DISTINCT = {frozenset({"project", "fork"}), frozenset({"other", "default"})}

Value = Union[str, Sym, None]
Expr = tuple  # ("or"|"and", a, b) | ("cmp", op, left, right) | ("var", name) | ("lit", text) | ("re", text) | ("null",)


class ParseError(ValueError):
    """An expression GitLab's grammar does not read."""


_TOKEN = re.compile(r"""\s*(?:(?P<var>\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)|(?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')"""
                    r"""|(?P<op>==|!=|=~|!~|&&|\|\||\(|\))|(?P<re>/(?:[^/\\]|\\.)*/[a-z]*)|(?P<null>null\b))""")


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos, text = [], 0, text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ParseError(f"unexpected text at character {pos + 1}")
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.toks, self.i = tokens, 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise ParseError("unexpected end of expression")
        self.i += 1
        return tok

    def binary(self, op: str, sub: Callable[[], Expr]) -> Expr:
        left = sub()
        while self.peek() == ("op", op):
            self.take()
            left = ("or" if op == "||" else "and", left, sub())
        return left

    def expr(self) -> Expr:
        return self.binary("||", lambda: self.binary("&&", self.unary))

    def unary(self) -> Expr:
        if self.peek() == ("op", "("):
            self.take()
            inner = self.expr()
            if self.take() != ("op", ")"):
                raise ParseError("expected )")
            return inner
        left = self.operand()
        tok = self.peek()
        if tok is not None and tok[0] == "op" and tok[1] in ("==", "!=", "=~", "!~"):
            self.take()
            return ("cmp", tok[1], left, self.operand())
        return left

    def operand(self) -> Expr:
        kind, text = self.take()
        if kind == "var":
            return ("var", text.strip("${}"))
        if kind == "str":
            return ("lit", re.sub(r"\\(.)", r"\1", text[1:-1]))
        if kind == "re":
            return ("re", text)
        if kind == "null":
            return ("null",)
        raise ParseError(f"unexpected {text!r}")


@lru_cache(maxsize=4096)
def parse_expression(text: str) -> Expr:
    """Parse an expression.

    Raises
    ------
    ParseError
        when GitLab's grammar does not read it.

    >>> parse_expression('$CI_COMMIT_BRANCH == "main" && $CI_PIPELINE_SOURCE != "schedule"')[0]
    'and'
    """
    p = _Parser(_tokens(text))
    out = p.expr()
    if p.peek() is not None:
        raise ParseError("unexpected text after the expression")
    return out


def _walk(e: Expr) -> Iterator[Expr]:
    yield e
    for sub in e[1:]:
        if isinstance(sub, tuple):
            yield from _walk(sub)


def variables_of(e: Expr) -> set[str]:
    """Names of the variables ``e`` reads."""
    return {x[1] for x in _walk(e) if x[0] == "var"}


def literals(e: Expr, variables: frozenset[str]) -> Iterator[tuple[str, str]]:
    """``("lit"|"re", text)`` of the strings and regular expressions ``e`` compares with any of ``variables``."""
    for x in _walk(e):
        if x[0] == "cmp":
            _, _, left, right = x
            for a, b in ((left, right), (right, left)):
                if a[0] == "var" and a[1] in variables and b[0] in ("lit", "re"):
                    yield b[0], b[1]


@lru_cache(maxsize=1024)
def _compile(text: str) -> re.Pattern[str] | None:
    body, _, flags = text[1:].rpartition("/")
    try:
        return re.compile(body, re.I if "i" in flags else 0)
    except (re.error, OverflowError, RecursionError):
        return None


def regex_match(value: Value, text: str) -> bool | None:
    """``value =~ /text/`` in three values (a :class:`Sym` ``regex`` of the same text matches)."""
    if value is UNSET:
        return False
    if isinstance(value, Sym):
        if value.kind == "regex":
            return True if value.text == text else None
        return False if value.kind == "other" else None
    rx = _compile(text)
    return None if rx is None else rx.search(value) is not None


def _eq(a: Value, b: Value) -> bool | None:
    if a is UNSET or b is UNSET:
        if a is UNSET and b is UNSET:
            return True
        other = b if a is UNSET else a
        return None if other == UNKNOWN else False
    if UNKNOWN in (a, b) or SET in (a, b):
        return None
    if isinstance(a, Sym) and isinstance(b, Sym):
        return True if a == b else False if frozenset({a.kind, b.kind}) in _DISTINCT or {a.kind, b.kind} == {
            "regex", "other"} else None
    if isinstance(a, Sym) or isinstance(b, Sym):
        sym = a if isinstance(a, Sym) else b
        return False if sym.kind in ("other", "regex") else None
    return a == b


def _not(v: bool | None) -> bool | None:
    return None if v is None else not v


def _value(e: Expr, env: Callable[[str], Value]) -> Value:
    if e[0] == "var":
        return env(e[1])
    if e[0] == "lit":
        return e[1]
    if e[0] == "null":
        return UNSET
    return UNKNOWN  # a regex used as a value


def evaluate(e: Expr, env: Callable[[str], Value]) -> bool | None:
    """Three-valued truth of ``e`` (``None``: undecided) with variable values from ``env``."""
    op = e[0]
    if op in ("and", "or"):
        a = evaluate(e[1], env)
        if a is (op == "or"):
            return a
        b = evaluate(e[2], env)
        if b is (op == "or"):
            return b
        return None if None in (a, b) else (op == "and")
    if op == "cmp":
        _, cmp, left, right = e
        if cmp in ("=~", "!~"):
            pattern = right[1] if right[0] == "re" else _value(right, env)
            if not isinstance(pattern, str) or not pattern.startswith("/"):
                return None
            hit = regex_match(_value(left, env), pattern)
            return hit if cmp == "=~" else _not(hit)
        hit = _eq(_value(left, env), _value(right, env))
        return hit if cmp == "==" else _not(hit)
    v = _value(e, env)
    if isinstance(v, Sym):
        return None if v == UNKNOWN else True
    return bool(v) if v is not UNSET else False

