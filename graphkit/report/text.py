"""Text helpers shared by the figures and the HTML: escaping, shortening, evidence lines."""

from __future__ import annotations

import html
from collections.abc import Iterable

from graphkit.model import Evidence
from graphkit.output import neutralise

__all__ = ["esc", "evidence_lines", "short"]


def esc(text: object) -> str:
    """HTML-escape input-derived text (also used inside plotly hover text, which renders HTML); control,
    bidirectional and zero-width characters shown as escapes (:func:`graphkit.output.neutralise`), so a name
    cannot reorder or hide what the report shows (CVE-2021-42574, "Trojan Source").

    >>> esc("<b>a\u202ecod.exe</b>")
    '&lt;b&gt;a\\\\u202ecod.exe&lt;/b&gt;'
    """
    return html.escape(neutralise(text), quote=True)


def short(text: str, n: int = 28) -> str:
    """``text`` cut to ``n`` characters, the last one an ellipsis when cut."""
    return text if len(text) <= n else text[: n - 1] + "…"


def evidence_lines(evidence: Iterable[Evidence], limit: int = 3) -> list[str]:
    """One line per evidence item (``file:line — detail``), at most ``limit``, then ``(+N more)``."""
    ev = list(evidence)
    lines = [str(e) + (f" — {e.detail}" if e.detail else "") for e in ev[:limit]]
    if len(ev) > limit:
        lines.append(f"(+{len(ev) - limit} more)")
    return lines
