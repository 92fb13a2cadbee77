"""The line of every path of a JSON document, for evidence (pure: no I/O).

:func:`json.loads` (the C decoder) gives no positions.  :func:`json_lines`
walks the text once more with one regular expression that matches only JSON
strings and the structural characters (``{ } [ ] ,``), so numbers, literals and
whitespace cost nothing, and writes ``{path: 1-based line}`` in the form
:func:`ingest._yaml.load_yaml` gives a YAML document (``Statement[0].Effect``:
:func:`ingest._yaml.join_path`), so that :func:`ingest._yaml.line_of` reads
both alike.  A key's line is the line of the key; a sequence item's the line
where the item starts (a number, ``true``, ``false`` or ``null`` item has none:
``line_of`` gives its parent's).  Of a key an object holds twice, the line of
the last is kept, as :func:`json.loads` keeps its value.

The text must be one the decoder accepted (the caller parses it first): on
valid JSON the tokens are exact (a string is ``"`` up to the next ``"`` not
escaped, and no JSON string holds a raw line break, RFC 8259 section 7,
https://www.rfc-editor.org/rfc/rfc8259#section-7).
"""

from __future__ import annotations

import json
import re

from ingest._yaml import join_path

__all__ = ["json_lines"]

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],]')


def json_lines(text: str) -> dict[str, int]:
    """``{path: line}`` of every key and of every sequence item that starts with a token (see the module docstring);
    ``""`` (the document) is line 1.

    Parameters
    ----------
    text
        a JSON document already accepted by :func:`json.loads`.

    Returns
    -------
    dict
        about one entry per key and per string or container item; time linear in the text.

    Examples
    --------
    >>> json_lines('{"Statement": [\\n  {"Effect": "Allow",\\n   "Action": ["s3:Get", 7]}]}')
    {'': 1, 'Statement': 1, 'Statement[0]': 2, 'Statement[0].Effect': 2, 'Statement[0].Action': 3, 'Statement[0].Action[0]': 3}
    """
    lines = {"": 1}
    # one frame per open container: [path, is a list, index of the current item / expecting a key]
    stack: list[list] = []
    pending = ""  # the path of the next value (a key's, an item's)
    line, last = 1, 0
    for m in _TOKEN.finditer(text):
        start = m.start()
        line += text.count("\n", last, start)
        last = start
        c = text[start]
        top = stack[-1] if stack else None
        if c == ",":
            if top is not None:
                top[2] = top[2] + 1 if top[1] else True
            continue
        if c in "}]":
            stack.pop()
            continue
        if top is not None and not top[1] and top[2] is True:  # a key
            key = m.group()
            key = json.loads(key) if "\\" in key else key[1:-1]
            pending = join_path(top[0], key)
            lines[pending] = line
            top[2] = False
            continue
        if top is not None and top[1]:  # an item of a list starts here
            pending = join_path(top[0], top[2])
            lines[pending] = line
        if c == "{":
            stack.append([pending, False, True])
        elif c == "[":
            stack.append([pending, True, 0])
    return lines
