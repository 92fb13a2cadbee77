"""Every machine-readable output validates against its published JSON Schema under ``schemas/``."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from graphkit.build import build_graph
from graphkit.cli import app
from graphkit.export import opengraph_document, sarif_document
from graphkit.findings import Finding, Severity, findings_document
from graphkit.model import EDGE_SPECS, Evidence, Lifetime, NodeKind, RevocationAction
from graphkit.output import blast_radius_document

ROOT = Path(__file__).resolve().parents[1]
REPOS = str(ROOT / "examples/acme/repos")
INVENTORY = str(ROOT / "examples/acme/inventory.yaml")
SCHEMAS = ROOT / "schemas"
#: schema file -> the test below that validates an output against it
COVERED = {
    "blast-radius.schema.json": "test_blast_radius_documents_validate",
    "findings.schema.json": "test_findings_document_validates",
    "graph.schema.json": "test_graph_file_validates",
    "sarif.schema.json": "test_sarif_and_opengraph_validate",
    "opengraph.schema.json": "test_sarif_and_opengraph_validate",
    "runner-inventory.schema.json": "tests/test_runner_inventory.py",
    "issued-tokens.schema.json": "tests/test_attack.py::test_issued_tokens_example_validates_against_its_schema",
    "what-if.schema.json": "tests/test_whatif_cli.py::test_json_validates_against_its_schema",
}


def validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads((SCHEMAS / name).read_text()))


@pytest.fixture(scope="module")
def graph():
    return build_graph({"github-actions": [REPOS], "runners": [INVENTORY]}).graph


@pytest.fixture(scope="module")
def graph_file(graph, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("schemas") / "graph.json"
    graph.save(path)
    return path


def test_every_schema_is_valid_and_covered():
    files = sorted(p.name for p in SCHEMAS.glob("*.schema.json"))
    assert set(files) == set(COVERED), "a schema without a test, or a test without a schema"
    for name in files:
        schema = json.loads((SCHEMAS / name).read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema.get("title") and schema.get("description")


def test_blast_radius_documents_validate(graph, graph_file):
    v = validator("blast-radius.schema.json")
    docs = [blast_radius_document(graph, s) for s in ("runner:acme/build-01-a", "host:build-01",
                                                        "runner:acme/eph-7f3a")]
    docs.append(blast_radius_document(graph, "runner:acme/build-01-a", top=3))
    res = CliRunner().invoke(app, ["blast-radius", "--graph", str(graph_file), "--from", "runner:acme/build-01-a",
                                   "--format", "json"])
    assert res.exit_code == 0, res.output
    docs.append(json.loads(res.stdout))
    kinds = {k.value for k in NodeKind}
    for doc in docs:
        v.validate(doc)
        # names the schema leaves open are the model's
        for r in doc["reached"]:
            assert r["kind"] in kinds and Lifetime(r["lifetime"])
            assert all(h["kind"] in {k.value for k in EDGE_SPECS} for h in r["path"])
        for s in doc["revocations"]:
            assert RevocationAction(s["action"]) and s["target_kind"] in kinds
    bad = dict(docs[0], reached=[{**docs[0]["reached"][0], "confidence": "maybe"}])
    assert not v.is_valid(bad)


def test_findings_document_validates(graph):
    v = validator("findings.schema.json")
    f = Finding(id="GK-0123456789abcdef", rule="demo-rule", title="Demo", severity=Severity.HIGH, message="m",
                subject="runner:acme/build-01-a", related=["host:build-01"],
                evidence=[Evidence(file=".github/workflows/ci.yml", repository="acme/app", line=3, yaml_path="jobs")],
                properties={"labels": ["self-hosted"]})
    v.validate(findings_document([f]))
    v.validate(findings_document([]))
    res = CliRunner().invoke(app, ["findings", "--github-actions", REPOS, "--runners", INVENTORY, "--format", "json"])
    assert res.exit_code in (0, 3), res.output
    v.validate(json.loads(res.stdout))
    assert not v.is_valid(findings_document([f.model_copy(update={"id": "not-stable"})]))


def test_graph_schema_is_generated_from_the_model():
    from graphkit.docs import schema_text
    assert (SCHEMAS / "graph.schema.json").read_text() == schema_text(), "run: python -m graphkit.docs"


def test_graph_file_validates(graph_file):
    v = validator("graph.schema.json")
    data = json.loads(graph_file.read_text())
    v.validate(data)
    broken = dict(data, edges=[{**data["edges"][0], "evidence": []}])
    assert not v.is_valid(broken)


def test_sarif_and_opengraph_validate(graph):
    validator("opengraph.schema.json").validate(opengraph_document(graph))
    f = Finding(id="GK-0123456789abcdef", rule="demo-rule", title="Demo", severity=Severity.LOW, message="m",
                subject="runner:acme/build-01-a", evidence=[Evidence(file="inventory.yaml", line=2)])
    validator("sarif.schema.json").validate(sarif_document([f], registry={}))
    assert not validator("sarif.schema.json").is_valid({"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]})
    assert not validator("opengraph.schema.json").is_valid(
        {"graph": {"nodes": [{"id": "x", "kinds": ["a-b"]}], "edges": []}})
