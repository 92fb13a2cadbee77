"""Runners registered to an org of the same name on different GitHub servers are different runners.

A GitHub Enterprise Server host or a ``SUBDOMAIN.ghe.com`` data-residency host is a separate GitHub instance whose
accounts are not github.com's (GitHub Enterprise Server docs "About GitHub Enterprise Server",
https://docs.github.com/en/enterprise-server@latest/admin/overview/about-github-enterprise-server; "About GitHub
Enterprise Cloud with data residency",
https://docs.github.com/en/enterprise-cloud@latest/admin/data-residency/about-github-enterprise-cloud-with-data-residency).
The runner scope of such a registration is ``org@HOST``; a bare ``org`` (an inventory, ``--expected-org acme``)
is the github.com org."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from graphkit.build import build_graph
from graphkit.cli import app
from graphkit.model import NodeKind
from host_fixtures import runner_install, write
from ingest.host.collect import collect_host


def _root(tmp_path):
    root = tmp_path / "root"
    write(root, "etc/hostname", "h3\n")
    runner_install(root, "/opt/gh", agent_id=1, name="build", url="https://github.com/acme")
    runner_install(root, "/opt/ghes", agent_id=9, name="build", url="https://GHE.example.com/acme/")
    runner_install(root, "/opt/dr", agent_id=7, name="dr", url="https://octo.ghe.com/acme/app")
    snap = tmp_path / "host.json"
    snap.write_text(json.dumps(collect_host(root).document))
    return snap


def _findings(snap, *expected: str) -> list[str]:
    args = ["findings", "--runners", str(snap), "--format", "json", "--rule", "runner-unexpected-org"]
    for e in expected:
        args += ["--expected-org", e]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    return sorted(f["subject"] for f in json.loads(res.stdout)["findings"])


def test_a_same_named_org_on_another_server_is_another_scope(tmp_path):
    snap = _root(tmp_path)
    doc = json.loads(snap.read_text())
    assert sorted((r["scope"], r["name"]) for r in doc["runners"]) == [
        ("acme", "build"), ("acme@ghe.example.com", "build"), ("acme@octo.ghe.com/app", "dr")]
    # an inventory's bare acme is github.com's: it lists (and merges with) the github.com runner only
    inv = tmp_path / "inv.yaml"
    inv.write_text("schema: graphkit.runner-inventory/v1\norganizations: [{name: acme}]\nrunners:\n"
                   "  - {name: build, scope: acme, labels: [self-hosted, linux]}\n")
    g = build_graph({"runners": [snap, inv]}).graph
    runners = {r.id: r for r in g.nodes(NodeKind.RUNNER)}
    assert sorted(runners) == ["runner:acme/build", "runner:acme@ghe.example.com/build",
                               "runner:acme@octo.ghe.com/app/dr"]
    assert runners["runner:acme/build"].in_inventory is True
    assert runners["runner:acme/build"].host == "h3"
    assert runners["runner:acme@ghe.example.com/build"].in_inventory is not True


def test_expected_org_compares_the_server_both_ways(tmp_path):
    snap = _root(tmp_path)
    ghes, gh, dr = "runner:acme@ghe.example.com/build", "runner:acme/build", "runner:acme@octo.ghe.com/app/dr"
    for bare in ("acme", "https://github.com/acme", "https://github.com/ACME/"):
        assert _findings(snap, bare) == sorted([ghes, dr]), bare
    assert _findings(snap, "https://ghe.example.com/acme") == sorted([gh, dr])
    assert _findings(snap, "https://octo.ghe.com/acme/app", "acme") == [ghes]
    assert _findings(snap, "https://ghe.example.com/acme", "acme", "https://octo.ghe.com/acme") == []


def test_the_runbook_removes_a_registration_on_its_own_server(tmp_path):
    from graphkit.report.runbook import _runner_api

    assert _runner_api("acme@ghe.example.com/app") == ("/repos/acme/app/actions/runners", "ghe.example.com")
    assert _runner_api("acme") == ("/orgs/acme/actions/runners", None)
