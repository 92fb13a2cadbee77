"""The findings framework: stable ids, registry, ordering, JSON contract; meta-test over rules."""

import pkgutil
from pathlib import Path

import graphkit.rules
from graphkit.findings import FindingOptions, Severity, finding_id, findings_document, rule, rules, run_rules
from graphkit.graph import Graph
from graphkit.model import Evidence, Runner, ids

ROOT = Path(__file__).resolve().parents[1]


def test_finding_ids_are_stable_and_identity_based():
    a = finding_id("r", "runner:acme/x", "host:h")
    assert a == finding_id("r", "runner:acme/x", "host:h") and a.startswith("GK-") and len(a) == 19
    assert a != finding_id("r", "runner:acme/x", "host:g")
    assert a != finding_id("s", "runner:acme/x", "host:h")
    # field boundaries matter: ("ab", "c") is not ("a", "bc")
    assert finding_id("r", "ab", "c") != finding_id("r", "a", "bc")


def test_registered_rule_runs_sorted_and_merges_duplicates():
    g = Graph()
    for name in ("b", "a"):
        g.add_node(Runner(id=ids.runner("acme", name), name=name, scope="acme", evidence=[Evidence(file=f"{name}.yaml")]))

    @rule("test-every-runner", title="t", description="d", help_uri="https://example.invalid/doc",
          severity=Severity.LOW, remediation="r")
    def every_runner(graph, options):
        for n in graph.nodes():
            sev = Severity.HIGH if n.name == "b" else None
            yield every_runner.finding(n.id, subject=n.id, message=f"runner {n.name}", severity=sev,
                                       evidence=n.evidence)
            yield every_runner.finding(n.id, subject=n.id, message="again", evidence=[Evidence(file="x")])

    try:
        found = run_rules(g, FindingOptions(), only=["test-every-runner"])
        assert [(f.subject, f.severity) for f in found] == [("runner:acme/b", Severity.HIGH),
                                                             ("runner:acme/a", Severity.LOW)]
        assert [e.file for e in found[0].evidence] == ["b.yaml", "x"]
        doc = findings_document(found)
        assert doc["schema"] == "graphkit.findings/v1" and doc["counts"] == {"high": 1, "low": 1}
        assert doc["findings"][0]["id"] == finding_id("test-every-runner", "runner:acme/b")
    finally:
        from graphkit import findings as mod
        mod._RULES.pop("test-every-runner")


def test_every_rule_module_is_listed_and_documented():
    modules = {m.name for m in pkgutil.iter_modules(graphkit.rules.__path__)}
    assert modules == set(graphkit.rules.RULE_MODULES)
    readme = (ROOT / "README.md").read_text()
    for rid, r in rules().items():
        assert r.help_uri.startswith("https://") and r.description and r.remediation
        assert f"`{rid}`" in readme, f"rule {rid} missing from README"


_UNEXPECTED = Path(__file__).parent / "fixtures/rules/runner-unexpected-org/positive/host.json"


def _cli_findings(*expected: str):
    import json

    from typer.testing import CliRunner

    from graphkit.cli import app

    args = ["findings", "--runners", str(_UNEXPECTED), "--format", "json", "--rule", "runner-unexpected-org"]
    for e in expected:
        args += ["--expected-org", e]
    res = CliRunner().invoke(app, args)
    return res.exit_code, (json.loads(res.stdout)["findings"] if res.exit_code == 0 else res.output)


def test_expected_org_accepts_org_urls_normalised():
    # the host registers build-21-x to evil-corp (https://github.com/evil-corp) on a host of acme
    code, base = _cli_findings("acme")
    assert code == 0 and [f["subject"] for f in base] == ["runner:evil-corp/build-21-x"]
    for form in ("ACME", "https://github.com/acme", "https://github.com/Acme/"):
        assert _cli_findings(form) == (0, base), form
    # acme on a GitHub Enterprise Server is another account (tests/test_runner_servers.py: github.com's acme
    # runners are then unexpected too)
    code, ghes = _cli_findings("https://ghe.example.com/acme")
    assert code == 0 and [f["subject"] for f in ghes] == ["runner:evil-corp/build-21-x"]
    assert "not an expected org (acme@ghe.example.com, from --expected-org)" in ghes[0]["message"]
    # the URL of the org the runner is registered to makes it expected
    assert _cli_findings("https://github.com/evil-corp/") == (0, [])


def test_expected_org_malformed_is_a_usage_error():
    for bad in ("https://github.com/", "https://github.com/acme/app/settings", "acme corp", "-acme", "ftp://x/acme",
                "github.com/acme"):
        code, out = _cli_findings(bad)
        assert code == 2 and "--expected-org" in out, bad
