"""Golden outputs of the fixture cases: every case under ``tests/fixtures/cases/`` is rebuilt and every document
compared, whole, with the one stored in its ``expected/`` folder.

How cases and goldens are laid out, and how to regenerate them: ``tests/regen_goldens.py``
(``python tests/regen_goldens.py``).  A failure prints a unified diff of each differing document; if the change
is intended, regenerate and review ``git diff tests/fixtures``.

The goldens are produced by the public API (``build_graph``, ``run_rules``/``findings_document``,
``blast_radius_document``); :func:`test_cli_prints_the_goldens` checks that the CLI prints the same documents.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

import pytest
from typer.testing import CliRunner

import regen_goldens as gold
from conftest import require
from graphkit.cli import app

#: Cases every checkout must have (more may be added freely).
REQUIRED_CASES = {"acme-example", "corpus", "reusable-oidc", "host-snapshot"}
#: Diff lines shown per differing document.
DIFF_LINES = 80


def _case(folder) -> gold.Case:
    """The case of ``folder``, skipped (failed under GRAPHKIT_CI=1) when its corpus inputs are absent."""
    case = gold.load_case(folder)
    missing = gold.missing_inputs(case)
    if missing and gold.needs_corpus(case):
        require(False, f"corpus not present at {gold.CORPUS} (case {case.name} reads {', '.join(missing)})", corpus=True)
    assert not missing, f"{case.name}: inputs named in case.yaml do not exist: {missing}"
    return case


def _text(document: Any) -> list[str]:
    return json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False).splitlines()


def golden_mismatch(case: gold.Case, expected: dict[str, Any], actual: dict[str, Any]) -> str:
    """A readable account of every difference between stored and rebuilt documents ('' when equal)."""
    out = []
    for name in sorted(set(expected) | set(actual)):
        if name not in actual:
            out.append(f"--- {name}: stored golden, but the case no longer produces it (stale file)")
        elif name not in expected:
            out.append(f"+++ {name}: produced, but no golden is stored")
        elif expected[name] != actual[name]:
            diff = list(difflib.unified_diff(_text(expected[name]), _text(actual[name]),
                                             f"{case.name}/expected/{name}", "rebuilt", lineterm=""))
            more = len(diff) - DIFF_LINES
            out += diff[:DIFF_LINES] + ([f"... {more} more diff line(s)"] if more > 0 else [])
    if not out:
        return ""
    return "\n".join([f"{case.name}: outputs differ from the goldens (key order normalised in this diff)", *out,
                      f"If the change is intended: python tests/regen_goldens.py {case.folder.name}, "
                      "then review git diff tests/fixtures and say why in the commit."])


def test_required_cases_exist():
    assert REQUIRED_CASES <= {f.name for f in gold.case_folders()}


def test_every_case_folder_is_a_case():
    for folder in gold.case_folders():
        case = gold.load_case(folder)  # raises on a missing or malformed case.yaml
        assert case.description, f"{case.name}: case.yaml needs a description"
        assert (folder / gold.EXPECTED / "findings.json").is_file(), \
            f"{case.name}: no goldens; run python tests/regen_goldens.py {folder.name}"


@pytest.mark.parametrize("folder", gold.case_folders(), ids=lambda f: f.name)
def test_case_matches_goldens(folder):
    case = _case(folder)
    result = gold.build_case(case)
    mismatch = golden_mismatch(case, gold.read_goldens(case), gold.documents(case, result))
    if mismatch:
        pytest.fail(mismatch, pytrace=False)


def _cli_inputs(case: gold.Case) -> list[str]:
    return [arg for name, paths in case.inputs.items() for p in paths for arg in (f"--{name}", p)]


@pytest.mark.parametrize("folder", [f for f in gold.case_folders() if not gold.needs_corpus(gold.load_case(f))],
                         ids=lambda f: f.name)
def test_cli_prints_the_goldens(folder, monkeypatch):
    """``graphkit findings`` and ``graphkit blast-radius`` (first ``from`` entry) print the stored documents."""
    case = _case(folder)
    monkeypatch.chdir(case.folder)
    goldens = gold.read_goldens(case)
    cli = CliRunner()
    orgs = [arg for org in case.expected_orgs for arg in ("--expected-org", org)]
    res = cli.invoke(app, ["findings", *_cli_inputs(case), *orgs, "--format", "json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    actual = {"findings.json": json.loads(res.stdout)}
    if case.sources:
        sources = case.sources[0]
        res = cli.invoke(app, ["blast-radius", *_cli_inputs(case), *(a for s in sources for a in ("--from", s)),
                               "--format", "json"], catch_exceptions=False)
        assert res.exit_code == 0, res.output
        actual[f"blast-radius.{gold.slug(sources)}.json"] = json.loads(res.stdout)
    mismatch = golden_mismatch(case, {k: goldens[k] for k in actual}, actual)
    if mismatch:
        pytest.fail(mismatch, pytrace=False)


def test_mismatch_report_is_readable(tmp_path):
    """The failure message names the file, shows the changed lines and the regeneration command."""
    case = gold.Case(name="cases/demo", folder=tmp_path / "demo", description="d", inputs={"runners": ["x"]})
    expected = {"findings.json": {"counts": {"high": 1}}, "old.json": {}}
    actual = {"findings.json": {"counts": {"high": 2}}, "new.json": {}}
    text = golden_mismatch(case, expected, actual)
    assert "--- cases/demo/expected/findings.json" in text
    assert '-  "high": 1' in text and '+  "high": 2' in text
    assert "old.json: stored golden, but the case no longer produces it" in text
    assert "new.json: produced, but no golden is stored" in text
    assert "python tests/regen_goldens.py demo" in text
    assert golden_mismatch(case, expected, dict(expected)) == ""
