"""Host collector: what persists on a build host (``graphkit collect host``).

Scans a host's filesystem, read-only, from a root directory (``/`` on a live
host, a fake root in tests) and writes what it finds as the **host section**
of the runner inventory format ``graphkit.runner-inventory/v1``
(:mod:`ingest.runner_inventory`), so that ``graphkit build --runners host.json
--runners org-inventory.yaml`` joins it with the organization's inventory (the
same runner in both becomes one node: ids are ``runner:{scope}/{name}``).

What it reads (``shared/docs/semantics.md`` §2 and §7):

- **GitHub runner installations**: every directory holding a ``.runner`` file
  under the common install locations and user homes.  ``.runner`` is the JSON
  that actions/runner's ``ConfigurationStore`` writes (``RunnerSettings``:
  ``agentId``, ``agentName``, ``poolId``, ``poolName``, ``serverUrl``,
  ``gitHubUrl``, ``workFolder``, ``ephemeral``; default values are omitted, so
  a missing ``ephemeral`` means false), see
  https://github.com/actions/runner/blob/main/src/Runner.Common/ConfigurationStore.cs.
  ``.credentials`` / ``.credentials_rsaparams`` (the registration's OAuth
  client credentials) are recorded as one registration credential: presence
  and fingerprint only.  The service unit (``actions.runner.<scope>.<name>.service``
  in systemd, ``actions.runner.*.plist`` in launchd) gives the account the
  runner runs as.
- **GitLab runners**: ``config.toml`` (``/etc/gitlab-runner``,
  ``~/.gitlab-runner``, ``/srv/gitlab-runner/config``), one registration per
  ``[[runners]]`` table: ``name``, ``url``, ``executor``, ``token``
  (fingerprint only), ``[runners.docker]`` ``volumes`` (the docker socket) and
  ``privileged``; see https://docs.gitlab.com/runner/configuration/advanced-configuration/.
- **Credentials on disk** in every user home: ``~/.aws/credentials`` and
  ``config``, ``~/.docker/config.json``, ``~/.kube/config``, ``~/.npmrc``,
  ``~/.pypirc``, ``~/.config/gh/hosts.yml``, ``~/.git-credentials``, ``~/.ssh``
  private keys, GnuPG secret keyrings, ``cosign.key``: kind, path,
  fingerprint, what it grants when the file says so (profile, role ARN,
  registry host, cluster server, package index), and which runners' users can
  read it (``readable_by``: same user, root, or world-readable; a runner
  whose user is unknown is counted as a reader, the worst case).
- **Shared state**: tool caches, ``_work`` folders, the docker socket and
  package caches, as host caches every runner on the host shares.

Secret values are never printed, logged, stored or kept beyond hashing: a file
is read as bytes, its fingerprint computed (:func:`fingerprint`), and only
non-secret facts parsed from it are kept; error messages name the file and a
line, never its content.

Structure: :class:`HostScan` is the only I/O (it never writes, never follows a
link out of the root, skips files over :data:`MAX_FILE_BYTES`); the
``parse_*`` functions are pure (text or bytes in, facts out);
:func:`collect_host` joins them into the inventory document.

Host section format (what :func:`collect_host` returns)::

    schema: graphkit.runner-inventory/v1
    hosts:
      - name: build-01                      # --hostname, else etc/hostname
        os: linux                           # linux | macos | windows | null
        credentials:
          - {credential_type: aws, path: /home/runner/.aws/credentials, fingerprint: "9c1f...",
             lifetime: until_rotated, access: ["profile:default"],
             grants: [{access: assumes_role, target: "cloud_role:aws:arn:aws:iam::111122223333:role/ci"}],
             readable_by: [acme/build-01-a, evil/x]}
          - {credential_type: runner, path: /opt/actions-runner/.credentials, fingerprint: "...",
             lifetime: until_runner_removed, access: ["registration:acme/build-01-a"], readable_by: [...]}
        caches: [{path: /opt/hostedtoolcache, kind: toolcache}, {path: /var/run/docker.sock, kind: docker-socket}]
    runners:
      - name: build-01-a
        id: 101                             # agentId
        scope: acme                         # from gitHubUrl: org, or org/repo
        runner_group: Default               # poolName (org runners)
        ephemeral: false
        host: build-01
        platform: github
        registration: {config_path: /opt/actions-runner/.runner, url: "https://github.com/acme",
                       server_url: "...", agent_id: 101, pool_id: 1, work_folder: /opt/actions-runner/_work,
                       service: actions.runner.acme.build-01-a.service, user: runner, runs_as_root: false,
                       credential_path: /opt/actions-runner/.credentials, credential_fingerprint: "..."}

Labels are not on disk (they live server-side): a host-scanned runner has
none until the org inventory supplies them.
"""

from __future__ import annotations

import configparser
import hashlib
import hmac
import json
import logging
import os
import plistlib
import re
import socket
import stat
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

import yaml

from graphkit.errors import InputError
from graphkit.registry import CollectResult

__all__ = ["FINGERPRINT_KEY", "FINGERPRINT_HEX", "MAX_FILE_BYTES", "fingerprint", "RunnerFile", "ServiceUnit",
           "GitLabRunner", "CredentialFacts", "parse_runner_file", "scope_from_url", "parse_service_unit",
           "parse_launchd_plist", "parse_gitlab_config", "parse_aws_credentials", "parse_aws_config",
           "parse_docker_config", "parse_kube_config", "parse_npmrc", "parse_pypirc", "parse_gh_hosts",
           "parse_git_credentials", "is_private_key", "HostScan", "collect_host", "COLLECTOR", "HostCollector"]

log = logging.getLogger(__name__)

SCHEMA_ID = "graphkit.runner-inventory/v1"
#: Default fingerprint key (documented, fixed): fingerprints stay comparable across runs and machines.
#: A per-installation key (``--key-file``) stops anyone holding a snapshot from confirming a guessed
#: low-entropy value (a password) against a fingerprint.
FINGERPRINT_KEY = b"graphkit/host-fingerprint/v1"
#: Hex digits kept of the HMAC-SHA256 (64 bits: enough to tell values apart, too few to be an oracle).
FINGERPRINT_HEX = 16
#: Larger files are not read (a credential file is small; a huge file is not what we look for).
MAX_FILE_BYTES = 1 << 20


def fingerprint(data: bytes, key: bytes = FINGERPRINT_KEY) -> str:
    """Keyed, truncated fingerprint of secret bytes: HMAC-SHA256, first :data:`FINGERPRINT_HEX` hex digits.

    The caller drops ``data`` right after; only this value is kept.

    >>> len(fingerprint(b"x")), fingerprint(b"x") == fingerprint(b"x"), fingerprint(b"x") == fingerprint(b"x", b"k")
    (16, True, False)
    """
    return hmac.new(key, data, hashlib.sha256).hexdigest()[:FINGERPRINT_HEX]


# --------------------------------------------------------------------------- pure parsers: runners


@dataclass(frozen=True)
class RunnerFile:
    """The facts of an actions/runner ``.runner`` file (``RunnerSettings``)."""

    agent_id: int | None
    agent_name: str
    pool_id: int | None
    pool_name: str | None
    server_url: str | None
    github_url: str | None
    work_folder: str | None
    ephemeral: bool


def _strict_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def parse_runner_file(text: str, file: str) -> RunnerFile:
    """Parse a ``.runner`` file (pure).

    Parameters
    ----------
    text
        the file's text (JSON, possibly with a UTF-8 BOM, as actions/runner writes it).
    file
        path for errors.

    Returns
    -------
    RunnerFile
        ``ephemeral`` is False when the key is absent (``EmitDefaultValue = false``).

    Raises
    ------
    InputError
        not JSON, not an object, or no ``agentName``.

    Examples
    --------
    >>> r = parse_runner_file('{"agentId": 7, "agentName": "b1", "poolId": 1, "poolName": "Default",'
    ...                       ' "gitHubUrl": "https://github.com/acme", "workFolder": "_work"}', ".runner")
    >>> (r.agent_id, r.agent_name, r.pool_name, r.github_url, r.ephemeral)
    (7, 'b1', 'Default', 'https://github.com/acme', False)
    """
    try:
        data = json.loads(text.lstrip("\ufeff"))
    except json.JSONDecodeError as exc:
        raise InputError(file, f"line {exc.lineno}", "not valid JSON") from None
    if not isinstance(data, dict):
        raise InputError(file, "", "expected a JSON object")
    low = {str(k).lower(): v for k, v in data.items()}
    name = _str(low.get("agentname"))
    if name is None:
        raise InputError(file, "agentName", "missing")
    return RunnerFile(agent_id=_strict_int(low.get("agentid")), agent_name=name.strip(),
                      pool_id=_strict_int(low.get("poolid")), pool_name=_str(low.get("poolname")),
                      server_url=_str(low.get("serverurl")), github_url=_str(low.get("githuburl")),
                      work_folder=_str(low.get("workfolder")), ephemeral=low.get("ephemeral") is True)


_SEGMENT = re.compile(r"^[A-Za-z0-9._-]+$")


def scope_from_url(url: str | None) -> str | None:
    """The scope a runner URL registers to: ``org``, ``org/repo`` (lower-cased), or None.

    GitHub enterprise-level runners (``/enterprises/<slug>``) give ``enterprises/<slug>``.

    >>> scope_from_url("https://github.com/Acme"), scope_from_url("https://github.com/acme/app/")
    ('acme', 'acme/app')
    >>> scope_from_url("https://github.com/"), scope_from_url(None)
    (None, None)
    """
    if not url:
        return None
    parts = [p for p in urlsplit(url).path.split("/") if p]
    if not parts or len(parts) > 2 or not all(_SEGMENT.match(p) for p in parts):
        return None
    return "/".join(parts).lower()


@dataclass(frozen=True)
class ServiceUnit:
    """A service that may start a runner: systemd unit or launchd plist.

    ``user``: the account it runs as (``root`` for a system unit without
    ``User=`` or a LaunchDaemon without ``UserName``); None when unknown.
    ``directories``: ``WorkingDirectory`` and the folder of the started program.
    """

    name: str
    path: str
    user: str | None
    directories: tuple[str, ...]


def parse_service_unit(text: str, name: str, path: str, *, system: bool, home_user: str | None = None) -> ServiceUnit:
    """Parse a systemd unit (pure): ``User=``, ``WorkingDirectory=``, ``ExecStart=``.

    ``system``: a system unit (runs as root unless ``User=``); a user unit
    runs as ``home_user``.  See systemd.exec(5).

    >>> u = parse_service_unit("[Service]\\nExecStart=/opt/ar/runsvc.sh\\nUser=runner\\n",
    ...                        "actions.runner.acme.b1.service", "/etc/systemd/system/x", system=True)
    >>> u.user, u.directories
    ('runner', ('/opt/ar',))
    """
    user = None
    dirs: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        key, sep, value = line.partition("=")
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if key == "User" and value:
            user = value
        elif key == "WorkingDirectory" and value.startswith("/"):
            dirs.append(value.rstrip("/"))
        elif key == "ExecStart":
            prog = value.lstrip("@-:+!").split()
            if prog and prog[0].startswith("/"):
                dirs.append(str(PurePosixPath(prog[0]).parent))
    if user is None:
        user = "root" if system else home_user
    return ServiceUnit(name=name, path=path, user=user, directories=tuple(dict.fromkeys(dirs)))


def parse_launchd_plist(data: bytes, path: str, *, daemon: bool, home_user: str | None = None) -> ServiceUnit:
    """Parse a launchd plist (pure): ``Label``, ``UserName``, ``WorkingDirectory``, ``ProgramArguments``.

    A LaunchDaemon runs as root unless ``UserName``; a LaunchAgent as its
    home's user.  See launchd.plist(5).

    Raises
    ------
    InputError
        not a plist dictionary.
    """
    try:
        doc = plistlib.loads(data)
    except Exception:  # noqa: BLE001 - plistlib raises several types; never echo content
        raise InputError(path, "", "not a valid plist") from None
    if not isinstance(doc, dict):
        raise InputError(path, "", "expected a plist dictionary")
    dirs = []
    if isinstance(doc.get("WorkingDirectory"), str):
        dirs.append(doc["WorkingDirectory"].rstrip("/"))
    args = doc.get("ProgramArguments") or ([doc["Program"]] if isinstance(doc.get("Program"), str) else [])
    if args and isinstance(args[0], str) and args[0].startswith("/"):
        dirs.append(str(PurePosixPath(args[0]).parent))
    user = doc.get("UserName") if isinstance(doc.get("UserName"), str) else ("root" if daemon else home_user)
    label = doc.get("Label") if isinstance(doc.get("Label"), str) else PurePosixPath(path).name
    return ServiceUnit(name=label, path=path, user=user, directories=tuple(dict.fromkeys(dirs)))


@dataclass(frozen=True)
class GitLabRunner:
    """One ``[[runners]]`` table of a GitLab runner ``config.toml`` (no token: its fingerprint)."""

    index: int
    name: str
    id: int | None
    url: str | None
    executor: str | None
    token_fingerprint: str | None
    privileged: bool | None
    docker_socket: bool
    socket_paths: tuple[str, ...]


def parse_gitlab_config(text: str, file: str, key: bytes = FINGERPRINT_KEY) -> list[GitLabRunner]:
    """Parse a GitLab runner ``config.toml`` (pure, with :mod:`tomllib`).

    The token is fingerprinted with ``key`` and dropped.  ``docker_socket``:
    a ``[runners.docker]`` volume mounts a ``docker.sock`` (jobs control the
    host's docker daemon).

    Raises
    ------
    InputError
        not valid TOML (place: the line), or ``runners`` is not a list of tables.

    Examples
    --------
    >>> rs = parse_gitlab_config('[[runners]]\\nname = "g1"\\nurl = "https://gitlab.com/"\\n'
    ...                          'token = "placeholder"\\nexecutor = "docker"\\n[runners.docker]\\n'
    ...                          'privileged = true\\nvolumes = ["/var/run/docker.sock:/var/run/docker.sock"]\\n',
    ...                          "config.toml")
    >>> [(r.name, r.executor, r.privileged, r.docker_socket, len(r.token_fingerprint)) for r in rs]
    [('g1', 'docker', True, True, 16)]
    """
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise InputError(file, f"line {m.group(1)}" if m else "", "not valid TOML") from None
    runners = doc.get("runners", [])
    if not isinstance(runners, list):
        raise InputError(file, "runners", "expected [[runners]] tables")
    out = []
    for i, r in enumerate(runners):
        if not isinstance(r, dict):
            raise InputError(file, f"runners[{i}]", "expected a table")
        token = r.get("token")
        fp = fingerprint(token.encode("utf-8"), key) if isinstance(token, str) and token else None
        del token
        docker = r.get("docker") if isinstance(r.get("docker"), dict) else {}
        volumes = [v for v in docker.get("volumes", []) if isinstance(v, str)]
        sockets = tuple(v.split(":", 1)[0] for v in volumes if "docker.sock" in v)
        priv = docker.get("privileged")
        out.append(GitLabRunner(index=i, name=_str(r.get("name")) or f"runner-{i}", id=_strict_int(r.get("id")),
                                url=_str(r.get("url")), executor=_str(r.get("executor")), token_fingerprint=fp,
                                privileged=priv if isinstance(priv, bool) else None, docker_socket=bool(sockets),
                                socket_paths=sockets))
    return out


# --------------------------------------------------------------------------- pure parsers: credentials


@dataclass
class CredentialFacts:
    """Non-secret facts of a credential file.

    ``present``: the file holds credential material (else it is not
    recorded).  ``access``: descriptors such as ``profile:deploy`` or
    ``registry:ghcr.io``.  ``grants``: ``(edge kind, node id)`` pairs, the
    inventory's ``grants``.  ``roles``: AWS role ARNs named by profiles.
    """

    credential_type: str
    present: bool = False
    access: list[str] = field(default_factory=list)
    grants: list[tuple[str, str]] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    #: the file itself holds credential material (False: it only points to roles)
    holds_keys: bool = True


def _ini(text: str) -> configparser.ConfigParser:
    """Lenient INI parse; a parse error names no content (configparser would echo the line)."""
    cp = configparser.ConfigParser(interpolation=None, strict=False, default_section="\x00none")
    try:
        cp.read_string(text)
    except configparser.Error:
        raise ValueError("not valid INI") from None
    return cp


_AWS_SECRET_KEYS = ("aws_secret_access_key", "aws_session_token", "credential_process", "sso_start_url",
                    "sso_session")


def parse_aws_credentials(text: str) -> CredentialFacts:
    """``~/.aws/credentials`` (pure): one ``profile:NAME`` per profile holding keys or a role.

    The AWS CLI reads ``role_arn`` from this file as well as from ``config``
    (AWS CLI User Guide, "Configuration and credential file settings").

    >>> parse_aws_credentials("[default]\\naws_access_key_id = placeholder\\naws_secret_access_key = x\\n").access
    ['profile:default']
    >>> parse_aws_credentials("[deploy]\\nrole_arn = arn:aws:iam::111122223333:role/d\\nsource_profile = a\\n").roles
    ['arn:aws:iam::111122223333:role/d']

    Raises
    ------
    ValueError
        not INI (the message names no content).
    """
    facts = CredentialFacts("aws")
    cp = _ini(text)
    for name in cp.sections():
        sec = {k.lower(): v for k, v in cp.items(name)}
        keys = any(k in sec for k in _AWS_SECRET_KEYS + ("aws_access_key_id",))
        role = _role_arn(sec)
        if keys:
            facts.present = True
        if role:
            facts.roles.append(role)
        if keys or role:
            facts.access.append(f"profile:{name}")
    return facts


def _role_arn(section: dict[str, str]) -> str | None:
    """The ``role_arn`` of a profile section, when it names an IAM role."""
    role = section.get("role_arn", "").strip()
    return role if role.startswith("arn:aws") and ":role/" in role else None


def parse_aws_config(text: str) -> CredentialFacts:
    """``~/.aws/config`` (pure): profiles, role ARNs (``assumes_role`` grants), keys or credential sources.

    ``present`` is True when the file itself holds credential material
    (keys, ``credential_process``, SSO); role ARNs are returned in ``roles``
    whatever the file holds.

    >>> f = parse_aws_config("[profile ci]\\nrole_arn = arn:aws:iam::111122223333:role/ci\\nsource_profile = default\\n")
    >>> f.present, f.access, f.roles
    (False, ['profile:ci'], ['arn:aws:iam::111122223333:role/ci'])
    """
    facts = CredentialFacts("aws")
    cp = _ini(text)
    for section in cp.sections():
        name = section.removeprefix("profile ").strip()
        sec = {k.lower(): v for k, v in cp.items(section)}
        if any(k in sec for k in _AWS_SECRET_KEYS):
            facts.present = True
        role = _role_arn(sec)
        if role:
            facts.roles.append(role)
            if "credential_source" in sec:  # instance metadata / environment: this file is the path
                facts.present = True
        if section.startswith("profile ") or section == "default":
            facts.access.append(f"profile:{name}")
    return facts


def _registry_host(name: str) -> str:
    """Docker registry key -> host (``https://index.docker.io/v1/`` -> ``docker.io``)."""
    host = urlsplit(name).netloc if "://" in name else name.split("/", 1)[0]
    host = host.lower()
    return "docker.io" if host in ("index.docker.io", "registry-1.docker.io", "registry.hub.docker.com") else host


def parse_docker_config(text: str) -> CredentialFacts:
    """``~/.docker/config.json`` (pure): registries with stored auth or a credential helper.

    Each registry gives ``registry:HOST`` and a ``publishes_to target:registry:HOST`` grant.

    >>> f = parse_docker_config('{"auths": {"ghcr.io": {"auth": "placeholder"}, "quay.io": {}}}')
    >>> f.present, f.access, f.grants
    (True, ['registry:ghcr.io'], [('publishes_to', 'target:registry:ghcr.io')])

    Raises
    ------
    ValueError
        not a JSON object.
    """
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        raise ValueError("not valid JSON") from None
    if not isinstance(doc, dict):
        raise ValueError("expected a JSON object")
    facts = CredentialFacts("docker")
    hosts: list[str] = []
    auths = doc.get("auths") if isinstance(doc.get("auths"), dict) else {}
    for reg, entry in auths.items():
        if isinstance(entry, dict) and any(entry.get(k) for k in ("auth", "identitytoken", "password", "registrytoken")):
            hosts.append(_registry_host(reg))
    helpers = doc.get("credHelpers") if isinstance(doc.get("credHelpers"), dict) else {}
    hosts += [_registry_host(reg) for reg in helpers]
    if isinstance(doc.get("credsStore"), str) and doc["credsStore"]:
        facts.present = True
        facts.access.append(f"store:{doc['credsStore']}")
    for h in dict.fromkeys(hosts):
        facts.present = True
        facts.access.append(f"registry:{h}")
        facts.grants.append(("publishes_to", f"target:registry:{h}"))
    return facts


_KUBE_SECRET_KEYS = ("token", "client-key-data", "client-key", "exec", "auth-provider", "password", "tokenFile")


def parse_kube_config(text: str) -> CredentialFacts:
    """``~/.kube/config`` (pure): cluster servers (``deploys_to target:cluster:SERVER``) when users hold credentials.

    >>> f = parse_kube_config("clusters:\\n- name: c\\n  cluster: {server: 'https://k8s.example:6443'}\\n"
    ...                       "users:\\n- name: u\\n  user: {token: placeholder}\\n")
    >>> f.present, f.grants
    (True, [('deploys_to', 'target:cluster:https://k8s.example:6443')])

    Raises
    ------
    ValueError
        not YAML or not a mapping (the message names no content).
    """
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ValueError("not valid YAML" + (f" (line {mark.line + 1})" if mark else "")) from None
    if not isinstance(doc, dict):
        raise ValueError("expected a mapping")
    facts = CredentialFacts("kube")
    users = [u.get("user") for u in doc.get("users") or [] if isinstance(u, dict)]
    facts.present = any(isinstance(u, dict) and any(k in u for k in _KUBE_SECRET_KEYS) for u in users)
    for c in doc.get("clusters") or []:
        server = c.get("cluster", {}).get("server") if isinstance(c, dict) and isinstance(c.get("cluster"), dict) else None
        if isinstance(server, str) and server:
            facts.access.append(f"cluster:{server}")
            if facts.present:
                facts.grants.append(("deploys_to", f"target:cluster:{server}"))
    return facts


def parse_npmrc(text: str) -> CredentialFacts:
    """``~/.npmrc`` (pure): registries with ``_authToken`` / ``_auth`` / ``_password`` (``publishes_to``).

    >>> parse_npmrc("//registry.npmjs.org/:_authToken=placeholder\\n").grants
    [('publishes_to', 'target:package_index:registry.npmjs.org')]
    """
    facts = CredentialFacts("npm")
    default = "registry.npmjs.org"
    indexes: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        k, sep, v = line.partition("=")
        if not sep:
            continue
        k, v = k.strip(), v.strip()
        if k == "registry" and v:
            default = v.split("://", 1)[-1].rstrip("/")
        field_name = k.rsplit(":", 1)[-1]
        if field_name in ("_authToken", "_auth", "_password", "username") and v:
            index = k.rsplit(":", 1)[0].lstrip("/").rstrip("/") if k.startswith("//") else default
            indexes.append(index)
    for idx in dict.fromkeys(indexes):
        facts.present = True
        facts.access.append(f"index:{idx}")
        facts.grants.append(("publishes_to", f"target:package_index:{idx}"))
    return facts


_PYPI_DEFAULTS = {"pypi": "upload.pypi.org/legacy", "testpypi": "test.pypi.org/legacy"}


def parse_pypirc(text: str) -> CredentialFacts:
    """``~/.pypirc`` (pure): index servers with a password or token (``publishes_to``).

    >>> parse_pypirc("[pypi]\\nusername = __token__\\npassword = placeholder\\n").access
    ['index:upload.pypi.org/legacy']

    Raises
    ------
    ValueError
        not INI.
    """
    facts = CredentialFacts("pypi")
    cp = _ini(text)
    for section in cp.sections():
        if section == "distutils":
            continue
        sec = {k.lower(): v for k, v in cp.items(section)}
        if not sec.get("password"):
            continue
        repo = sec.get("repository", "").strip() or _PYPI_DEFAULTS.get(section, section)
        idx = repo.split("://", 1)[-1].rstrip("/")
        facts.present = True
        facts.access.append(f"index:{idx}")
        facts.grants.append(("publishes_to", f"target:package_index:{idx}"))
    return facts


def parse_gh_hosts(text: str) -> CredentialFacts:
    """gh ``hosts.yml`` (pure): ``github:HOST`` for each host with a token.

    >>> parse_gh_hosts("github.com:\\n  oauth_token: placeholder\\n  user: octo\\n").access
    ['github:github.com']

    Raises
    ------
    ValueError
        not YAML or not a mapping.
    """
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ValueError("not valid YAML" + (f" (line {mark.line + 1})" if mark else "")) from None
    if doc is None:
        return CredentialFacts("gh")
    if not isinstance(doc, dict):
        raise ValueError("expected a mapping")
    facts = CredentialFacts("gh")
    for host, entry in doc.items():
        users = entry.get("users") if isinstance(entry, dict) else None
        has = isinstance(entry, dict) and (bool(entry.get("oauth_token")) or isinstance(users, dict))
        if has:
            facts.present = True
            facts.access.append(f"github:{host}")
    return facts


def parse_git_credentials(text: str) -> CredentialFacts:
    """``~/.git-credentials`` (pure): ``git:HOST`` per stored credential (``https://user:pass@host``).

    >>> parse_git_credentials("https://bot:placeholder@github.com\\n").access
    ['git:github.com']
    """
    facts = CredentialFacts("git")
    hosts = []
    for raw in text.splitlines():
        line = raw.strip()
        if "@" not in line or "://" not in line:
            continue
        try:
            parts = urlsplit(line)
            host, has_secret = parts.hostname, parts.password is not None
        except ValueError:
            continue
        if host and has_secret:
            hosts.append(host.lower())
    for h in dict.fromkeys(hosts):
        facts.present = True
        facts.access.append(f"git:{h}")
    return facts


_KEY_HEADER = re.compile(rb"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----")


def is_private_key(data: bytes) -> bool:
    """True when the bytes start a PEM/OpenSSH private key (SSH, cosign/sigstore): the header only.

    >>> is_private_key(b"ssh-ed25519 AAAA user@host")
    False
    """
    return bool(_KEY_HEADER.search(data[:200]))


# --------------------------------------------------------------------------- I/O: the scan


#: Where runner installations are looked for (relative to the root), besides user homes.
RUNNER_LOCATIONS = ("opt", "srv", "usr/local", "var/lib", "data", "actions-runner", "runner", "runners",
                    "home/runner", "Library")
#: Folders never descended when looking for ``.runner`` (job data, big trees, other systems).
SKIP_DIRS = frozenset({"_work", "_diag", "_tool", "externals", "bin", "node_modules", ".git", ".cache", "docker",
                       "containerd", "containers", "snapd", "proc", "sys", "dev", ".npm", ".m2", ".gradle",
                       ".cargo", "go", "site-packages", "dist-packages"})
SYSTEMD_DIRS = ("etc/systemd/system", "lib/systemd/system", "usr/lib/systemd/system")
GITLAB_CONFIGS = ("etc/gitlab-runner/config.toml", "srv/gitlab-runner/config/config.toml")
#: Package caches in a runner user's home (relative path, kind).
PACKAGE_CACHES = ((".cache/pip", "pip"), (".npm", "npm"), (".m2/repository", "maven"), (".gradle/caches", "gradle"),
                  (".cache/go-build", "go-build"), ("go/pkg/mod", "go-mod"), (".cargo/registry", "cargo"),
                  (".cache/yarn", "yarn"), (".nuget/packages", "nuget"), (".local/share/pnpm", "pnpm"))
#: Credential files in a home (relative path, parser).
HOME_CREDENTIALS = ((".aws/credentials", "aws", parse_aws_credentials),
                    (".docker/config.json", "docker", parse_docker_config),
                    (".kube/config", "kube", parse_kube_config), (".npmrc", "npm", parse_npmrc),
                    (".pypirc", "pypi", parse_pypirc), (".config/gh/hosts.yml", "gh", parse_gh_hosts),
                    (".git-credentials", "git", parse_git_credentials))


class HostScan:
    """Read-only access to a root directory: the collector's only I/O.

    Paths handed out are **host paths** (``/home/x``: absolute, relative to
    the root).  Nothing outside the root is ever read: a symbolic link is
    followed only when its target resolves inside the root; directories are
    walked without following links.

    Parameters
    ----------
    root
        the directory standing for ``/``.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.real = os.path.realpath(self.root)
        self.problems: list[InputError] = []
        #: the host's name (lower-cased), set by :func:`collect_host`; used in signing key ids
        self.hostname = ""

    def local(self, host_path: str) -> str:
        """Filesystem path of a host path."""
        return os.path.join(self.real, host_path.lstrip("/"))

    def inside(self, local: str) -> bool:
        """True when ``local`` resolves inside the root."""
        real = os.path.realpath(local)
        return real == self.real or real.startswith(self.real.rstrip(os.sep) + os.sep)

    def lstat(self, host_path: str) -> os.stat_result | None:
        """``lstat`` of a host path, None when absent or unreadable."""
        try:
            return os.lstat(self.local(host_path))
        except OSError:
            return None

    def exists(self, host_path: str) -> bool:
        """The path exists inside the root (a link counts only if it stays inside)."""
        local = self.local(host_path)
        return os.path.lexists(local) and self.inside(local) and os.path.exists(local)

    def is_dir(self, host_path: str) -> bool:
        """A directory inside the root (links to directories inside the root count)."""
        local = self.local(host_path)
        return self.inside(local) and os.path.isdir(local)

    def read(self, host_path: str) -> bytes | None:
        """The bytes of a regular file inside the root, None otherwise (problems recorded, never content)."""
        local = self.local(host_path)
        if not os.path.lexists(local):
            return None
        if not self.inside(local):
            self.problems.append(InputError(host_path, "", "link out of the scanned root: not followed"))
            return None
        try:
            st = os.stat(local)
            if not stat.S_ISREG(st.st_mode):
                return None
            if st.st_size > MAX_FILE_BYTES:
                self.problems.append(InputError(host_path, "", f"larger than {MAX_FILE_BYTES} bytes: not read"))
                return None
            with open(local, "rb") as fh:
                return fh.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            self.problems.append(InputError(host_path, "", f"cannot read: {exc.strerror or type(exc).__name__}"))
            return None

    def listdir(self, host_path: str) -> list[str]:
        """Sorted entry names of a directory inside the root ([] otherwise)."""
        if not self.is_dir(host_path):
            return []
        try:
            return sorted(os.listdir(self.local(host_path)))
        except OSError:
            return []

    def walk_dirs(self, host_path: str, max_depth: int) -> Iterator[tuple[str, list[str]]]:
        """``(host dir, file names)`` below ``host_path`` (no links followed, :data:`SKIP_DIRS` skipped)."""
        start = self.local(host_path)
        if not os.path.isdir(start) or os.path.islink(start):
            return
        base_depth = start.rstrip(os.sep).count(os.sep)
        for dirpath, dirnames, filenames in os.walk(start, followlinks=False):
            depth = dirpath.rstrip(os.sep).count(os.sep) - base_depth
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS) if depth < max_depth else []
            rel = os.path.relpath(dirpath, self.real)
            yield ("/" if rel == "." else "/" + rel.replace(os.sep, "/")), sorted(filenames)

    def world_readable(self, host_path: str, top: str) -> bool:
        """The file is readable by any user: ``o+r`` on it and ``o+x`` on each folder from ``top`` down."""
        st = self.lstat(host_path)
        if st is None or not st.st_mode & stat.S_IROTH:
            return False
        parent = str(PurePosixPath(host_path).parent)
        while True:
            dst = self.lstat(parent)
            if dst is None or not dst.st_mode & stat.S_IXOTH:
                return False
            if parent in (top, "/") or len(parent) <= len(top):
                return True
            parent = str(PurePosixPath(parent).parent)


def _home_of(host_path: str) -> tuple[str, str] | None:
    """(home, user) of a host path under ``/root``, ``/home/USER`` or ``/Users/USER``."""
    parts = PurePosixPath(host_path).parts
    if len(parts) >= 2 and parts[1] == "root":
        return "/root", "root"
    if len(parts) >= 3 and parts[1] in ("home", "Users"):
        return f"/{parts[1]}/{parts[2]}", parts[2]
    return None


@dataclass
class _Install:
    """A runner registration found on disk (before output)."""

    key: str                      # scope/name
    entry: dict[str, Any]         # the inventory runner entry
    user: str | None
    directory: str | None


def _hostname(scan: HostScan, given: str | None) -> str:
    if given:
        return given.strip()
    data = scan.read("/etc/hostname")
    if data:
        name = data.decode("utf-8", "replace").strip().splitlines()[0].strip() if data.strip() else ""
        if name:
            return name
    if scan.real == os.path.realpath("/"):
        return socket.gethostname()
    return Path(scan.real).name or "localhost"


def _os(scan: HostScan) -> str | None:
    if scan.exists("/System/Library/CoreServices/SystemVersion.plist"):
        return "macos"
    if scan.is_dir("/Windows") or scan.is_dir("/windows"):
        return "windows"
    if scan.exists("/etc/os-release") or scan.is_dir("/etc"):
        return "linux"
    return None


def _homes(scan: HostScan) -> list[tuple[str, str]]:
    homes = [("/root", "root")] if scan.is_dir("/root") else []
    for base in ("/home", "/Users"):
        for name in scan.listdir(base):
            if scan.is_dir(f"{base}/{name}") and name not in ("Shared", "Guest"):
                homes.append((f"{base}/{name}", name))
    return homes


def _services(scan: HostScan, homes: list[tuple[str, str]]) -> list[ServiceUnit]:
    units: list[ServiceUnit] = []
    places = [(d, True, None) for d in SYSTEMD_DIRS] + [(f"{h}/.config/systemd/user", False, u) for h, u in homes]
    for d, system, user in places:
        for name in scan.listdir(d):
            if name.startswith("actions.runner.") and name.endswith(".service"):
                data = scan.read(f"{d}/{name}")
                if data is not None:
                    units.append(parse_service_unit(data.decode("utf-8", "replace"), name, f"{d}/{name}",
                                                    system=system, home_user=user))
    plists = [("/Library/LaunchDaemons", True, None)] + [(f"{h}/Library/LaunchAgents", False, u) for h, u in homes]
    for d, daemon, user in plists:
        for name in scan.listdir(d):
            if name.startswith("actions.runner.") and name.endswith(".plist"):
                data = scan.read(f"{d}/{name}")
                if data is None:
                    continue
                try:
                    units.append(parse_launchd_plist(data, f"{d}/{name}", daemon=daemon, home_user=user))
                except InputError as exc:
                    scan.problems.append(exc)
    return units


def _runner_dirs(scan: HostScan, homes: list[tuple[str, str]]) -> list[str]:
    found: list[str] = []
    tops = [f"/{p}" for p in RUNNER_LOCATIONS] + [h for h, _ in homes]
    tops += [f"/{n}" for n in scan.listdir("/") if "runner" in n.lower()]
    for top in dict.fromkeys(tops):
        for d, files in scan.walk_dirs(top, max_depth=4):
            if ".runner" in files and d not in found:
                found.append(d)
    return found


def _github_runner(scan: HostScan, d: str, hostname: str, units: list[ServiceUnit], key: bytes,
                   creds: list[dict[str, Any]], caches: list[dict[str, Any]]) -> _Install | None:
    data = scan.read(f"{d}/.runner")
    if data is None:
        return None
    try:
        rf = parse_runner_file(data.decode("utf-8", "replace"), f"{d}/.runner")
    except InputError as exc:
        scan.problems.append(exc)
        return None
    scope = scope_from_url(rf.github_url)
    if scope is None:
        scan.problems.append(InputError(f"{d}/.runner", "gitHubUrl", "no org or repository URL: registration skipped"))
        return None
    # the service: .service names the unit (written by svc.sh); else a unit whose directories hold the runner
    named = scan.read(f"{d}/.service")
    unit_name = named.decode("utf-8", "replace").strip() if named else None
    unit = next((u for u in units if unit_name and (u.name == unit_name or PurePosixPath(u.path).name == unit_name)),
                None) or next((u for u in units if d in u.directories), None)
    home = _home_of(d)
    user = unit.user if unit is not None else (home[1] if home else None)
    work = rf.work_folder or "_work"
    work_dir = work if work.startswith("/") else f"{d}/{work}"
    # registration credential: presence and a fingerprint of both files, read and dropped
    cred_path = None
    cred_fp = None
    parts = []
    for name in (".credentials", ".credentials_rsaparams"):
        blob = scan.read(f"{d}/{name}")
        if blob is not None:
            parts.append(name.encode() + b"\0" + blob)
            cred_path = cred_path or f"{d}/{name}"
        del blob
    if parts:
        cred_fp = fingerprint(b"\0\0".join(parts), key)
    del parts
    name = rf.agent_name
    reg: dict[str, Any] = {"config_path": f"{d}/.runner", "url": rf.github_url, "server_url": rf.server_url,
                           "agent_id": rf.agent_id, "pool_id": rf.pool_id, "work_folder": work_dir,
                           "service": unit.name if unit else unit_name, "user": user,
                           "runs_as_root": None if user is None else user == "root",
                           "credential_path": cred_path, "credential_fingerprint": cred_fp}
    entry: dict[str, Any] = {"name": name, "id": rf.agent_id, "scope": scope, "ephemeral": rf.ephemeral,
                             "host": hostname, "platform": "github",
                             "registration": {k: v for k, v in reg.items() if v is not None}}
    if "/" not in scope and rf.pool_name:
        entry["runner_group"] = rf.pool_name
    if cred_path is not None:
        creds.append({"credential_type": "runner", "path": cred_path, "fingerprint": cred_fp,
                      "lifetime": "until_runner_removed", "access": [f"registration:{scope}/{name}"],
                      "_home": home, "_top": d})
    if scan.is_dir(work_dir):
        caches.append({"path": work_dir, "kind": "work"})
        if scan.is_dir(f"{work_dir}/_tool"):
            caches.append({"path": f"{work_dir}/_tool", "kind": "toolcache"})
    env = scan.read(f"{d}/.env")
    if env is not None:  # only the tool cache location is read; every other line is ignored
        for line in env.decode("utf-8", "replace").splitlines():
            k, _, v = line.partition("=")
            if k.strip() in ("RUNNER_TOOL_CACHE", "AGENT_TOOLSDIRECTORY") and v.strip().startswith("/"):
                if scan.is_dir(v.strip()):
                    caches.append({"path": v.strip().rstrip("/"), "kind": "toolcache"})
        del env
    return _Install(key=f"{scope}/{name}", entry=entry, user=user, directory=d)


def _gitlab_runners(scan: HostScan, homes: list[tuple[str, str]], hostname: str, key: bytes,
                    creds: list[dict[str, Any]], caches: list[dict[str, Any]]) -> list[_Install]:
    out: list[_Install] = []
    paths = [f"/{p}" for p in GITLAB_CONFIGS] + [f"{h}/.gitlab-runner/config.toml" for h, _ in homes]
    for path in paths:
        data = scan.read(path)
        if data is None:
            continue
        file_fp = fingerprint(data, key)
        try:
            runners = parse_gitlab_config(data.decode("utf-8", "replace"), path, key)
        except InputError as exc:
            scan.problems.append(exc)
            continue
        finally:
            del data
        home = _home_of(path)
        user = home[1] if home else "root"  # system mode (/etc/gitlab-runner) runs as root
        seen: set[str] = set()
        access = []
        for r in runners:
            scope = (urlsplit(r.url).hostname or "").lower() if r.url else ""
            if not scope:
                scan.problems.append(InputError(path, f"runners[{r.index}].url", "missing: registration skipped"))
                continue
            name = r.name if f"{scope}/{r.name}" not in seen else f"{r.name}-{r.id or r.index}"
            seen.add(f"{scope}/{name}")
            access.append(f"registration:{scope}/{name}")
            reg = {"config_path": path, "url": r.url, "agent_id": r.id, "executor": r.executor, "user": user,
                   "runs_as_root": user == "root", "privileged": r.privileged, "docker_socket": r.docker_socket,
                   "credential_path": path, "credential_fingerprint": r.token_fingerprint}
            out.append(_Install(key=f"{scope}/{name}", user=user, directory=None, entry={
                "name": name, "id": r.id, "scope": scope, "ephemeral": False, "host": hostname,
                "platform": "gitlab", "registration": {k: v for k, v in reg.items() if v is not None}}))
            for sock in r.socket_paths:
                caches.append({"path": sock, "kind": "docker-socket"})
        if access:
            creds.append({"credential_type": "gitlab-runner", "path": path, "fingerprint": file_fp,
                          "lifetime": "until_runner_removed", "access": access, "_home": home,
                          "_top": str(PurePosixPath(path).parent)})
    return out


def _read_facts(scan: HostScan, path: str, ctype: str, parser: Any, key: bytes) -> tuple[CredentialFacts, str] | None:
    """Read, fingerprint and parse one credential file; the bytes and text are dropped here.

    A file that does not parse is recorded as present (grants unknown) with a
    problem naming the file and the parser's reason (which names no content).
    """
    data = scan.read(path)
    if data is None:
        return None
    fp = fingerprint(data, key)
    try:
        facts = parser(data.decode("utf-8", "replace"))
    except ValueError as exc:
        scan.problems.append(InputError(path, "", f"{exc}: recorded as present, grants unknown"))
        facts = CredentialFacts(ctype, present=True)
    finally:
        del data
    return (facts, fp) if facts.present else None


def _home_credentials(scan: HostScan, home: str, user: str, key: bytes) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    config = _read_facts(scan, f"{home}/.aws/config", "aws", _present_aws_config, key)
    roles = config[0].roles if config is not None else []
    for rel, ctype, parser in HOME_CREDENTIALS:
        path = f"{home}/{rel}"
        got = _read_facts(scan, path, ctype, parser, key)
        if got is None:
            continue
        facts, fp = got
        grants = list(facts.grants)
        if rel == ".aws/credentials":  # the keys here assume the roles the config names (source_profile)
            grants += [("assumes_role", f"cloud_role:aws:{r}") for r in dict.fromkeys([*facts.roles, *roles])]
        out.append(_cred(ctype, path, fp, facts.access, grants, home, user))
    if config is not None:
        facts, fp = config
        has_keys_file = any(c["path"] == f"{home}/.aws/credentials" for c in out)
        if facts.holds_keys or not has_keys_file:  # a config that only names roles for those keys adds nothing
            grants = [] if has_keys_file else [("assumes_role", f"cloud_role:aws:{r}") for r in facts.roles]
            out.append(_cred("aws", f"{home}/.aws/config", fp, facts.access, grants, home, user))
    for name in scan.listdir(f"{home}/.ssh"):
        path = f"{home}/.ssh/{name}"
        if name.endswith(".pub") or name in ("known_hosts", "config", "authorized_keys", "known_hosts.old"):
            continue
        data = scan.read(path)
        if data is None:
            continue
        if is_private_key(data):
            out.append(_cred("ssh", path, fingerprint(data, key), [], [], home, user))
        del data
    out += _gpg(scan, home, user, key)
    return out


def _present_aws_config(text: str) -> CredentialFacts:
    facts = parse_aws_config(text)
    facts.holds_keys = facts.present
    if not facts.present and facts.roles:
        facts.present = True  # roles named: a path to them even without keys here
    return facts


def _gpg(scan: HostScan, home: str, user: str, key: bytes) -> list[dict[str, Any]]:
    out = []
    hostname = scan.hostname
    ring = f"{home}/.gnupg/secring.gpg"
    data = scan.read(ring)
    if data:
        fp = fingerprint(data, key)
        out.append(_cred("gpg", ring, fp, [], [("signs_with", f"signing_key:gpg:{hostname}:{ring}")], home, user))
    del data
    keydir = f"{home}/.gnupg/private-keys-v1.d"
    names = [n for n in scan.listdir(keydir) if n.endswith(".key")]
    if names:
        mac = hmac.new(key, digestmod=hashlib.sha256)
        for n in names:
            blob = scan.read(f"{keydir}/{n}")
            if blob is not None:
                mac.update(n.encode() + b"\0" + blob + b"\0")
            del blob
        out.append(_cred("gpg", keydir, mac.hexdigest()[:FINGERPRINT_HEX], [f"keys:{len(names)}"],
                         [("signs_with", f"signing_key:gpg:{hostname}:{keydir}")], home, user))
    return out


def _cosign_keys(scan: HostScan, tops: Sequence[str], key: bytes) -> list[dict[str, Any]]:
    out = []
    hostname = scan.hostname
    seen: set[str] = set()
    for top in tops:
        for d, files in scan.walk_dirs(top, max_depth=3):
            for name in files:
                if name != "cosign.key" or f"{d}/{name}" in seen:
                    continue
                path = f"{d}/{name}" if d != "/" else f"/{name}"
                seen.add(path)
                data = scan.read(path)
                if data is None:
                    continue
                fp = fingerprint(data, key)
                del data
                home = _home_of(path)
                out.append(_cred("cosign", path, fp, [], [("signs_with", f"signing_key:cosign:{hostname}:{path}")],
                                 home[0] if home else top, home[1] if home else None))
    return out


def _cred(ctype: str, path: str, fp: str, access: list[str], grants: list[tuple[str, str]], home: str,
          user: str | None) -> dict[str, Any]:
    return {"credential_type": ctype, "path": path, "fingerprint": fp, "lifetime": "until_rotated",
            "access": list(dict.fromkeys(access)),
            "grants": [{"access": a, "target": t} for a, t in dict.fromkeys(grants)],
            "_home": (home, user) if user is not None else None, "_top": home}


def collect_host(root: Path | str = "/", *, hostname: str | None = None,
                 key: bytes = FINGERPRINT_KEY) -> CollectResult:
    """Scan ``root`` read-only and return the host's runner inventory document.

    Parameters
    ----------
    root
        the directory standing for ``/`` (default: the live host).
    hostname
        the host's name; default ``etc/hostname`` under the root, then the
        machine's name (live host) or the root folder's name.
    key
        fingerprint key (:data:`FINGERPRINT_KEY` by default).

    Returns
    -------
    CollectResult
        ``document``: a ``graphkit.runner-inventory/v1`` mapping with one
        host and its runners (see the module docstring); ``problems``:
        unreadable or malformed files and links out of the root (file and
        place, never content); ``summary``: counts.

    Raises
    ------
    GraphkitError
        when ``root`` is not a directory.
    """
    from graphkit.errors import GraphkitError

    scan = HostScan(Path(root))
    if not os.path.isdir(scan.real):
        raise GraphkitError(f"{root}: not a directory")
    host = _hostname(scan, hostname)
    scan.hostname = host.strip().lower()
    log.debug("host scan of %s as %s", scan.root, host)
    homes = _homes(scan)
    units = _services(scan, homes)
    creds: list[dict[str, Any]] = []
    caches: list[dict[str, Any]] = []
    installs: list[_Install] = []
    for d in _runner_dirs(scan, homes):
        inst = _github_runner(scan, d, host, units, key, creds, caches)
        if inst is not None:
            installs.append(inst)
    installs += _gitlab_runners(scan, homes, host, key, creds, caches)
    # the same scope/name twice (a copied installation): keep both, apart
    keys: dict[str, int] = {}
    for inst in installs:
        n = keys[inst.key] = keys.get(inst.key, 0) + 1
        if n > 1:
            inst.entry["name"] = f"{inst.entry['name']}~{n}"
            inst.key = f"{inst.entry['scope']}/{inst.entry['name']}"
    for h, u in homes:
        creds += _home_credentials(scan, h, u, key)
    creds += _cosign_keys(scan, [h for h, _ in homes] + [i.directory for i in installs if i.directory], key)
    # shared state
    for path, kind in (("/opt/hostedtoolcache", "toolcache"), ("/var/run/docker.sock", "docker-socket"),
                       ("/run/docker.sock", "docker-socket")):
        if scan.exists(path):
            caches.append({"path": path, "kind": kind})
    users = {i.user for i in installs}
    cache_homes = [(h, u) for h, u in homes if u in users or None in users or ("root" in users and u == "root")]
    for h, _ in cache_homes:
        for rel, kind in PACKAGE_CACHES:
            if scan.is_dir(f"{h}/{rel}"):
                caches.append({"path": f"{h}/{rel}", "kind": kind})
    # who can read what: root, the same user, or anyone when world-readable; unknown user = worst case
    out_creds = []
    seen_paths: set[str] = set()
    for c in creds:
        if c["path"] in seen_paths:
            continue
        seen_paths.add(c["path"])
        owner = c.pop("_home")
        top = c.pop("_top")
        world = scan.world_readable(c["path"], owner[0] if owner else top)
        c["readable_by"] = sorted(i.key for i in installs
                                  if i.user is None or i.user == "root" or world
                                  or (owner is not None and i.user == owner[1]))
        if not c.get("grants"):
            c.pop("grants", None)
        out_creds.append(c)
    out_caches = list({c["path"]: c for c in caches}.values())
    host_entry: dict[str, Any] = {"name": host, "os": _os(scan), "credentials": out_creds, "caches": out_caches}
    doc = {"schema": SCHEMA_ID, "hosts": [{k: v for k, v in host_entry.items() if v is not None}],
           "runners": [i.entry for i in installs]}
    for r in doc["runners"]:
        for k in [k for k, v in r.items() if v is None]:
            del r[k]
    summary = {"runners": len(installs), "credentials": len(out_creds), "caches": len(out_caches),
               "problems": len(scan.problems)}
    log.debug("host scan of %s: %s", host, summary)
    return CollectResult(document=doc, problems=list(scan.problems), summary=summary)


class HostCollector:
    """The ``host`` collector (``graphkit collect host``), found through the ``graphkit.collectors`` entry points."""

    name = "host"
    description = "Runner registrations, on-disk credentials and shared caches of a build host (read-only scan)"

    def collect(self, root: Path, **options: Any) -> CollectResult:
        """See :func:`collect_host` (options: ``hostname``, ``key``)."""
        return collect_host(root, **options)


COLLECTOR = HostCollector()
