"""Live runner processes from ``/proc`` under the scanned root (the live host, or a fixture), read-only.

For each process whose command is ``Runner.Listener``, ``Runner.Worker`` or
``gitlab-runner``: its working directory (the ``cwd`` link, read, never
followed), user (``status`` ``Uid:``, named from ``/etc/passwd``), parent
(``status`` ``PPid:`` and the parent's ``comm``), start time (``stat`` field
22, clock ticks after boot), the systemd unit or login session it runs in
(``cgroup``), and the **names** of its runner-relevant environment variables
(``environ``; values are never kept).  See proc(5):
https://man7.org/linux/man-pages/man5/proc.5.html.  The GitHub runner's
processes are ``bin/Runner.Listener`` and ``bin/Runner.Worker`` of its folder
(actions/runner ``src/Runner.Listener``, ``src/Runner.Worker``); a GitLab
runner is one ``gitlab-runner run`` process (its ``--config`` names the
``config.toml``).

Nothing is signalled, traced or executed: only files of ``/proc`` are read.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ingest.host.scan import HostScan

__all__ = ["ENV_PREFIXES", "RUNNER_COMMANDS", "RunnerProc", "parse_passwd", "runner_processes"]

#: Command names of runner processes.
RUNNER_COMMANDS = ("Runner.Listener", "Runner.Worker", "gitlab-runner")
#: Environment variable names kept (names only): runner settings, hooks, CI variables and code-injection hooks.
ENV_PREFIXES = ("RUNNER_", "ACTIONS_", "GITHUB_", "GITLAB_", "CI_")
_ENV_NAMES = ("LD_PRELOAD", "NODE_OPTIONS", "DOTNET_STARTUP_HOOKS", "BASH_ENV")
#: A scan reads at most this many process folders.
MAX_PROCESSES = 65536


@dataclass
class RunnerProc:
    """One live runner process (never its arguments or environment values)."""

    pid: int
    command: str
    user: str | None = None
    uid: int | None = None
    parent_pid: int | None = None
    parent: str | None = None
    cwd: str | None = None
    started_after_boot_s: float | None = None
    unit: str | None = None
    env_keys: list[str] = field(default_factory=list)
    #: folders it runs from (cwd, program folder's parent, ``--config`` file): matched against registrations
    folders: list[str] = field(default_factory=list)
    registration: str | None = None

    def entry(self) -> dict[str, object]:
        """The snapshot entry (``ScanProcess``)."""
        keys = ("pid", "command", "user", "uid", "parent_pid", "parent", "cwd", "started_after_boot_s", "unit",
                "env_keys", "registration")
        return {k: getattr(self, k) for k in keys if getattr(self, k) not in (None, [])}


def parse_passwd(text: str) -> dict[int, str]:
    """uid -> user name of an ``/etc/passwd`` text.

    >>> parse_passwd("root:x:0:0::/root:/bin/sh\\nci:x:1001:1001::/home/ci:/bin/sh\\n")
    {0: 'root', 1001: 'ci'}
    """
    out = {}
    for line in text.splitlines():
        parts = line.split(":")
        if len(parts) >= 3 and parts[2].isdigit():
            out.setdefault(int(parts[2]), parts[0])
    return out


def _text(scan: HostScan, path: str) -> str | None:
    data = scan.read(path)
    return None if data is None else data.decode("utf-8", "replace")


def _status(text: str) -> dict[str, str]:
    return {k.strip(): v.strip() for k, _, v in (ln.partition(":") for ln in text.splitlines())}


def _unit(cgroup: str | None) -> str | None:
    """The innermost ``.service`` or ``.scope`` of a cgroup text (``0::/system.slice/x.service`` -> ``x.service``)."""
    for line in (cgroup or "").splitlines():
        names = [p for p in line.rpartition(":")[2].split("/") if p.endswith((".service", ".scope"))]
        if names:
            return names[-1]
    return None


def _start(stat_text: str | None) -> float | None:
    """Field 22 (starttime, clock ticks after boot) of ``/proc/PID/stat``, in seconds."""
    if not stat_text or ")" not in stat_text:
        return None
    fields = stat_text.rpartition(")")[2].split()
    try:
        ticks = int(fields[19])
    except (IndexError, ValueError):
        return None
    hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    return round(ticks / (hz or 100), 2)


def _folders(scan: HostScan, base: str, argv: list[str], cwd: str | None) -> list[str]:
    """Folders a runner process runs from: its cwd, the install folder of ``.../bin/Runner.*``, ``--config``."""
    out = [cwd] if cwd else []
    prog = argv[0] if argv else (scan.readlink(f"{base}/exe") or "")
    if prog.startswith("/") and PurePosixPath(prog).parent.name == "bin":
        out.append(str(PurePosixPath(prog).parent.parent))
    for i, a in enumerate(argv[:-1]):
        if a in ("--config", "-c") and argv[i + 1].startswith("/"):
            out.append(argv[i + 1])
    return [f for f in dict.fromkeys(out) if f]


def _ids(status: dict[str, str]) -> tuple[int | None, int | None]:
    """``(uid, parent pid)`` of a ``status`` text's ``Uid:`` (real uid) and ``PPid:`` lines."""
    uid = status.get("Uid", "").split()
    ppid = status.get("PPid", "")
    return (int(uid[0]) if uid and uid[0].isdigit() else None), (int(ppid) if ppid.isdigit() else None)


def _env_keys(environ: bytes) -> list[str]:
    """Runner-relevant variable **names** of an ``environ`` (NUL-separated ``KEY=value``); values are dropped."""
    names = (e.partition(b"=")[0].decode("utf-8", "replace") for e in environ.split(b"\0"))
    return sorted({k for k in names if k.startswith(ENV_PREFIXES) or k in _ENV_NAMES})


def _process(scan: HostScan, pid: int, users: dict[int, str]) -> RunnerProc | None:
    base = f"/proc/{pid}"
    raw = scan.read(f"{base}/cmdline")
    argv = [a.decode("utf-8", "replace") for a in (raw or b"").split(b"\0") if a]
    comm = (_text(scan, f"{base}/comm") or "").strip()
    names = {comm, PurePosixPath(argv[0]).name if argv else ""}
    command = next((c for c in RUNNER_COMMANDS if c in names or comm == c[:15]), None)
    if command is None:
        return None
    uid, ppid = _ids(_status(_text(scan, f"{base}/status") or ""))
    parent = ((_text(scan, f"/proc/{ppid}/comm") or "").strip() or None) if ppid else None
    cwd = scan.readlink(f"{base}/cwd")
    env = scan.read(f"{base}/environ")
    keys = _env_keys(env or b"")
    del env, raw
    return RunnerProc(pid=pid, command=command, user=users.get(uid) if uid is not None else None, uid=uid,
                      parent_pid=ppid, parent=parent, cwd=cwd, started_after_boot_s=_start(_text(scan, f"{base}/stat")),
                      unit=_unit(_text(scan, f"{base}/cgroup")), env_keys=keys,
                      folders=_folders(scan, base, argv, cwd))


def runner_processes(scan: HostScan) -> list[RunnerProc]:
    """The runner processes of ``/proc`` under the root, by pid (none when there is no ``/proc``).

    Another user's ``environ`` or ``cwd`` is unreadable without privileges:
    the read is recorded in :attr:`HostScan.unreadable` and the fact left
    unknown.
    """
    users = parse_passwd(_text(scan, "/etc/passwd") or "")
    pids = sorted(int(n) for n in scan.listdir("/proc") if re.fullmatch(r"\d{1,10}", n))[:MAX_PROCESSES]
    out = []
    for pid in pids:
        proc = _process(scan, pid, users)
        if proc is not None:
            out.append(proc)
    return out
