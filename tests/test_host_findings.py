"""Host rules and the 'done when' scenario: collect host + build + findings + blast radius, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphkit.analysis import blast_radius, revocation_plan
from graphkit.build import build_graph
from graphkit.cli import app
from graphkit.findings import FindingOptions, Severity, finding_id, run_rules
from graphkit.model import Cache, Confidence, Credential, EdgeKind, NodeKind, ids
from graphkit.model import RevocationAction as A
from host_fixtures import HIDEOUTS, make_hideouts, make_root, runner_install
from ingest.runner_inventory.models import runner_id

ROOT = Path(__file__).resolve().parents[1]
REPOS = ROOT / "examples/acme/repos"
cli = CliRunner()
HOST_RULES = ["runner-on-runner", "runner-unexpected-org", "runner-not-in-inventory", "runner-without-host",
              "persistent-runner-shared", "long-lived-credential-on-disk"]
ACME_A, EVIL_X = "runner:acme/build-01-a", "runner:evil-corp/build-01-x"
AWS = "credential:build-01:/home/runner/.aws/credentials"
DOCKER = "credential:build-01:/home/runner/.docker/config.json"


def invoke(*args: str):
    return cli.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def done_when(tmp_path) -> dict[str, Path]:
    """The issue's fake root (two registrations, AWS credentials, docker config, shared tool cache), its
    snapshot, an org inventory that lists the acme runner and an inventory-only runner, and the built graph."""
    root = make_root(tmp_path, everything=False)
    inv = tmp_path / "acme-inventory.yaml"
    inv.write_text("schema: graphkit.runner-inventory/v1\norganizations:\n  - name: acme\n    runner_groups:\n"
                   "      - {name: shared-linux, visibility: all}\nrunners:\n"
                   "  - {name: build-01-a, id: 101, labels: [self-hosted, Linux, X64, shared], scope: acme,\n"
                   "     runner_group: shared-linux, host: build-01}\n"
                   "  - {name: ghost-9, labels: [self-hosted], scope: acme}\n")
    host = tmp_path / "host.json"
    assert invoke("collect", "host", "--root", str(root), "-o", str(host)).exit_code == 0
    graph = tmp_path / "graph.json"
    res = invoke("build", "--github-actions", str(REPOS), "--runners", str(host), "--runners", str(inv),
                 "-o", str(graph))
    assert res.exit_code == 0, res.output
    return {"root": root, "inventory": inv, "host": host, "graph": graph}


def test_done_when_findings(done_when):
    res = invoke("findings", "--graph", str(done_when["graph"]), "--format", "json")
    assert res.exit_code == 0, res.output
    found = json.loads(res.stdout)["findings"]
    by = {(f["rule"], f["subject"]): f for f in found}
    ror = by[("runner-on-runner", "host:build-01")]
    assert ror["severity"] == "critical" and ror["id"] == finding_id("runner-on-runner", "host:build-01")
    assert ror["related"] == [ACME_A, EVIL_X]
    assert ror["properties"]["owners"] == ["acme", "evil-corp"] and ror["properties"]["runs_as_root"] == [EVIL_X]
    assert any("seen on host: /root/.cache-svc/ar/.runner" in (e["detail"] or "") for e in ror["evidence"])
    assert by[("runner-unexpected-org", EVIL_X)]["severity"] == "critical"
    assert ("runner-unexpected-org", ACME_A) not in by
    # evil-corp has no inventory to be absent from (that is runner-unexpected-org); acme-a is listed
    assert not any(rule == "runner-not-in-inventory" for rule, _ in by)
    assert by[("runner-without-host", "runner:acme/ghost-9")]["confidence"] == "possible"
    for cred in (AWS, DOCKER):
        f = by[("long-lived-credential-on-disk", cred)]
        assert f["severity"] == "high" and set(f["properties"]["readers"]) == {ACME_A, EVIL_X}
    # build-01-a (persistent, group open to all repositories) serves jobs of several acme repositories, one of
    # them a pull_request_target workflow (examples/acme docs preview.yml): critical
    shared = by[("persistent-runner-shared", ACME_A)]
    assert shared["severity"] == "critical" and len(shared["properties"]["repositories"]) > 1
    assert ("persistent-runner-shared", EVIL_X) not in by  # no evil-corp workflow ingested: no job routed
    # --expected-org overrides the inventory's organizations
    res = invoke("findings", "--graph", str(done_when["graph"]), "--format", "json", "--expected-org", "evil-corp",
                 "--rule", "runner-unexpected-org")
    assert {f["subject"] for f in json.loads(res.stdout)["findings"]} == {ACME_A, "runner:acme/ghost-9"}


def test_done_when_graph_and_blast_radius(done_when):
    g = build_graph({"runners": [done_when["host"], done_when["inventory"]]}).graph
    acme = g.node(ACME_A)
    # one node from both sources: the inventory's labels and group, the host's registration
    assert acme.in_inventory and acme.registration is not None and "shared" in acme.labels
    assert acme.runner_group == "shared-linux" and acme.host == "build-01"
    edges = {(e.kind.value, e.source, e.target) for e in g.edges()}
    assert {("stores_credential", "host:build-01", AWS), ("stores_credential", ACME_A, AWS),
            ("stores_credential", EVIL_X, DOCKER),
            ("assumes_role", AWS, "cloud_role:aws:arn:aws:iam::111122223333:role/acme-ci-builder"),
            ("publishes_to", DOCKER, "target:registry:ghcr.io"),
            ("shares_cache", "host:build-01", "cache:host:build-01:/opt/hostedtoolcache"),
            ("hosts", "host:build-01", EVIL_X), ("runs_on_host", EVIL_X, "host:build-01")} <= edges
    br = blast_radius(g, "host:build-01")
    assert {ACME_A, EVIL_X, AWS, DOCKER, "cache:host:build-01:/opt/hostedtoolcache"} <= br.ids


def test_done_when_plan_starts_with_rogue_registration_then_keys(done_when):
    res = invoke("blast-radius", "--graph", str(done_when["graph"]), "--from", "host:build-01", "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    reached = {r["id"] for r in doc["reached"]}
    assert {ACME_A, EVIL_X, AWS, DOCKER, "cache:host:build-01:/opt/hostedtoolcache"} <= reached
    all_steps = [(s["action"], s["target"]) for s in doc["revocations"]]
    # the role the AWS key assumes: its sessions right after the key that mints them is rotated
    revoke = ("revoke_role_sessions", "cloud_role:aws:arn:aws:iam::111122223333:role/acme-ci-builder")
    assert all_steps.index(revoke) > all_steps.index(("rotate_credential", AWS))
    steps = [s for s in all_steps if s[0] != "revoke_role_sessions"]
    assert steps[0] == ("remove_runner_registration", EVIL_X)
    assert set(steps[1:3]) == {("rotate_credential", AWS), ("rotate_credential", DOCKER)}
    # then the rest of containment: the vetted registration, the host, the caches
    rest = steps[3:]
    assert rest.index(("remove_runner_registration", ACME_A)) < rest.index(("reimage_host", "host:build-01"))
    # reimaging the host wipes its tool cache: cut by that step, no separate purge
    reimage = next(s for s in doc["revocations"] if s["action"] == "reimage_host")
    assert "cache:host:build-01:/opt/hostedtoolcache" in reimage["cuts"]
    assert ("purge_cache", "cache:host:build-01:/opt/hostedtoolcache") not in rest
    # the registration's own .credentials is cut by removing the registration, never rotated late
    remove_a = next(s for s in doc["revocations"] if s["target"] == ACME_A)
    assert "credential:build-01:/opt/actions-runner/.credentials" in remove_a["cuts"]
    assert not any(t.endswith("/.credentials") for a, t in steps if a == "rotate_credential")
    table = invoke("blast-radius", "--graph", str(done_when["graph"]), "--from", "host:build-01")
    assert "1. remove_runner_registration runner:evil-corp/build-01-x" in table.stdout


def test_without_inventory_every_host_registration_is_unvetted(tmp_path):
    root = make_root(tmp_path, everything=False)
    host = tmp_path / "host.json"
    invoke("collect", "host", "--root", str(root), "-o", str(host))
    g = build_graph({"runners": [host]}).graph
    plan = revocation_plan(g, "host:build-01")
    # both registrations are unvetted (no inventory): both first, then the long-lived keys
    assert [(s.action, s.subject_id) for s in plan.steps if s.action is not A.REVOKE_ROLE_SESSIONS][:4] == [
        (A.REMOVE_RUNNER_REGISTRATION, ACME_A), (A.REMOVE_RUNNER_REGISTRATION, EVIL_X),
        (A.ROTATE_CREDENTIAL, AWS), (A.ROTATE_CREDENTIAL, DOCKER)]
    found = run_rules(g, FindingOptions(), only=HOST_RULES)
    assert {f.rule for f in found} == {"runner-on-runner", "long-lived-credential-on-disk"}  # unknown orgs: silent
    found = run_rules(g, FindingOptions(expected_orgs=frozenset({"acme"})), only=["runner-unexpected-org"])
    assert [f.subject for f in found] == [EVIL_X]


def test_same_org_registration_absent_from_inventory(done_when, tmp_path):
    runner_install(done_when["root"], "/srv/ci/b", agent_id=4242, name="build-01-b", url="https://github.com/acme",
                   unit=None)
    host = tmp_path / "host2.json"
    invoke("collect", "host", "--root", str(done_when["root"]), "-o", str(host))
    g = build_graph({"runners": [host, done_when["inventory"]]}).graph
    (f,) = run_rules(g, FindingOptions(), only=["runner-not-in-inventory"])
    assert (f.subject, f.severity, f.properties["config_path"]) == ("runner:acme/build-01-b", Severity.HIGH,
                                                                     "/srv/ci/b/.runner")
    plan = revocation_plan(g, "host:build-01")
    assert {s.subject_id for s in plan.steps[:2]} == {EVIL_X, "runner:acme/build-01-b"}  # both unvetted: first


def test_inventory_runner_missing_from_its_scanned_host(done_when, tmp_path):
    inv = tmp_path / "claims.yaml"
    inv.write_text("schema: graphkit.runner-inventory/v1\nrunners:\n"
                   "  - {name: build-01-c, labels: [self-hosted], scope: acme, host: build-01}\n")
    g = build_graph({"runners": [done_when["host"], inv]}).graph
    (f,) = run_rules(g, FindingOptions(), only=["runner-without-host"])
    assert (f.subject, f.severity) == ("runner:acme/build-01-c", Severity.HIGH)


def test_example_inventory_same_scope_registrations_are_medium():
    g = build_graph({"runners": [ROOT / "examples/acme/inventory.yaml"]}).graph
    found = run_rules(g, FindingOptions(), only=["runner-on-runner"])
    assert [(f.subject, f.severity) for f in found] == [("host:build-01", Severity.MEDIUM)]
    # the inventory says nothing about who reads its credentials: every runner of the host, possibly
    creds = run_rules(g, FindingOptions(), only=["long-lived-credential-on-disk"])
    assert creds and all(f.confidence.value == "possible" for f in creds)
    assert all(not f.subject.endswith("/.credentials") for f in creds)  # registration credentials excluded


# --------------------------------------------------------------------------- hosts as an attacker leaves them


def test_runner_on_runner_names_each_rogue_with_how_it_stays_alive(tmp_path):
    root = make_hideouts(tmp_path)
    host = tmp_path / "host.json"
    assert invoke("collect", "host", "--root", str(root), "-o", str(host)).exit_code == 0
    g = build_graph({"runners": [host]}).graph
    (f,) = run_rules(g, FindingOptions(), only=["runner-on-runner"])
    assert f.severity is Severity.CRITICAL and len(f.related) == len(HIDEOUTS)
    for key, starter in HIDEOUTS.values():
        assert f"{key} (kept alive by " in f.message and starter in f.message, key
        assert starter in f.properties["kept_alive_by"][runner_id(key)]
    assert ACME_A not in f.properties["unsupervised"]
    assert len(f.properties["unsupervised"]) == len(HIDEOUTS) - 1
    # each rogue is also a runner-unsupervised finding (how it stays alive), and so is the stray process
    un = run_rules(g, FindingOptions(), only=["runner-unsupervised"])
    assert {f.subject for f in un} == {runner_id(k) for k, _ in HIDEOUTS.values()} - {ACME_A} | {"host:build-01"}
    stray = next(f for f in un if f.subject == "host:build-01")
    assert "/var/tmp/.q" in stray.message and stray.severity is Severity.CRITICAL
    # the job hook the legitimate runner runs for every job is a persistence node read by that runner only
    hook = g.node("cache:host:build-01:/usr/local/lib/ci-hooks/pre-job.sh")
    assert hook.read_by == ["runner:acme/build-01-a"] and "runner:evil/worm-8" in hook.written_by


def _foreign_host_local(g, runner_id: str) -> set[str]:
    """Host-local caches and credentials of other hosts that ``runner_id`` reaches."""
    home = g.node(runner_id).host
    out = set()
    for nid in blast_radius(g, runner_id).ids:
        node = g.node(nid)
        host = getattr(node, "host", None) if isinstance(node, Credential) else \
            (node.scope if isinstance(node, Cache) and node.cache_type == "host" else None)
        if host is not None and host != home:
            out.add(nid)
    return out


def test_example_host_local_state_is_reached_only_through_its_host():
    """The bundled example: no runner reaches a cache or credential of another host (the ephemeral VM's runner
    receives jobs that also run on build-01, but its runs never touch build-01), and its plan purges or reimages
    nothing of build-01."""
    g = build_graph({"github-actions": [REPOS], "runners": [ROOT / "examples/acme/inventory.yaml"]}).graph
    runners = [n.id for n in g.nodes(NodeKind.RUNNER) if getattr(n, "host", None)]
    assert sorted(runners) == ["runner:acme/build-01-a", "runner:acme/build-01-b", "runner:acme/eph-7f3a"]
    # the ephemeral runner's publish job holds a contents: write GITHUB_TOKEN: the code it pushes runs in acme/app's
    # jobs that land on build-01 (repo -runs_code_in-> job, possible), so build-01's state is reached possible
    eph = blast_radius(g, "runner:acme/eph-7f3a")
    foreign = _foreign_host_local(g, "runner:acme/eph-7f3a")
    assert "credential:build-01:/home/runner/.aws/credentials" in foreign
    assert {eph[nid].confidence for nid in foreign} == {Confidence.POSSIBLE}
    # without that way (no repository write leads on) no runner reaches another host's state
    g.nx.remove_edges_from([(e.source, e.target, e.nx_key) for e in list(g.edges(EdgeKind.RUNS_CODE_IN))])
    g.changed()
    assert {rid: sorted(_foreign_host_local(g, rid)) for rid in runners} == {rid: [] for rid in runners}
    # and each persistent runner does reach its own host's caches and credentials
    own = blast_radius(g, "runner:acme/build-01-a").ids
    assert {"cache:host:build-01:/opt/hostedtoolcache", "credential:build-01:/home/runner/.aws/credentials"} <= own
    # no job -> host cache edge at all: a job reaches a host's caches only through the host it persists on
    assert not [e for e in g.edges(EdgeKind.WRITES_CACHE) if g.node(e.target).cache_type == "host"]
    plan = revocation_plan(g, "runner:acme/eph-7f3a")
    assert not any(s.subject_id.startswith(("cache:host:build-01", "host:build-01", "credential:build-01"))
                   for s in plan.steps)


def test_host_caches_restore_only_into_their_readers_jobs():
    from graphkit.graph import Graph
    from graphkit.model import Edge, Evidence, Host, Job, Runner
    from graphkit.resolve.caches import link_host_caches
    from graphkit.resolve.context import Context
    ev = Evidence(file="t")
    g = Graph()
    for h in ("h1", "h2"):
        g.add_node(Host(id=ids.host(h), name=h, ephemeral=False, evidence=[ev]))
    for r, h in (("r1", "h1"), ("r2", "h1"), ("r3", "h2")):
        g.add_node(Runner(id=ids.runner("acme", r), name=r, scope="acme", host=h, evidence=[ev]))
        g.add_edge(Edge(kind=EdgeKind.RUNS_ON_HOST, source=ids.runner("acme", r), target=ids.host(h), evidence=[ev]))
    hook = Cache(id=ids.cache_host("h1", "/hook.sh"), name="hook", cache_type="host", scope="h1", path="/hook.sh",
                 read_by=[ids.runner("acme", "r1")], written_by=[ids.runner("acme", "r2")], evidence=[ev])
    tool = Cache(id=ids.cache_host("h1", "/opt/hostedtoolcache"), name="tc", cache_type="host", scope="h1",
                 evidence=[ev])
    for c in (hook, tool):
        g.add_node(c)
        g.add_edge(Edge(kind=EdgeKind.SHARES_CACHE, source=ids.host("h1"), target=c.id, evidence=[ev]))
    for j, runners in (("j1", ["r1"]), ("j2", ["r2"]), ("j3", ["r1", "r3"])):
        jid = ids.job("acme/app", "ci.yml", j)
        g.add_node(Job(id=jid, name=j, repository="acme/app", workflow_path="ci.yml", job_key=j,
                       secrets_repository="acme/app", evidence=[ev]))
        for r in runners:
            g.add_edge(Edge(kind=EdgeKind.RECEIVES_JOB, source=ids.runner("acme", r), target=jid, evidence=[ev]))
    link_host_caches(Context.of(g))
    got = {(e.kind.value, e.source.rpartition("#")[2] or e.source, e.target.rpartition("#")[2] or e.target)
           for e in g.edges() if e.kind in (EdgeKind.RESTORES_INTO, EdgeKind.WRITES_CACHE)}
    assert got == {
        ("restores_into", hook.id, "j1"), ("restores_into", hook.id, "j3"),  # the hook runs for r1's jobs only
        ("restores_into", tool.id, "j1"), ("restores_into", tool.id, "j2"), ("restores_into", tool.id, "j3")}
    # no job -> host cache edge: a job reaches a host's caches only through the host it persists on
