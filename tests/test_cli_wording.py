"""What the command line says, on the bundled example: usage errors in graphkit's words (no pydantic or model
class names), every error of a tokens file, suggestions closest first, a title naming the source as given, and
``report`` sharing ``--org`` / ``--from untrusted:fork-pr`` with ``blast-radius``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphkit.analysis.timeline import MAX_LISTED_ERRORS, load_issued
from graphkit.cli import app
from graphkit.errors import InputError, closest

ROOT = Path(__file__).resolve().parents[1]
REPOS = str(ROOT / "examples/acme/repos")
INVENTORY = str(ROOT / "examples/acme/inventory.yaml")
SOURCE = "runner:acme/build-01-a"
runner = CliRunner()


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("g") / "graph.json"
    res = runner.invoke(app, ["build", "--github-actions", REPOS, "--runners", INVENTORY, "-o", str(path)])
    assert res.exit_code == 0, res.output
    return str(path)


@pytest.mark.parametrize("command, choices", [
    (["blast-radius", "--from", SOURCE], "'table', 'json', 'runbook'"),
    (["what-if", "--from", SOURCE, "--ephemeral", SOURCE], "'table', 'json'"),
    (["findings"], "'table', 'json', 'sarif'"),
])
def test_a_bad_choice_is_said_without_pydantic_wording(graph_file, command, choices):
    res = runner.invoke(app, [*command, "--graph", graph_file, "--format", "xml"])
    assert res.exit_code == 2, res.output
    text = flat(res.output)
    assert f"Invalid value for '--format' / '-f': 'xml' is not one of {choices}." in text
    assert "Value error" not in text


def test_a_tokens_file_that_is_no_mapping_names_no_model_class(graph_file):
    res = runner.invoke(app, ["blast-radius", "--graph", graph_file, "--from", SOURCE, "--tokens", "/etc/passwd"])
    assert res.exit_code == 1
    text = flat(res.stderr)
    assert "/etc/passwd: expected a mapping (schema: graphkit.issued-tokens/v1, tokens: [...]), got text" in text
    assert "IssuedFile" not in text and "root:" not in text


def test_every_error_of_a_tokens_file_is_shown_up_to_a_bound(tmp_path):
    path = tmp_path / "tokens.yaml"
    path.write_text("schema: graphkit.issued-tokens/v1\ntokens:\n"
                    "  - {kind: nope, subject: 'runner:acme/build-01-a', issued_at: '2026-12-01T10:00:00Z'}\n"
                    "  - {kind: github_token, subject: 'job:x', issued_at: notadate}\n")
    with pytest.raises(InputError) as exc:
        load_issued(path)
    assert exc.value.place == "tokens[0].kind"
    assert exc.value.reason.startswith("Input should be 'registration_token', ")
    assert "; 1 more error(s): tokens[1].issued_at: Input should be a valid datetime" in exc.value.reason
    assert "notadate" not in exc.value.reason
    many = "".join(f"  - {{kind: nope{i}, subject: x, issued_at: '2026-12-01T10:00:00Z'}}\n" for i in range(30))
    path.write_text("schema: graphkit.issued-tokens/v1\ntokens:\n" + many)
    with pytest.raises(InputError) as exc:
        load_issued(path)
    listed = re.findall(r"tokens\[\d+\]\.kind", exc.value.reason)
    assert len(listed) == MAX_LISTED_ERRORS - 1 and exc.value.reason.endswith(f"(and {30 - MAX_LISTED_ERRORS} more)")


def test_suggestions_are_closest_first_then_by_id(graph_file):
    res = runner.invoke(app, ["blast-radius", "--graph", graph_file, "--from", "runner:acme/BUILD-01-A"])
    assert res.exit_code == 2
    assert "did you mean: runner:acme/build-01-a, runner:acme/build-01-b," in flat(res.output)
    assert closest("b", ["ab", "ba", "xx"]) == ["ab", "ba"]  # equal closeness: by id


def test_the_title_names_the_source_as_the_user_named_it(graph_file):
    """``--from repo:acme/app`` stands for the repository's jobs; the title names the repository."""
    res = runner.invoke(app, ["blast-radius", "--graph", graph_file, "--from", "repo:acme/app"])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0] == "Blast radius of acme/app"
    res = runner.invoke(app, ["blast-radius", "--graph", graph_file, "--from", SOURCE, "--from", "host:build-01"])
    assert res.stdout.splitlines()[0] == "Blast radius of build-01-a, build-01"


def test_report_takes_org_and_untrusted_sources_as_blast_radius_does(graph_file, tmp_path):
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["report", "--graph", graph_file, "--from", "untrusted:fork-pr", "--org", "ACME",
                              "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "untrusted:fork-pr:acme" in out.read_text(encoding="utf-8")
    helps = [flat(runner.invoke(app, [cmd, "--help"]).output) for cmd in ("report", "blast-radius", "what-if")]
    org = "--org ORG Owner of the untrusted entry points named without one (--from untrusted:fork-pr)."
    assert all(org in h for h in helps)


_TOKENS = ("schema: graphkit.issued-tokens/v1\ntokens:\n"
           + "".join(f"  - {{kind: registration_token, subject: '{SOURCE}', issued_at: '2026-12-01T1{i}:00:00Z'}}\n"
                     for i in range(3))
           + f"  - {{kind: sts_session, subject: '{SOURCE}', issued_at: '2026-12-01T10:00:00Z', duration_seconds: -5}}\n"
           + f"  - {{kind: registration_token, subject: '{SOURCE}', issued_at: '2026-12-01T10:00:00+25:00'}}\n")


@pytest.mark.parametrize("extra", [[], ["--format", "json"], ["--format", "runbook"], ["--all-runners"]])
def test_the_partial_note_counts_and_names_the_tokens_file(graph_file, tmp_path, extra):
    """Fresh-user run: two bad records of a tokens file with a complete graph ended with "0 file(s) or place(s)
    were skipped when acme.json was built" and an empty list.  The note counts the tokens file's 2 records and
    names that file; the graph is not blamed."""
    tokens = tmp_path / "tok.yaml"
    tokens.write_text(_TOKENS)
    source = [] if "--all-runners" in extra else ["--from", SOURCE]
    res = runner.invoke(app, ["blast-radius", "--graph", graph_file, *source, "--tokens", str(tokens), *extra])
    assert res.exit_code == 3, res.output
    lines = [flat(line) for line in res.stderr.splitlines() if line.strip()]
    assert lines[:2] == [f"skipped {tokens}: tokens[3].duration_seconds: Input should be greater than or equal to 1",
                         f"skipped {tokens}: tokens[4].issued_at: Input should be a valid datetime or date, "
                         "unexpected extra characters at the end of the input"]
    assert flat(" ".join(lines[2:])) == (f"partial input: 2 place(s) of {tokens} were skipped (named above); the "
                                         "output covers the rest")


def test_the_partial_note_counts_a_partial_graph_and_the_tokens_file_apart(tmp_path):
    """A graph with a skipped input and a tokens file with bad records: each counted under its own file."""
    from graphkit.build import build_graph

    repos = tmp_path / "repos"
    (repos / "acme__app" / ".github" / "workflows").mkdir(parents=True)
    (repos / "acme__app" / ".github" / "workflows" / "ci.yml").write_text(
        "on: push\njobs:\n  b:\n    runs-on: [self-hosted]\n    steps:\n      - run: make\n")
    (repos / "acme__app" / ".github" / "workflows" / "bad.yml").write_text("on: [push\n")
    g = build_graph({"github-actions": [repos]}).graph
    assert len(g.meta.problems) == 1
    gfile, tokens = tmp_path / "g.json", tmp_path / "tok.yaml"
    g.save(gfile)
    tokens.write_text(_TOKENS)
    res = runner.invoke(app, ["blast-radius", "--graph", str(gfile), "--from", "job:acme/app/.github/workflows/ci.yml#b",
                              "--tokens", str(tokens)])
    assert res.exit_code == 3, res.output
    text = flat(res.stderr)
    assert (f"partial input: 1 file(s) or place(s) were skipped when {gfile} was built; 2 place(s) of {tokens} "
            "were skipped (named above); the output covers the rest: skipped ") in text
    assert f"the output covers the rest: skipped {g.meta.problems[0].file}" in text
    assert text.count(str(tokens)) == 3  # its two records, then the note
