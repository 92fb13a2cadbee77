"""Runner registrations on disk: GitHub ``.runner`` installations and GitLab ``config.toml`` files.

Where they are is found by signature anywhere under the root
(:mod:`ingest.host.search`); each is read here into a runner entry of the
snapshot with its service, user, registration credential (fingerprint only)
and work folders.  ``.runner`` is the JSON actions/runner's
``ConfigurationStore`` writes
(https://github.com/actions/runner/blob/main/src/Runner.Common/ConfigurationStore.cs);
GitLab's ``config.toml`` has one ``[[runners]]`` table per registration
(https://docs.gitlab.com/runner/configuration/advanced-configuration/).
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from graphkit.errors import InputError
from graphkit.model import ids
from graphkit.redact import strip_url_fields
from ingest.host.fingerprint import fingerprint
from ingest.host.found import Cred, Found, Home, Install, guarded
from ingest.host.runners import (GitLabRunner, RunnerFile, ServiceUnit, parse_gitlab_config, parse_launchd_plist,
                                 parse_runner_file, parse_service_unit, scope_from_url)
from ingest.host.scan import HostScan, home_of
from ingest.host.search import find_signatures

__all__ = ["SYSTEMD_DIRS", "registrations"]

SYSTEMD_DIRS = ("etc/systemd/system", "lib/systemd/system", "usr/lib/systemd/system")
_TOOL_CACHE_VARS = ("RUNNER_TOOL_CACHE", "AGENT_TOOLSDIRECTORY")


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
                del data
    return units


def _launchd_plists(scan: HostScan, homes: list[Home]) -> list[ServiceUnit]:
    units = []
    places = [("/Library/LaunchDaemons", True, None)] + [(f"{h}/Library/LaunchAgents", False, u) for h, u in homes]
    for d, daemon, user in places:
        for name in scan.listdir(d):
            data = scan.read(f"{d}/{name}") if name.startswith("actions.runner.") and name.endswith(".plist") else None
            if data is None:
                continue
            unit = guarded(scan, f"{d}/{name}", lambda: parse_launchd_plist(data, f"{d}/{name}", daemon=daemon,
                                                                            home_user=user))
            if unit is not None:
                units.append(unit)
    return units


def _runner_settings(scan: HostScan, d: str) -> tuple[RunnerFile, str] | None:
    """The ``.runner`` of an installation and the scope it registers to (None, with a problem, when unusable)."""
    data = scan.read(f"{d}/.runner")
    if data is None:
        return None
    rf = guarded(scan, f"{d}/.runner", lambda: parse_runner_file(data.decode("utf-8", "replace"), f"{d}/.runner"),
                 "registration skipped")
    if rf is None:
        return None
    scan.problems.extend(rf.problems)  # fields of the wrong type, read as unknown
    scope = scope_from_url(rf.github_url)
    if scope is None:
        scan.problems.append(InputError(f"{d}/.runner", "gitHubUrl", "no org or repository URL: registration skipped"))
        return None
    return rf, scope


def _service_of(scan: HostScan, d: str, units: list[ServiceUnit]) -> tuple[ServiceUnit | None, str | None]:
    """The service starting the runner in ``d`` and the unit name ``.service`` gives (written by svc.sh); else a
    unit whose directories hold the runner (their links followed inside the root as the host would: ``d``, found by
    the search, holds none)."""
    named = scan.read(f"{d}/.service")
    unit_name = named.decode("utf-8", "replace").strip() if named else None
    unit = next((u for u in units if unit_name and (u.name == unit_name or PurePosixPath(u.path).name == unit_name)),
                None) or next((u for u in units if d in {scan.canonical(scan.host_path(x)) for x in u.directories}),
                              None)
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


def _work_caches(scan: HostScan, d: str, work_dir: str, found: Found) -> None:
    """The work folder (its runner's jobs execute from it: ``reader`` is the runner's folder), its tool cache,
    and a tool cache named in ``.env`` (no other line of it is kept)."""
    if scan.is_dir(work_dir):
        found.cache(work_dir, "work", reader=d)
        if scan.is_dir(f"{work_dir}/_tool"):
            found.cache(f"{work_dir}/_tool", "toolcache")
    env = scan.read(f"{d}/.env")
    if env is None:
        return
    for line in env.decode("utf-8", "replace").splitlines():
        k, _, v = line.partition("=")
        path = scan.host_path(v.strip())
        if k.strip() in _TOOL_CACHE_VARS and path.startswith("/") and scan.is_dir(path):
            found.cache(path.rstrip("/"), "toolcache")
    del env


def _github_runner(scan: HostScan, d: str, hostname: str, units: list[ServiceUnit], key: bytes,
                   found: Found) -> Install | None:
    """The actions/runner installation in ``d``: its runner entry, registration credential and work caches."""
    settings = _runner_settings(scan, d)
    if settings is None:
        return None
    rf, scope = settings
    unit, unit_name = _service_of(scan, d, units)
    home = home_of(d)
    user = unit.user if unit is not None else (home[1] if home else None)
    work = rf.work_folder or "_work"
    work_dir = scan.host_path(work) if work.startswith("/") else f"{d}/{work}"
    cred_path, cred_fp = _registration_credential(scan, d, key)
    name = rf.agent_name
    ref = ids.runner_ref(scope, name)
    reg: dict[str, Any] = {"config_path": f"{d}/.runner", "url": rf.github_url, "server_url": rf.server_url,
                           "agent_id": rf.agent_id, "pool_id": rf.pool_id, "work_folder": work_dir,
                           "service": unit.name if unit else unit_name, "user": user,
                           "runs_as_root": None if user is None else user == "root",
                           "credential_path": cred_path, "credential_fingerprint": cred_fp}
    entry: dict[str, Any] = {"name": name, "id": rf.agent_id, "scope": scope, "ephemeral": rf.ephemeral,
                             "host": hostname, "platform": "github",
                             "registration": strip_url_fields({k: v for k, v in reg.items() if v is not None},
                                                              key=key)}
    if "/" not in scope and rf.pool_name:
        entry["runner_group"] = rf.pool_name
    if cred_path is not None:
        found.creds.append(Cred({"credential_type": "runner", "path": cred_path, "fingerprint": cred_fp,
                                  "lifetime": "until_runner_removed", "access": [f"registration:{ref}"]},
                                 home, d))
    _work_caches(scan, d, work_dir, found)
    return Install(key=ref, entry=entry, user=user, directory=d)


# --------------------------------------------------------------------------- GitLab runners


def _url_host(url: str | None) -> str:
    """The lower-cased host of a URL ("" when absent or unparsable)."""
    try:
        return (urlsplit(url).hostname or "").lower() if url else ""
    except ValueError:
        return ""


def _gitlab_install(scan: HostScan, path: str, r: GitLabRunner, user: str, hostname: str,
                    seen: set[str]) -> Install | None:
    """One ``[[runners]]`` table as a runner entry (scope: the GitLab host); a second one with the same name
    gets its id (or index) appended."""
    scope = _url_host(r.url)
    if not scope:
        scan.problems.append(InputError(path, f"runners[{r.index}].url", "missing: registration skipped"))
        return None
    name = r.name if ids.runner_ref(scope, r.name) not in seen else f"{r.name}-{r.id or r.index}"
    seen.add(ids.runner_ref(scope, name))
    reg = {"config_path": path, "url": r.url, "agent_id": r.id, "executor": r.executor, "user": user,
           "runs_as_root": user == "root", "privileged": r.privileged, "docker_socket": r.docker_socket,
           "credential_path": path, "credential_fingerprint": r.token_fingerprint}
    return Install(key=ids.runner_ref(scope, name), user=user, directory=None, config=path, entry={
        "name": name, "id": r.id, "scope": scope, "ephemeral": False, "host": hostname, "platform": "gitlab",
        "registration": strip_url_fields({k: v for k, v in reg.items() if v is not None})})


def _gitlab_config(scan: HostScan, path: str, hostname: str, key: bytes, found: Found) -> list[Install]:
    """The registrations of one GitLab ``config.toml``; the file (its tokens) is one credential."""
    data = scan.read(path)
    if data is None:
        return []
    file_fp = fingerprint(data, key)
    runners = guarded(scan, path, lambda: parse_gitlab_config(data.decode("utf-8", "replace"), path, key),
                      "registrations skipped")
    del data
    if runners is None:
        return []
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
        found.creds.append(Cred({"credential_type": "gitlab-runner", "path": path, "fingerprint": file_fp,
                                  "lifetime": "until_runner_removed",
                                  "access": [f"registration:{i.key}" for i in out]},
                                 home, str(PurePosixPath(path).parent)))
    return out


def _tell_apart(installs: list[Install]) -> None:
    """The same scope/name twice (a copied installation): keep both, the later ones named ``name~2``..."""
    counts: dict[str, int] = {}
    for inst in installs:
        n = counts[inst.key] = counts.get(inst.key, 0) + 1
        if n > 1:
            if isinstance(inst.entry.get("registration"), dict):  # the name the server knows, for its removal
                inst.entry["registration"]["agent_name"] = inst.entry["name"]
            inst.entry["name"] = f"{inst.entry['name']}~{n}"
            inst.key = ids.runner_ref(inst.entry["scope"], inst.entry["name"])


def registrations(scan: HostScan, homes: list[Home], hostname: str, key: bytes, found: Found) -> None:
    """Step 1: search the whole root for runner signatures (:func:`ingest.host.search.find_signatures`), then
    read each GitHub installation (with its service) and each GitLab configuration."""
    sigs = find_signatures(scan)
    units = _systemd_units(scan, homes) + _launchd_plists(scan, homes)
    for d in sigs.runner_dirs:
        inst = _github_runner(scan, d, hostname, units, key, found)
        if inst is not None:
            found.installs.append(inst)
    for path in sigs.gitlab_configs:
        found.installs += _gitlab_config(scan, path, hostname, key, found)
    found.orphans += sigs.orphans
    found.cosign_keys += sigs.cosign_keys
    _tell_apart(found.installs)
