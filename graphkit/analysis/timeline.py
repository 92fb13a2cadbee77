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
  https://docs.github.com/en/rest/actions/self-hosted-runners#create-a-registration-token-for-an-organization).
  Its expiry does not remove what it registered: a runner stays registered until it is removed (GitHub REST
  "Delete a self-hosted runner from an organization", same page; GitHub docs "Removing self-hosted runners",
  https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/removing-self-hosted-runners),
  so one issued in the compromise and expired is ``runners_remain``: list the runners of its scope and remove
  the unknown ones registered while it was valid;
- ``GITHUB_TOKEN``: until the job ends, at most 24 hours (GitHub docs
  "Automatic token authentication",
  https://docs.github.com/en/actions/security-for-github-actions/security-guides/automatic-token-authentication);
- GitHub OIDC JWT: about 5 minutes (its ``exp``; the duration is not stated
  in the docs, "OpenID Connect reference",
  https://docs.github.com/en/actions/security-for-github-actions/security-hardening-your-deployments/about-security-hardening-with-openid-connect);
- STS session: the requested ``DurationSeconds`` (default 1 h), at most the
  role's ``MaxSessionDuration`` (1-12 h) (AWS STS API Reference,
  "AssumeRoleWithWebIdentity",
  https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRoleWithWebIdentity.html), and at most 1 hour
  for a session assumed with another role's session (``chained``: role chaining, whatever the role's
  ``MaxSessionDuration``; AWS IAM User Guide "Roles terms and concepts",
  https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_terms-and-concepts.html#iam-term-role-chaining);
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

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from graphkit.errors import InputError, validation_problems
from graphkit.graph import Graph
from graphkit.model import LIFETIME_SECONDS, CloudRole, Lifetime, NodeKind, RevocationAction, ids

__all__ = ["ISSUED_SCHEMA", "LIFETIMES", "SUBJECT_KINDS", "Issued", "IssuedFile", "TokenKind", "TokenStatus",
           "classify", "classify_all", "load_issued", "parse_time", "record_problem", "session_notes"]

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
#: Upper bound of a role-chaining session (module docstring): 1 hour, whatever the role's MaxSessionDuration.
CHAINED_SESSION_SECONDS = int(LIFETIME_SECONDS[Lifetime.CHAINED_SESSION] or 3600)
_CHAINED_TEXT = "the requested duration, at most 1 hour: role chaining"

#: The node kinds a record's subject may be, per token kind: a registration token or JIT configuration registers a
#: runner (its runner group, or the runner itself), a ``GITHUB_TOKEN`` or OIDC token belongs to one job, an STS
#: session to the cloud role it assumed (sources: :data:`LIFETIMES`).  Another subject is a problem of that record.
SUBJECT_KINDS: dict[TokenKind, tuple[NodeKind, ...]] = {
    TokenKind.REGISTRATION_TOKEN: (NodeKind.RUNNER_GROUP, NodeKind.RUNNER),
    TokenKind.GITHUB_TOKEN: (NodeKind.JOB,),
    TokenKind.OIDC_TOKEN: (NodeKind.JOB,),
    TokenKind.STS_SESSION: (NodeKind.CLOUD_ROLE,),
    TokenKind.JIT_CONFIG: (NodeKind.RUNNER_GROUP, NodeKind.RUNNER),
}


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
    duration (STS).  ``chained``: an STS session assumed with another role's session credentials (role chaining:
    a CloudTrail ``AssumeRole`` event whose ``userIdentity.type`` is ``AssumedRole``), at most 1 hour.  ``used``: a
    JIT configuration already used.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: TokenKind
    subject: str = Field(min_length=1)
    issued_at: datetime
    ended_at: datetime | None = None
    duration_seconds: int | None = Field(None, ge=1)
    chained: bool | None = None
    used: bool | None = None
    note: str | None = None
    #: where the record is in its file (``tokens[3]``), for problems; None for a record built in code
    _place: str | None = PrivateAttr(None)


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
                   "blast-radius --tokens and classified live, expired, revoked, used, runners_remain, "
                   "before_compromise or "
                   "problem at --now (graphkit.analysis.timeline)."})
    return schema


def issued_schema_text() -> str:
    """``schemas/issued-tokens.schema.json`` as it must be (sorted keys, 2-space indent, trailing newline)."""
    return json.dumps(issued_schema(), indent=2, sort_keys=True) + "\n"


def load_issued(path: str | Path, problems: list[InputError] | None = None) -> list[Issued]:
    """Read a ``graphkit.issued-tokens/v1`` YAML or JSON file, record by record.

    Parameters
    ----------
    path
        the file.
    problems
        when a list, each record that does not validate (a wrong ``kind``, a time that is no ISO 8601 time, an
        unknown field) is appended to it, one :class:`InputError` per error, its place ``tokens[i].field``, and
        left out; every other record is returned.  When None, they are raised together (one ``InputError``: the
        first error's place, the others listed up to :data:`MAX_LISTED_ERRORS`).

    Returns
    -------
    list of Issued
        the valid records in file order, each knowing its place (``tokens[i]``) for the problems
        :func:`classify` finds in it (:func:`record_problem`).

    Raises
    ------
    InputError
        naming the file and place (never quoting a value) for a file that is not a regular file, is larger than
        ``max_file_bytes`` (:func:`graphkit.ingestor.read_bytes`), or is not a tokens file as a whole (not a
        mapping, another ``schema``, ``tokens`` not a list, an unknown top-level key), or a bad record when
        ``problems`` is None.
    """
    from graphkit.ingestor import read_bytes
    p = Path(path)
    raw = read_bytes(p)  # a regular file of at most max_file_bytes: a FIFO or /dev/zero is never read
    try:
        data: Any = yaml.safe_load(raw.decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise InputError(str(p), "", f"cannot read: {type(exc).__name__}") from None
    if not isinstance(data, dict):  # pydantic would name its model ("instance of IssuedFile")
        raise InputError(str(p), "", f"expected a mapping (schema: graphkit.issued-tokens/v1, tokens: [...]), got "
                         f"{'nothing' if data is None else type(data).__name__.replace('str', 'text')}")
    records = data.get("tokens")
    try:  # the file as a whole: schema, top-level keys, tokens a list
        IssuedFile.model_validate({**data, "tokens": [] if isinstance(records, list) else records})
    except ValidationError as exc:
        raise _issued_error(validation_problems(str(p), exc)) from None
    out, bad = [], []
    for i, raw in enumerate(records or ()):
        try:
            record = Issued.model_validate(raw)
        except ValidationError as exc:
            bad += validation_problems(str(p), exc, f"tokens[{i}]")
            continue
        record._place = f"tokens[{i}]"
        out.append(_shown(record))
    if bad and problems is None:
        raise _issued_error(bad)
    if problems is not None:
        problems.extend(bad)
    return out


#: Errors of one tokens file its message lists; the others are counted.
MAX_LISTED_ERRORS = 10


def _issued_error(said: list[InputError]) -> InputError:
    """Every error of a tokens file in one :class:`InputError` (its place the first's; the reason lists up to
    :data:`MAX_LISTED_ERRORS` as ``place: reason`` and counts the rest), never a value
    (:func:`graphkit.errors.validation_problems`)."""
    listed = "; ".join(f"{e.place}: {e.reason}" for e in said[1:MAX_LISTED_ERRORS])
    more = len(said) - MAX_LISTED_ERRORS
    reason = said[0].reason + (f"; {len(said) - 1} more error(s): {listed}" if listed else "") + (
        f" (and {more} more)" if more > 0 else "")
    return InputError(said[0].file, said[0].place, reason)


def _subject_kind(subject: str) -> NodeKind | None:
    """The node kind a subject id's prefix names (``runner_group:acme/x`` -> ``runner_group``), None for none."""
    return next((k for k, prefix in ids.PREFIXES.items() if subject.startswith(prefix)), None)


def record_problem(issued: Issued) -> str | None:
    """What makes a record senseless whatever the graph holds, or None: a subject of a kind its token kind
    cannot have (:data:`SUBJECT_KINDS`), or an ``ended_at`` before ``issued_at``.  The reason starts with the
    record's place (``tokens[3]: ...``) and names kinds and fields, never a value.

    >>> record_problem(Issued(kind="sts_session", subject="job:acme/app/.github/workflows/x.yml#b",
    ...                       issued_at="2026-12-01T10:00:00Z"))
    'sts_session subject must be a cloud_role id, not a job id: check the record'
    """
    allowed = SUBJECT_KINDS[issued.kind]
    kind = _subject_kind(issued.subject)
    where = f"{issued._place}: " if issued._place else ""
    if kind not in allowed:
        got = f"a {kind.value} id" if kind is not None else "no node id"
        return (f"{where}{issued.kind.value} subject must be a {' or '.join(k.value for k in allowed)} id, "
                f"not {got}: check the record")
    if issued.ended_at is not None and _aware(issued.ended_at) < _aware(issued.issued_at):
        return f"{where}ended_at is before issued_at: check the record (no lifetime can be computed)"
    return None


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
    ``used`` (a JIT configuration: remove the runner it registered),
    ``runners_remain`` (an expired registration token issued in the compromise: the runners registered with it
    stay registered until removed), or
    ``before_compromise`` (issued before ``--compromised-since``: not the
    attacker's), or ``problem`` (a record graphkit cannot classify: its
    subject is not in the graph or of a kind its token cannot have, it ended before it was issued
    (:func:`record_problem`), or it was issued after ``now``).  ``expires_at``: the documented upper bound (None: no time
    bound).  ``action``: the revocation action a live one needs.
    """

    issued: Issued
    status: Literal["problem", "live", "expired", "revoked", "used", "runners_remain", "before_compromise"]
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
        if issued.chained:
            cap = min(cap, CHAINED_SESSION_SECONDS)
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

    senseless = record_problem(issued)
    if senseless is not None:
        return status("problem", senseless)
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
    return _by_expiry(issued, spec, start, expires, now, status)


def _by_expiry(issued: Issued, spec: _Lifetime, start: datetime, expires: datetime | None, now: datetime,
               status: Callable[..., TokenStatus]) -> TokenStatus:
    """The status of an attacker's token by its use or expiry (:func:`classify`'s last rules)."""
    if issued.kind is TokenKind.JIT_CONFIG:
        if issued.used:
            return status("used", "single use, already used: remove the runner it registered", action=spec.action)
        return status("live", "single use, not used yet: it still registers one runner", action=spec.action)
    assert expires is not None
    if expires <= now and issued.kind is TokenKind.REGISTRATION_TOKEN:
        # the token expiring does not remove the runners registered with it (module docstring)
        return status("runners_remain", f"expired {_iso(expires)} ({spec.text}), but a runner registered with it "
                      f"between {_iso(start)} and {_iso(expires)} stays registered: list the runners of its scope "
                      "and remove those registered then that you do not know", action=spec.action)
    text = _CHAINED_TEXT if issued.kind is TokenKind.STS_SESSION and issued.chained else spec.text
    if expires <= now:
        return status("expired", f"expired {_iso(expires)} ({text}): no action needed")
    return status("live", f"live until {_iso(expires)} ({text}): {spec.todo}", action=spec.action)


def classify_all(issued: Iterable[Issued], *, now: datetime, compromised_since: datetime | None = None,
                 graph: Graph | None = None) -> list[TokenStatus]:
    """:func:`classify` every record, ordered live first, then by expiry and subject."""
    order = {"problem": 0, "live": 1, "used": 2, "runners_remain": 3, "revoked": 4, "expired": 5, "before_compromise": 6}
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
