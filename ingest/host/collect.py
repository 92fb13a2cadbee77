"""The host collector: scan a root read-only and assemble the host's runner inventory snapshot.

:func:`collect_host` runs one step per part of the snapshot, in a fixed
order: runner registrations found by signature anywhere under the root
(:mod:`ingest.host.registrations`, :mod:`ingest.host.search`), how each is
kept alive, its job hooks and live processes (:mod:`ingest.host.persistence`),
credential files in user homes and ``cosign.key`` files, shared caches, then
who can read each credential, and the scan report (who scanned, limits, what
was unreadable or not searched).  The pure parsers
(:mod:`ingest.host.runners`, :mod:`ingest.host.keepalive`,
:mod:`ingest.host.credentials`) see text; every read goes through
:class:`~ingest.host.scan.HostScan`, and every parse through
:func:`~ingest.host.found.guarded` (a hostile file is one problem, never the
end of the scan).  Secret bytes are fingerprinted and dropped where they are
read; node ids in the snapshot (credential grants) are built by
:mod:`graphkit.model.ids`.  The document format is described in
:mod:`ingest.host`.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from graphkit.errors import GraphkitError, InputError
from graphkit.model import Evidence, ids
from graphkit.redact import mark_value
from graphkit.registry import CollectResult
from ingest.host.credentials import (CredentialFacts, assumes_roles, aws_config_facts, is_private_key,
                                     parse_aws_credentials, parse_docker_config, parse_gh_hosts, parse_git_credentials,
                                     parse_kube_config, parse_npmrc, parse_pypirc)
from ingest.host.fingerprint import FINGERPRINT_KEY, fingerprint
from ingest.host.found import Cred, Found, Home, guarded, home_cred
from ingest.host.persistence import keep_alive, process_entries
from ingest.host.registrations import registrations
from ingest.host.scan import HostScan, ScanLimits, home_of
from ingest.runner_inventory.grants import GrantError, resolve_grant
from ingest.runner_inventory.models import SCHEMA_ID

__all__ = ["COLLECTOR", "HOME_CREDENTIALS", "PACKAGE_CACHES", "SHARED_STATE", "HostCollector", "collect_host"]

log = logging.getLogger(__name__)

#: Host-wide shared state (host path, cache kind).
SHARED_STATE = (("/opt/hostedtoolcache", "toolcache"), ("/var/run/docker.sock", "docker-socket"),
                ("/run/docker.sock", "docker-socket"), ("/var/lib/docker", "docker-images"),
                ("/var/lib/buildkit", "docker-build-cache"), ("/var/lib/containerd", "container-images"))
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


# --------------------------------------------------------------------------- credentials in homes


def _read_facts(scan: HostScan, path: str, ctype: str, parser: Callable[[str], CredentialFacts],
                key: bytes) -> tuple[CredentialFacts, str] | None:
    """Read, fingerprint and parse one credential file; the bytes and text are dropped here.

    A file that does not parse (malformed, nested too deeply: a planted
    ``~/.docker/config.json`` of a million brackets) is recorded as present
    (grants unknown) with a problem naming the file and the parser's reason
    (which names no content).
    """
    data = scan.read(path)
    if data is None:
        return None
    fp = fingerprint(data, key)
    facts = guarded(scan, path, lambda: parser(data.decode("utf-8", "replace")),
                    "recorded as present, grants unknown", own_reasons=True)
    del data
    facts = facts if facts is not None else CredentialFacts(ctype, present=True)
    for line in facts.bad_roles:
        scan.problems.append(InputError(path, f"line {line}" if line else "role_arn", "role_arn is not an IAM role "
                                        "ARN (arn:PARTITION:iam::<12 digits>:role/NAME): no grant made"))
    return (facts, fp) if facts.present else None


def _credential_files(scan: HostScan, home: str, user: str, key: bytes) -> list[Cred]:
    """The files of :data:`HOME_CREDENTIALS`, then ``~/.aws/config`` unless it only names roles for the keys of
    ``~/.aws/credentials`` (those keys assume them: ``source_profile``)."""
    out: list[Cred] = []
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
        out.append(home_cred(ctype, path, fp, facts.access, grants, home, user, facts.url_credential))
    if config is not None:
        facts, fp = config
        has_keys_file = any(c.entry["path"] == f"{home}/.aws/credentials" for c in out)
        if facts.holds_keys or not has_keys_file:
            grants = [] if has_keys_file else assumes_roles(facts.roles)
            out.append(home_cred("aws", f"{home}/.aws/config", fp, facts.access, grants, home, user,
                                 facts.url_credential))
    return out


def _ssh_keys(scan: HostScan, home: str, user: str, key: bytes) -> list[Cred]:
    out = []
    for name in scan.listdir(f"{home}/.ssh"):
        if name.endswith(".pub") or name in _SSH_NOT_KEYS:
            continue
        path = f"{home}/.ssh/{name}"
        data = scan.read(path)
        if data is None:
            continue
        if is_private_key(data):
            out.append(home_cred("ssh", path, fingerprint(data, key), [], [], home, user))
        del data
    return out


def _gpg(scan: HostScan, home: str, user: str, hostname: str, key: bytes) -> list[Cred]:
    """A GnuPG secret keyring, and the private keys folder (its keys fingerprinted together): ``signs_with``
    a signing key ``signing_key:gpg:{host}:{path}``."""
    out = []
    ring = f"{home}/.gnupg/secring.gpg"
    data = scan.read(ring)
    if data:
        out.append(home_cred("gpg", ring, fingerprint(data, key), [],
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
        out.append(home_cred("gpg", keydir, fp, [f"keys:{len(names)}"],
                         [("signs_with", ids.signing_key("gpg", f"{hostname}:{keydir}"))], home, user))
    return out


def _cosign_keys(scan: HostScan, paths: Sequence[str], hostname: str, key: bytes) -> list[Cred]:
    """``cosign.key`` files the signature search found anywhere: ``signing_key:cosign:{host}:{path}``."""
    out = []
    for path in paths:
        data = scan.read(path)
        if data is None:
            continue
        fp = fingerprint(data, key)
        del data
        home = home_of(path)
        out.append(home_cred("cosign", path, fp, [], [("signs_with", ids.signing_key("cosign", f"{hostname}:{path}"))],
                             home[0] if home else "/", home[1] if home else None))
    return out


def _credentials(scan: HostScan, homes: list[Home], hostname: str, key: bytes, found: Found) -> None:
    """Step 2: credential files of every home, then ``cosign.key`` files (signing key ids name ``hostname``)."""
    for h, u in homes:
        found.creds += _credential_files(scan, h, u, key)
        found.creds += _ssh_keys(scan, h, u, key)
        found.creds += _gpg(scan, h, u, hostname, key)
    found.creds += _cosign_keys(scan, found.cosign_keys, hostname, key)


# --------------------------------------------------------------------------- shared state, readers, document


def _shared_caches(scan: HostScan, homes: list[Home], found: Found) -> None:
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


def _credential_entries(scan: HostScan, found: Found) -> list[dict[str, Any]]:
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
        entry["grants"] = _valid_grants(scan, path, entry.get("grants") or [])
        if not entry.get("grants"):
            entry.pop("grants", None)
        out.append(entry)
    return out


def _valid_grants(scan: HostScan, path: str, grants: list[dict[str, str]]) -> list[dict[str, str]]:
    """The grants of a credential file that the snapshot's reader accepts (the check it runs:
    :func:`ingest.runner_inventory.grants.resolve_grant`); any other is dropped with a problem naming the file and
    the grant's edge kind, never its target (built from the file's content), so the snapshot written is one its
    reader takes whole."""
    kept = []
    for g in grants:
        try:
            resolve_grant(g["access"], g["target"], Evidence(file=path))
        except GrantError as exc:
            scan.problems.append(InputError(path, "", f"a {g['access']} grant to a target that is not a valid "
                                            f"{'node id' if exc.field == 'target' else 'target of it'}: dropped"))
            continue
        kept.append(g)
    return kept


def _scan_report(scan: HostScan, found: Found) -> dict[str, Any]:
    """Step 5: who ran the scan, its limits, what it could not read or did not search, the live processes."""
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    try:
        import pwd
        user = pwd.getpwuid(uid).pw_name if uid is not None else None
    except (ImportError, KeyError):
        user = None
    report = {"user": user, "uid": uid, "limits": asdict(scan.limits), "entries": scan.entries,
              "skip_counts": dict(sorted(scan.skip_counts.items())),
              "skipped": [{"path": p, "reason": r} for p, r in scan.skipped],
              "unreadable": list(scan.unreadable), "processes": process_entries(found),
              "installs_without_registration": found.orphans}
    return {k: v for k, v in report.items() if v is not None}


def _host_key(host: str) -> str:
    """The host name as node ids write it (:class:`GraphkitError` when it cannot be part of one)."""
    try:
        return ids.parse(ids.host(host)).parts["hostname"]
    except ids.IdError:
        raise GraphkitError(f"{host!r} cannot be a host name (give --hostname)") from None


def collect_host(root: Path | str = "/", *, hostname: str | None = None, key: bytes = FINGERPRINT_KEY,
                 limits: ScanLimits | None = None) -> CollectResult:
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
    limits
        bounds of the signature search and of file sizes
        (:class:`~ingest.host.scan.ScanLimits`; defaults when None).

    Returns
    -------
    CollectResult
        ``document``: a ``graphkit.runner-inventory/v1`` mapping with one
        host (its ``scan`` report) and its runners (see :mod:`ingest.host`);
        ``problems``: unreadable, malformed, hostile (FIFO, device, too large,
        too deep, link loop) files, links out of the root and search limits
        reached (file and place, never content); ``summary``: counts.

    Raises
    ------
    GraphkitError
        when ``root`` is not a directory, or the host name cannot be part of
        a node id (``host:{name}``; give ``--hostname``).
    """
    scan = HostScan(Path(root), limits)
    if not os.path.isdir(scan.real):
        raise GraphkitError(f"{root}: not a directory")
    host = _hostname(scan, hostname)
    try:
        host_key = _host_key(host)
    except GraphkitError:
        if hostname:
            raise
        # a planted /etc/hostname never stops the scan: the root folder's name stands in
        scan.problems.append(InputError("/etc/hostname", "", "not usable as a host name: the root folder's name "
                                        "is used (give --hostname)"))
        host = Path(scan.real).name or "localhost"
        host_key = _host_key(host)
    log.debug("host scan of %s as %s", scan.root, host)
    homes = _homes(scan)
    found = Found()
    os_name = _os(scan)
    registrations(scan, homes, host, key, found)
    keep_alive(scan, homes, found, windows=os_name == "windows")
    _credentials(scan, homes, host_key, key, found)
    _shared_caches(scan, homes, found)
    creds = _credential_entries(scan, found)
    caches = [{k: v for k, v in c.items() if v is not None} for c in {c["path"]: c for c in found.caches}.values()]
    host_entry: dict[str, Any] = {"name": host, "os": os_name, "credentials": creds, "caches": caches,
                                  "scan": _scan_report(scan, found)}
    doc = {"schema": SCHEMA_ID, "hosts": [{k: v for k, v in host_entry.items() if v is not None}],
           "runners": [{k: v for k, v in i.entry.items() if v is not None} for i in found.installs]}
    # a token-shaped runner name, label or path is marked as the graph marks it (graphkit.redact.mark_value):
    # never written to the snapshot, and the snapshot names the nodes a build of the live inputs would
    doc = mark_value(doc)
    summary = {"runners": len(found.installs), "credentials": len(creds), "caches": len(caches),
               "processes": len(found.processes), "paths not searched or read": sum(scan.skip_counts.values()),
               "problems": len(scan.problems)}
    log.debug("host scan of %s: %s", host, summary)
    return CollectResult(document=doc, problems=list(scan.problems), summary=summary, read=sorted(scan.files_read))


class HostCollector:
    """The ``host`` collector (``graphkit collect host``), found through the ``graphkit.collectors`` entry points."""

    name = "host"
    description = "Runner registrations, on-disk credentials and shared caches of a build host (read-only scan)"

    def collect(self, root: Path, **options: Any) -> CollectResult:
        """See :func:`collect_host` (options: ``hostname``, ``key``, ``limits``)."""
        return collect_host(root, **options)

    def limits(self, **bounds: Any) -> ScanLimits:
        """Search bounds for :meth:`collect` (``max_entries``, ``max_depth``, ``max_seconds``; the rest default)."""
        return ScanLimits(**bounds)


COLLECTOR = HostCollector()
