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
    from graphkit.docs import blast_radius_schema_text, schema_text
    assert (SCHEMAS / "graph.schema.json").read_text() == schema_text(), "run: python -m graphkit.docs"
    radius = (SCHEMAS / "blast-radius.schema.json").read_text()
    assert blast_radius_schema_text(radius) == radius, "run: python -m graphkit.docs"


def test_node_id_pattern_takes_every_kind_and_nothing_else():
    """The node id pattern of the JSON outputs is the model's id prefixes (a k8s_sa: id failed ``^[a-z_]+:``)."""
    from graphkit.model.ids import PREFIXES
    v = validator("blast-radius.schema.json")
    node_id = {"$ref": "#/$defs/nodeId", "$defs": v.schema["$defs"]}
    for kind, prefix in PREFIXES.items():
        assert v.evolve(schema=node_id).is_valid(prefix + "x"), kind
    for bad in ("k8s:x", "Repo:acme/app", "repo", "job-x:y", "runner_groupx:a/b"):
        assert not v.evolve(schema=node_id).is_valid(bad), bad


def _corpus_graphs(tmp: Path) -> dict[str, object]:
    """Every corpus build: workflows + IAM + an inventory and host snapshot (tests/report_scale.py), the
    Kubernetes manifests, the GitLab CI files."""
    import sys
    sys.path.insert(0, str(ROOT / "tests"))
    from report_scale import CORPUS, build_scale
    return {"workflows+iam": build_scale(tmp).graph,
            "k8s": build_graph({"k8s": [CORPUS / "k8s"]}).graph,
            "gitlab-ci": build_graph({"gitlab-ci": [CORPUS / "gitlab-ci"]}).graph}


@pytest.mark.corpus
@pytest.mark.requires((ROOT.parent / "shared" / "corpus" / "k8s").is_dir(), reason="shared corpus not present",
                      corpus=True)
def test_blast_radius_json_of_every_corpus_build_validates(tmp_path):
    """Blast radii from every runner, host and untrusted actor, then from one node of each kind no document has
    named yet: every node kind of each corpus build appears (as source or reached), and every document
    validates (including the CLI's, on the Kubernetes build: ``k8s_sa:`` and ``k8s_secret:`` ids)."""
    v = validator("blast-radius.schema.json")
    graphs = _corpus_graphs(tmp_path)
    for name, g in graphs.items():
        present = {NodeKind(n.kind) for n in g.nodes()}
        first = sorted(n.id for n in g.nodes() if n.kind in (NodeKind.RUNNER, NodeKind.HOST, NodeKind.UNTRUSTED))
        docs, seen = [], set()
        for sources in [first] + [[min(n.id for n in g.nodes(k))] for k in sorted(present, key=lambda k: k.value)]:
            if docs and NodeKind(g.node(sources[0]).kind) in seen:
                continue
            docs.append(blast_radius_document(g, sources))
            seen |= {NodeKind(g.node(s).kind) for s in sources} | {NodeKind(r["kind"]) for r in docs[-1]["reached"]}
        assert seen == present, name
        for doc in docs:
            errors = [e.message for e in v.iter_errors(doc)]
            assert not errors, (name, doc["source"][:3], errors[:3])
    path = tmp_path / "k8s.json"
    graphs["k8s"].save(path)
    res = CliRunner().invoke(app, ["blast-radius", "--graph", str(path), "--from",
                                   "runner:actions/actions-runner-controller/values_k8s_extra_role_rules",
                                   "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert {r["kind"] for r in doc["reached"]} >= {"k8s_service_account", "k8s_secret"}
    v.validate(doc)


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
