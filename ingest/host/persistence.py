"""Step 2 of the host collector: how each runner stays alive, what runs for its every job, which process runs it.

For every registration found (:mod:`ingest.host.registrations`):

- **kept alive by**: systemd units (system and user), crontabs (``@reboot``
  included), shell profiles and ``rc.local``, launchd plists, the Windows
  service named in the runner folder's ``.service`` (when the root is a
  Windows system), and the session a live process runs in; a runner kept
  alive or running outside the supervisor its installer sets up is
  ``unsupervised`` (parsers and sources: :mod:`ingest.host.keepalive`); a
  path naming the runner's folder through a link inside the root
  (``/opt/actions-runner -> /srv/ar``) names that folder (:class:`_Folders`);
- **job hooks**: ``ACTIONS_RUNNER_HOOK_JOB_STARTED`` / ``_COMPLETED`` set in
  the runner's ``.env`` or its unit's environment (the only lines of ``.env``
  kept), each hook script recorded as a host cache of kind ``job-hook`` read
  by that runner's jobs (GitHub docs "Running scripts before or after a job",
  https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/running-scripts-before-or-after-a-job);
  and a ``runsvc.sh`` holding commands the shipped script does not;
- **processes**: live ``Runner.Listener`` / ``Runner.Worker`` /
  ``gitlab-runner`` processes (:mod:`ingest.host.procs`) matched to the
  registration whose folder they run from; one matching none is reported.

Finally each host cache that one runner's jobs execute from (its work folder,
its hooks) names its readers (``read_by``) and the runners whose user can
change it (``written_by``: same user, root, or any when world-writable).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any

from ingest.host.found import Found, Home, Install, guarded
from ingest.host.keepalive import Starter, hook_lines, parse_cron, parse_script, parse_unit, runsvc_modified
from ingest.host.procs import RunnerProc, parse_passwd, runner_processes
from ingest.host.scan import HostScan

__all__ = ["CRON_FILES", "PROFILE_FILES", "UNIT_DIRS", "keep_alive"]

#: systemd unit folders: (folder, user unit).  systemd.unit(5) "Unit File Load Path".
UNIT_DIRS = (("/etc/systemd/system", False), ("/lib/systemd/system", False), ("/usr/lib/systemd/system", False),
             ("/run/systemd/system", False), ("/usr/local/lib/systemd/system", False), ("/etc/systemd/user", True),
             ("/usr/lib/systemd/user", True))
_HOME_UNIT_DIRS = (".config/systemd/user", ".local/share/systemd/user")
#: crontabs: (file or folder, system crontab with a user field).  crontab(5).
CRON_FILES = (("/etc/crontab", True), ("/etc/cron.d", True), ("/etc/anacrontab", True),
              ("/var/spool/cron/crontabs", False), ("/var/spool/cron", False))
#: Scripts run at login or boot (host-wide), and in each home.
PROFILE_FILES = ("/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/bashrc", "/etc/rc.local",
                 "/etc/zsh/zshrc", "/etc/zprofile")
_HOME_PROFILES = (".bashrc", ".profile", ".bash_profile", ".bash_login", ".zshrc", ".zprofile", ".zshenv",
                  ".config/autostart")
_LAUNCHD_DIRS = ("/Library/LaunchDaemons", "/Library/LaunchAgents")
#: At most this many files of one folder are read (a folder of planted files never stops the scan).
MAX_FILES_PER_DIR = 2000


def _files(scan: HostScan, path: str, suffix: str = "") -> Iterator[str]:
    """``path`` itself when a file, else its files (one level, and ``*.d`` / ``*.wants`` sub-folders)."""
    if not scan.is_dir(path):
        if scan.exists(path):
            yield path
        return
    for n, name in enumerate(scan.listdir(path)):
        if n >= MAX_FILES_PER_DIR:
            return
        child = f"{path}/{name}"
        if scan.is_dir(child) and name.endswith((".d", ".wants", ".requires")) and path.count("/") < 6:
            yield from _files(scan, child, suffix)
        elif name.endswith(suffix) and not scan.is_dir(child):
            yield child


def _text(scan: HostScan, path: str) -> str | None:
    data = scan.read(path)
    return None if data is None else data.decode("utf-8", "replace")


def _target(scan: HostScan, host_path: str) -> str:
    """The host path a link resolves to inside the root (the path itself when not a link or unresolvable)."""
    local, _ = scan.resolve(host_path)
    if local is None or scan.readlink(host_path) is None:
        return host_path
    rel = os.path.relpath(local, scan.real).replace(os.sep, "/")
    return "/" if rel == "." else "/" + rel


#: An absolute path in a command line, unit or plist (ended by a blank, quote, shell operator, ``:`` or ``=``).
_PATH = re.compile(r"(?<![\w.~$/])/[^\s\"';&|)`<>,:=]+")
#: At most this many components of one path are looked at for links.
_MAX_PARTS = 64


class _Folders(list[str]):
    """The registrations' folders, and the paths a starter's text names that reach one through a link, resolved
    inside the root as the host would (:meth:`~ingest.host.scan.HostScan.canonical`): a unit starting
    ``/opt/actions-runner/runsvc.sh`` with ``/opt/actions-runner -> /srv/ar`` starts the runner the search found in
    ``/srv/ar`` (the search never follows a link).  :attr:`links` maps each such path to its folder."""

    def __init__(self, scan: HostScan, folders: list[str]) -> None:
        super().__init__(folders)
        self.scan = scan
        #: a path naming a folder through a link -> that folder
        self.links: dict[str, str] = {}
        self._linked: dict[str, bool] = {}  # a path holds a link (in itself or a parent), per path

    def of(self, text: str) -> list[str]:
        """The folders, then the linked paths ``text`` names that resolve to one (only ``lstat`` is used)."""
        named = [a for token in sorted(set(_PATH.findall(text))) for a in self._aliases(token)]
        return [*self, *dict.fromkeys(named)]

    def _aliases(self, token: str) -> Iterator[str]:
        parts = PurePosixPath(token).parts[1:_MAX_PARTS + 1]
        for i in range(1, len(parts) + 1):
            prefix = "/" + "/".join(parts[:i])
            if prefix not in self._linked:
                parent = "/" + "/".join(parts[:i - 1])
                # a parent with no link: the prefix's own lstat stays in the root
                self._linked[prefix] = self._linked.get(parent, False) or os.path.islink(self.scan.local(prefix))
                real = self.scan.canonical(prefix) if self._linked[prefix] else None
                if real is not None and real != prefix and real in self:
                    self.links[prefix] = real
            if prefix in self.links:
                yield prefix


def _unit_starters(scan: HostScan, homes: list[Home], folders: list[str]) -> Iterator[tuple[str, Starter, list[str]]]:
    """System and user systemd units naming a folder (each unit file once)."""
    seen: set[str] = set()
    units = [(d, user_unit, None) for d, user_unit in UNIT_DIRS]
    units += [(f"{h}/{rel}", True, u) for h, u in homes for rel in _HOME_UNIT_DIRS]
    for d, user_unit, owner in units:
        for link in _files(scan, d, ".service"):
            path = _target(scan, link)  # a `*.wants` link names the unit file it enables: read that one once
            text = _text(scan, path) if path not in seen else None
            seen.add(path)
            yield from parse_unit(text or "", path, _named(folders, text), user_unit=user_unit, home_user=owner)


def _named(folders: list[str], text: str | None) -> list[str]:
    """The folders a starter's ``text`` may name: with their linked paths when ``folders`` is a :class:`_Folders`."""
    return folders.of(text) if isinstance(folders, _Folders) and text else folders


def _cron_starters(scan: HostScan, folders: list[str]) -> Iterator[tuple[str, Starter, list[str]]]:
    """Crontab entries naming a folder (each crontab once: ``/var/spool/cron`` holds ``crontabs``)."""
    seen: set[str] = set()
    for place, system in CRON_FILES:
        for path in _files(scan, place):
            text = _text(scan, path) if path not in seen else None
            seen.add(path)
            user = None if system else PurePosixPath(path).name
            yield from ((f, s, []) for f, s in parse_cron(text or "", path, _named(folders, text), user=user,
                                                          system=system))


def _profile_starters(scan: HostScan, homes: list[Home], folders: list[str]) -> Iterator[tuple[str, Starter, list[str]]]:
    """Login profiles, ``rc.local`` and autostart entries naming a folder."""
    profiles = [(p, None) for p in PROFILE_FILES] + [(f"{h}/{rel}", u) for h, u in homes for rel in _HOME_PROFILES]
    for place, user in profiles:
        for path in _files(scan, place):
            mechanism = "rc" if path.endswith("rc.local") else "profile"
            text = _text(scan, path)
            yield from ((f, s, []) for f, s in parse_script(text or "", path, _named(folders, text), mechanism, user))


def _starters(scan: HostScan, homes: list[Home], folders: list[str]) -> Iterator[tuple[str, Starter, list[str]]]:
    """``(folder, starter, job hooks)`` from units, crontabs, profiles and launchd plists naming a folder."""
    yield from _unit_starters(scan, homes, folders)
    yield from _cron_starters(scan, folders)
    yield from _profile_starters(scan, homes, folders)
    yield from _launchd(scan, homes, folders)


def _launchd(scan: HostScan, homes: list[Home], folders: list[str]) -> Iterator[tuple[str, Starter, list[str]]]:
    """launchd plists (XML or binary) naming a folder; the installer's is ``actions.runner.*.plist``."""
    import plistlib
    places = [(d, None) for d in _LAUNCHD_DIRS] + [(f"{h}/Library/LaunchAgents", u) for h, u in homes]
    for d, user in places:
        for path in _files(scan, d, ".plist"):
            data = scan.read(path)
            doc = guarded(scan, path, lambda: plistlib.loads(data)) if data else None  # noqa: B023
            del data
            text = repr(doc) if doc is not None else ""
            for f in _named(folders, text):
                if f in text:
                    name = PurePosixPath(path).name
                    yield f, Starter("launchd", path, None, (), user, name.startswith("actions.runner.")), []


def _process_starter(proc: RunnerProc) -> Starter:
    """How a live process is kept: its systemd unit, or the login session (``session-N.scope``) it was started
    from, with a detaching parent (screen, tmux) when there is one."""
    unit = proc.unit or ""
    parent = (proc.parent or "").split(":")[0].lower()
    detached = tuple(d for d in ("screen", "tmux") if parent.startswith(d))
    if unit.endswith(".service"):
        return Starter("process", unit, None, detached, proc.user, False)
    return Starter("session", unit or f"parent {proc.parent or 'unknown'}", None, detached, proc.user, False)


def _match_processes(scan: HostScan, found: Found) -> dict[str, list[RunnerProc]]:
    """Live runner processes by registration key; each gets its registration; all go to ``found.processes``."""
    by_key: dict[str, list[RunnerProc]] = {}
    for proc in runner_processes(scan):
        proc.cwd = scan.host_path(proc.cwd) if proc.cwd else None
        paths = [scan.host_path(p) for p in proc.folders]
        inst = next((i for i in found.installs for p in paths for f in i.folders
                     if p == f or p.startswith(f.rstrip("/") + "/")), None)
        if inst is not None:
            proc.registration = inst.key
            by_key.setdefault(inst.key, []).append(proc)
        found.processes.append(proc.entry())
    return by_key


def _env_hooks(scan: HostScan, inst: Install) -> list[str]:
    """Job hooks set in a GitHub runner's ``.env`` (``KEY=/path``; no other line of it is kept)."""
    if not inst.directory:
        return []
    env = scan.read(f"{inst.directory}/.env")
    hooks = hook_lines(env.decode("utf-8", "replace")) if env else []
    del env
    return [f"{k}={scan.host_path(v)}" for k, _, v in (h.partition("=") for h in hooks)]


def _hooks(scan: HostScan, inst: Install, hooks: list[str], procs: list[RunnerProc], found: Found) -> list[str]:
    """Every job hook of a runner (``.env``, unit environment, hook names seen only in its process environment);
    each script is a ``job-hook`` cache its jobs execute."""
    known = {h.partition("=")[0] for h in hooks}
    hooks = hooks + sorted({f"{k} (process environment)" for p in procs for k in p.env_keys
                            if k.startswith("ACTIONS_RUNNER_HOOK_") and k not in known})
    for h in hooks:
        path = h.partition("=")[2]
        if path.startswith("/") and scan.exists(path):
            found.cache(path, "job-hook", reader=inst.directory or inst.config)
    return list(dict.fromkeys(hooks))


def _hook_starters(scan: HostScan, env_hooks: dict[str, list[str]], found: Found,
                   folders: list[str]) -> Iterator[tuple[str, Starter, list[str]]]:
    """A job hook script that starts a runner: it runs before (or after) every job of the hooked runner."""
    users = {i.key: i.user for i in found.installs}
    for key, hooks in env_hooks.items():
        for h in hooks:
            path = h.partition("=")[2]
            text = _text(scan, path) if path.startswith("/") else None
            yield from ((f, s, []) for f, s in parse_script(text or "", path, _named(folders, text), "job-hook",
                                                            users.get(key)))


def _installer_missing(starters: list[Starter], procs: list[RunnerProc]) -> bool:
    """Kept alive (or running) outside its installer's supervisor: a non-installer starter, or a process that runs
    in no installer unit."""
    installer_units = {PurePosixPath(s.path).name for s in starters if s.installer}
    if any(not s.installer for s in starters if s.mechanism != "process"):
        return True
    return any(p.unit not in installer_units for p in procs)


def _registration_facts(scan: HostScan, inst: Install, got: list[tuple[Starter, list[str]]], procs: list[RunnerProc],
                        env_hooks: list[str], windows: bool, found: Found) -> None:
    """Fill one registration's ``kept_alive_by``, ``unsupervised``, ``job_hooks`` and ``runsvc_modified``."""
    starters = [s for s, _ in got]
    reg = inst.registration
    if windows and reg.get("service"):
        starters.append(Starter("windows-service", reg["service"], installer=True))
    starters += [_process_starter(p) for p in procs]
    if starters:
        reg["kept_alive_by"] = list(dict.fromkeys(s.text() for s in starters))
        reg["unsupervised"] = _installer_missing(starters, procs)
    unit_hooks = [f"{k}={scan.host_path(v)}" for _, hs in got for k, _, v in (h.partition("=") for h in hs)]
    hooks = _hooks(scan, inst, env_hooks + unit_hooks, procs, found)
    if hooks:
        reg["job_hooks"] = hooks
    if inst.directory:
        svc = _text(scan, f"{inst.directory}/runsvc.sh")
        reg["runsvc_modified"] = runsvc_modified(svc) if svc is not None else None
    inst.entry["registration"] = {k: v for k, v in reg.items() if v is not None}


def keep_alive(scan: HostScan, homes: list[Home], found: Found, windows: bool) -> None:
    """Step 2 (see the module docstring): fill each registration's ``kept_alive_by``, ``unsupervised``,
    ``job_hooks`` and ``runsvc_modified``, the host's processes and the job-hook caches."""
    procs = _match_processes(scan, found)
    folders = _Folders(scan, [f for i in found.installs for f in i.folders])
    env_hooks = {i.key: _env_hooks(scan, i) for i in found.installs}
    per_folder: dict[str, list[tuple[Starter, list[str]]]] = {}
    for folder, starter, hooks in [*_starters(scan, homes, folders), *_hook_starters(scan, env_hooks, found, folders)]:
        per_folder.setdefault(folders.links.get(folder, folder), []).append((starter, hooks))
    for inst in found.installs:
        got = [x for f in inst.folders for x in per_folder.get(f, [])]
        _registration_facts(scan, inst, got, procs.get(inst.key, []), env_hooks[inst.key], windows, found)
    _readers_and_writers(scan, found)


def _readers_and_writers(scan: HostScan, found: Found) -> None:
    """Each cache with a ``reader`` folder gets ``read_by`` (that runner) and ``written_by`` (runners whose user
    can change it: its owner, root, an unknown user, or any when group- or world-writable)."""
    by_folder = {f: i for i in found.installs for f in i.folders}
    users = parse_passwd(_text(scan, "/etc/passwd") or "")
    for c in found.caches:
        reader = by_folder.get(c.pop("reader", None) or "")
        if reader is None:
            continue
        st = scan.lstat(c["path"])
        shared = st is None or bool(st.st_mode & (stat.S_IWOTH | stat.S_IWGRP))
        owner = users.get(st.st_uid) if st is not None else None
        c["read_by"] = [reader.key]
        c["written_by"] = sorted(i.key for i in found.installs if shared or i.user in (None, "root", owner))


def process_entries(found: Found) -> list[dict[str, Any]]:
    """The host's runner processes, by pid."""
    return sorted(found.processes, key=lambda p: p["pid"])
