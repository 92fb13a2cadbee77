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
