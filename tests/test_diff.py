"""graphkit diff: new enrollments, re-registrations, rotated credentials, removals; JSON contract; errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphkit.cli import app
from graphkit.diff import diff_files
from graphkit.errors import InputError
from host_fixtures import make_root, runner_install, write
from ingest.host import collect_host
from ingest.host.scan import ScanLimits

cli = CliRunner()


def snapshot(root: Path, path: Path) -> Path:
    path.write_text(json.dumps(collect_host(root).document))
    return path


def test_new_enrollment_rotation_and_removal(tmp_path):
    root = make_root(tmp_path, everything=False)
    old = snapshot(root, tmp_path / "old.json")
    assert diff_files(old, old) == []
    # an attacker enrolls a third runner; the docker config is replaced; the tool cache goes
    runner_install(root, "/home/runner/.local/ar2", agent_id=777, name="build-01-z", url="https://github.com/acme",
                   unit=None)
    write(root, "home/runner/.docker/config.json", json.dumps({"auths": {"ghcr.io": {"auth": "changed"}}}))
    (root / "opt/hostedtoolcache/node/20.0.0").rmdir()
    (root / "opt/hostedtoolcache/node").rmdir()
    (root / "opt/hostedtoolcache").rmdir()
    new = snapshot(root, tmp_path / "new.json")
    changes = diff_files(old, new)
    got = [(c.change, c.id, c.signal.value) for c in changes]
    assert got[0] == ("added", "runner:acme/build-01-z", "high")  # new enrollment first
    assert ("added", "credential:build-01:/home/runner/.local/ar2/.credentials", "high") in got
    assert ("changed", "credential:build-01:/home/runner/.docker/config.json", "medium") in got
    assert ("removed", "cache:host:build-01:/opt/hostedtoolcache", "low") in got  # a removal, as the README says
    docker = next(c for c in changes if c.id.endswith("docker/config.json"))
    assert docker.message.endswith("rotated or replaced")
    assert list(docker.fields) == ["fingerprint", "readable_by"]  # and the new runner's user can read it
    assert "runner:acme/build-01-z" in docker.fields["readable_by"][1]


def test_a_credential_the_new_scan_did_not_read_is_unknown_never_gone(tmp_path):
    """The docker config replaced by a link out of the scanned root (to a file that exists on the scanning
    machine): the new scan refuses to read it, so the credential is ``unknown`` in the new snapshot, not removed;
    the AWS credentials really deleted are removed."""
    root = make_root(tmp_path / "host", everything=False)
    old = snapshot(root, tmp_path / "old.json")
    outside = tmp_path / "elsewhere.json"
    outside.write_text("{}")
    docker = root / "home/runner/.docker/config.json"
    docker.unlink()
    docker.symlink_to(outside)
    (root / "home/runner/.aws/credentials").unlink()
    new = snapshot(root, tmp_path / "new.json")
    got = {c.id: (c.change, c.signal.value, c.message) for c in diff_files(old, new)}
    change, signal, message = got["credential:build-01:/home/runner/.docker/config.json"]
    assert (change, signal) == ("unknown", "medium")
    assert message.endswith("was not read by the new scan (/home/runner/.docker/config.json: link out of root)")
    assert got["credential:build-01:/home/runner/.aws/credentials"][:2] == ("removed", "low")


def test_re_registration_is_high(tmp_path):
    root = make_root(tmp_path, everything=False)
    old = snapshot(root, tmp_path / "old.json")
    # same name, re-configured to a new agent id and new credentials (e.g. with a stolen registration token)
    runner_install(root, "/opt/actions-runner", agent_id=555, name="build-01-a", url="https://github.com/acme",
                   pool="shared-linux", unit="actions.runner.acme.build-01-a.service")
    write(root, "opt/actions-runner/.credentials", '{"scheme": "OAuth", "data": {"v": "new"}}')
    new = snapshot(root, tmp_path / "new.json")
    (c,) = [c for c in diff_files(old, new) if c.id == "runner:acme/build-01-a"]
    assert c.change == "changed" and c.signal.value == "high"
    assert c.fields["registration.agent_id"] == [101, 555]
    assert "registration.credential_fingerprint" in c.fields


def test_cli_diff_json_contract_and_bad_input(tmp_path):
    root = make_root(tmp_path, everything=False)
    old = snapshot(root, tmp_path / "old.json")
    runner_install(root, "/opt/r2", agent_id=8, name="r2", url="https://github.com/other", unit=None)
    new = snapshot(root, tmp_path / "new.json")
    res = cli.invoke(app, ["diff", str(old), str(new), "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["schema"] == "graphkit.diff/v1" and doc["counts"]["high"] >= 2
    assert set(doc["changes"][0]) == {"change", "kind", "id", "name", "signal", "message", "fields"}
    assert doc["changes"][0]["id"] == "runner:other/r2"
    table = cli.invoke(app, ["diff", str(old), str(new)])
    assert "new runner enrollment other/r2" in table.stdout
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "graphkit.runner-inventory/v1", "runners": [{"name": "x"}]}')
    res = cli.invoke(app, ["diff", str(old), str(bad), "--format", "json"])  # the bad runner named, nothing gone
    assert res.exit_code == 3 and "runners[0]" in res.stderr
    assert {c["change"] for c in json.loads(res.stdout)["changes"]} == {"unknown"}
    with pytest.raises(InputError):
        diff_files(old, bad)
    res = cli.invoke(app, ["diff", str(bad), str(old), "--format", "json"])  # the same entry unread in the OLD one
    assert res.exit_code == 3 and "runners[0]" in res.stderr
    changes = json.loads(res.stdout)["changes"]
    assert changes and {(c["change"], c["signal"]) for c in changes} == {("unknown", "medium")}
    assert "whether it is new is unknown" in changes[0]["message"] and "old snapshot's entries at runners[0]" in \
        changes[0]["message"]
    res = cli.invoke(app, ["diff", str(old), str(tmp_path / "absent.json")])
    assert res.exit_code == 1 and "absent.json" in res.stderr


def test_diff_of_saved_graphs(tmp_path):
    root = make_root(tmp_path, everything=False)
    host = snapshot(root, tmp_path / "host.json")
    g1 = tmp_path / "g1.json"
    assert cli.invoke(app, ["build", "--runners", str(host), "-o", str(g1)]).exit_code == 0
    assert diff_files(g1, host) == []


def test_an_ephemeral_runner_or_host_turning_persistent_is_high(tmp_path):
    """The bundled inventory with eph-7f3a and its throw-away VM made persistent: persistence is created
    (shared/docs/semantics.md §2), rated as a new enrollment (high); the other way round stays low."""
    inventory = Path(__file__).resolve().parents[1] / "examples" / "acme" / "inventory.yaml"
    text = inventory.read_text(encoding="utf-8")
    eph = "  - name: eph-7f3a\n    id: 203\n    labels: [self-hosted, Linux, X64, shared]\n    scope: acme\n" \
          "    runner_group: shared-linux\n    ephemeral: true\n"
    vm = "  - name: ci-vm-7f3a                # a throw-away VM created for one job\n    os: linux\n" \
         "    ephemeral: true\n"
    assert eph in text and vm in text
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(text, encoding="utf-8")
    new.write_text(text.replace(eph, eph.replace("true", "false")).replace(vm, vm.replace("true", "false")),
                   encoding="utf-8")
    got = {c.id: (c.change, c.signal.value, c.fields, c.message) for c in diff_files(old, new)}
    assert set(got) == {"runner:acme/eph-7f3a", "host:ci-vm-7f3a"}
    for change, signal, fields, message in got.values():
        assert (change, signal, fields) == ("changed", "high", {"ephemeral": [True, False]})
        assert "turned persistent (ephemeral: true -> false)" in message
    back = {c.id: c.signal.value for c in diff_files(new, old)}
    assert back == {"runner:acme/eph-7f3a": "low", "host:ci-vm-7f3a": "low"}
    res = cli.invoke(app, ["diff", str(old), str(new), "--format", "json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["counts"]["high"] == 2


def test_a_credential_replaced_by_a_link_to_nowhere_is_unknown_never_gone(tmp_path):
    """The docker config replaced by an absolute link whose target exists neither in the scanned root nor on the
    scanning machine (in a mounted image it may be a mount of the real host): the new scan did not read it, so
    the credential is ``unknown``, not removed; the scan names the file as not read."""
    root = make_root(tmp_path / "host", everything=False)
    old = snapshot(root, tmp_path / "old.json")
    target = tmp_path / "absent-everywhere" / "config.json"
    assert not target.exists() and not (root / str(target).lstrip("/")).exists()
    docker = root / "home/runner/.docker/config.json"
    docker.unlink()
    docker.symlink_to(target)
    result = collect_host(root)
    assert ("/home/runner/.docker/config.json", "link target absent") in \
        [(s["path"], s["reason"]) for s in result.document["hosts"][0]["scan"]["skipped"]]
    assert [(p.file, p.reason) for p in result.problems] == [
        ("/home/runner/.docker/config.json", "absolute link to a path absent from the scanned root: not read")]
    new = snapshot(root, tmp_path / "new.json")
    got = {c.id: (c.change, c.signal.value, c.message) for c in diff_files(old, new)}
    change, signal, message = got["credential:build-01:/home/runner/.docker/config.json"]
    assert (change, signal) == ("unknown", "medium")
    assert message.endswith("(/home/runner/.docker/config.json: link target absent)")


def test_a_runner_folder_linked_out_of_the_root_is_named_skipped_and_unknown(tmp_path):
    """The runner's folder moved out of the scanned root and replaced by a link to it (a folder link, which the
    signature search walks without following): the new scan names the link on stderr (exit 3) and records it in
    ``scan.skipped``, so ``diff`` calls the runner behind it ``unknown``, never ``removed``."""
    root = make_root(tmp_path / "host", everything=False)
    old = snapshot(root, tmp_path / "old.json")
    outside = tmp_path / "elsewhere" / "actions-runner"
    outside.parent.mkdir()
    (root / "opt/actions-runner").rename(outside)
    (root / "opt/actions-runner").symlink_to(outside, target_is_directory=True)
    new = tmp_path / "new.json"
    res = cli.invoke(app, ["collect", "host", "--root", str(root), "-o", str(new)])
    assert res.exit_code == 3, res.output
    assert res.stderr.count("/opt/actions-runner: link out of the scanned root: not followed") == 1
    skipped = json.loads(new.read_text())["hosts"][0]["scan"]["skipped"]
    assert {"path": "/opt/actions-runner", "reason": "link out of root"} in skipped
    got = {c.id: (c.change, c.signal.value, c.message) for c in diff_files(old, new)}
    change, signal, message = got["runner:acme/build-01-a"]
    assert (change, signal) == ("unknown", "medium")
    assert message.endswith("was not read by the new scan (/opt/actions-runner: link out of root)")
    assert "removed" not in {c for c, _, _ in got.values()}


def test_a_hostile_role_arn_on_the_host_never_switches_off_diff(tmp_path):
    """``~/.aws/credentials`` naming ``role_arn = arn:aws:iam::1:role/x`` (an account id is 12 digits): the
    collector names the file and line (exit 3), makes no grant of it (the snapshot is one its reader takes whole)
    and keeps the credential and its other grants; ``diff`` of that snapshot works (exit 0)."""
    root = make_root(tmp_path / "host", everything=False)
    bad_arn = "arn:aws:iam::1:role/x"
    write(root, "home/runner/.aws/credentials", "[default]\naws_access_key_id = placeholder\n"
          f"aws_secret_access_key = placeholder\nrole_arn = {bad_arn}\nsource_profile = default\n")
    host = tmp_path / "host1.json"
    res = cli.invoke(app, ["collect", "host", "--root", str(root), "-o", str(host)])
    assert res.exit_code == 3, res.output
    assert ("/home/runner/.aws/credentials: line 4: role_arn is not an IAM role ARN "
            "(arn:PARTITION:iam::<12 digits>:role/NAME): no grant made") in res.stderr
    assert bad_arn not in res.output
    creds = {c["path"]: c for c in json.loads(host.read_text())["hosts"][0]["credentials"]}
    assert creds["/home/runner/.aws/credentials"]["grants"] == [
        {"access": "assumes_role", "target": "cloud_role:aws:arn:aws:iam::111122223333:role/acme-ci-builder"}]
    same = cli.invoke(app, ["diff", str(host), str(host)])
    assert same.exit_code == 0 and "0 change(s)" in same.stderr, same.output


def test_diff_names_a_bad_entry_of_a_snapshot_and_compares_the_rest(tmp_path):
    """A snapshot written by hand (or by an older collector) with a grant its reader rejects: ``diff`` names the
    place (exit 3) and compares everything else, as ``build`` does (only that grant left out); a runner entry left
    out of the new snapshot makes a runner missing from it ``unknown``, never ``removed``."""
    root = make_root(tmp_path / "host", everything=False)
    old = snapshot(root, tmp_path / "old.json")
    doc = json.loads(old.read_text())
    creds = doc["hosts"][0]["credentials"]
    j = next(i for i, c in enumerate(creds) if c["path"] == "/home/runner/.aws/credentials")
    creds[j]["grants"] = [{"access": "assumes_role", "target": "cloud_role:aws:arn:aws:iam::1:role/x"}]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    res = cli.invoke(app, ["diff", str(old), str(bad), "--format", "json"])
    assert res.exit_code == 3, res.output
    assert f"hosts[0].credentials[{j}].grants[0].target" in res.stderr
    (change,) = json.loads(res.stdout)["changes"]  # the one grant left out: the credential's grants changed
    assert (change["change"], change["id"], list(change["fields"])) == (
        "changed", "credential:build-01:/home/runner/.aws/credentials", ["grants"])
    problems: list[InputError] = []
    assert diff_files(bad, bad, problems) == [] and len(problems) == 2
    doc["runners"][0]["labels"] = 7  # the whole runner entry is left out
    bad.write_text(json.dumps(doc))
    got = {c.id: (c.change, c.message) for c in diff_files(old, bad, [])}
    name = doc["runners"][0]["name"]
    rid = next(i for i in got if i.startswith("runner:") and i.endswith("/" + name))
    assert got[rid][0] == "unknown" and "runners[0].labels" in got[rid][1]
    assert "removed" not in {c for c, _ in got.values()}


def test_a_runner_past_the_depth_limit_is_a_problem_and_unknown_never_gone(tmp_path):
    """The evil-corp runner moved 33 levels deep (past the default depth limit of 32): ``collect host`` names the
    folder it did not enter on stderr (exit 3) and records it in ``scan.skipped`` as the entry limit is; ``diff``
    calls the runner ``unknown`` (it may lie below the limit), never ``removed``.  Same with ``--max-depth 2`` on
    the unchanged root."""
    root = make_root(tmp_path / "host", everything=False)
    old = snapshot(root, tmp_path / "old.json")
    deep = root / ("var/tmp" + "/d" * 31)
    deep.parent.mkdir(parents=True)
    (root / "root/.cache-svc/ar").rename(deep)
    new = tmp_path / "deep.json"
    res = cli.invoke(app, ["collect", "host", "--root", str(root), "-o", str(new)])
    assert res.exit_code == 3, res.output
    assert ("/var/tmp" + "/d" * 31 + ": not searched: deeper than the depth limit (max depth 32; 1 folder(s) in all)"
            ) in res.stderr
    scan = json.loads(new.read_text())["hosts"][0]["scan"]
    assert scan["skip_counts"] == {"depth limit": 1}
    assert {"path": "/var/tmp" + "/d" * 31, "reason": "depth limit"} in scan["skipped"]
    got = {c.id: (c.change, c.signal.value, c.message) for c in diff_files(old, new)}
    change, signal, message = got["runner:evil-corp/build-01-x"]
    assert (change, signal) == ("unknown", "medium")
    assert message.endswith("the search stopped at a limit, e.g. /var/tmp" + "/d" * 31 +
                            ": depth limit; the runner may lie there)")
    # the other way round: the old scan stopped at the limit, so the runner the new one finds may not be new
    (change, signal, message), = [v for k, v in ((c.id, (c.change, c.signal.value, c.message))
                                                  for c in diff_files(new, old)) if k == "runner:evil-corp/build-01-x"]
    assert (change, signal) == ("unknown", "medium") and "whether it is new is unknown" in message
    shallow_root = make_root(tmp_path / "host2", everything=False)
    shallow = tmp_path / "shallow.json"
    res = cli.invoke(app, ["collect", "host", "--root", str(shallow_root), "-o", str(shallow), "--max-depth", "2"])
    assert res.exit_code == 3, res.output
    assert "not searched: deeper than the depth limit (max depth 2; 6 folder(s) in all)" in res.stderr
    assert json.loads(shallow.read_text())["hosts"][0]["scan"]["skip_counts"] == {"depth limit": 6}
    got = {c.id: c.change for c in diff_files(old, shallow)}
    assert got["runner:evil-corp/build-01-x"] == "unknown"
    assert "removed" not in got.values()
    # building from that snapshot is partial too: the host's unread paths are unknown (exit 3, the place named)
    built = cli.invoke(app, ["build", "--runners", str(shallow), "-o", str(tmp_path / "g.json")])
    assert built.exit_code == 3, built.output
    assert (f"{shallow}: hosts[0].scan: the scan of this host did not search or read 6 path(s) (depth limit: 6): a "
            "runner or credential there is unknown") in built.stderr


def test_a_limit_whose_folders_are_not_all_listed_leaves_missing_runners_unknown(tmp_path):
    """A host snapshot whose ``skipped`` list (bounded) names none of the depth-limited folders its
    ``skip_counts`` counts: a runner missing from it is ``unknown``, never ``removed``."""
    root = make_root(tmp_path / "host", everything=False)
    old = snapshot(root, tmp_path / "old.json")
    (root / "root/.cache-svc/ar/.runner").unlink()
    doc = collect_host(root).document
    scan = doc["hosts"][0]["scan"]
    scan["skip_counts"] = {"depth limit": 300}
    new = tmp_path / "new.json"
    new.write_text(json.dumps(doc))
    got = {c.id: (c.change, c.message) for c in diff_files(old, new)}
    assert got["runner:evil-corp/build-01-x"] == (
        "unknown", "runner build-01-x was not read by the new scan (/: depth limit (300 not listed))")
    assert "removed" not in {c for c, _ in got.values()}


def test_a_runner_the_new_scan_did_not_read_changes_no_readable_by(tmp_path):
    """The acme runner's folder linked out of the root: the runner is ``unknown`` in the new snapshot, so the
    credentials it could read are not ``changed (readable_by)`` for its leaving the list (the new scan did not
    read it); under ``max_entries=5`` (both runners unread) no credential's ``readable_by`` changes either."""
    root = make_root(tmp_path / "host", everything=False)
    old = snapshot(root, tmp_path / "old.json")
    before = {c["path"]: c["readable_by"] for c in json.loads(old.read_text())["hosts"][0]["credentials"]}
    assert before["/home/runner/.aws/credentials"] == ["acme/build-01-a", "evil-corp/build-01-x"]
    outside = tmp_path / "elsewhere" / "actions-runner"
    outside.parent.mkdir()
    (root / "opt/actions-runner").rename(outside)
    (root / "opt/actions-runner").symlink_to(outside, target_is_directory=True)
    new = snapshot(root, tmp_path / "new.json")
    after = {c["path"]: c["readable_by"] for c in json.loads(new.read_text())["hosts"][0]["credentials"]}
    assert after["/home/runner/.aws/credentials"] == ["evil-corp/build-01-x"]  # the fact the diff weighs
    got = {(c.change, c.id) for c in diff_files(old, new)}
    assert got == {("unknown", "runner:acme/build-01-a"),
                   ("unknown", "credential:build-01:/opt/actions-runner/.credentials"),
                   ("unknown", "cache:host:build-01:/opt/actions-runner/_work")}
    few = tmp_path / "few.json"
    few.write_text(json.dumps(collect_host(make_root(tmp_path / "host2", everything=False),
                                           limits=ScanLimits(max_entries=5)).document))
    changes = diff_files(old, few)
    assert {(c.change, c.id) for c in changes if c.kind.value == "runner"} == {
        ("unknown", "runner:acme/build-01-a"), ("unknown", "runner:evil-corp/build-01-x")}
    assert [c.id for c in changes if c.change == "changed"] == []


def test_a_runner_reached_through_an_absolute_link_inside_the_root_stays_supervised(tmp_path):
    """``/opt/actions-runner -> /srv/ar`` (absolute: ``R/srv/ar`` when scanning root ``R``) with the install in
    ``/srv/ar``: the search finds it at ``/srv/ar`` (it never follows a link), and its unit's
    ``/opt/actions-runner/runsvc.sh`` resolves inside the root to that folder, so it is still kept alive by its
    installer's unit (not newly unsupervised); without ``.service`` the unit is still found by its directories."""
    root = make_root(tmp_path / "host", everything=False)
    old = snapshot(root, tmp_path / "old.json")
    unit = "systemd /etc/systemd/system/actions.runner.acme.build-01-a.service"
    (root / "srv").mkdir()
    (root / "opt/actions-runner").rename(root / "srv/ar")
    (root / "opt/actions-runner").symlink_to("/srv/ar")
    new = snapshot(root, tmp_path / "new.json")
    reg = {r["name"]: r["registration"] for r in json.loads(new.read_text())["runners"]}["build-01-a"]
    assert (reg["config_path"], reg["kept_alive_by"], reg["unsupervised"]) == ("/srv/ar/.runner", [unit], False)
    changes = {c.id: c for c in diff_files(old, new)}
    assert sorted(changes["runner:acme/build-01-a"].fields) == [
        "registration.config_path", "registration.credential_path", "registration.work_folder"]  # the folder moved
    (root / "srv/ar/.service").unlink()
    reg = {r["name"]: r["registration"] for r in collect_host(root).document["runners"]}["build-01-a"]
    assert (reg["service"], reg["kept_alive_by"], reg["unsupervised"]) == (
        "actions.runner.acme.build-01-a.service", [unit], False)


def test_a_saved_graph_built_from_partial_input_reads_its_stored_problems(tmp_path):
    """A graph built from the bundled inventory with ``runners[2].labels`` not a list (its build leaves that
    runner out and records the place in ``meta.problems``): ``diff`` of the full graph against it says the runner
    is ``unknown``, never ``removed``, and the reverse never ``added``; the stored problem is named and the exit
    is 3, as for the two inventories compared directly."""
    text = (Path(__file__).resolve().parents[1] / "examples" / "acme" / "inventory.yaml").read_text(encoding="utf-8")
    eph = "  - name: eph-7f3a\n    id: 203\n    labels: [self-hosted, Linux, X64, shared]\n"
    assert eph in text
    good, bad = tmp_path / "inv.yaml", tmp_path / "bad.yaml"
    good.write_text(text, encoding="utf-8")
    bad.write_text(text.replace(eph, eph.replace("[self-hosted, Linux, X64, shared]", "self-hosted")), "utf-8")
    full, partial = tmp_path / "full.json", tmp_path / "partial.json"
    assert cli.invoke(app, ["build", "--runners", str(good), "-o", str(full)]).exit_code == 0
    assert cli.invoke(app, ["build", "--runners", str(bad), "-o", str(partial)]).exit_code == 3
    stored = json.loads(partial.read_text())["meta"]["problems"]
    assert [p["place"] for p in stored] == ["runners[2].labels"]
    for old, new, message in ((full, partial, "was not read by the new scan (the new snapshot's entries at "
                               "runners[2].labels could not be read)"),
                              (partial, full, "whether it is new is unknown")):
        res = cli.invoke(app, ["diff", str(old), str(new), "--format", "json"])
        assert res.exit_code == 3 and "runners[2].labels" in res.stderr
        changes = json.loads(res.stdout)["changes"]
        assert [(c["change"], c["id"], c["signal"]) for c in changes] == [
            ("unknown", "runner:acme/eph-7f3a", "medium")]
        assert message in changes[0]["message"]
    with pytest.raises(InputError, match="runners\\[2\\].labels"):
        diff_files(full, partial)  # problems=None: the first is raised, as for an inventory
    # a whole inventory file its build could not read (next to a readable one): every runner missing is unknown
    junk = tmp_path / "junk.yaml"
    junk.write_text("runners: [unclosed\n", encoding="utf-8")
    other = tmp_path / "other.yaml"
    other.write_text("schema: graphkit.runner-inventory/v1\nhosts:\n  - name: lone\n    os: linux\n", "utf-8")
    whole = tmp_path / "whole.json"
    assert cli.invoke(app, ["build", "--runners", str(other), "--runners", str(junk), "-o", str(whole)]).exit_code == 3
    res = cli.invoke(app, ["diff", str(full), str(whole), "--format", "json"])
    assert res.exit_code == 3
    got = {c["change"] for c in json.loads(res.stdout)["changes"] if c["kind"] == "runner"}
    assert got == {"unknown"}
