"""The copy principle (docs/revocation-plan.md, "Held nodes"): a reached secret, cloud or Kubernetes secret or
on-disk credential file hands the attacker its value, which they copy: the copy is held and lasts the node's own
lifetime whatever bounded the path to it, and what it unlocks is reached with that lifetime.  On the bundled
example with an ephemeral host (from the inventory, not only from the what-if), for a cloud secret read through an
assumed role's session, and, differentially, for copies of bounded lifetime (kernel == scipy path == numpy path ==
the reference widths, the plan == its literal semantics)."""

from __future__ import annotations

import math
import random
import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml

from graphkit.analysis import blast_radius, cbfs, kernel, reach, revocation_plan
from graphkit.analysis.radius_arrays import radius_arrays
from graphkit.build import build_graph
from graphkit.model import Credential, Lifetime, NODE_TYPES, NodeKind
from graphkit.model.nodes import Secret

from test_analysis import _naive_plan, build, random_graph

ROOT = Path(__file__).resolve().parents[1]
SOURCE = "runner:acme/build-01-a"
PAT = "credential:build-01:/etc/runner-autoscaler/env"
DISK = ("credential:build-01:/home/runner/.aws/credentials", "credential:build-01:/home/runner/.docker/config.json")
ALL_SECRETS = "cloud_secret:aws:arn:aws:secretsmanager:*:111122223333:secret:*"
SSM = "cloud_secret:aws:arn:aws:ssm:*:111122223333:parameter/*"


def test_copyable_kinds_are_the_values_read():
    """Declared once, on the node specs: the kinds whose value a reach hands over."""
    copyable = {k for k, cls in NODE_TYPES.items() if cls.spec.copyable}
    assert copyable == {NodeKind.SECRET, NodeKind.CLOUD_SECRET, NodeKind.K8S_SECRET, NodeKind.CREDENTIAL}
    assert not {NodeKind.SIGNING_KEY, NodeKind.GITHUB_TOKEN, NodeKind.OIDC_IDENTITY, NodeKind.HOST,
                NodeKind.RUNNER, NodeKind.CACHE} & copyable
    assert all(NODE_TYPES[k].spec.holdable for k in copyable)  # each has a revocation action
    key = Credential(id="credential:h:/k", name="k", credential_type="aws", host="h", path="/k",
                     lifetime=Lifetime.CLOUD_SESSION)
    assert key.copy_lifetime is Lifetime.CLOUD_SESSION  # a credential keeps its own lifetime
    s = Secret(id="secret:org:acme:X", name="X", secret_name="X", scope="org", owner="acme")
    assert s.copy_lifetime is Lifetime.UNTIL_ROTATED


@pytest.fixture(scope="module")
def ephemeral_example(tmp_path_factory) -> Path:
    """The bundled example with host build-01 and runner build-01-a marked ``ephemeral: true`` in the inventory."""
    root = tmp_path_factory.mktemp("acme")
    shutil.copytree(ROOT / "examples/acme", root / "acme")
    inv = root / "acme/inventory.yaml"
    doc = yaml.safe_load(inv.read_text())
    flipped = []
    for item in [*doc["hosts"], *doc["runners"]]:
        if item.get("name") in ("build-01", "build-01-a"):
            item["ephemeral"] = True
            flipped.append(item["name"])
    assert sorted(flipped) == ["build-01", "build-01-a"]
    inv.write_text(yaml.safe_dump(doc, sort_keys=False))
    return root / "acme"


def _build(folder: Path):
    return build_graph({"github-actions": [folder / "repos"], "runners": [folder / "inventory.yaml"],
                        "aws-iam": [folder / "aws-iam.json"]}).graph


def test_ephemeral_host_from_the_inventory_still_rotates_the_host_credentials(ephemeral_example):
    """The one job that ran on the ephemeral host could read and copy its on-disk credentials: they are held and
    rotated, the autoscaler's PAT that can register runners first of all (as with a persistent host); the host
    itself and its other runner are no longer footholds."""
    g = _build(ephemeral_example)
    assert g.node("host:build-01").ephemeral and g.node(SOURCE).ephemeral
    br = blast_radius(g, SOURCE)
    assert br[PAT].path[0].lifetime is Lifetime.PER_JOB  # reached through the one job's run
    assert {br[c].lifetime for c in (PAT, *DISK)} == {Lifetime.UNTIL_ROTATED}
    assert br["runner_group:acme/shared-linux"].lifetime is Lifetime.UNTIL_ROTATED  # the PAT registers runners
    assert br["host:build-01"].lifetime is Lifetime.PER_JOB
    plan = revocation_plan(g, SOURCE)
    assert {PAT, *DISK} <= set(plan.held) and "host:build-01" not in plan.held
    steps = [(s.phase.value, s.action.value, s.subject_id) for s in plan.steps]
    assert steps[0] == ("contain", "rotate_credential", PAT)
    assert {("contain", "rotate_credential", c) for c in DISK} <= set(steps)
    assert not any(a in ("reimage_host", "remove_runner_registration") and s in ("host:build-01", "runner:acme/build-01-b")
                   for _, a, s in steps)
    persistent = revocation_plan(_build(ROOT / "examples/acme"), SOURCE)
    assert persistent.steps[0].subject_id == PAT  # the same first step as with a persistent host


def test_a_cloud_secret_read_through_an_assumed_role_is_held_and_rotated():
    """From the example's ephemeral runner, the release job's OIDC token assumes roles whose STS session can read
    every Secrets Manager secret and SSM parameter: the session expires, the values read do not."""
    g = _build(ROOT / "examples/acme")
    src = "runner:acme/eph-7f3a"
    br = blast_radius(g, src)
    for cs in (ALL_SECRETS, SSM):
        hops = [h.kind.value for h in br[cs].path]
        assert "assumes_role" in hops and hops[-1] == "reads_secret"
        assert any(h.lifetime in (Lifetime.CLOUD_SESSION, Lifetime.OIDC_TOKEN) for h in br[cs].path)
        assert br[cs].lifetime is Lifetime.UNTIL_ROTATED and br[cs].path_lifetime is Lifetime.UNTIL_ROTATED
    plan = revocation_plan(g, src)
    assert {ALL_SECRETS, SSM} <= set(plan.held)
    rotations = {s.subject_id: s for s in plan.steps if s.action.value == "rotate_secret"}
    assert rotations[ALL_SECRETS].phase.value == "rotate" and rotations[ALL_SECRETS].long_lived
    assert rotations[SSM].phase.value == "rotate"
    # the role itself is not a copy: reached through the session only, it is not held
    assert "cloud_role:aws:arn:aws:iam::111122223333:role/acme-deploy-admin" not in plan.held


_BOUNDED = [Lifetime.PER_JOB, Lifetime.CLOUD_SESSION, Lifetime.OIDC_TOKEN, Lifetime.REGISTRATION_TOKEN,
            Lifetime.UNTIL_ROTATED, Lifetime.UNTIL_RUNNER_REMOVED]


def copy_graph(seed: int, n: int = 50, m: int = 140):
    """:func:`test_analysis.random_graph` with every credential given a lifetime drawn from bounded and unbounded
    ones, and half the edges into a copy bounded (a fourth stream): copies reached at, below and above their own
    width."""
    g = random_graph(seed, n=n, m=m)
    rng = random.Random(seed + 30_000)
    nodes = [g.node(v) for v in sorted(g.nx)]
    nodes = [nd.model_copy(update={"lifetime": rng.choice(_BOUNDED)}) if isinstance(nd, Credential) else nd
             for nd in nodes]
    copyable = {nd.id for nd in nodes if nd.spec.copyable}
    edges = [e.model_copy(update={"lifetime": rng.choice(_BOUNDED[:4])})
             if e.target in copyable and rng.random() < 0.5 else e for e in g.edges()]
    return build(nodes, edges)


def _widths(monkeypatch, g, srcs, use_kernel, use_scipy):
    with monkeypatch.context() as m:
        m.setattr(kernel, "ENABLED", use_kernel and kernel.AVAILABLE)
        m.setattr(cbfs, "ENABLED", use_scipy and cbfs.ENABLED)
        arrays = radius_arrays(g, srcs)
    if arrays is None:
        return None
    ids = arrays.snap.ids
    return {ids[o]: (w, int(c)) for o, w, c in zip(arrays.order.tolist(), arrays.width.tolist(), arrays.life.tolist())}


@pytest.mark.parametrize("seed", range(60))
def test_copies_of_every_width_agree_on_every_path(monkeypatch, seed):
    g = copy_graph(seed)
    rng = random.Random(seed)
    srcs = reach.source_ids(g, rng.sample(sorted(g.nx), rng.choice([1, 2])))
    sub = reach.collect_reference(g, srcs)
    ref_width, ref_label = reach.widest_widths(sub)
    own = dict(reach.copies(sub))
    got = [_widths(monkeypatch, g, srcs, k, s) for k, s in ((True, True), (False, True), (False, False))]
    got = [x for x in got if x is not None]
    assert got and all(x == got[0] for x in got[1:])  # kernel == scipy == numpy, labels included
    for v, node_id in enumerate(sub.ids):
        w, _ = got[0][node_id]
        assert w == ref_width[v] or (math.isinf(w) and math.isinf(ref_width[v])), node_id
        if v in own:
            assert ref_width[v] >= reach.SECONDS[own[v]]  # a copy lasts at least its own lifetime
            if ref_width[v] == reach.SECONDS[own[v]]:
                assert ref_label[v] is own[v]


@pytest.mark.parametrize("seed", range(40))
def test_plan_with_copies_of_every_width_matches_its_semantics(seed):
    g = copy_graph(seed, n=25, m=60)
    sources = list(reach.source_ids(g, sorted(g.nx)[seed % 5::11][:2]))
    plan = revocation_plan(g, sources)
    assert [(s.action, s.subject_id, s.residual_weight) for s in plan.steps] == _naive_plan(g, sources)
