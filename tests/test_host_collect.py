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
from graphkit.model import ids
from host_fixtures import (CANARIES, HIDEOUT_CANARIES, HIDEOUTS, KEY_HEADER, make_hideouts, make_root, plant_hostile,
                           runner_install, write)
from ingest import runner_inventory
from ingest.host import (collect_host, fingerprint, is_private_key, parse_aws_config, parse_docker_config,
                         parse_gitlab_config, parse_kube_config, parse_launchd_plist, parse_npmrc, parse_runner_file,
                         parse_service_unit, scope_from_url)
from ingest.host.scan import ScanLimits

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
    # the document is a valid runner inventory; building it says what the scan did not read (partial input)
    parsed = runner_inventory.parse(json.dumps(doc), "host.json")
    assert parsed.problems == []
    assert [(p.place, p.reason) for p in runner_inventory.to_graph([parsed]).problems] == [
        ("hosts[0].scan", "the scan of this host did not search or read 1 path(s) (link out of root: 1): a runner or "
                          "credential there is unknown (line 1)")]


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


# --------------------------------------------------------------------------- a host as an attacker leaves it


@pytest.fixture
def hideouts(tmp_path) -> tuple[Path, dict[str, str]]:
    root = make_hideouts(tmp_path)
    return root, plant_hostile(root, tmp_path)


def test_every_planted_registration_is_found_with_how_it_stays_alive(hideouts):
    root, _ = hideouts
    res = collect_host(root)
    found = {r["registration"]["config_path"].rpartition("/")[0]: r for r in res.document["runners"]}
    assert set(found) == set(HIDEOUTS)  # eleven places: homes' dot-folders, /tmp, /dev/shm, /etc, /usr/lib, deep...
    for folder, (key, starter) in HIDEOUTS.items():
        r = found[folder]
        assert f"{r['scope']}/{r['name']}" == key
        assert starter in r["registration"]["kept_alive_by"], (folder, r["registration"])
        assert r["registration"]["unsupervised"] is (key != "acme/build-01-a")
    legit = found["/opt/actions-runner"]["registration"]
    assert legit["job_hooks"] == ["ACTIONS_RUNNER_HOOK_JOB_STARTED=/usr/local/lib/ci-hooks/pre-job.sh"]
    assert legit["runsvc_modified"] is True  # a curl | sh line the shipped runsvc.sh does not have
    caches = {c["path"]: c for c in res.document["hosts"][0]["caches"]}
    assert caches["/usr/local/lib/ci-hooks/pre-job.sh"]["kind"] == "job-hook"
    assert caches["/usr/local/lib/ci-hooks/pre-job.sh"]["read_by"] == ["acme/build-01-a"]
    assert caches["/var/lib/docker"]["kind"] == "docker-images" and "read_by" not in caches["/var/lib/docker"]
    assert caches["/opt/actions-runner/_work"]["read_by"] == ["acme/build-01-a"]
    assert found["/opt/vendor/a/b/c/d/e/f/g/h/ar"]["registration"]["job_hooks"] == [
        "ACTIONS_RUNNER_HOOK_JOB_STARTED (process environment)"]
    # the parsed document is a valid inventory; building it says what the scan did not read (the pseudo filesystem
    # is the scan's design, not a gap)
    parsed = runner_inventory.parse(json.dumps(res.document), "host.json")
    assert parsed.problems == []
    assert [p.reason for p in runner_inventory.to_graph([parsed]).problems] == [
        "the scan of this host did not search or read 7 path(s) (depth limit: 1, file too large: 1, link loop: 1, link out of "
        "root: 2, not a regular file: 2): a runner or credential there is unknown (line 1)"]


def test_processes_report_names_never_values(hideouts):
    root, _ = hideouts
    scan = collect_host(root).document["hosts"][0]["scan"]
    procs = {p["pid"]: p for p in scan["processes"]}
    assert set(procs) == {812, 4242, 5151, 6000}  # runner processes only (not node, tmux, init)
    legit, worm, stray = procs[812], procs[4242], procs[6000]
    assert (legit["user"], legit["parent"], legit["unit"], legit["registration"]) == (
        "runner", "node", "actions.runner.acme.build-01-a.service", "acme/build-01-a")
    assert (worm["user"], worm["parent_pid"], worm["cwd"], worm["unit"], worm["registration"]) == (
        "root", 1, "/usr/lib/x86_64-linux-gnu/.ld/ar", "session-3.scope", "evil/worm-6")
    assert worm["env_keys"] == ["ACTIONS_RUNNER_HOOK_JOB_STARTED", "RUNNER_ALLOW_RUNASROOT", "RUNNER_TRACKING_ID"]
    assert worm["started_after_boot_s"] > 0
    assert "registration" not in stray and stray["cwd"] == "/var/tmp/.q"  # a runner from no known registration
    assert HIDEOUT_CANARIES["process_env"] not in json.dumps(scan)
    assert scan["installs_without_registration"] == ["/srv/old-runner"]


def test_scan_report_says_who_scanned_and_where_it_did_not_look(hideouts, monkeypatch):
    root, _ = hideouts
    import ingest.host.scan as scan_mod
    real_scandir = scan_mod.os.scandir
    blocked = str(root / "srv/locked")
    os.makedirs(blocked)

    def scandir(path):  # the tests run as root: a permission error is simulated for one folder
        if str(path) == blocked:
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(scan_mod.os, "scandir", scandir)
    res = collect_host(root)
    report = res.document["hosts"][0]["scan"]
    assert report["uid"] == os.geteuid() and report["user"]
    assert report["unreadable"] == ["/srv/locked"]
    assert {"path": "/srv/locked", "reason": "unreadable"} in report["skipped"]
    assert {"path": "/proc", "reason": "pseudo filesystem"} in report["skipped"]
    assert any(p.file == "/srv/locked" and "Permission denied" in p.reason for p in res.problems)


def test_search_limits_are_reported_never_silent(hideouts):
    root, _ = hideouts
    shallow = collect_host(root, limits=ScanLimits(max_depth=4))
    folders = {r["registration"]["config_path"] for r in shallow.document["runners"]}
    assert "/opt/vendor/a/b/c/d/e/f/g/h/ar/.runner" not in folders and "/tmp/.X11-lock/ar/.runner" in folders
    skipped = shallow.document["hosts"][0]["scan"]["skipped"]
    assert {"path": "/opt/vendor/a/b/c", "reason": "depth limit"} in skipped  # 5 levels below /
    few = collect_host(root, limits=ScanLimits(max_entries=20))
    assert any("entry limit reached" in p.reason for p in few.problems)
    assert few.document["hosts"][0]["scan"]["skip_counts"]["entry limit"] >= 1


def test_one_hostile_file_per_kind_does_not_stop_the_scan(hideouts):
    root, planted = hideouts
    res = collect_host(root)
    assert len(res.document["runners"]) == len(HIDEOUTS)  # everything else is still found
    reasons = {p.file: p.reason for p in res.problems}
    expected = {"deep nesting": "nest", "deep nesting (.runner)": "nest",  # "nested too deeply" / shared limit
                "huge file": "larger than", "binary garbage": "not valid JSON", "FIFO": "a FIFO: not read",
                "device": ": not read", "symlink loop": "link loop: not followed",
                "link out of the root": "link out of the scanned root"}
    for kind, path in planted.items():
        assert expected[kind] in reasons[path], (kind, reasons.get(path))
    skipped = res.document["hosts"][0]["scan"]["skipped"]
    assert {"path": "/var/tmp" + "/d" * 31, "reason": "depth limit"} in skipped  # 33 levels below /: not entered
    text = json.dumps(res.document) + " ".join(map(str, res.problems))
    assert HIDEOUT_CANARIES["garbage"] not in text and HIDEOUT_CANARIES["hook_secret"] not in text


def test_cli_limits_and_hostile_root(hideouts, tmp_path):
    root, _ = hideouts
    out = tmp_path / "host.json"
    res = cli.invoke(app, ["collect", "host", "--root", str(root), "-o", str(out), "--max-depth", "4"])
    assert res.exit_code == 3, res.output
    doc = json.loads(out.read_text())
    assert doc["hosts"][0]["scan"]["limits"]["max_depth"] == 4
    assert "paths not searched or read" in res.stdout and "/home/dev/.docker/config.json: " in res.stderr
    assert "nest" in res.stderr.split("/home/dev/.docker/config.json: ")[1].split("\n")[0]


def test_scan_executes_and_changes_nothing_on_the_hostile_host(hideouts):
    root, _ = hideouts

    def state():
        out = {}
        for dirpath, dirs, files in os.walk(root):
            for n in dirs + files:
                st = os.lstat(os.path.join(dirpath, n))
                out[os.path.join(dirpath, n)] = (st.st_mode, st.st_size, st.st_mtime_ns)
        return out
    before = state()
    collect_host(root)
    assert state() == before


def test_paths_written_with_the_mount_root_merge_with_the_inventory(tmp_path):
    """A disk configured while mounted at the scanned root (``.runner``'s workFolder and the unit name that
    prefix): the snapshot names host paths, so runner, credential and caches merge with an inventory."""
    root = tmp_path / "mnt" / "build-01"
    runner_install(root, "/opt/ar", agent_id=7, name="b1", url="https://github.com/acme", unit=None)
    rf = root / "opt/ar/.runner"
    settings = json.loads(rf.read_text(encoding="utf-8-sig"))
    settings["workFolder"] = f"{root}/opt/ar/_work"
    rf.write_text(json.dumps(settings))
    write(root, "etc/systemd/system/actions.runner.acme.b1.service",
          f"[Service]\nExecStart={root}/opt/ar/runsvc.sh\nWorkingDirectory={root}/opt/ar\nUser=ci\n")
    doc = collect_host(root, hostname="build-01").document
    (r,) = doc["runners"]
    assert r["registration"]["work_folder"] == "/opt/ar/_work" and r["registration"]["user"] == "ci"
    host = tmp_path / "host.json"
    host.write_text(json.dumps(doc))
    inv = tmp_path / "inv.yaml"
    inv.write_text("schema: graphkit.runner-inventory/v1\nhosts:\n  - name: build-01\n    credentials:\n"
                   "      - {credential_type: runner, path: /opt/ar/.credentials, lifetime: until_runner_removed}\n"
                   "runners:\n  - {name: b1, scope: acme, labels: [self-hosted], host: build-01}\n")
    from graphkit.build import build_graph
    g = build_graph({"runners": [host, inv]}).graph
    assert [n.id for n in g.nodes() if n.id.startswith(("runner:", "credential:"))] == [
        "credential:build-01:/opt/ar/.credentials", "runner:acme/b1"]


def test_host_doctests():
    import doctest
    import importlib
    names = ("keepalive", "procs", "found", "scan", "runners", "credentials")
    results = [doctest.testmod(importlib.import_module(f"ingest.host.{n}")) for n in names]
    assert all(r.failed == 0 for r in results) and sum(r.attempted for r in results) >= 30


def test_planted_hostname_does_not_stop_the_scan(tmp_path):
    root = tmp_path / "build-09"
    write(root, "etc/hostname", "evil:host/\u0000x\n")
    runner_install(root, "/opt/ar", agent_id=1, name="r", url="https://github.com/acme", unit=None)
    res = collect_host(root)
    assert res.document["hosts"][0]["name"] == "build-09" and len(res.document["runners"]) == 1
    assert [(p.file, p.reason.split(":")[0]) for p in res.problems] == [("/etc/hostname", "not usable as a host name")]


def test_masked_unit_is_not_a_problem(tmp_path):
    root = tmp_path / "root"
    runner_install(root, "/opt/ar", agent_id=1, name="r", url="https://github.com/acme", unit=None)
    (root / "dev").mkdir()
    os.mknod(root / "dev/null", 0o666 | __import__("stat").S_IFCHR, os.makedev(1, 3))
    (root / "etc/systemd/system").mkdir(parents=True)
    os.symlink("/dev/null", root / "etc/systemd/system/apt-daily.service")  # `systemctl mask`: a link to /dev/null
    os.symlink("../../../dev/null", root / "etc/systemd/system/motd.service")
    assert collect_host(root, hostname="h").problems == []


def test_windows_service_and_launchd_agents(tmp_path):
    """A Windows root: ``config.cmd`` registers a service and writes its name to the folder's ``.service``; a macOS
    root: ``svc.sh`` installs ``actions.runner.*.plist`` (GitHub docs "Configuring the self-hosted runner application
    as a service"); a LaunchAgent under another name starting a runner is unsupervised."""
    import plistlib
    win = tmp_path / "win"
    (win / "Windows").mkdir(parents=True)
    runner_install(win, "/actions-runner", agent_id=5, name="w1", url="https://github.com/acme", unit=None)
    write(win, "actions-runner/.service", "actions.runner.acme.w1\n")
    (r,) = collect_host(win, hostname="win-01").document["runners"]
    assert (r["registration"]["kept_alive_by"], r["registration"]["unsupervised"]) == (
        ["windows-service actions.runner.acme.w1"], False)
    mac = tmp_path / "mac"
    write(mac, "System/Library/CoreServices/SystemVersion.plist", b"")
    runner_install(mac, "/Users/ci/actions-runner", agent_id=6, name="m1", url="https://github.com/acme", unit=None)
    runner_install(mac, "/Users/ci/.npm/.r", agent_id=7, name="m2", url="https://github.com/evil", unit=None)
    write(mac, "Library/LaunchDaemons/actions.runner.acme.m1.plist", plistlib.dumps(
        {"Label": "actions.runner.acme.m1", "ProgramArguments": ["/Users/ci/actions-runner/runsvc.sh"]}))
    write(mac, "Users/ci/Library/LaunchAgents/com.apple.updater.plist", plistlib.dumps(
        {"Label": "com.apple.updater", "ProgramArguments": ["/bin/sh", "-c", "/Users/ci/.npm/.r/run.sh"],
         "RunAtLoad": True}, fmt=plistlib.FMT_BINARY))
    got = {r["name"]: r["registration"] for r in collect_host(mac, hostname="mac-01").document["runners"]}
    assert (got["m1"]["kept_alive_by"], got["m1"]["unsupervised"]) == (
        ["launchd /Library/LaunchDaemons/actions.runner.acme.m1.plist"], False)
    assert (got["m2"]["kept_alive_by"], got["m2"]["unsupervised"]) == (
        ["launchd /Users/ci/Library/LaunchAgents/com.apple.updater.plist"], True)


def test_absolute_links_in_a_mounted_image_resolve_inside_it(tmp_path):
    """A disk image mounted at the root: its absolute links name the image's own files (``/lib/systemd/system``,
    a credential moved to ``/srv/keys``); they are read from the image, never from the scanning machine."""
    root = tmp_path / "img"
    runner_install(root, "/opt/ar", agent_id=3, name="img-1", url="https://github.com/acme", unit=None)
    write(root, "lib/systemd/system/actions.runner.acme.img-1.service",
          "[Service]\nExecStart=/opt/ar/runsvc.sh\nUser=ci\n")
    (root / "etc/systemd/system/multi-user.target.wants").mkdir(parents=True)
    os.symlink("/lib/systemd/system/actions.runner.acme.img-1.service",
               root / "etc/systemd/system/multi-user.target.wants/actions.runner.acme.img-1.service")
    write(root, "srv/keys/aws", "[default]\naws_access_key_id = placeholder\naws_secret_access_key = canary-img-4\n")
    (root / "home/ci/.aws").mkdir(parents=True)
    os.symlink("/srv/keys/aws", root / "home/ci/.aws/credentials")
    os.symlink("../../../../../../../../etc/hostname", root / "home/ci/.npmrc")  # climbs above the root: planted
    res = collect_host(root, hostname="img")
    (r,) = res.document["runners"]
    assert r["registration"]["kept_alive_by"] == ["systemd /lib/systemd/system/actions.runner.acme.img-1.service"]
    assert r["registration"]["unsupervised"] is False
    creds = {c["path"]: c for c in res.document["hosts"][0]["credentials"]}
    assert creds["/home/ci/.aws/credentials"]["access"] == ["profile:default"]
    assert [str(p) for p in res.problems] == ["/home/ci/.npmrc: link out of the scanned root: not followed"]
    assert "canary-img-4" not in json.dumps(res.document)


def test_hideout_canaries_never_leave_the_files(hideouts, tmp_path):
    """collect + build + findings + blast radius on the attacked host: no secret of a runner's ``.env``, a
    process environment, a job hook script, a registration credential or a hostile file is in any output."""
    root, _ = hideouts
    host, graph = tmp_path / "host.json", tmp_path / "graph.json"
    texts = []
    for args in (["collect", "host", "--root", str(root), "-o", str(host)],
                 ["build", "--runners", str(host), "-o", str(graph)],
                 ["findings", "--graph", str(graph), "--format", "json"],
                 ["blast-radius", "--graph", str(graph), "--from", "host:build-01", "--format", "json"]):
        res = cli.invoke(app, args)
        assert res.exit_code in (0, 3), (args, res.output)
        texts.append(res.stdout + res.stderr)
    texts += [host.read_text(), graph.read_text()]
    assert "runner:evil/worm-8" in texts[2]  # the findings name the rogue registrations
    for name, canary in {**CANARIES, **HIDEOUT_CANARIES}.items():
        assert not any(canary in t for t in texts), f"canary {name} leaked"


# --------------------------------------------------------------------------- names and links an attacker chooses

#: Registration names an attacker can write in ``.runner`` (``agentName``): the registration must stay a runner.
HOSTILE_NAMES = ["evil/../x", "..", "a\"b'c`d", "x\ny", "x\x1b[2Jy", "evil%2Fx", "\u202eevil"]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_registration_with_a_hostile_name_is_still_a_runner_with_its_findings(tmp_path, name):
    """Whatever ``agentName`` says, the collector's snapshot reads back as an inventory, the registration is a
    runner node (name verbatim, id part percent-encoded) and raises runner-on-runner and runner-unexpected-org;
    the table escapes the name (no raw control character reaches the terminal)."""
    root = tmp_path / "r2"
    runner_install(root, "/opt/ar", agent_id=1, name="build-01", url="https://github.com/acme", unit=None)
    runner_install(root, "/home/dev/.cache/.x", agent_id=9, name=name, url="https://github.com/evil-corp", unit=None)
    out = tmp_path / "h.json"
    res = cli.invoke(app, ["collect", "host", "--root", str(root), "-o", str(out), "--hostname", "b1"])
    assert res.exit_code == 0, res.output
    assert "2 runners" in res.stdout
    assert sorted(r["name"] for r in json.loads(out.read_text())["runners"]) == sorted(["build-01", name])
    rid = ids.runner("evil-corp", name)
    assert ids.parse(rid).parts["name"] == name and rid.count("/") == 1
    assert ids.runner_ref("evil-corp", name) == rid.removeprefix("runner:")
    fj = cli.invoke(app, ["findings", "--runners", str(out), "--expected-org", "acme", "--format", "json"])
    assert fj.exit_code == 0 and "skipped" not in fj.stderr, fj.output
    found = {(f["rule"], f["subject"]) for f in json.loads(fj.stdout)["findings"]}
    assert {("runner-unexpected-org", rid), ("runner-on-runner", "host:b1")} <= found
    table = cli.invoke(app, ["findings", "--runners", str(out), "--expected-org", "acme"])
    assert table.exit_code == 0 and "2 finding(s)" in table.output
    assert "\x1b" not in table.stdout and "\u202e" not in table.stdout


def test_registration_credential_and_refs_of_a_hostile_name_join_its_runner(tmp_path):
    """The ``scope/name`` references the collector writes (a credential's ``readable_by`` and ``access``) name
    the hostile registration itself, not another scope: the inventory reader splits them at the last ``/``."""
    root = tmp_path / "r"
    runner_install(root, "/home/dev/ar", agent_id=9, name="evil/../x", url="https://github.com/evil-corp",
                   unit=None)
    res = collect_host(root, hostname="b1")
    (cred,) = [c for c in res.document["hosts"][0]["credentials"] if c["credential_type"] == "runner"]
    assert cred["access"] == ["registration:evil-corp/evil%2F..%2Fx"]
    assert runner_inventory.models.runner_id("evil-corp/evil%2F..%2Fx") == ids.runner("evil-corp", "evil/../x")


def test_links_out_of_the_root_and_refused_files_are_named_and_skipped(tmp_path):
    """Home files an attacker points out of the root (absolute, and ``..`` climbing above it) and an oversized
    file: each named on stderr and in ``scan.skipped`` (exit 3), none read, even when the root has a file of the
    same path (the link would read the scanning machine's ``/etc/passwd`` if followed naively)."""
    root = tmp_path / "root"
    runner_install(root, "/opt/ar", agent_id=1, name="build-01", url="https://github.com/acme", unit=None)
    write(root, "etc/passwd", "root:x:0:0::/root:/bin/sh\ndev:x:1000:1000::/home/dev:/bin/sh\n")
    write(root, "etc/hostname", "b1\n")
    (root / "home/dev/.kube").mkdir(parents=True)
    os.symlink("/etc/passwd", root / "home/dev/.git-credentials")
    os.symlink("../../../../etc/hostname", root / "home/dev/.kube/config")
    with open(root / "home/dev/.npmrc", "wb") as fh:  # sparse: large to stat, nothing written
        fh.truncate(4 << 20)
    out = tmp_path / "h.json"
    res = cli.invoke(app, ["collect", "host", "--root", str(root), "-o", str(out)])
    assert res.exit_code == 3, res.output
    skipped = json.loads(out.read_text())["hosts"][0]["scan"]["skipped"]
    expected = {("/home/dev/.git-credentials", "link out of root"), ("/home/dev/.kube/config", "link out of root"),
                ("/home/dev/.npmrc", "file too large")}
    assert expected <= {(s["path"], s["reason"]) for s in skipped}
    for path in ("/home/dev/.git-credentials", "/home/dev/.kube/config"):
        assert f"{path}: link out of the scanned root: not followed" in res.stderr
    assert "/home/dev/.npmrc: larger than" in res.stderr
    assert [c["path"] for c in json.loads(out.read_text())["hosts"][0]["credentials"]] == ["/opt/ar/.credentials"]


def test_key_file_is_read_bounded_and_must_hold_a_real_key(tmp_path, monkeypatch):
    """``--key-file``: a FIFO (would block), ``/dev/zero`` (endless), a file over ``max_file_bytes``, an empty or
    short file are usage errors (exit 2) naming the option, never read whole; a 32-byte key keys the fingerprints
    (they differ from the fixed key's)."""
    root = make_root(tmp_path / "host", everything=False)
    fifo = tmp_path / "key.fifo"
    os.mkfifo(fifo)
    short, big, good = tmp_path / "short.key", tmp_path / "big.key", tmp_path / "good.key"
    short.write_bytes(b"x" * 31)
    big.write_bytes(b"y" * 2048)
    good.write_bytes(bytes(range(32)))
    (tmp_path / "empty.key").write_bytes(b"")
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_FILE_BYTES", "1024")
    run = CliRunner().invoke
    for key, said in ((fifo, "a named pipe (FIFO): not read"), (Path("/dev/zero"), "a character device: not read"),
                      (big, "max_file_bytes"), (tmp_path / "empty.key", "a key of 0 byte(s)"),
                      (short, "a key of 31 byte(s); give at least 32")):
        res = run(app, ["collect", "host", "--root", str(root), "--key-file", str(key), "-o", str(tmp_path / "h.json")])
        assert res.exit_code == 2, (key, res.output)
        assert "--key-file" in res.output and said in " ".join(res.output.split())
        assert not (tmp_path / "h.json").exists()
    res = run(app, ["collect", "host", "--root", str(root), "--key-file", str(good), "-o", str(tmp_path / "h.json")])
    assert res.exit_code == 0, res.output
    keyed = json.loads((tmp_path / "h.json").read_text())
    plain = collect_host(root).document
    assert keyed["hosts"][0]["credentials"] and keyed == collect_host(root, key=bytes(range(32))).document
    assert [c["fingerprint"] for c in keyed["hosts"][0]["credentials"]] != \
        [c["fingerprint"] for c in plain["hosts"][0]["credentials"]]


def test_a_runner_file_with_wrong_types_names_each_field(tmp_path):
    """A ``.runner`` with ``agentName`` a list, ``agentId`` a string and ``gitHubUrl`` a number: the problem names
    the real fault of each field (was "agentName: missing"), the registration is skipped; a ``.runner`` whose
    name is good but whose ``agentId`` is a string and ``ephemeral`` the number 1 keeps its registration with the
    id unknown and ephemeral false (persistent), one problem per field."""
    root = make_root(tmp_path, everything=False)
    write(root, "opt/r2/.runner", json.dumps({"agentId": "notanint", "agentName": ["x"], "gitHubUrl": 5}))
    write(root, "opt/r3/.runner", json.dumps({"agentId": "9", "agentName": "r3", "ephemeral": 1,
                                              "gitHubUrl": "https://github.com/acme"}))
    result = collect_host(root)
    got = {(p.file, p.place): p.reason for p in result.problems if p.file.startswith(("/opt/r2", "/opt/r3"))}
    assert got == {
        ("/opt/r2/.runner", "agentName"): "expected a string, found an array (and agentId: expected an integer, "
                                          "found a string; gitHubUrl: expected a string, found an integer): "
                                          "registration skipped",
        ("/opt/r3/.runner", "agentId"): "expected an integer, found a string",
        ("/opt/r3/.runner", "ephemeral"): "expected a boolean, found an integer"}
    runners = {r["name"]: r for r in result.document["runners"]}
    assert "x" not in runners and runners["r3"].get("id") is None and runners["r3"].get("ephemeral") is not True
