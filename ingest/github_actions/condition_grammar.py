"""The grammar of GitHub's expressions in ``if:`` conditions: text -> expression tree (pure: no I/O).

GitHub docs "Evaluate expressions in workflows and actions"
(https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/evaluate-expressions-in-workflows-and-actions).
Bounded: a value over :data:`MAX_CHARS` characters, :data:`MAX_TOKENS` tokens or :data:`MAX_DEPTH` levels is
unread (``None``), never an exception.  :mod:`.conditions` evaluates the trees.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["MAX_CHARS", "MAX_DEPTH", "MAX_TOKENS", "UNKNOWN", "Unknown", "parse_condition"]

MAX_CHARS, MAX_TOKENS, MAX_DEPTH = 4096, 1024, 32

_TOKEN = re.compile(r"""\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>0x[0-9a-fA-F]+|-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
                        |(?P<op>==|!=|<=|>=|&&|\|\||[<>!()\[\],.*])|(?P<id>[A-Za-z_][A-Za-z0-9_-]*))""", re.X)
_KEYWORDS: dict[str, Any] = {"true": True, "false": False, "null": None}
_TEMPLATE = re.compile(r"\$\{\{(.*)\}\}", re.DOTALL)


class _Unread(Exception):
    """The condition is not read (too long, too deep, or outside the grammar)."""



class Unknown:
    """A value known only at run time (a literal in a tree that stands for it)."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = Unknown()


# ------------------------------------------------------------------------------------------------ parsing
# A tree is a tuple: ("lit", value), ("path", names), ("call", name, args), ("not", x), ("cmp", op, a, b),
# ("and", items), ("or", items).


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos, end = 0, len(text.rstrip())
    while pos < end:
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise _Unread(f"unexpected text at {pos}")
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind)))
        if len(out) > MAX_TOKENS:
            raise _Unread("too many tokens")
        pos = m.end()
    return out


class _Parser:
    """Recursive descent over GitHub's precedence: ``||`` < ``&&`` < ``==`` ``!=`` < ``<`` ``>`` < ``!`` <
    property access; each nesting (parenthesis, call, index, ``!``) counts toward :data:`MAX_DEPTH`."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.toks, self.i, self.depth = tokens, 0, 0

    def peek(self) -> str | None:
        return self.toks[self.i][1] if self.i < len(self.toks) else None

    def take(self, want: str | None = None) -> tuple[str, str]:
        if self.i >= len(self.toks) or (want is not None and self.toks[self.i][1] != want):
            raise _Unread(f"expected {want or 'more'}")
        self.i += 1
        return self.toks[self.i - 1]

    def nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Unread("nested too deep")

    def expr(self) -> tuple:
        self.nest()
        items = [self.conj()]
        while self.peek() == "||":
            self.take()
            items.append(self.conj())
        self.depth -= 1
        return items[0] if len(items) == 1 else ("or", tuple(items))

    def conj(self) -> tuple:
        items = [self.cmp(("==", "!="), self.cmp_order)]
        while self.peek() == "&&":
            self.take()
            items.append(self.cmp(("==", "!="), self.cmp_order))
        return items[0] if len(items) == 1 else ("and", tuple(items))

    def cmp(self, ops: tuple[str, ...], sub: Callable[[], tuple]) -> tuple:
        left = sub()
        while self.peek() in ops:
            op = self.take()[1]
            left = ("cmp", op, left, sub())
        return left

    def cmp_order(self) -> tuple:
        return self.cmp(("<", "<=", ">", ">="), self.unary)

    def unary(self) -> tuple:
        if self.peek() == "!":
            self.take()
            self.nest()
            inner = self.unary()
            self.depth -= 1
            return ("not", inner)
        return self.postfix(self.primary())

    def primary(self) -> tuple:
        kind, text = self.take()
        if kind == "str":
            return ("lit", text[1:-1].replace("''", "'"))
        if kind == "num":
            return ("lit", float(int(text, 16)) if text.lower().startswith("0x") else float(text))
        if text == "(":
            inner = self.expr()
            self.take(")")
            return inner
        if kind != "id":
            raise _Unread(f"unexpected {text!r}")
        name = text.lower()
        if name in _KEYWORDS:
            return ("lit", _KEYWORDS[name])
        if self.peek() == "(":
            return self.call(name)
        return ("path", (name,))

    def call(self, name: str) -> tuple:
        self.take("(")
        self.nest()
        args: list[tuple] = []
        while self.peek() != ")":
            if args:
                self.take(",")
            args.append(self.expr())
        self.take(")")
        self.depth -= 1
        return ("call", name, tuple(args))

    def postfix(self, node: tuple) -> tuple:
        if self.peek() not in (".", "["):
            return node
        names = list(node[1]) if node[0] == "path" else None
        while self.peek() in (".", "["):
            if self.take()[1] == ".":
                kind, text = self.take()
                key = "*" if text == "*" else text.lower() if kind == "id" else None
            else:
                self.nest()
                index = self.expr()
                self.take("]")
                self.depth -= 1
                key = index[1].lower() if index[0] == "lit" and isinstance(index[1], str) else None
            if key is None or names is None:
                names = None  # an index computed at run time, or a property of a call: unknown
            else:
                names.append(key)
        return ("path", tuple(names)) if names is not None else ("lit", UNKNOWN)


def parse_condition(value: Any) -> tuple | None:
    """The expression tree of an ``if:`` value, or None when it is unread (module docstring) or has no
    expression to read.  A YAML boolean is that literal, a YAML number that number (GitHub reads the ``if``
    value as expression text: ``if: 0`` is the number ``0``, falsy); a string with text around ``${{ }}``,
    whitespace included (a quoted ``'${{ false }} '``, a ``|`` block's final newline), is a format string, so
    always true (the runner parses a value into literal and expression segments; one expression alone is an
    expression: actionlint rule ``if-cond``, https://github.com/rhysd/actionlint/blob/main/docs/checks.md).

    >>> parse_condition("${{ github.event_name == 'push' }}")
    ('cmp', '==', ('path', ('github', 'event_name')), ('lit', 'push'))
    >>> parse_condition("x ${{ false }}"), parse_condition("(" * 40 + "true" + ")" * 40), parse_condition(0)
    (('lit', 'x ${{ false }}'), None, ('lit', 0.0))
    >>> parse_condition("${{ false }} ")
    ('lit', '${{ false }} ')
    """
    if isinstance(value, bool):
        return ("lit", value)
    if isinstance(value, (int, float)):
        return ("lit", float(value))
    if not isinstance(value, str) or len(value) > MAX_CHARS:
        return None
    m = _TEMPLATE.fullmatch(value)
    if m is not None and "${{" not in m.group(1):
        value = m.group(1)
    elif "${{" in value:
        return ("lit", value)  # text around an expression: a non-empty string, true
    try:
        parser = _Parser(_tokens(value))
        tree = parser.expr()
        if parser.i != len(parser.toks):
            raise _Unread("text after the expression")
        return tree
    except _Unread:
        return None
