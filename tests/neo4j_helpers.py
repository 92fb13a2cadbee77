"""Helpers of the Neo4j tests: graphs to sync, a clean database, row normalisation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphkit.build import build_graph
from graphkit.graph import Graph
from graphkit.model import NODE_TYPES
from graphkit.neo4j.connection import Neo4jSettings
from graphkit.neo4j.statements import SYNC_LABEL, label_of

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "acme"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
GHA = CORPUS / "github-actions"

#: A made-up inventory for the corpus graph: one host with two registrations (runner on runner), one on-disk
#: credential that signs and publishes, one public-repository group, the rest inferred pools.
CORPUS_INVENTORY = """\
schema: graphkit.runner-inventory/v1
organizations:
  - name: pytorch
    secrets:
      - {name: HUD_API_TOKEN, visibility: all}
    runner_groups:
      - {name: Default, visibility: all, allows_public_repositories: true}
repositories:
  - {full_name: pytorch/test-infra, visibility: public, default_branch: main}
  - {full_name: pytorch/ao, visibility: public, default_branch: main}
hosts:
  - name: pt-build-01
    os: linux
    ephemeral: false
    credentials:
      - credential_type: aws
        path: ~/.aws/credentials
        fingerprint: "a1b2c3d4e5f60718"
        grants:
          - {access: signs_with, target: "signing_key:sigstore:github.com/pytorch/test-infra/.github/workflows/release-pypi.yml"}
          - {access: publishes_to, target: "target:package_index:pypi"}
    caches:
      - {path: /opt/hostedtoolcache, kind: toolcache}
runners:
  - {name: pt-2xl-persistent, labels: [self-hosted, Linux, X64, linux.2xlarge], scope: pytorch,
     runner_group: Default, ephemeral: false, host: pt-build-01}
  - {name: pt-large-persistent, labels: [self-hosted, linux.large], scope: pytorch, runner_group: Default,
     ephemeral: false, host: pt-build-01}
  - {name: pt-4xl-eph, labels: [self-hosted, Linux, linux.4xlarge], scope: pytorch, runner_group: Default,
     ephemeral: true}
"""


def example_graph() -> Graph:
    """The bundled example: workflows, runner inventory and IAM export."""
    return build_graph({"github-actions": [EXAMPLE / "repos"], "runners": [EXAMPLE / "inventory.yaml"],
                        "aws-iam": [EXAMPLE / "aws-iam.json"]}).graph


def corpus_graph(tmp: Path) -> Graph:
    """The GitHub Actions corpus with :data:`CORPUS_INVENTORY`."""
    inv = tmp / "corpus-inventory.yaml"
    inv.write_text(CORPUS_INVENTORY, encoding="utf-8")
    return build_graph({"github-actions": [GHA], "runners": [inv]}).graph


def settings(bolt: dict[str, str]) -> Neo4jSettings:
    return Neo4jSettings(uri=bolt["uri"], user=bolt["user"], password=bolt["password"], database=bolt["database"])


def wipe(driver: Any, database: str) -> None:
    """Delete every node carrying a graphkit label (model labels and the sync bookkeeping label)."""
    with driver.session(database=database) as s:
        for label in [label_of(k) for k in NODE_TYPES] + [SYNC_LABEL]:
            s.run(f"MATCH (n:{label}) DETACH DELETE n").consume()


def snapshot(driver: Any, database: str, *, drop: tuple[str, ...] = ("update_tag",)) -> tuple[list, list]:
    """Every graphkit node and relationship with its properties (minus ``drop``), sorted: a database fingerprint."""
    nodes, rels = [], []
    with driver.session(database=database) as s:
        for label in [label_of(k) for k in NODE_TYPES]:
            for r in s.run(f"MATCH (n:{label}) RETURN n.id AS id, properties(n) AS p"):
                nodes.append((label, r["id"], sorted((k, repr(v)) for k, v in r["p"].items() if k not in drop)))
        for r in s.run("MATCH (a)-[x]->(b) RETURN a.id AS a, type(x) AS t, b.id AS b, properties(x) AS p"):
            rels.append((r["a"], r["t"], r["b"], sorted((k, repr(v)) for k, v in r["p"].items() if k not in drop)))
    return sorted(nodes), sorted(rels)


def normalise(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> list[tuple]:
    """Rows projected on ``columns``, lists compared as sorted, rows sorted: order-insensitive comparison."""
    def cell(v: Any) -> Any:
        return tuple(sorted(v)) if isinstance(v, list) else v
    return sorted(tuple(cell(r.get(c)) for c in columns) for r in rows)
