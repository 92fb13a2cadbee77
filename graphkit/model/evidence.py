"""Evidence: where a node or edge was seen (file and YAML path, or API object)."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

from graphkit import limits
from graphkit.redact import mark_tokens

__all__ = ["Evidence", "merge_evidence"]


class Evidence(BaseModel):
    """Where a node or edge came from.

    ``file``: for a repository checkout the path relative to the checkout root
    (with ``repository`` set), otherwise the path as given on the command line,
    or an API object such as ``GET /orgs/acme/actions/runners``.
    ``yaml_path``: dotted path with ``[i]`` indexes, e.g.
    ``jobs.build.steps[2].with.role-to-assume``.  ``line`` is 1-based when known.
    ``detail`` holds a short non-secret excerpt (an expression, a command), never
    a secret value; one longer than ``max_attribute_chars`` is left out (None) and
    recorded (:func:`graphkit.model.bounds.bounded_detail`), the place kept.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    file: str
    repository: str | None = None
    yaml_path: str | None = None
    line: int | None = None
    detail: str | None = None

    @field_validator("file", "repository", "yaml_path", "detail", mode="before")
    @classmethod
    def _no_credential(cls, text: object) -> object:
        """No place or excerpt keeps a literal credential (a token-shaped file name, YAML key or excerpt):
        marked as every stored string is (:func:`graphkit.redact.mark_tokens`), case-folded: an excerpt may quote a
        value the platform compares case-insensitively (``runs-on: LBL-GHP_...``, an environment name), whose
        other spellings are the same credential."""
        return mark_tokens(text, True) if type(text) is str else text

    @field_validator("detail")
    @classmethod
    def _bounded_detail(cls, detail: str | None, info: ValidationInfo) -> str | None:
        if detail is None or len(detail) <= limits.latest().max_attribute_chars:
            return detail
        from graphkit.model.bounds import bounded_detail  # bounds imports this module
        d = info.data
        return bounded_detail(detail, d.get("file", ""), d.get("repository"), d.get("yaml_path"), d.get("line"))

    def __str__(self) -> str:
        where = f"{self.repository}:{self.file}" if self.repository else self.file
        if self.line is not None:
            where += f":{self.line}"
        if self.yaml_path:
            where += f" ({self.yaml_path})"
        return where



def merge_evidence(*groups: Iterable[Evidence]) -> list[Evidence]:
    """Union of evidence lists, first occurrence first.

    >>> a, b = Evidence(file="a"), Evidence(file="b")
    >>> [e.file for e in merge_evidence([a, b], [b, a, Evidence(file="c")])]
    ['a', 'b', 'c']
    """
    return list(dict.fromkeys(e for group in groups for e in group))
