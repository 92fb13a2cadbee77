"""Neo4j without a server: statements and properties derived from the model, the query library's headers and
names, docker-compose.yml, connection settings.  (The server tests are in test_neo4j_sync.py and
test_neo4j_queries.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from graphkit.graph import Graph
from graphkit.model import ids
from graphkit.model import (
    EDGE_SPECS, NODE_TYPES, Edge, EdgeKind, Evidence, Host, Job, NodeKind, Organization, Repository, Secret,
)
from graphkit.neo4j.connection import Neo4jSettings
from graphkit.neo4j.library import COUNTERPARTS, QueryError, load_library, load_query
from graphkit.neo4j.props import (
    RecordProps, derived_props, edge_fields, edge_from_props, edge_props, node_fields, node_from_props, node_props,
)
from graphkit.neo4j.statements import (
    COMMON_LABEL, IDENTIFIER, SOURCES, SYNC_LABEL, UPDATE_TAG, edge_triples, label_of, path_types, property_names,
    source_only_kinds, rel_type_of, statements,
)
from graphkit.neo4j.sync import from_target, provenance, sync_graph
from graphkit.neo4j.templates import MAX_HOPS, render_template, rendered_queries
from ingest.github_actions import PERMISSION_SCOPES

from neo4j_helpers import ROOT, example_graph

QUERIES = ROOT / "queries"


@pytest.fixture(scope="module")
def example() -> Graph:
    return example_graph()


# --------------------------------------------------------------------------- statements (golden + meta)


#: How a relationship is stamped (see graphkit.neo4j.statements._newest).
STAMP = ", r.update_tag = CASE WHEN r.update_tag > $tag THEN r.update_tag ELSE $tag END"


def test_golden_statements():
    st = statements()
    assert st.constraints[0] == "CREATE CONSTRAINT graphkit_Host_id IF NOT EXISTS FOR (n:Host) REQUIRE n.id IS UNIQUE"
    assert st.create_nodes[NodeKind.JOB] == ("UNWIND $rows AS row OPTIONAL MATCH (m:Job {id: row.id}) WITH row, m "
                                             "WHERE m IS NULL CREATE (n:Job:Graphkit {id: row.id})")
    # stamped with the sync's tag unless newer (a sync run beside a newer one): stale removal takes older tags only
    assert st.nodes[NodeKind.JOB] == ("UNWIND $rows AS row MATCH (n:Job {id: row.id}) SET n += row.props, "
                                      "n.update_tag = CASE WHEN n.update_tag > $tag THEN n.update_tag ELSE $tag END")
    assert st.constraints[-1] == "CREATE INDEX graphkit_Graphkit_id IF NOT EXISTS FOR (n:Graphkit) ON (n.id)"
    assert st.relabel[NodeKind.JOB] == ("MATCH (n:Job) WHERE NOT n:Graphkit SET n:Graphkit "
                                        "RETURN count(n) AS relabelled")
    # the end the MERGE is not written from (the hub) looked up once per batch, rows collected by its id
    assert st.edges[(NodeKind.JOB, EdgeKind.READS_SECRET, NodeKind.SECRET)] == (
        "UNWIND $rows AS row WITH row.target AS target, collect(row) AS rows MATCH (b:Secret {id: target}) "
        "UNWIND rows AS row MATCH (a:Job {id: row.source}) "
        "MERGE (a)-[r:READS_SECRET {key: row.key}]->(b) SET r += row.props" + STAMP)
    assert st.edges_from_target[(NodeKind.JOB, EdgeKind.READS_SECRET, NodeKind.SECRET)] == (
        "UNWIND $rows AS row WITH row.source AS source, collect(row) AS rows MATCH (a:Job {id: source}) "
        "UNWIND rows AS row MATCH (b:Secret {id: row.target}) "
        "MERGE (b)<-[r:READS_SECRET {key: row.key}]-(a) SET r += row.props" + STAMP)
    assert st.stale_nodes[NodeKind.SECRET] == (
        "MATCH (x:Secret) WHERE x.update_tag < $tag AND size(coalesce(x.graphkit_sources, [])) > 0 "
        "AND all(s IN x.graphkit_sources WHERE s IN $complete) WITH x LIMIT $limit DETACH DELETE x "
        "RETURN count(*) AS removed")


def test_one_statement_per_kind_and_triple_from_the_model():
    """Meta-test: every node kind, every (source, edge, target) the model allows, and nothing else."""
    st = statements()
    assert set(st.nodes) == set(st.create_nodes) == set(NODE_TYPES)
    triples = {(s, k, t) for k, spec in EDGE_SPECS.items() for s in spec.sources for t in spec.targets}
    assert set(st.edges) == set(st.edges_from_target) == triples == set(edge_triples())
    assert set(st.stale_edges) == set(EDGE_SPECS)
    # the constraint comes first, per model label, plus the bookkeeping label
    labels = [label_of(k) for k in NODE_TYPES] + [SYNC_LABEL]
    assert [re.search(r"FOR \(n:(\w+)\)", c).group(1) for c in st.constraints] == labels + [COMMON_LABEL]
    # created with both labels, looked up by the kind's label alone (its uniqueness constraint's index)
    for k in NODE_TYPES:
        assert f"CREATE (n:{label_of(k)}:{COMMON_LABEL} {{id: row.id}})" in st.create_nodes[k]
        assert f"MATCH (m:{label_of(k)} {{id: row.id}})" in st.create_nodes[k]
        assert f"MATCH (n:{label_of(k)} {{id: row.id}}) SET n += row.props" in st.nodes[k]
    for (s, k, t), q in st.edges.items():
        assert f"(a:{label_of(s)} " in q and f"[r:{rel_type_of(k)} " in q and f"(b:{label_of(t)} " in q
        # the same relationship (type, key, direction a -> b), the pattern written from b
        back = st.edges_from_target[(s, k, t)]
        assert back.endswith(f"MERGE (b)<-[r:{rel_type_of(k)} {{key: row.key}}]-(a) SET r += row.props" + STAMP)
        assert q.endswith(f"MERGE (a)-[r:{rel_type_of(k)} {{key: row.key}}]->(b) SET r += row.props" + STAMP)
        assert f"(a:{label_of(s)} " in back and f"(b:{label_of(t)} " in back
    for q in [*st.create_nodes.values(), *st.nodes.values(), *st.edges.values(), *st.edges_from_target.values()]:
        assert "UNWIND $rows AS row" in q and "$(" not in q  # no dynamic labels


def _sent_rows(graph: Graph) -> list[tuple[str, list[dict]]]:
    """The ``UNWIND $rows`` writes ``sync_graph`` sends, recorded with a driver that runs nothing."""
    sent: list[tuple[str, list[dict]]] = []

    class Session:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

        def execute_write(self, fn, query, params):
            if "$rows" in query:
                sent.append((query, params["rows"]))
            return 0

        def execute_read(self, fn):  # the record of inputs (sync_graph reads it before writing): none
            return None

    class Driver:
        def session(self, database):
            return Session()

    sync_graph(Driver(), graph, database="x", cleanup=False)
    return sent


def _repo(i: int) -> str:
    return ids.repository(f"big/r{i}")


def _hub_graph(repos: int) -> Graph:
    """``org:big`` owning ``repos`` repositories; ``org:small`` owning ``repo:big/r0`` too (two owners);
    ``org:tiny`` owning its one repository (a tie: one relationship at each end)."""
    ev = [Evidence(file="inventory.yaml")]
    g = Graph()
    orgs = [Organization(id=ids.organization(o), name=o) for o in ("big", "small", "tiny")]
    repo = [Repository(id=_repo(i), name=f"r{i}", full_name=f"big/r{i}") for i in range(repos)]
    repo.append(Repository(id="repo:tiny/x", name="x", full_name="tiny/x"))
    owns = [("org:big", _repo(i)) for i in range(repos)] + [("org:small", "repo:big/r0"), ("org:tiny", "repo:tiny/x")]
    g.update(nodes=[*orgs, *repo], edges=[Edge(source=a, target=b, kind=EdgeKind.OWNS, evidence=ev) for a, b in owns])
    return g


def test_hub_relationships_are_written_from_the_other_end():
    """Each row goes to the statement written from the end with fewer relationships of its type: the big
    organization's OWNS from each repository, the small one's from itself (r0 has two owners, org:small one
    relationship), a tie from the source; every relationship is sent exactly once."""
    g = _hub_graph(5)
    reverse = from_target(g)
    assert [reverse("org:big", EdgeKind.OWNS, _repo(i)) for i in range(5)] == [True] * 5
    assert reverse("org:small", EdgeKind.OWNS, "repo:big/r0") is False
    assert reverse("org:tiny", EdgeKind.OWNS, "repo:tiny/x") is False
    st = statements()
    owns = (NodeKind.ORGANIZATION, EdgeKind.OWNS, NodeKind.REPOSITORY)
    sent = [(q, r["source"], r["target"]) for q, rows in _sent_rows(g) for r in rows if "source" in r]
    assert sorted(sent) == sorted([*((st.edges_from_target[owns], "org:big", _repo(i)) for i in range(5)),
                                   (st.edges[owns], "org:small", "repo:big/r0"),
                                   (st.edges[owns], "org:tiny", "repo:tiny/x")])


def test_model_labels_and_property_names_are_plain_and_unique():
    assert len({label_of(k) for k in NODE_TYPES}) == len(NODE_TYPES)
    assert len({rel_type_of(k) for k in EDGE_SPECS}) == len(EDGE_SPECS)
    for kind in NODE_TYPES:
        props = [f.prop for f in node_fields(kind)] + [f.where for f in node_fields(kind) if f.where]
        assert len(props) == len(set(props)), kind
        assert not {"id", UPDATE_TAG, SOURCES} & set(props), kind
        assert all(IDENTIFIER.match(p) for p in props)
    eprops = [f.prop for f in edge_fields()] + [f.where for f in edge_fields() if f.where]
    assert len(eprops) == len(set(eprops)) and not {"traversable", UPDATE_TAG, SOURCES} & set(eprops)


def test_label_not_an_identifier_is_refused(monkeypatch):
    spec = NODE_TYPES[NodeKind.HOST].spec
    monkeypatch.setattr(NODE_TYPES[NodeKind.HOST], "spec", spec.model_copy(update={"label": "Host) DETACH DELETE (x"}))
    with pytest.raises(ValueError, match="not a plain Cypher identifier"):
        statements()


def test_properties_are_neo4j_storable_and_round_trip(example: Graph):
    """Every node and edge of the example flattens to primitives / homogeneous lists and back, exactly."""
    def storable(v):
        if isinstance(v, list):
            return len({type(x) for x in v}) <= 1 and all(isinstance(x, (str, int, float, bool)) for x in v)
        return v is None or isinstance(v, (str, int, float, bool))

    for node in example.nodes():
        props = node_props(node)
        assert all(storable(v) for v in props.values()), node.id
        assert node_from_props(node.spec.kind, node.id, {k: v for k, v in props.items() if v is not None}) == node
    for edge in example.edges():
        props = edge_props(edge)
        assert all(storable(v) for v in props.values())
        assert props["traversable"] is EDGE_SPECS[edge.kind].traversable
        assert edge_from_props(edge.source, edge.target, props) == edge
    job = example.node("job:acme/docs/.github/workflows/docs.yml#build")
    p = node_props(job)
    assert p["all_secrets_where"] == ["acme/docs:.github/workflows/docs.yml:20 (jobs.build.steps[2].env.ALL_SECRETS)"]
    assert p["criticality"] == "low" and isinstance(p["evidence_json"], str)


def test_record_props_equal_edge_props(example: Graph):
    """The sync encodes stored records (shared parts once) exactly as edge_props encodes each pydantic edge."""
    g = example_graph()  # a fresh one: edges are added below
    ev = [Evidence(file="ci.yml", line=3, yaml_path="jobs.a")]
    job, secret = "job:acme/app/.github/workflows/ci.yml#build", "secret:repo:acme/app:TOKEN"
    g.add_node(Job(id=job, name="build", repository="acme/app", workflow_path="ci.yml", job_key="build",
                   secrets_repository="acme/app"))
    g.add_node(Secret(id=secret, name="TOKEN", secret_name="TOKEN", scope="repo", owner="acme"))
    g.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=job, target=secret, evidence=ev,
                    props={"via": ["env", "with"], "n": {"b": 1, "a": None}}))
    g.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=job, target=secret, evidence=[Evidence(file="other.yml")],
                    props={"via": ["env", "with"], "n": {"b": 1, "a": None}}))  # merged: two places
    g.add_edge(Edge(kind=EdgeKind.READS_SECRET, source=job, target=secret, key="second", evidence=ev))
    encode = RecordProps()
    records = [rec for _, _, _, rec in g.nx.edges(keys=True, data=True)]
    assert len(records) == example.nx.number_of_edges() + 2
    for rec in records + records:  # the second round answers from the shared parts
        ours, theirs = encode(rec), edge_props(rec.edge())
        assert sorted((k, type(v), v) for k, v in ours.items()) == sorted((k, type(v), v) for k, v in theirs.items())
    merged = g.nx.edges[job, secret, "reads_secret"]
    assert len(merged.evidence) == 2 and len(encode(merged)["evidence_where"]) == 2
    assert encode(g.nx.edges[job, secret, "reads_secret|second"])["props_json"] == "{}"


def test_provenance_from_evidence_and_inputs(example: Graph):
    nodes, edges = provenance(example)
    assert nodes["host:build-01"] == ["runners"]
    assert nodes["workflow:acme/app/.github/workflows/ci.yml"] == ["github-actions"]
    assert nodes["org:acme"] == ["github-actions", "runners"]
    assert any(v == ["aws-iam"] for v in nodes.values())
    # a routing edge's evidence is the job's runs-on (its runner's removal takes the edge with it)
    key = next(k for k in edges if k[0] == "runner:acme/build-01-a" and k[2].startswith("receives_job"))
    assert edges[key] == ["github-actions"]
    assert set(nodes) == set(example.nx) and len(edges) == example.nx.number_of_edges()
    bare = Graph()
    bare.add_node(Host(id="host:h", name="h", evidence=[Evidence(file="x.yaml")]))
    assert provenance(bare) == ({}, {})  # no meta.sources: nothing is removable


def test_provenance_unmatched_evidence_goes_to_checkout_sources():
    g = Graph()
    g.update(nodes=[Host(id="host:h", name="h", evidence=[Evidence(file="./inv/hosts.yaml")]),
                    Repository(id="repo:a/b", name="b", full_name="a/b", evidence=[]),
                    Repository(id="repo:a/c", name="c", full_name="a/c",
                               evidence=[Evidence(file="ci.yml", repository="a/c")]),
                    Host(id="host:api", name="api", evidence=[Evidence(file="GET /orgs/a/actions/runners")])])
    g.meta = {"sources": {"github-actions": {"complete": True}, "runners": {"complete": True}},
              "inputs": {"github-actions": ["a__c=ck/c"], "runners": ["inv"]}}
    nodes, _ = provenance(g)
    # matched path -> that source; checkout-relative -> the checkout source; unknown origin -> every source
    assert nodes == {"host:h": ["runners"], "repo:a/b": ["github-actions", "runners"],
                     "repo:a/c": ["github-actions"], "host:api": ["github-actions", "runners"]}


# --------------------------------------------------------------------------- the query library


def test_library_has_at_least_12_queries_with_headers():
    lib = load_library(QUERIES)
    assert len(lib) >= 12
    for q in lib.values():
        assert q.text.startswith(f"// name: {q.name}\n// purpose: ")
        assert q.purpose and q.counterpart, q.name
        for p in q.used_params():
            assert p in q.params and p in q.examples, (q.name, p)
            assert re.search(rf"^// :param {p} => .+$", q.text, re.M), (q.name, p)
        assert ";" not in q.body  # one statement, runnable as it is in Browser


def test_library_covers_the_issue_list():
    names = set(load_library(QUERIES))
    assert {"blast-radius-runner", "blast-radius-host", "secrets-from-runner", "cloud-roles-from-runner",
            "critical-targets-from-runner", "runners-shared-across-repositories", "runner-groups-open-to-public",
            "persistent-runners", "hosts-with-multiple-runners", "long-lived-credentials-from-runners",
            "oidc-broad-trusts", "tojson-secrets-on-self-hosted", "choke-points"} <= names
    assert set(COUNTERPARTS) <= names


def _strip(text: str) -> str:
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    return re.sub(r"'(?:[^'\\]|\\.)*'", "''", text)


def test_library_names_only_model_labels_types_and_synced_properties():
    """Meta-test: a typo in a label, type or property is a silent empty result in Cypher, so check them here."""
    labels = {label_of(k) for k in NODE_TYPES} | {COMMON_LABEL, SYNC_LABEL}
    types = {rel_type_of(k) for k in EDGE_SPECS}
    props = property_names()
    known_props = props["node"] | props["relationship"] | props["sync"]
    for q in load_library(QUERIES).values():
        body = _strip(q.text)
        for name in re.findall(r"\b[a-z_][a-zA-Z0-9_]*:([A-Za-z_][A-Za-z0-9_|]*)", body):
            for part in name.split("|"):
                assert part in labels | types, (q.name, part)
        for name in re.findall(r"\[\w*:([A-Z_|]+)", body):
            for part in name.split("|"):
                assert part in types, (q.name, part)
        for prop in re.findall(r"\b[a-z]\w*\.([a-z_][a-z0-9_]*)\b", body):
            assert prop in known_props or prop in _PERMISSION_PROPS, (q.name, prop)
        for prop in re.findall(r"\{\s*([a-z_]+)\s*:", body):
            assert prop in known_props, (q.name, prop)


#: ``permissions_<scope>`` properties (one per GITHUB_TOKEN scope; GitHub docs "Automatic token authentication",
#: https://docs.github.com/en/actions/security-for-github-actions/security-guides/automatic-token-authentication#permissions-for-the-github_token)
_PERMISSION_PROPS = {f"permissions_{s.replace('-', '_')}" for s in PERMISSION_SCOPES}


def test_rendered_library_is_fresh():
    """queries/*.cypher are rendered from queries/templates/ with the model's names (python -m graphkit.docs)."""
    rendered = rendered_queries(QUERIES)
    assert len(rendered) >= 18
    for path, text in rendered.items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name} is stale: run python -m graphkit.docs"
    # every library file comes from a template (none edited by hand beside them)
    assert {p.name for p in QUERIES.glob("*.cypher")} == {p.name for p in rendered if p.suffix == ".cypher"}


def test_browser_style_sheet_covers_the_model():
    """queries/graphkit.grass styles every label and relationship type; paths show confidence and lifetime."""
    text = (QUERIES / "graphkit.grass").read_text(encoding="utf-8")
    blocks = dict(re.findall(r"^(node\.\w+|relationship\.\w+) \{\n(.*?)^\}", text, re.M | re.S))
    for kind in NODE_TYPES:
        assert 'caption: "{name}"' in blocks[f"node.{label_of(kind)}"]
    colours = {re.search(r"color: (#\w+)", blocks[f"node.{label_of(k)}"]).group(1) for k in NODE_TYPES}
    assert len(colours) == min(len(NODE_TYPES), 18)
    for kind, spec in EDGE_SPECS.items():
        body = blocks[f"relationship.{rel_type_of(kind)}"]
        assert ('"{confidence} {lifetime}"' in body) is spec.traversable
    readme = (QUERIES / "README.md").read_text(encoding="utf-8")
    assert "graphkit.grass" in readme and ":style" in readme


def test_library_paths_name_every_traversable_type_and_only_those():
    """Variable-length patterns follow exactly the traversable edge kinds, bounded, over graphkit nodes."""
    only = source_only_kinds()
    trav = [rel_type_of(k) for k, spec in EDGE_SPECS.items() if spec.traversable and k not in only]
    assert trav == path_types() and len(trav) >= 17
    lib = load_library(QUERIES)
    seen = 0
    for q in lib.values():
        assert "{traversable" not in q.body and "traversable: true" not in q.body, q.name
        for types, bound in re.findall(r"\[:([A-Z_|]+)\*(\.\.\d+)?\]", q.body):
            assert types.split("|") == trav and bound == f"..{MAX_HOPS}", q.name
            seen += 1
        assert not re.search(r"MATCH \(\w+\)\s*$", q.body, re.M), q.name  # MATCH (n) scoped to the label
    assert seen >= 12


def test_template_with_unknown_placeholder_is_refused():
    with pytest.raises(ValueError, match="unknown placeholder"):
        render_template("// name: x\n// purpose: p\nMATCH (n:{{nodes}}) RETURN n", "x")


def test_filterable_facts_are_plain_properties(example: Graph):
    """Triggers, token permissions, trust subjects/audiences and runner labels are lists/scalars, not JSON."""
    wf = node_props(example.node("workflow:acme/app/.github/workflows/ci.yml"))
    assert wf["triggers"] == ["pull_request", "push"] and "triggers_json" in wf
    tok = node_props(example.node("github_token:acme/app/.github/workflows/release.yml#publish"))
    assert (tok["permissions_contents"], tok["permissions_id_token"], tok["permissions_pull_requests"]) == (
        "write", "write", "none")
    runner = node_props(example.node("runner:acme/build-01-a"))
    assert isinstance(runner["labels"], list) and "self-hosted" in runner["labels"]
    roles = [node_props(n) for n in example.nodes(NodeKind.CLOUD_ROLE)]
    with_subs = [r for r in roles if r["trust_subjects"]]
    assert with_subs and all(isinstance(r["trust_subjects"], list) for r in with_subs)
    assert any("sts.amazonaws.com" in (r["trust_audiences"] or []) for r in roles)
    # a trust policy (AWS IAM docs, "Creating a role for web identity or OIDC federation": the sub and aud
    # conditions of a GitHub OIDC trust, https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_create_for-idp_oidc.html)
    doc = {"Statement": [{"Effect": "Allow", "Action": "sts:AssumeRoleWithWebIdentity",
                          "Principal": {"Federated": "arn:aws:iam::1:oidc-provider/token.actions.githubusercontent.com"},
                          "Condition": {"StringEquals": {"token.actions.githubusercontent.com:aud": "sts.amazonaws.com"},
                                        "StringLike": {"token.actions.githubusercontent.com:sub": ["repo:a/b:*"]},
                                        "StringNotEquals": {"token.actions.githubusercontent.com:sub": "repo:a/c:*"}}}]}
    assert derived_props({"trust_policy": doc}) == {"trust_subjects": ["repo:a/b:*"],
                                                    "trust_audiences": ["sts.amazonaws.com"]}
    assert derived_props({"trust_policy": None}) == {"trust_subjects": None, "trust_audiences": None}
    assert derived_props({"trust_policy": {"Statement": 3}}) == {"trust_subjects": None, "trust_audiences": None}
    # Job.triggers as a list of {event, ...} (a job's run events)
    assert derived_props({"triggers": [{"event": "push"}, {"event": "pull_request_target"}, {"event": "push"}]}) == {
        "triggers": ["pull_request_target", "push"]}
    assert derived_props({"triggers": []}) == {"triggers": None}


def test_malformed_query_file_is_refused(tmp_path: Path):
    f = tmp_path / "x.cypher"
    f.write_text("// name: y\n// purpose: p\nRETURN 1\n")
    with pytest.raises(QueryError, match="must equal the file name"):
        load_query(f)
    f.write_text("// name: x\n// purpose: p\nRETURN $a\n")
    with pytest.raises(QueryError, match=r"parameter \$a"):
        load_query(f)


# --------------------------------------------------------------------------- docker-compose.yml, settings


def test_docker_compose_file():
    text = (ROOT / "docker-compose.yml").read_text()
    doc = yaml.safe_load(text)
    neo = doc["services"]["neo4j"]
    # a pinned 5.x LTS tag (5.26 is Neo4j 5's long-term support release), community edition
    assert re.fullmatch(r"neo4j:5\.26\.\d+-community", neo["image"]), neo["image"]
    ports = {p.rsplit(":", 2)[-1] for p in neo["ports"]}
    assert {"7474", "7687"} <= {p.split(":")[-1] for p in neo["ports"]} and ports == {"7474", "7687"}
    mounts = {v.split(":")[1]: v.split(":")[0] for v in neo["volumes"]}
    assert set(mounts) == {"/data", "/logs"} and set(mounts.values()) <= set(doc["volumes"])
    assert "cypher-shell" in " ".join(neo["healthcheck"]["test"])
    # ps/logs/down interpolate the file too: no ${VAR:?...} that fails without NEO4J_PASSWORD; `up` checks instead
    assert not re.search(r"\$\{\w+:?\?", text) and "${NEO4J_PASSWORD:-}" in text
    assert "Compose v2" in text


def test_settings_from_env_and_password_hidden():
    s = Neo4jSettings.from_env({"NEO4J_URI": "neo4j://u:pw@db:7687", "NEO4J_USERNAME": "alice",
                                "NEO4J_PASSWORD": "s3cr3t-value", "NEO4J_DATABASE": "graphs"})
    assert (s.user, s.password, s.database) == ("alice", "s3cr3t-value", "graphs")
    for text in (repr(s), str(s), s.display_uri):
        assert "s3cr3t-value" not in text and "pw@" not in text
    assert Neo4jSettings.from_env({}, uri="bolt://x:1").uri == "bolt://x:1"
    assert Neo4jSettings.from_env({}).database == "neo4j"
