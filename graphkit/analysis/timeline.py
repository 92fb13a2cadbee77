"""Time: which tokens and sessions an attacker may still hold, from issue times and documented lifetimes.

A blast radius says what *can* be obtained; an incident also has a clock.  A
token issued at ``t`` with a documented lifetime ``L`` is dead at ``now`` when
``t + L <= now``: it needs no action, and the plan says so.  A live one gets
its step.  Records of issued tokens come from the platforms' logs (GitHub
audit log ``org.runner_registration_token_created``, workflow run times,
CloudTrail ``AssumeRoleWithWebIdentity``) as a ``graphkit.issued-tokens/v1``
file (:func:`load_issued`); ``--compromised-since`` marks what was issued
before the compromise as not the attacker's.

Documented lifetimes (:data:`LIFETIMES`):

- runner registration token: 1 hour (GitHub REST "Create a registration token
  for an organization": "The token expires after one hour",
  https://docs.github.com/en/rest/actions/self-hosted-runners#create-a-registration-token-for-an-organization);
- ``GITHUB_TOKEN``: until the job ends, at most 24 hours (GitHub docs
  "Automatic token authentication",
  https://docs.github.com/en/actions/security-for-github-actions/security-guides/automatic-token-authentication);
- GitHub OIDC JWT: about 5 minutes (its ``exp``; the duration is not stated
  in the docs, "OpenID Connect reference",
  https://docs.github.com/en/actions/security-for-github-actions/security-hardening-your-deployments/about-security-hardening-with-openid-connect);
- STS session: the requested ``DurationSeconds`` (default 1 h), at most the
  role's ``MaxSessionDuration`` (1-12 h) (AWS STS API Reference,
  "AssumeRoleWithWebIdentity",
  https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRoleWithWebIdentity.html);
  sessions issued before a role's session-revocation policy (an inline Deny
  on ``aws:TokenIssueTime``, :attr:`graphkit.model.CloudRole.sessions_revoked_before`)
  are dead (AWS IAM User Guide, "Revoking IAM role temporary security
  credentials",
  https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html);
- just-in-time runner configuration: single use (GitHub REST "Create
  configuration for a just-in-time runner for an organization",
  https://docs.github.com/en/rest/actions/self-hosted-runners#create-configuration-for-a-just-in-time-runner-for-an-organization):
  once used, the runner it registered is what matters; unused, it still
  registers one runner.
"""

from __future__ import annotations

import json

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphkit.errors import InputError, validation_problems
from graphkit.graph import Graph
from graphkit.model import CloudRole, RevocationAction

__all__ = ["ISSUED_SCHEMA", "LIFETIMES", "Issued", "IssuedFile", "TokenKind", "TokenStatus", "classify",
           "classify_all", "load_issued", "parse_time", "session_notes"]

ISSUED_SCHEMA = "graphkit.issued-tokens/v1"


class TokenKind(StrEnum):
    """Kinds of short-lived tokens and sessions whose issue times matter."""

    REGISTRATION_TOKEN = "registration_token"
    GITHUB_TOKEN = "github_token"
    OIDC_TOKEN = "oidc_token"
    STS_SESSION = "sts_session"
    JIT_CONFIG = "jit_config"


@dataclass(frozen=True, slots=True)
class _Lifetime:
    #: upper bound in seconds (None: single use, no time bound)
    seconds: int | None
    doc: str
    #: what cuts a live one
    action: RevocationAction | None
    #: the lifetime, as the documentation states it
    text: str
    #: what to do about a live one
    todo: str


#: Documented lifetime, documentation URL and the action that cuts a live one, per kind (module docstring).
LIFETIMES: dict[TokenKind, _Lifetime] = {
    TokenKind.REGISTRATION_TOKEN: _Lifetime(
        3600, "https://docs.github.com/en/rest/actions/self-hosted-runners#create-a-registration-token-for-an-organization",
        RevocationAction.REMOVE_RUNNER_REGISTRATION, "1 hour", "remove every runner registered with it"),
    TokenKind.GITHUB_TOKEN: _Lifetime(
        86400, "https://docs.github.com/en/actions/security-for-github-actions/security-guides/automatic-token-authentication",
        RevocationAction.REDUCE_TOKEN_PERMISSIONS, "until the job ends, at most 24 hours", "cancel the run"),
    TokenKind.OIDC_TOKEN: _Lifetime(
        300, "https://docs.github.com/en/actions/security-for-github-actions/security-hardening-your-deployments/about-security-hardening-with-openid-connect",
        RevocationAction.NARROW_TRUST_POLICY, "about 5 minutes (its exp)", "narrow the trust it can assume"),
    TokenKind.STS_SESSION: _Lifetime(
        43200, "https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRoleWithWebIdentity.html",
        RevocationAction.REVOKE_ROLE_SESSIONS, "the requested duration, at most the role's MaxSessionDuration",
        "revoke the role's sessions once nothing mints new ones"),
    TokenKind.JIT_CONFIG: _Lifetime(
        None, "https://docs.github.com/en/rest/actions/self-hosted-runners#create-configuration-for-a-just-in-time-runner-for-an-organization",
        RevocationAction.REMOVE_RUNNER_REGISTRATION, "single use", "remove the runner it registers"),
}
_REVOKE_DOC = "https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html"


def parse_time(text: str) -> datetime:
    """An ISO 8601 time as an aware UTC datetime (a naive one is read as UTC; ``Z`` accepted).

    Raises
    ------
    ValueError
        for text that is no ISO 8601 time.

    >>> parse_time("2026-12-01T18:00:00Z").isoformat()
    '2026-12-01T18:00:00+00:00'
    """
    value = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


class Issued(BaseModel):
    """One issued token or session (never its value).

    ``subject``: the graph node it belongs to (the runner group or runner for
    registration tokens and JIT configs, the job for ``GITHUB_TOKEN`` and OIDC
    tokens, the cloud role for STS sessions).  ``ended_at``: when the job
    ended (``GITHUB_TOKEN``).  ``duration_seconds``: the session's requested
    duration (STS).  ``used``: a JIT configuration already used.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: TokenKind
    subject: str = Field(min_length=1)
    issued_at: datetime
    ended_at: datetime | None = None
    duration_seconds: int | None = Field(None, ge=1)
    used: bool | None = None
    note: str | None = None


class IssuedFile(BaseModel):
    """Top level of a ``graphkit.issued-tokens/v1`` file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_: Literal["graphkit.issued-tokens/v1"] = Field(alias="schema")
    tokens: list[Issued] = Field(default_factory=list)


def issued_schema() -> dict[str, Any]:
    """The JSON Schema of a ``graphkit.issued-tokens/v1`` file (``schemas/issued-tokens.schema.json``)."""
    schema = IssuedFile.model_json_schema(by_alias=True)
    schema.update({"$schema": "https://json-schema.org/draft/2020-12/schema",
                   "$id": "https://graphkit.dev/schemas/issued-tokens.schema.json",
                   "title": "graphkit issued tokens (graphkit.issued-tokens/v1)",
                   "description": "Tokens and sessions known to have been issued (never their values), read by "
                   "blast-radius --tokens and classified live, expired, revoked, used, before_compromise or "
                   "problem at --now (graphkit.analysis.timeline)."})
    return schema


def issued_schema_text() -> str:
    """``schemas/issued-tokens.schema.json`` as it must be (sorted keys, 2-space indent, trailing newline)."""
    return json.dumps(issued_schema(), indent=2, sort_keys=True) + "\n"


def load_issued(path: str | Path) -> list[Issued]:
    """Read a ``graphkit.issued-tokens/v1`` YAML or JSON file.

    Raises
    ------
    InputError
        naming the file and place for a malformed file (never quoting a value).
    """
    p = Path(path)
    try:
        data: Any = yaml.safe_load(p.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
        raise InputError(str(p), "", f"cannot read: {type(exc).__name__}") from None
    if not isinstance(data, dict):  # pydantic would name its model ("instance of IssuedFile")
        raise InputError(str(p), "", f"expected a mapping (schema: graphkit.issued-tokens/v1, tokens: [...]), got "
                         f"{'nothing' if data is None else type(data).__name__.replace('str', 'text')}")
    try:
        tokens = IssuedFile.model_validate(data).tokens
    except ValidationError as exc:
        raise _issued_error(str(p), exc) from None
    return [_shown(t) for t in tokens]


#: Errors of one tokens file its message lists; the others are counted.
MAX_LISTED_ERRORS = 10


def _issued_error(file: str, exc: ValidationError) -> InputError:
    """Every error of a tokens file in one :class:`InputError` (its place the first's; the reason lists up to
    :data:`MAX_LISTED_ERRORS` as ``place: reason`` and counts the rest), never a value
    (:func:`graphkit.errors.validation_problems`)."""
    said = validation_problems(file, exc)
    listed = "; ".join(f"{e.place}: {e.reason}" for e in said[1:MAX_LISTED_ERRORS])
    more = len(said) - MAX_LISTED_ERRORS
    reason = said[0].reason + (f"; {len(said) - 1} more error(s): {listed}" if listed else "") + (
        f" (and {more} more)" if more > 0 else "")
    return InputError(file, said[0].place, reason)


def _shown(issued: Issued) -> Issued:
    """``issued`` with every credential written in its ``subject`` or ``note`` replaced by ``***`` and its keyed
    fingerprint (:func:`graphkit.redact.mark_credentials`, as the ids of a graph are scrubbed of one): a tokens
    file naming a token where a node id belongs never shows the value (tables, JSON, plan)."""
    from graphkit.redact import mark_credentials

    subject, note = mark_credentials(issued.subject), mark_credentials(issued.note or "") or issued.note
    if subject == issued.subject and note == issued.note:
        return issued
    return issued.model_copy(update={"subject": subject, "note": note})


@dataclass(frozen=True, slots=True)
class TokenStatus:
    """What one issued token is at ``now``.

    ``status``: ``live`` (needs its step), ``expired`` (no action),
    ``revoked`` (a session-revocation policy already kills it),
    ``used`` (a JIT configuration: remove the runner it registered), or
    ``before_compromise`` (issued before ``--compromised-since``: not the
    attacker's), or ``problem`` (a record graphkit cannot classify: its
    subject is not in the graph, or it was issued after ``now``).  ``expires_at``: the documented upper bound (None: no time
    bound).  ``action``: the revocation action a live one needs.
    """

    issued: Issued
    status: Literal["problem", "live", "expired", "revoked", "used", "before_compromise"]
    expires_at: datetime | None
    reason: str
    doc: str
    action: RevocationAction | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        i = self.issued
        return {"kind": i.kind.value, "subject": i.subject, "issued_at": _iso(i.issued_at),
                "expires_at": _iso(self.expires_at) if self.expires_at else None, "status": self.status,
                "reason": self.reason, "doc": self.doc, "action": self.action.value if self.action else None}


def _iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _aware(t: datetime) -> datetime:
    return t.replace(tzinfo=timezone.utc) if t.tzinfo is None else t


def _expiry(issued: Issued, role: CloudRole | None) -> datetime | None:
    spec = LIFETIMES[issued.kind]
    start = _aware(issued.issued_at)
    if spec.seconds is None:
        return None
    seconds = spec.seconds
    if issued.kind is TokenKind.STS_SESSION:
        cap = role.max_session_seconds if role is not None and role.max_session_seconds else spec.seconds
        seconds = min(issued.duration_seconds or cap, cap)
    end = start + timedelta(seconds=seconds)
    if issued.kind is TokenKind.GITHUB_TOKEN and issued.ended_at is not None:
        end = min(end, _aware(issued.ended_at))
    return end


def classify(issued: Issued, *, now: datetime, compromised_since: datetime | None = None,
             graph: Graph | None = None) -> TokenStatus:
    """Classify one issued token at ``now`` (rules and sources in the module docstring).

    Parameters
    ----------
    issued
        the record.
    now
        the time of the analysis (aware, UTC).
    compromised_since
        the start of the compromise: anything issued before is not the attacker's.
    graph
        read for STS sessions: the role's ``max_session_seconds`` and ``sessions_revoked_before``.

    Returns
    -------
    TokenStatus
    """
    spec = LIFETIMES[issued.kind]
    node = graph.node(issued.subject) if graph is not None and issued.subject in graph else None
    role = node if isinstance(node, CloudRole) else None
    expires = _expiry(issued, role)
    start = _aware(issued.issued_at)

    def status(kind: str, reason: str, doc: str = spec.doc, action: RevocationAction | None = None) -> TokenStatus:
        return TokenStatus(issued, kind, expires, reason, doc, action)  # type: ignore[arg-type]

    if start > now:
        return status("problem", f"issued {_iso(start)}, after the time of the analysis ({_iso(now)}): check the "
                      "record or --now")
    if graph is not None and node is None:
        return status("problem", "its subject is not in the graph: check the id (no step can be planned for it)")
    if compromised_since is not None and start < compromised_since:
        return status("before_compromise", f"issued {_iso(start)}, before the compromise ({_iso(compromised_since)})")
    if role is not None and role.sessions_revoked_before and start < parse_time(role.sessions_revoked_before):
        return status("revoked", f"issued before the role's session-revocation policy "
                      f"({role.sessions_revoked_before}): dead; the trust path that mints new sessions stays open "
                      "until it is narrowed", _REVOKE_DOC)
    if issued.kind is TokenKind.JIT_CONFIG:
        if issued.used:
            return status("used", "single use, already used: remove the runner it registered", action=spec.action)
        return status("live", "single use, not used yet: it still registers one runner", action=spec.action)
    assert expires is not None
    if expires <= now:
        return status("expired", f"expired {_iso(expires)} ({spec.text}): no action needed")
    return status("live", f"live until {_iso(expires)} ({spec.text}): {spec.todo}", action=spec.action)


def classify_all(issued: Iterable[Issued], *, now: datetime, compromised_since: datetime | None = None,
                 graph: Graph | None = None) -> list[TokenStatus]:
    """:func:`classify` every record, ordered live first, then by expiry and subject."""
    order = {"problem": 0, "live": 1, "used": 2, "revoked": 3, "expired": 4, "before_compromise": 5}
    out = [classify(i, now=now, compromised_since=compromised_since, graph=graph) for i in issued]
    far = datetime.max.replace(tzinfo=timezone.utc)
    return sorted(out, key=lambda s: (order[s.status], s.expires_at or far, s.issued.subject, s.issued.kind.value))



def session_notes(graph: Graph, reached: Iterable[str], narrowed: dict[str, int]) -> list[str]:
    """What a recognised session-revocation policy means for each reached role that has one.

    Parameters
    ----------
    graph
        the graph.
    reached
        ids of the blast radius.
    narrowed
        role id -> rank of the plan step that narrows its trust policy.

    Returns
    -------
    list of str
        one line per role with ``sessions_revoked_before``: older sessions are
        dead, and whether the trust path that mints new ones is still open.
    """
    out = []
    for rid in sorted(reached):
        role = graph.node(rid) if rid in graph else None
        if not isinstance(role, CloudRole) or not role.sessions_revoked_before:
            continue
        fix = (f"step {narrowed[rid]} narrows it" if rid in narrowed
               else "no step of this plan narrows it: narrow it, then revoke the sessions again")
        out.append(f"{role.name}: sessions issued before {role.sessions_revoked_before} are dead (inline Deny on "
                   f"aws:TokenIssueTime, {_REVOKE_DOC}); the trust path that mints new sessions is still open "
                   f"({fix})")
    return out
