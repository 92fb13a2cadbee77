"""Resolver rules on small literal graphs (graphkit/resolve/).

Jobs and runners are built directly with the model so that these tests do not
depend on the workflow ingestor.
"""

from __future__ import annotations

import copy
import textwrap
from pathlib import Path

import networkx as nx

from graphkit.graph import Graph
from graphkit.hosted import is_self_hosted
from graphkit.model import (Cache, Confidence, Criticality, DeploymentTarget, Edge, EdgeKind, Evidence, Host, Job,
                            Lifetime, NodeKind, Organization, Repository, Runner, RunnerGroup, RunsOnCandidate,
                            Secret, SecretGrant, SecretRef, ids)
from graphkit.resolve import resolve

EV = Evidence(file="test.yml", yaml_path="x")
C, P = Confidence.CERTAIN, Confidence.POSSIBLE


# --------------------------------------------------------------------------- builders


def cand(*labels: str, group: str | None = None, matrix: dict | None = None,
         confidence: Confidence = C) -> RunsOnCandidate:
    return RunsOnCandidate(labels=tuple(labels), group=group, matrix=matrix, confidence=confidence,
                           evidence=Evidence(file="wf.yml", yaml_path=f"runs-on {labels} {matrix}"))


def job(repo: str, name: str, *cands: RunsOnCandidate, path: str = ".github/workflows/ci.yml", **kw) -> Job:
    return Job(id=ids.job(repo, path, name), name=name, repository=repo, workflow_path=path, job_key=name,
               secrets_repository=kw.pop("secrets_repository", repo), runs_on=list(cands), evidence=[EV], **kw)


def runner(name: str, labels: list[str], scope: str = "acme", group: str | None = "Default", **kw) -> Runner:
    return Runner(id=ids.runner(scope, name), name=name, labels=["self-hosted", *labels], scope=scope,
                  runner_group=group if "/" not in scope else None, evidence=[EV], **kw)


def group(name: str, **kw) -> RunnerGroup:
    return RunnerGroup(id=ids.runner_group("acme", name), name=name, owner="acme", evidence=[EV], **kw)


def repo(full: str, visibility: str | None = "private", **kw) -> Repository:
    return Repository(id=ids.repository(full), name=full, full_name=full, visibility=visibility, evidence=[EV], **kw)


def graph(*nodes, meta: dict | None = None) -> Graph:
    g = Graph()
    for n in nodes:
        g.add_node(n)
    g.meta = {"runner_inventory": meta} if meta is not None else {}
    return g


def receives(g: Graph) -> set[tuple[str, str]]:
    return {(e.source, e.target) for e in g.edges(EdgeKind.RECEIVES_JOB)}


def receives_full(g: Graph) -> set[tuple[str, str, str, str]]:
    return {(e.source, e.target, e.key, e.confidence.value) for e in g.edges(EdgeKind.RECEIVES_JOB)}


def reads(g: Graph) -> set[tuple[str, str, str]]:
    return {(e.source, e.target, e.confidence.value) for e in g.edges(EdgeKind.READS_SECRET)}


DEFAULT_ALL = group("Default", visibility="all")


# --------------------------------------------------------------------------- routing


def test_all_labels_required_case_insensitive_and_implicit_self_hosted():
    g = graph(repo("acme/app"), DEFAULT_ALL,
              runner("r-linux", ["Linux", "X64"]),
              runner("r-gpu", ["linux", "GPU"]),
              runner("r-bare", [], ),
              job("acme/app", "a", cand("self-hosted", "LINUX", "x64")),
              job("acme/app", "b", cand("linux", "gpu")),
              job("acme/app", "c", cand("self-hosted")))
    resolve(g)
    assert receives_full(g) == {
        ("runner:acme/r-linux", "job:acme/app/.github/workflows/ci.yml#a", "", "certain"),
        ("runner:acme/r-gpu", "job:acme/app/.github/workflows/ci.yml#b", "", "certain"),
        ("runner:acme/r-linux", "job:acme/app/.github/workflows/ci.yml#c", "", "certain"),
        ("runner:acme/r-gpu", "job:acme/app/.github/workflows/ci.yml#c", "", "certain"),
        ("runner:acme/r-bare", "job:acme/app/.github/workflows/ci.yml#c", "", "certain"),
    }


def test_scope_org_or_own_repository_only():
    g = graph(repo("acme/app"), repo("acme/docs"), DEFAULT_ALL,
              runner("org", ["linux"]), runner("app-only", ["linux"], scope="acme/app"),
              runner("other-org", ["linux"], scope="umbrella"),
              job("acme/app", "a", cand("linux")), job("acme/docs", "d", cand("linux")))
    resolve(g)
    assert receives(g) == {
        ("runner:acme/org", "job:acme/app/.github/workflows/ci.yml#a"),
        ("runner:acme/app/app-only", "job:acme/app/.github/workflows/ci.yml#a"),
        ("runner:acme/org", "job:acme/docs/.github/workflows/ci.yml#d"),
    }


def test_group_pin_links_only_that_group():
    g = graph(repo("acme/app"), DEFAULT_ALL, group("builders", visibility="all"),
              runner("gpu-default", ["gpu"]), runner("gpu-builders", ["gpu"], group="builders"),
              runner("gpu-repo", ["gpu"], scope="acme/app"),
              job("acme/app", "train", cand("gpu", group="Builders")))
    resolve(g)
    assert receives(g) == {("runner:acme/gpu-builders", "job:acme/app/.github/workflows/ci.yml#train")}


def test_group_selected_visibility():
    g = graph(repo("acme/app"), repo("acme/docs"),
              group("shared", visibility="selected", selected_repositories=["acme/app"]),
              runner("r1", ["linux"], group="shared"),
              job("acme/app", "a", cand("linux")), job("acme/docs", "d", cand("linux")))
    resolve(g)
    assert receives(g) == {("runner:acme/r1", "job:acme/app/.github/workflows/ci.yml#a")}
    # a real runner matches the labels, so no pool is invented for docs: it is reported as unrouted
    assert g.meta.resolve.inferred_pools == []
    assert g.meta.resolve.unrouted_candidates == ["job:acme/docs/.github/workflows/ci.yml#d [linux]"]


def test_group_private_visibility_and_public_repositories():
    nodes = [repo("acme/priv"), repo("acme/int", "internal"), repo("acme/pub", "public"), repo("acme/unk", None),
             group("private-grp", visibility="private", allows_public_repositories=True),
             group("no-public", visibility="all"), group("public-ok", visibility="all",
                                                        allows_public_repositories=True),
             runner("rp", ["p"], group="private-grp"), runner("rn", ["n"], group="no-public"),
             runner("ro", ["o"], group="public-ok")]
    jobs = [job(f"acme/{r}", lab, cand(lab)) for r in ("priv", "int", "pub", "unk") for lab in ("p", "n", "o")]
    g = graph(*nodes, *jobs)
    resolve(g)
    assert receives_full(g) == {
        ("runner:acme/rp", "job:acme/priv/.github/workflows/ci.yml#p", "", "certain"),
        ("runner:acme/rp", "job:acme/int/.github/workflows/ci.yml#p", "", "certain"),
        ("runner:acme/rp", "job:acme/unk/.github/workflows/ci.yml#p", "", "possible"),
        ("runner:acme/rn", "job:acme/priv/.github/workflows/ci.yml#n", "", "certain"),
        ("runner:acme/rn", "job:acme/int/.github/workflows/ci.yml#n", "", "certain"),
        ("runner:acme/rn", "job:acme/unk/.github/workflows/ci.yml#n", "", "possible"),
        ("runner:acme/ro", "job:acme/priv/.github/workflows/ci.yml#o", "", "certain"),
        ("runner:acme/ro", "job:acme/int/.github/workflows/ci.yml#o", "", "certain"),
        ("runner:acme/ro", "job:acme/pub/.github/workflows/ci.yml#o", "", "certain"),
        ("runner:acme/ro", "job:acme/unk/.github/workflows/ci.yml#o", "", "certain"),
    }


def test_restricted_to_workflows():
    g = graph(repo("acme/app", default_branch="main"),
              group("rel", visibility="all", restricted_to_workflows=True,
                    selected_workflows=["acme/app/.github/workflows/release.yml@refs/heads/main",
                                        "Acme/App/.github/workflows/nightly.yml@refs/tags/v1"]),
              group("rel-unknown", visibility="all", restricted_to_workflows=True),
              runner("rr", ["rel"], group="rel"), runner("ru", ["relu"], group="rel-unknown"),
              job("acme/app", "publish", cand("rel"), path=".github/workflows/release.yml"),
              job("acme/app", "nightly", cand("rel"), path=".github/workflows/nightly.yml"),
              job("acme/app", "test", cand("rel"), path=".github/workflows/ci.yml"),
              job("acme/app", "x", cand("relu"), path=".github/workflows/ci.yml"),
              meta={"unknown_selected_workflows": ["runner_group:acme/rel-unknown"]})
    resolve(g)
    assert receives_full(g) == {
        ("runner:acme/rr", "job:acme/app/.github/workflows/release.yml#publish", "", "certain"),
        ("runner:acme/rr", "job:acme/app/.github/workflows/nightly.yml#nightly", "", "possible"),
        ("runner:acme/ru", "job:acme/app/.github/workflows/ci.yml#x", "", "possible"),
    }


def test_matrix_instances_keep_distinct_keys():
    g = graph(repo("acme/app"), DEFAULT_ALL, runner("a", ["linux-a"]), runner("b", ["linux-b"]),
              runner("c", ["linux-c"]),
              job("acme/app", "m", cand("linux-a", matrix={"os": "linux-a"}), cand("linux-c", matrix={"os": "linux-c"})))
    resolve(g)
    assert receives_full(g) == {
        ("runner:acme/a", "job:acme/app/.github/workflows/ci.yml#m", 'matrix={"os":"linux-a"}', "certain"),
        ("runner:acme/c", "job:acme/app/.github/workflows/ci.yml#m", 'matrix={"os":"linux-c"}', "certain"),
    }


def test_inferred_pools_and_replacement_by_real_runners():
    j_gpu = job("acme/app", "gpu", cand("self-hosted", "Linux", "GPU"))
    j_linux = job("acme/app", "lin", cand("linux"))
    j_other = job("umbrella/x", "o", cand("linux"))
    # no inventory: every self-hosted label set is a pool of its owner
    g = graph(repo("acme/app"), j_gpu, j_linux, j_other)
    resolve(g)
    assert receives_full(g) == {
        ("runner:inferred:acme:gpu+linux+self-hosted", j_gpu.id, "", "possible"),
        ("runner:inferred:acme:linux+self-hosted", j_linux.id, "", "possible"),
        # the gpu pool's machines have "linux" too
        ("runner:inferred:acme:gpu+linux+self-hosted", j_linux.id, "", "possible"),
        ("runner:inferred:umbrella:linux+self-hosted", j_other.id, "", "possible"),
    }
    pool = g.node("runner:inferred:acme:gpu+linux+self-hosted")
    assert (pool.inferred, pool.scope, pool.labels) == (True, "acme", ["gpu", "linux", "self-hosted"])
    # a real runner with linux replaces the linux pool (not the gpu one)
    g = graph(repo("acme/app"), DEFAULT_ALL, runner("r1", ["linux"]), j_gpu, j_linux)
    resolve(g)
    assert receives_full(g) == {
        ("runner:inferred:acme:gpu+linux+self-hosted", j_gpu.id, "", "possible"),
        ("runner:acme/r1", j_linux.id, "", "certain"),
    }
    assert g.meta.resolve.inferred_pools == ["runner:inferred:acme:gpu+linux+self-hosted"]


def test_unresolved_runs_on_links_every_usable_runner_and_pool():
    unresolved = Evidence(file="wf.yml", yaml_path="jobs.plan.runs-on", detail="${{ inputs.runner }}")
    j_dyn = job("acme/app", "dyn", runs_on_unresolved=unresolved)
    j_gpu = job("acme/app", "gpu", cand("gpu"))
    g = graph(repo("acme/app"), DEFAULT_ALL, group("other", visibility="selected", selected_repositories=[]),
              runner("r1", ["linux"]), runner("denied", ["linux"], group="other"),
              runner("app", ["x"], scope="acme/app"), j_dyn, j_gpu)
    resolve(g)
    assert receives_full(g) == {
        ("runner:acme/r1", j_dyn.id, "unresolved", "possible"),
        ("runner:acme/app/app", j_dyn.id, "unresolved", "possible"),
        ("runner:inferred:acme:gpu+self-hosted", j_dyn.id, "unresolved", "possible"),
        ("runner:inferred:acme:gpu+self-hosted", j_gpu.id, "", "possible"),
    }
    # nothing known at all: ${{ inputs.runner }} may name a GitHub-hosted runner (none of acme's), so no pool is
    # invented; the job stays unresolved, and says so
    g = graph(repo("acme/app"), j_dyn)
    resolve(g)
    assert receives_full(g) == set()
    assert [n.id for n in g.nodes(NodeKind.RUNNER)] == [] and g.meta.resolve.inferred_pools == []
    assert g.node(j_dyn.id).runs_on_unresolved == unresolved
    assert g.meta.resolve.unresolved_jobs == [j_dyn.id]


def test_hosted_labels_with_overrides():
    """A GitHub-hosted label (shipped or the inventory's ``github_hosted_labels``) that a self-hosted runner of the
    repository's scope carries too reaches that runner ``possible`` (GitHub routes a job to any runner with all its
    labels; cocotb/cocotb#3626: ``ubuntu-20.04`` jobs ran on a self-hosted runner labelled so); a runner without
    the label gets nothing, no pool is inferred."""
    assert not is_self_hosted(["ubuntu-latest"]) and is_self_hosted(["ubuntu-x64-small"])
    g = graph(repo("acme/app"), DEFAULT_ALL,
              runner("r1", ["ubuntu-latest", "ubuntu-22.04", "acme-8core", "macos-m1-stable"]),
              runner("r2", ["linux"]),
              job("acme/app", "hosted", cand("ubuntu-latest")),
              job("acme/app", "larger", cand("acme-8core")),
              job("acme/app", "sh", cand("self-hosted", "ubuntu-latest")),
              job("acme/app", "forced", cand("ubuntu-22.04")),
              job("acme/app", "m1", cand("macos-m1-stable")),
              job("acme/app", "win", cand("windows-latest")),
              meta={"github_hosted_labels": ["ACME-8core"], "self_hosted_labels": ["ubuntu-22.04"]})
    resolve(g)
    jid = lambda n: ids.job("acme/app", ".github/workflows/ci.yml", n)  # noqa: E731
    assert receives_full(g) == {("runner:acme/r1", jid("sh"), "", "certain"),
                                ("runner:acme/r1", jid("forced"), "", "certain"),
                                ("runner:acme/r1", jid("m1"), "", "certain"),
                                ("runner:acme/r1", jid("hosted"), "", "possible"),
                                ("runner:acme/r1", jid("larger"), "", "possible")}
    assert [e.props["hosted_label"] for e in g.edges(EdgeKind.RECEIVES_JOB) if e.target == jid("hosted")] == [True]
    assert not any(n.inferred for n in g.nodes() if isinstance(n, Runner))
    assert g.meta.resolve.queued_forever == []


def test_ephemeral_vs_persistent_lifetimes():
    g = graph(repo("acme/app"), DEFAULT_ALL, runner("eph", ["l"], ephemeral=True),
              runner("per", ["l"], ephemeral=False), runner("unk", ["l"]),
              job("acme/app", "j", cand("l")))
    resolve(g)
    got = {(e.source, e.lifetime, e.confidence) for e in g.edges(EdgeKind.RECEIVES_JOB)}
    assert got == {("runner:acme/eph", Lifetime.PER_JOB, P),
                   ("runner:acme/per", Lifetime.UNTIL_RUNNER_REMOVED, C),
                   ("runner:acme/unk", Lifetime.UNTIL_RUNNER_REMOVED, C)}


def test_reusable_workflow_uses_callers_runners():
    callee = Job(id="job:acme/app/.github/workflows/ci.yml#call>acme/shared/.github/workflows/build.yml#b",
                 name="b", repository="acme/shared", workflow_path=".github/workflows/build.yml", job_key="b",
                 secrets_repository="acme/app", runs_on=[cand("l")], evidence=[EV])
    g = graph(repo("acme/app"), repo("acme/shared"),
              group("g", visibility="selected", selected_repositories=["acme/app"]),
              runner("r", ["l"], group="g"), callee)
    resolve(g)
    assert receives(g) == {("runner:acme/r", callee.id)}


def test_candidate_confidence_propagates():
    g = graph(repo("acme/app"), DEFAULT_ALL, runner("r", ["l"]),
              job("acme/app", "j", cand("l", confidence=P)))
    resolve(g)
    assert receives_full(g) == {("runner:acme/r", "job:acme/app/.github/workflows/ci.yml#j", "", "possible")}


# --------------------------------------------------------------------------- secrets


def secret(scope: str, name: str, **kw) -> Secret:
    if scope == "org":
        sid = ids.secret_org("acme", name)
    elif scope == "repo":
        sid = ids.secret_repo(kw["repository"], name)
    else:
        sid = ids.secret_env(kw["repository"], kw["environment"], name)
    return Secret(id=sid, name=name, secret_name=name, scope=scope, owner="acme", evidence=[EV], **kw)


def refs(*names: str) -> list[SecretRef]:
    return [SecretRef(name=n, evidence=Evidence(file="wf.yml", yaml_path=f"secrets.{n}")) for n in names]


SECRET_NODES = [
    Organization(id="org:acme", name="acme", evidence=[EV]),
    repo("acme/app"), repo("acme/docs"), repo("acme/site", "public"),
    secret("org", "TOKEN", visibility="all"),
    secret("org", "ORG_ONLY", visibility="all"),
    secret("org", "PRIV", visibility="private"),
    secret("org", "SEL", visibility="selected", selected_repositories=["acme/app"]),
    secret("repo", "TOKEN", repository="acme/app"),
    secret("repo", "REPO_ONLY", repository="acme/app"),
    secret("env", "TOKEN", repository="acme/app", environment="production"),
]
COMPLETE = {"secrets_complete": ["org:acme", "repo:acme/app", "repo:acme/docs", "repo:acme/site",
                                 "target:environment:acme/app:production"]}


def test_secret_resolution_order_env_repo_org():
    j_env = job("acme/app", "deploy", environment="Production", secret_refs=refs("TOKEN", "REPO_ONLY", "ORG_ONLY"))
    j_plain = job("acme/app", "build", secret_refs=refs("token", "github_token"))
    j_docs = job("acme/docs", "docs", secret_refs=refs("TOKEN", "REPO_ONLY"))
    g = graph(*SECRET_NODES, j_env, j_plain, j_docs, meta=COMPLETE)
    resolve(g)
    assert reads(g) == {
        (j_env.id, "secret:env:acme/app:production:TOKEN", "certain"),
        (j_env.id, "secret:repo:acme/app:REPO_ONLY", "certain"),
        (j_env.id, "secret:org:acme:ORG_ONLY", "certain"),
        (j_plain.id, "secret:repo:acme/app:TOKEN", "certain"),
        (j_docs.id, "secret:org:acme:TOKEN", "certain"),
    }
    # every list complete and none holds REPO_ONLY for acme/docs: no node is invented (issue 10;
    # rule referenced-secret-missing reports it)
    assert "secret:acme/docs:REPO_ONLY" not in g


def test_org_secret_visibility_selected_and_private():
    jobs = [job(f"acme/{r}", "j", secret_refs=refs("SEL", "PRIV")) for r in ("app", "docs", "site")]
    g = graph(*SECRET_NODES, *jobs, meta=COMPLETE)
    resolve(g)
    assert reads(g) == {
        ("job:acme/app/.github/workflows/ci.yml#j", "secret:org:acme:SEL", "certain"),
        ("job:acme/app/.github/workflows/ci.yml#j", "secret:org:acme:PRIV", "certain"),
        ("job:acme/docs/.github/workflows/ci.yml#j", "secret:org:acme:PRIV", "certain"),
    }  # not visible to the repository and every list complete: no secret (issue 10, referenced-secret-missing)


def test_incomplete_shadowing_scope_makes_lookup_possible():
    j = job("acme/app", "j", secret_refs=refs("ORG_ONLY"))
    g = graph(*SECRET_NODES, j)  # no list known complete
    resolve(g)
    assert reads(g) == {(j.id, "secret:org:acme:ORG_ONLY", "possible")}


def test_all_secrets_expands_to_every_visible_secret():
    ev = Evidence(file="wf.yml", yaml_path="jobs.j.env.ALL", detail="toJSON(secrets)")
    j_env = job("acme/app", "env", environment="production", all_secrets=ev)
    j_app = job("acme/app", "app", all_secrets=ev)
    j_site = job("acme/site", "site", all_secrets=ev)
    g = graph(*SECRET_NODES, j_env, j_app, j_site, meta=COMPLETE)
    resolve(g)
    assert reads(g) == {
        (j_env.id, "secret:env:acme/app:production:TOKEN", "certain"),
        (j_env.id, "secret:repo:acme/app:REPO_ONLY", "certain"),
        (j_env.id, "secret:org:acme:ORG_ONLY", "certain"),
        (j_env.id, "secret:org:acme:PRIV", "certain"),
        (j_env.id, "secret:org:acme:SEL", "certain"),
        (j_app.id, "secret:repo:acme/app:TOKEN", "certain"),
        (j_app.id, "secret:repo:acme/app:REPO_ONLY", "certain"),
        (j_app.id, "secret:org:acme:ORG_ONLY", "certain"),
        (j_app.id, "secret:org:acme:PRIV", "certain"),
        (j_app.id, "secret:org:acme:SEL", "certain"),
        (j_site.id, "secret:org:acme:TOKEN", "certain"),
        (j_site.id, "secret:org:acme:ORG_ONLY", "certain"),
    }
    # lists not known complete: plus the "every secret" node
    g = graph(*SECRET_NODES, j_site, meta={"secrets_complete": ["org:acme"]})
    resolve(g)
    assert reads(g) == {(j_site.id, "secret:org:acme:TOKEN", "possible"),
                        (j_site.id, "secret:org:acme:ORG_ONLY", "possible"),
                        (j_site.id, "secret:all:acme/site", "possible")}
    assert g.node("secret:all:acme/site").scope == "all"


def test_secret_grants_link_secret_to_target():
    target = DeploymentTarget(id="target:package_index:pypi.org/acme-app", name="pypi", target_type="package_index",
                              identifier="pypi.org/acme-app", evidence=[EV])
    gev = Evidence(file="wf.yml", yaml_path="jobs.j.steps[3].with.password")
    j = job("acme/app", "j", secret_grants=[
        SecretGrant(name="REPO_ONLY", edge_kind=EdgeKind.PUBLISHES_TO, target=target.id, evidence=gev),
        SecretGrant(name="ORG_ONLY", edge_kind=EdgeKind.PUBLISHES_TO, target="target:registry:absent", evidence=gev)])
    g = graph(*SECRET_NODES, target, j, meta=COMPLETE)
    resolve(g)
    assert reads(g) == {(j.id, "secret:repo:acme/app:REPO_ONLY", "certain"),
                        (j.id, "secret:org:acme:ORG_ONLY", "certain")}
    (e,) = list(g.edges(EdgeKind.PUBLISHES_TO))
    assert (e.source, e.target, e.lifetime) == ("secret:repo:acme/app:REPO_ONLY", target.id, Lifetime.UNTIL_ROTATED)
    assert g.meta.resolve.dangling_grants == [
        "secret:org:acme:ORG_ONLY -[publishes_to]-> target:registry:absent"]


# --------------------------------------------------------------------------- host caches


def test_host_caches_shared_by_every_job_on_the_host():
    h = Host(id="host:build-01", name="build-01", ephemeral=False, evidence=[EV])
    vm = Host(id="host:vm", name="vm", ephemeral=True, evidence=[EV])
    tc = Cache(id="cache:host:build-01:/opt/tc", name="tc", cache_type="host", scope="build-01", path="/opt/tc",
               evidence=[EV])
    vc = Cache(id="cache:host:vm:/opt/tc", name="tc", cache_type="host", scope="vm", path="/opt/tc", evidence=[EV])
    r1, r2 = runner("a", ["a"], host="build-01"), runner("b", ["b"], host="build-01")
    r3 = runner("v", ["a"], ephemeral=True)
    ja, jb = job("acme/app", "ja", cand("a")), job("acme/docs", "jb", cand("b"))
    g = graph(repo("acme/app"), repo("acme/docs"), DEFAULT_ALL, h, vm, tc, vc, r1, r2, r3, ja, jb)
    for e in [Edge(kind=EdgeKind.RUNS_ON_HOST, source=r1.id, target=h.id, evidence=[EV]),
              Edge(kind=EdgeKind.RUNS_ON_HOST, source=r2.id, target=h.id, evidence=[EV]),
              Edge(kind=EdgeKind.RUNS_ON_HOST, source=r3.id, target=vm.id, evidence=[EV]),
              Edge(kind=EdgeKind.SHARES_CACHE, source=h.id, target=tc.id, evidence=[EV]),
              Edge(kind=EdgeKind.SHARES_CACHE, source=vm.id, target=vc.id, evidence=[EV])]:
        g.add_edge(e)
    resolve(g)
    assert {(e.source, e.target) for e in g.edges(EdgeKind.RESTORES_INTO)} == {(tc.id, ja.id), (tc.id, jb.id)}
    # host-local caches are reached only through their host (persists_on, then shares_cache): no job -> cache
    # edge, so ja (which may also land on the ephemeral vm) reaches no cache of another host
    assert not list(g.edges(EdgeKind.WRITES_CACHE))
    assert {(e.source, e.target) for e in g.edges(EdgeKind.PERSISTS_ON)} == {
        (ja.id, r1.id), (ja.id, h.id), (jb.id, r2.id), (jb.id, h.id)}
    from graphkit.analysis import blast_radius
    br = blast_radius(g, ja.id)
    assert [h.kind.value for h in br[tc.id].path] == ["persists_on", "shares_cache"] and vc.id not in br


# --------------------------------------------------------------------------- idempotence


def test_resolve_is_idempotent():
    unresolved = Evidence(file="wf.yml", yaml_path="jobs.plan.runs-on")
    ev = Evidence(file="wf.yml", yaml_path="jobs.j.env.ALL")
    g = graph(*SECRET_NODES, DEFAULT_ALL, runner("r", ["l"], ephemeral=True),
              job("acme/app", "a", cand("l"), cand("gpu", matrix={"k": 1}), secret_refs=refs("TOKEN", "NOPE")),
              job("acme/app", "b", runs_on_unresolved=unresolved, all_secrets=ev),
              job("acme/docs", "c", cand("hosted-nothing"), all_secrets=ev),
              meta={"secrets_complete": ["org:acme"]})
    resolve(g)
    once = copy.deepcopy(g.to_dict())
    resolve(g)
    assert g.to_dict() == once
    assert Graph.from_dict(once) == g


# --------------------------------------------------------------------------- example (needs the workflow ingestor)


def test_example_chain():
    from graphkit.build import build_graph

    root = Path(__file__).resolve().parents[1] / "examples" / "acme"
    res = build_graph({"github-actions": [root / "repos"], "runners": [root / "inventory.yaml"]})
    g = res.graph
    assert res.problems == []
    def wf(repo: str, file: str, key: str) -> str:
        return ids.job(f"acme/{repo}", f".github/workflows/{file}", key)

    release, ci = wf("app", "release.yml", "publish"), wf("app", "ci.yml", "test")
    docs, preview = wf("docs", "docs.yml", "build"), wf("docs", "preview.yml", "preview")
    plan, deploy = wf("infra", "deploy.yml", "plan"), wf("infra", "deploy.yml", "deploy")
    a, b, eph = "runner:acme/build-01-a", "runner:acme/build-01-b", "runner:acme/eph-7f3a"
    # ci.yml#lint is on ubuntu-latest: not linked; release only on the restricted `release` group
    assert receives_full(g) == {
        (a, ci, "", "certain"), (a, docs, "", "certain"), (a, deploy, "", "certain"),
        (a, plan, "unresolved", "possible"), (b, release, "", "certain"),
        (eph, ci, "", "possible"), (eph, docs, "", "possible"), (eph, deploy, "", "possible"),
        (eph, plan, "unresolved", "possible"),
        (a, preview, "", "certain"), (eph, preview, "", "possible")}  # the docs pull_request_target preview
    # public docs repo with toJSON(secrets): every org secret visible to it, not the private-only one
    assert {t for (s, t, _) in reads(g) if s == docs} == {
        "secret:org:acme:SLACK_WEBHOOK_URL", "secret:org:acme:DOCS_DEPLOY_KEY", "secret:repo:acme/docs:ALGOLIA_ADMIN_KEY"}
    assert {t for (s, t, _) in reads(g) if s == release} == {
        "secret:env:acme/app:production:COSIGN_PRIVATE_KEY", "secret:env:acme/app:production:COSIGN_PASSWORD",
        "secret:repo:acme/app:PYPI_API_TOKEN"}
    # the host cache written by docs is restored into the release job (same host, other runner)
    assert ("cache:host:build-01:/home/runner/.cache/pip", release) in {
        (e.source, e.target) for e in g.edges(EdgeKind.RESTORES_INTO)}
    # build-01-a -> host -> build-01-b (runner on runner) -> release job -> prod secrets, OIDC, roles
    reach = nx.descendants(g.traversable_view(), a)
    assert {"host:build-01", b, release, "credential:build-01:/home/runner/.aws/credentials",
            "cloud_role:aws:arn:aws:iam::111122223333:role/acme-ci-builder",
            "secret:env:acme/app:production:COSIGN_PRIVATE_KEY", "secret:repo:acme/app:PYPI_API_TOKEN",
            "secret:env:acme/infra:production:KUBE_CONFIG_PROD",
            "target:environment:acme/app:production"} <= reach
    assert any(n.startswith("signing_key:") for n in reach)
    assert any(n.startswith("cloud_role:aws:") and n.endswith("role/acme-release") for n in reach)
    assert g.meta.resolve.unresolved_jobs == [plan]


def test_environment_names_are_case_insensitive(tmp_path):
    """An inventory's ``PyPI`` and a workflow's ``pypi`` are one environment (GitHub: environment names are not
    case sensitive): one target node, critical, and the job reads that environment's secret."""
    from graphkit.build import build_graph

    inv = tmp_path / "inventory.yaml"
    inv.write_text(textwrap.dedent("""
        schema: graphkit.runner-inventory/v1
        organizations: [{name: acme}]
        repositories:
          - full_name: acme/app
            visibility: private
            secrets: []
            secrets_complete: true
            environments:
              - name: PyPI
                production: true
                secrets: [PYPI_TOKEN]
                secrets_complete: true
    """).lstrip())
    wf = tmp_path / "acme__app" / ".github" / "workflows" / "release.yml"
    wf.parent.mkdir(parents=True)
    wf.write_text(textwrap.dedent("""
        on: push
        jobs:
          publish:
            runs-on: ubuntu-latest
            environment: pypi
            steps:
              - run: twine upload dist/*
                env:
                  TWINE_PASSWORD: ${{ secrets.PYPI_TOKEN }}
    """).lstrip())
    res = build_graph({"github-actions": [tmp_path / "acme__app"], "runners": [inv]})
    assert res.problems == []
    g = res.graph
    env = ids.environment("acme/app", "PyPI")
    assert env == "target:environment:acme/app:pypi"
    envs = [n.id for n in g.nodes() if isinstance(n, DeploymentTarget) and n.target_type == "environment"]
    assert envs == [env]
    target = g.node(env)
    assert (target.production, target.criticality) == (True, Criticality.CRITICAL)
    job_id = ids.job("acme/app", ".github/workflows/release.yml", "publish")
    assert {(e.source, e.target) for e in g.edges(EdgeKind.DEPLOYS_TO)} == {(job_id, env)}
    secret_id = ids.secret_env("acme/app", "PyPI", "PYPI_TOKEN")
    assert secret_id == "secret:env:acme/app:pypi:PYPI_TOKEN"
    assert {(e.source, e.target) for e in g.edges(EdgeKind.HAS_SECRET)} == {(env, secret_id)}
    assert reads(g) == {(job_id, secret_id, "certain")}


def test_a_stated_production_flag_survives_any_input_order(tmp_path):
    """The inventory states that environment ``Blue`` is production; the workflow only names it.  Whatever the
    order of the inputs (and of the files), the one node keeps ``production: true`` and ``critical``: the
    workflow's unknown never replaces the inventory's fact (before, one order gave unknown and ``high``)."""
    from graphkit.build import build_graph

    inv = tmp_path / "inventory.yaml"
    inv.write_text("schema: graphkit.runner-inventory/v1\nrepositories:\n  - full_name: Acme/App\n"
                   "    environments: [{name: Blue, production: true}]\n")
    other = tmp_path / "other.yaml"
    other.write_text("schema: graphkit.runner-inventory/v1\nrepositories: [{full_name: acme/app}]\n")
    wf = tmp_path / "acme__app" / ".github" / "workflows" / "deploy.yml"
    wf.parent.mkdir(parents=True)
    wf.write_text("on: push\njobs:\n  deploy:\n    runs-on: ubuntu-latest\n    environment: blue\n"
                  "    steps: [{run: ./deploy.sh}]\n")
    orders = [{"github-actions": [wf.parents[2]], "runners": [inv, other]},
              {"runners": [other, inv], "github-actions": [wf.parents[2]]}]
    graphs = [build_graph(inputs).graph for inputs in orders]
    assert graphs[0].to_dict() == graphs[1].to_dict()
    target = graphs[0].node(ids.environment("acme/app", "blue"))
    assert (target.production, target.criticality) == (True, Criticality.CRITICAL)


def test_values_that_cannot_be_ids_are_problems_not_crashes():
    # ":" cannot be part of a secret id (GitHub secret names are letters, digits, "_" and "-"): not linked,
    # reported with file and place, and the rest of the job is still resolved.  A label may hold ":" (the label
    # set is the last part of a pool id): the job is routed to its inferred pool.
    j = job("acme/app", "j", cand("gpu:a100"), secret_refs=refs("BAD:NAME", "TOKEN"))
    g = graph(repo("acme/app"), j)
    resolve(g)
    resolve(g)  # idempotent: each problem once
    pool = ids.runner_pool("acme", ["gpu:a100"])
    assert pool == "runner:inferred:acme:gpu:a100+self-hosted"
    assert ids.parse(pool).parts["labels"] == "gpu:a100+self-hosted"
    assert {(s, t, c) for s, t, _, c in receives_full(g)} == {(pool, j.id, "possible")}
    assert reads(g) == {(j.id, "secret:acme/app:TOKEN", "certain")}
    assert [(p.file, p.place) for p in g.meta.problems] == [("wf.yml", "secrets.BAD:NAME")]
    assert "secret name" in g.meta.problems[0].reason


def test_secrets_complete_ids_are_read_by_their_constructors():
    # an inventory may write ids in any case: `repo:Acme/App` is the id of acme/app
    ev = Evidence(file="wf.yml", yaml_path="jobs.j.env.ALL", detail="toJSON(secrets)")
    j = job("acme/app", "app", environment="Production", all_secrets=ev)
    meta = {"secrets_complete": ["org:ACME", "repo:Acme/App", "target:environment:acme/APP:production", "nonsense"]}
    g = graph(*SECRET_NODES, j, meta=meta)
    resolve(g)
    assert "secret:all:acme/app" not in g
    assert (j.id, "secret:env:acme/app:production:TOKEN", "certain") in reads(g)


# --------------------------------------------------------------------------- environment branch policies


POLICY_INVENTORY = """
schema: graphkit.runner-inventory/v1
organizations: [{name: acme}]
repositories:
  - full_name: acme/app
    visibility: private
    default_branch: main
    protected_branches: [main, 'release/*']
    secrets: []
    secrets_complete: true
    environments:
      - name: production
        secrets: [DEPLOY_KEY]
        secrets_complete: true
        deployment_branch_policy:
          protected_branches: false
          custom_branch_policies: true
          branch_policies: [{name: main}, {name: 'v*', type: tag}]
      - name: staging
        secrets: [STAGING_KEY]
        secrets_complete: true
        deployment_branch_policy: {protected_branches: true, custom_branch_policies: false}
      - name: sandbox
        secrets: [SANDBOX_KEY]
        secrets_complete: true
"""

POLICY_WORKFLOWS = {
    "main.yml": ("on:\n  push:\n    branches: [main]\n", "production", "DEPLOY_KEY"),
    "dispatch.yml": ("on:\n  push:\n    branches: [main]\n  workflow_dispatch:\n", "production", "DEPLOY_KEY"),
    "only-dispatch.yml": ("on: workflow_dispatch\n", "production", "DEPLOY_KEY"),
    "tags.yml": ("on:\n  push:\n    tags: ['v*']\n", "production", "DEPLOY_KEY"),
    "feature.yml": ("on:\n  push:\n    branches: ['feature/**']\n", "production", "DEPLOY_KEY"),
    "pr.yml": ("on: pull_request\n", "production", "DEPLOY_KEY"),
    "release.yml": ("on:\n  push:\n    branches: ['release/**']\n", "staging", "STAGING_KEY"),
    "release-tag.yml": ("on:\n  push:\n    tags: ['release/*']\n", "staging", "STAGING_KEY"),
    "nightly.yml": ("on:\n  schedule: [{cron: '0 0 * * *'}]\n", "staging", "STAGING_KEY"),
    "sandbox.yml": ("on:\n  push:\n    tags: ['x*']\n", "sandbox", "SANDBOX_KEY"),
}


def test_environment_branch_policies_decide_per_ref(tmp_path):
    """GitHub docs "Deployments and environments", deployment branches and tags
    (https://docs.github.com/en/actions/reference/workflows-and-actions/deployments-and-environments#deployment-branches-and-tags):
    selected branch/tag name patterns, protected branches only (tags never deploy: changelog 2023-08-10), no
    restriction; (dated 2025-12-08) pull_request jobs are evaluated on refs/pull/N/merge."""
    from graphkit.build import build_graph

    inv = tmp_path / "inventory.yaml"
    inv.write_text(POLICY_INVENTORY.lstrip())
    wfdir = tmp_path / "acme__app" / ".github" / "workflows"
    wfdir.mkdir(parents=True)
    for name, (on, env, key) in POLICY_WORKFLOWS.items():
        (wfdir / name).write_text(on + f"jobs:\n  d:\n    runs-on: ubuntu-latest\n    environment: {env}\n"
                                  f"    steps:\n      - run: deploy\n        env:\n"
                                  f"          K: ${{{{ secrets.{key} }}}}\n")
    res = build_graph({"github-actions": [tmp_path / "acme__app"], "runners": [inv]})
    assert res.problems == []
    g = res.graph

    def jid(name: str) -> str:
        return ids.job("acme/app", f".github/workflows/{name}", "d")

    deploys = {e.source: e.confidence.value for e in g.edges(EdgeKind.DEPLOYS_TO)}
    secrets = {e.source: e.confidence.value for e in g.edges(EdgeKind.READS_SECRET)}
    # certain when every ref of some event passes (the runs of that event reach it), possible when some ref may
    expected = {"main.yml": "certain", "dispatch.yml": "certain", "only-dispatch.yml": "possible",
                "tags.yml": "certain", "pr.yml": "possible",
                "release.yml": "possible", "nightly.yml": "certain", "sandbox.yml": "certain"}
    assert deploys == {jid(n): c for n, c in expected.items()}
    assert secrets == deploys  # the environment's secret follows the same decision
    assert g.meta.resolve.environments_denied == sorted([
        f"{jid('feature.yml')} -> target:environment:acme/app:production",
        f"{jid('release-tag.yml')} -> target:environment:acme/app:staging"])
    policy = g.node("target:environment:acme/app:production").branch_policy
    assert (policy.branches, policy.tags) == (("main",), ("v*",))
    before = (sorted(deploys.items()), sorted(secrets.items()))
    resolve(g)  # idempotent
    assert before == (sorted((e.source, e.confidence.value) for e in g.edges(EdgeKind.DEPLOYS_TO)),
                      sorted((e.source, e.confidence.value) for e in g.edges(EdgeKind.READS_SECRET)))


# --------------------------------------------------------------------------- label patterns, complete runner lists


def test_third_party_pool_label_patterns_and_queued_forever():
    """A job runs on a runner with ALL its labels (routing precedence:
    https://docs.github.com/en/actions/reference/runners/self-hosted-runners#routing-precedence-for-self-hosted-runners);
    a pool registering runners with the job's labels answers to patterns; dynamic labels stay patterns."""
    pool = runner("runs-on", ["runs-on"], label_patterns=["runner=*", "run-id=*"], ephemeral=True)
    big = runner("big", ["linux-large"])
    pooled = job("acme/app", "pooled", RunsOnCandidate(labels=("runs-on", "runner=4cpu-linux", "run-id=*"),
                                                       dynamic=("run-id=*",), evidence=EV))
    sized = job("acme/app", "sized", RunsOnCandidate(labels=("*-large",), dynamic=("*-large",), evidence=EV))
    typo = job("acme/app", "typo", cand("linx"))
    g = graph(repo("acme/app"), DEFAULT_ALL, pool, big, pooled, sized, typo,
              meta={"runners_complete": ["Acme"]})
    resolve(g)
    assert receives_full(g) == {
        (pool.id, pooled.id, "", "possible"),  # ephemeral: one future job
        (big.id, sized.id, "", "possible"),  # "*-large" may or may not be "linux-large"
        (pool.id, sized.id, "", "possible"),  # ... or "runner=x-large"
    }
    assert g.meta.resolve.queued_forever == [f"{typo.id} [linx]"]
    assert g.meta.resolve.inferred_pools == []  # the runner list is complete: no invented pool
    g2 = graph(repo("acme/app"), DEFAULT_ALL, pool, big, typo)  # not complete: an inferred pool as before
    resolve(g2)
    assert g2.meta.resolve.inferred_pools == ["runner:inferred:acme:linx+self-hosted"]
    assert g2.meta.resolve.queued_forever == []


def test_dynamic_runs_on_labels_from_the_workflow(tmp_path):
    from ingest.github_actions import parse_workflow, to_graph

    text = ("on: push\njobs:\n  a:\n    runs-on: [runs-on, runner=2cpu-linux-x64, 'run-id=${{ github.run_id }}']\n"
            "  b:\n    runs-on: ${{ inputs.runner }}\n")
    res = to_graph([parse_workflow(text, file=".github/workflows/ci.yml", repository="acme/app")])
    jobs = {n.job_key: n for n in res.nodes if isinstance(n, Job)}
    assert [(c.labels, c.dynamic) for c in jobs["a"].runs_on] == [
        (("runs-on", "runner=2cpu-linux-x64", "run-id=*"), ("run-id=*",))]
    assert jobs["a"].runs_on_unresolved is None
    assert jobs["b"].runs_on == [] and jobs["b"].runs_on_unresolved is not None  # nothing literal: any runner
