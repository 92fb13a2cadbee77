"""Runner inventory ingestor: what the GitHub API or an operator knows about runners.

One YAML or JSON file per organization (or several), format
``graphkit.runner-inventory/v1``; the JSON Schema generated from the models
below is shipped as ``schemas/runner-inventory.schema.json`` (regenerate with
``python -m ingest.runner_inventory --schema > schemas/runner-inventory.schema.json``).
A future live API collector and a host collector write the same format, so
field names follow the GitHub REST API where one exists
(``GET /orgs/{org}/actions/runners``, ``/runner-groups``, ``/actions/secrets``,
``GET /repos/{owner}/{repo}/environments``).

Format (every list is optional; a field not given is **unknown**, never empty)::

    schema: graphkit.runner-inventory/v1
    organizations:
      - name: acme
        secrets_complete: true          # the list below is every org secret
        secrets:
          - {name: NPM_TOKEN, visibility: all}          # all | private | selected
          - {name: DEPLOY_KEY, visibility: selected, selected_repositories: [acme/infra]}
        runner_groups:
          - name: shared-linux
            visibility: selected                         # all | selected | private
            selected_repositories: [acme/app, acme/docs]
            allows_public_repositories: false            # GitHub default
            restricted_to_workflows: false
            selected_workflows: []                       # owner/repo/.github/workflows/x.yml@ref
        oidc_sub_template: {include_claim_keys: [repo, context]}
    repositories:
      - full_name: acme/app
        visibility: private                              # public | private | internal
        default_branch: main
        secrets: [PYPI_TOKEN]
        secrets_complete: true
        environments:
          - name: production
            secrets: [PROD_DB_URL]
            secrets_complete: true
            protection_rules: [{type: required_reviewers, reviewers: [acme/release-managers]}]
    hosts:
      - name: build-01
        os: linux
        ephemeral: false
        credentials:
          - {credential_type: aws, path: ~/.aws/credentials, fingerprint: "3f2a9c0d",
             lifetime: until_rotated,
             grants: [{access: assumes_role, target: "cloud_role:aws:arn:aws:iam::111122223333:role/x"}]}
        caches: [{path: /opt/hostedtoolcache, kind: toolcache}]
    runners:
      - {name: build-01-a, id: 11, labels: [self-hosted, linux, x64], scope: acme,
         runner_group: shared-linux, ephemeral: false, host: build-01, os: linux, status: online}
    github_hosted_labels: [acme-ubuntu-8core]    # org larger-runner names (hosted)
    self_hosted_labels: []                       # never treat these as hosted

Nodes (ids per :data:`graphkit.model.NODE_ID_FORMATS`): Organization, Repository,
RunnerGroup (``runner_group:{owner}/{group}``, group lower-cased), Runner,
Host, Secret (``secret:org:{owner}:{NAME}``, ``secret:repo:{owner}/{repo}:{NAME}``,
``secret:env:{owner}/{repo}:{env}:{NAME}``), DeploymentTarget for environments
(``target:environment:{owner}/{repo}:{env}``), Credential
(``credential:{host}:{path}``) and Cache (``cache:host:{host}:{path}``); plus
the targets named by credential grants (CloudRole, DeploymentTarget,
SigningKey, Repository) so that their edges always have both ends.

Edges: HOSTS, RUNS_ON_HOST, MEMBER_OF, OWNS, ALLOWS_REPOSITORY, HAS_SECRET,
STORES_CREDENTIAL, SHARES_CACHE and the credential grants.  Every node and
edge carries :class:`~graphkit.model.Evidence` with the file (as given), the
YAML path (``runners[2]``) and the line.

Facts the resolver needs that are not node fields go to
``IngestResult.meta["runner_inventory"]`` (copied into ``graph.meta``)::

    {"github_hosted_labels": [...], "self_hosted_labels": [...],
     "secrets_complete": [<org / repo / environment target ids>],
     "oidc_sub_templates": {"acme": {...}, "acme/app": {...}},
     "files": [<paths read>]}

Structure: :func:`collect` (the only I/O), :func:`parse` (pure: text ->
:class:`RunnerInventory`, raises :class:`~graphkit.errors.InputError` naming
file and place), :func:`to_graph` (pure: model -> nodes and edges).  Secret
values are never part of the format: only names.
"""

from __future__ import annotations

import difflib
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import yaml
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from graphkit.errors import InputError
from graphkit.model import (EDGE_SPECS, Cache, CloudRole, Credential, DeploymentTarget, Edge, EdgeKind, Evidence,
                            Host, Lifetime, Node, Organization, Repository, Runner, RunnerGroup, Secret,
                            SigningKey, repo_key, secret_key, Criticality, RunnerRegistration, ids)
from graphkit.ingestor import RANK_INVENTORY, Collected, FileIngestor, IngestResult, InputFile, InputOption

__all__ = ["SCHEMA_ID", "RunnerInventory", "INGESTOR", "RunnerInventoryIngestor", "parse", "to_graph",
           "json_schema", "looks_production", "META_KEY"]

#: Value of the top-level ``schema`` key.
SCHEMA_ID = "graphkit.runner-inventory/v1"
#: Key of this ingestor's facts in ``IngestResult.meta`` / ``graph.meta``.
META_KEY = "runner_inventory"

_NAME = r"^[A-Za-z0-9._-]+$"
_FULL_NAME = r"^[A-Za-z0-9._-]+/[A-Za-z0-9._-]+$"


# --------------------------------------------------------------------------- models


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class OrgSecret(_Model):
    """An organization secret (``GET /orgs/{org}/actions/secrets``); name only, never a value."""

    name: str = Field(min_length=1, description="Secret name (case-insensitive; stored upper-case).")
    visibility: Literal["all", "private", "selected"] | None = Field(
        None, description="Which repositories see it: all, private (private and internal repos) or selected; "
        "null = unknown.")
    selected_repositories: list[str] | None = Field(
        None, description="owner/repo names when visibility is selected; null = unknown.")


class RunnerGroupEntry(_Model):
    """A runner group (``GET /orgs/{org}/actions/runner-groups``).

    GitHub docs "Managing access to self-hosted runners using groups".
    """

    name: str = Field(min_length=1)
    id: int | None = None
    visibility: Literal["all", "selected", "private"] = Field(
        description="all repositories, selected repositories, or private (private and internal repositories).")
    selected_repositories: list[str] | None = Field(
        None, description="owner/repo names when visibility is selected; null = unknown.")
    allows_public_repositories: bool = Field(False, description="Public repositories may use the group "
                                             "(GitHub default: false).")
    restricted_to_workflows: bool = False
    selected_workflows: list[str] | None = Field(
        None, description="owner/repo/.github/workflows/file.yml@ref entries when restricted_to_workflows; "
        "null = unknown.")


class OIDCSubTemplate(_Model):
    """OIDC subject claim customisation (``GET /orgs/{org}/actions/oidc/customization/sub``)."""

    use_default: bool | None = None
    include_claim_keys: list[str] | None = None


class OrganizationEntry(_Model):
    """An organization (or user account owning repositories)."""

    name: str = Field(pattern=_NAME)
    secrets: list[OrgSecret] | None = Field(None, description="Organization secrets; null = unknown.")
    secrets_complete: bool = Field(False, description="True when `secrets` lists every organization secret.")
    runner_groups: list[RunnerGroupEntry] | None = Field(None, description="Runner groups; null = unknown.")
    oidc_sub_template: OIDCSubTemplate | None = None


class ProtectionRule(_Model):
    """An environment protection rule (``GET /repos/{owner}/{repo}/environments``)."""

    type: str = Field(description="required_reviewers, wait_timer, branch_policy or a custom rule type.")
    wait_timer: int | None = None
    reviewers: list[str] | None = Field(None, description="User or team names (owner/team).")


class DeploymentBranchPolicy(_Model):
    """Which branches may deploy to an environment."""

    protected_branches: bool | None = None
    custom_branch_policies: bool | None = None


class Environment(_Model):
    """A deployment environment of a repository."""

    name: str = Field(min_length=1)
    secrets: list[str] | None = Field(None, description="Environment secret names; null = unknown.")
    secrets_complete: bool = Field(False, description="True when `secrets` lists every environment secret.")
    protection_rules: list[ProtectionRule] | None = None
    deployment_branch_policy: DeploymentBranchPolicy | None = None
    production: bool | None = Field(None, description="Override the name-based production guess.")


class RepositoryEntry(_Model):
    """A repository (``GET /repos/{owner}/{repo}``)."""

    full_name: str = Field(pattern=_FULL_NAME)
    id: int | None = None
    visibility: Literal["public", "private", "internal"] | None = None
    default_branch: str | None = None
    secrets: list[str] | None = Field(None, description="Repository secret names; null = unknown.")
    secrets_complete: bool = Field(False, description="True when `secrets` lists every repository secret.")
    environments: list[Environment] | None = None
    oidc_sub_template: OIDCSubTemplate | None = None


class CredentialGrant(_Model):
    """What holding an on-disk credential gives: an edge ``credential -> target``.

    ``target`` is a graphkit node id of kind cloud_role (``cloud_role:aws:<arn>``),
    deployment_target (``target:<type>:<identifier>``), signing_key
    (``signing_key:<scheme>:<identifier>``) or repository (``repo:<owner>/<repo>``).
    """

    access: Literal["assumes_role", "deploys_to", "publishes_to", "signs_with", "writes_repository"]
    target: str = Field(min_length=3)


class HostCredential(_Model):
    """A credential file on a host: presence and a fingerprint, never the value."""

    credential_type: str = Field(description="aws, docker, kube, npm, pypi, gh, git, ssh, gpg, cosign, runner...")
    path: str = Field(min_length=1)
    fingerprint: str | None = Field(None, pattern=r"^[0-9a-fA-F:]{4,128}$",
                                    description="Truncated keyed hash (hex), never the value.")
    lifetime: Lifetime = Lifetime.UNTIL_ROTATED
    grants: list[CredentialGrant] | None = None
    access: list[str] | None = Field(None, description="What it gives access to as read from the file, never a "
                                     "value: `profile:NAME`, `registry:HOST`, `cluster:SERVER`, `index:URL`...")
    readable_by: list[str] | None = Field(None, description="Runners of this host (`scope/name`) whose user can "
                                          "read the file (host scan); null = unknown.")


class HostCache(_Model):
    """A host-local cache folder that every job on the host reuses."""

    path: str = Field(min_length=1)
    kind: str | None = Field(None, description="toolcache, docker, pip, npm, work...")


class HostEntry(_Model):
    """A machine running runner registrations."""

    name: str = Field(min_length=1)
    os: str | None = None
    ephemeral: bool | None = None
    credentials: list[HostCredential] | None = None
    caches: list[HostCache] | None = None


class RunnerLabel(_Model):
    """A runner label as the REST API returns it."""

    name: str = Field(min_length=1)
    id: int | None = None
    type: Literal["read-only", "custom"] | None = None


class RunnerEntry(_Model):
    """A self-hosted runner registration (``GET /orgs/{org}/actions/runners``)."""

    name: str = Field(min_length=1)
    id: int | None = None
    labels: list[str | RunnerLabel] | None = Field(None, description="Runner labels (strings or API label "
                                                   "objects); `self-hosted` is implied; null = unknown (host scan).")
    scope: str = Field(pattern=r"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)?$",
                       description="Organization (`acme`) or repository (`acme/app`) it is registered to.")
    runner_group: str | None = Field(None, description="Group of an org runner (default `Default`).")
    ephemeral: bool | None = None
    host: str | None = None
    os: str | None = None
    status: str | None = None
    busy: bool | None = None
    platform: Literal["github", "gitlab"] | None = Field(None, description="CI platform (default github).")
    registration: RunnerRegistration | None = Field(
        None, description="What a host scan saw on disk (`graphkit collect host`); a runner with it is host-observed, "
        "one without it is listed by an inventory.")

    def label_names(self) -> list[str]:
        """Label names, ``self-hosted`` first if not given."""
        names = [x if isinstance(x, str) else x.name for x in self.labels or []]
        return names if "self-hosted" in {n.lower() for n in names} else ["self-hosted", *names]

    @field_validator("labels")
    @classmethod
    def _nonempty_labels(cls, v: list[Any] | None) -> list[Any] | None:
        for x in v or []:
            if isinstance(x, str) and not x.strip():
                raise ValueError("empty label")
        return v


class RunnerInventory(_Model):
    """Top level of a ``graphkit.runner-inventory/v1`` file."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="graphkit runner inventory v1")

    schema_: Literal["graphkit.runner-inventory/v1"] = Field(alias="schema")
    organizations: list[OrganizationEntry] | None = None
    repositories: list[RepositoryEntry] | None = None
    hosts: list[HostEntry] | None = None
    runners: list[RunnerEntry] | None = None
    github_hosted_labels: list[str] | None = Field(None, description="Extra labels to treat as GitHub-hosted.")
    self_hosted_labels: list[str] | None = Field(None, description="Labels never treated as GitHub-hosted.")


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the format, generated from :class:`RunnerInventory`.

    Returns
    -------
    dict
        JSON Schema (draft 2020-12) with ``$id`` and ``title``.
    """
    schema = RunnerInventory.model_json_schema(by_alias=True)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://graphkit.dev/schemas/runner-inventory.schema.json", **schema}


def schema_text() -> str:
    """The shipped schema file's exact text (sorted keys, 2-space indent, trailing newline)."""
    return json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"


# --------------------------------------------------------------------------- collect / parse


def _type_name(value: Any) -> str:
    """YAML name of a value's type (``mapping``, ``string``, ``int``...)."""
    return {dict: "mapping", list: "list", str: "string", type(None): "null"}.get(type(value), type(value).__name__)


def _place(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ("str", "RunnerLabel") or (isinstance(part, str) and part.startswith(("literal[", "function-"))):
            continue  # union branch names add nothing for the user
        else:
            out += ("." if out else "") + ("schema" if part == "schema_" else str(part))
    return out


def _line_index(text: str) -> dict[str, int]:
    """Map YAML paths (``runners[2].labels``) to 1-based lines; best effort."""
    index: dict[str, int] = {}
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return index

    def walk(node: yaml.Node, path: str) -> None:
        index.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                key = k.value if isinstance(k, yaml.ScalarNode) else "?"
                child = f"{path}.{key}" if path else key
                index[child] = k.start_mark.line + 1
                walk(v, child)
                index[child] = k.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode):
            for i, v in enumerate(node.value):
                walk(v, f"{path}[{i}]")

    if root is not None:
        walk(root, "")
    return index


class ParsedInventory(BaseModel):
    """A validated inventory plus where its parts are (``path -> line``)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    file: str
    inventory: RunnerInventory
    lines: dict[str, int] = Field(default_factory=dict)
    #: entries left out of ``inventory`` (one per error: file, place, reason ending with the line)
    problems: list[InputError] = Field(default_factory=list)


def _line_near(lines: dict[str, int], place: str) -> int | None:
    """Line of ``place``, else of its nearest ancestor below the top level (a missing field: its entry)."""
    while place:
        if place in lines:
            return lines[place]
        cut = max(place.rfind("."), place.rfind("["))
        place = place[:cut] if cut > 0 else ""
    return None


def _models_in(tp: Any) -> list[type[BaseModel]]:
    """Model classes inside a type annotation (through ``| None``, ``list[...]``, unions)."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return [tp]
    return [m for arg in get_args(tp) for m in _models_in(arg)]


def _field_names(tp: Any, loc: Sequence[Any]) -> list[str]:
    """Field names (aliases) of the model(s) found at ``loc`` inside ``tp`` (for "did you mean")."""
    models = _models_in(tp)
    for part in loc:
        if isinstance(part, int):
            continue
        named = [m for m in models if m.__name__ == part]  # a union branch tag
        fields = [f for m in models for n, f in m.model_fields.items() if part in (n, f.alias)]
        models = named or [m for f in fields for m in _models_in(f.annotation)] or models
    return sorted({f.alias or n for m in models for n, f in m.model_fields.items()})


def _unknown_field(key: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    return f"unknown field (did you mean {close[0]!r}?)" if close else f"unknown field (known: {', '.join(known)})"


def _validation_problems(exc: ValidationError, tp: Any, prefix: tuple[Any, ...]) -> list[tuple[str, str]]:
    """``(place, reason)`` per place of a validation error of a value of type ``tp`` found at ``prefix``."""
    by_place: dict[str, list[str]] = {}
    errors = exc.errors(include_url=False)
    places = [_place(prefix + tuple(e["loc"])) for e in errors]
    for err, here in zip(errors, places):
        loc = tuple(err["loc"])
        if err["type"].endswith("_type") and any(p.startswith((here + ".", here + "[")) for p in places):
            continue  # the union branch of another type (a label string) when a label object was meant
        if err["type"] == "extra_forbidden":
            msg = _unknown_field(str(loc[-1]), _field_names(tp, loc[:-1]))
        elif err["type"] == "missing":
            msg = "required field missing"
        else:
            msg = err["msg"]
        msgs = by_place.setdefault(_place(prefix + loc), [])
        if msg not in msgs:
            msgs.append(msg)  # union branches (label string | label object) fail at one place
    return [(place, " or ".join(msgs)) for place, msgs in by_place.items()]


def _host_problems(host: HostEntry, place: str, file: str) -> list[tuple[str, str]]:
    """Credential grants whose target id is malformed or cannot receive that access."""
    out = []
    for j, cred in enumerate(host.credentials or []):
        for k, g in enumerate(cred.grants or []):
            gp = f"{place}.credentials[{j}].grants[{k}]"
            try:
                target = _grant_target(g.target, Evidence(file=file, yaml_path=gp))
            except ValueError as exc:
                out.append((f"{gp}.target", str(exc)))
                continue
            if target.spec.kind not in EDGE_SPECS[_grant_kind(g.access, target)].targets:
                out.append((f"{gp}.access", f"{g.access} cannot point to a {target.spec.kind.value} ({g.target})"))
    return out


#: Checks beyond the schema of one entry of a top-level list: ``(entry, place, file) -> [(place, reason)]``.
_ENTRY_CHECKS: dict[str, Any] = {"hosts": _host_problems}


def parse(text: str, file: str) -> ParsedInventory:
    """Validate one inventory document (pure: no I/O).

    Parameters
    ----------
    text
        YAML (or JSON, a subset of YAML) text.
    file
        the path as given, used in evidence and errors.

    Returns
    -------
    ParsedInventory

    Entries are validated one by one: an entry of a top-level list
    (``runners[3]``, ``hosts[0]``, ``repositories[1]``, ``organizations[0]``,
    one label) with a typo'd field, a wrong type, a missing required field or
    a bad credential grant is left out and each of its errors becomes one
    problem in ``ParsedInventory.problems``: ``InputError(file, place,
    reason (line N))``, e.g. ``runners[3].runnner_group: unknown field (did
    you mean 'runner_group'?) (line 42)``; a missing field gets the line of
    its entry.  An unknown top-level key or a top-level value of the wrong
    type is a problem too and is left out.  Every other entry is kept.

    Raises
    ------
    InputError
        when the file as a whole cannot be used: invalid YAML (``line N``),
        not a mapping, or a ``schema`` other than :data:`SCHEMA_ID`.
    """
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        place = f"line {mark.line + 1}" if mark is not None else ""
        raise InputError(file, place, f"not valid YAML: {getattr(exc, 'problem', None) or exc}") from None
    if not isinstance(data, dict):
        raise InputError(file, "", f"expected a mapping with 'schema: {SCHEMA_ID}', got {type(data).__name__}")
    if data.get("schema") != SCHEMA_ID:
        raise InputError(file, "schema", f"expected {SCHEMA_ID!r}, got {data.get('schema')!r}")
    lines = _line_index(text)
    found: list[tuple[str, str]] = []
    kept: dict[str, Any] = {"schema": SCHEMA_ID}
    fields = {(f.alias or n): f for n, f in RunnerInventory.model_fields.items()}
    for key, value in data.items():
        key = str(key)
        if key == "schema":
            continue
        if key not in fields:
            found.append((key, _unknown_field(key, sorted(fields))))
            continue
        tp = fields[key].annotation
        item_tp = next((get_args(a)[0] for a in (tp, *get_args(tp)) if get_origin(a) is list), None)
        if value is None or item_tp is None:  # not a list field: validated whole
            try:
                kept[key] = TypeAdapter(tp).validate_python(value)
            except ValidationError as exc:
                found += _validation_problems(exc, tp, (key,))
            continue
        if not isinstance(value, list):
            found.append((key, f"expected a list, got {_type_name(value)}"))
            continue
        adapter = TypeAdapter(item_tp)
        items = []
        for i, item in enumerate(value):
            try:
                entry = adapter.validate_python(item)
            except ValidationError as exc:
                found += _validation_problems(exc, item_tp, (key, i))
                continue
            extra = _ENTRY_CHECKS[key](entry, f"{key}[{i}]", file) if key in _ENTRY_CHECKS else []
            if extra:
                found += extra
                continue
            items.append(entry)
        kept[key] = items
    problems = [InputError(file, place, reason + (f" (line {line})" if (line := _line_near(lines, place)) else ""))
                for place, reason in found]
    try:
        inv = RunnerInventory.model_validate(kept)
    except ValidationError as exc:  # not expected (every part was validated above): reject the file
        place, reason = _validation_problems(exc, RunnerInventory, ())[0]
        line = _line_near(lines, place)
        raise InputError(file, place, reason + (f" (line {line})" if line else "")) from None
    return ParsedInventory(file=file, inventory=inv, lines=lines, problems=problems)


# --------------------------------------------------------------------------- to_graph

_PROD_RE = re.compile(r"(^|[^a-z])(prod|production|release|releases|live)([^a-z]|$)", re.IGNORECASE)
_NONPROD_RE = re.compile(r"(^|[^a-z])(dev|development|test|testing|staging|stage|qa|preview|sandbox|ci)"
                         r"([^a-z]|$)", re.IGNORECASE)


def looks_production(name: str) -> bool | None:
    """Guess whether an environment name is production.

    Returns True for names like ``prod``, ``production``, ``release``,
    ``live``, ``prod-eu``; False for ``staging``, ``dev``, ``test``,
    ``preview``...; None when the name says nothing.

    >>> looks_production("Production"), looks_production("staging"), looks_production("docs")
    (True, False, None)
    """
    if _PROD_RE.search(name):
        return True
    if _NONPROD_RE.search(name):
        return False
    return None


class _Builder:
    """Accumulates nodes/edges of one file with evidence."""

    def __init__(self, parsed: ParsedInventory) -> None:
        self.file = parsed.file
        self.lines = parsed.lines
        self.nodes: dict[str, Node] = {}
        self.edges: dict[tuple[str, str, str], Edge] = {}

    def ev(self, path: str, detail: str | None = None) -> Evidence:
        return Evidence(file=self.file, yaml_path=path, line=self.lines.get(path), detail=detail)

    def node(self, node: Node) -> Node:
        if node.id in self.nodes:
            node = self.nodes[node.id].merged(node)
        self.nodes[node.id] = node
        return node

    def edge(self, kind: EdgeKind, source: str, target: str, ev: Evidence, **kw: Any) -> None:
        e = Edge(kind=kind, source=source, target=target, evidence=[ev], **kw)
        key = (source, target, e.nx_key)
        self.edges[key] = self.edges[key].merged(e) if key in self.edges else e

    # helpers creating referenced nodes -----------------------------------------
    def org(self, owner: str, ev: Evidence, display: str | None = None) -> str:
        nid = f"org:{repo_key(owner)}"
        self.node(Organization(id=nid, name=display or owner, evidence=[ev]))
        return nid

    def repo(self, full_name: str, ev: Evidence) -> str:
        nid = f"repo:{repo_key(full_name)}"
        self.node(Repository(id=nid, name=full_name, full_name=full_name, evidence=[ev]))
        owner = full_name.split("/", 1)[0]
        self.edge(EdgeKind.OWNS, self.org(owner, ev), nid, ev)
        return nid


def _env_target_id(full_name: str, env: str) -> str:
    return ids.environment(full_name, env)


def _grant_target(target: str, ev: Evidence) -> Node:
    """Build the minimal node a credential grant points to, from its id.

    Raises
    ------
    ValueError
        for an id of another kind or malformed.
    """
    if target.startswith("cloud_role:aws:"):
        arn = target[len("cloud_role:aws:"):]
        m = re.match(r"^arn:aws[a-z-]*:iam::(\d{12}):(role|instance-profile)/(.+)$", arn)
        if not m:
            raise ValueError(f"{target!r}: expected cloud_role:aws:arn:aws:iam::<12 digits>:role/<name> "
                             "(or :instance-profile/<name>)")
        return CloudRole(id=target, name=m.group(3), provider="aws", identifier=arn,
                         account=m.group(1), evidence=[ev])
    if target.startswith("cloud_user:aws:"):  # an access key of an IAM user (ingest/aws_iam.py)
        from graphkit.model import CloudUser
        arn = target[len("cloud_user:aws:"):]
        m = re.match(r"^arn:aws[a-z-]*:iam::(\d{12}):user/(.+)$", arn)
        if not m:
            raise ValueError(f"{target!r}: expected cloud_user:aws:arn:aws:iam::<12 digits>:user/<name>")
        return CloudUser(id=target, name=m.group(2), arn=arn, account=m.group(1), evidence=[ev])
    if target.startswith(("cloud_role:gcp:", "cloud_role:azure:")):
        _, provider, ident = target.split(":", 2)
        return CloudRole(id=target, name=ident, provider=provider, identifier=ident, evidence=[ev])  # type: ignore[arg-type]
    if target.startswith("target:"):
        parts = target.split(":", 2)
        if len(parts) != 3 or not parts[2]:
            raise ValueError(f"{target!r}: expected target:<type>:<identifier>")
        return DeploymentTarget(id=target, name=parts[2], target_type=parts[1], identifier=parts[2],  # type: ignore[arg-type]
                                evidence=[ev])
    if target.startswith("signing_key:"):
        parts = target.split(":", 2)
        if len(parts) != 3 or not parts[2]:
            raise ValueError(f"{target!r}: expected signing_key:<scheme>:<identifier>")
        return SigningKey(id=target, name=parts[2], scheme=parts[1], identifier=parts[2], evidence=[ev])
    if target.startswith("repo:") and re.match(_FULL_NAME, target[5:]):
        return Repository(id=repo_key(target), name=target[5:], full_name=target[5:], evidence=[ev])
    raise ValueError(f"{target!r}: not a cloud_role:, target:, signing_key: or repo: node id")


def _grant_kind(access: str, target: Node) -> EdgeKind:
    """Edge kind of a grant: ``assumes_role`` on an IAM user is its access key (``authenticates_as``)."""
    kind = EdgeKind(access)
    if kind is EdgeKind.ASSUMES_ROLE and target.spec.kind.value == "cloud_user":
        return EdgeKind.AUTHENTICATES_AS
    return kind


def _runner_key(scope_name: str) -> str:
    """``Owner[/Repo]/Name`` -> ``owner[/repo]/Name`` (the runner id without ``runner:``)."""
    scope, _, name = scope_name.rpartition("/")
    return f"{repo_key(scope)}/{name}"


def to_graph(parsed: ParsedInventory) -> tuple[list[Node], list[Edge], dict[str, Any]]:
    """Turn one validated inventory into nodes, edges and resolver facts (pure).

    Returns
    -------
    (nodes, edges, meta)
        ``meta`` has the shape of ``IngestResult.meta["runner_inventory"]``
        for this file (see the module docstring).

    Raises
    ------
    InputError
        for a credential grant whose target id is malformed or of a kind
        that cannot receive that access, or a ``readable_by`` entry that is
        not a runner of the file (names file and place).

    Notes
    -----
    A runner with ``registration`` was seen on disk by a host scan
    (``graphkit collect host``); one without it is listed by an inventory
    (``Runner.in_inventory``).  Only the fields an entry gives are set on its
    node, so the same runner from a host scan and from the org inventory
    merges into one node without erasing facts.  ``readable_by`` adds
    ``runner -> credential`` ``STORES_CREDENTIAL`` edges.
    """
    inv = parsed.inventory
    b = _Builder(parsed)
    complete: list[str] = []
    oidc: dict[str, Any] = {}
    unknown_wf: list[str] = []
    owners: set[str] = set()  # owners whose runner list an inventory gives (not a host scan)
    readable: list[tuple[str, str, Evidence]] = []  # (runner id, credential id, evidence) from readable_by

    for i, org in enumerate(inv.organizations or []):
        p = f"organizations[{i}]"
        oid = b.org(org.name, b.ev(p))
        owner = repo_key(org.name)
        if org.secrets_complete and org.secrets is not None:
            complete.append(oid)
        if org.oidc_sub_template is not None:
            oidc[owner] = org.oidc_sub_template.model_dump(exclude_none=True)
        for j, s in enumerate(org.secrets or []):
            sp = f"{p}.secrets[{j}]"
            name = secret_key(s.name)
            sid = f"secret:org:{owner}:{name}"
            b.node(Secret(id=sid, name=f"{org.name} org secret {name}", secret_name=name, scope="org", owner=owner,
                          visibility=s.visibility,
                          selected_repositories=None if s.selected_repositories is None
                          else sorted(repo_key(r) for r in s.selected_repositories),
                          evidence=[b.ev(sp)]))
            b.edge(EdgeKind.HAS_SECRET, oid, sid, b.ev(sp))
        for j, g in enumerate(org.runner_groups or []):
            gp = f"{p}.runner_groups[{j}]"
            gid = f"runner_group:{owner}/{g.name.strip().lower()}"
            selected = None if g.selected_repositories is None else sorted(repo_key(r) for r in g.selected_repositories)
            b.node(RunnerGroup(id=gid, name=g.name, owner=owner, visibility=g.visibility,
                               selected_repositories=selected,
                               allows_public_repositories=g.allows_public_repositories,
                               restricted_to_workflows=g.restricted_to_workflows,
                               selected_workflows=list(g.selected_workflows or []),
                               evidence=[b.ev(gp)]))
            b.edge(EdgeKind.OWNS, oid, gid, b.ev(gp))
            if g.visibility == "selected":
                for k, r in enumerate(g.selected_repositories or []):
                    rp = f"{gp}.selected_repositories[{k}]"
                    b.edge(EdgeKind.ALLOWS_REPOSITORY, gid, b.repo(r, b.ev(rp)), b.ev(rp))
            if g.restricted_to_workflows and g.selected_workflows is None:
                unknown_wf.append(gid)  # list unknown: the resolver treats access as possible

    for i, repo in enumerate(inv.repositories or []):
        p = f"repositories[{i}]"
        rk = repo_key(repo.full_name)
        rid = b.repo(repo.full_name, b.ev(p))
        b.node(Repository(id=rid, name=repo.full_name, full_name=repo.full_name, visibility=repo.visibility,
                          default_branch=repo.default_branch, evidence=[b.ev(p)]))
        if repo.secrets_complete and repo.secrets is not None:
            complete.append(rid)
        if repo.oidc_sub_template is not None:
            oidc[rk] = repo.oidc_sub_template.model_dump(exclude_none=True)
        for j, name in enumerate(repo.secrets or []):
            sp = f"{p}.secrets[{j}]"
            nm = secret_key(name)
            sid = f"secret:repo:{rk}:{nm}"
            b.node(Secret(id=sid, name=f"{repo.full_name} secret {nm}", secret_name=nm, scope="repo",
                          owner=rk.split("/")[0], repository=rk, evidence=[b.ev(sp)]))
            b.edge(EdgeKind.HAS_SECRET, rid, sid, b.ev(sp))
        for j, env in enumerate(repo.environments or []):
            ep = f"{p}.environments[{j}]"
            tid = _env_target_id(repo.full_name, env.name)
            prod = env.production if env.production is not None else looks_production(env.name)
            rules = sorted({r.type for r in env.protection_rules or []})
            detail = f"protection_rules: {', '.join(rules) or 'none'}" if env.protection_rules is not None else None
            b.node(DeploymentTarget(id=tid, name=f"{repo.full_name} environment {env.name}",
                                    target_type="environment", identifier=f"{rk}:{env.name}", production=prod,
                                    criticality=Criticality.CRITICAL if prod else Criticality.HIGH,
                                    evidence=[b.ev(ep, detail)]))
            if env.secrets_complete and env.secrets is not None:
                complete.append(tid)
            for k, name in enumerate(env.secrets or []):
                sp = f"{ep}.secrets[{k}]"
                nm = secret_key(name)
                sid = ids.secret_env(rk, env.name, nm)
                b.node(Secret(id=sid, name=f"{repo.full_name} environment {env.name} secret {nm}", secret_name=nm,
                              scope="env", owner=rk.split("/")[0], repository=rk, environment=env.name,
                              evidence=[b.ev(sp)]))
                b.edge(EdgeKind.HAS_SECRET, tid, sid, b.ev(sp))

    for i, host in enumerate(inv.hosts or []):
        p = f"hosts[{i}]"
        hn = host.name.strip().lower()
        hid = f"host:{hn}"
        # only known facts: a host scan (os known, ephemeral not) must not erase an inventory's ephemeral flag
        known = {k: v for k, v in (("os", host.os), ("ephemeral", host.ephemeral)) if v is not None}
        b.node(Host(id=hid, name=host.name, evidence=[b.ev(p)], **known))
        for j, cred in enumerate(host.credentials or []):
            cp = f"{p}.credentials[{j}]"
            cid = f"credential:{hn}:{cred.path}"
            grants = [g.target for g in cred.grants or []] + list(cred.access or [])
            readers = None if cred.readable_by is None else sorted(f"runner:{_runner_key(r)}" for r in cred.readable_by)
            b.node(Credential(id=cid, name=f"{cred.path} on {host.name}", credential_type=cred.credential_type,
                              host=hn, path=cred.path, fingerprint=cred.fingerprint, lifetime=cred.lifetime,
                              grants=grants, readable_by=readers, evidence=[b.ev(cp)]))
            b.edge(EdgeKind.STORES_CREDENTIAL, hid, cid, b.ev(cp))
            for reader in readers or []:  # the runner's user can read it (edge added once the runner exists)
                readable.append((reader, cid, b.ev(f"{cp}.readable_by")))
            for k, g in enumerate(cred.grants or []):
                gp = f"{cp}.grants[{k}]"
                try:
                    target = _grant_target(g.target, b.ev(gp))
                except ValueError as exc:
                    raise InputError(parsed.file, f"{gp}.target", str(exc)) from None
                kind = _grant_kind(g.access, target)
                if target.spec.kind not in EDGE_SPECS[kind].targets:
                    raise InputError(parsed.file, f"{gp}.access",
                                     f"{g.access} cannot point to a {target.spec.kind.value} ({g.target})")
                b.node(target)
                b.edge(kind, cid, target.id, b.ev(gp), lifetime=cred.lifetime)
        for j, cache in enumerate(host.caches or []):
            kp = f"{p}.caches[{j}]"
            kid = f"cache:host:{hn}:{cache.path}"
            b.node(Cache(id=kid, name=f"{cache.kind or 'cache'} {cache.path} on {host.name}", cache_type="host",
                         scope=hn, path=cache.path, evidence=[b.ev(kp)]))
            b.edge(EdgeKind.SHARES_CACHE, hid, kid, b.ev(kp))

    for i, r in enumerate(inv.runners or []):
        p = f"runners[{i}]"
        scope = repo_key(r.scope)
        owner = scope.split("/")[0]
        is_org = "/" not in scope
        reg = r.registration
        # a host scan does not know the group unless .runner names it: no "Default" guess for it
        group = (r.runner_group or ("Default" if reg is None else None)) if is_org else r.runner_group
        rid = f"runner:{_runner_key(r.scope + '/' + r.name)}"
        ev = b.ev(p, None if reg is None else f"seen on host: {reg.config_path}")
        # only known fields, so that a host scan and an inventory of the same runner merge without erasing facts
        known: dict[str, Any] = {k: v for k, v in (
            ("labels", None if r.labels is None else r.label_names()), ("runner_group", group),
            ("ephemeral", r.ephemeral), ("host", r.host.strip().lower() if r.host else None), ("os", r.os),
            ("status", r.status), ("platform", r.platform), ("registration", reg),
            ("in_inventory", True if reg is None else None)) if v is not None}
        if reg is None and r.labels is None:
            known["labels"] = r.label_names()
        b.node(Runner(id=rid, name=r.name, scope=scope, evidence=[ev], **known))
        if reg is None:
            owners.add(owner)
        if is_org:
            b.org(owner, ev)
        else:
            b.repo(r.scope, ev)
        if group is not None:
            gid = f"runner_group:{owner}/{group.strip().lower()}"
            if gid not in b.nodes:
                # referenced but not listed: access settings unknown (inferred)
                b.node(RunnerGroup(id=gid, name=group, owner=owner, inferred=True, evidence=[b.ev(f"{p}.runner_group")]))
                b.edge(EdgeKind.OWNS, b.org(owner, ev), gid, b.ev(f"{p}.runner_group"))
            b.edge(EdgeKind.MEMBER_OF, rid, gid, b.ev(f"{p}.runner_group" if r.runner_group else p))
        if r.host:
            hn = r.host.strip().lower()
            hid = f"host:{hn}"
            if hid not in b.nodes:
                b.node(Host(id=hid, name=r.host, evidence=[b.ev(f"{p}.host")]))
            b.edge(EdgeKind.HOSTS, hid, rid, b.ev(f"{p}.host"))
            host_node = b.nodes[hid]
            # an ephemeral host is discarded after its job: what a job leaves there lasts one job
            ephemeral_host = isinstance(host_node, Host) and host_node.ephemeral is True
            b.edge(EdgeKind.RUNS_ON_HOST, rid, hid, b.ev(f"{p}.host"),
                   **({"lifetime": Lifetime.PER_JOB} if ephemeral_host else {}))

    for reader, cid, rev in readable:
        if reader not in b.nodes:
            raise InputError(parsed.file, rev.yaml_path or "", f"{reader.removeprefix('runner:')} is not a runner "
                             "of this file")
        b.edge(EdgeKind.STORES_CREDENTIAL, reader, cid, rev)
    if inv.runners is not None:  # an inventory's runner list covers the organizations it declares
        owners.update(o.name.strip().lower() for o in inv.organizations or [])

    meta = {"github_hosted_labels": sorted(set(inv.github_hosted_labels or [])),
            "self_hosted_labels": sorted(set(inv.self_hosted_labels or [])),
            "secrets_complete": sorted(set(complete)),
            "oidc_sub_templates": oidc,
            "unknown_selected_workflows": sorted(unknown_wf),
            "runner_owners": sorted(owners),
            "organizations": sorted(o.name.strip().lower() for o in inv.organizations or []),
            "files": [parsed.file]}
    return list(b.nodes.values()), list(b.edges.values()), meta


def merge_meta(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Union the per-file meta dictionaries (lists unioned and sorted, mappings merged)."""
    out: dict[str, Any] = {"github_hosted_labels": [], "self_hosted_labels": [], "secrets_complete": [],
                           "oidc_sub_templates": {}, "unknown_selected_workflows": [], "files": []}
    for m in parts:
        for k, v in m.items():
            if isinstance(v, list):
                out[k] = sorted(set(out.get(k, [])) | set(v)) if k != "files" else out[k] + v
            else:
                out[k] = {**out.get(k, {}), **v}
    return out


# --------------------------------------------------------------------------- ingestor


class RunnerInventoryIngestor(FileIngestor[ParsedInventory]):
    """The ``runners`` ingestor (``--runners inventory.yaml``)."""

    name = "runners"
    description = "Runner inventory (graphkit.runner-inventory/v1 YAML/JSON): runners, groups, hosts, secrets"
    option = InputOption("FILE", "Runner inventory file(s) (YAML/JSON, graphkit.runner-inventory/v1).")
    nothing_found = "no inventory file (*.yaml, *.yml, *.json) found"
    merge_rank = RANK_INVENTORY

    def parse(self, text: str, file: InputFile) -> ParsedInventory:
        """:func:`parse`: entries that fail validation are left out and listed in ``problems``."""
        return parse(text, file.name)

    def to_graph(self, parsed: list[ParsedInventory], collected: Collected) -> IngestResult:
        """:func:`to_graph` of each file; a file whose graph cannot be built (a bad grant) is one problem.

        ``meta[META_KEY]``: the resolver facts of every file (:func:`merge_meta`).
        """
        result = IngestResult()
        metas = []
        for p in parsed:
            try:
                nodes, edges, meta = to_graph(p)
            except InputError as exc:
                result.problems.append(exc)
                continue
            for n in nodes:
                result.graph.node(n)
            for e in edges:
                result.graph.add_edge(e)
            metas.append(meta)
        result.meta = {META_KEY: merge_meta(metas)}
        return result


INGESTOR = RunnerInventoryIngestor()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m ingest.runner_inventory --schema``: print the JSON Schema.

    ``--write PATH`` writes it instead (used to regenerate
    ``schemas/runner-inventory.schema.json``).
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--write"] and len(args) == 2:
        Path(args[1]).write_text(schema_text(), encoding="utf-8")
        return 0
    if args == ["--schema"]:
        sys.stdout.write(schema_text())
        return 0
    sys.stderr.write("usage: python -m ingest.runner_inventory --schema | --write PATH\n")
    return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
