"""The node base class: the kind declaration every node class carries, and how two observations merge."""

from __future__ import annotations

from enum import Enum
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from graphkit.model.bounds import bounded_fields
from graphkit.model.enums import CRITICALITY_WEIGHT, Criticality, Lifetime, NodeKind, RevocationAction
from graphkit.model.evidence import Evidence, merge_evidence
from graphkit.model.ids import FORMS_BY_KIND, IdForm
from graphkit.redact import mark_tokens, mark_value, strip_embedded_urls

__all__ = ["NodeSpec", "Node", "MergeRule"]


class NodeSpec(BaseModel):
    """Class-level declaration of a node kind.

    ``label``: the Neo4j label (and BloodHound kind suffix).  ``revoked_by``:
    the action that invalidates a node of this kind (None: not a credential).
    ``copyable``: see the field.  Its id forms are :data:`graphkit.model.ids.FORMS_BY_KIND` ``[kind]``.
    """

    model_config = ConfigDict(frozen=True)

    kind: NodeKind
    label: str
    description: str
    default_criticality: Criticality = Criticality.LOW
    revoked_by: RevocationAction | None = None
    #: Reaching a node of this kind hands the attacker its *value* (a secret's value, a cloud or Kubernetes
    #: secret's value, an on-disk credential file's content), which they can copy: the copy stays usable for the
    #: node's own lifetime (:attr:`Node.copy_lifetime`: until rotated), whatever bounded the path to it (an
    #: ephemeral runner's one job, an STS session: semantics §2 "credentials on disk", §6; README "reimaging does
    #: not revoke the copy").  Not a signing key used through KMS or a keyless identity (used, never read), not a
    #: GITHUB_TOKEN or OIDC token (they expire on their own), not a host, runner or cache (a foothold, not a
    #: value).  ``docs/revocation-plan.md``, "Held nodes".
    copyable: bool = False

    @property
    def holdable(self) -> bool:
        """True for credential-like kinds (those with a ``revoked_by`` action): an attacker who reached one keeps
        it after losing the path to it (a stolen secret, a copied registration credential, a poisoned cache)."""
        return self.revoked_by is not None

    @property
    def id_forms(self) -> tuple[IdForm, ...]:
        """How ids of this kind are written (main form first)."""
        return FORMS_BY_KIND[self.kind]


class MergeRule(str, Enum):
    """How two *known and different* values of one field combine when two sources saw the same node.

    Put on a field as ``Annotated[..., MergeRule.X]``.  Fields without a rule
    keep the later observation's value (the build reads its sources in a
    fixed order, so the result does not depend on the command line).  An
    unknown value (``None``, or a field the source did not set) never
    replaces a known one, whatever the rule.
    """

    #: security worst case for "is it production / public / privileged": any True wins
    ANY_TRUE = "any_true"
    #: worst case for "is it ephemeral": any False (persistent) wins
    ANY_FALSE = "any_false"
    #: lists: union, first observation's order first
    UNION = "union"


def _combine(rule: MergeRule | None, old: Any, new: Any) -> Any:
    if rule is MergeRule.ANY_TRUE:
        return bool(old) or bool(new)
    if rule is MergeRule.ANY_FALSE:
        return bool(old) and bool(new)
    if rule is MergeRule.UNION:
        return list(dict.fromkeys([*old, *new]))
    return new


def _without_url_credentials(v: Any) -> Any:
    """A field value with no URL credential (:meth:`Node._no_url_credentials`; a module function, not a closure:
    a recursive closure is a reference cycle left to the collector at every node built)."""
    if isinstance(v, str) and "://" in v:
        return strip_embedded_urls(v).url
    if isinstance(v, list) and any(isinstance(x, str) and "://" in x for x in v):
        return [_without_url_credentials(x) for x in v]
    return v


class Node(BaseModel):
    """Base of every node kind.

    Shapes: ``id`` (stable, built by :mod:`graphkit.model.ids`), ``name``
    (display), ``criticality`` (default: the kind's), ``inferred`` (true when
    graphkit made the node up from indirect evidence, e.g. an inferred
    runner pool), ``evidence`` (where it was seen; never empty for ingested
    nodes).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    spec: ClassVar[NodeSpec]
    #: fields :mod:`graphkit.model.bounds` leaves alone (their text is bounded where it becomes ids)
    unbounded_fields: ClassVar[frozenset[str]] = frozenset()
    #: fields whose values the platform compares case-insensitively: a credential in them is marked case-folded
    #: (:func:`graphkit.redact.mark_tokens` ``fold``), as the id parts that hold them are
    #: (:attr:`graphkit.model.id_parts.Part.caseless`), so two spellings that differ only in case still join.
    #: GitHub runner labels: "Labels are case-insensitive" (https://docs.github.com/en/actions/hosting-your-own-
    #: runners/managing-self-hosted-runners/using-labels-with-self-hosted-runners); owner and repository names
    #: (ids lower-case them, :mod:`graphkit.model.id_parts`), environment names ("not case sensitive",
    #: https://docs.github.com/en/actions/reference/workflows-and-actions/deployments-and-environments), runner
    #: group names, GitLab project paths
    caseless_fields: ClassVar[frozenset[str]] = frozenset({
        "labels", "label_patterns", "runs_on", "scope", "runner_group", "owner", "repository", "secrets_repository",
        "full_name", "selected_repositories", "environment", "github_owner"})

    id: str
    name: str
    criticality: Criticality | None = None
    inferred: bool = False
    evidence: list[Evidence] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _no_url_credentials(cls, data: Any) -> Any:
        """No text field of a node (its name, a target's identifier, a path, a label...) keeps a credential,
        whichever source gave it: a registry or cluster server written ``https://user:token@host`` is stored
        without its userinfo, and a literal credential (a token-shaped label, credential path or runner name) is
        marked, ``***`` and the keyed fingerprint of its value (:func:`graphkit.redact.mark_value`), as a
        workflow's values are (:func:`ingest._credentials.scrub`): the two sides of a join (a ``runs-on`` label
        and an inventory runner's label) stay equal.  The id is built by :mod:`graphkit.model.ids`, which does
        the same."""
        if not isinstance(data, dict):
            return data
        return {k: v if k == "evidence" else mark_tokens(v) if k == "id" and type(v) is str
                else mark_value(_without_url_credentials(v), k in cls.caseless_fields) for k, v in data.items()}

    @model_validator(mode="before")
    @classmethod
    def _bounded_attributes(cls, data: Any) -> Any:
        """No string the node stores is longer than ``max_attribute_chars``: a longer one is left out and
        recorded (:mod:`graphkit.model.bounds`), the rest of the node is kept."""
        if not isinstance(data, dict) or not hasattr(cls, "spec"):
            return data
        return bounded_fields(data, cls.spec.kind.value, cls)

    @model_validator(mode="after")
    def _default_criticality(self) -> "Node":
        if self.criticality is None:
            object.__setattr__(self, "criticality", self.spec.default_criticality)
        return self

    @property
    def revoked_by(self) -> RevocationAction | None:
        """The action that invalidates this node: the kind's (:attr:`NodeSpec.revoked_by`) unless a node class
        knows better for its platform (a GitLab runner is deleted, a GitLab variable rotated there)."""
        return self.spec.revoked_by

    @property
    def copy_lifetime(self) -> Lifetime | None:
        """How long a copy of this node's value stays usable (None: the kind is not :attr:`NodeSpec.copyable`):
        ``until_rotated``, unless a node class knows better (a credential's own ``lifetime``)."""
        return Lifetime.UNTIL_ROTATED if self.spec.copyable else None

    def known_fields(self) -> dict[str, Any]:
        """The fields this observation states: set explicitly and not None (identity and evidence excluded)."""
        return {k: getattr(self, k) for k in self.model_fields_set
                if k not in ("id", "evidence", "criticality", "inferred") and getattr(self, k) is not None}

    def merged(self, other: "Node") -> "Node":
        """Combine two observations of the same node.

        An observed node's known values win over an inferred one's (never the
        reverse); between two observations of the same standing, known values
        combine by the field's :class:`MergeRule`, else the later
        (``other``) wins.  Unknown values (None, or not set) never replace
        known ones.  Criticality is the higher of the two; evidence is the
        union; the result is inferred only if both are.

        Raises
        ------
        ValueError
            if the ids or kinds differ.
        """
        if other.id != self.id or type(other) is not type(self):
            raise ValueError(f"cannot merge {self.id!r} ({self.spec.kind.value}) "
                             f"with {other.id!r} ({other.spec.kind.value})")
        weak, strong = (other, self) if other.inferred and not self.inferred else (self, other)
        values = weak.known_fields()
        rules = {k: next((m for m in f.metadata if isinstance(m, MergeRule)), None)
                 for k, f in type(self).model_fields.items()}
        for key, value in strong.known_fields().items():
            if key in values and weak.inferred == strong.inferred:
                value = _combine(rules[key], values[key], value)
            values[key] = value
        crit = max(self.criticality, other.criticality, key=lambda c: CRITICALITY_WEIGHT[c])  # type: ignore[arg-type]
        return type(self).model_construct(id=self.id, **values, criticality=crit,
                                          inferred=self.inferred and other.inferred,
                                          evidence=merge_evidence(self.evidence, other.evidence))
