"""Hostile inputs a fresh user planted: secret-looking keys and values in validation errors and tables, files that
are not regular files in ``.github/workflows``, and the names problems give the files of several repositories.

Token-shaped values are built at run time (no tracked file holds one).  They are 34 or 35 characters after the
``ghp_`` prefix: GitHub's tokens vary in length (:mod:`graphkit.redact`), so a value one character short of the
36 of today's classic format is still a token.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError
from typer.testing import CliRunner

from graphkit.build import build_graph
from graphkit.cli import app
from graphkit.model import NodeKind
from graphkit.errors import InputError, shown_reason, validation_problems, validation_summary
from graphkit.redact import find_credentials, fingerprint, redact_text

runner = CliRunner()

#: Planted values (each holds ``PLANTED``; the tests grep every output for it).
KEY = "ghp_" + "PLANTEDinvkey" + "0" * 20 + "E1"          # 35 characters after the prefix
SECRET_NAME = "ghp_" + "PLANTEDsecretname" + "0" * 16 + "E2"
SUBJECT = "ghp_" + "PLANTEDsubject" + "0" * 18 + "H1"      # 34
TOKEN_KEY = "ghp_" + "PLANTEDtokkey" + "0" * 20 + "H2"


def planted(text: str) -> list[str]:
    """Lines of ``text`` holding a planted value (case-insensitive: ids lower-case some names)."""
    return [line[:200] for line in text.splitlines() if "planted" in line.lower()]


def run(*args: str) -> tuple[int, str]:
    """A command's exit status and its stdout and stderr together."""
    res = runner.invoke(app, list(args))
    return res.exit_code, res.output


# --------------------------------------------------------------------------- token formats


def test_github_tokens_of_any_documented_length_are_credentials():
    """``ghp_`` and its siblings followed by 20 or more token characters are found whole (a 40-character tail
    was found only in its first 36 before), a short placeholder is not."""
    for value in (KEY, SUBJECT, "ghs_" + "7" * 7 + "_" + "eyJ" + "a1" * 20 + "." + "b2" * 30, "gho_" + "Q7" * 20):
        found = find_credentials(f"x: {value}\n")
        assert [(m.kind, m.start, m.end) for m in found] == [("GitHub Token", 3, 3 + len(value))], value
        assert redact_text(f"[{value}].") == "[***]."
    assert find_credentials("token: ghp_your_pat\n") == [] and find_credentials("ghp_" + "a1" * 9) == []


# --------------------------------------------------------------------------- pydantic errors, one place


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    count: int


def test_every_validation_error_is_shown_without_its_key_or_value():
    """The place of an unknown token-shaped key is ``***``; the value a field refused is never quoted, in a
    problem or in a one-line summary; a pydantic text quoted whole loses its ``input_value``."""
    with pytest.raises(ValidationError) as err:
        _Entry.model_validate({"count": "PLANTED-value-" + SUBJECT, KEY: 1})
    problems = validation_problems("f.yaml", err.value, "tokens[0]")
    assert [(p.file, p.place, p.reason) for p in problems] == [
        ("f.yaml", "tokens[0].count", "Input should be a valid integer, unable to parse string as an integer"),
        ("f.yaml", "tokens[0].***", "Extra inputs are not permitted")]
    assert validation_summary(err.value) == ("count: Input should be a valid integer, unable to parse string as an "
                                             "integer (and 1 more)")
    quoted = shown_reason(f"left out: {err.value}")
    assert planted(quoted) == [] and "valid integer" in quoted and "errors.pydantic.dev" not in quoted
    assert planted(str(InputError("f.yaml", f"a.{KEY}", f"key {KEY}"))) == []


# --------------------------------------------------------------------------- runner inventory


def test_an_inventory_key_of_35_characters_is_never_echoed_nor_stored(tmp_path):
    """The fresh user's inventory: an unknown token-shaped key of an organization (35 characters after ``ghp_``)
    was printed on stderr and stored in ``meta.problems``; now it is ``***`` there, at its line."""
    inv = tmp_path / "inv.yaml"
    inv.write_text("schema: graphkit.runner-inventory/v1\norganizations:\n  - name: acme\n"
                   f"    {KEY}: 1\n    secrets:\n      - name: \"{SECRET_NAME}\"\n        scope: org\n"
                   f"repositories:\n  - full_name: acme/app\n    visibility: \"{_planted('visibility')}\"\n"
                   f"hosts:\n  - name: h1\n    credentials:\n      - credential_type: github_pat\n        path: /etc/x\n"
                   f"        fingerprint: \"{_planted('fingerprint')}\"\n"
                   f"        access: [\"https://u:{_planted('access')}@github.com/acme\"]\n"
                   "runners:\n  - {name: good, labels: [self-hosted], scope: acme}\n"
                   f"  - name: r1\n    scope: acme\n    host: h1\n    labels: [self-hosted]\n    registration:\n"
                   f"      url: \"https://u:{_planted('regurl')}@github.com/acme\"\n"
                   f"      agent_id: \"{_planted('agentid')}\"\n", encoding="utf-8")
    out = tmp_path / "g.json"
    code, text = run("build", "--runners", str(inv), "-o", str(out))
    assert code == 3 and planted(text) == [] and planted(out.read_text(encoding="utf-8")) == []
    problems = json.loads(out.read_text(encoding="utf-8"))["meta"]["problems"]
    assert [(p["place"], p["reason"][:13]) for p in problems] == [
        ("organizations[0].secrets[0].scope", "unknown field"), ("organizations[0].***", "unknown field"),
        ("repositories[0].visibility", "Input should "), ("hosts[0].credentials[0].fingerprint", "String should"),
        ("runners[1].registration.config_path", "required fiel"), ("runners[1].registration.agent_id", "Input should ")]
    assert f"{inv}: organizations[0].***: unknown field" in text and "(line 4)" in text


def _planted(word: str) -> str:
    """A token-shaped value of 34 to 36 characters after ``ghp_`` naming where it was planted."""
    return "ghp_PLANTED" + word + "0" * max(0, 34 - 7 - len(word)) + "E9"


# --------------------------------------------------------------------------- issued-tokens file


def _graph(tmp_path: Path) -> Path:
    inv = tmp_path / "inv.yaml"
    inv.write_text("schema: graphkit.runner-inventory/v1\norganizations:\n  - name: acme\n"
                   "runners:\n  - {name: good, labels: [self-hosted], scope: acme}\n", encoding="utf-8")
    g = tmp_path / "g.json"
    build_graph({"runners": [inv]}).graph.save(g)
    return g


def test_a_tokens_file_with_a_token_shaped_key_names_its_place_without_it(tmp_path):
    tokens = tmp_path / "tok.yaml"
    tokens.write_text("schema: graphkit.issued-tokens/v1\ntokens:\n  - kind: github_token\n"
                      f"    subject: runner:acme/good\n    issued_at: 2026-12-01T00:00:00Z\n    {TOKEN_KEY}: 1\n",
                      encoding="utf-8")
    code, text = run("blast-radius", "-g", str(_graph(tmp_path)), "--from", "runner:acme/good", "--now",
                     "2026-12-01T01:00:00Z", "--tokens", str(tokens))
    assert code != 0 and planted(text) == []
    assert f"{tokens}: tokens[0].***: Extra inputs are not permitted" in " ".join(text.split())


@pytest.mark.parametrize("fmt", ["table", "json", "runbook"])
def test_a_token_given_as_a_subject_is_shown_as_its_fingerprint(tmp_path, fmt):
    """A ``subject`` that is a token (not a node id) was printed in the "Tokens and sessions" table: now every
    output shows ``***`` and the value's keyed fingerprint, as ids scrubbed of a token do."""
    tokens = tmp_path / "tok2.yaml"
    tokens.write_text("schema: graphkit.issued-tokens/v1\ntokens:\n  - kind: github_token\n"
                      f"    subject: \"{SUBJECT}\"\n    issued_at: 2026-12-01T00:00:00Z\n    note: \"was {SUBJECT}\"\n",
                      encoding="utf-8")
    code, text = run("blast-radius", "-g", str(_graph(tmp_path)), "--from", "runner:acme/good", "--now",
                     "2026-12-01T01:00:00Z", "--tokens", str(tokens), "-f", fmt)
    assert code in (0, 3) and planted(text) == []
    if fmt != "runbook":
        assert "***" + fingerprint(SUBJECT.encode()) in text


# --------------------------------------------------------------------------- files that are not files


def _silent_checkout(tmp_path: Path) -> Path:
    """The fresh user's ``sil`` folder: one good workflow, a link to it, and beside them a FIFO, a dangling link,
    a link to a folder and a folder, each named ``*.yml``."""
    wf = tmp_path / "sil" / "acme__sil" / ".github" / "workflows"
    wf.mkdir(parents=True)
    (tmp_path / "sil" / "acme__sil" / ".github" / "sub").mkdir()
    (wf / "ok.yml").write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo\n",
                               encoding="utf-8")
    os.symlink("ok.yml", wf / "alias.yml")
    os.mkfifo(wf / "fifo.yml")
    os.symlink("/nonexistent-target", wf / "dangling.yml")
    os.symlink("../sub", wf / "dir.yml")
    (wf / "realdir.yml").mkdir()
    os.symlink("loop.yml", wf / "loop.yml")
    return tmp_path / "sil"


def test_entries_of_github_workflows_that_are_not_files_are_named_never_opened(tmp_path):
    """Each is a problem naming the file and what it is (exit 3, the source partial), the good files are built,
    and the FIFO is never opened (a read would block: the build finishing proves it)."""
    sil = _silent_checkout(tmp_path)
    out = tmp_path / "g.json"
    code, text = run("build", "--github-actions", str(sil), "-o", str(out))
    wf = sil / "acme__sil" / ".github" / "workflows"
    assert code == 3
    meta = json.loads(out.read_text(encoding="utf-8"))["meta"]
    assert [(p["file"], p["reason"]) for p in meta["problems"]] == [
        (str(wf / "dangling.yml"), "a symbolic link to nothing (its target does not exist): not read"),
        (str(wf / "dir.yml"), "a symbolic link to a folder: not read"),
        (str(wf / "fifo.yml"), "a named pipe (FIFO): not read"),
        (str(wf / "loop.yml"), "a symbolic link loop: not read"),
        (str(wf / "realdir.yml"), "a folder: not read")]
    assert meta["sources"]["github-actions"] == {"complete": False, "items": 2}
    assert f"skipped {wf / 'fifo.yml'}: a named pipe (FIFO): not read" in text
    assert {n["id"] for n in json.loads(out.read_text(encoding="utf-8"))["nodes"] if n["kind"] == "workflow"} == {
        "workflow:acme/sil/.github/workflows/alias.yml", "workflow:acme/sil/.github/workflows/ok.yml"}


def test_a_fifo_found_in_an_input_folder_is_named_and_never_opened(tmp_path):
    """The other sources list folders recursively: a FIFO or a dangling link matching their patterns is a
    problem naming it; :func:`graphkit.ingestor.read_text` refuses a FIFO given by name without opening it."""
    from graphkit.ingestor import read_text

    folder = tmp_path / "inv"
    folder.mkdir()
    (folder / "inventory.yaml").write_text("schema: graphkit.runner-inventory/v1\norganizations:\n  - name: acme\n"
                                           "runners:\n  - {name: good, labels: [self-hosted], scope: acme}\n",
                                           encoding="utf-8")
    os.mkfifo(folder / "pipe.yaml")
    os.symlink(tmp_path / "missing.json", folder / "gone.json")
    result = build_graph({"runners": [folder]})
    assert [(p.file, p.reason) for p in result.problems] == [
        (str(folder / "gone.json"), "a symbolic link to nothing (its target does not exist): not read"),
        (str(folder / "pipe.yaml"), "a named pipe (FIFO): not read")]
    assert "runner:acme/good" in result.graph and not result.graph.meta.sources["runners"].complete
    unblock = threading.Timer(3, _open_writer, (folder / "pipe.yaml",))  # a reader that opened it gets EOF
    unblock.start()
    try:
        with pytest.raises(InputError) as err:
            read_text(folder / "pipe.yaml")
    finally:
        unblock.cancel()
    assert err.value.reason == "a named pipe (FIFO): not read"


def test_gitlab_local_includes_that_are_not_files_are_named_never_opened(tmp_path):
    """gitlab-runner's corpus checkout with four of its ``include: local`` files replaced by a FIFO, a link to
    nothing, a link loop and a folder, and an added ``local: /.gitlab/ci/extra/*.yml`` whose one match is a FIFO:
    each is a problem naming the entry and what it is (before: "matches no file", or nothing for the wildcard),
    the FIFOs are never opened (the build finishing proves it), and the other included files are built."""
    import shutil
    corpus = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "gitlab-ci" / "gitlabhq__gitlab-runner"
    root = tmp_path / "gitlabhq__gitlab-runner"
    shutil.copytree(corpus, root, symlinks=True)
    ci = root / ".gitlab" / "ci"
    for name in ("qa", "coverage", "docs", "deploy"):
        (ci / f"{name}.gitlab-ci.yml").unlink()
    os.mkfifo(ci / "qa.gitlab-ci.yml")
    os.symlink("nowhere.yml", ci / "coverage.gitlab-ci.yml")
    os.symlink("docs.gitlab-ci.yml", ci / "docs.gitlab-ci.yml")
    (ci / "deploy.gitlab-ci.yml").mkdir()
    (ci / "extra").mkdir()
    os.mkfifo(ci / "extra" / "a.yml")
    top = root / ".gitlab-ci.yml"
    text = top.read_text(encoding="utf-8")
    assert "  - local: /.gitlab/ci/deploy.gitlab-ci.yml\n" in text
    top.write_text(text.replace("  - local: /.gitlab/ci/deploy.gitlab-ci.yml\n", "  - local: /.gitlab/ci/deploy."
                                "gitlab-ci.yml\n  - local: /.gitlab/ci/extra/*.yml\n", 1), encoding="utf-8")
    result = build_graph({"gitlab-ci": [root]})
    named = [(p.file, p.place, p.reason) for p in result.problems if p.reason.endswith(": not read")]
    assert named == [
        (str(ci / "qa.gitlab-ci.yml"), "", "a named pipe (FIFO): not read"),
        (str(ci / "coverage.gitlab-ci.yml"), "", "a symbolic link to nothing (its target does not exist): not read"),
        (str(ci / "deploy.gitlab-ci.yml"), "", "a folder: not read"),
        (str(ci / "extra" / "a.yml"), "", "a named pipe (FIFO): not read"),
        (str(ci / "docs.gitlab-ci.yml"), "", "a symbolic link loop: not read")]
    assert not [p for p in result.problems if "matches no file" in p.reason]
    assert not result.graph.meta.sources["gitlab-ci"].complete
    jobs = {n.job_key for n in result.graph.nodes(NodeKind.JOB)}
    assert {"binaries", "unit test"} <= jobs  # build.gitlab-ci.yml and test.gitlab-ci.yml are read


def _open_writer(fifo: Path) -> None:
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # ENXIO: nobody opened it for reading
    except OSError:
        pass


def test_a_home_folder_linked_out_of_the_scanned_root_is_named(tmp_path):
    """``~/.ssh -> ../../../../etc`` (out of the root): named on stderr and in ``scan.skipped``, never listed."""
    from host_fixtures import runner_install

    root = tmp_path / "root"
    runner_install(root, "/opt/ar", agent_id=1, name="build-01", url="https://github.com/acme", unit=None)
    (root / "etc").mkdir(exist_ok=True)
    (root / "etc" / "passwd").write_text("root:x:0:0::/root:/bin/sh\nci:x:1000:1000::/home/ci:/bin/sh\n")
    (root / "home" / "ci").mkdir(parents=True)
    os.symlink("../" * 12 + "etc", root / "home" / "ci" / ".ssh")
    out = tmp_path / "h.json"
    res = CliRunner().invoke(app, ["collect", "host", "--root", str(root), "-o", str(out)])
    assert res.exit_code == 3, res.output
    assert "/home/ci/.ssh: link out of the scanned root: not followed" in res.stderr
    skipped = json.loads(out.read_text())["hosts"][0]["scan"]["skipped"]
    assert {"path": "/home/ci/.ssh", "reason": "link out of root"} in skipped


# --------------------------------------------------------------------------- problems of several repositories


def _two_repositories(tmp_path: Path) -> Path:
    """``acme/a`` and ``acme/b``, each with ``.github/workflows/long.yml`` holding a job key past the
    identifier limit (a problem raised while building jobs, after parsing) and a call whose callee asks for
    more permissions than the caller grants (GitHub refuses that run)."""
    for name in ("a", "b"):
        wf = tmp_path / "repos" / f"acme__{name}" / ".github" / "workflows"
        wf.mkdir(parents=True)
        (wf / "long.yml").write_text(
            f"on: push\njobs:\n  ? {'k' * 5000}\n  :\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo\n"
            "  ok:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo\n", encoding="utf-8")
        (wf / "caller.yml").write_text(
            "on: push\npermissions:\n  contents: read\njobs:\n  call:\n    uses: ./.github/workflows/callee.yml\n",
            encoding="utf-8")
        (wf / "callee.yml").write_text(
            "on: workflow_call\njobs:\n  w:\n    permissions:\n      contents: write\n    runs-on: ubuntu-latest\n"
            "    steps:\n      - run: echo\n", encoding="utf-8")
    return tmp_path / "repos"


def test_problems_found_while_building_jobs_name_the_input_path_of_each_repository(tmp_path):
    """``skipped .github/workflows/long.yml`` twice said neither which repository nor which file: each problem
    raised while building (the identifier limit, a run GitHub refuses) names the file's input path, as the
    parse problems do."""
    repos = _two_repositories(tmp_path)
    result = build_graph({"github-actions": [repos]})
    shown = sorted((p.file, p.place.split(".")[0], p.reason[:20]) for p in result.problems)
    assert shown == [(str(repos / f"acme__{r}" / ".github" / "workflows" / f), place, reason)
                     for r in ("a", "b") for f, place, reason in (
                         ("caller.yml", "jobs", "called job .github/w"), ("long.yml", "jobs", "job id: refused: job"))]


def test_the_builder_alone_names_a_file_owner_repo_colon_path(tmp_path):
    """Without the input paths (a caller of :func:`ingest.github_actions.graph.to_graph` alone), a problem names
    ``OWNER/REPO:path``."""
    from ingest.github_actions.graph import to_graph
    from ingest.github_actions.parse import parse_workflow

    repos = _two_repositories(tmp_path)
    files = [parse_workflow((repos / f"acme__{r}" / ".github/workflows/long.yml").read_text(), file=".github/"
                            "workflows/long.yml", repository=f"acme/{r}") for r in ("a", "b")]
    assert sorted(p.file for p in to_graph(files).problems) == ["acme/a:.github/workflows/long.yml",
                                                                "acme/b:.github/workflows/long.yml"]
