"""The CLI on the bundled example: commands, formats, exit codes, README contract."""

import json
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from graphkit.cli import EXIT_PARTIAL, app

ROOT = Path(__file__).resolve().parents[1]
REPOS = str(ROOT / "examples/acme/repos")
INVENTORY = str(ROOT / "examples/acme/inventory.yaml")
CORPUS = ROOT.parent / "shared" / "corpus" / "github-actions"
runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("g") / "graph.json"
    res = invoke("build", "--github-actions", REPOS, "--runners", INVENTORY, "-o", str(path))
    assert res.exit_code == 0, res.output
    return path


def test_build_writes_graph_and_summary(graph_file):
    data = json.loads(graph_file.read_text())
    assert data["schema"] == "graphkit.graph/v1"
    kinds = {n["kind"] for n in data["nodes"]}
    assert {"runner", "host", "job", "secret", "signing_key", "deployment_target", "cloud_role"} <= kinds
    assert data["meta"]["problems"] == []


def test_nodes_kind_filter_and_json(graph_file):
    res = invoke("nodes", "--graph", str(graph_file), "--kind", "Runner", "--format", "json")
    assert res.exit_code == 0
    ids = [r["id"] for r in json.loads(res.stdout)]
    assert ids == ["runner:acme/build-01-a", "runner:acme/build-01-b", "runner:acme/eph-7f3a"]
    res = invoke("nodes", "--graph", str(graph_file), "--kind", "cloud-role", "--format", "json")
    assert {r["id"] for r in json.loads(res.stdout)} >= {"cloud_role:aws:arn:aws:iam::111122223333:role/acme-release"}


def test_nodes_unknown_kind_is_usage_error(graph_file):
    res = invoke("nodes", "--graph", str(graph_file), "--kind", "runnr")
    assert res.exit_code == 2
    assert "valid kinds" in res.output


def test_blast_radius_json_contract(graph_file):
    res = invoke("blast-radius", "--graph", str(graph_file), "--from", "runner:acme/build-01-a", "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["schema"] == "graphkit.blast-radius/v1"
    assert doc["source"] == ["runner:acme/build-01-a"]
    ids = {r["id"] for r in doc["reached"]}
    assert {"host:build-01", "runner:acme/build-01-b", "secret:org:acme:DOCS_DEPLOY_KEY",
            "target:environment:acme/infra:production"} <= ids
    for r in doc["reached"]:
        # path_lifetime: only where the shown path lasts less than the best path (tests/test_path_lifetime.py)
        assert set(r) - {"path_lifetime"} == {"id", "kind", "name", "criticality", "confidence", "lifetime", "path"}
        assert r["path"] and r["path"][0]["source"] == "runner:acme/build-01-a" and r["path"][-1]["target"] == r["id"]
        assert all(h["evidence"] for h in r["path"])
    assert len(doc["revocations"]) >= 3
    ranks = [s["rank"] for s in doc["revocations"]]
    assert ranks == list(range(1, len(ranks) + 1))
    residuals = [s["residual_weight"] for s in doc["revocations"]]
    assert residuals == sorted(residuals, reverse=True) and residuals[-1] < doc["weight"]
    assert {"rank", "action", "target", "cuts", "residual_weight"} <= set(doc["revocations"][0])


def test_blast_radius_table_from_inputs_and_top():
    res = invoke("blast-radius", "--github-actions", REPOS, "--runners", INVENTORY, "--from",
                 "runner:acme/build-01-a", "--top", "3")
    assert res.exit_code == 0, res.output
    assert "Blast radius of build-01-a" in res.stdout
    assert "(top 3 shown)" in res.stdout and "Revocation plan" in res.stdout
    assert "path: build-01-a -" in res.stdout and "evidence: " in res.stdout


def test_blast_radius_from_host_covers_its_runners(graph_file):
    res = invoke("blast-radius", "--graph", str(graph_file), "--from", "host:build-01", "--format", "json")
    ids = {r["id"] for r in json.loads(res.stdout)["reached"]}
    assert {"runner:acme/build-01-a", "runner:acme/build-01-b"} <= ids


def test_unknown_source_suggests_close_ids(graph_file):
    res = invoke("blast-radius", "--graph", str(graph_file), "--from", "runner:acme/build-01")
    assert res.exit_code == 2
    assert "did you mean" in res.output and "runner:acme/build-01-a" in res.output


def test_a_source_written_otherwise_names_its_canonical_node(graph_file):
    """``repo:ACME/Infra`` is the repository graphkit writes ``repo:acme/infra`` (ids lower-case owner/name):
    the same blast radius, under the canonical id; an id no node has, canonical or not, stays unknown."""
    as_written = json.loads(invoke("blast-radius", "--graph", str(graph_file), "--from", "repo:ACME/Infra",
                                   "--format", "json", "--no-plan").stdout)
    canonical = json.loads(invoke("blast-radius", "--graph", str(graph_file), "--from", "repo:acme/infra",
                                  "--format", "json", "--no-plan").stdout)
    assert as_written == canonical and as_written["counts"]["reached"] > 10
    assert invoke("blast-radius", "--graph", str(graph_file), "--from", "repo:ACME/nope").exit_code == 2


def test_a_long_name_is_cut_and_the_rest_of_its_path_line_kept(tmp_path):
    wf = tmp_path / "acme__app" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "c.yml").write_text("on: push\njobs:\n  j:\n    name: \"" + "N" * 5000 + "\"\n"
                              "    runs-on: [self-hosted, linux]\n    steps:\n      - run: echo ${{ secrets.S }}\n")
    res = invoke("blast-radius", "--github-actions", str(tmp_path), "--from", "runner:inferred:acme:linux+self-hosted")
    path = next(line for line in res.stdout.splitlines() if "-reads_secret->" in line)
    assert "N" * 301 not in path and "(name of 5000 characters, cut) -reads_secret-> acme/app secret S" in path
    doc = json.loads(invoke("blast-radius", "--github-actions", str(tmp_path), "--from",
                            "runner:inferred:acme:linux+self-hosted", "--format", "json").stdout)
    assert "N" * 5000 in json.dumps(doc)  # JSON keeps the name whole


def test_build_never_writes_the_graph_over_an_input(tmp_path):
    export = tmp_path / "aws-iam.json"
    export.write_bytes((ROOT / "examples" / "acme" / "aws-iam.json").read_bytes())
    before = export.read_bytes()
    res = invoke("build", "--aws-iam", str(export), "-o", str(export))
    assert res.exit_code == 2 and "is an input of this build" in res.output
    assert export.read_bytes() == before
    wf = tmp_path / "acme__app" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "ci.yml").write_text("on: push\njobs:\n  b:\n    runs-on: [self-hosted, linux]\n    steps: []\n")
    res = invoke("build", "--github-actions", str(tmp_path), "-o", str(wf / "ci.yml"))  # a file of an input folder
    assert res.exit_code == 2 and (wf / "ci.yml").read_text().startswith("on: push")
    for _ in range(2):  # a graph saved in the input folder is replaced by the next build
        assert invoke("build", "--github-actions", str(tmp_path), "-o", str(tmp_path / "g.json")).exit_code == 0


def test_partial_input_exit_code_names_the_file(tmp_path):
    wf = tmp_path / "acme__bad" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "broken.yml").write_text("on: push\njobs:\n  a: [unclosed\n")
    (wf / "ok.yml").write_text("on: push\njobs:\n  b:\n    runs-on: [self-hosted, linux]\n    steps: []\n")
    res = invoke("build", "--github-actions", str(tmp_path / "acme__bad"), "-o", str(tmp_path / "g.json"))
    assert res.exit_code == EXIT_PARTIAL
    assert "broken.yml" in res.stderr
    g = json.loads((tmp_path / "g.json").read_text())
    assert "job:acme/bad/.github/workflows/ok.yml#b" in {n["id"] for n in g["nodes"]}


GITLAB_RUNNER = ROOT.parent / "shared" / "corpus" / "gitlab-ci" / "gitlabhq__gitlab-runner"


@pytest.mark.requires(GITLAB_RUNNER.is_dir(), reason="corpus not present", corpus=True)
def test_every_command_on_a_saved_partial_graph_says_why_and_exits_3(tmp_path):
    # README "Exit codes": 3 = partial input.  gitlab-runner's configuration extends templates of components graphkit
    # does not fetch: three places skipped, kept in the saved graph's meta.problems
    path = tmp_path / "g.json"
    built = invoke("build", "--gitlab-ci", str(GITLAB_RUNNER), "-o", str(path))
    assert built.exit_code == EXIT_PARTIAL
    assert built.stderr.splitlines()[-1] == ("partial input: 3 file(s) or place(s) were skipped (named above); the "
                                             "output covers the rest")
    job = "job:gitlab:gitlabhq/gitlab-runner:.gitlab-ci.yml#unit test"
    edge = "has_workflow:repo:gitlab:gitlabhq/gitlab-runner->workflow:gitlab:gitlabhq/gitlab-runner:.gitlab-ci.yml"
    g = ["--graph", str(path)]
    commands = [["nodes", *g], ["nodes", *g, "--format", "json"], ["findings", *g], ["findings", *g, "-f", "json"],
                ["report", *g, "--from", job, "-o", str(tmp_path / "r.html")],
                ["export", "opengraph", *g, "-o", str(tmp_path / "og.json")],
                ["blast-radius", *g, "--from", job], ["blast-radius", *g, "--from", job, "--format", "json"],
                ["blast-radius", *g, "--from", job, "--format", "runbook"], ["blast-radius", *g, "--all-runners"],
                ["what-if", *g, "--from", job, "--remove-edge", edge]]
    first = (f"partial input: 3 file(s) or place(s) were skipped when {path} was built; the output covers the "
             "rest:")
    src = str(GITLAB_RUNNER / ".gitlab" / "ci")
    for args in commands:
        res = invoke(*args)
        assert res.exit_code == EXIT_PARTIAL, (args, res.output)
        lines = res.stderr.splitlines()
        note = lines[lines.index(first):]
        assert [line.split(": ", 1)[0] for line in note[1:]] == [
            f"  skipped {src}/build.gitlab-ci.yml", f"  skipped {src}/build.gitlab-ci.yml",
            f"  skipped {src}/test.gitlab-ci.yml"], args
        assert note[3].endswith("fuzz variable mask.extends: extends '.fuzz_base': no such job or template (or in an "
                                "include graphkit does not fetch: component ${CI_SERVER_FQDN}/components/dependency-"
                                "scanning/main@1.1.1, project gitlab-com/gl-security/security-operations/infrastructure-"
                                "security-public/oidc-modules:templates/gcp_auth.yaml@3.4.0, template Security/Coverage-"
                                "Fuzzing.latest.gitlab-ci.yml, component ${CI_SERVER_FQDN}/components/sast/sast@3.4.0, "
                                "component ${CI_SERVER_FQDN}/gitlab-org/components/danger-review/danger-review@2.1.0) "
                                "(line 181)")
        assert "some files or places were skipped" not in res.stderr  # one note, not two


def test_build_with_nothing_skipped_writes_nothing_to_stderr(tmp_path):
    """28 workflow files (over the 20 that show a progress bar), none skipped: stderr stays empty (the bar, off
    a terminal, left a bare newline); the summary table is on stdout."""
    import subprocess
    import sys
    repo = CORPUS / "grafana__shared-workflows"
    assert len(list(repo.rglob("*.y*ml"))) >= 20
    res = subprocess.run([sys.executable, "-m", "graphkit", "build", "--github-actions", str(repo), "-o",
                          str(tmp_path / "g.json")], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    assert "graph written to" in res.stdout


def test_no_input_is_usage_error():
    assert invoke("build").exit_code == 2
    assert invoke("blast-radius", "--from", "x").exit_code == 2


def test_missing_graph_file_is_error(tmp_path):
    res = invoke("nodes", "--graph", str(tmp_path / "nope.json"))
    assert res.exit_code == 1 and "nope.json" in res.stderr


def test_readme_quickstart_has_two_commands_and_model_tables_are_current():
    from graphkit.docs import render

    readme = (ROOT / "README.md").read_text()
    quick = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```sh\n(.*?)\n```", quick, flags=re.S)
    assert len(commands) == 2 and all("\n" not in c for c in commands)  # exactly two: install+run, install+test
    assert "graphkit blast-radius" in commands[0] and commands[1].endswith("pytest")
    usage = readme.split("\n## Usage", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"```sh\ngraphkit collect github .*--github-snapshot", usage)  # with a token: under Usage
    ci = (ROOT / ".ci/run").read_text()
    assert commands[1] in ci  # CI runs the README's test command
    assert render(readme) == readme, "run: python -m graphkit.docs"


QUICKSTART = ["blast-radius", "--github-actions", REPOS, "--runners", INVENTORY, "--aws-iam",
              str(ROOT / "examples/acme/aws-iam.json"), "--from", "runner:acme/build-01-a"]


@pytest.fixture
def terminal(monkeypatch):
    """Make stdout a terminal of a given width (no colours): what a responder sees."""
    from rich.console import Console

    import graphkit.cli as cli
    import graphkit.cli_common as common

    def width(columns: int) -> None:
        console = Console(force_terminal=True, color_system=None, width=columns, soft_wrap=True, emoji=False)
        monkeypatch.setattr(cli, "out", console)
        monkeypatch.setattr(common, "out", console)
    return width


@pytest.mark.parametrize("columns", [80, 120])
def test_quickstart_first_screen_is_the_summary_and_first_steps(terminal, columns):
    doc = json.loads(invoke(*QUICKSTART, "--format", "json").stdout)
    terminal(columns)
    res = invoke(*QUICKSTART)
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert all(len(line) <= columns for line in lines)
    screen = "\n".join(lines[:24])
    crit = doc["counts"]["by_criticality"]["critical"]
    assert screen.startswith("Blast radius of build-01-a\n")
    assert f"reached {doc['counts']['reached']} (top 5 shown), critical {crit}, possible " in screen
    assert f"First steps (5 of {doc['counts']['revocations']};" in screen
    assert doc["revocations"][0]["target_name"] == "/etc/runner-autoscaler/env on build-01"  # README's first step
    for s in doc["revocations"][:5]:  # one line each, in plan order
        assert f"{s['rank']:>4}. {s['action']} {s['target_name']}\n" in screen + "\n"
    assert "unknown: " in screen and "no input problems" in screen
    assert res.stdout.count("CRITICAL ") == 5 and "more asset(s)" in res.stdout  # --top 5 by default here


def test_blast_radius_piped_lists_everything_plain(graph_file):
    doc = json.loads(invoke("blast-radius", "--graph", str(graph_file), "--from", "runner:acme/build-01-a",
                            "--format", "json").stdout)
    res = invoke("blast-radius", "--graph", str(graph_file), "--from", "runner:acme/build-01-a")
    assert "\x1b" not in res.stdout and "more asset(s)" not in res.stdout and "more step(s)" not in res.stdout
    lines = res.stdout.splitlines()
    for r in doc["reached"]:  # one line each, whole (grep finds it)
        assert any(line.split()[1:2] == [r["id"]] for line in lines if line.startswith("  " + r["criticality"].upper()))


def test_blast_radius_wraps_under_its_indentation(terminal):
    terminal(80)
    res = invoke(*QUICKSTART, "--top", "30")
    lines = res.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    paths = [i for i, line in enumerate(lines) if line.startswith("           path: ")]
    assert paths
    wrapped = [lines[i + 1] for i in paths if not lines[i + 1].lstrip().startswith("evidence:")]
    assert wrapped and all(w.startswith(" " * 11) and w[11] != " " for w in wrapped)


@pytest.mark.parametrize("columns", [80, 120])
def test_findings_fit_the_terminal_without_splitting_ids(terminal, columns):
    found = json.loads(invoke("findings", "--github-actions", REPOS, "--runners", INVENTORY, "--format",
                              "json").stdout)["findings"]
    terminal(columns)
    res = invoke("findings", "--github-actions", REPOS, "--runners", INVENTORY)
    lines = res.stdout.splitlines()
    assert found and all(len(line) <= columns for line in lines)
    for f in found:  # the finding id on its severity line, the subject whole on its own line
        assert any(line.startswith(f["severity"].upper()) and line.rstrip().endswith(f"{f['rule']}  {f['id']}")
                   for line in lines)
        assert any(line.strip() == f"subject: {f['subject']}" for line in lines)


def test_no_command_writes_its_output_over_one_of_its_inputs(tmp_path):
    """``report -o``, ``export opengraph -o``, ``collect host -o`` and ``collect k8s -o`` refuse a path that is one
    of their inputs (the saved graph, an input file, the key file, the kubeconfig), as ``build`` does: a usage error
    (exit 2) naming both, and the input is left byte for byte."""
    acme = ROOT / "examples" / "acme"
    inv = tmp_path / "inv.yaml"
    inv.write_bytes((acme / "inventory.yaml").read_bytes())
    graph = tmp_path / "g.json"
    assert invoke("build", "--runners", str(inv), "--github-actions", str(acme / "repos"), "-o", str(graph)
                  ).exit_code == 0
    key = tmp_path / "k.key"
    key.write_bytes(b"k" * 32)
    kube = tmp_path / "kubeconfig"
    kube.write_text("apiVersion: v1\nkind: Config\n")
    cases = [(["report", "--graph", str(graph), "--from", "runner:acme/build-01-a", "-o", str(tmp_path / "." / "g.json")],
              graph, "--graph"),
             (["export", "opengraph", "--graph", str(graph), "-o", str(graph)], graph, "--graph"),
             (["report", "--github-actions", str(acme / "repos"), "--runners", str(inv), "--from",
               "runner:acme/build-01-a", "-o", str(inv)], inv, "--runners"),
             (["collect", "host", "--root", str(tmp_path), "--key-file", str(key), "-o", str(key)], key, "--key-file"),
             (["collect", "k8s", "--kubeconfig", str(kube), "-o", str(kube)], kube, "--kubeconfig")]
    for args, victim, option in cases:
        before = victim.read_bytes()
        res = invoke(*args)
        assert res.exit_code == 2, (args, res.output)
        assert f"is an input of this" in res.output and option in res.output and victim.name in res.output
        assert victim.read_bytes() == before
    res = invoke("export", "opengraph", "--graph", str(graph), "-o", str(tmp_path / "og.json"))
    assert res.exit_code == 0 and json.loads((tmp_path / "og.json").read_text())["metadata"]["source_kind"] == "GraphKit"


def test_output_never_replaces_a_file_an_input_folder_contributes_whatever_its_extension(tmp_path):
    """``-o`` onto a host snapshot (JSON) in a ``--runners`` folder, an IAM export (JSON) in an ``--aws-iam``
    folder, a workflow in a checkout, or any path under a mounted ``collect host --root`` (the runner's
    ``.credentials`` the scan reads): exit 2 naming the option, the file kept byte for byte.  A file the sources do
    not read (``g.txt`` in the IAM folder) may be written; on the live host (``--root /``) the files the scan read
    are refused after the scan."""
    from graphkit.build import reads_file
    from graphkit.cli_common import refuse_scan_output
    root = tmp_path / "root"
    folder = root / "opt" / "actions-runner"
    folder.mkdir(parents=True)
    (folder / ".runner").write_text(json.dumps({"agentId": 5, "agentName": "h-a", "poolId": 1,
                                                "gitHubUrl": "https://github.com/acme", "ephemeral": False}))
    (folder / ".credentials").write_text('{"scheme": "OAuth", "data": {"clientId": "c"}}')
    snaps, iam = tmp_path / "snaps", tmp_path / "iam"
    snaps.mkdir(), iam.mkdir()
    snapshot, export = snaps / "host-a.json", iam / "acct.json"
    res = invoke("collect", "host", "--root", str(root), "-o", str(snapshot))
    assert res.exit_code == 0 and json.loads(snapshot.read_text())["schema"] == "graphkit.runner-inventory/v1"
    export.write_bytes((ROOT / "examples/acme/aws-iam.json").read_bytes())
    workflow = next((ROOT / "examples/acme/repos").rglob("*.yml"))
    checkout = tmp_path / "repos"
    (checkout / workflow.parent.relative_to(ROOT / "examples/acme/repos")).mkdir(parents=True)
    copied = checkout / workflow.relative_to(ROOT / "examples/acme/repos")
    copied.write_bytes(workflow.read_bytes())
    cases = [(["build", "--runners", str(snaps), "-o", str(snapshot)], snapshot, "--runners"),
             (["report", "--runners", str(snaps), "--from", "host:h-a", "-o", str(snapshot)], snapshot, "--runners"),
             (["build", "--aws-iam", str(iam), "-o", str(export)], export, "--aws-iam"),
             (["build", "--github-actions", str(checkout), "-o", str(copied)], copied, "--github-actions"),
             (["collect", "host", "--root", str(root), "-o", str(folder / ".credentials")], folder / ".credentials",
              "--root"),
             (["collect", "host", "--root", str(root), "-o", str(root / "new.json")], root / "new.json", "--root")]
    for args, victim, option in cases:
        before = victim.read_bytes() if victim.exists() else None
        res = invoke(*args)
        assert res.exit_code == 2, (args, res.output)
        text = " ".join(res.output.split())
        assert "is an input of this" in text and option in text and victim.name in text, text
        assert (victim.read_bytes() if victim.exists() else None) == before
    assert reads_file({"aws-iam": [iam]}, export) and not reads_file({"aws-iam": [iam]}, iam / "g.txt")
    assert invoke("build", "--aws-iam", str(iam), "-o", str(iam / "g.txt")).exit_code == 0
    assert json.loads(export.read_bytes()) == json.loads((ROOT / "examples/acme/aws-iam.json").read_bytes())
    from graphkit import registry
    read = registry.get_collector("host").collect(root).read
    assert {str((folder / n).resolve()) for n in (".runner", ".credentials")} <= set(read)
    with pytest.raises(typer.BadParameter, match="the scan read it"):
        refuse_scan_output(folder / ".runner", Path("/"), None, read)
    refuse_scan_output(folder / "other.json", Path("/"), None, read)  # on the live host, a file not read: written


def test_tokens_records_left_out_are_input_problems_of_the_summary_and_the_json(graph_file, tmp_path):
    """A tokens file with four bad records (an STS session of negative duration, a bad time, an unknown kind, a
    non-mapping) next to valid ones: the records left out are input problems in the table's summary and in the
    JSON ``problems`` (``partial_input`` true), not only on stderr; exit 3."""
    tokens = tmp_path / "tok.yaml"
    tokens.write_text(
        "schema: graphkit.issued-tokens/v1\ntokens:\n"
        "  - {kind: sts_session, subject: 'cloud_role:aws:arn:aws:iam::111122223333:role/acme-release', "
        "issued_at: '2026-12-01T19:50:00Z', duration_seconds: -5}\n"
        "  - {kind: github_token, subject: 'job:acme/app/.github/workflows/release.yml#publish', issued_at: nope}\n"
        "  - {kind: nosuch, subject: x, issued_at: '2026-12-01T19:50:00Z'}\n"
        "  - {kind: sts_session, subject: 'cloud_role:aws:arn:aws:iam::111122223333:role/acme-release', "
        "issued_at: '2026-12-01T19:59:00Z', duration_seconds: 600}\n"
        "  - 42\n", encoding="utf-8")
    args = ["blast-radius", "--graph", str(graph_file), "--from", "runner:acme/build-01-a", "--now",
            "2026-12-01T20:00:00Z", "--tokens", str(tokens)]
    res = invoke(*args, "--format", "json")
    assert res.exit_code == 3
    doc = json.loads(res.stdout)
    assert doc["partial_input"] is True
    assert [(p["file"], p["place"]) for p in doc["problems"]] == [
        (str(tokens), "tokens[0].duration_seconds"), (str(tokens), "tokens[1].issued_at"),
        (str(tokens), "tokens[2].kind"), (str(tokens), "tokens[4]")]
    assert [t["status"] for t in doc["time"]["tokens"]] == ["live"]
    res = invoke(*args)
    assert res.exit_code == 3 and "4 input problem(s)" in " ".join(res.stdout.split())
    assert "no input problems" not in res.stdout


def test_tokens_file_is_read_bounded(graph_file, tmp_path, monkeypatch):
    """``--tokens`` given a FIFO (would block), ``/dev/zero`` (endless) or a file over ``max_file_bytes``: an error
    naming the file and what it is (exit 1), never a hang or a MemoryError; nothing on stdout."""
    import os
    fifo = tmp_path / "tok.fifo"
    os.mkfifo(fifo)
    big = tmp_path / "big.yaml"
    big.write_text("schema: graphkit.issued-tokens/v1\ntokens: []\n" + "#" * 2000 + "\n", encoding="utf-8")
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_FILE_BYTES", "1024")
    for path, said in ((fifo, "a named pipe (FIFO): not read"), (Path("/dev/zero"), "a character device: not read"),
                       (big, "max_file_bytes")):
        res = invoke("blast-radius", "--graph", str(graph_file), "--from", "runner:acme/build-01-a", "--tokens",
                     str(path))
        assert res.exit_code == 1 and res.stdout == "", (path, res.output)
        assert str(path) in res.stderr and said in " ".join(res.stderr.split())
