"""The lifetime shown beside an asset is the one of the path shown for it (issue 17).

``blast_radius`` gives each asset the best lifetime over every path (semantics §6) and the shortest path as its
explanation; when a longer path lasts longer, the two differ.  The graph: a job mints an OIDC token (5 min,
https://docs.github.com/en/actions/security-for-github-actions/security-hardening-your-deployments/about-security-hardening-with-openid-connect)
that assumes a role (shortest path), and also reads a secret holding static access keys that assume the same
role for a session of up to 12 h (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use.html).
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from graphkit.analysis import blast_radius
from graphkit.cli import app
from graphkit.graph import Graph
from graphkit.model import CloudRole, Edge, EdgeKind as K, Evidence, Job, Lifetime, OIDCIdentity, Runner, Secret

EV = [Evidence(file="test.yml")]
ROLE = "cloud_role:aws:release"


def graph() -> Graph:
    g = Graph()
    g.update(nodes=[Runner(id="runner:r", name="r", scope="acme", evidence=EV),
                    Job(id="job:j", name="j", repository="acme/app", workflow_path="ci.yml", job_key="j",
                        secrets_repository="acme/app", evidence=EV),
                    OIDCIdentity(id="oidc:j", name="j", repository="acme/app", evidence=EV),
                    Secret(id="secret:AWS", name="AWS", secret_name="AWS", scope="repo", owner="acme", evidence=EV),
                    CloudRole(id=ROLE, name="release", provider="aws", identifier="release", evidence=EV)],
             edges=[Edge(kind=k, source=s, target=t, evidence=EV) for k, s, t in (
                 (K.RECEIVES_JOB, "runner:r", "job:j"), (K.MINTS_OIDC, "job:j", "oidc:j"),
                 (K.ASSUMES_ROLE, "oidc:j", ROLE), (K.READS_SECRET, "job:j", "secret:AWS"),
                 (K.ASSUMES_ROLE, "secret:AWS", ROLE))])
    return g


def test_the_shown_path_has_its_own_lifetime():
    r = blast_radius(graph(), "runner:r")[ROLE]
    assert [h.target for h in r.path] == ["job:j", "oidc:j", ROLE]  # shortest (by id), through the OIDC token
    assert r.lifetime is Lifetime.CLOUD_SESSION  # best over every path: the static keys' session
    assert r.path_lifetime is Lifetime.OIDC_TOKEN  # what the shown path gives
    d = r.to_dict()
    assert (d["lifetime"], d["path_lifetime"]) == ("cloud_session", "oidc_token")
    # where the shown path is the longest-lived, the field is absent and both agree
    s = blast_radius(graph(), "runner:r")["secret:AWS"]
    assert s.path_lifetime is s.lifetime is Lifetime.UNTIL_ROTATED and "path_lifetime" not in s.to_dict()


def test_cli_shows_the_path_lifetime_beside_the_asset(tmp_path):
    path = tmp_path / "g.json"
    graph().save(path)
    res = CliRunner().invoke(app, ["blast-radius", "--graph", str(path), "--from", "runner:r"],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    line = next(x for x in res.stdout.splitlines() if x.split()[1:2] == [ROLE])  # "  HIGH     cloud_role:..."
    assert line.split(None, 2)[2] == "certain, oidc_token on this path (cloud_session over another path)"
    res = CliRunner().invoke(app, ["blast-radius", "--graph", str(path), "--from", "runner:r", "--format", "json"],
                             catch_exceptions=False)
    doc = {r["id"]: r for r in json.loads(res.stdout)["reached"]}
    assert doc[ROLE]["path_lifetime"] == "oidc_token" and "path_lifetime" not in doc["secret:AWS"]
