"""Host collector: pure parsers on real-shaped files, the read-only scan of a fake root, the canary test."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphkit.cli import app
from graphkit.errors import InputError
from host_fixtures import CANARIES, KEY_HEADER, make_root, runner_install, write
from ingest import runner_inventory
from ingest.host import (collect_host, fingerprint, is_private_key, parse_aws_config, parse_docker_config,
                         parse_gitlab_config, parse_kube_config, parse_launchd_plist, parse_npmrc, parse_runner_file,
                         parse_service_unit, scope_from_url)

cli = CliRunner()


# --------------------------------------------------------------------------- pure parsers


def test_runner_file_shapes():
    text = "\ufeff" + json.dumps({"agentId": 5, "agentName": "r", "poolId": 2, "poolName": "gpu",
                                  "serverUrl": "https://x.invalid", "gitHubUrl": "https://github.com/Acme/App",
                                  "workFolder": "/data/work", "ephemeral": True})
    r = parse_runner_file(text, ".runner")
    assert (r.agent_id, r.pool_name, r.work_folder, r.ephemeral) == (5, "gpu", "/data/work", True)
    assert scope_from_url(r.github_url) == "acme/app"
    assert scope_from_url("https://github.com/enterprises/big") == "enterprises/big"
    with pytest.raises(InputError, match="agentName"):
        parse_runner_file("{}", ".runner")
    with pytest.raises(InputError) as exc:
        parse_runner_file("{not json " + CANARIES["runner_env"], ".runner")
    assert CANARIES["runner_env"] not in str(exc.value)


def test_service_unit_and_launchd_users():
    unit = parse_service_unit("[Service]\nExecStart=/opt/ar/runsvc.sh\nWorkingDirectory=/opt/ar\n",
                              "actions.runner.acme.r.service", "/etc/systemd/system/x", system=True)
    assert (unit.user, unit.directories) == ("root", ("/opt/ar",))  # no User=: a system unit runs as root
    agent = parse_service_unit("[Service]\nExecStart=/home/bob/ar/runsvc.sh\n", "u", "p", system=False,
                               home_user="bob")
    assert agent.user == "bob"
    import plistlib
    daemon = plistlib.dumps({"Label": "actions.runner.acme.mac1", "ProgramArguments": ["/Users/ci/ar/runsvc.sh"],
                             "UserName": "ci"})
    got = parse_launchd_plist(daemon, "/Library/LaunchDaemons/x.plist", daemon=True)
    assert (got.name, got.user, got.directories) == ("actions.runner.acme.mac1", "ci", ("/Users/ci/ar",))
    with pytest.raises(InputError):
        parse_launchd_plist(b"not a plist", "p", daemon=True)


def test_gitlab_config_token_is_only_fingerprinted():
    text = ('[[runners]]\nname = "a"\nurl = "https://gitlab.example.com/"\n'
            f'token = "{CANARIES["gitlab_token"]}"\nexecutor = "shell"\n'
            '[[runners]]\nurl = "https://gitlab.example.com/"\nexecutor = "docker"\n[runners.docker]\n'
            'volumes = ["/var/run/docker.sock:/var/run/docker.sock"]\n')
    a, b = parse_gitlab_config(text, "config.toml")
    assert a.token_fingerprint == fingerprint(CANARIES["gitlab_token"].encode())
    assert (a.executor, a.docker_socket, b.name, b.docker_socket, b.socket_paths) == (
        "shell", False, "runner-1", True, ("/var/run/docker.sock",))
    assert CANARIES["gitlab_token"] not in repr((a, b))
    with pytest.raises(InputError) as exc:
        parse_gitlab_config(f'token = "{CANARIES["gitlab_token"]}\n', "config.toml")
    assert CANARIES["gitlab_token"] not in str(exc.value)


def test_credential_parsers_read_grants_not_values():
    aws = parse_aws_config("[profile ci]\nrole_arn = arn:aws:iam::111122223333:role/ci\n"
                           "credential_source = Ec2InstanceMetadata\n")
    assert aws.present and aws.roles == ["arn:aws:iam::111122223333:role/ci"]
    docker = parse_docker_config(json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": "x"}},
                                             "credHelpers": {"123.dkr.ecr.eu-west-1.amazonaws.com": "ecr-login"}}))
    assert docker.access == ["registry:docker.io", "registry:123.dkr.ecr.eu-west-1.amazonaws.com"]
    kube = parse_kube_config("clusters:\n- cluster: {server: https://k}\nusers:\n- user: {exec: {command: aws}}\n")
    assert kube.grants == [("deploys_to", "target:cluster:https://k")]
    npm = parse_npmrc("registry=https://npm.example.com/\n_authToken=x\n")
    assert npm.access == ["index:npm.example.com"]
    assert not parse_npmrc("registry=https://npm.example.com/\n").present
    assert is_private_key((KEY_HEADER + "\nabc\n").encode()) and not is_private_key(b"ssh-ed25519 AAAA")
    for bad in (parse_kube_config, parse_docker_config):
        with pytest.raises(ValueError) as exc:
            bad("{" + CANARIES["broken_yaml"] + ": [")
        assert CANARIES["broken_yaml"] not in str(exc.value)


# --------------------------------------------------------------------------- the scan


@pytest.fixture
def root(tmp_path) -> Path:
    return make_root(tmp_path)


def test_collect_finds_registrations_services_and_users(root):
    res = collect_host(root)
    doc = res.document
    runners = {r["scope"] + "/" + r["name"]: r for r in doc["runners"]}
    assert set(runners) == {"acme/build-01-a", "evil-corp/build-01-x", "gitlab.example.com/gl-build-01"}
    a, x, gl = runners["acme/build-01-a"], runners["evil-corp/build-01-x"], runners["gitlab.example.com/gl-build-01"]
    assert (a["id"], a["runner_group"], a["ephemeral"], a["host"]) == (101, "shared-linux", False, "build-01")
    assert a["registration"]["service"] == "actions.runner.acme.build-01-a.service"
    assert (a["registration"]["user"], a["registration"]["runs_as_root"]) == ("runner", False)
    assert (x["registration"]["user"], x["registration"]["runs_as_root"]) == ("root", True)
    assert a["registration"]["credential_path"] == "/opt/actions-runner/.credentials"
    assert a["registration"]["work_folder"] == "/opt/actions-runner/_work"
    assert (gl["platform"], gl["registration"]["executor"], gl["registration"]["privileged"],
            gl["registration"]["docker_socket"]) == ("gitlab", "docker", True, True)
    assert "labels" not in a  # labels live server-side
    host = doc["hosts"][0]
    assert (host["name"], host["os"]) == ("build-01", "linux")
    creds = {c["path"]: c for c in host["credentials"]}
    assert {c["credential_type"] for c in creds.values()} == {
        "runner", "gitlab-runner", "aws", "docker", "kube", "npm", "pypi", "gh", "git", "ssh", "gpg", "cosign"}
    aws = creds["/home/runner/.aws/credentials"]
    assert aws["grants"] == [{"access": "assumes_role",
                              "target": "cloud_role:aws:arn:aws:iam::111122223333:role/acme-ci-builder"}]
    assert aws["access"] == ["profile:default"] and aws["lifetime"] == "until_rotated"
    assert "/home/runner/.aws/config" not in creds  # only names roles for the keys file: no separate credential
    assert creds["/opt/actions-runner/.credentials"]["lifetime"] == "until_runner_removed"
    assert creds["/home/runner/release/cosign.key"]["grants"][0]["target"].startswith("signing_key:cosign:build-01:")
    caches = {c["path"]: c["kind"] for c in host["caches"]}
    assert caches == {"/opt/hostedtoolcache": "toolcache", "/opt/actions-runner/_work": "work",
                      "/root/.cache-svc/ar/_work": "work", "/var/run/docker.sock": "docker-socket",
                      "/home/runner/.cache/pip": "pip"}
    # the link out of the root and the malformed files are problems naming the file, never the content
    places = {p.file: p.reason for p in res.problems}
    assert places["/home/admin/.aws/credentials"].startswith("link out of the scanned root")
    assert set(places) == {"/home/admin/.aws/credentials", "/home/admin/.kube/config", "/home/admin/.pypirc"}
    # the document is a valid runner inventory
    parsed = runner_inventory.parse(json.dumps(doc), "host.json")
    assert parsed.problems == [] and runner_inventory.to_graph([parsed]).problems == []


def test_readable_by_follows_users_and_modes(root):
    os.chmod(root / "root", 0o700)           # root's home is private: only runners running as root read it
    os.chmod(root / "home/runner", 0o750)
    creds = {c["path"]: c for c in collect_host(root).document["hosts"][0]["credentials"]}
    root_only = ["evil-corp/build-01-x", "gitlab.example.com/gl-build-01"]
    assert creds["/root/.gnupg/secring.gpg"]["readable_by"] == root_only
    assert creds["/home/runner/.aws/credentials"]["readable_by"] == ["acme/build-01-a", *root_only]
    assert creds["/home/admin/.pypirc"]["readable_by"] == ["acme/build-01-a", *root_only]  # world-readable


def test_scan_changes_nothing(root):
    def state():
        out = {}
        for dirpath, dirs, files in os.walk(root):
            for n in dirs + files:
                p = os.path.join(dirpath, n)
                st = os.lstat(p)
                out[p] = (st.st_mode, st.st_size, st.st_mtime_ns)
        return out
    before = state()
    collect_host(root)
    assert state() == before


def test_hostname_option_fingerprint_key_and_ephemeral(tmp_path):
    root = tmp_path / "r"
    runner_install(root, "/home/ci/actions-runner", agent_id=3, name="e1", url="https://github.com/acme/app",
                   ephemeral=True, unit=None)
    res = collect_host(root, hostname="VM-7")
    (r,) = res.document["runners"]
    assert (r["host"], r["scope"], r["ephemeral"], r["registration"]["user"]) == ("VM-7", "acme/app", True, "ci")
    assert "runner_group" not in r  # repository runners are in no group
    fp_default = r["registration"]["credential_fingerprint"]
    other = collect_host(root, hostname="VM-7", key=b"per-installation key")
    assert other.document["runners"][0]["registration"]["credential_fingerprint"] != fp_default


def test_cli_collect_host_writes_snapshot(root, tmp_path):
    out = tmp_path / "host.json"
    res = cli.invoke(app, ["collect", "host", "--root", str(root), "-o", str(out)])
    assert res.exit_code == 3, res.output  # partial: the link out of the root and two malformed files
    doc = json.loads(out.read_text())
    assert doc["schema"] == "graphkit.runner-inventory/v1" and len(doc["runners"]) == 3
    assert "3 runners" in res.stdout and "link out of the scanned root" in res.stderr


# --------------------------------------------------------------------------- canaries


def test_canaries_never_leave_the_files(root, tmp_path, caplog):
    """Every credential file type holds a canary; collect + build + findings + blast radius + diff through the
    CLI (table and JSON), plus every file written: no canary anywhere."""
    caplog.set_level(logging.DEBUG)
    inv = tmp_path / "inventory.yaml"
    inv.write_text("schema: graphkit.runner-inventory/v1\norganizations: [{name: acme}]\nrunners:\n"
                   "  - {name: build-01-a, labels: [self-hosted, linux], scope: acme, host: build-01}\n")
    host1, host2, graph = tmp_path / "h1.json", tmp_path / "h2.json", tmp_path / "g.json"
    outputs = []

    def run(*args):
        res = cli.invoke(app, list(args))
        assert res.exit_code in (0, 3), (args, res.output)
        outputs.append(res.stdout + res.stderr)
        return res

    run("collect", "host", "--root", str(root), "-o", str(host1))
    write(root, "home/runner/.npmrc", f"//npm.example.com/:_authToken={CANARIES['npm_token']}-rotated\n")
    run("collect", "host", "--root", str(root), "-o", str(host2))
    run("build", "--runners", str(host2), "--runners", str(inv), "-o", str(graph))
    for fmt in ("table", "json"):
        run("findings", "--graph", str(graph), "--format", fmt)
        run("blast-radius", "--graph", str(graph), "--from", "host:build-01", "--format", fmt)
        run("diff", str(host1), str(host2), "--format", fmt)
    texts = outputs + [p.read_text() for p in (host1, host2, graph)] + [r.getMessage() for r in caplog.records]
    texts.append(caplog.text)
    for name, canary in CANARIES.items():
        for t in texts:
            assert canary not in t, f"canary {name} leaked"
    assert any("rotated or replaced" in t for t in outputs)  # the diff saw the npm change, by fingerprint only


def test_role_arn_in_the_credentials_file_is_an_assumes_role_grant(tmp_path):
    # the AWS CLI reads role_arn from ~/.aws/credentials as well as from ~/.aws/config
    aws = tmp_path / "root" / "home" / "runner" / ".aws"
    aws.mkdir(parents=True)
    (aws / "credentials").write_text("[default]\naws_access_key_id = placeholder\naws_secret_access_key = canary-value-q7\n"
                                     "[deploy]\nrole_arn = arn:aws:iam::111122223333:role/deploy\n"
                                     "source_profile = default\n")
    out = tmp_path / "host.json"
    res = CliRunner().invoke(app, ["collect", "host", "--root", str(tmp_path / "root"), "-o", str(out)])
    assert res.exit_code == 0, res.output
    creds = [c for h in json.loads(out.read_text())["hosts"] for c in h["credentials"]]
    assert [(c["path"], c["grants"]) for c in creds] == [
        ("/home/runner/.aws/credentials",
         [{"access": "assumes_role", "target": "cloud_role:aws:arn:aws:iam::111122223333:role/deploy"}])]
    assert "canary-value-q7" not in out.read_text()


def test_grant_ids_are_built_by_the_id_constructors():
    from graphkit.model import ids
    assert parse_docker_config('{"auths": {"GHCR.io": {"auth": "x"}}}').grants == [
        ("publishes_to", ids.target("registry", "ghcr.io"))]
    assert parse_npmrc("//npm.example.com/:_authToken=x\n").grants == [
        ("publishes_to", ids.target("package_index", "npm.example.com"))]
    assert parse_kube_config("clusters:\n- cluster: {server: https://k}\nusers:\n- user: {token: x}\n").grants == [
        ("deploys_to", ids.target("cluster", "https://k"))]


def test_credentials_naming_no_target_are_present_without_grants(tmp_path):
    # a credential under a blank registry / index key is still a credential on disk, but names no node
    docker = parse_docker_config('{"auths": {"https://": {"auth": "x"}}}')
    assert (docker.present, docker.access, docker.grants) == (True, [], [])
    npm = parse_npmrc("//:_authToken=x\n")
    assert (npm.present, npm.access, npm.grants) == (True, [], [])
    root = tmp_path / "root"
    write(root, "home/ci/.npmrc", "//:_authToken=x\n")
    res = collect_host(root, hostname="h")
    assert [(c["path"], "grants" in c) for c in res.document["hosts"][0]["credentials"]] == [("/home/ci/.npmrc", False)]
    assert runner_inventory.parse(json.dumps(res.document), "host.json").problems == []


def test_unusable_host_names_and_urls(tmp_path):
    from graphkit.errors import GraphkitError
    root = tmp_path / "root"
    runner_install(root, "/opt/ar", agent_id=1, name="r", url="https://[::1/acme", unit=None)
    res = collect_host(root, hostname="h")
    assert res.document["runners"] == []
    assert [(p.file, p.place) for p in res.problems] == [("/opt/ar/.runner", "gitHubUrl")]
    with pytest.raises(GraphkitError, match="cannot be a host name"):
        collect_host(root, hostname="build:01")
