"""The build's fast paths (issue 19) against their references: the props sharing's quick key against the JSON-text
comparison it stands in for."""

from __future__ import annotations

import json
import random

import pytest

from graphkit.storage import Interner, _quick_key

def _random_value(rng):
    return rng.choice([1, 0, True, False, None, "1", "true", "", 1.0, -0.0, 0.0, ["a"], ("a",), ["a", 1], {"x": 1}])


def test_props_sharing_quick_key_matches_json_text():
    """Equal quick keys only for props with equal JSON texts, and the shared mapping is the one the JSON-text
    table alone gives (the reference: a table keyed by ``json.dumps(props, sort_keys=True)``)."""
    rng = random.Random(7)
    interner, reference = Interner(), {}
    seen_quick = 0
    for _ in range(3000):
        props = {rng.choice(["a", "b", 1, "1"]): _random_value(rng) for _ in range(rng.randint(1, 3))}
        if rng.random() < 0.3:
            props = dict(reversed(list(props.items())))
        q = _quick_key(props)
        seen_quick += q is not None
        try:
            text = json.dumps(props, sort_keys=True)
        except TypeError:  # mixed key types: not sortable, not shared
            got = interner.props(props)
            assert got == props and got is not props
            continue
        want = reference.setdefault(text, props)
        assert interner.props(props) is want
    assert 500 < seen_quick < 3000
    assert _quick_key({"a": 1}) != _quick_key({"a": True}) and _quick_key({"a": 0.0}) is None


def test_limits_current_follows_the_environment_and_cli(monkeypatch):
    """``limits.current()`` is made once per distinct values, and still reads them at each call."""
    from graphkit import limits
    monkeypatch.delenv("GRAPHKIT_LIMIT_MAX_DEPTH", raising=False)
    first = limits.current()
    assert limits.current() is first and first.max_depth == limits.Limits().max_depth
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_DEPTH", "7")
    assert limits.current().max_depth == 7
    limits.apply_cli(["max_depth=9"])
    try:
        assert limits.current().max_depth == 9
    finally:
        limits.apply_cli([])
    assert limits.current().max_depth == 7
    monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_DEPTH", "0")
    with pytest.raises(limits.LimitError):
        limits.current()
    monkeypatch.delenv("GRAPHKIT_LIMIT_MAX_DEPTH")
    assert limits.current() is first


# --------------------------------------------------------------------------- the resolver's fast paths (issue 19)

def _org_inputs(root, repos: int = 60, seed: int = 4) -> dict:
    from graphkit import synth
    synth.write(synth.generate(repos, seed=seed), root)
    return {"github-actions": [root / "repos"], "runners": [root / "inventory.yaml"],
            "aws-iam": [root / "aws-iam.json"]}


def _example_inputs() -> dict:
    from pathlib import Path
    acme = Path(__file__).resolve().parents[1] / "examples" / "acme"
    return {"github-actions": [acme / "repos"], "runners": [acme / "inventory.yaml"],
            "aws-iam": [acme / "aws-iam.json"]}


def _text(graph) -> str:
    from graphkit.graph_file import graph_text
    return "".join(graph_text(graph))


def _reference_add_edge_fields(self, kind, source, target, evidence, *, key="", confidence=None, lifetime=None,
                               revoked_by=None, props=None):
    from graphkit.model import Confidence, Edge
    self.add_edge(Edge(kind=kind, source=source, target=target, key=key, evidence=evidence,
                       confidence=confidence or Confidence.CERTAIN, lifetime=lifetime, revoked_by=revoked_by,
                       props=props or {}))


def _reference_usable_runners(ctx, job):
    from graphkit.resolve.context import context_repo
    from graphkit.resolve.routing import _access
    repo_full = context_repo(job)
    in_scope = sorted(ctx.runners_in_scope(repo_full), key=lambda t: t[0])
    return [r for _, r in in_scope if _access(ctx, r, job, repo_full) is not None]


@pytest.mark.parametrize("which", ["synth", "example"])
def test_resolver_fast_paths_match_their_references(which, tmp_path, monkeypatch):
    """The build with the resolver's fast paths gives the same graph file, byte for byte, as with their
    references: an edge stored from its fields == ``add_edge(Edge(...))``; usable runners decided per group ==
    per runner; one OIDC trust evaluation per trust class == one per (identity, role)."""
    from graphkit import cloud
    from graphkit.build import build_graph
    from graphkit.graph import Graph
    from graphkit.resolve import routing, untrusted
    inputs = _org_inputs(tmp_path) if which == "synth" else _example_inputs()
    fast = build_graph(inputs).graph
    monkeypatch.setattr(Graph, "add_edge_fields", _reference_add_edge_fields)
    monkeypatch.setattr(routing, "usable_runners", _reference_usable_runners)
    monkeypatch.setattr(untrusted, "usable_runners", _reference_usable_runners)
    monkeypatch.setattr(cloud, "_same_trust", lambda role, statements, rcps: (role.id,))
    reference = build_graph(inputs).graph
    assert fast.counts() == reference.counts()
    assert _text(fast) == _text(reference)
    counts = fast.counts()["edges"]
    assert counts["assumes_role"] > 100 and counts["can_trigger"] > 20 and counts["receives_job"] > 50 \
        if which == "synth" else counts["assumes_role"] >= 1


def test_add_edge_fields_matches_add_edge_on_random_edges():
    """Random edges (repeated identities merge, parallel keys, endpoints missing or of a kind the edge does not
    allow): the graph and the errors are those of ``add_edge(Edge(...))``."""
    from graphkit.errors import GraphkitError
    from graphkit.graph import Graph
    from graphkit.model import Confidence, EdgeKind, Evidence, Job, Lifetime, Runner, ids
    rng = random.Random(11)
    runners = [Runner(id=ids.runner("acme", f"r{i}"), name=f"r{i}", scope="acme", evidence=[Evidence(file="inv.yaml")])
               for i in range(4)]
    jobs = [Job(id=ids.job("acme/app", ".github/workflows/ci.yml", f"j{i}"), name=f"j{i}", repository="acme/app",
                workflow_path=".github/workflows/ci.yml", job_key=f"j{i}", secrets_repository="acme/app",
                evidence=[Evidence(file="ci.yml")])
            for i in range(4)]
    fast, ref = Graph(), Graph()
    for g in (fast, ref):
        for n in [*runners, *jobs]:
            g.add_node(n)
    errors = 0
    for _ in range(600):
        kind = rng.choice([EdgeKind.RECEIVES_JOB, EdgeKind.PERSISTS_ON])
        source = rng.choice([*runners, *jobs]).id + ("x" if rng.random() < 0.05 else "")
        target = rng.choice([*runners, *jobs]).id
        args = dict(key=rng.choice(["", "a", "b"]), confidence=rng.choice(list(Confidence)),
                    lifetime=rng.choice([None, Lifetime.PER_JOB]),
                    props=rng.choice([None, {}, {"labels": ["x"]}, {"n": rng.randint(0, 2)}]))
        evidence = [Evidence(file=rng.choice(["a.yml", "b.yml"]), line=rng.randint(1, 3))]
        got = []
        for g, add in ((fast, Graph.add_edge_fields), (ref, _reference_add_edge_fields)):
            try:
                add(g, kind, source, target, list(evidence), **args)
                got.append(None)
            except GraphkitError as exc:
                got.append(str(exc))
        assert got[0] == got[1]
        errors += got[0] is not None
    assert errors > 50 and fast.nx.number_of_edges() > 40
    assert _text(fast) == _text(ref)


def test_interner_identity_table_gives_the_shared_objects_of_the_reference():
    """With the identity table on (a build), :meth:`Interner.evidence` returns the same shared objects as the
    table-less reference for the same sequence of objects: equal evidence -> the first one seen, objects handed
    again found by identity, copies by value."""
    from graphkit.model import Evidence
    rng = random.Random(3)
    pool = [Evidence(file=f"f{i % 5}.yml", line=i % 7) for i in range(40)]
    fast, ref = Interner(), Interner()
    fast.remember_ids()
    handed = []
    for _ in range(2000):
        e = rng.choice(pool) if rng.random() < 0.7 or not handed else rng.choice(handed)
        if rng.random() < 0.2:
            e = e.model_copy()
        a, b = fast.evidence(e), ref.evidence(e)
        assert a == e and a is b
        handed.append(a)
    fast.forget_ids()
    assert all(fast.evidence(e) is ref.evidence(e) for e in pool)


# --------------------------------------------------------------------------- this session's fast paths (issue 19)

@pytest.fixture(scope="module")
def synth_graph(tmp_path_factory):
    from graphkit.build import build_graph
    return build_graph(_org_inputs(tmp_path_factory.mktemp("org"))).graph


def test_records_of_kinds_match_edges_of_kind(synth_graph):
    """The stored records read in one pass, per kind, are the edges of :meth:`Graph.edges` (the reference) in the
    same order: same fields, evidence and props; and ``nodes_of_kind`` gives :meth:`Graph.nodes` of the kind."""
    from graphkit.model import EdgeKind, NodeKind
    from graphkit.resolve.context import edges_of_kind, nodes_of_kind, records_of_kinds
    g = synth_graph
    kinds = [EdgeKind.RECEIVES_JOB, EdgeKind.RUNS_ON_HOST, EdgeKind.ASSUMES_ROLE, EdgeKind.CALLS_WORKFLOW]
    got = records_of_kinds(g, *kinds)
    for kind, records in zip(kinds, got):
        reference = list(g.edges(kind))
        assert edges_of_kind(g, kind) == reference
        assert [r.edge() for r in records] == reference
        assert [(r.source, r.target, r.key, r.kind, r.confidence, r.lifetime, r.revoked_by, list(r.evidence),
                 dict(r.props or {})) for r in records] == \
            [(e.source, e.target, e.key, e.kind, e.confidence, e.lifetime, e.revoked_by, e.evidence, e.props)
             for e in reference]
    assert len(got[0]) > 50 and len(got[1]) > 5 and len(got[2]) > 50
    for kind in NodeKind:
        assert list(nodes_of_kind(g, kind)) == list(g.nodes(kind))


def test_evidence_made_once_per_place_equals_the_reference():
    """:meth:`Src.ev` and the inventory's ``ev`` give one object per (path, detail), equal to a new one made each
    time (the reference), details shortened and redacted first."""
    from graphkit.model import Evidence
    from ingest._yaml import line_of
    from ingest.github_actions.evidence import Src, shown_detail
    from ingest.runner_inventory.to_graph import _FileGraph
    rng = random.Random(5)
    src = Src("ci.yml", "acme/app", {"": 1, "jobs": 2, "jobs.a": 3})
    fg = _FileGraph(file="inventory.yaml", lines={"repositories[0]": 4})
    token = "ghp_" + "A1b2" * 9
    for _ in range(400):
        path = rng.choice(["", "jobs", "jobs.a", "jobs.a.steps[0]", "jobs.b"])
        detail = rng.choice([None, "", "x  y", f"curl -H 'token: {token}'", 3, "z" * 300])
        got = src.ev(path, detail)
        assert got is src.ev(path, detail)
        reference = Evidence(file="ci.yml", repository="acme/app", yaml_path=path or None,
                             line=line_of(src.lines, path),
                             detail=None if detail is None else shown_detail(str(detail)) or None)
        assert got == reference and got == src._evidence(path, None if detail is None else shown_detail(str(detail)))
        assert token not in repr(got)
        ipath = rng.choice(["repositories[0]", "repositories[1]"])
        idetail = rng.choice([None, "a", "b"])
        assert fg.ev(ipath, idetail) is fg.ev(ipath, idetail)
        assert fg.ev(ipath, idetail) == Evidence(file="inventory.yaml", yaml_path=ipath, line=fg.lines.get(ipath),
                                                 detail=idetail)


def test_read_text_with_the_folder_resolved_once_matches_the_reference(tmp_path):
    """``read_text(..., within_real=within.resolve())`` reads and refuses exactly as ``read_text(..., within)``:
    a file, a link inside the folder, a link out of it."""
    from graphkit.errors import InputError
    from graphkit.ingestor import read_text
    root, outside = tmp_path / "repo", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "a.yml").write_text("a: 1\n", encoding="utf-8")
    (outside / "b.yml").write_text("b: 2\n", encoding="utf-8")
    (root / "in.yml").symlink_to(root / "a.yml")
    (root / "out.yml").symlink_to(outside / "b.yml")
    for name in ("a.yml", "in.yml", "out.yml"):
        got = []
        for kwargs in ({}, {"within_real": root.resolve()}):
            try:
                got.append(read_text(root / name, within=root, **kwargs))
            except InputError as exc:
                got.append(str(exc))
        assert got[0] == got[1]
    assert "outside its input folder" in got[1]


def test_build_leaves_the_collector_as_it_was(tmp_path):
    """After a build the collector is enabled with nothing frozen and an empty young generation (what the build
    allocated moved to the oldest one); a collector the caller disabled stays disabled; with objects frozen by
    the caller, they stay frozen."""
    import gc
    from graphkit.build import build_graph
    inputs = _example_inputs()
    assert gc.isenabled()
    build_graph(inputs)
    assert gc.isenabled() and not gc.get_freeze_count() and gc.get_count()[0] < 100
    gc.disable()
    try:
        build_graph(inputs)
        assert not gc.isenabled()
    finally:
        gc.enable()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        build_graph(inputs)
        assert gc.isenabled() and frozen // 2 < gc.get_freeze_count() <= frozen  # kept (a few freed by refcount)
    finally:
        gc.unfreeze()


def test_builder_merges_with_growing_evidence_lists_match_node_merged():
    """A builder's nodes merged with their evidence lists grown in place equal the reference merge
    (:meth:`Node.merged`, one observation after the other) on random observations: repeated ids, repeated and new
    evidence, conflicting and inferred values; the nodes handed in keep their own evidence lists."""
    from graphkit.graph import GraphBuilder
    from graphkit.model import Evidence, Organization, Repository, ids
    rng = random.Random(13)
    pool = [Evidence(file=f"f{i}.yml", line=i) for i in range(30)]
    builder, reference = GraphBuilder(), {}
    handed = []
    for _ in range(3000):
        i = rng.randrange(4)
        evidence = rng.sample(pool, rng.randint(1, 3))
        if rng.random() < 0.5:
            node = Organization(id=ids.organization(f"o{i}"), name=f"o{i}", evidence=evidence,
                                inferred=rng.random() < 0.2)
        else:
            extra = {"visibility": rng.choice(["public", "private"])} if rng.random() < 0.3 else {}
            node = Repository(id=ids.repository(f"o{i}/r"), name=rng.choice(["o/r", "O/R"]), full_name="o/r",
                              evidence=evidence, inferred=rng.random() < 0.2, **extra)
        handed.append((node, list(node.evidence)))
        builder.node(node)
        prev = reference.get(node.id)
        reference[node.id] = node if prev is None else prev.merged(node)
        if rng.random() < 0.01:  # a node read between merges is the current state
            assert builder.nodes[node.id] == reference[node.id]
    assert builder.nodes == reference
    assert max(len(n.evidence) for n in reference.values()) == 30
    assert all(node.evidence == before for node, before in handed)


def _reference_candidate_labels(runner, cand):
    from graphkit.model import Confidence
    from graphkit.resolve.labels import _one
    labels = {x.strip().lower() for x in runner.labels} | {"self-hosted"}
    dynamic = {d.strip().lower() for d in cand.dynamic}
    worst = Confidence.CERTAIN
    for want in cand.labels:
        conf = _one(want, want.strip().lower() in dynamic, labels, runner.label_patterns)
        if conf is None:
            return None
        worst = Confidence.POSSIBLE if conf is Confidence.POSSIBLE else worst
    return worst


def test_candidate_labels_with_remembered_runner_labels_matches_the_reference():
    """Runner labels normalised once per label list give the answers of normalising them at each call, on random
    runners (labels in any case and spacing, patterns) and candidates (static and dynamic labels)."""
    from graphkit.model import Evidence, Runner, RunsOnCandidate, ids
    from graphkit.resolve.labels import candidate_labels
    rng = random.Random(17)
    words = ["linux", "Linux ", "x64", "GPU", "self-hosted", "large", "linux-large", "run-id=1"]
    seen = set()
    for i in range(300):
        runner = Runner(id=ids.runner("acme", f"r{i % 50}"), name="r", scope="acme",
                        labels=rng.sample(words, rng.randint(0, 4)),
                        label_patterns=rng.choice([[], [], ["run-id=*"], ["*-large"]]), evidence=[Evidence(file="i")])
        want = rng.sample(["linux", "X64", "gpu", "self-hosted", "*-large", "run-id=*", "ubuntu"], rng.randint(1, 3))
        dynamic = [w for w in want if "*" in w and rng.random() < 0.8]
        cand = RunsOnCandidate(labels=want, dynamic=dynamic, evidence=Evidence(file="ci.yml"))
        got = candidate_labels(runner, cand)
        assert got == _reference_candidate_labels(runner, cand)
        seen.add(got)
    assert len(seen) == 3  # certain, possible and None all met


@pytest.mark.parametrize("cap", [None, "20"])
def test_evidence_made_without_validation_is_the_validated_object(cap, monkeypatch):
    """``Src._evidence`` skips pydantic's validation only for values it keeps as they are: the object equals the
    validated one in value, hash, set fields, dump and repr; a detail past ``max_attribute_chars`` still goes
    through validation (left out, the refusal recorded at its place)."""
    from graphkit.model import Evidence
    from graphkit.model.bounds import take_refusals
    from ingest.github_actions.evidence import Src
    if cap is not None:
        monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_ATTRIBUTE_CHARS", cap)
    from graphkit import limits
    limits.current()
    take_refusals()
    rng = random.Random(28)
    src = Src("ci.yml", "acme/app", {"": 1, "jobs": 2, "jobs.a": 3})
    left_out = 0
    for _ in range(300):
        path = rng.choice(["", "jobs", "jobs.a", "jobs.a.steps[0]", "jobs.b"])
        detail = rng.choice([None, "", "x y", "z" * 19, "z" * 21, "w" * 159])
        got = src._evidence(path, detail)
        ref = Evidence(file="ci.yml", repository="acme/app", yaml_path=path or None, line=src.lines.get(
            path, src.lines.get("jobs.a" if path.startswith("jobs.a") else "jobs" if path else "")),
            detail=detail or None)
        assert got == ref and hash(got) == hash(ref) and repr(got) == repr(ref)
        assert got.__pydantic_fields_set__ == ref.__pydantic_fields_set__
        assert got.model_dump_json() == ref.model_dump_json() and type(got) is Evidence
        left_out += got.detail is None and bool(detail)
    refused = take_refusals()
    if cap:  # recorded once per place (graphkit.model.bounds.take_refusals)
        assert left_out > 20 and 0 < len(refused) <= 10 and all(f == "acme/app:ci.yml" for f, _, _ in refused)
    else:
        assert left_out == 0 and not refused


def test_shared_props_plain_verdict_follows_the_limit_and_evidence_tuples_pass_through(monkeypatch):
    """``Interner.plain`` equals ``plain_props`` whatever the limit did since the last check of a shared mapping;
    ``evidence_seq`` of a shared tuple is that tuple, of anything else the reference's tuple."""
    from graphkit import limits
    from graphkit.model import Evidence
    from graphkit.model.bounds import plain_props
    parts = Interner()
    shared = parts.props({"via": "x" * 30, "n": 1})
    mine = {"via": "x" * 30, "n": 1}
    for cap in (None, "20", None, "40", "29", "30"):
        if cap is None:
            monkeypatch.delenv("GRAPHKIT_LIMIT_MAX_ATTRIBUTE_CHARS", raising=False)
        else:
            monkeypatch.setenv("GRAPHKIT_LIMIT_MAX_ATTRIBUTE_CHARS", cap)
        limits.current()
        for _ in range(2):
            assert parts.plain(shared) == plain_props(shared) == plain_props(mine) == parts.plain(mine)
        assert plain_props(shared) is (cap not in ("20", "29"))
    a, b = Evidence(file="a", line=1), Evidence(file="b")
    for evs in ([a], [a, b], [b, a, b]):
        seq = parts.evidence_seq(evs)
        assert parts.evidence_seq(seq) is seq and parts.evidence_seq(list(seq)) is seq
        assert parts.evidence_seq(tuple([Evidence(file=e.file, line=e.line) for e in evs])) is seq
    assert parts.evidence_seq((a, Evidence(file="c"))) == (a, Evidence(file="c"))
