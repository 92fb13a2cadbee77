"""The host collector: scan a root read-only and assemble the host's runner inventory snapshot.

:func:`collect_host` runs one step per part of the snapshot, in a fixed
order: runner registrations (GitHub ``.runner`` installations with their
service and registration credential, then GitLab ``config.toml``), credential
files in user homes and ``cosign.key`` files, shared caches, then who can read
each credential.  The pure parsers (:mod:`ingest.host.runners`,
:mod:`ingest.host.credentials`) see text; every read goes through
:class:`~ingest.host.scan.HostScan`.  Secret bytes are fingerprinted and
dropped where they are read; node ids in the snapshot (credential grants) are
built by :mod:`graphkit.model.ids`.  The document format is described in
:mod:`ingest.host`.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from graphkit.errors import GraphkitError, InputError
from graphkit.model import ids
from graphkit.redact import strip_url_fields
from graphkit.registry import CollectResult
from ingest.host.credentials import (CredentialFacts, assumes_roles, aws_config_facts, is_private_key,
                                     parse_aws_credentials, parse_docker_config, parse_gh_hosts, parse_git_credentials,
                                     parse_kube_config, parse_npmrc, parse_pypirc)
from ingest.host.fingerprint import FINGERPRINT_KEY, fingerprint
from ingest.host.runners import (GitLabRunner, RunnerFile, ServiceUnit, parse_gitlab_config, parse_launchd_plist,
                                 parse_runner_file, parse_service_unit, scope_from_url)
from ingest.host.scan import HostScan, home_of
from ingest.runner_inventory.models import SCHEMA_ID

__all__ = ["COLLECTOR", "GITLAB_CONFIGS", "HOME_CREDENTIALS", "PACKAGE_CACHES", "RUNNER_LOCATIONS",
           "SHARED_STATE", "SYSTEMD_DIRS", "HostCollector", "collect_host"]

log = logging.getLogger(__name__)

#: Where runner installations are looked for (relative to the root), besides user homes.
RUNNER_LOCATIONS = ("opt", "srv", "usr/local", "var/lib", "data", "actions-runner", "runner", "runners",
                    "home/runner", "Library")
SYSTEMD_DIRS = ("etc/systemd/system", "lib/systemd/system", "usr/lib/systemd/system")
GITLAB_CONFIGS = ("etc/gitlab-runner/config.toml", "srv/gitlab-runner/config/config.toml")
#: Host-wide shared state (host path, cache kind).
SHARED_STATE = (("/opt/hostedtoolcache", "toolcache"), ("/var/run/docker.sock", "docker-socket"),
                ("/run/docker.sock", "docker-socket"))
#: Package caches in a runner user's home (relative path, kind).
PACKAGE_CACHES = ((".cache/pip", "pip"), (".npm", "npm"), (".m2/repository", "maven"), (".gradle/caches", "gradle"),
                  (".cache/go-build", "go-build"), ("go/pkg/mod", "go-mod"), (".cargo/registry", "cargo"),
                  (".cache/yarn", "yarn"), (".nuget/packages", "nuget"), (".local/share/pnpm", "pnpm"))
#: Credential files in a home (relative path, credential type, parser).
HOME_CREDENTIALS: tuple[tuple[str, str, Callable[[str], CredentialFacts]], ...] = (
    (".aws/credentials", "aws", parse_aws_credentials), (".docker/config.json", "docker", parse_docker_config),
    (".kube/config", "kube", parse_kube_config), (".npmrc", "npm", parse_npmrc), (".pypirc", "pypi", parse_pypirc),
    (".config/gh/hosts.yml", "gh", parse_gh_hosts), (".git-credentials", "git", parse_git_credentials))
_SSH_NOT_KEYS = ("known_hosts", "config", "authorized_keys", "known_hosts.old")
_TOOL_CACHE_VARS = ("RUNNER_TOOL_CACHE", "AGENT_TOOLSDIRECTORY")

#: ``(home folder, user)``
Home = tuple[str, str]


@dataclass
class _Install:
    """A runner registration found on disk (before output)."""

    key: str                      # scope/name
    entry: dict[str, Any]         # the inventory runner entry
    user: str | None
    directory: str | None


@dataclass
class _Cred:
    """A credential file found (before output): its inventory entry (without ``readable_by``), the home whose
    user owns it (None: unknown), and the folder from which world-readability is checked."""

    entry: dict[str, Any]
    owner: Home | None
    top: str


@dataclass
class _Found:
    """What the steps found, in the order found."""

    installs: list[_Install] = field(default_factory=list)
    creds: list[_Cred] = field(default_factory=list)
    caches: list[dict[str, Any]] = field(default_factory=list)

    def cache(self, path: str, kind: str) -> None:
        """Record a shared cache folder (or socket)."""
        self.caches.append({"path": path, "kind": kind})


def _cred(ctype: str, path: str, fp: str, access: list[str], grants: list[tuple[str, str]], home: str,
          user: str | None, url_credential: str | None = None) -> _Cred:
    """A user's credential file that lasts until rotated; ``grants`` are ``(edge kind, node id)`` pairs;
    ``url_credential``: keyed hash of a credential removed from a URL the file names."""
    entry = {"credential_type": ctype, "path": path, "fingerprint": fp, "lifetime": "until_rotated",
             "access": list(dict.fromkeys(access)),
             "grants": [{"access": a, "target": t} for a, t in dict.fromkeys(grants)]}
    if url_credential:
        entry["url_credential_fingerprint"] = url_credential
    return _Cred(entry, (home, user) if user is not None else None, home)


# --------------------------------------------------------------------------- the host


def _hostname(scan: HostScan, given: str | None) -> str:
    """``given``, else the first line of ``/etc/hostname``, else the machine's name (live host) or the root's."""
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


def _homes(scan: HostScan) -> list[Home]:
    homes = [("/root", "root")] if scan.is_dir("/root") else []
    for base in ("/home", "/Users"):
        for name in scan.listdir(base):
            if scan.is_dir(f"{base}/{name}") and name not in ("Shared", "Guest"):
                homes.append((f"{base}/{name}", name))
    return homes


# --------------------------------------------------------------------------- GitHub runners


def _systemd_units(scan: HostScan, homes: list[Home]) -> list[ServiceUnit]:
    units = []
    places = [(d, True, None) for d in SYSTEMD_DIRS] + [(f"{h}/.config/systemd/user", False, u) for h, u in homes]
    for d, system, user in places:
        for name in scan.listdir(d):
            if name.startswith("actions.runner.") and name.endswith(".service"):
                data = scan.read(f"{d}/{name}")
                if data is not None:
                    units.append(parse_service_unit(data.decode("utf-8", "replace"), name, f"{d}/{name}",
                                                    system=system, home_user=user))
    return units


def _launchd_plists(scan: HostScan, homes: list[Home]) -> list[ServiceUnit]:
    units = []
    places = [("/Library/LaunchDaemons", True, None)] + [(f"{h}/Library/LaunchAgents", False, u) for h, u in homes]
    for d, daemon, user in places:
        for name in scan.listdir(d):
            data = scan.read(f"{d}/{name}") if name.startswith("actions.runner.") and name.endswith(".plist") else None
            if data is None:
                continue
            try:
                units.append(parse_launchd_plist(data, f"{d}/{name}", daemon=daemon, home_user=user))
            except InputError as exc:
                scan.problems.append(exc)
    return units


def _runner_dirs(scan: HostScan, homes: list[Home]) -> list[str]:
    """Folders holding a ``.runner`` file under the install locations, the homes and root folders named *runner*."""
    found: list[str] = []
    tops = [f"/{p}" for p in RUNNER_LOCATIONS] + [h for h, _ in homes]
    tops += [f"/{n}" for n in scan.listdir("/") if "runner" in n.lower()]
    for top in dict.fromkeys(tops):
        for d, files in scan.walk_dirs(top, max_depth=4):
            if ".runner" in files and d not in found:
                found.append(d)
    return found


def _runner_settings(scan: HostScan, d: str) -> tuple[RunnerFile, str] | None:
    """The ``.runner`` of an installation and the scope it registers to (None, with a problem, when unusable)."""
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
    return rf, scope


def _service_of(scan: HostScan, d: str, units: list[ServiceUnit]) -> tuple[ServiceUnit | None, str | None]:
    """The service starting the runner in ``d`` and the unit name ``.service`` gives (written by svc.sh); else a
    unit whose directories hold the runner."""
    named = scan.read(f"{d}/.service")
    unit_name = named.decode("utf-8", "replace").strip() if named else None
    unit = next((u for u in units if unit_name and (u.name == unit_name or PurePosixPath(u.path).name == unit_name)),
                None) or next((u for u in units if d in u.directories), None)
    return unit, unit_name


def _registration_credential(scan: HostScan, d: str, key: bytes) -> tuple[str | None, str | None]:
    """``(path, fingerprint)`` of the registration's OAuth client credentials (``.credentials`` and
    ``.credentials_rsaparams``, fingerprinted together; the bytes are dropped here)."""
    path = None
    parts = []
    for name in (".credentials", ".credentials_rsaparams"):
        blob = scan.read(f"{d}/{name}")
        if blob is not None:
            parts.append(name.encode() + b"\0" + blob)
            path = path or f"{d}/{name}"
        del blob
    fp = fingerprint(b"\0\0".join(parts), key) if parts else None
    del parts
    return path, fp


def _work_caches(scan: HostScan, d: str, work_dir: str, found: _Found) -> None:
    """The work folder, its tool cache, and a tool cache named in ``.env`` (no other line of it is kept)."""
    if scan.is_dir(work_dir):
        found.cache(work_dir, "work")
        if scan.is_dir(f"{work_dir}/_tool"):
            found.cache(f"{work_dir}/_tool", "toolcache")
    env = scan.read(f"{d}/.env")
    if env is None:
        return
    for line in env.decode("utf-8", "replace").splitlines():
        k, _, v = line.partition("=")
        if k.strip() in _TOOL_CACHE_VARS and v.strip().startswith("/") and scan.is_dir(v.strip()):
            found.cache(v.strip().rstrip("/"), "toolcache")
    del env


def _github_runner(scan: HostScan, d: str, hostname: str, units: list[ServiceUnit], key: bytes,
                   found: _Found) -> _Install | None:
    """The actions/runner installation in ``d``: its runner entry, registration credential and work caches."""
    settings = _runner_settings(scan, d)
    if settings is None:
        return None
    rf, scope = settings
    unit, unit_name = _service_of(scan, d, units)
    home = home_of(d)
    user = unit.user if unit is not None else (home[1] if home else None)
    work = rf.work_folder or "_work"
    work_dir = work if work.startswith("/") else f"{d}/{work}"
    cred_path, cred_fp = _registration_credential(scan, d, key)
    name = rf.agent_name
    reg: dict[str, Any] = {"config_path": f"{d}/.runner", "url": rf.github_url, "server_url": rf.server_url,
                           "agent_id": rf.agent_id, "pool_id": rf.pool_id, "work_folder": work_dir,
                           "service": unit.name if unit else unit_name, "user": user,
                           "runs_as_root": None if user is None else user == "root",
                           "credential_path": cred_path, "credential_fingerprint": cred_fp}
    entry: dict[str, Any] = {"name": name, "id": rf.agent_id, "scope": scope, "ephemeral": rf.ephemeral,
                             "host": hostname, "platform": "github",
                             "registration": strip_url_fields({k: v for k, v in reg.items() if v is not None}, key=key)}
    if "/" not in scope and rf.pool_name:
        entry["runner_group"] = rf.pool_name
    if cred_path is not None:
        found.creds.append(_Cred({"credential_type": "runner", "path": cred_path, "fingerprint": cred_fp,
                                  "lifetime": "until_runner_removed", "access": [f"registration:{scope}/{name}"]},
                                 home, d))
    _work_caches(scan, d, work_dir, found)
    return _Install(key=f"{scope}/{name}", entry=entry, user=user, directory=d)


# --------------------------------------------------------------------------- GitLab runners


def _url_host(url: str | None) -> str:
    """The lower-cased host of a URL ("" when absent or unparsable)."""
    try:
        return (urlsplit(url).hostname or "").lower() if url else ""
    except ValueError:
        return ""


def _gitlab_install(scan: HostScan, path: str, r: GitLabRunner, user: str, hostname: str,
                    seen: set[str]) -> _Install | None:
    """One ``[[runners]]`` table as a runner entry (scope: the GitLab host); a second one with the same name
    gets its id (or index) appended."""
    scope = _url_host(r.url)
    if not scope:
        scan.problems.append(InputError(path, f"runners[{r.index}].url", "missing: registration skipped"))
        return None
    name = r.name if f"{scope}/{r.name}" not in seen else f"{r.name}-{r.id or r.index}"
    seen.add(f"{scope}/{name}")
    reg = {"config_path": path, "url": r.url, "agent_id": r.id, "executor": r.executor, "user": user,
           "runs_as_root": user == "root", "privileged": r.privileged, "docker_socket": r.docker_socket,
           "credential_path": path, "credential_fingerprint": r.token_fingerprint}
    return _Install(key=f"{scope}/{name}", user=user, directory=None, entry={
        "name": name, "id": r.id, "scope": scope, "ephemeral": False, "host": hostname, "platform": "gitlab",
        "registration": strip_url_fields({k: v for k, v in reg.items() if v is not None})})


def _gitlab_config(scan: HostScan, path: str, hostname: str, key: bytes, found: _Found) -> list[_Install]:
    """The registrations of one GitLab ``config.toml``; the file (its tokens) is one credential."""
    data = scan.read(path)
    if data is None:
        return []
    file_fp = fingerprint(data, key)
    try:
        runners = parse_gitlab_config(data.decode("utf-8", "replace"), path, key)
    except InputError as exc:
        scan.problems.append(exc)
        return []
    finally:
        del data
    home = home_of(path)
    user = home[1] if home else "root"  # system mode (/etc/gitlab-runner) runs as root
    seen: set[str] = set()
    out = []
    for r in runners:
        inst = _gitlab_install(scan, path, r, user, hostname, seen)
        if inst is not None:
            out.append(inst)
            for sock in r.socket_paths:
                found.cache(sock, "docker-socket")
    if out:
        found.creds.append(_Cred({"credential_type": "gitlab-runner", "path": path, "fingerprint": file_fp,
                                  "lifetime": "until_runner_removed",
                                  "access": [f"registration:{i.key}" for i in out]},
                                 home, str(PurePosixPath(path).parent)))
    return out


def _tell_apart(installs: list[_Install]) -> None:
    """The same scope/name twice (a copied installation): keep both, the later ones named ``name~2``..."""
    counts: dict[str, int] = {}
    for inst in installs:
        n = counts[inst.key] = counts.get(inst.key, 0) + 1
        if n > 1:
            inst.entry["name"] = f"{inst.entry['name']}~{n}"
            inst.key = f"{inst.entry['scope']}/{inst.entry['name']}"


def _registrations(scan: HostScan, homes: list[Home], hostname: str, key: bytes, found: _Found) -> None:
    """Step 1: GitHub installations (with their services), then GitLab configurations."""
    units = _systemd_units(scan, homes) + _launchd_plists(scan, homes)
    for d in _runner_dirs(scan, homes):
        inst = _github_runner(scan, d, hostname, units, key, found)
        if inst is not None:
            found.installs.append(inst)
    paths = [f"/{p}" for p in GITLAB_CONFIGS] + [f"{h}/.gitlab-runner/config.toml" for h, _ in homes]
    for path in paths:
        found.installs += _gitlab_config(scan, path, hostname, key, found)
    _tell_apart(found.installs)


# --------------------------------------------------------------------------- credentials in homes


def _read_facts(scan: HostScan, path: str, ctype: str, parser: Callable[[str], CredentialFacts],
                key: bytes) -> tuple[CredentialFacts, str] | None:
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


def _credential_files(scan: HostScan, home: str, user: str, key: bytes) -> list[_Cred]:
    """The files of :data:`HOME_CREDENTIALS`, then ``~/.aws/config`` unless it only names roles for the keys of
    ``~/.aws/credentials`` (those keys assume them: ``source_profile``)."""
    out: list[_Cred] = []
    config = _read_facts(scan, f"{home}/.aws/config", "aws", aws_config_facts, key)
    roles = config[0].roles if config is not None else []
    for rel, ctype, parser in HOME_CREDENTIALS:
        path = f"{home}/{rel}"
        got = _read_facts(scan, path, ctype, parser, key)
        if got is None:
            continue
        facts, fp = got
        grants = list(facts.grants)
        if rel == ".aws/credentials":
            grants += assumes_roles([*facts.roles, *roles])
        out.append(_cred(ctype, path, fp, facts.access, grants, home, user, facts.url_credential))
    if config is not None:
        facts, fp = config
        has_keys_file = any(c.entry["path"] == f"{home}/.aws/credentials" for c in out)
        if facts.holds_keys or not has_keys_file:
            grants = [] if has_keys_file else assumes_roles(facts.roles)
            out.append(_cred("aws", f"{home}/.aws/config", fp, facts.access, grants, home, user, facts.url_credential))
    return out


def _ssh_keys(scan: HostScan, home: str, user: str, key: bytes) -> list[_Cred]:
    out = []
    for name in scan.listdir(f"{home}/.ssh"):
        if name.endswith(".pub") or name in _SSH_NOT_KEYS:
            continue
        path = f"{home}/.ssh/{name}"
        data = scan.read(path)
        if data is None:
            continue
        if is_private_key(data):
            out.append(_cred("ssh", path, fingerprint(data, key), [], [], home, user))
        del data
    return out


def _gpg(scan: HostScan, home: str, user: str, hostname: str, key: bytes) -> list[_Cred]:
    """A GnuPG secret keyring, and the private keys folder (its keys fingerprinted together): ``signs_with``
    a signing key ``signing_key:gpg:{host}:{path}``."""
    out = []
    ring = f"{home}/.gnupg/secring.gpg"
    data = scan.read(ring)
    if data:
        out.append(_cred("gpg", ring, fingerprint(data, key), [],
                         [("signs_with", ids.signing_key("gpg", f"{hostname}:{ring}"))], home, user))
    del data
    keydir = f"{home}/.gnupg/private-keys-v1.d"
    names = [n for n in scan.listdir(keydir) if n.endswith(".key")]
    if names:
        parts = []
        for n in names:
            blob = scan.read(f"{keydir}/{n}")
            if blob is not None:
                parts.append(n.encode() + b"\0" + blob + b"\0")
            del blob
        fp = fingerprint(b"".join(parts), key)
        del parts
        out.append(_cred("gpg", keydir, fp, [f"keys:{len(names)}"],
                         [("signs_with", ids.signing_key("gpg", f"{hostname}:{keydir}"))], home, user))
    return out


def _files_named(scan: HostScan, tops: Sequence[str], name: str, max_depth: int) -> Iterator[tuple[str, str]]:
    """``(top, host path)`` of each file called ``name`` below ``tops`` (each path once)."""
    seen: set[str] = set()
    for top in tops:
        for d, files in scan.walk_dirs(top, max_depth=max_depth):
            path = f"{d}/{name}" if d != "/" else f"/{name}"
            if name in files and path not in seen:
                seen.add(path)
                yield top, path


def _cosign_keys(scan: HostScan, tops: Sequence[str], hostname: str, key: bytes) -> list[_Cred]:
    """``cosign.key`` files below the homes and installations: ``signing_key:cosign:{host}:{path}``."""
    out = []
    for top, path in _files_named(scan, tops, "cosign.key", max_depth=3):
        data = scan.read(path)
        if data is None:
            continue
        fp = fingerprint(data, key)
        del data
        home = home_of(path)
        out.append(_cred("cosign", path, fp, [], [("signs_with", ids.signing_key("cosign", f"{hostname}:{path}"))],
                         home[0] if home else top, home[1] if home else None))
    return out


def _credentials(scan: HostScan, homes: list[Home], hostname: str, key: bytes, found: _Found) -> None:
    """Step 2: credential files of every home, then ``cosign.key`` files (signing key ids name ``hostname``)."""
    for h, u in homes:
        found.creds += _credential_files(scan, h, u, key)
        found.creds += _ssh_keys(scan, h, u, key)
        found.creds += _gpg(scan, h, u, hostname, key)
    tops = [h for h, _ in homes] + [i.directory for i in found.installs if i.directory]
    found.creds += _cosign_keys(scan, tops, hostname, key)


# --------------------------------------------------------------------------- shared state, readers, document


def _shared_caches(scan: HostScan, homes: list[Home], found: _Found) -> None:
    """Step 3: host-wide tool cache and docker sockets, then package caches in the homes of runner users (every
    home when a runner's user is unknown)."""
    for path, kind in SHARED_STATE:
        if scan.exists(path):
            found.cache(path, kind)
    users = {i.user for i in found.installs}
    for h, u in homes:
        if u not in users and None not in users:
            continue
        for rel, kind in PACKAGE_CACHES:
            if scan.is_dir(f"{h}/{rel}"):
                found.cache(f"{h}/{rel}", kind)


def _can_read(user: str | None, owner: Home | None, world: bool) -> bool:
    """A runner's user can read a file: root, the owner, anyone when world-readable; an unknown user is the worst
    case."""
    return user is None or user == "root" or world or (owner is not None and user == owner[1])


def _credential_entries(scan: HostScan, found: _Found) -> list[dict[str, Any]]:
    """Step 4: each credential once (first found), with ``readable_by`` (runner ``scope/name``); no empty grants."""
    out = []
    seen: set[str] = set()
    for c in found.creds:
        path = c.entry["path"]
        if path in seen:
            continue
        seen.add(path)
        world = scan.world_readable(path, c.owner[0] if c.owner else c.top)
        entry = dict(c.entry)
        entry["readable_by"] = sorted(i.key for i in found.installs if _can_read(i.user, c.owner, world))
        if not entry.get("grants"):
            entry.pop("grants", None)
        out.append(entry)
    return out


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
        fingerprint key (:data:`~ingest.host.fingerprint.FINGERPRINT_KEY` by default).

    Returns
    -------
    CollectResult
        ``document``: a ``graphkit.runner-inventory/v1`` mapping with one
        host and its runners (see :mod:`ingest.host`); ``problems``:
        unreadable or malformed files and links out of the root (file and
        place, never content); ``summary``: counts.

    Raises
    ------
    GraphkitError
        when ``root`` is not a directory, or the host name cannot be part of
        a node id (``host:{name}``; give ``--hostname``).
    """
    scan = HostScan(Path(root))
    if not os.path.isdir(scan.real):
        raise GraphkitError(f"{root}: not a directory")
    host = _hostname(scan, hostname)
    try:
        host_key = ids.parse(ids.host(host)).parts["hostname"]
    except ids.IdError:
        raise GraphkitError(f"{host!r} cannot be a host name (give --hostname)") from None
    log.debug("host scan of %s as %s", scan.root, host)
    homes = _homes(scan)
    found = _Found()
    _registrations(scan, homes, host, key, found)
    _credentials(scan, homes, host_key, key, found)
    _shared_caches(scan, homes, found)
    creds = _credential_entries(scan, found)
    caches = list({c["path"]: c for c in found.caches}.values())
    host_entry: dict[str, Any] = {"name": host, "os": _os(scan), "credentials": creds, "caches": caches}
    doc = {"schema": SCHEMA_ID, "hosts": [{k: v for k, v in host_entry.items() if v is not None}],
           "runners": [{k: v for k, v in i.entry.items() if v is not None} for i in found.installs]}
    summary = {"runners": len(found.installs), "credentials": len(creds), "caches": len(caches),
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
