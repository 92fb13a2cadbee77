"""Findings: rules over the graph, with stable ids, severity, confidence and evidence.

One rule, one module: each rule lives in ``graphkit/rules/<name>.py``, declares
its id, title, description, help URL and default severity once (a
:class:`Rule`), and registers itself with :func:`rule`.  Rule modules are
listed in :data:`graphkit.rules.RULE_MODULES` (one explicit list).

Finding ids are stable: a hash of the rule id and the finding's *identity
fields* (node ids, policy statement ids, claim values), never line numbers or
file order, so the same problem keeps its id across runs, machines and edits
that move lines (cf. Cartography's zizmor transform).

Output contract: ``graphkit.findings/v1`` (see :func:`findings_document`).
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from graphkit.graph import Graph
from graphkit.model import Confidence, Evidence

__all__ = ["Severity", "Finding", "Rule", "FindingOptions", "rule", "rules", "run_rules", "finding_id",
           "findings_document", "FINDINGS_SCHEMA"]

FINDINGS_SCHEMA = "graphkit.findings/v1"


class Severity(str, Enum):
    """How bad a finding is (separate axis from :class:`Confidence`)."""

    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    INFO = "info"


SEVERITY_ORDER = {s: i for i, s in enumerate(Severity)}


def finding_id(rule_id: str, *identity: str) -> str:
    """Stable finding id: ``GK-`` + 16 hex of SHA-256 over the rule id and identity fields.

    >>> finding_id("oidc-trust-without-sub", "cloud_role:aws:arn:aws:iam::1:role/x")  # doctest: +ELLIPSIS
    'GK-...'
    """
    h = hashlib.sha256("\x1f".join((rule_id, *identity)).encode("utf-8")).hexdigest()
    return f"GK-{h[:16]}"


class Finding(BaseModel):
    """One finding.

    ``subject``: the node id the finding is about; ``related``: other node ids
    involved; ``evidence``: where it was seen (file + YAML/JSON path + line, or
    API object); ``properties``: JSON-compatible rule-specific facts (never a
    secret value).
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    rule: str
    title: str
    severity: Severity
    confidence: Confidence = Confidence.CERTAIN
    message: str
    subject: str
    related: list[str] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    properties: dict[str, Any] = Field(default_factory=dict)


@dataclass(frozen=True)
class FindingOptions:
    """User options rules may read (e.g. ``expected_orgs`` for rogue registrations)."""

    expected_orgs: frozenset[str] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Rule:
    """Declaration of a rule.

    ``id``: short kebab-case name (SARIF rule ids are ``graphkit/<id>``);
    ``help_uri``: the doc URL that explains the underlying platform fact;
    ``check(graph, options) -> Iterable[Finding]``.
    """

    id: str
    title: str
    description: str
    help_uri: str
    severity: Severity
    remediation: str
    check: Callable[[Graph, FindingOptions], Iterable[Finding]]

    def finding(self, *identity: str, subject: str, message: str, severity: Severity | None = None,
                confidence: Confidence = Confidence.CERTAIN, related: Iterable[str] = (),
                evidence: Iterable[Evidence] = (), **properties: Any) -> Finding:
        """Build a :class:`Finding` of this rule; ``identity`` fields make its stable id."""
        return Finding(id=finding_id(self.id, *identity), rule=self.id, title=self.title,
                       severity=severity or self.severity, confidence=confidence, message=message, subject=subject,
                       related=list(related), evidence=list(evidence), properties=properties)


_RULES: dict[str, Rule] = {}


def rule(id: str, *, title: str, description: str, help_uri: str, severity: Severity,
         remediation: str) -> Callable[[Callable[[Graph, FindingOptions], Iterable[Finding]]], Rule]:
    """Decorator registering a check function as a :class:`Rule`.

    Raises
    ------
    ValueError
        if a rule with that id is already registered.
    """
    def deco(fn: Callable[[Graph, FindingOptions], Iterable[Finding]]) -> Rule:
        if id in _RULES:
            raise ValueError(f"rule {id!r} registered twice")
        r = Rule(id=id, title=title, description=description, help_uri=help_uri, severity=severity,
                 remediation=remediation, check=fn)
        _RULES[id] = r
        return r
    return deco


def rules() -> dict[str, Rule]:
    """Every rule, by id (imports the modules listed in ``graphkit.rules.RULE_MODULES``)."""
    from graphkit.rules import RULE_MODULES

    for name in RULE_MODULES:
        importlib.import_module(f"graphkit.rules.{name}")
    return dict(sorted(_RULES.items()))


def run_rules(graph: Graph, options: FindingOptions | None = None,
              only: Iterable[str] | None = None) -> list[Finding]:
    """Run rules (all, or the ids in ``only``) and return findings ordered by severity, rule, id.

    Duplicate ids (the same problem seen twice) are merged, evidence unioned.

    Raises
    ------
    KeyError
        for an unknown rule id in ``only``.
    """
    options = options or FindingOptions()
    registry = rules()
    selected = [registry[r] for r in only] if only is not None else list(registry.values())
    by_id: dict[str, Finding] = {}
    for r in selected:
        for f in r.check(graph, options):
            if f.id in by_id:
                prev = by_id[f.id]
                prev.evidence.extend(e for e in f.evidence if e not in prev.evidence)
            else:
                by_id[f.id] = f
    return sorted(by_id.values(), key=lambda f: (SEVERITY_ORDER[f.severity], f.rule, f.id))


def findings_document(findings: Iterable[Finding]) -> dict[str, Any]:
    """``{"schema": "graphkit.findings/v1", "findings": [...], "counts": {severity: n}}``."""
    items = [f.model_dump(mode="json") for f in findings]
    counts: dict[str, int] = {}
    for f in items:
        counts[f["severity"]] = counts.get(f["severity"], 0) + 1
    return {"schema": FINDINGS_SCHEMA, "counts": counts, "findings": items}

