"""``graphkit synth``: a deterministic synthetic organization in graphkit's own input formats."""

import hashlib
import json
import re
from pathlib import Path

from typer.testing import CliRunner

from graphkit import synth
from graphkit.build import build_graph
from graphkit.cli import app
from graphkit.model import NodeKind, ids

runner = CliRunner()


def _digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_seed_same_bytes_other_seed_differs(tmp_path):
    for name, seed in (("a", 7), ("b", 7), ("c", 8)):
        res = runner.invoke(app, ["synth", "--repos", "30", "--runners", "12", "--seed", str(seed),
                                  "-o", str(tmp_path / name)], catch_exceptions=False)
        assert res.exit_code == 0, res.output
        assert "12 runners" in res.output
    a, b, c = (_digest(tmp_path / n) for n in "abc")
    assert a == b
    assert a.keys() == c.keys() and a != c  # the seed picks the selected repositories of org secrets


def test_builds_without_problems_with_the_promised_shape(tmp_path):
    org = synth.generate(20, 9, seed=1)
    synth.write(org, tmp_path)
    res = build_graph({"github-actions": [tmp_path / "repos"], "runners": [tmp_path / "inventory.yaml"],
                       "aws-iam": [tmp_path / "aws-iam.json"]})
    assert res.problems == []
    g = res.graph
    counts = g.counts()
    # 20 repositories + the reusable-workflow repository; 9 runners, 60% persistent two or three to a host
    assert len([r for r in g.nodes(NodeKind.REPOSITORY) if not r.inferred]) == 21
    # + the unknown caller of the reusable workflow's own instance: its token is that caller's, a repository of synth
    assert {r.id for r in g.nodes(NodeKind.REPOSITORY) if r.inferred} == {"repo:synth/*"}
    assert counts["nodes"]["runner"] == 9 and counts["nodes"]["host"] == 2 + 4  # 5 persistent (2 + 3), 4 ephemeral
    for kind in ("calls_workflow", "signs_with", "deploys_to", "assumes_role", "can_register_runner",
                 "shares_cache", "mints_oidc", "reads_secret", "receives_job"):
        assert counts["edges"].get(kind, 0) > 0, kind
    roles = {r["RoleName"]: r for r in json.loads((tmp_path / "aws-iam.json").read_text())["RoleDetailList"]}
    # team 0 trusts its own production environments (narrow), team 3 any repository of the org (broad)
    narrow = roles["synth-t0000-deployer"]["AssumeRolePolicyDocument"]["Statement"][0]["Condition"]
    assert "repo:synth/svc-00000:environment:production" in narrow["StringEquals"][synth._SUB]
    broad = roles["synth-t0001-deployer"]["AssumeRolePolicyDocument"]["Statement"][0]["Condition"]
    assert broad["StringEquals"][synth._SUB][-1] == "repo:synth/svc-00019:environment:production"
    # role chains with a cycle: deployer -> admin -> deployer
    deployer, admin = (ids.cloud_role("aws", f"arn:aws:iam::210987654321:role/synth-t0000-{r}")
                       for r in ("deployer", "admin"))
    chain = {(e.source, e.target) for e in g.edges() if e.kind.value == "assumes_role"}
    assert (deployer, admin) in chain and (admin, deployer) in chain


def test_broad_trust_every_seventh_team():
    doc = json.loads(synth.generate(40, seed=0).files["aws-iam.json"])
    cond = next(r for r in doc["RoleDetailList"] if r["RoleName"] == "synth-t0003-deployer")[
        "AssumeRolePolicyDocument"]["Statement"][0]["Condition"]
    assert cond["StringLike"][synth._SUB] == "repo:synth/*:*"


def test_output_folder_holding_files_synth_did_not_write_is_refused_unless_force(tmp_path):
    """``synth -o DIR`` where DIR holds a user's ``inventory.yaml`` and ``repos/keep/``: a usage error (exit 2)
    naming the folder and the first foreign file, nothing written; ``--force`` writes (same-named files replaced).
    A folder synth wrote itself is rewritten without ``--force``, and a smaller org removes the larger one's
    repositories (no mixed checkouts); a file given as the folder is refused."""
    out = tmp_path / "syn"
    (out / "repos" / "keep").mkdir(parents=True)
    (out / "inventory.yaml").write_text("inv-precious\n", encoding="utf-8")
    (out / "repos" / "keep" / "x.yml").write_text("mine\n", encoding="utf-8")
    res = runner.invoke(app, ["synth", "--repos", "3", "-o", str(out)])
    assert res.exit_code == 2 and "'inventory.yaml', which synth did not write" in " ".join(res.output.split())
    assert (out / "inventory.yaml").read_text() == "inv-precious\n" and not (out / "aws-iam.json").exists()
    res = runner.invoke(app, ["synth", "--repos", "3", "-o", str(out), "--force"])
    assert res.exit_code == 0 and (out / "inventory.yaml").read_text() == synth.generate(3).files["inventory.yaml"]
    assert (out / "repos" / "keep" / "x.yml").read_text() == "mine\n"  # --force replaces, never deletes others
    fresh = tmp_path / "fresh"
    assert runner.invoke(app, ["synth", "--repos", "30", "-o", str(fresh)]).exit_code == 0
    big = {p.relative_to(fresh).as_posix() for p in (fresh / "repos").rglob("*.yml")}
    res = runner.invoke(app, ["synth", "--repos", "3", "-o", str(fresh)])  # its own folder: no --force needed
    assert res.exit_code == 0, res.output
    small = {p.relative_to(fresh).as_posix() for p in (fresh / "repos").rglob("*.yml")}
    assert small == set(f for f in synth.generate(3).files if f.startswith("repos/")) and small < big
    res = build_graph({"github-actions": [fresh / "repos"]})
    assert res.problems == []
    afile = tmp_path / "f.txt"
    afile.write_text("x", encoding="utf-8")
    res = runner.invoke(app, ["synth", "--repos", "3", "-o", str(afile)])
    assert res.exit_code == 2 and "is not a folder" in res.output and afile.read_text() == "x"


def test_hostile_manifest_entries_are_refused_and_nothing_is_deleted(tmp_path):
    """A planted ``.graphkit-synth.json`` listing ``../victim.txt``, an absolute path, or a file reached through a
    linked folder inside DIR: exit 2 naming the manifest and the entry, every file kept, nothing written (CWE-22).
    A listed file of synth's own shape is still removed when the new org lacks it."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    outside = tmp_path / "elsewhere" / ".github" / "workflows"
    outside.mkdir(parents=True)
    (outside / "ci.yml").write_text("keep\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "repos").mkdir()
    (out / "repos" / "synth__linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    manifest = out / synth.MANIFEST
    for entry in ["../victim.txt", str(victim), "repos/synth__linked/.github/workflows/ci.yml", "repos/../x.yml", 5]:
        manifest.write_text(json.dumps(["inventory.yaml", entry]), encoding="utf-8")
        res = runner.invoke(app, ["synth", "--repos", "2", "-o", str(out), "--force"])
        text = " ".join(res.output.split())
        assert res.exit_code == 2, (entry, res.output)
        assert f"{manifest}: entry {entry!r}" in text and "nothing deleted" in text, text
        assert victim.read_text() == "precious\n" and (outside / "ci.yml").read_text() == "keep\n"
        assert not (out / "inventory.yaml").exists()
    manifest.write_text(json.dumps(["repos/synth__linked/.github/workflows/ci.yml"]), encoding="utf-8")
    assert "passes through a link (repos/synth__linked)" in " ".join(runner.invoke(
        app, ["synth", "--repos", "2", "-o", str(out), "--force"]).output.split())
    own = tmp_path / "own"
    assert runner.invoke(app, ["synth", "--repos", "6", "-o", str(own)]).exit_code == 0
    gone = "repos/synth__svc-00005/.github/workflows/ci.yml"
    assert gone in json.loads((own / synth.MANIFEST).read_text()) and (own / gone).is_file()
    assert runner.invoke(app, ["synth", "--repos", "2", "-o", str(own)]).exit_code == 0
    assert not (own / gone).exists()


def test_a_manifest_or_output_file_that_is_a_link_or_fifo_is_never_written_through(tmp_path):
    """The manifest itself a link to a file outside DIR (no --force needed before), a FIFO (would block) or a
    folder; with --force, an output file (inventory.yaml) that is a link out of DIR: exit 2, the outside file
    unchanged, nothing written."""
    import os

    victim = tmp_path / "victim.txt"
    for make in ("link", "fifo", "folder", "output-link"):
        victim.write_text("precious\n", encoding="utf-8")
        out = tmp_path / f"out-{make}"
        out.mkdir()
        manifest = out / synth.MANIFEST
        if make == "link":
            manifest.symlink_to(victim)
        elif make == "fifo":
            os.mkfifo(manifest)
        elif make == "folder":
            manifest.mkdir()
        else:
            (out / "inventory.yaml").symlink_to(victim)
        res = runner.invoke(app, ["synth", "--repos", "2", "-o", str(out), *(["--force"] if make == "output-link"
                                                                            else [])])
        text = " ".join(res.output.split())
        assert res.exit_code == 2, (make, res.output)
        assert "nothing deleted or written" in text, text
        assert ("passes through a link" if "link" in make else "is not a regular file") in text, text
        assert victim.read_text() == "precious\n" and not (out / "aws-iam.json").exists()


def test_an_inventory_past_max_yaml_nodes_is_named_with_the_limit_to_build_it(tmp_path, monkeypatch):
    """A build refuses a document of more than ``max_yaml_nodes`` YAML nodes (keys, values and collections, as
    the bounded composer counts them): synth says so when it wrote one, with the limit that builds it, and a
    build with that limit reads the whole inventory."""
    res = runner.invoke(app, ["synth", "--repos", "6", "-o", str(tmp_path / "a")])
    assert res.exit_code == 0 and "max_yaml_nodes" not in res.output  # the default limit holds it
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_YAML_NODES", "300")
    res = runner.invoke(app, ["synth", "--repos", "6", "-o", str(tmp_path / "b")])
    count = int(re.search(r"inventory\.yaml holds (\d+) YAML nodes, more than max_yaml_nodes=300", res.output)[1])
    assert f"GRAPHKIT_LIMIT_MAX_YAML_NODES={count}" in res.output
    inputs = {"runners": [tmp_path / "b" / "inventory.yaml"]}
    assert any(p.reason.startswith("refused: more than 300 nodes") for p in build_graph(inputs).problems)
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_YAML_NODES", str(count))
    assert build_graph(inputs).problems == []
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_YAML_NODES", str(count - 1))
    assert build_graph(inputs).problems  # the count is the composer's: one node fewer is refused
