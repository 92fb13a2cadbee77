"""``runner-unexpected-org`` compares the GitHub server of a registration, not only its org.

A GitHub Enterprise Server host or a ``SUBDOMAIN.ghe.com`` data-residency host is a separate GitHub instance whose
accounts are not github.com's (GitHub Enterprise Server docs "About GitHub Enterprise Server",
https://docs.github.com/en/enterprise-server@latest/admin/overview/about-github-enterprise-server; "About GitHub
Enterprise Cloud with data residency",
https://docs.github.com/en/enterprise-cloud@latest/admin/data-residency/about-github-enterprise-cloud-with-data-residency).
``--expected-org acme`` (or its github.com URL) expects github.com's acme; ``--expected-org
https://ghe.example.com/acme`` that server's.  Runner ids stay ``runner:ORG/NAME`` on every server, so a graph built
only from one GitHub Enterprise Server routes its jobs as before; an inventory's organisations name no server."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from typer.testing import CliRunner

from graphkit.cli import app, expected_org_scope
from host_fixtures import runner_install, write
from ingest.host.collect import collect_host


def _root(tmp_path):
    root = tmp_path / "root"
    write(root, "etc/hostname", "h3\n")
    runner_install(root, "/opt/gh", agent_id=1, name="gh", url="https://github.com/acme")
    runner_install(root, "/opt/ghes", agent_id=9, name="ghes", url="https://GHE.example.com/acme/")
    runner_install(root, "/opt/dr", agent_id=7, name="dr", url="https://octo.ghe.com/acme/app")
    snap = tmp_path / "host.json"
    snap.write_text(json.dumps(collect_host(root).document))
    return snap


def _findings(snap, *expected: str, more: tuple[str, ...] = ()) -> list[str]:
    args = ["findings", "--runners", str(snap), *more, "--format", "json", "--rule", "runner-unexpected-org"]
    for e in expected:
        args += ["--expected-org", e]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    return sorted(f["subject"] for f in json.loads(res.stdout)["findings"])


def test_expected_org_values_name_their_server():
    assert [expected_org_scope(v) for v in ("acme", "https://github.com/ACME/", "https://www.github.com/acme",
                                            "https://GHE.example.com/acme", "https://octo.ghe.com/acme/App")] == [
        "acme", "acme", "acme", "acme@ghe.example.com", "acme/app@octo.ghe.com"]


def test_expected_org_compares_the_server_both_ways(tmp_path):
    snap = _root(tmp_path)
    assert sorted(r["scope"] for r in json.loads(snap.read_text())["runners"]) == ["acme", "acme", "acme/app"]
    gh, ghes, dr = "runner:acme/gh", "runner:acme/ghes", "runner:acme/app/dr"
    for bare in ("acme", "https://github.com/acme", "https://github.com/ACME/"):
        assert _findings(snap, bare) == sorted([ghes, dr]), bare
    assert _findings(snap, "https://ghe.example.com/acme") == sorted([gh, dr])
    assert _findings(snap, "https://octo.ghe.com/acme/app", "acme") == [ghes]
    assert _findings(snap, "https://ghe.example.com/acme", "acme", "https://octo.ghe.com/acme") == []


def test_an_inventory_names_no_server(tmp_path):
    """Without --expected-org the inventory's organisations are expected on whatever server it came from (a
    GitHub Enterprise Server's own inventory lists bare org names): only the org is compared."""
    snap = _root(tmp_path)
    inv = tmp_path / "inv.yaml"
    inv.write_text("schema: graphkit.runner-inventory/v1\norganizations: [{name: acme}]\nrunners: []\n")
    assert _findings(snap, more=("--runners", str(inv))) == []
    inv.write_text("schema: graphkit.runner-inventory/v1\norganizations: [{name: other}]\nrunners: []\n")
    assert _findings(snap, more=("--runners", str(inv))) == ["runner:acme/app/dr", "runner:acme/gh",
                                                             "runner:acme/ghes"]


def test_the_runbook_removes_a_ghes_registration_on_its_own_server(tmp_path):
    """``gh api`` talks to github.com unless told ``--hostname``: the removal of a registration on a GitHub
    Enterprise Server goes to that server (GitHub CLI manual, https://cli.github.com/manual/gh_api)."""
    from graphkit.build import build_graph
    from graphkit.output import Clock, runbook_text

    g = build_graph({"runners": [_root(tmp_path)]}).graph
    text = runbook_text(g, "runner:acme/ghes", clock=Clock(now=datetime(2026, 12, 1, tzinfo=timezone.utc)))
    assert "run gh api --hostname ghe.example.com -X DELETE /orgs/acme/actions/runners/9" in text
    other = runbook_text(g, "runner:acme/gh", clock=Clock(now=datetime(2026, 12, 1, tzinfo=timezone.utc)))
    assert "run gh api -X DELETE /orgs/acme/actions/runners/1" in other  # github.com's: no --hostname
    # the other registrations on the same host (runner on runner) go to their own servers
    assert "run gh api --hostname octo.ghe.com -X DELETE /repos/acme/app/actions/runners/7" in other


def test_a_second_installation_is_removed_by_the_name_the_server_knows(tmp_path):
    """Two installations of acme/same on one host (no agentId): graphkit names the second ``same~2``, and the
    runbook looks the registration up by the name the server knows (``agentName``), on its own server."""
    from graphkit.build import build_graph
    from graphkit.output import Clock, runbook_text

    root = tmp_path / "root"
    write(root, "etc/hostname", "h4\n")
    runner_install(root, "/opt/a", agent_id=None, name="same", url="https://github.com/acme")
    runner_install(root, "/opt/b", agent_id=None, name="same", url="https://ghe.example.com/acme")
    snap = tmp_path / "host.json"
    snap.write_text(json.dumps(collect_host(root).document))
    g = build_graph({"runners": [snap]}).graph
    second = g.node("runner:acme/same~2")
    assert second.registration.agent_name == "same" and g.node("runner:acme/same").registration.agent_name is None
    text = runbook_text(g, "runner:acme/same~2", clock=Clock(now=datetime(2026, 12, 1, tzinfo=timezone.utc)))
    assert "gh api --hostname ghe.example.com --paginate /orgs/acme/actions/runners" in text
    assert 'select(.name == "same")' in text and 'select(.name == "same~2")' not in text
