"""Analysis on small literal graphs with exact expected sets, paths, weights and plans."""

from __future__ import annotations

import doctest
import importlib
import itertools
import json
import math
import pkgutil
import random

import networkx as nx
import pytest

from graphkit import analysis
from graphkit.analysis.reach import lasting_seconds, source_ids
from graphkit.analysis import blast_radius, choke_points, revocation_plan
from graphkit.errors import UnknownNodeError
from graphkit.graph import Graph
from graphkit.model import (
    CRITICALITY_WEIGHT, EDGE_SPECS, Cache, CloudRole, Confidence, Credential, Criticality, DeploymentTarget, Edge,
    EdgeKind, Evidence, GitHubToken, Host, Job, Lifetime, NodeKind, OIDCIdentity, Repository, RevocationAction,
    Runner, RunnerGroup, RunnerRegistration, Secret, SigningKey, Workflow, ids, lifetime_seconds,
)

EV = Evidence(file="test.yml")
C, P = Confidence.CERTAIN, Confidence.POSSIBLE
A = RevocationAction


# --------------------------------------------------------------------------- builders


def _tail(node_id: str) -> str:
    return node_id.rsplit(":", 1)[-1]


def runner(i, **kw):
    return Runner(id=i, name=_tail(i), scope="acme", evidence=[EV], **kw)


def host(i, **kw):
    return Host(id=i, name=_tail(i), evidence=[EV], **kw)


def job(i, **kw):
    return Job(id=i, name=_tail(i), repository="acme/app", workflow_path="ci.yml", job_key=_tail(i),
               secrets_repository="acme/app", evidence=[EV], **kw)


def secret(i, **kw):
    return Secret(id=i, name=_tail(i), secret_name=_tail(i), scope="repo", owner="acme", evidence=[EV], **kw)


def token(i, **kw):
    return GitHubToken(id=i, name=_tail(i), repository="acme/app", evidence=[EV], **kw)


def oidc(i, **kw):
    return OIDCIdentity(id=i, name=_tail(i), repository="acme/app", evidence=[EV], **kw)


def role(i, **kw):
    return CloudRole(id=i, name=_tail(i), provider="aws", identifier=i, evidence=[EV], **kw)


def key(i, **kw):
    return SigningKey(id=i, name=_tail(i), scheme="cosign", identifier=i, evidence=[EV], **kw)


def target(i, **kw):
    return DeploymentTarget(id=i, name=_tail(i), target_type="environment", identifier=i, evidence=[EV], **kw)


def cred(i, **kw):
    return Credential(id=i, name=_tail(i), credential_type="aws", host="build-1", path=_tail(i), evidence=[EV], **kw)


def cache(i, **kw):
    return Cache(id=i, name=_tail(i), cache_type="actions", scope="acme/app", evidence=[EV], **kw)


def repo(i, **kw):
    return Repository(id=i, name=_tail(i), full_name="acme/app", evidence=[EV], **kw)


def edge(kind, s, t, **kw):
    kw.setdefault("evidence", [EV])
    return Edge(kind=kind, source=s, target=t, **kw)


def build(nodes, edges) -> Graph:
    g = Graph()
    g.update(nodes=nodes, edges=edges)
    return g


def hops(reached):
    return [(h.source, h.target, h.kind, h.confidence) for h in reached.path]


K = EdgeKind


# --------------------------------------------------------------------------- blast radius


def test_non_traversable_edges_are_not_followed():
    g = build(
        [runner("runner:r1"), RunnerGroup(id="runner_group:acme/default", name="default", owner="acme"),
         job("job:build"), Workflow(id="workflow:acme/lib/w.yml", name="w.yml", repository="acme/lib", path="w.yml"),
         token("github_token:build"), repo("repo:acme/app"),
         Workflow(id="workflow:acme/app/ci.yml", name="ci.yml", repository="acme/app", path="ci.yml"),
         job("job:other"), secret("secret:OTHER")],
        [edge(K.MEMBER_OF, "runner:r1", "runner_group:acme/default"),        # structural
         edge(K.RECEIVES_JOB, "runner:r1", "job:build"),
         edge(K.CALLS_WORKFLOW, "job:build", "workflow:acme/lib/w.yml"),      # structural
         edge(K.HAS_TOKEN, "job:build", "github_token:build"),
         edge(K.WRITES_REPOSITORY, "github_token:build", "repo:acme/app"),
         edge(K.HAS_WORKFLOW, "repo:acme/app", "workflow:acme/app/ci.yml"),  # structural
         edge(K.READS_SECRET, "job:other", "secret:OTHER")])                 # not reachable
    br = blast_radius(g, "runner:r1")
    assert br.ids == {"job:build", "github_token:build", "repo:acme/app"}
    # order: criticality (medium before low), then kind order (repository < github_token), then id
    assert [r.id for r in br] == ["repo:acme/app", "github_token:build", "job:build"]
    assert br.weight == 5 + 5 + 1
    assert br.sources == ("runner:r1",)
    assert "runner:r1" not in br


def test_multi_source_host_with_two_runners():
    g = build(
        [host("host:build-1"), runner("runner:r1"), runner("runner:r2"), job("job:j1"), job("job:j2"),
         secret("secret:S1"), cred("credential:build-1:aws")],
        [edge(K.HOSTS, "host:build-1", "runner:r1"), edge(K.HOSTS, "host:build-1", "runner:r2"),
         edge(K.RUNS_ON_HOST, "runner:r1", "host:build-1"),
         edge(K.STORES_CREDENTIAL, "host:build-1", "credential:build-1:aws"),
         edge(K.RECEIVES_JOB, "runner:r1", "job:j1"), edge(K.RECEIVES_JOB, "runner:r2", "job:j2"),
         edge(K.READS_SECRET, "job:j1", "secret:S1")])
    both = blast_radius(g, (r for r in ["runner:r2", "runner:r1", "runner:r2"]))
    assert both.sources == ("runner:r1", "runner:r2")
    # sources are never in `reached`, even when one reaches the other through the host
    assert [r.id for r in both] == ["host:build-1", "secret:S1", "credential:build-1:aws", "job:j1", "job:j2"]
    assert both["job:j2"].path[0].source == "runner:r2" and len(both["job:j2"].path) == 1
    # one runner alone reaches the other (runner on runner) and what it receives
    one = blast_radius(g, "runner:r1")
    assert one.ids == {"host:build-1", "runner:r2", "credential:build-1:aws", "job:j1", "job:j2", "secret:S1"}
    assert [h.target for h in one["job:j2"].path] == ["host:build-1", "runner:r2", "job:j2"]
    assert one.weight == 20 + 20 + 20 + 1 + 1 + 20
    # a host as source
    assert blast_radius(g, "host:build-1").ids == {"runner:r1", "runner:r2", "credential:build-1:aws", "job:j1",
                                                   "job:j2", "secret:S1"}
    # nothing given, nothing reached
    assert len(blast_radius(g, [])) == 0


def confidence_graph() -> Graph:
    #   r -c-> j1 -p-> s                     (short, possible)
    #   r -c-> j2 -c-> cache -c-> j3 -c-> s  (long, certain)
    #   j1 -p-> oidc -c-> role               (possible only)
    #   j3 -p-> role                         (possible, longer)
    return build(
        [runner("runner:r"), job("job:j1"), job("job:j2"), job("job:j3"), cache("cache:actions:acme/app"),
         secret("secret:S"), oidc("oidc:j1"), role("cloud_role:aws:deploy")],
        [edge(K.RECEIVES_JOB, "runner:r", "job:j1"), edge(K.RECEIVES_JOB, "runner:r", "job:j2"),
         edge(K.READS_SECRET, "job:j1", "secret:S", confidence=P),
         edge(K.WRITES_CACHE, "job:j2", "cache:actions:acme/app"),
         edge(K.RESTORES_INTO, "cache:actions:acme/app", "job:j3"),
         edge(K.READS_SECRET, "job:j3", "secret:S"),
         edge(K.MINTS_OIDC, "job:j1", "oidc:j1", confidence=P),
         edge(K.ASSUMES_ROLE, "oidc:j1", "cloud_role:aws:deploy"),
         edge(K.ASSUMES_ROLE, "job:j3", "cloud_role:aws:deploy", confidence=P)])


def test_confidence_certain_wins_over_shorter_possible_path():
    br = blast_radius(confidence_graph(), "runner:r")
    conf = {r.id: r.confidence for r in br}
    assert conf == {"job:j1": C, "job:j2": C, "job:j3": C, "cache:actions:acme/app": C, "secret:S": C,
                    "oidc:j1": P, "cloud_role:aws:deploy": P}
    # certain node: explained by the shortest certain-only path, not the shorter possible one
    assert hops(br["secret:S"]) == [
        ("runner:r", "job:j2", K.RECEIVES_JOB, C),
        ("job:j2", "cache:actions:acme/app", K.WRITES_CACHE, C),
        ("cache:actions:acme/app", "job:j3", K.RESTORES_INTO, C),
        ("job:j3", "secret:S", K.READS_SECRET, C)]
    # possible node: the shortest path overall (3 hops through the OIDC identity, not 4 through j3)
    assert hops(br["cloud_role:aws:deploy"]) == [
        ("runner:r", "job:j1", K.RECEIVES_JOB, C),
        ("job:j1", "oidc:j1", K.MINTS_OIDC, P),
        ("oidc:j1", "cloud_role:aws:deploy", K.ASSUMES_ROLE, C)]
    assert br["secret:S"].path[-1].evidence == (EV,)


def test_lifetime_is_the_best_bottleneck():
    nodes = [runner("runner:r"), job("job:j"), token("github_token:j"), repo("repo:acme/app"), oidc("oidc:j"),
             role("cloud_role:aws:release"), key("signing_key:cosign:app"), secret("secret:AWS")]
    edges = [edge(K.RECEIVES_JOB, "runner:r", "job:j"), edge(K.HAS_TOKEN, "job:j", "github_token:j"),
             edge(K.WRITES_REPOSITORY, "github_token:j", "repo:acme/app"),
             edge(K.MINTS_OIDC, "job:j", "oidc:j"), edge(K.ASSUMES_ROLE, "oidc:j", "cloud_role:aws:release"),
             edge(K.SIGNS_WITH, "cloud_role:aws:release", "signing_key:cosign:app"),
             edge(K.READS_SECRET, "job:j", "secret:AWS")]
    life = {r.id: r.lifetime for r in blast_radius(build(nodes, edges), "runner:r")}
    assert life == {
        "job:j": Lifetime.UNTIL_RUNNER_REMOVED,         # inf
        "secret:AWS": Lifetime.UNTIL_ROTATED,           # min(inf, inf): the last edge names it
        "github_token:j": Lifetime.PER_JOB,             # 24 h
        "repo:acme/app": Lifetime.PER_JOB,
        "oidc:j": Lifetime.OIDC_TOKEN,                  # 5 min
        "cloud_role:aws:release": Lifetime.OIDC_TOKEN,  # min(inf, 5 min, 12 h)
        "signing_key:cosign:app": Lifetime.OIDC_TOKEN,  # min(..., 5 min, ..., 24 h)
    }
    # the secret holds static access keys for the role: a wider path (bottleneck 12 h)
    g = build(nodes, edges + [edge(K.ASSUMES_ROLE, "secret:AWS", "cloud_role:aws:release")])
    br = blast_radius(g, "runner:r")
    assert br["cloud_role:aws:release"].lifetime is Lifetime.CLOUD_SESSION
    assert br["signing_key:cosign:app"].lifetime is Lifetime.CLOUD_SESSION
    # the explanation path is still the (equally short, first by id) OIDC one
    assert [h.target for h in br["cloud_role:aws:release"].path] == ["job:j", "oidc:j", "cloud_role:aws:release"]


def test_parallel_edges_prefer_certain_then_longer_lifetime():
    ev_a, ev_b, ev_c = (Evidence(file="test.yml", yaml_path=p) for p in ("a", "b", "c"))
    g = build(
        [job("job:j"), key("signing_key:cosign:app"), secret("secret:AWS"), role("cloud_role:aws:r"),
         role("cloud_role:aws:q")],
        [edge(K.SIGNS_WITH, "job:j", "signing_key:cosign:app", key="a", confidence=P, evidence=[ev_a]),
         edge(K.SIGNS_WITH, "job:j", "signing_key:cosign:app", key="b", evidence=[ev_b]),
         edge(K.READS_SECRET, "job:j", "secret:AWS"),
         # same confidence: the longer-lived edge explains and sets the lifetime
         edge(K.ASSUMES_ROLE, "secret:AWS", "cloud_role:aws:r", key="session", evidence=[ev_a]),
         edge(K.ASSUMES_ROLE, "secret:AWS", "cloud_role:aws:r", key="static", lifetime=Lifetime.UNTIL_REVOKED,
              evidence=[ev_b]),
         # certain beats longer-lived for the explanation; the lifetime takes the longer one anyway
         edge(K.ASSUMES_ROLE, "secret:AWS", "cloud_role:aws:q", key="static", lifetime=Lifetime.UNTIL_REVOKED,
              confidence=P, evidence=[ev_a]),
         edge(K.ASSUMES_ROLE, "secret:AWS", "cloud_role:aws:q", key="session", evidence=[ev_c])])
    br = blast_radius(g, "job:j")
    k = br["signing_key:cosign:app"]
    assert (k.confidence, k.path[0].confidence, k.path[0].evidence) == (C, C, (ev_b,))
    r = br["cloud_role:aws:r"]
    assert (r.path[-1].lifetime, r.path[-1].evidence, r.lifetime) == (Lifetime.UNTIL_REVOKED, (ev_b,),
                                                                      Lifetime.UNTIL_REVOKED)
    q = br["cloud_role:aws:q"]
    assert (q.confidence, q.path[-1].lifetime, q.path[-1].evidence) == (C, Lifetime.CLOUD_SESSION, (ev_c,))
    assert q.lifetime is Lifetime.UNTIL_REVOKED


def test_unknown_source_raises_with_suggestions():
    g = confidence_graph()
    for fn in (blast_radius, revocation_plan, choke_points):
        with pytest.raises(UnknownNodeError) as err:
            fn(g, ["runner:r", "runner:rr"])
        assert err.value.node_id == "runner:rr"
        assert "runner:r" in err.value.suggestions
        assert isinstance(err.value, KeyError)
    with pytest.raises(UnknownNodeError) as err:
        blast_radius(g, "runner:r")["secret:SS"]
    assert err.value.suggestions[0] == "secret:S"


def test_to_dict_is_json_ready():
    br = blast_radius(confidence_graph(), "runner:r")
    data = json.loads(json.dumps(br.to_dict()))
    assert data["sources"] == ["runner:r"] and data["weight"] == br.weight
    first = data["reached"][0]
    assert first == {
        "id": "secret:S", "kind": "secret", "name": "S", "criticality": "high", "confidence": "certain",
        "lifetime": "until_rotated",
        "path": [{"source": h.source, "target": h.target, "kind": h.kind.value, "confidence": h.confidence.value,
                  "lifetime": h.lifetime.value,
                  "evidence": [{"file": "test.yml", "repository": None, "yaml_path": None, "line": None,
                                "detail": None}]} for h in br["secret:S"].path]}
    plan = json.loads(json.dumps(revocation_plan(confidence_graph(), "runner:r").to_dict()))
    assert set(plan) == {"sources", "initial_weight", "residual_weight", "held", "steps"}
    assert set(plan["steps"][0]) == {"rank", "action", "subject_id", "subject_kind", "subject_name", "description",
                                     "long_lived", "phase", "reduction", "cuts", "residual_weight"}
    cps = [c.to_dict() for c in choke_points(confidence_graph(), "runner:r")]
    assert json.loads(json.dumps(cps)) == cps


# --------------------------------------------------------------------------- revocation plan

R1, J1, S1 = "runner:acme/r1", "job:acme/app/release.yml#release", "secret:repo:acme/app:DEPLOY_KEY"
T1, O1 = "target:environment:acme/app:production", "oidc:acme/app/release.yml#release"
ROLE1, KEY1 = "cloud_role:aws:arn:aws:iam::123:role/release", "signing_key:cosign:acme/app"
H1, CR1 = "host:build-1", "credential:build-1:/home/runner/.aws/credentials"


def release_graph(with_host: bool = False) -> Graph:
    nodes = [runner(R1), job(J1), secret(S1), target(T1, criticality=Criticality.CRITICAL), oidc(O1), role(ROLE1),
             key(KEY1)]
    edges = [edge(K.RECEIVES_JOB, R1, J1), edge(K.READS_SECRET, J1, S1), edge(K.DEPLOYS_TO, S1, T1),
             edge(K.MINTS_OIDC, J1, O1), edge(K.ASSUMES_ROLE, O1, ROLE1), edge(K.SIGNS_WITH, ROLE1, KEY1)]
    if with_host:
        nodes += [host(H1), cred(CR1)]
        edges += [edge(K.RUNS_ON_HOST, R1, H1), edge(K.HOSTS, H1, R1), edge(K.STORES_CREDENTIAL, H1, CR1),
                  edge(K.ASSUMES_ROLE, CR1, ROLE1)]
    return build(nodes, edges)


def steps(plan):
    return [(s.rank, s.action, s.subject_id, s.cuts, s.residual_weight) for s in plan.steps]


def test_plan_runner_job_secret_target_and_oidc_role_key():
    # weights: job 1, secret 20, target 100 (critical), oidc 5, role 20, key 100 -> 246
    # held: the secret (runner -until removed-> job -until rotated-> secret); the OIDC chain is short-lived.
    # step 1 candidates: remove runner registration -> seeds {secret}: only secret+target stay (120): -126;
    #   remove id-token permission (job -> oidc) -125; rotate secret -120; narrow trust policy -120;
    #   restrict environment -100; rotate signing key -100.  Remove the runner first.
    # step 2: rotate the held secret -120 (restrict environment only -100).  Residual 0.
    plan = revocation_plan(release_graph(), R1)
    assert plan.initial_weight == blast_radius(release_graph(), R1).weight == 246
    assert plan.held == (S1,)
    assert steps(plan) == [  # the role reached may have been assumed: its sessions go once nothing mints them
        (1, A.REMOVE_RUNNER_REGISTRATION, R1, (KEY1, ROLE1, O1, J1), 120),
        (2, A.REVOKE_ROLE_SESSIONS, ROLE1, (), 120),
        (3, A.ROTATE_SECRET, S1, (T1, S1), 0)]
    first = plan.steps[0]
    assert (first.subject_kind, first.subject_name, first.long_lived, first.reduction) == (
        NodeKind.RUNNER, "acme/r1", True, 126)
    assert first.description.startswith("Remove the runner registration")
    assert plan.residual_weight == 0


def test_plan_with_host_and_stolen_credential():
    # adds host 20 and on-disk credential 20 (-> role): 286.  Held (unbounded path from the runner):
    # host (runs_on_host), credential (host -stores-> cred), secret.  Seeds: runner, host, cred, secret.
    # phase contain: the compromised source's own registration first, -6 (job, oidc): 280 left;
    #   then the long-lived key on disk (already copied: a reimage would not revoke it), -140 (cred 20,
    #   role 20 via cred -> role, key 100): 140 left; then the held host, -20: 120 left.
    # phase rotate (held credentials): rotate secret -120 (secret 20, production 100): 0.
    # (a pure greedy would have rotated the secret and narrowed the trust policy before containing the host.)
    plan = revocation_plan(release_graph(with_host=True), R1)
    assert plan.initial_weight == 286
    assert plan.held == (H1, S1, CR1)
    assert steps(plan) == [
        (1, A.REMOVE_RUNNER_REGISTRATION, R1, (O1, J1), 280),
        (2, A.ROTATE_CREDENTIAL, CR1, (KEY1, ROLE1, CR1), 140),
        (3, A.REVOKE_ROLE_SESSIONS, ROLE1, (), 140),
        (4, A.REIMAGE_HOST, H1, (H1,), 120),
        (5, A.ROTATE_SECRET, S1, (T1, S1), 0)]
    assert [s.phase for s in plan.steps] == ["contain", "contain", "contain", "contain", "rotate"]
    curve = [plan.initial_weight] + [s.residual_weight for s in plan.steps]
    assert curve == sorted(curve, reverse=True)
    assert [s.reduction for s in plan.steps] == [a - b for a, b in itertools.pairwise(curve)]
    # max_steps
    assert steps(revocation_plan(release_graph(with_host=True), R1, max_steps=2)) == steps(plan)[:2]
    assert revocation_plan(release_graph(with_host=True), R1, max_steps=2).residual_weight == 140
    empty = revocation_plan(release_graph(with_host=True), R1, max_steps=0)
    assert (empty.steps, empty.residual_weight) == ((), 286)
    with pytest.raises(ValueError):
        revocation_plan(release_graph(), R1, max_steps=-1)


def test_tie_break_prefers_long_lived_credentials():
    # a poisoned job: it wrote the shared cache (held until purged) and has a GITHUB_TOKEN (expires).
    # Both cut 5 (medium); by action order alone reduce_token_permissions would come first.
    g = build([job("job:j"), cache("cache:actions:acme/app"), token("github_token:j")],
              [edge(K.WRITES_CACHE, "job:j", "cache:actions:acme/app"), edge(K.HAS_TOKEN, "job:j", "github_token:j")])
    plan = revocation_plan(g, "job:j")
    assert plan.held == ("cache:actions:acme/app",)
    assert steps(plan) == [(1, A.PURGE_CACHE, "cache:actions:acme/app", ("cache:actions:acme/app",), 5),
                           (2, A.REDUCE_TOKEN_PERMISSIONS, "github_token:j", ("github_token:j",), 0)]
    assert [s.long_lived for s in plan.steps] == [True, False]


def test_short_lived_credential_expires_on_its_own():
    # host with instance-metadata credentials (12 h session) and a static key file (until rotated).
    # The stolen static key (held, until rotated) is contained first: a reimage would not revoke the copy.
    # Then the host itself (the source's own foothold) is reimaged, which also ends the metadata credentials
    # (12 h session, not held: a copy of them lasts the credential's own lifetime); they need no rotation of their own.
    a, b = "credential:build-1:/metadata", "credential:build-1:/static"
    g = build([host(H1), cred(a, lifetime=Lifetime.CLOUD_SESSION), cred(b)],
              [edge(K.STORES_CREDENTIAL, H1, a, lifetime=Lifetime.CLOUD_SESSION), edge(K.STORES_CREDENTIAL, H1, b)])
    plan = revocation_plan(g, H1)
    assert plan.held == (b,)
    assert steps(plan) == [(1, A.ROTATE_CREDENTIAL, b, (b,), 20), (2, A.REIMAGE_HOST, H1, (a,), 0)]


def test_plan_redundant_paths_to_a_target():
    # r -> j1 -> s1 -> T and r -> j2 -> s2 -> T (T critical); both secrets held.  142 in all.
    # Contain first: remove the runner registration (-2: the jobs).  Then rotate: one secret alone saves
    # only itself (20, tie broken by id), the second one also cuts the target (-120).  (A pure greedy would
    # restrict the environment first, -100, leaving the runner to the end.)
    g = build([runner("runner:r"), job("job:j1"), job("job:j2"), secret("secret:S1"), secret("secret:S2"),
               target("target:prod", criticality=Criticality.CRITICAL)],
              [edge(K.RECEIVES_JOB, "runner:r", "job:j1"), edge(K.RECEIVES_JOB, "runner:r", "job:j2"),
               edge(K.READS_SECRET, "job:j1", "secret:S1"), edge(K.READS_SECRET, "job:j2", "secret:S2"),
               edge(K.DEPLOYS_TO, "secret:S1", "target:prod"), edge(K.DEPLOYS_TO, "secret:S2", "target:prod")])
    plan = revocation_plan(g, "runner:r")
    assert plan.initial_weight == 142
    assert steps(plan) == [(1, A.REMOVE_RUNNER_REGISTRATION, "runner:r", ("job:j1", "job:j2"), 140),
                           (2, A.ROTATE_SECRET, "secret:S1", ("secret:S1",), 120),
                           (3, A.ROTATE_SECRET, "secret:S2", ("target:prod", "secret:S2"), 0)]
    # no single node dominates the target
    assert [c.id for c in choke_points(g, "runner:r")] == ["job:j1", "job:j2"]


def test_plan_trivial_cases():
    # one step empties it; a source that reaches nothing needs no step
    g = build([runner("runner:r"), job("job:j")], [edge(K.RECEIVES_JOB, "runner:r", "job:j")])
    plan = revocation_plan(g, "runner:r")
    assert steps(plan) == [(1, A.REMOVE_RUNNER_REGISTRATION, "runner:r", ("job:j",), 0)]
    lone = revocation_plan(g, "job:j")
    assert (lone.initial_weight, lone.steps) == (0, ())


def test_plan_with_a_broad_trust_role_among_the_sources_ends():
    # a compromised role with an over-broad trust is a source's own contain-phase candidate that narrowing does
    # not invalidate: it is applied once (with its companion), never again (it used to repeat forever).
    g = build([runner("runner:r"), job("job:j"), oidc("oidc:j"), role("cloud_role:aws:a", broad_trust=True),
               key("signing_key:k")],
              [edge(K.RECEIVES_JOB, "runner:r", "job:j"), edge(K.MINTS_OIDC, "job:j", "oidc:j"),
               edge(K.ASSUMES_ROLE, "oidc:j", "cloud_role:aws:a"),
               edge(K.SIGNS_WITH, "cloud_role:aws:a", "signing_key:k")])
    sources = ["cloud_role:aws:a", "runner:r"]
    plan = revocation_plan(g, sources)
    assert steps(plan) == [(1, A.NARROW_TRUST_POLICY, "cloud_role:aws:a", (), 106),
                           (2, A.REVOKE_ROLE_SESSIONS, "cloud_role:aws:a", (), 106),
                           (3, A.REMOVE_RUNNER_REGISTRATION, "runner:r", ("oidc:j", "job:j"), 100),
                           (4, A.ROTATE_SIGNING_KEY, "signing_key:k", ("signing_key:k",), 0)]
    assert [s.phase for s in plan.steps] == ["contain", "contain", "contain", "restrict"]
    assert [(s.action, s.subject_id, s.residual_weight) for s in plan.steps] == _naive_plan(g, sources)


# --------------------------------------------------------------------------- choke points


def test_choke_points_chain_vs_diamond():
    chain = build([runner("runner:r"), job("job:a"), secret("secret:S"), key("signing_key:k")],
                  [edge(K.RECEIVES_JOB, "runner:r", "job:a"), edge(K.READS_SECRET, "job:a", "secret:S"),
                   edge(K.SIGNS_WITH, "secret:S", "signing_key:k")])
    got = [(c.id, c.dominated, c.weight, c.critical_weight, c.critical) for c in choke_points(chain, "runner:r")]
    assert got == [("job:a", 2, 121, 100, ("signing_key:k",)), ("secret:S", 1, 120, 100, ("signing_key:k",))]
    diamond = build([runner("runner:r"), job("job:a"), job("job:b"), secret("secret:S"), key("signing_key:k")],
                    [edge(K.RECEIVES_JOB, "runner:r", "job:a"), edge(K.RECEIVES_JOB, "runner:r", "job:b"),
                     edge(K.READS_SECRET, "job:a", "secret:S"), edge(K.READS_SECRET, "job:b", "secret:S"),
                     edge(K.SIGNS_WITH, "secret:S", "signing_key:k")])
    # neither job is a single point of failure any more; the secret still is
    got = [(c.id, c.dominated, c.weight, c.critical_weight) for c in choke_points(diamond, "runner:r")]
    assert got == [("secret:S", 1, 120, 100)]
    # two sources joined by a virtual root: the secret is still the only choke point
    assert [c.id for c in choke_points(diamond, ["job:a", "job:b"])] == ["secret:S"]


def test_choke_points_on_release_graph():
    cps = {c.id: (c.dominated, c.weight, c.critical_weight) for c in choke_points(release_graph(), R1)}
    assert cps == {J1: (5, 246, 200), S1: (1, 120, 100), O1: (2, 125, 100), ROLE1: (1, 120, 100)}


# --------------------------------------------------------------------------- doctests


def test_docstring_examples_run():
    modules = [importlib.import_module(m.name)
               for m in pkgutil.walk_packages(analysis.__path__, prefix=f"{analysis.__name__}.")]
    results = [doctest.testmod(m, optionflags=doctest.ELLIPSIS) for m in modules]
    assert sum(r.attempted for r in results) >= 3 and sum(r.failed for r in results) == 0


# --------------------------------------------------------------------------- cross-checks on random graphs

_KINDS = [NodeKind.HOST, NodeKind.RUNNER, NodeKind.JOB, NodeKind.SECRET, NodeKind.GITHUB_TOKEN,
          NodeKind.OIDC_IDENTITY, NodeKind.CLOUD_ROLE, NodeKind.SIGNING_KEY, NodeKind.DEPLOYMENT_TARGET,
          NodeKind.CACHE, NodeKind.CREDENTIAL, NodeKind.REPOSITORY, NodeKind.WORKFLOW]
_MAKE = {NodeKind.HOST: host, NodeKind.RUNNER: runner, NodeKind.JOB: job, NodeKind.SECRET: secret,
         NodeKind.GITHUB_TOKEN: token, NodeKind.OIDC_IDENTITY: oidc, NodeKind.CLOUD_ROLE: role,
         NodeKind.SIGNING_KEY: key, NodeKind.DEPLOYMENT_TARGET: target, NodeKind.CACHE: cache,
         NodeKind.CREDENTIAL: cred, NodeKind.REPOSITORY: repo,
         NodeKind.WORKFLOW: lambda i, **kw: Workflow(id=i, name=i, repository="acme/app", path=i, **kw)}
#: the i-th random node's id, per kind
_ID = {NodeKind.HOST: lambda i: ids.host(f"h{i}"), NodeKind.RUNNER: lambda i: ids.runner("acme", f"r{i}"),
       NodeKind.JOB: lambda i: ids.job("acme/app", "ci.yml", f"j{i}"),
       NodeKind.SECRET: lambda i: ids.secret_repo("acme/app", f"S{i}"),
       NodeKind.GITHUB_TOKEN: lambda i: ids.github_token(ids.job("acme/app", "ci.yml", f"j{i}")),
       NodeKind.OIDC_IDENTITY: lambda i: ids.oidc_identity(ids.job("acme/app", "ci.yml", f"j{i}")),
       NodeKind.CLOUD_ROLE: lambda i: ids.cloud_role("aws", f"arn:aws:iam::123456789012:role/r{i}"),
       NodeKind.SIGNING_KEY: lambda i: ids.signing_key("cosign", f"k{i}"),
       NodeKind.DEPLOYMENT_TARGET: lambda i: ids.environment("acme/app", f"env{i}"),
       NodeKind.CACHE: lambda i: ids.cache_actions(f"acme/app{i}"),
       NodeKind.CREDENTIAL: lambda i: ids.credential("build-1", f"/cred{i}"),
       NodeKind.REPOSITORY: lambda i: ids.repository(f"acme/repo{i}"),
       NodeKind.WORKFLOW: lambda i: ids.workflow("acme/app", f"w{i}.yml")}


def random_graph(seed: int, n: int = 40, m: int = 90) -> Graph:
    """Random nodes of every analysed kind; each edge picks a kind, then endpoints its declaration allows."""
    rng = random.Random(seed)
    nodes = [_MAKE[k](_ID[k](i), criticality=rng.choice(list(Criticality)))
             for i, k in enumerate(rng.choice(_KINDS) for _ in range(n))]
    by_kind: dict[NodeKind, list[str]] = {}
    for nd in nodes:
        by_kind.setdefault(nd.spec.kind, []).append(nd.id)
    specs = [s for s in EDGE_SPECS.values() if s.sources & set(by_kind) and s.targets & set(by_kind)]
    edges = []
    for _ in range(m):
        spec = rng.choice(specs)
        u = rng.choice([i for k in sorted(spec.sources) if k in by_kind for i in by_kind[k]])
        v = rng.choice([i for k in sorted(spec.targets) if k in by_kind for i in by_kind[k]])
        kw = {"confidence": rng.choice([C, C, P]), "key": str(rng.randrange(2))}
        if rng.random() < 0.2:
            kw["lifetime"] = rng.choice(list(Lifetime))
        if u != v:
            edges.append(edge(spec.kind, u, v, **kw))
    # host-scan facts from a second stream (the first one's graphs stay as they were)
    rng2 = random.Random(seed + 10_000)
    for i, nd in enumerate(nodes):
        if isinstance(nd, Runner) and rng2.random() < 0.5:
            seen = RunnerRegistration(config_path=f"/opt/r{i}/.runner")
            nodes[i] = nd.model_copy(update={"registration": seen, "in_inventory": rng2.choice([None, True])})
        elif isinstance(nd, Credential) and rng2.random() < 0.3:
            nodes[i] = nd.model_copy(update={"lifetime": Lifetime.UNTIL_RUNNER_REMOVED})
    # over-broad OIDC trusts from a third stream (graphkit/cloud.py sets them; the plan narrows them first)
    rng3 = random.Random(seed + 20_000)
    for i, nd in enumerate(nodes):
        if isinstance(nd, CloudRole) and rng3.random() < 0.4:
            nodes[i] = nd.model_copy(update={"broad_trust": True})
    return build(nodes, edges)


def random_incident(seed: int, rng: random.Random) -> tuple[Graph, list[str]]:
    """:func:`random_graph` of ``seed`` with 25, 40 or 80 nodes and 1.5 to 4 edges a node, and 1 to 3 of its nodes as
    sources, drawn from ``rng`` (the differential tests of the plan and its kernel)."""
    n = rng.choice([25, 40, 80])
    g = random_graph(seed, n=n, m=int(n * rng.choice([1.5, 2.5, 4])))
    return g, rng.sample(sorted(g.nx), rng.choice([1, 2, 3]))


def _tv(g: Graph, sources) -> nx.MultiDiGraph:
    """Traversable edges as the analyses follow them: a ``source_only`` kind (persists_on) only
    from a node running the attacker's code: a source, or a node a reached node enters through a ``runs_code`` edge
    (can_trigger; to a fixpoint, since such a node's source-only edges reach more)."""
    code = set(sources)
    view = nx.subgraph_view(g.nx, filter_edge=lambda u, v, k: g.nx.edges[u, v, k]["traversable"] and (
        u in code or not g.nx.edges[u, v, k]["edge"].spec.source_only))
    while True:
        reached = _reach(view, sources)
        more = {v for u, v, d in g.nx.edges(data=True)
                if u in reached and d["traversable"] and d["edge"].spec.runs_code} - code
        if not more:
            return view
        code |= more


def _reach(dg: nx.MultiDiGraph, seeds) -> set:
    out = set(seeds)
    for s in seeds:
        out |= nx.descendants(dg, s)
    return out


@pytest.mark.parametrize("seed", range(25))
def test_blast_radius_matches_networkx(seed):
    g = random_graph(seed)
    sources = list(source_ids(g, sorted(g.nx)[seed % 7::13][:3]))  # a repository stands for its jobs
    br = blast_radius(g, sources)
    tv = _tv(g, sources)
    assert br.ids == _reach(tv, sources) - set(sources)
    cert = nx.subgraph_view(tv, filter_edge=lambda u, v, k: g.nx.edges[u, v, k]["edge"].confidence is C)
    assert {r.id for r in br if r.confidence is C} == _reach(cert, sources) - set(sources)
    simple = nx.DiGraph(tv)
    csimple = nx.DiGraph(cert)
    copy_secs = _copies(g, br.ids)
    for r in br:
        # the path is a real chain of edges from a source, of shortest length in its confidence class
        assert r.path[0].source in sources and r.path[-1].target == r.id
        assert all(a.target == b.source for a, b in itertools.pairwise(r.path))
        assert all(any(d["edge"].kind is h.kind and d["edge"].confidence is h.confidence
                       for d in g.nx.get_edge_data(h.source, h.target).values()) for h in r.path)
        sg = csimple if r.confidence is C else simple
        best = min(nx.shortest_path_length(sg, s, r.id) for s in sources if nx.has_path(sg, s, r.id))
        assert len(r.path) == best
        if r.confidence is C:
            assert all(h.confidence is C for h in r.path)
        # bottleneck: the largest threshold at which the node is still reachable, each edge lasting as the analysis
        # counts it (lasting_seconds: an unbounding edge, can_trigger or an observed ran_job, bounds nothing behind
        # it but labels the node it enters with its own per_job lifetime, so a tie between such an edge and another
        # unbounded route may be labelled either way), from the sources and from every reached copy lasting at least
        # that long (the copy principle: a secret or credential read lasts its own lifetime whatever its path)
        secs = sorted({lasting_seconds(d["edge"]) for *_, d in tv.edges(data=True)} | set(copy_secs.values()),
                      reverse=True)
        expect = next(t for t in secs if r.id in _reach(nx.subgraph_view(
            tv, filter_edge=lambda u, v, k, t=t: lasting_seconds(g.nx.edges[u, v, k]["edge"]) >= t),
            [*sources, *(c for c, cs in copy_secs.items() if cs >= t)]))
        if r.id in copy_secs and copy_secs[r.id] == expect:
            assert r.lifetime is g.node(r.id).copy_lifetime  # its own lifetime, whatever its path
        # an unbounding entry labels the node with a lifetime of its pair (the parallel edges from its source, folded:
        # per_job as declared, or an edge's own lifetime)
        entries = {u for u, _, d in tv.in_edges(r.id, data=True)
                   if lasting_seconds(d["edge"]) != lifetime_seconds(d["edge"].lifetime)}
        labels = {d["edge"].lifetime for u, _, d in tv.in_edges(r.id, data=True) if u in entries}
        assert lifetime_seconds(r.lifetime) == expect or (expect == math.inf and r.lifetime in labels)


def _copies(g: Graph, reached) -> dict[str, float]:
    """The reached nodes whose value is copied (``NodeSpec.copyable``), with the seconds their copy lasts."""
    return {v: lifetime_seconds(g.node(v).copy_lifetime) for v in reached if g.node(v).spec.copyable}


def _naive_plan(g: Graph, sources: list[str]) -> list[tuple]:
    """The documented semantics, literally: full recomputation for every candidate."""
    tv = _tv(g, sources)
    reached = _reach(tv, sources)
    weight = {v: 0 if v in sources else CRITICALITY_WEIGHT[g.node(v).criticality] for v in reached}
    unb = nx.subgraph_view(tv, filter_edge=lambda u, v, k: lasting_seconds(g.nx.edges[u, v, k]["edge"]) == math.inf)
    # held: what unbounded edges reach from the sources and from every reached copy that lasts unbounded
    lasting = [*sources, *(c for c, cs in _copies(g, reached - set(sources)).items() if cs == math.inf)]
    held = {v for v in _reach(unb, lasting) - set(sources) if g.node(v).spec.holdable}
    edges = [d["edge"] for u, _, d in tv.edges(data=True) if u in reached]
    cands = {(e.revoked_by, e.revoke_subject_id()) for e in edges if e.revoked_by is not None}
    cands |= {(g.node(v).spec.revoked_by, v) for v in reached if g.node(v).spec.holdable}

    def dead_of(applied) -> set:
        dead = {s for a, s in applied if g.node(s).spec.revoked_by == a}
        return dead | {e.target for e in edges if e.source in dead
                       and g.node(e.source).spec.kind in EDGE_SPECS[e.kind].wiped_with_source}

    def residual(applied) -> tuple[int, set]:
        dead = dead_of(applied)
        dg = nx.DiGraph()
        dg.add_nodes_from(v for v in reached if v not in dead)
        dg.add_edges_from((e.source, e.target) for e in edges if (e.revoked_by, e.revoke_subject_id()) not in applied
                          and e.source not in dead and e.target not in dead)
        seeds = (set(sources) | held) - dead
        r = _reach(dg, seeds)
        return sum(weight[v] for v in r), r

    applied: set = set()
    cur, _ = residual(applied)
    out = []
    # every reached role may have been assumed: its sessions are revoked once no live edge from a reached node
    # enters it any more, at the latest at the end (docs/revocation-plan.md, ordering rule 3)
    REVOKE = RevocationAction.REVOKE_ROLE_SESSIONS
    pending = sorted(v for v in reached if g.node(v).spec.kind is NodeKind.CLOUD_ROLE)

    def flush(only_closed: bool) -> int:
        now, r = residual(applied)
        for role in list(pending):
            if only_closed and any(e.target == role and e.source != role and e.source in r
                                   and (e.revoked_by, e.revoke_subject_id()) not in applied for e in edges):
                continue
            pending.remove(role)
            applied.add((REVOKE, role))
            now, r = residual(applied)
            out.append((REVOKE, role, now))
        return now

    while cur > 0:
        def group(c):
            a, s = c
            seed = s in sources or s in held
            node = g.node(s)
            kind = node.spec.kind.value
            if node.spec.revoked_by == a and seed and any(e.source == s and e.kind is K.CAN_REGISTER_RUNNER
                                                          for e in edges):
                return (0, -3)  # a held credential that can register runners: first of all
            if a == RevocationAction.RESTRICT_UNTRUSTED_TRIGGER:
                return (0, -2)  # an untrusted entry: then the door
            if a == RevocationAction.NARROW_TRUST_POLICY and getattr(node, "broad_trust", False):
                return (0, -1)  # over-broad OIDC trust: closed first
            if node.spec.revoked_by == a and seed:
                if kind == "runner" and (s in sources or node.unvetted):
                    return (0, 0)  # own or unvetted (rogue) registration
                if kind == "credential" and node.lifetime is Lifetime.UNTIL_ROTATED:
                    return (0, 1)  # long-lived key on disk
                order = {"runner": 2, "host": 3, "cache": 4}
                return (0, order[kind]) if kind in order else (1, 0)
            return (2, 0)

        def rank(c):
            a, s = c
            red = cur - residual(applied | {c})[0]
            own = group(c)[0] == 0 and (s in sources or group(c) == (0, -3)) and s not in dead_of(applied)
            long_lived = g.node(s).spec.holdable and (s in sources or s in held)
            return (*group(c), not own, -red, not long_lived, list(RevocationAction).index(a), s)
        gone = dead_of(applied)
        eligible = [c for c in cands - applied if c[0] != REVOKE and (residual(applied | {c})[0] < cur
                    or (group(c)[0] == 0 and (c[1] in sources or group(c) == (0, -3)) and c[1] not in gone))]
        if not eligible:
            break
        best = min(eligible, key=rank)
        applied.add(best)
        cur = residual(applied)[0]
        out.append((best[0], best[1], cur))
        cur = flush(only_closed=True)
    flush(only_closed=False)
    return out


@pytest.mark.parametrize("seed", range(200))  # 57, 131, 141: a source role with an over-broad trust
def test_revocation_plan_matches_naive_semantics(seed):
    g = random_graph(seed, n=25, m=60)
    sources = list(source_ids(g, sorted(g.nx)[seed % 5::11][:2]))  # a repository stands for its jobs
    plan = revocation_plan(g, sources)
    assert [(s.action, s.subject_id, s.residual_weight) for s in plan.steps] == _naive_plan(g, sources)
    assert plan.initial_weight == blast_radius(g, sources).weight
    cut = [v for s in plan.steps for v in s.cuts]
    assert len(cut) == len(set(cut))
    if plan.steps:
        assert set(cut) <= blast_radius(g, sources).ids
