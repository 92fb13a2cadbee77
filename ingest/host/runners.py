"""Pure parsers of runner registrations on disk: ``.runner`` files, service units, launchd plists, GitLab config.

Text (or bytes) in, facts out; nothing here reads a file.  Errors name the
file and a place, never the content.

- ``.runner`` is the JSON that actions/runner's ``ConfigurationStore`` writes
  (``RunnerSettings``: ``agentId``, ``agentName``, ``poolId``, ``poolName``,
  ``serverUrl``, ``gitHubUrl``, ``workFolder``, ``ephemeral``; default values
  are omitted, so a missing ``ephemeral`` means false), see
  https://github.com/actions/runner/blob/main/src/Runner.Common/ConfigurationStore.cs.
- The service that starts a runner: a systemd unit
  (``actions.runner.<scope>.<name>.service``, systemd.exec(5)) or a launchd
  plist (``actions.runner.*.plist``, launchd.plist(5)) gives the account it
  runs as.
- GitLab runners: ``config.toml``, one registration per ``[[runners]]`` table,
  see https://docs.gitlab.com/runner/configuration/advanced-configuration/.
"""

from __future__ import annotations

import plistlib
import re
import tomllib
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from graphkit.errors import InputError
from ingest._yaml import load_json
from ingest.host.fingerprint import FINGERPRINT_KEY, fingerprint

__all__ = ["GitLabRunner", "RunnerFile", "ServiceUnit", "parse_gitlab_config", "parse_launchd_plist",
           "parse_runner_file", "parse_service_unit", "scope_from_url"]


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
    data = load_json(text.lstrip("\ufeff"), file=file)  # InputError: invalid, or nested past max_depth
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
    try:
        path = urlsplit(url).path
    except ValueError:  # e.g. an unclosed IPv6 bracket
        return None
    parts = [p for p in path.split("/") if p]
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

