"""SARIF 2.1.0 and BloodHound OpenGraph exports: contract, validation, registry meta-tests, CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema
import pytest
from typer.testing import CliRunner

from graphkit.build import build_graph
from graphkit.cli import app
from graphkit.export import (OPENGRAPH_SOURCE_KIND, opengraph_document, opengraph_edge_kind, opengraph_node_kind,
                             sarif_document)
from graphkit.findings import Finding, Severity, rule, rules, run_rules
from graphkit.model import EDGE_SPECS, NODE_TYPES, EdgeKind, Evidence, NodeKind

ROOT = Path(__file__).resolve().parents[1]
REPOS = str(ROOT / "examples/acme/repos")
INVENTORY = str(ROOT / "examples/acme/inventory.yaml")
SCHEMAS = ROOT / "schemas"


def validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMAS / name).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(scope="module")
def graph():
    return build_graph({"github-actions": [REPOS], "runners": [INVENTORY]}).graph


@pytest.fixture
def demo_rules():
    """Two temporary rules over the example: one on inventory evidence, one on workflow evidence."""
    from graphkit import findings as mod

    @rule("test-persistent-runner", title="Persistent self-hosted runner", description="A runner that outlives "
          "its jobs hands every future job to whoever persists on it.",
          help_uri="https://docs.github.com/en/actions/hosting-your-own-runners", severity=Severity.HIGH,
          remediation="Register runners with --ephemeral on throw-away VMs.")
    def persistent(graph, options):
        for n in graph.nodes(NodeKind.RUNNER):
            if not n.ephemeral and not n.inferred:
                yield persistent.finding(n.id, subject=n.id, message=f"runner {n.name} is persistent",
                                         evidence=n.evidence)

    @rule("test-id-token", title="Job can mint OIDC tokens", description="id-token: write lets the job request "
          "an OIDC token for any audience.", help_uri="https://docs.github.com/en/actions/reference/openid-connect",
          severity=Severity.MEDIUM, remediation="Grant id-token: write only to the jobs that deploy.")
    def id_token(graph, options):
        for e in graph.edges(EdgeKind.MINTS_OIDC):
            yield id_token.finding(e.source, subject=e.source, message="job mints OIDC tokens",
                                   evidence=[*e.evidence, Evidence(file="GET /repos/acme/x/actions/oidc/customization/sub")])

    yield ["test-persistent-runner", "test-id-token"]
    mod._RULES.pop("test-persistent-runner")
    mod._RULES.pop("test-id-token")


# --------------------------------------------------------------------------- SARIF


def test_sarif_contract(graph, demo_rules):
    found = run_rules(graph, only=demo_rules)
    assert found
    doc = sarif_document(found)
    validator("sarif.schema.json").validate(doc)
    run = doc["runs"][0]
    assert doc["version"] == "2.1.0" and run["tool"]["driver"]["name"] == "graphkit"
    descriptors = run["tool"]["driver"]["rules"]
    assert {d["id"] for d in descriptors} == {f"graphkit/{r}" for r in rules()}
    for d in descriptors:
        assert d["helpUri"].startswith("https://") and d["help"]["text"] and "Remediation" in d["help"]["text"]
    by_id = {f.id: f for f in found}
    for res in run["results"]:
        assert descriptors[res["ruleIndex"]]["id"] == res["ruleId"]
        assert re.fullmatch(r"graphkit/[a-z0-9-]+", res["ruleId"])
        f = by_id[res["partialFingerprints"]["graphkitFindingId/v1"]]
        assert res["ruleId"] == f"graphkit/{f.rule}" and res["message"]["text"] == f.message
        assert res["level"] == {"high": "error", "medium": "warning"}[f.severity.value]
        for loc in res["locations"]:
            uri = loc.get("physicalLocation", {}).get("artifactLocation", {}).get("uri")
            if uri is not None:
                assert " " not in uri and not urlsplit(uri).scheme.startswith("get")
                # relative to a declared base, never an absolute path of this machine (SARIF 2.1.0 3.4.4)
                base = loc["physicalLocation"]["artifactLocation"]["uriBaseId"]
                assert base in run["originalUriBaseIds"] and not uri.startswith("/") and not urlsplit(uri).scheme
                assert (base == "%SRCROOT%") == ("repository" in loc.get("properties", {}))
    assert "uri" not in json.dumps(run["originalUriBaseIds"])
    # a workflow finding points at the workflow file and line; API evidence is not a file location
    oidc = next(r for r in run["results"] if r["ruleId"] == "graphkit/test-id-token")
    phys = oidc["locations"][0]["physicalLocation"]
    assert phys["artifactLocation"]["uri"].startswith(".github/workflows/") and phys["region"]["startLine"] >= 1
    assert oidc["locations"][0]["properties"]["repository"].startswith("acme/")
    assert all("GET " not in json.dumps(loc.get("physicalLocation", {})) for loc in oidc["locations"])
    assert any("GET /repos" in x for x in oidc["properties"]["apiEvidence"])
    runner = next(r for r in run["results"] if r["ruleId"] == "graphkit/test-persistent-runner")
    assert runner["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("inventory.yaml")
    assert runner["locations"][0]["logicalLocations"][0]["fullyQualifiedName"].startswith("runner:")


def test_sarif_absolute_inputs_are_relative_to_the_input_root():
    # an inventory/IAM file given as an absolute path: relative to the input root, no machine path in the log
    ev = [Evidence(file="/home/ci/run/in/inventory.yaml", yaml_path="runners[0]", line=3),
          Evidence(file="/home/ci/run/in/iam/role.json"),
          Evidence(file=".github/workflows/ci.yml", repository="acme/app", line=7)]
    f = Finding(id="GK-0123456789abcdef", rule="demo", title="Demo", severity=Severity.HIGH, message="m",
                subject="runner:acme/r1", evidence=ev)
    doc = sarif_document([f], registry={})
    validator("sarif.schema.json").validate(doc)
    arts = [loc["physicalLocation"]["artifactLocation"] for loc in doc["runs"][0]["results"][0]["locations"]]
    assert arts == [{"uri": "inventory.yaml", "uriBaseId": "INPUTROOT"},
                    {"uri": "iam/role.json", "uriBaseId": "INPUTROOT"},
                    {"uri": ".github/workflows/ci.yml", "uriBaseId": "%SRCROOT%"}]
    assert "/home/ci" not in json.dumps(doc)
    assert doc["runs"][0]["results"][0]["locations"][2]["properties"]["repository"] == "acme/app"


def test_sarif_message_text_is_plain_text():
    """``message.text`` is plain text (SARIF 2.1.0 section 3.11; only ``markdown`` holds Markdown): a YAML path
    and a message keep their brackets as written, no backslash (newuser-s29 defect 12); only text that could
    close an embedded link ``[x](target)`` (section 3.11.6) has its brackets escaped, so no link is formed."""
    ev = [Evidence(file="/in/inventory.yaml", yaml_path="hosts[0].credentials[2]", line=9)]
    plain = Finding(id="GK-0123456789abcdef", rule="demo", title="Demo", severity=Severity.HIGH,
                    message="credential hosts[0] on build-01", subject="credential:build-01:/x", evidence=ev)
    link = Finding(id="GK-0123456789abcdee", rule="demo", title="Demo", severity=Severity.HIGH,
                   message="runner [x](https://evil.test) is persistent", subject="runner:acme/x", evidence=ev)
    doc = sarif_document([plain, link], registry={})
    validator("sarif.schema.json").validate(doc)
    first, second = doc["runs"][0]["results"]
    assert first["message"] == {"text": "credential hosts[0] on build-01"}
    assert first["locations"][0]["message"] == {"text": "hosts[0].credentials[2]"}
    assert second["message"] == {"text": "runner \\[x\\](https://evil.test) is persistent"}


def test_sarif_fingerprints_are_stable(graph, demo_rules):
    a = sarif_document(run_rules(graph, only=demo_rules))
    b = sarif_document(run_rules(graph, only=demo_rules))
    fp = lambda d: [r["partialFingerprints"] for r in d["runs"][0]["results"]]  # noqa: E731
    assert fp(a) == fp(b) and len({json.dumps(x) for x in fp(a)}) == len(fp(a))


def test_sarif_of_every_registered_rule_validates(graph):
    # whatever rules are registered when the suite runs (other modules add them)
    validator("sarif.schema.json").validate(sarif_document(run_rules(graph)))


def test_cli_findings_sarif(graph, demo_rules, tmp_path):
    g = tmp_path / "g.json"
    graph.save(g)
    res = CliRunner().invoke(app, ["findings", "--graph", str(g), "--format", "sarif", "--rule", demo_rules[0]])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    validator("sarif.schema.json").validate(doc)
    assert {r["ruleId"] for r in doc["runs"][0]["results"]} == {"graphkit/test-persistent-runner"}


# --------------------------------------------------------------------------- OpenGraph


def test_opengraph_kinds_derive_from_the_registries():
    node_kinds = [opengraph_node_kind(k) for k in NODE_TYPES]
    edge_kinds = [opengraph_edge_kind(k) for k in EDGE_SPECS]
    for kinds in (node_kinds, edge_kinds):
        assert len(set(kinds)) == len(kinds)
        assert all(re.fullmatch(r"GK_[A-Za-z0-9_]+", k) for k in kinds)
    assert opengraph_node_kind(NodeKind.RUNNER) == "GK_Runner"
    assert opengraph_edge_kind(EdgeKind.RECEIVES_JOB) == "GK_ReceivesJob"


def test_opengraph_contract(graph):
    doc = opengraph_document(graph)
    validator("opengraph.schema.json").validate(doc)
    assert doc["metadata"]["source_kind"] == OPENGRAPH_SOURCE_KIND
    nodes = doc["graph"]["nodes"]
    assert [n["id"] for n in nodes] == [n.id for n in graph.nodes()]
    by_kind = {opengraph_edge_kind(k): spec for k, spec in EDGE_SPECS.items()}
    ids = {n["id"] for n in nodes}
    for n in nodes:
        assert n["kinds"] == [opengraph_node_kind(graph.node(n["id"]).spec.kind)]
        for v in n["properties"].values():
            assert not isinstance(v, dict) and not (isinstance(v, list) and any(isinstance(x, (dict, list)) for x in v))
    edges = doc["graph"]["edges"]
    pairs = {(e.source, e.target, e.kind) for e in graph.edges()}
    assert len(edges) == len(pairs)  # parallel edges folded
    for e in edges:
        assert e["start"]["match_by"] == e["end"]["match_by"] == "id"
        assert e["start"]["value"] in ids and e["end"]["value"] in ids
        assert e["properties"]["traversable"] is by_kind[e["kind"]].traversable
        assert e["properties"]["evidence"] and e["properties"]["confidence"] in ("certain", "possible")
    hosts = next(e for e in edges if e["kind"] == "GK_Hosts")
    assert hosts["properties"]["revoked_by"] == "remove_runner_registration"
    only = opengraph_document(graph, traversable_only=True)["graph"]["edges"]
    assert only and all(e["properties"]["traversable"] for e in only) and len(only) < len(edges)


def test_cli_export_opengraph(graph, tmp_path):
    g, out = tmp_path / "g.json", tmp_path / "og.json"
    graph.save(g)
    res = CliRunner().invoke(app, ["export", "opengraph", "--graph", str(g), "-o", str(out)])
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    validator("opengraph.schema.json").validate(doc)
    assert len(doc["graph"]["nodes"]) == len(graph)
    res = CliRunner().invoke(app, ["export", "opengraph", "--graph", str(g)])
    assert res.exit_code == 0 and json.loads(res.stdout) == doc
