"""What-if changes on the bundled example: exact effects, input untouched, composition, compare()."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphkit.analysis import blast_radius
from graphkit.build import build_graph
from graphkit.errors import GraphkitError, UnknownNodeError
from graphkit.model import Confidence, EdgeKind, Lifetime
from graphkit.whatif import (compare, make_ephemeral, narrow_trust_policy, remove_edges,
                             restrict_runner_group)

ROOT = Path(__file__).resolve().parents[1]
SOURCE = "runner:acme/build-01-a"
GROUP = "runner_group:acme/shared-linux"
DEPLOYER = "cloud_role:aws:arn:aws:iam::111122223333:role/acme-infra-deployer"
DOCS_BUILD = "job:acme/docs/.github/workflows/docs.yml#build"


@pytest.fixture(scope="module")
def graph():
    return build_graph({"github-actions": [ROOT / "examples/acme/repos"],
                        "runners": [ROOT / "examples/acme/inventory.yaml"]}).graph


def test_changes_never_touch_the_input(graph):
    before = graph.to_dict()
    make_ephemeral(graph, SOURCE, host=True)
    restrict_runner_group(graph, GROUP, repositories=["acme/app"])
    narrow_trust_policy(graph, DEPLOYER, subjects=["nothing"])
    remove_edges(graph, where=lambda e: True)
    assert graph.to_dict() == before


def test_make_ephemeral_with_host(graph):
    after = make_ephemeral(graph, SOURCE, host=True)
    assert after.node(SOURCE).ephemeral and after.node("host:build-01").ephemeral
    routes = [e for e in after.out_edges(SOURCE) if e.kind is EdgeKind.RECEIVES_JOB]
    assert routes and all(e.confidence is Confidence.POSSIBLE and e.lifetime is Lifetime.PER_JOB for e in routes)
    assert not [e for e in after.edges() if e.kind in (EdgeKind.RESTORES_INTO, EdgeKind.WRITES_CACHE)
                and e.props.get("host") == "host:build-01"]
    c = compare(graph, after, SOURCE)
    # no foothold is held any more; what the one run could read or poison is (ordering rule 5), and so are the
    # host's on-disk credentials it could copy (the copy principle: a copy lives until rotated)
    assert 0 < c.after.persistent_weight < c.before.persistent_weight
    assert {"host:build-01", "runner:acme/build-01-b", "credential:build-01:/etc/runner-autoscaler/env"} \
        <= set(c.before.plan.held)
    assert {n.split(":")[0] for n in c.after.plan.held} == {"secret", "signing_key", "cache", "credential"}
    assert not any(n.startswith(("cache:host:", "host:", "runner:")) for n in c.after.plan.held)
    assert {"credential:build-01:/etc/runner-autoscaler/env", "credential:build-01:/home/runner/.aws/credentials",
            "credential:build-01:/home/runner/.docker/config.json"} <= set(c.after.plan.held)
    first = c.after.plan.steps[0]  # the token that registers runners: cut first, as with a persistent host
    assert (first.action.value, first.subject_id) == ("rotate_credential",
                                                      "credential:build-01:/etc/runner-autoscaler/env")
    assert c.after.radius["credential:build-01:/etc/runner-autoscaler/env"].lifetime is Lifetime.UNTIL_ROTATED
    assert c.changes[0]["change"] == "make_ephemeral"


def test_restrict_runner_group_uses_the_resolver_rules(graph):
    after = restrict_runner_group(graph, GROUP, repositories=["acme/app", "acme/infra"],
                                  allows_public_repositories=False)
    g = after.node(GROUP)
    assert g.visibility == "selected" and g.selected_repositories == ["acme/app", "acme/infra"]
    assert not g.allows_public_repositories
    assert not any(e.kind is EdgeKind.RECEIVES_JOB for e in after.in_edges(DOCS_BUILD))
    # the docs job no longer runs on build-01, so that host's caches no longer reach it
    assert not any(e.props.get("host") == "host:build-01" for e in after.in_edges(DOCS_BUILD))
    assert DOCS_BUILD in blast_radius(graph, SOURCE) and DOCS_BUILD not in blast_radius(after, SOURCE)
    # a workflow restriction the jobs do not match removes every route of the group's runners
    none = restrict_runner_group(graph, GROUP, repositories=["acme/app"],
                                 workflows=["acme/app/.github/workflows/nope.yml@refs/heads/main"])
    members = [e.source for e in graph.in_edges(GROUP) if e.kind is EdgeKind.MEMBER_OF]
    assert members and not [e for m in members for e in none.out_edges(m) if e.kind is EdgeKind.RECEIVES_JOB]


def test_restrict_runner_group_refuses_a_repository_not_in_the_graph(graph):
    from graphkit.errors import UnknownNodeError

    with pytest.raises(UnknownNodeError, match="no repository 'acme/nonexist'; did you mean: "):
        restrict_runner_group(graph, GROUP, repositories=["acme/app", "acme/nonexist"])


def test_narrow_trust_policy(graph):
    kept = narrow_trust_policy(graph, DEPLOYER, subjects=["repo:acme/infra:environment:*"])
    edges = [e for e in kept.in_edges(DEPLOYER) if e.kind is EdgeKind.ASSUMES_ROLE]
    assert edges and all(e.confidence is Confidence.CERTAIN for e in edges)
    assert kept.node(DEPLOYER).trust == "known"
    cut = narrow_trust_policy(graph, DEPLOYER, subjects=["repo:acme/infra:ref:refs/heads/main"])
    assert not [e for e in cut.in_edges(DEPLOYER) if e.kind is EdgeKind.ASSUMES_ROLE]
    c = compare(graph, cut, SOURCE)
    assert c.removed == (DEPLOYER,) and c.added == ()


def test_remove_edges_and_errors(graph):
    edge = next(e for e in graph.edges(EdgeKind.MINTS_OIDC))
    after = remove_edges(graph, [(edge.source, edge.target, "mints_oidc")])
    assert not after.nx.has_edge(edge.source, edge.target, edge.nx_key)
    assert after.meta.what_if == [{"change": "remove_edges", "edges_removed": 1}]
    with pytest.raises(GraphkitError):
        remove_edges(graph, [(edge.source, edge.target, "reads_secret")])
    with pytest.raises(UnknownNodeError):
        make_ephemeral(graph, "runner:acme/nope")
    with pytest.raises(GraphkitError, match="not a runner"):
        make_ephemeral(graph, GROUP)


def test_changes_compose_and_compare_serialises(graph):
    after = narrow_trust_policy(restrict_runner_group(make_ephemeral(graph, SOURCE), GROUP,
                                                      repositories=["acme/app", "acme/infra"]),
                                DEPLOYER, subjects=["repo:acme/infra:ref:refs/heads/main"])
    assert [c["change"] for c in after.meta.what_if] == ["make_ephemeral", "restrict_runner_group",
                                                                  "narrow_trust_policy"]
    c = compare(graph, after, SOURCE)
    d = c.to_dict()
    assert d["metrics"]["weight"]["delta"] == c.after.weight - c.before.weight < 0
    assert d["curve"]["before"][0] == ("start", c.before.plan.initial_weight)
    assert set(c.removed) >= {DOCS_BUILD, DEPLOYER} and "metric" in str(c)


def test_make_ephemeral_ends_persistence_on_the_registration_and_with_host_on_the_host(graph):
    persisted = {e.source for e in graph.in_edges(SOURCE) if e.kind is EdgeKind.PERSISTS_ON}
    assert persisted  # jobs routed to build-01-a persist on it (graphkit/resolve/persistence.py)
    after = make_ephemeral(graph, SOURCE)
    assert not [e for e in after.in_edges(SOURCE) if e.kind is EdgeKind.PERSISTS_ON]
    assert [e for e in after.in_edges("host:build-01") if e.kind is EdgeKind.PERSISTS_ON]  # the host is recycled
    reset = make_ephemeral(graph, SOURCE, host=True)
    assert not [e for e in reset.in_edges("host:build-01") if e.kind is EdgeKind.PERSISTS_ON]


def test_restrict_runner_group_rechecks_what_a_registrar_could_attach(graph):
    before = {e.target for e in graph.out_edges(GROUP) if e.kind is EdgeKind.GROUP_RECEIVES_JOB}
    assert DOCS_BUILD in before  # the autoscaler PAT can attach a runner to shared-linux, which serves acme/docs
    after = restrict_runner_group(graph, GROUP, repositories=["acme/app"])
    kept = {e.target for e in after.out_edges(GROUP) if e.kind is EdgeKind.GROUP_RECEIVES_JOB}
    assert DOCS_BUILD not in kept and kept and all("acme/app/" in j for j in kept)
