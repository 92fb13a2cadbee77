"""How a runner is kept alive: service units, cron, shell profiles, launchd, Windows services (pure parsers).

Text in, :class:`Starter` facts out; nothing here reads a file (the collector
step :func:`ingest.host.persistence.keep_alive` does, through
:class:`~ingest.host.scan.HostScan`).  A file *starts* a runner when one of its
command lines names the runner's folder (or a GitLab runner's ``config.toml``
or its folder), bounded by a path separator, quote, space or the end of the
line, so ``/opt/ar`` does not match ``/opt/ar2``.

What the installers set up (anything else keeping a runner alive is
*unsupervised*, a signal):

- GitHub: ``svc.sh install`` writes the systemd unit
  ``actions.runner.<scope>.<name>.service`` starting ``<folder>/runsvc.sh``
  (a launchd plist ``actions.runner.*.plist`` on macOS; on Windows ``config.cmd``
  registers a service, its name in the folder's ``.service`` file), GitHub docs
  "Configuring the self-hosted runner application as a service",
  https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/configuring-the-self-hosted-runner-application-as-a-service.
- GitLab: ``gitlab-runner install`` writes the system service
  ``gitlab-runner.service`` (``gitlab-runner run --config ...``), GitLab docs
  "GitLab Runner commands", https://docs.gitlab.com/runner/commands/#gitlab-runner-install.

Formats: systemd.service(5) / systemd.exec(5) (``ExecStart=``,
``WorkingDirectory=``, ``Environment=``; user units under
``~/.config/systemd/user``, systemd.unit(5) "User Unit Search Path");
crontab(5) (``@reboot``; ``/etc/crontab`` and ``/etc/cron.d`` name the user
in the sixth field, a spool file is its user's); launchd.plist(5).
Job hooks set in a unit's environment are GitHub's
``ACTIONS_RUNNER_HOOK_JOB_STARTED`` / ``_COMPLETED`` (GitHub docs "Running
scripts before or after a job",
https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/running-scripts-before-or-after-a-job).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath

__all__ = ["DETACHERS", "HOOK_KEYS", "Starter", "hook_lines", "mentions", "parse_cron", "parse_script",
           "parse_unit", "runsvc_modified"]

#: Environment variables naming job hook scripts (GitHub docs "Running scripts before or after a job").
HOOK_KEYS = ("ACTIONS_RUNNER_HOOK_JOB_STARTED", "ACTIONS_RUNNER_HOOK_JOB_COMPLETED")
#: Words on a command line that detach a process from its session (it survives the logout).
DETACHERS = ("nohup", "screen", "tmux", "setsid", "disown", "daemonize", "start-stop-daemon")
_UNIT_KEYS = ("ExecStart", "ExecStartPre", "ExecStartPost", "ExecReload", "WorkingDirectory", "Environment",
              "EnvironmentFile")


@dataclass(frozen=True)
class Starter:
    """One thing that starts a runner again.

    ``mechanism``: ``systemd``, ``systemd-user``, ``cron``, ``cron@reboot``,
    ``profile``, ``launchd``, ``windows-service`` or ``session``; ``path``: the
    file (or service name); ``line``: 1-based, when a line of it; ``detached``:
    :data:`DETACHERS` words on it; ``user``: the account it starts under when
    the file says; ``installer``: the supervisor the runner's installer sets up.
    """

    mechanism: str
    path: str
    line: int | None = None
    detached: tuple[str, ...] = ()
    user: str | None = None
    installer: bool = False

    def text(self) -> str:
        """``mechanism path[:line][ (detachers)]``.

        >>> Starter("cron@reboot", "/etc/cron.d/x", 2, ("nohup",)).text()
        'cron@reboot /etc/cron.d/x:2 (nohup)'
        """
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{self.mechanism} {where}" + (f" ({', '.join(self.detached)})" if self.detached else "")


def mentions(line: str, folder: str) -> bool:
    """True when ``line`` names ``folder`` or a path below it.

    >>> mentions("nohup /opt/ar/run.sh &", "/opt/ar"), mentions("/opt/ar2/run.sh", "/opt/ar")
    (True, False)
    >>> mentions('cd "/home/u/.x/ar"; ./run.sh', "/home/u/.x/ar")
    True
    """
    folder = folder.rstrip("/")
    return bool(folder) and re.search(re.escape(folder) + r"(?=$|[/\s\"';&|)`])", line) is not None


def _detachers(line: str) -> tuple[str, ...]:
    words = set(re.findall(r"[A-Za-z-]+", line))
    return tuple(d for d in DETACHERS if d in words) + (("&",) if re.search(r"&\s*(#.*)?$", line) else ())


def parse_script(text: str, path: str, folders: list[str], mechanism: str = "profile",
                 user: str | None = None) -> list[tuple[str, Starter]]:
    """``(folder, starter)`` for each command line of a shell script (profile, rc.local) naming a folder.

    >>> [(f, s.text()) for f, s in parse_script("# x\\nnohup /opt/ar/run.sh &\\n", "/root/.bashrc", ["/opt/ar"])]
    [('/opt/ar', 'profile /root/.bashrc:2 (nohup, &)')]
    """
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        for f in folders:
            if mentions(line, f):
                out.append((f, Starter(mechanism, path, n, _detachers(line), user)))
    return out


def parse_cron(text: str, path: str, folders: list[str], *, user: str | None = None,
               system: bool = False) -> list[(tuple[str, Starter])]:
    """``(folder, starter)`` for each crontab entry naming a folder; ``@reboot`` entries are ``cron@reboot``.

    ``system``: a system crontab (``/etc/crontab``, ``/etc/cron.d``) whose
    sixth field is the user; else the entries run as ``user`` (a spool file).

    >>> [(f, s.text(), s.user) for f, s in parse_cron("@reboot root /dev/shm/.r/run.sh\\n", "/etc/cron.d/x",
    ...                                                ["/dev/shm/.r"], system=True)]
    [('/dev/shm/.r', 'cron@reboot /etc/cron.d/x:1', 'root')]
    """
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#") or re.match(r"^[A-Za-z_][A-Za-z0-9_]*\s*=", line):
            continue  # comments and variable settings
        fields = line.split()
        reboot = fields[0] == "@reboot"
        schedule = 1 if fields[0].startswith("@") else 5
        who = fields[schedule] if system and len(fields) > schedule else user
        for f in folders:
            if mentions(line, f):
                out.append((f, Starter("cron@reboot" if reboot else "cron", path, n, _detachers(line), who)))
    return out


def hook_lines(text: str) -> list[str]:
    """``KEY=/path`` of each job hook variable set in an environment text (``.env``, ``Environment=``).

    Only the hook variables are kept, and only when their value is a path
    (other lines of a ``.env`` may hold secrets: never kept).

    >>> hook_lines("LANG=C\\nACTIONS_RUNNER_HOOK_JOB_STARTED=/opt/h/pre.sh\\nSECRET=x\\n")
    ['ACTIONS_RUNNER_HOOK_JOB_STARTED=/opt/h/pre.sh']
    """
    out = []
    for raw in re.split(r"[\n\s]+(?=[A-Z_]+=)|\n", text):
        k, sep, v = raw.strip().strip("\"'").partition("=")
        v = v.strip().strip("\"'")
        if sep and k.strip() in HOOK_KEYS and (v.startswith("/") or re.match(r"^[A-Za-z]:\\", v)):
            out.append(f"{k.strip()}={v}")
    return list(dict.fromkeys(out))


def parse_unit(text: str, path: str, folders: list[str], *, user_unit: bool,
               home_user: str | None = None) -> list[tuple[str, Starter, list[str]]]:
    """``(folder, starter, job hooks)`` for a systemd unit whose commands, working directory or environment name a
    folder.

    The installer's unit is named ``actions.runner.*.service`` and starts
    ``<folder>/runsvc.sh``, or is ``gitlab-runner.service``.

    >>> [(f, s.text(), s.user, s.installer) for f, s, _ in parse_unit(
    ...     "[Service]\\nExecStart=/opt/ar/runsvc.sh\\nUser=ci\\n", "/etc/systemd/system/actions.runner.a.b.service",
    ...     ["/opt/ar"], user_unit=False)]
    [('/opt/ar', 'systemd /etc/systemd/system/actions.runner.a.b.service', 'ci', True)]
    """
    lines = [ln.strip() for ln in text.splitlines()]
    user = next((ln.partition("=")[2].strip() for ln in lines if ln.startswith("User=")), None)
    user = user or (home_user if user_unit else "root")
    commands = [ln for ln in lines if ln.partition("=")[0].strip() in _UNIT_KEYS]
    hooks = hook_lines("\n".join(ln.partition("=")[2] for ln in commands if ln.startswith("Environment=")))
    out = []
    for f in folders:
        hits = [ln for ln in commands if mentions(ln, f)]
        if not hits:
            continue
        detached = tuple(dict.fromkeys(d for ln in hits for d in _detachers(ln) if d != "&"))
        out.append((f, Starter("systemd-user" if user_unit else "systemd", path, None, detached, user,
                               _installer_unit(PurePosixPath(path).name, hits, f)), hooks))
    return out


def _installer_unit(name: str, hits: list[str], folder: str) -> bool:
    """The unit an installer writes: ``actions.runner.*.service`` starting ``<folder>/runsvc.sh``, or
    ``gitlab-runner.service`` starting ``gitlab-runner``."""
    starts = [ln.partition("=")[2].lstrip("@-:+!") for ln in hits if ln.startswith("ExecStart=")]
    prog = _program(starts[0]) if starts else ""
    if name.startswith("actions.runner."):
        return prog == f"{folder.rstrip('/')}/runsvc.sh"
    return name == "gitlab-runner.service" and PurePosixPath(prog).name == "gitlab-runner"


def _program(command: str) -> str:
    """The program of a command line (first word, quotes removed; "" when unparsable)."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    return words[0] if words else ""


#: Command lines of the ``runsvc.sh`` shipped with actions/runner (``src/Misc/layoutbin/runsvc.sh``, both the
#: ``AgentService.js`` and ``RunnerService.js`` names), compared with blanks and comments removed.
_RUNSVC_LINES = frozenset({
    "#!/bin/bash", "trap 'kill -INT $PID' TERM INT", 'if [ -f ".Path" ]; then', "export PATH=`cat .Path`",
    'echo ".Path=${PATH}"', "fi", "./externals/node/bin/node ./bin/AgentService.js &",
    "./externals/node/bin/node ./bin/RunnerService.js &", "PID=$!", "wait $PID", "trap - TERM INT",
    "# configure", 'export PATH="$(cat .path)"', 'if [ -f ".path" ]; then', 'echo ".path=${PATH}"',
    "export PATH=`cat .path`", 'echo ".path=$PATH"',
})


def runsvc_modified(text: str) -> bool:
    """True when ``runsvc.sh`` holds a command line the shipped script does not (the count, never the content,
    is what the collector keeps).

    >>> runsvc_modified("#!/bin/bash\\nPID=$!\\nwait $PID\\n"), runsvc_modified("curl -s x | sh\\nwait $PID\\n")
    (False, True)
    """
    for raw in text.splitlines():
        line = raw.strip()
        if line and not (line.startswith("#") and line != "#!/bin/bash") and line not in _RUNSVC_LINES:
            return True
    return False
