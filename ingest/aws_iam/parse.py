"""Text of one IAM file -> :class:`~ingest.aws_iam.models.ParsedFile` -- **pure, no I/O**.

Recognised documents:

- ``aws iam get-account-authorization-details`` output (``UserDetailList``,
  ``GroupDetailList``, ``RoleDetailList``, ``Policies`` with
  ``PolicyVersionList``); optionally ``OpenIDConnectProviderList``
  (``[{Arn, Url, ClientIDList}]``, from ``list/get-open-id-connect-provider``)
  (https://docs.aws.amazon.com/cli/latest/reference/iam/get-account-authorization-details.html);
- ``aws iam get-role`` output (``{"Role": {...}}``);
- an IAM credential report (``{"Content": csv, "ReportFormat": "text/csv"}``):
  active access keys per user
  (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_getting-report.html);
- a single policy document (``{"Statement": ...}``), e.g. a Terraform
  template with ``${...}`` placeholders (kept as placeholders);
- a CloudFormation template: ``AWS::IAM::Role`` trust policies and
  ``AWS::IAM::OIDCProvider`` resources (``!Sub``/``!Ref`` resolved from
  parameter defaults, the rest kept as ``${...}`` placeholders);
- an Organizations export (``OrganizationPolicies``: SCPs and RCPs with their
  targets, :mod:`ingest.aws_iam.organizations`).

Every JSON object is read remembering keys it held twice (``ParsedFile.duplicates``); a
Terraform template that is not JSON is reported with the way to render it (:data:`RENDER_HINT`).

Malformed input raises :class:`~graphkit.errors.InputError` naming the file
and the JSON path; one bad principal or policy is reported and left out, the
rest of the file is used.  A document of another kind raises
:class:`~graphkit.ingestor.NotRecognised`.  Every ARN that becomes part of a
node id is checked here with the :mod:`graphkit.model.ids` constructors, so
that a malformed one is a problem naming its place.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import yaml

from graphkit.errors import InputError
from graphkit.limits import current, too_many
from graphkit.iam import PolicyError, Statement, parse_policy
from graphkit.ingestor import NotRecognised
from graphkit.model import ids
from graphkit.redact import redact_policy_secrets
from ingest._json_lines import json_lines
from ingest._yaml import Loader, check_depth, load_yaml, type_name
from ingest.aws_iam.organizations import parse_organizations
from ingest.aws_iam.models import (ARN, PLACEHOLDER, ManagedPolicy, ParsedFile, PolicyFile, Principal, Provider,
                                   account_of)

__all__ = ["parse"]

T = TypeVar("T")


def parse(text: str, file: str, *, parameters: dict[str, str] | None = None, id_path: str | None = None) -> ParsedFile:
    """Parse one file's text (pure).

    Parameters
    ----------
    text : str
        JSON (or YAML for CloudFormation templates).
    file : str
        The path as given, for evidence and errors.
    parameters : dict, optional
        CloudFormation parameter values (override defaults).
    id_path : str, optional
        The file's path relative to its input root (what node ids of documents and template providers embed,
        so that they do not depend on the working directory); default ``file``.

    Returns
    -------
    ParsedFile
        ``kind``: ``authorization-details``, ``get-role``, ``credential-report``,
        ``policy-document`` or ``cloudformation``.

    Raises
    ------
    NotRecognised
        valid JSON/YAML of another kind (an ``InputError``).
    InputError
        not JSON/YAML, or a malformed document (a malformed single principal
        or policy is a ``problems`` entry instead).

    Examples
    --------
    >>> p = parse('{"Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "arn:aws:s3:::${bucket}/*"}]}', "t.json")
    >>> p.kind, p.documents[0].placeholders
    ('policy-document', ['bucket'])
    """
    data, lines = _load(text, file)
    result = _parse_kind(data, text, file, parameters, id_path or file)
    result.duplicates = duplicate_keys(data)
    result.lines = lines
    return result


def _parse_kind(data: dict[str, Any], text: str, file: str, parameters: dict[str, str] | None,
                key: str) -> ParsedFile:
    """The :func:`parse` of one loaded document, by kind."""
    try:
        if "OrganizationPolicies" in data:
            return parse_organizations(data, file)
        if any(k in data for k in ("RoleDetailList", "UserDetailList", "GroupDetailList", "Policies")):
            return _auth_details(data, file)
        if isinstance(data.get("Role"), dict):
            role = _principal("role", data["Role"], file, "Role")
            return ParsedFile(file=file, kind="get-role", principals=[role], problems=list(role.problems))
        if "Content" in data and "ReportFormat" in data:
            return _credential_report(data, file)
        if "Statement" in data:
            return ParsedFile(file=file, kind="policy-document", documents=[_policy_document(data, text, file, key)])
        if "Resources" in data or "AWSTemplateFormatVersion" in data:
            return _cloudformation(data, file, parameters, key)
        if "OpenIDConnectProviderList" in data:
            return _auth_details(data, file)
    except PolicyError as exc:
        raise InputError(file, exc.place, exc.reason) from None
    raise NotRecognised(file, "", "not a recognised IAM document (expected get-account-authorization-details, "
                               "get-role, a credential report, a policy document or a CloudFormation template)")


# --------------------------------------------------------------------------- text


class _CfnLoader(Loader):
    """The one bounded YAML loader (:class:`ingest._yaml.Loader`), reading CloudFormation short tags (``!Sub x`` -> ``{"Fn::Sub": x}``)."""


def _cfn_tag(loader: Loader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    name = "Ref" if suffix == "Ref" else f"Fn::{suffix}"
    return {name: value}


_CfnLoader.add_multi_constructor("!", _cfn_tag)


#: Terraform template directives and interpolations (``%{ if ... }``, ``${var.x}``): "Strings and Templates",
#: https://developer.hashicorp.com/terraform/language/expressions/strings
TEMPLATE = re.compile(r"%\{|\$\{")

#: How to feed the rendered policy of a Terraform template (README "AWS IAM").
RENDER_HINT = ("render it first and read the result: `terraform show -json` (state) or `terraform show -json PLANFILE` "
               "holds each aws_iam_role's assume_role_policy and each aws_iam_policy's policy as rendered JSON, e.g. "
               "`terraform show -json | jq -r '.values.root_module.resources[] | select(.type == \"aws_iam_role\") "
               "| .values.assume_role_policy'`; or `terraform console` with templatefile(...)")


def _load(text: str, file: str) -> tuple[dict[str, Any], dict[str, int]]:
    """JSON, else YAML with CloudFormation tags, and its line map (:func:`ingest._json_lines.json_lines`,
    :func:`ingest._yaml.load_yaml`); the top level must be a mapping.

    A file that is neither and holds Terraform template syntax (``%{ if }``, ``${var}``) is reported as a template,
    with the documented way to feed its rendered policy (:data:`RENDER_HINT`).
    """
    try:
        data = check_depth(json.loads(text, object_pairs_hook=_Pairs), file=file)
        lines = json_lines(text) if isinstance(data, dict) else {}
    except RecursionError:
        raise InputError(file, "", too_many("max_depth", current().max_depth, "nesting too deep")) from None
    except json.JSONDecodeError as exc:
        yaml_error: InputError | None = None
        try:
            data, lines = load_yaml(text, file=file, loader=_CfnLoader)
        except InputError as yexc:
            if yexc.reason.startswith("refused"):  # a limit: say which
                raise
            data, yaml_error = None, yexc
        if not isinstance(data, dict) and TEMPLATE.search(text):
            raise InputError(file, f"line {exc.lineno}", f"a Terraform template, not a policy document: "
                             f"{RENDER_HINT}") from None
        if yaml_error is not None:  # a YAML document (CloudFormation) gets the YAML reason, JSON the JSON one
            if not text.lstrip().startswith(("{", "[")):
                raise yaml_error from None
            raise InputError(file, f"line {exc.lineno}", f"not JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise InputError(file, "", "not an IAM document (top level is not a mapping)")
    return data, lines


#: Keys whose string value is a policy document (IAM API output keeps them URL-encoded).
_DOCUMENT_KEYS = ("PolicyDocument", "Document", "AssumeRolePolicyDocument")


class _Pairs(dict):
    """A JSON object that remembers the keys it held more than once (the last value won, as in most parsers) and
    every value each of them held (``alternatives``, in order)."""

    duplicates: list[str]
    alternatives: dict[str, list[Any]]

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        seen: set[str] = set()
        self.duplicates = []
        for k, _ in pairs:
            if k in seen and k not in self.duplicates:
                self.duplicates.append(k)
            seen.add(k)
        self.alternatives = {k: [v for key, v in pairs if key == k] for k in self.duplicates}


#: At most this many readings of one policy document with duplicate keys (:func:`_readings`).
MAX_READINGS = 16


def _readings(data: Any, place: str) -> list[Any]:
    """Every document ``data`` may stand for when an object holds a key twice: one per choice of value for each
    duplicated key (RFC 8259 section 4: names SHOULD be unique, and which value a receiver keeps is unpredictable,
    https://www.rfc-editor.org/rfc/rfc8259#section-4); just ``[data]`` without duplicates.

    Raises
    ------
    PolicyError
        more than :data:`MAX_READINGS` readings (the document is then unknown).

    >>> doc = json.loads('{"Effect": "Allow", "Effect": "Deny"}', object_pairs_hook=_Pairs)
    >>> [r["Effect"] for r in _readings(doc, "")]
    ['Allow', 'Deny']
    """
    if isinstance(data, dict):
        out: list[dict[str, Any]] = [{}]
        alts = getattr(data, "alternatives", {})
        for k, v in data.items():
            options = [r for alt in alts.get(k, [v]) for r in _readings(alt, f"{place}.{k}" if place else k)]
            out = [{**o, k: r} for o in out for r in options]
            if len(out) > MAX_READINGS:
                raise PolicyError(place, f"more than {MAX_READINGS} readings of its duplicate keys")
        return out
    if isinstance(data, list):
        lists: list[list[Any]] = [[]]
        for i, v in enumerate(data):
            lists = [o + [r] for o in lists for r in _readings(v, f"{place}[{i}]")]
            if len(lists) > MAX_READINGS:
                raise PolicyError(place, f"more than {MAX_READINGS} readings of its duplicate keys")
        return lists
    return [data]


def duplicate_keys(data: Any, place: str = "") -> list[tuple[str, str]]:
    """``(JSON path, key)`` of every key an object held twice (read with :class:`_Pairs`).

    >>> duplicate_keys(json.loads('{"Statement": [{"Effect": "Allow", "Effect": "Deny"}]}', object_pairs_hook=_Pairs))
    [('Statement[0]', 'Effect')]
    """
    out: list[tuple[str, str]] = []
    if isinstance(data, str) and place.endswith(_DOCUMENT_KEYS) and data.lstrip()[:3] in ("%7B", "%7b", "{"):
        try:  # a policy document embedded as (URL-encoded) JSON text
            data = json.loads(urllib.parse.unquote(data) if data.lstrip().startswith("%") else data,
                              object_pairs_hook=_Pairs)
        except json.JSONDecodeError:
            return out
    if isinstance(data, dict):
        out += [(place, k) for k in getattr(data, "duplicates", [])]
        for k, v in data.items():
            out += duplicate_keys(v, f"{place}.{k}" if place else str(k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += duplicate_keys(v, f"{place}[{i}]")
    return out


def _doc(raw: Any, place: str, *, template: bool = False) -> tuple[dict[str, Any], list[Statement]]:
    """A policy document (a mapping, JSON text, or URL-encoded JSON as the IAM API returns it) and its statements;
    in a ``template`` (Terraform, CloudFormation) ``${...}`` are the template's placeholders, not IAM policy
    variables.  An object holding a key twice is read as its last value (see :func:`_read_doc`)."""
    return _read_doc(raw, place, template=template)[:2]


#: The condition that marks a statement only some readings of a document holding a key twice have
#: (:func:`_read_doc`): a key no request carries, so the statement only possibly applies -- an Allow grants
#: ``possible``, a Deny only possibly cuts (a conditional statement of an identity policy, AWS IAM User Guide
#: "Policy evaluation logic").  Not an AWS key: it lives in the parsed statements, never in a stored document.
UNCERTAIN_CONDITION = ("Null", "graphkit:DuplicateKeyReading")


def _read_doc(raw: Any, place: str, *, template: bool = False) -> tuple[dict[str, Any], list[Statement], bool]:
    """:func:`_doc` and whether the document holds a key twice (``uncertain``); its statements are then those of
    every reading (:func:`_readings`): one every reading has is kept as it is, one only some have is kept with
    :data:`UNCERTAIN_CONDITION` -- what any reading allows is possible, never cut by a Deny AWS may not apply."""
    raw = _loaded(raw, place)
    readings = _readings(raw, place) if duplicate_keys(raw) else None
    raw = redact_policy_secrets(raw)  # sts:ExternalId values are shared secrets: fingerprints only
    variables = False if template else None
    if readings is None:
        return raw, parse_policy(raw, place, variables=variables), False
    parsed = [parse_policy(redact_policy_secrets(r), place, variables=variables) for r in readings]
    common = [{repr(s) for s in sts} for sts in parsed]
    op, key = UNCERTAIN_CONDITION
    union: dict[str, Statement] = {}
    for sts in parsed:
        for s in sts:
            if repr(s) not in union:
                union[repr(s)] = s if all(repr(s) in c for c in common) else dataclasses.replace(
                    s, conditions={**s.conditions, op: {**s.conditions.get(op, {}), key: ("false",)}})
    return raw, list(union.values()), True


def _loaded(raw: Any, place: str) -> Any:
    """A policy document as a mapping: JSON text (or URL-encoded JSON, as the IAM API returns it) is parsed."""
    if isinstance(raw, str):
        text = urllib.parse.unquote(raw) if raw.lstrip().startswith("%") else raw
        try:
            return json.loads(text, object_pairs_hook=_Pairs)
        except json.JSONDecodeError as exc:
            raise PolicyError(place, f"policy document is not JSON: {exc.msg}") from None
    return raw


def _certain_doc(raw: Any, place: str, *, template: bool = False) -> tuple[dict[str, Any], list[Statement]]:
    """:func:`_doc` for a trust policy: a key held twice makes it unknown (:class:`PolicyError` naming the first
    duplicated key, the role's trust is then :func:`_union_document`), never narrower than what AWS may apply."""
    doc = _read_doc(raw, place, template=template)
    if doc[2]:
        where, key = duplicate_keys(_loaded(raw, place), place)[0]
        raise PolicyError(f"{where}.{key}" if where else key,
                          f"key {key!r} appears twice: which value AWS applies is unknown")
    return doc[:2]


def _union_document(raw: Any, place: str) -> dict[str, Any] | None:
    """The document of every reading of a policy holding a key twice (:func:`_readings`): each Allow statement of
    any reading, a Deny only when every reading has it; None when it holds no key twice or cannot be read.  What
    it allows is what some reading may allow (a trust read so is ``unknown``: its edges only possible)."""
    try:
        loaded = _loaded(raw, place)
        if not duplicate_keys(loaded):
            return None
        readings = [redact_policy_secrets(r) for r in _readings(loaded, place)]
        for r in readings:
            parse_policy(r, place)
    except PolicyError:
        return None
    listed = [st if isinstance(st := r.get("Statement"), list) else [st] for r in readings]
    keys = [{json.dumps(x, sort_keys=True) for x in sts} for sts in listed]
    out: dict[str, Any] = {}
    for sts in listed:
        for x in sts:
            k = json.dumps(x, sort_keys=True)
            if k not in out and (x.get("Effect") != "Deny" or all(k in ks for ks in keys)):
                out[k] = x
    version = readings[0].get("Version")
    return {**({"Version": version} if version is not None else {}), "Statement": list(out.values())}


def _list(value: Any, place: str) -> list[Any]:
    """``value`` when it is a list (``None`` is an empty one); else :class:`PolicyError` at ``place`` (the entry is
    skipped)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise PolicyError(place, f"expected a list, got {type_name(value)}")
    return value


def _opt_str(value: Any) -> str | None:
    """``value`` when it is a string, else None (an export's optional text field of another type is unknown)."""
    return value if isinstance(value, str) else None


def _top_list(out: ParsedFile, data: dict[str, Any], key: str) -> list[Any]:
    """A top-level list of an export; another type costs only that list (a problem of ``out`` naming file and
    key, the other lists are read)."""
    try:
        return _list(data.get(key), key)
    except PolicyError as exc:
        out.problems.append(InputError(out.file, exc.place, f"left out: {exc.reason}"))
        return []


def _checked(make: Callable[[str], str], arn: str, place: str, what: str) -> str:
    """``arn`` once the id constructor ``make`` accepts it; else :class:`PolicyError` at ``place``."""
    try:
        make(arn)
    except ids.IdError as exc:
        raise PolicyError(place, f"{what} {arn!r} cannot be a node id ({exc})") from None
    return arn


# --------------------------------------------------------------------------- authorization details


_INLINE_KEY = {"role": "RolePolicyList", "user": "UserPolicyList", "group": "GroupPolicyList"}
_PRINCIPAL_IDS: dict[str, Callable[[str], str]] = {"role": lambda arn: ids.cloud_role("aws", arn),
                                                   "user": ids.cloud_user, "group": ids.cloud_group}


def _principal(kind: str, entry: Any, file: str, place: str) -> Principal:
    """One ``RoleDetailList``/``UserDetailList``/``GroupDetailList`` entry (or ``get-role``'s ``Role``).

    Only a missing identity (``Arn``, name) loses the entry; a bad inline policy, attachment or trust document
    costs only that part (``Principal.problems``, naming file, principal and JSON path).
    """
    if not isinstance(entry, dict):
        raise PolicyError(place, f"{kind} entry is not a mapping")
    arn = entry.get("Arn")
    name = entry.get(f"{kind.capitalize()}Name")
    if not isinstance(arn, str) or not ARN.match(arn) or not isinstance(name, str):
        raise PolicyError(place, f"{kind} entry without a valid Arn and {kind.capitalize()}Name")
    _checked(_PRINCIPAL_IDS[kind], arn, f"{place}.Arn", f"{kind} Arn")  # e.g. past max_identifier_chars
    p = Principal(kind=kind, arn=arn, name=name, account=account_of(arn), file=file, place=place)
    p.inline = _inline_policies(p, entry, _INLINE_KEY[kind], place)
    p.managed = _attached(p, entry, place)
    pb = entry.get("PermissionsBoundary")
    if isinstance(pb, dict) and isinstance(pb.get("PermissionsBoundaryArn"), str):
        p.boundary = _checked(ids.cloud_policy, pb["PermissionsBoundaryArn"],
                              f"{place}.PermissionsBoundary.PermissionsBoundaryArn", "boundary")
    if kind == "role":
        _role_fields(p, entry, place)
    if kind == "user":
        p.groups = [g for g in _part(p, _list, [], entry.get("GroupList"), f"{place}.GroupList") if isinstance(g, str)]
    return p


def _part(p: Principal, read: Callable[..., T], default: T, *args: Any, effect: str | None = None) -> T:
    """``read(*args)``; a :class:`PolicyError` is a problem of ``p`` (naming its file, principal and place) and
    ``default`` is returned: the rest of the principal is kept.  The problem says what happened: ``effect`` (e.g.
    ``trust of role x unknown``), by default ``KIND NAME: left out`` (the part is dropped)."""
    try:
        return read(*args)
    except PolicyError as exc:
        said = effect or f"{p.kind} {p.name}: left out"
        p.problems.append(InputError(p.file, exc.place, f"{said}: {exc.reason}"))
        return default


def _inline_policies(p: Principal, entry: dict[str, Any], key: str,
                     place: str) -> list[tuple[str, list[Statement], str]]:
    out = []
    for i, pol in enumerate(_part(p, _list, [], entry.get(key), f"{place}.{key}")):
        pp = f"{place}.{key}[{i}]"
        if not isinstance(pol, dict) or "PolicyDocument" not in pol:
            _part(p, _fail, None, pp, "inline policy without PolicyDocument")
            continue
        doc = _part(p, _read_doc, None, pol["PolicyDocument"], f"{pp}.PolicyDocument")
        if doc is not None:
            out.append((str(pol.get("PolicyName") or f"inline-{i}"), doc[1], f"{pp}.PolicyDocument"))
            if doc[2]:
                p.problems.append(InputError(p.file, f"{pp}.PolicyDocument", f"{p.kind} {p.name}: a key appears "
                                             "twice: read under each of its values, grants possible"))
    return out


def _fail(place: str, reason: str) -> None:
    """Raise :class:`PolicyError` (for :func:`_part`)."""
    raise PolicyError(place, reason)


def _attachment(att: Any, ap: str) -> str:
    """One ``AttachedManagedPolicies`` entry's checked ``PolicyArn``."""
    if not isinstance(att, dict) or not isinstance(att.get("PolicyArn"), str):
        raise PolicyError(ap, "attachment without PolicyArn")
    return _checked(ids.cloud_policy, att["PolicyArn"], f"{ap}.PolicyArn", "PolicyArn")


def _attached(p: Principal, entry: dict[str, Any], place: str) -> list[str]:
    atts = _part(p, _list, [], entry.get("AttachedManagedPolicies"), f"{place}.AttachedManagedPolicies")
    found = (_part(p, _attachment, None, att, f"{place}.AttachedManagedPolicies[{i}]") for i, att in enumerate(atts))
    return [arn for arn in found if arn is not None]


def _role_fields(p: Principal, entry: dict[str, Any], place: str) -> None:
    """Trust policy, instance profiles and maximum session duration of a role.

    A trust document that cannot be read (a bad statement or condition) leaves the trust unknown (``p.trust``
    None, the node's ``trust="unknown"``): never read narrower than it is.  One holding a key twice is unknown
    too; its ``trust_document`` is then that of every reading (:func:`_union_document`).
    """
    raw = entry.get("AssumeRolePolicyDocument")
    if raw is None:
        raise PolicyError(place, "role without AssumeRolePolicyDocument")
    # the role and its permissions stay: only what the trust allows is unknown, and the problem says so
    doc = _part(p, _certain_doc, None, raw, f"{place}.AssumeRolePolicyDocument",
                effect=f"trust of role {p.name} unknown")
    if doc is not None:
        p.trust_document, p.trust = doc
    else:  # a key held twice: the trust stays unknown, evaluated over every reading (edges only possible)
        p.trust_document = _union_document(raw, f"{place}.AssumeRolePolicyDocument")
    profiles = _part(p, _list, [], entry.get("InstanceProfileList"), f"{place}.InstanceProfileList")
    p.instance_profiles = [ip["Arn"] for ip in profiles if isinstance(ip, dict) and isinstance(ip.get("Arn"), str)]
    if isinstance(entry.get("MaxSessionDuration"), int):
        p.max_session = entry["MaxSessionDuration"]


def _auth_details(data: dict[str, Any], file: str) -> ParsedFile:
    """``get-account-authorization-details`` (or a bare ``OpenIDConnectProviderList``)."""
    out = ParsedFile(file=file, kind="authorization-details")
    for key, kind in (("RoleDetailList", "role"), ("UserDetailList", "user"), ("GroupDetailList", "group")):
        for i, entry in enumerate(_top_list(out, data, key)):
            _keep(out, out.principals, _principal, kind, entry, file, f"{key}[{i}]")
    for i, pol in enumerate(_top_list(out, data, "Policies")):
        _keep(out, out.policies, _managed_policy, pol, file, f"Policies[{i}]")
    out.problems += [p for pol in out.policies for p in pol.problems]
    out.problems += [p for pr in out.principals for p in pr.problems]
    for i, prov in enumerate(_top_list(out, data, "OpenIDConnectProviderList")):
        _keep(out, out.providers, _provider, prov, file, f"OpenIDConnectProviderList[{i}]")
    return out


def _keep(out: ParsedFile, into: list[T], read: Callable[..., T], *args: Any) -> None:
    """Append ``read(*args)`` (one entry) to ``into``; a :class:`PolicyError` is a problem of ``out`` instead."""
    try:
        into.append(read(*args))
    except PolicyError as exc:
        out.problems.append(InputError(out.file, exc.place, exc.reason))


def _managed_policy(pol: Any, file: str, place: str) -> ManagedPolicy:
    """One ``Policies`` entry: its default version (``IsDefaultVersion``, else ``DefaultVersionId``), which alone
    applies, and its other versions (read, not dropped: ``iam:SetDefaultPolicyVersion`` makes one of them apply;
    AWS "Versioning IAM policies",
    https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_managed-versioning.html)."""
    if not isinstance(pol, dict) or not isinstance(pol.get("Arn"), str):
        raise PolicyError(place, "policy without Arn")
    arn = _checked(ids.cloud_policy, pol["Arn"], f"{place}.Arn", "policy Arn")
    versions = _list(pol.get("PolicyVersionList"), f"{place}.PolicyVersionList")
    default = next((j for j, v in enumerate(versions) if isinstance(v, dict) and v.get("IsDefaultVersion")), None)
    if default is None:
        default = next((j for j, v in enumerate(versions) if isinstance(v, dict)
                        and v.get("VersionId") == pol.get("DefaultVersionId")), None)
    if default is None:
        raise PolicyError(place, "no default version in PolicyVersionList")
    doc_place = f"{place}.PolicyVersionList[{default}].Document"
    doc, sts, uncertain = _read_doc(versions[default].get("Document"), doc_place)
    out = ManagedPolicy(arn=arn, name=str(pol.get("PolicyName") or arn.rsplit("/", 1)[-1]), account=account_of(arn),
                        file=file, place=doc_place, default_version=_opt_str(versions[default].get("VersionId")),
                        versions=len(versions), statements=sts, document=doc)
    if uncertain:
        out.problems.append(InputError(file, doc_place, f"policy {out.name}: a key appears twice: read under each of "
                                       "its values, grants possible"))
    for j, v in enumerate(versions):
        if j == default or not isinstance(v, dict):
            continue
        try:
            out.other_versions.append((str(v.get("VersionId") or j), _doc(v.get("Document"),
                                       f"{place}.PolicyVersionList[{j}].Document")[1]))
        except PolicyError as exc:
            out.problems.append(InputError(file, exc.place, f"non-default version left out: {exc.reason}"))
    return out


def _provider(prov: Any, file: str, place: str) -> Provider:
    """One ``OpenIDConnectProviderList`` entry."""
    if not isinstance(prov, dict) or not isinstance(prov.get("Arn"), str):
        raise PolicyError(place, "provider without Arn")
    arn = _checked(ids.oidc_provider, prov["Arn"], f"{place}.Arn", "provider Arn")
    url = prov.get("Url") or arn.split("oidc-provider/", 1)[-1]
    clients = prov.get("ClientIDList")
    clients = [str(c) for c in clients if isinstance(c, (str, int))] if isinstance(clients, list) else None
    return Provider(arn=arn, url=str(url), account=account_of(arn) or None, client_ids=clients,
                    file=file, place=place)


# --------------------------------------------------------------------------- other documents


def _credential_report(data: dict[str, Any], file: str) -> ParsedFile:
    """Active access keys per user from a credential report's CSV (never any key material)."""
    out = ParsedFile(file=file, kind="credential-report")
    content = data.get("Content")
    if not isinstance(content, str):
        raise InputError(file, "Content", "credential report without CSV content")
    try:
        for row in csv.DictReader(io.StringIO(content)):
            arn = row.get("arn") or ""
            if isinstance(arn, str) and ":user/" in arn:
                out.access_keys[arn] = sum(row.get(f"access_key_{k}_active") == "true" for k in (1, 2))
    except csv.Error as exc:
        raise InputError(file, "Content", f"credential report is not CSV: {exc}") from None
    return out


def _policy_document(data: dict[str, Any], text: str, file: str, key: str) -> PolicyFile:
    """A whole file that is one policy document: trust when a statement names principals, else identity."""
    doc, sts = _doc(data, "", template=True)
    return PolicyFile(file=file, id_path=key, resource=None, name=Path(file).name, place="", document=doc,
                      statements=sts,
                      placeholders=sorted(set(PLACEHOLDER.findall(text))),
                      policy_type="trust" if any(s.principals for s in sts) else "identity")


# --------------------------------------------------------------------------- CloudFormation


def _cloudformation(data: dict[str, Any], file: str, parameters: dict[str, str] | None, key: str) -> ParsedFile:
    """``AWS::IAM::Role`` trust policies and ``AWS::IAM::OIDCProvider`` resources of a template."""
    out = ParsedFile(file=file, kind="cloudformation")
    params: dict[str, Any] = {"AWS::Partition": "aws"}
    declared = data.get("Parameters") or {}
    if not isinstance(declared, dict):
        raise InputError(file, "Parameters", "expected a mapping")
    for name, spec in declared.items():
        if isinstance(spec, dict) and "Default" in spec and spec["Default"] != "":
            params[name] = spec["Default"]
    params.update(parameters or {})
    resources = data.get("Resources") or {}
    if not isinstance(resources, dict):
        raise InputError(file, "Resources", "expected a mapping")
    cfn = _Cfn(params, resources)
    for name, res in resources.items():
        if not isinstance(res, dict):
            continue
        props = cfn.value(res.get("Properties") or {})
        if res.get("Type") == "AWS::IAM::Role":
            _keep(out, out.documents, _cfn_role_trust, name, props, file, key)
        elif res.get("Type") == "AWS::IAM::OIDCProvider":
            out.providers.append(_cfn_provider(props, file, f"Resources.{name}", key))
    return out


def _cfn_role_trust(name: str, props: dict[str, Any], file: str, key: str) -> PolicyFile:
    place = f"Resources.{name}.Properties.AssumeRolePolicyDocument"
    doc, sts = _doc(props.get("AssumeRolePolicyDocument"), place, template=True)
    role_name = props.get("RoleName") or name
    return PolicyFile(file=file, id_path=key, resource=name, name=f"trust of {role_name} ({Path(file).name})", place=place,
                      document=doc, statements=sts, placeholders=sorted(set(PLACEHOLDER.findall(json.dumps(doc)))),
                      policy_type="trust")


def _cfn_provider(props: dict[str, Any], file: str, place: str, key: str) -> Provider:
    """A template's provider: its ARN is unknown until deployed, so it is named by URL and file (``key``: its
    path relative to the input root)."""
    url = str(props.get("Url", ""))
    arn = "arn:aws:iam::${AWS::AccountId}:oidc-provider/" + url.removeprefix("https://")
    return Provider(arn=f"{arn}@{key}", url=url, account=None,
                    client_ids=[str(c) for c in props.get("ClientIdList") or [] if isinstance(c, (str, int))]
                    if isinstance(props.get("ClientIdList"), list) else [], file=file, place=place)


class _Cfn:
    """Resolves ``Ref``/``Fn::Sub``/``Fn::If``/``Fn::Join`` enough to read IAM resources
    ("Intrinsic function reference",
    https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/intrinsic-function-reference.html)."""

    def __init__(self, params: dict[str, Any], resources: dict[str, Any]) -> None:
        self.params, self.resources = params, resources
        #: function name -> resolver of its argument (``_UNRESOLVED``: an argument of another shape)
        self.functions: dict[str, Callable[[Any], Any]] = {"Ref": self._ref, "Fn::Sub": self._sub,
                                                           "Fn::If": self._if, "Fn::Join": self._join}

    def value(self, value: Any) -> Any:
        """``value`` with every intrinsic function graphkit understands resolved; unknowns as ``${...}``."""
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            (k, v), = value.items()
            resolved = self.functions[k](v) if k in self.functions else _UNRESOLVED
            if resolved is not _UNRESOLVED:
                return resolved
        return {k: self.value(v) for k, v in value.items()}

    def _ref(self, name: Any) -> Any:
        if not isinstance(name, str):
            return _UNRESOLVED
        if name in self.params:
            return self.params[name]
        res = self.resources.get(name)
        if isinstance(res, dict) and res.get("Type") == "AWS::IAM::OIDCProvider":
            url = str(self.value((res.get("Properties") or {}).get("Url", "")))
            return f"arn:{self.params['AWS::Partition']}:iam::${{AWS::AccountId}}:oidc-provider/" \
                + url.removeprefix("https://")
        return "${" + str(name) + "}"

    def _sub(self, arg: Any) -> Any:
        text = arg[0] if isinstance(arg, list) else arg
        return PLACEHOLDER.sub(lambda m: str(self.params[m.group(1)]) if m.group(1) in self.params else m.group(0),
                               str(text))

    def _if(self, arg: Any) -> Any:
        return self.value(arg[1]) if isinstance(arg, list) and len(arg) == 3 else _UNRESOLVED

    def _join(self, arg: Any) -> Any:
        if isinstance(arg, list) and len(arg) == 2:
            return str(arg[0]).join(str(self.value(x)) for x in arg[1])
        return _UNRESOLVED


#: Marker: an intrinsic function whose arguments have an unexpected shape (its mapping is resolved as data).
_UNRESOLVED = object()
